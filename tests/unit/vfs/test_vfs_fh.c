/*
 * test_vfs_fh.c - unit tests for handles and the node cache (src/vfs/vfs_fh.c,
 * src/vfs/vfs_cache.c): root handle, round trip across restarts, forged and
 * truncated handles, other exports, stale handles (also while the kernel answers ENOMEM
 * for them), a descriptor budget the exports share.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "backend/posix/posix.h"
#include "unit/vfs/vfs_fixture.h"
#include "vfs/vfs_internal.h"

static void test_export_root(void)
{
	struct fx f;
	struct vfs_attr a;
	struct stat st;
	uint32_t id = 0;

	fx_setup(&f);
	CHECK(f.root != NULL);
	CHECK(f.root_fh.len <= VFS_FH_MAX);
	CHECK_EQ(vfs_fh_export_id(f.root_fh.data, f.root_fh.len, &id), 0);
	CHECK_EQ(id, FX_EXPORT_ID);
	CHECK_EQ(vfs_getattr(f.root, &a), 0);
	CHECK_EQ(a.type, VFS_DIR);
	CHECK_EQ(a.fsid, FX_EXPORT_ID);
	CHECK_EQ(stat(f.exp, &st), 0);
	CHECK_EQ(a.fileid, st.st_ino);
	CHECK_EQ(a.mode, 0777);
	fx_teardown(&f);
}

static void test_export_open_errors(void)
{
	struct vfs_export *ve = NULL;
	struct fx f;
	char path[160];

	fx_setup(&f);
	snprintf(path, sizeof(path), "%s/nope", f.base);
	CHECK_EQ(vfs_export_open(path, 1, &ve), -ENOENT);
	snprintf(path, sizeof(path), "%s/state/handle.key", f.base);
	CHECK_EQ(vfs_export_open(path, 1, &ve), -ENOTDIR);
	/* /proc cannot make handles. */
	CHECK_EQ(vfs_export_open("/proc", 1, &ve), -EOPNOTSUPP);
	fx_teardown(&f);
}

static void test_handle_survives_restart(void)
{
	struct fx f;
	struct vfs_node *n;
	struct vfs_attr a1, a2;
	struct vfs_fh fh;
	struct stat st;
	char key[160];

	fx_setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "keep");
	n = fx_node(&f, &fh);
	CHECK_EQ(vfs_getattr(n, &a1), 0);
	vfs_node_put(n);
	fx_close(&f);

	snprintf(key, sizeof(key), "%s/handle.key", f.state);
	CHECK_EQ(stat(key, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(st.st_size, 16);

	fx_open(&f);
	n = fx_node(&f, &fh);
	CHECK(n != NULL);
	if (n) {
		CHECK_EQ(vfs_getattr(n, &a2), 0);
		CHECK_EQ(a2.fileid, a1.fileid);
		CHECK_EQ(a2.type, VFS_REG);
		vfs_node_put(n);
	}
	fx_teardown(&f);
}

static void test_write_verf_changes(void)
{
	struct fx f;
	uint8_t v1[8], v2[8];

	fx_setup(&f);
	vfs_write_verf(v1);
	fx_close(&f);
	fx_open(&f);
	vfs_write_verf(v2);
	CHECK(memcmp(v1, v2, 8) != 0);
	fx_teardown(&f);
}

static void test_forged_handles(void)
{
	struct vfs_export *other;
	struct vfs_node *n;
	struct vfs_fh fh, bad;
	struct fx f;
	uint32_t id;

	fx_setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "f");
	for (unsigned i = 0; i < fh.len; i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			bad = fh;
			bad.data[i] ^= (uint8_t)(1u << bit);
			CHECK_EQ(vfs_node_get(f.ve, bad.data, bad.len, false, &n), -VFS_EBADHANDLE);
		}
	}
	for (unsigned len = 0; len < fh.len; len++)
		CHECK_EQ(vfs_node_get(f.ve, fh.data, len, false, &n), -VFS_EBADHANDLE);
	CHECK_EQ(vfs_fh_export_id(fh.data, 3, &id), -VFS_EBADHANDLE);
	/* The same tree under another export id: handles are not interchangeable. */
	CHECK_EQ(vfs_export_open(f.exp, FX_EXPORT_ID + 1, &other), 0);
	CHECK_EQ(vfs_node_get(other, fh.data, fh.len, false, &n), -VFS_EBADHANDLE);
	vfs_export_put(other);
	fx_teardown(&f);
}

