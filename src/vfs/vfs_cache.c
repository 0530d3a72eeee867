/*
 * vfs_cache.c - exports and the node cache: handle -> open object.
 *
 * Each export has a table of nodes split into VFS_CACHE_SHARDS shards, one mutex per
 * shard, keyed by the handle's bytes (hashed by its MAC, which is already a keyed
 * PRF of the rest). A node is only ever inserted after its handle was authenticated,
 * so a hit — exact bytes found — needs no MAC computation: vfs_node_get() on a cached
 * object costs one hash lookup. Unreferenced nodes sit on a per-shard LRU list and
 * are evicted when a shard holds more than its share of the cache (VFS_CACHE_MAX:
 * vfs_cache_shard_max) or its nodes more than its share of the descriptors all
 * exports' nodes may hold together (vfs_cache_shard_fds). Descriptors are counted as
 * they are held, one or two a node, so that where the limit binds, nodes that never
 * needed an I/O descriptor take half the room.
 *
 * Every node holds an O_PATH reference (opened by handle as the server), and for
 * regular files, once read or written, an I/O descriptor shared by every caller.
 * A referenced node holds a reference on its export.
 *
 * The hashed nodes on the export's own device are also indexed by inode number, so that
 * READDIRPLUS can take an entry's handle from the cache instead of asking the kernel
 * (vfs_cache_fh_by_ino()): the open reference keeps the number from being reused, and
 * the order in which nodes entered the index tells which were there before a stat.
 *
 * Locks: shard->lock protects the shard's buckets, LRU list and count, and the refs,
 * hashed and link fields of its nodes. The inode shards' locks protect the index and
 * nest inside it; both are leaf locks otherwise, and descriptors are closed after they
 * are dropped.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/posix/posix.h"
#include "core/clock.h"
#include "core/fsflush.h"
#include "core/log.h"
#include "vfs/vfs_internal.h"

#define SHARD_BUCKETS 256

struct vfs_node_shard {
	pthread_mutex_t lock;
	struct vfs_node *buckets[SHARD_BUCKETS];
	struct vfs_node *lru_head, *lru_tail; /* unreferenced nodes, newest first */
	unsigned count;			      /* hashed nodes */
	/* Descriptors held by this shard's nodes, hashed or not yet freed: changed
	 * without the lock where a node opens its I/O descriptor or is freed. */
	atomic_uint fds;
};

#define INO_BUCKETS 256

struct vfs_ino_shard {
	pthread_mutex_t lock;
	struct vfs_node *buckets[INO_BUCKETS];
};

static struct vfs_ino_shard *ino_shard_of(struct vfs_export *ve, uint64_t ino)
{
	return &ve->ino_shards[ino % VFS_CACHE_SHARDS];
}

static struct vfs_node **ino_bucket_of(struct vfs_ino_shard *is, uint64_t ino)
{
	return &is->buckets[(ino / VFS_CACHE_SHARDS) % INO_BUCKETS];
}

/* Add hashed node @n to the inode index, if it belongs there (its shard lock held). */
static void ino_add(struct vfs_node *n)
{
	struct vfs_ino_shard *is;

	if (!n->ino_indexed)
		return;
	is = ino_shard_of(n->ve, n->ino);
	pthread_mutex_lock(&is->lock);
	/* Its descriptor is open already: the number is pinned before the mark can pass it. */
	n->ino_seq = atomic_fetch_add(&n->ve->ino_entered, 1) + 1;
	n->inext = *ino_bucket_of(is, n->ino);
	*ino_bucket_of(is, n->ino) = n;
	pthread_mutex_unlock(&is->lock);
}

/* Take @n out of the inode index as it is unhashed (its shard lock held). */
static void ino_del(struct vfs_node *n)
{
	struct vfs_ino_shard *is;
	struct vfs_node **pp;

	if (!n->ino_indexed)
		return;
	is = ino_shard_of(n->ve, n->ino);
	pthread_mutex_lock(&is->lock);
	for (pp = ino_bucket_of(is, n->ino); *pp && *pp != n; pp = &(*pp)->inext)
		;
	if (*pp)
		*pp = n->inext;
	pthread_mutex_unlock(&is->lock);
	n->inext = NULL;
	n->ino_indexed = false;
}

uint64_t vfs_cache_ino_mark(struct vfs_export *ve)
{
	return atomic_load(&ve->ino_entered);
}