static void test_outside_dir_refused(void)
{
	struct vfs_export *parent;
	struct vfs_node *pn, *n;
	struct vfs_fh fh;
	struct vfs_attr a, da;
	bool dv;
	struct fx f;
	char path[160];

	fx_setup(&f);
	snprintf(path, sizeof(path), "%s/outside", f.base);
	CHECK_EQ(mkdir(path, 0755), 0);
	CHECK_EQ(vfs_export_open(f.base, 99, &parent), 0);
	CHECK_EQ(vfs_export_root(parent, &fh), 0);
	CHECK_EQ(vfs_node_get(parent, fh.data, fh.len, false, &pn), 0);
	CHECK_EQ(vfs_lookup(&fx_root_ctx, pn, "outside", false, &fh, &a, &da, &dv), 0);
	CHECK_EQ(a.type, VFS_DIR);
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &n), -VFS_EBADHANDLE);
	vfs_node_put(pn);
	vfs_export_put(parent);
	fx_teardown(&f);
}

static void test_removed_is_stale(void)
{
	struct vfs_node *n = NULL;
	struct vfs_attr a;
	struct vfs_wcc wcc;
	struct vfs_fh fh;
	struct fx f;
	char path[160];
	int err;

	fx_setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "gone");
	n = fx_node(&f, &fh);
	vfs_node_put(n);
	CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, "gone", &wcc), 0);
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &n), -ESTALE);

	/* Removed behind the server's back while cached: stale at the first stat. */
	fh = fx_create(&f, &fx_root_ctx, "gone2");
	n = fx_node(&f, &fh);
	vfs_node_put(n);
	snprintf(path, sizeof(path), "%s/gone2", f.exp);
	CHECK_EQ(unlink(path), 0);
	err = vfs_node_get(f.ve, fh.data, fh.len, false, &n);
	if (err == 0) {
		CHECK_EQ(vfs_getattr(n, &a), -ESTALE);
		vfs_node_put(n);
	}
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &n), -ESTALE);

	/* And after a restart, with nothing cached. */
	fh = fx_create(&f, &fx_root_ctx, "gone3");
	fx_close(&f);
	snprintf(path, sizeof(path), "%s/gone3", f.exp);
	CHECK_EQ(unlink(path), 0);
	fx_open(&f);
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &n), -ESTALE);
	fx_teardown(&f);
}

static struct backend_ops enomem_ops;
static int enomem_left; /* how many more opens by handle answer ENOMEM */
static int open_fh_calls;

static int enomem_open_fh(int mount_fd, const struct bk_fh *fh)
{
	open_fh_calls++;
	if (enomem_left > 0) {
		enomem_left--;
		return -ENOMEM;
	}
	return posix_backend_ops.open_fh(mount_fd, fh);
}

/*
 * Linux answers ENOMEM for a removed file's handle while a new file is taking its inode
 * number, for as long as that creation lasts; the right answer, once it ends, is ESTALE.
 * The back end here answers ENOMEM a given number of times first: a blocking caller asks
 * until the answer changes (for a while: a lasting ENOMEM is a shortage), an event loop
 * hands the call on after one try.
 */
static void test_enomem_is_asked_again(void)
{
	struct vfs_node *n = NULL;
	struct vfs_wcc wcc;
	struct vfs_fh gone, kept;
	struct fx f;

	fx_setup(&f);
	enomem_ops = posix_backend_ops;
	enomem_ops.open_fh = enomem_open_fh;
	gone = fx_create(&f, &fx_root_ctx, "gone");
	kept = fx_create(&f, &fx_root_ctx, "kept");
	CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, "gone", &wcc), 0);
	fx_close(&f);
	fx_open(&f); /* a restart: nothing cached, so every get opens by handle */
	f.ve->be = &enomem_ops;

	enomem_left = 20;
	open_fh_calls = 0;
	CHECK_EQ(vfs_node_get(f.ve, gone.data, gone.len, false, &n), -ESTALE);
	CHECK_EQ(open_fh_calls, 21);

	enomem_left = 20;
	open_fh_calls = 0;
	CHECK_EQ(vfs_node_get(f.ve, kept.data, kept.len, false, &n), 0);
	CHECK_EQ(open_fh_calls, 21);
	vfs_node_put(n);

	vfs_nowait_reset();
	enomem_left = 20;
	open_fh_calls = 0;
	CHECK_EQ(vfs_node_get(f.ve, gone.data, gone.len, true, &n), -EAGAIN);
	CHECK_EQ(open_fh_calls, 1);

	enomem_left = INT_MAX;
	open_fh_calls = 0;
	CHECK_EQ(vfs_node_get(f.ve, gone.data, gone.len, false, &n), -ENOMEM);
	CHECK(open_fh_calls > 21);
	enomem_left = 0;
	fx_teardown(&f);
}

/* Files made and removed at once in the export by a thread of their own, whose handles,
 * once removed, the test asks for while new files take their inode numbers. */
struct churn {
	struct fx *f;
	pthread_mutex_t lock;
	struct vfs_fh dead; /* the last removed file's handle (len 0: none yet) */
	atomic_bool stop;
	atomic_int err; /* the thread's failure (an errno), read while it runs */
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;
	char path[160];
	struct bk_fh bk;
	struct vfs_fh fh;
	int fd, mount_id;

	for (unsigned i = 0; !atomic_load(&c->stop); i++) {
		snprintf(path, sizeof(path), "%s/churn%u", c->f->exp, i % 64);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || posix_backend_ops.fh_of(fd, "", &bk, &mount_id) != 0 ||
		    vfs_fh_make(c->f->ve, &bk, &fh) != 0) {
			atomic_store(&c->err, errno ? errno : EINVAL);
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		close(fd);
		if (unlink(path) != 0) {
			atomic_store(&c->err, errno);
			return NULL;
		}
		pthread_mutex_lock(&c->lock);
		c->dead = fh;
		pthread_mutex_unlock(&c->lock);
	}
	return NULL;
}

/*
 * The same with the kernel's own answers: while another thread makes and removes files,
 * so that new files keep taking the numbers of removed ones, the handle of each file just
 * removed must be stale, never "later" (a GETATTR answering NFS3ERR_JUKEBOX so failed the
 * concurrency suite once). Whether this run met an ENOMEM depends on timing; a wrong
 * answer fails it either way.
 */
static void test_reused_number_is_stale(void)
{
	struct churn c = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct vfs_node *n;
	struct vfs_fh fh;
	struct fx f;
	pthread_t t;
	int asked = 0, wrong = 0, last_wrong = 0;

	fx_setup(&f);
	c.f = &f;
	CHECK_EQ(pthread_create(&t, NULL, churn_main, &c), 0);
	while (asked < 100000 && !atomic_load(&c.err)) {
		pthread_mutex_lock(&c.lock);
		fh = c.dead;
		pthread_mutex_unlock(&c.lock);
		if (!fh.len) {
			sched_yield();
			continue;
		}
		int err = vfs_node_get(f.ve, fh.data, fh.len, false, &n);

		asked++;
		if (err == 0)
			vfs_node_put(n);
		if (err != -ESTALE) {
			wrong++;
			last_wrong = err;
		}
	}
	atomic_store(&c.stop, true);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(atomic_load(&c.err), 0);
	CHECK_EQ(asked, 100000);
	CHECK_EQ(wrong, 0);
	CHECK_EQ(last_wrong, 0);
	fx_teardown(&f);
}