bool vfs_cache_fh_by_ino(struct vfs_export *ve, uint64_t dev, uint64_t ino, uint64_t mark,
			 struct vfs_fh *out)
{
	struct vfs_ino_shard *is = ino_shard_of(ve, ino);
	bool found = false;

	if (dev != (uint64_t)ve->root_dev)
		return false;
	pthread_mutex_lock(&is->lock);
	for (struct vfs_node *n = *ino_bucket_of(is, ino); n; n = n->inext) {
		if (n->ino == ino && n->ino_seq <= mark) {
			*out = n->fh;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&is->lock);
	return found;
}

static struct vfs_node_shard *shard_of(struct vfs_export *ve, uint64_t hash)
{
	return &ve->shards[hash % VFS_CACHE_SHARDS];
}

static struct vfs_node **bucket_of(struct vfs_node_shard *sh, uint64_t hash)
{
	return &sh->buckets[(hash / VFS_CACHE_SHARDS) % SHARD_BUCKETS];
}

static void lru_remove(struct vfs_node_shard *sh, struct vfs_node *n)
{
	if (n->lru_prev)
		n->lru_prev->lru_next = n->lru_next;
	else
		sh->lru_head = n->lru_next;
	if (n->lru_next)
		n->lru_next->lru_prev = n->lru_prev;
	else
		sh->lru_tail = n->lru_prev;
	n->lru_prev = n->lru_next = NULL;
}

static void lru_push(struct vfs_node_shard *sh, struct vfs_node *n)
{
	n->lru_prev = NULL;
	n->lru_next = sh->lru_head;
	if (sh->lru_head)
		sh->lru_head->lru_prev = n;
	else
		sh->lru_tail = n;
	sh->lru_head = n;
}

static void unhash(struct vfs_node_shard *sh, struct vfs_node *n)
{
	struct vfs_node **pp = bucket_of(sh, n->hash);

	while (*pp && *pp != n)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = n->hnext;
	n->hnext = NULL;
	n->hashed = false;
	sh->count--;
	ino_del(n);
}

static struct vfs_node *find(struct vfs_node_shard *sh, uint64_t hash, const uint8_t *fh,
			     size_t len)
{
	for (struct vfs_node *n = *bucket_of(sh, hash); n; n = n->hnext)
		if (n->hash == hash && n->fh.len == len && memcmp(n->fh.data, fh, len) == 0)
			return n;
	return NULL;
}

/* Descriptors @n holds: its object reference, and its I/O descriptor once opened. */
static unsigned node_fds(struct vfs_node *n)
{
	return atomic_load(&n->data) >= 0 ? 2 : 1;
}

static void node_free(struct vfs_node *n)
{
	const struct backend_ops *be = n->ve->be;
	int d = atomic_load(&n->data);

	atomic_fetch_sub(&shard_of(n->ve, n->hash)->fds, node_fds(n));
	if (d >= 0)
		be->close(d >> 1);
	be->close(n->fd);
	free(n);
}

/* Take a reference on @n (shard lock held). */
static void node_ref_locked(struct vfs_node_shard *sh, struct vfs_node *n)
{
	if (n->refs++ == 0 && n->hashed)
		lru_remove(sh, n);
}

/* Exports whose caches are live: they share the descriptor budget. */
static atomic_uint exports_open;

/*
 * The descriptors one shard of one export may hold: its part of the budget, which the
 * open exports split, so that N exports full of cached nodes do not need N times the
 * descriptors the limit allows. An export opened later shrinks the others' shards as
 * nodes are next added to them.
 */
static unsigned shard_fd_share(void)
{
	unsigned n = atomic_load_explicit(&exports_open, memory_order_relaxed);
	unsigned share = vfs_cache_shard_fds / (n ? n : 1);

	return share ? share : 1;
}

/* Unhash the oldest unreferenced nodes while the shard holds more nodes than its cap or
 * more descriptors than its share; returns them chained by hnext for the caller to free
 * after unlocking. */
static struct vfs_node *evict_locked(struct vfs_node_shard *sh)
{
	struct vfs_node *victims = NULL;
	unsigned fd_share = shard_fd_share(), fds = atomic_load(&sh->fds);