static void test_cache_bounded(void)
{
	struct vfs_node *n;
	struct vfs_fh fh;
	struct fx f;
	char name[32];

	/* More distinct objects than the cache holds: eviction must keep handles valid. */
	fx_setup(&f);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		fh = fx_create(&f, &fx_root_ctx, name);
		n = fx_node(&f, &fh);
		vfs_node_put(n);
	}
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &n), 0);
	vfs_node_put(n);
	fx_teardown(&f);
}

/* Make @count files in directory @path and bring each one's node into @dir's cache,
 * with its I/O descriptor opened too if @data. */
static void cache_files_io(struct vfs_node *dir, const char *path, const char *prefix, int count,
			   bool data)
{
	struct vfs_attr attr, dattr;
	struct vfs_node *n;
	struct vfs_fh fh;
	bool dvalid;
	char name[64];

	for (int i = 0; i < count; i++) {
		int fd;

		snprintf(name, sizeof(name), "%s/%s%d", path, prefix, i);
		fd = open(name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		CHECK(fd >= 0);
		close(fd);
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		CHECK_EQ(vfs_lookup(&fx_root_ctx, dir, name, false, &fh, &attr, &dattr, &dvalid),
			 0);
		CHECK_EQ(vfs_node_get(dir->ve, fh.data, fh.len, false, &n), 0);
		if (data) {
			bool writable;
			int dfd;

			CHECK_EQ(vfs_node_data_fd(n, &dfd, &writable), 0);
			CHECK(dfd >= 0);
		}
		vfs_node_put(n);
	}
}

static void cache_files(struct vfs_node *dir, const char *path, const char *prefix, int count)
{
	cache_files_io(dir, path, prefix, count, false);
}

/* The cache's budget is in descriptors: a node that has opened its file for I/O holds
 * two and takes the room of two that have not. */
static void test_cache_budget_descriptors(void)
{
	unsigned saved_fds = vfs_cache_shard_fds;
	struct fx f;

	fx_setup(&f);
	vfs_cache_shard_fds = 4;
	cache_files_io(f.root, f.exp, "a", 1600, false);
	CHECK(vfs_cache_count(f.ve) > 3 * VFS_CACHE_SHARDS); /* about 4 a shard */
	CHECK(vfs_cache_count(f.ve) <= 4 * VFS_CACHE_SHARDS);
	cache_files_io(f.root, f.exp, "b", 1600, true);
	/* 2 a shard, 3 where the root's node (referenced, one descriptor) is */
	CHECK(vfs_cache_count(f.ve) <= 2 * VFS_CACHE_SHARDS + 1);
	CHECK(vfs_cache_count(f.ve) >= VFS_CACHE_SHARDS);
	vfs_cache_shard_fds = saved_fds;
	fx_teardown(&f);
}

/* Every cached node may hold two descriptors, and the descriptor limit is the
 * process's: two exports full of cached nodes must hold no more of them together than
 * one may, and one left alone has the whole budget again. */
static void test_cache_budget_shared(void)
{
	unsigned saved_max = vfs_cache_shard_max, saved_fds = vfs_cache_shard_fds;
	struct vfs_export *ve2;
	struct vfs_node *root2;
	struct vfs_fh root2_fh;
	char dir2[128];
	struct fx f;

	fx_setup(&f);
	snprintf(dir2, sizeof(dir2), "%s/export2", f.base);
	CHECK_EQ(mkdir(dir2, 0777), 0);
	CHECK_EQ(vfs_export_open(dir2, FX_EXPORT_ID + 1, &ve2), 0);
	CHECK_EQ(vfs_export_root(ve2, &root2_fh), 0);
	CHECK_EQ(vfs_node_get(ve2, root2_fh.data, root2_fh.len, false, &root2), 0);
	vfs_cache_shard_max = 4;
	vfs_cache_shard_fds = 4;
	cache_files(f.root, f.exp, "a", 800);
	cache_files(root2, dir2, "b", 800);
	CHECK(vfs_cache_count(f.ve) + vfs_cache_count(ve2) <= 4 * VFS_CACHE_SHARDS);
	CHECK(vfs_cache_count(ve2) > VFS_CACHE_SHARDS); /* still caching */
	vfs_node_put(root2);
	vfs_export_put(ve2);
	cache_files(f.root, f.exp, "c", 800);
	CHECK(vfs_cache_count(f.ve) > 2 * VFS_CACHE_SHARDS);
	CHECK(vfs_cache_count(f.ve) <= 4 * VFS_CACHE_SHARDS);
	vfs_cache_shard_max = saved_max;
	vfs_cache_shard_fds = saved_fds;
	fx_teardown(&f);
}

/*
 * Where a caller should not wait for the disk (an event loop), a handle miss, a name
 * lookup or an UNSTABLE write is done in place, watched (vfs_nowait.c); once one slept,
 * the thread is cold for a while: a handle the node cache lacks answers -EAGAIN (the
 * call runs again in a pool), a name is looked up only from the kernel's name cache, and
 * a symlink is not read nor a write made. A forged handle is refused all the same, and
 * a blocking caller is never refused.
 */
static void test_nowait_misses(void)
{
	struct vfs_fh fh, fh_b, fh_c, fh2, bad, lfh;
	struct vfs_attr a, da;
	struct vfs_wcc wcc;
	struct vfs_node *n = NULL, *ln, *wn;
	enum vfs_stable committed;
	uint32_t written, nread;
	struct fx f;
	char name[64], name2[64], target[200], buf[256];
	size_t len;
	bool dv, eof;

	fx_setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "k");
	fh_b = fx_create(&f, &fx_root_ctx, "k2");
	fh_c = fx_create(&f, &fx_root_ctx, "k3");
	memset(target, 't', sizeof(target) - 1); /* too long to live in the inode */
	target[sizeof(target) - 1] = '\0';
	CHECK_EQ(vfs_symlink(&fx_root_ctx, f.root, "long", target, &fx_no_sattr, &lfh, &a, &wcc),
		 0);
	fx_close(&f);
	fx_open(&f); /* a restart: the node cache is empty */

	/* Warm: misses are served in place, and so are symlinks. */
	vfs_nowait_reset();
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, true, &n), 0);
	vfs_node_put(n);
	CHECK_EQ(vfs_node_get(f.ve, lfh.data, lfh.len, true, &ln), 0);
	CHECK_EQ(vfs_readlink(&fx_root_ctx, ln, true, buf, sizeof(buf), &len, &a), 0);
	CHECK(len == strlen(target) && memcmp(buf, target, len) == 0);
	snprintf(name, sizeof(name), "never-seen-%d", (int)getpid());
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, name, true, &fh2, &a, &da, &dv), -ENOENT);
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &wn), 0);
	CHECK_EQ(vfs_write_sync_later(&fx_root_ctx, wn, 0, "warm", 4, VFS_UNSTABLE, true, &written,
				      &committed, &wcc, NULL),
		 0);
	CHECK_EQ(written, 4);

	/* One miss that slept (every one does, now) makes the thread cold... */
	vfs_nowait_always_slept = true;
	CHECK_EQ(vfs_node_get(f.ve, fh_b.data, fh_b.len, true, &n), 0); /* done; it slept */
	vfs_node_put(n);
	CHECK_EQ(vfs_node_get(f.ve, fh_c.data, fh_c.len, true, &n), -EAGAIN);
	bad = fh_c;
	bad.data[bad.len - 1] ^= 1;
	CHECK_EQ(vfs_node_get(f.ve, bad.data, bad.len, true, &n), -VFS_EBADHANDLE);
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, true, &n), 0); /* cached: served */
	vfs_node_put(n);
	/* ...and names come from the kernel's name cache only: known, known missing, or
	 * never seen (which would read the directory). */
	snprintf(name2, sizeof(name2), "never-seen-2-%d", (int)getpid());
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, name2, true, &fh2, &a, &da, &dv), -EAGAIN);
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, name, true, &fh2, &a, &da, &dv), -ENOENT);
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, "k", true, &fh2, &a, &da, &dv), 0);
	CHECK(fh2.len == fh.len && memcmp(fh2.data, fh.data, fh.len) == 0);
	CHECK_EQ(a.type, VFS_REG);
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, "..", true, &fh2, &a, &da, &dv), 0);
	CHECK(fh2.len == f.root_fh.len && memcmp(fh2.data, f.root_fh.data, fh2.len) == 0);
	CHECK_EQ(vfs_readlink(&fx_root_ctx, ln, true, buf, sizeof(buf), &len, &a), -EAGAIN);
	/* ...and writes are refused before anything is written. */
	CHECK_EQ(vfs_write_sync_later(&fx_root_ctx, wn, 0, "COLD", 4, VFS_UNSTABLE, true, &written,
				      &committed, &wcc, NULL),
		 -EAGAIN);
	CHECK_EQ(vfs_read(&fx_root_ctx, wn, 0, sizeof(buf), false, buf, &nread, &eof, &a), 0);
	CHECK(nread == 4 && memcmp(buf, "warm", 4) == 0);
	/* A caller that may block is never refused. */
	CHECK_EQ(vfs_write_sync_later(&fx_root_ctx, wn, 0, "COLD", 4, VFS_UNSTABLE, false, &written,
				      &committed, &wcc, NULL),
		 0);
	CHECK_EQ(vfs_read(&fx_root_ctx, wn, 0, sizeof(buf), false, buf, &nread, &eof, &a), 0);
	CHECK(nread == 4 && memcmp(buf, "COLD", 4) == 0);
	vfs_node_put(wn);
	CHECK_EQ(vfs_node_get(f.ve, fh_c.data, fh_c.len, false, &n), 0);
	vfs_node_put(n);
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, name2, false, &fh2, &a, &da, &dv), -ENOENT);
	len = 0;
	CHECK_EQ(vfs_readlink(&fx_root_ctx, ln, false, buf, sizeof(buf), &len, &a), 0);
	CHECK(len == strlen(target) && memcmp(buf, target, len) == 0);
	vfs_node_put(ln);

	/* A write that slept makes the thread cold too. */
	vfs_nowait_always_slept = false;
	vfs_nowait_reset();
	CHECK_EQ(vfs_node_get(f.ve, fh.data, fh.len, false, &wn), 0);
	vfs_nowait_always_slept = true;
	CHECK_EQ(vfs_write_sync_later(&fx_root_ctx, wn, 4, "+", 1, VFS_UNSTABLE, true, &written,
				      &committed, &wcc, NULL),
		 0); /* done; it slept */
	vfs_nowait_always_slept = false;
	CHECK_EQ(vfs_write_sync_later(&fx_root_ctx, wn, 5, "!", 1, VFS_UNSTABLE, true, &written,
				      &committed, &wcc, NULL),
		 -EAGAIN);
	vfs_node_put(wn);

	vfs_nowait_reset();
	fx_teardown(&f);
}

TESTS(test_export_root, test_export_open_errors, test_handle_survives_restart,
      test_write_verf_changes, test_forged_handles, test_outside_dir_refused, test_removed_is_stale,
      test_enomem_is_asked_again, test_reused_number_is_stale, test_cache_bounded,
      test_cache_budget_shared, test_cache_budget_descriptors, test_nowait_misses);