	while ((sh->count > vfs_cache_shard_max || fds > fd_share) && sh->lru_tail) {
		struct vfs_node *n = sh->lru_tail;
		unsigned held = node_fds(n);

		lru_remove(sh, n);
		unhash(sh, n);
		fds -= fds < held ? fds : held; /* closed once unlocked */
		n->hnext = victims;
		victims = n;
	}
	return victims;
}

static void free_chain(struct vfs_node *n)
{
	while (n) {
		struct vfs_node *next = n->hnext;

		node_free(n);
		n = next;
	}
}

/* Find or insert the node for authenticated handle @fh with object reference @fd
 * (consumed), whose stat is @st. */
static int insert(struct vfs_export *ve, const struct vfs_fh *fh, int fd, const struct stat *st,
		  struct vfs_node **out)
{
	uint64_t hash = vfs_fh_hash(fh->data, fh->len);
	struct vfs_node_shard *sh = shard_of(ve, hash);
	struct vfs_node *n, *victims;

	pthread_mutex_lock(&sh->lock);
	n = find(sh, hash, fh->data, fh->len);
	if (n) {
		node_ref_locked(sh, n);
		pthread_mutex_unlock(&sh->lock);
		ve->be->close(fd);
		goto out;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		pthread_mutex_unlock(&sh->lock);
		ve->be->close(fd);
		return -ENOMEM;
	}
	n->ve = ve;
	n->hash = hash;
	n->fd = fd;
	atomic_init(&n->data, -1);
	/* any record not yet retired may be of this file: it came before the node */
	atomic_init(&n->wlog_seq, vfs_wlog_seq_now());
	n->type = st->st_mode & S_IFMT;
	n->fh = *fh;
	n->ino = st->st_ino;
	n->ino_indexed = st->st_dev == ve->root_dev;
	n->refs = 1;
	n->hashed = true;
	n->hnext = *bucket_of(sh, hash);
	*bucket_of(sh, hash) = n;
	sh->count++;
	atomic_fetch_add(&sh->fds, 1);
	ino_add(n);
	victims = evict_locked(sh);
	pthread_mutex_unlock(&sh->lock);
	free_chain(victims);
out:
	vfs_export_get(ve);
	*out = n;
	return 0;
}

/*
 * Out of descriptors (EMFILE/ENFILE): close the older half of every shard's unused
 * nodes, so that the caller's open can be retried once instead of answering "later".
 */
static void cache_shrink(struct vfs_export *ve)
{
	for (unsigned i = 0; i < VFS_CACHE_SHARDS; i++) {
		struct vfs_node_shard *sh = &ve->shards[i];
		struct vfs_node *victims = NULL;
		unsigned drop;

		pthread_mutex_lock(&sh->lock);
		for (drop = sh->count / 2; drop && sh->lru_tail; drop--) {
			struct vfs_node *n = sh->lru_tail;

			lru_remove(sh, n);
			unhash(sh, n);
			n->hnext = victims;
			victims = n;
		}
		pthread_mutex_unlock(&sh->lock);
		free_chain(victims);
	}
}

static bool out_of_fds(int err)
{
	return err == -EMFILE || err == -ENFILE;
}

void vfs_cache_init(struct vfs_export *ve)
{
	for (unsigned i = 0; i < VFS_CACHE_SHARDS; i++) {
		pthread_mutex_init(&ve->shards[i].lock, NULL);
		pthread_mutex_init(&ve->ino_shards[i].lock, NULL);
	}
	atomic_fetch_add_explicit(&exports_open, 1, memory_order_relaxed);
}

void vfs_cache_fini(struct vfs_export *ve)
{
	for (unsigned i = 0; i < VFS_CACHE_SHARDS; i++) {
		struct vfs_node_shard *sh = &ve->shards[i];

		for (unsigned b = 0; b < SHARD_BUCKETS; b++)
			free_chain(sh->buckets[b]);
		pthread_mutex_destroy(&sh->lock);
		pthread_mutex_destroy(&ve->ino_shards[i].lock);
	}
	atomic_fetch_sub_explicit(&exports_open, 1, memory_order_relaxed);
}

unsigned vfs_cache_count(struct vfs_export *ve)
{
	unsigned total = 0;

	for (unsigned i = 0; i < VFS_CACHE_SHARDS; i++) {
		pthread_mutex_lock(&ve->shards[i].lock);
		total += ve->shards[i].count;
		pthread_mutex_unlock(&ve->shards[i].lock);
	}
	return total;
}

void vfs_cache_forget(struct vfs_export *ve, const struct vfs_fh *fh)
{
	uint64_t hash = vfs_fh_hash(fh->data, fh->len);
	struct vfs_node_shard *sh = shard_of(ve, hash);
	struct vfs_node *n;

	pthread_mutex_lock(&sh->lock);
	n = find(sh, hash, fh->data, fh->len);
	if (n) {
		if (n->refs == 0)
			lru_remove(sh, n);
		unhash(sh, n);
		if (n->refs != 0)
			n = NULL; /* freed by the last vfs_node_put() */
	}
	pthread_mutex_unlock(&sh->lock);
	if (n)
		node_free(n);
}

/* How often the export path is compared with the root directory opened at start. */
#define VFS_EXPORT_CHECK_MS 1000

/*
 * -ESTALE once the export's directory has been removed or replaced while served. The
 * check is a stat() of the export path, done by at most one caller a second; an error
 * other than "not that directory" (EACCES for a squashed caller, say) changes nothing.
 */
static int export_gone(struct vfs_export *ve)
{
	int64_t now = (int64_t)mono_coarse_ms(), last;
	int err;

	last = atomic_load_explicit(&ve->checked_ms, memory_order_relaxed);
	if (now - last >= VFS_EXPORT_CHECK_MS &&
	    atomic_compare_exchange_strong(&ve->checked_ms, &last, now)) {
		err = vfs_export_check(ve, ve->path);
		if (err == 0 || err == -ESTALE)
			atomic_store(&ve->gone, err == -ESTALE);
	}
	return atomic_load_explicit(&ve->gone, memory_order_relaxed) ? -ESTALE : 0;
}

struct vfs_node *vfs_node_find(struct vfs_export *ve, const uint8_t *fh, size_t len)
{
	uint64_t hash = vfs_fh_hash(fh, len);
	struct vfs_node_shard *sh = shard_of(ve, hash);
	struct vfs_node *n;

	pthread_mutex_lock(&sh->lock);
	n = find(sh, hash, fh, len);
	if (n)
		node_ref_locked(sh, n);
	pthread_mutex_unlock(&sh->lock);
	if (n)
		vfs_export_get(ve);
	return n;
}

/*
 * Open handle @bk again while the kernel answers ENOMEM, as long as that can be a
 * transient answer: the new descriptor or a negative errno.
 *
 * Linux answers ENOMEM, not ESTALE, for the handle of a removed file whose inode number
 * a file being created at that moment has taken: the inode cache will not hand out an
 * inode still being made, and the file system reads that refusal as a failed
 * allocation. Once the creation ends, the generation in the handle no longer matches
 * and the answer is ESTALE (each of 43,810 such ENOMEMs in a test here did). The window
 * is a create's length: microseconds, milliseconds if the creator waits for the disk
 * or the CPU. So ask again at once a few times, then after doubling pauses, for at most
 * VFS_REUSE_WAIT_NS; a real shortage of memory still answers ENOMEM after that (JUKEBOX:
 * the client tries later). A caller that should not wait (@nowait, an event loop)
 * gets -EAGAIN and runs the call again in a pool.
 */
#define VFS_REUSE_WAIT_NS      (100 * 1000000LL) /* how long ENOMEM may be a reused number */
#define VFS_REUSE_PAUSE_NS     (20 * 1000LL)	 /* the first pause between tries */
#define VFS_REUSE_PAUSE_MAX_NS (2 * 1000000LL)	 /* the longest */

static int open_fh_again(struct vfs_export *ve, const struct bk_fh *bk, bool nowait)
{
	long long start = (long long)mono_ns(), pause_ns = VFS_REUSE_PAUSE_NS;
	int fd = -ENOMEM;

	if (nowait)
		return -EAGAIN;
	for (int tries = 0; fd == -ENOMEM; tries++) {
		if (tries < 3) {
			sched_yield();
		} else {
			struct timespec ts = {.tv_nsec = pause_ns};

			if ((long long)mono_ns() - start + pause_ns > VFS_REUSE_WAIT_NS)
				break;
			nanosleep(&ts, NULL);
			if (pause_ns < VFS_REUSE_PAUSE_MAX_NS)
				pause_ns *= 2;
		}
		fd = ve->be->open_fh(ve->mount_fd, bk);
	}
	return fd;
}

/* Open the object of checked handle @bk as the server, with its attributes in *st:
 * a descriptor, or a negative errno (-ESTALE for an object gone; -EAGAIN where a
 * @nowait caller should hand the call on). */
static int open_handle(struct vfs_export *ve, const struct bk_fh *bk, bool nowait, struct stat *st)
{
	int fd, err;

	/* open_by_handle_at() needs CAP_DAC_READ_SEARCH, which only fsuid 0 keeps. */
	err = vfs_become_server(ve);
	if (err)
		return err;
	fd = ve->be->open_fh(ve->mount_fd, bk);
	if (out_of_fds(fd)) {
		cache_shrink(ve);
		fd = ve->be->open_fh(ve->mount_fd, bk);
	}
	if (fd == -ENOMEM)
		fd = open_fh_again(ve, bk, nowait);
	if (fd < 0)
		return fd == -ENOENT ? -ESTALE : fd;
	err = ve->be->stat(fd, st);
	if (!err && st->st_nlink == 0)
		err = -ESTALE;
	if (!err && S_ISDIR(st->st_mode))
		err = vfs_dir_beneath(ve, fd);
	if (err) {
		ve->be->close(fd);
		return err;
	}
	return fd;
}

int vfs_node_get(struct vfs_export *ve, const uint8_t *fh, size_t len, bool nowait,
		 struct vfs_node **out)
{
	struct vfs_fh vfh;
	struct bk_fh bk;
	struct stat st;
	struct vfs_nowait_mark mark;
	struct vfs_node *n;
	int fd, err;

	if (len < VFS_FH_MIN || len > VFS_FH_MAX)
		return -VFS_EBADHANDLE;
	err = export_gone(ve);
	if (err)
		return err;
	n = vfs_node_find(ve, fh, len);
	if (n) {
		*out = n;
		return 0;
	}

	err = vfs_fh_check(ve, fh, len, &bk);
	if (err)
		return err;
	/* A forged handle was refused above, where it costs no hand-off. */
	if (nowait && vfs_nowait_cold())
		return -EAGAIN;
	vfs_nowait_start(nowait, &mark);
	fd = open_handle(ve, &bk, nowait, &st);
	vfs_nowait_end(&mark);
	if (fd < 0)
		return fd;
	vfh.len = (uint8_t)len;
	memcpy(vfh.data, fh, len);
	return insert(ve, &vfh, fd, &st, out);
}

int vfs_node_from_fd(struct vfs_export *ve, int fd, struct vfs_attr *attr, struct vfs_node **out)
{
	struct vfs_fh fh;
	struct stat st;
	int err = vfs_fh_of_fd(ve, fd, &fh, attr, &st);

	if (err) {
		ve->be->close(fd);
		return err;
	}
	return insert(ve, &fh, fd, &st, out);
}

void vfs_node_put(struct vfs_node *node)
{
	struct vfs_export *ve;
	struct vfs_node_shard *sh;
	struct vfs_node *victims = NULL;
	bool free_it = false;

	if (!node)
		return;
	ve = node->ve;
	sh = shard_of(ve, node->hash);
	pthread_mutex_lock(&sh->lock);
	if (--node->refs == 0) {
		if (node->hashed) {
			lru_push(sh, node);
			victims = evict_locked(sh);
		} else {
			free_it = true;
		}
	}
	pthread_mutex_unlock(&sh->lock);
	free_chain(victims);
	if (free_it)
		node_free(node);
	vfs_export_put(ve);
}

int vfs_node_data_fd(struct vfs_node *node, int *fd, bool *writable)
{
	int d = atomic_load(&node->data);
	int expect = -1;
	bool w = false;
	int nfd, err;

	if (d < 0) {
		err = vfs_become_server(node->ve);
		if (err)
			return err;
		nfd = node->ve->be->open_data(node->fd, &w);
		if (out_of_fds(nfd)) {
			cache_shrink(node->ve);
			nfd = node->ve->be->open_data(node->fd, &w);
		}
		if (nfd < 0)
			return nfd;
		d = nfd << 1 | (w ? 1 : 0);
		if (atomic_compare_exchange_strong(&node->data, &expect, d)) {
			/* counted against the shard's share when it next evicts */
			atomic_fetch_add(&shard_of(node->ve, node->hash)->fds, 1);
		} else {
			node->ve->be->close(nfd);
			d = expect;
		}
	}
	*fd = d >> 1;
	*writable = d & 1;
	return 0;
}

int vfs_node_sync(struct vfs_node *node)
{
	bool writable;
	int fd, err;

	/* A FIFO or a device must never be opened by the server (opening can block or act
	 * on the device), and a symlink cannot be opened for I/O at all. A directory fsync
	 * does not write their inodes on a file system without a journal (ext2, ext4
	 * without one), so the whole file system is synced: costly under a load of
	 * unstable writes, but these objects are made and changed rarely. */
	if (!S_ISREG(node->type) && !S_ISDIR(node->type))
		return node->ve->be->syncfs(node->ve->mount_fd, node->ve->mark_to_flush);
	err = vfs_node_data_fd(node, &fd, &writable);
	if (err)
		return err;
	/* Linux before "ext4: fix fsync(2) for nojournal mode" (Debian 12's 6.1 among them)
	 * syncs an inode of an ext4 without a journal, and flushes the disk's write cache,
	 * only if the inode is marked dirty; a new, removed or renamed entry does not mark
	 * its directory (ext4 writes the inode into its table block without telling the
	 * VFS), so the fsync wrote the entry's block and left it in the disk's volatile
	 * cache (tests/kernel/power.sh, phase meta-nojournal, lost acknowledged changes with
	 * this missing). A chown to the same owner and group marks the inode and changes
	 * only its ctime, which the change of entries has just set anyway. Only where the
	 * file system may need it (core/fsflush.c). */
	if (S_ISDIR(node->type)) {
		err = vfs_node_mark(node, node->type);
		if (err)
			return err;
	}
	return node->ve->be->fsync(fd, false);
}

int vfs_export_open(const char *path, uint32_t export_id, struct vfs_export **out)
{
	const struct backend_ops *be = &posix_backend_ops;
	struct vfs_export *ve;
	struct stat st;
	struct bk_fh bk;
	int err;

	ve = calloc(1, sizeof(*ve));
	if (!ve)
		return -ENOMEM;
	ve->shards = calloc(VFS_CACHE_SHARDS, sizeof(*ve->shards));
	ve->ino_shards = calloc(VFS_CACHE_SHARDS, sizeof(*ve->ino_shards));
	if (!ve->shards || !ve->ino_shards) {
		err = -ENOMEM;
		goto err_free;
	}
	atomic_init(&ve->refs, 1);
	ve->id = export_id;
	ve->path = strdup(path);
	if (!ve->path) {
		err = -ENOMEM;
		goto err_free;
	}
	ve->be = be;
	err = be->root_open(path, &ve->mount_fd, &ve->root_fd);
	if (err)
		goto err_free;
	err = be->stat(ve->root_fd, &st);
	if (err)
		goto err_close;
	ve->root_dev = st.st_dev;
	ve->root_ino = st.st_ino;
	ve->mark_to_flush = fs_flush_needs_mark(ve->mount_fd);
	if (ve->mark_to_flush)
		log_info("export %s: on ext4 without a journal and a kernel without \"ext4: fix "
			 "fsync(2) for nojournal mode\", inodes are marked dirty before their "
			 "syncs",
			 path);
	err = be->fh_of(ve->root_fd, "", &bk, &ve->mount_id);
	if (err == -ENOTSUP || err == -EOVERFLOW)
		err = -EOPNOTSUPP;
	if (!err) {
		vfs_fh_export_key(ve, &bk);
		err = vfs_fh_make(ve, &bk, &ve->root_fh);
	}
	if (err)
		goto err_close;
	vfs_cache_init(ve);
	*out = ve;
	return 0;

err_close:
	be->close(ve->root_fd);
	be->close(ve->mount_fd);
err_free:
	free(ve->path);
	free(ve->shards);
	free(ve->ino_shards);
	free(ve);
	return err;
}

void vfs_export_get(struct vfs_export *ve)
{
	atomic_fetch_add_explicit(&ve->refs, 1, memory_order_relaxed);
}

void vfs_export_put(struct vfs_export *ve)
{
	int err;

	if (!ve || atomic_fetch_sub_explicit(&ve->refs, 1, memory_order_acq_rel) != 1)
		return;
	/* A checkpoint of the stable-write log syncs only the exports still served: make
	 * this one's logged writes durable before it drops out of sight. */
	err = vfs_wlog ? vfs_export_sync(ve) : 0;
	if (err)
		log_error("%s: cannot flush to stable storage: %s", ve->path, strerror(-err));
	vfs_cache_fini(ve);
	ve->be->close(ve->root_fd);
	ve->be->close(ve->mount_fd);
	free(ve->path);
	free(ve->shards);
	free(ve->ino_shards);
	free(ve);
}

int vfs_export_sync(struct vfs_export *ve)
{
	return ve->be->syncfs(ve->mount_fd, ve->mark_to_flush);
}

int vfs_export_check(struct vfs_export *ve, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ESTALE : -errno;
	if (st.st_dev != ve->root_dev || st.st_ino != ve->root_ino)
		return -ESTALE;
	return 0;
}

int vfs_export_root(struct vfs_export *ve, struct vfs_fh *out)
{
	*out = ve->root_fh;
	return 0;
}
