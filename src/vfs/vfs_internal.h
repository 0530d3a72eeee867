/*
 * vfs_internal.h - what the vfs source files share: the export and node structs, the
 * handle format, and small helpers. Not for use outside src/vfs/.
 *
 * Lock order: a node-cache shard lock is a leaf; nothing else is taken while it is
 * held. Export and node reference counts are atomics.
 */
#ifndef SHOAL_VFS_INTERNAL_H
#define SHOAL_VFS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "vfs/vfs.h"

/*
 * Handle layout (all multi-byte fields big-endian):
 *   [0] version  [1..4] export id  [5..8] back-end handle type  [9] back-end length n
 *   [10..10+n) back-end handle bytes  [10+n..18+n) SipHash-2-4 MAC of bytes [0, 10+n)
 */
#define VFS_FH_VERSION 1
#define VFS_FH_HDR     10
#define VFS_FH_MACLEN  8
#define VFS_FH_MIN     (VFS_FH_HDR + VFS_FH_MACLEN)

#define VFS_CACHE_SHARDS 64
#define VFS_CACHE_MAX	 16384 /* nodes per export, at most */

/* Nodes one shard of an export may hold (VFS_CACHE_MAX's share), and the descriptors
 * the limit allows the nodes of one shard index to hold in all exports together (set by
 * vfs_init(); a node holds one or two). */
extern unsigned vfs_cache_shard_max;
extern unsigned vfs_cache_shard_fds;

/*
 * Metadata opens on a thread that should not wait for the disk (vfs_nowait.c).
 * vfs_nowait_cold(): a recent open of this thread slept, so misses go elsewhere.
 * vfs_nowait_start(nowait, &mark) before an open, vfs_nowait_end(&mark) after it.
 * vfs_nowait_always_slept: count every open as one that slept (tests);
 * vfs_nowait_reset(): the calling thread is warm again (tests).
 */
extern bool vfs_nowait_always_slept;
struct vfs_nowait_mark {
	bool on;
	long long ns, sw;
};
bool vfs_nowait_cold(void);
void vfs_nowait_start(bool nowait, struct vfs_nowait_mark *m);
void vfs_nowait_end(const struct vfs_nowait_mark *m);
void vfs_nowait_reset(void);

struct vfs_node_shard;

struct vfs_export {
	atomic_uint refs;
	uint32_t id;
	const struct backend_ops *be;
	int mount_fd; /* O_RDONLY root directory: for open_fh() */
	int root_fd;  /* O_PATH root directory */
	int mount_id; /* objects on another mount are not ours */
	dev_t root_dev;
	ino_t root_ino;
	/* Its syncs may skip the disk's cache flush unless the inode is marked first
	 * (core/fsflush.h): stable writes, COMMITs and directory syncs then mark it. */
	bool mark_to_flush;
	struct vfs_fh root_fh;
	/* The exported path, and whether it still names the directory opened as root:
	 * re-checked at most once a second by vfs_node_get(), so that the handles of an
	 * export directory that was removed, or renamed and replaced, turn stale. */
	char *path;
	_Atomic int64_t checked_ms;
	atomic_bool gone;
	/* The handle MAC key: vfs_key bound to this export's id and root directory, so that
	 * a handle minted by an export of another tree (say its parent, given the same
	 * fsid=) never authenticates here. */
	uint8_t mac_key[16];
	struct vfs_node_shard *shards; /* VFS_CACHE_SHARDS of them */
	/* The same nodes by inode number (those on root_dev): VFS_CACHE_SHARDS shards, and
	 * how many nodes have entered that index so far (vfs_cache_ino_mark()). */
	struct vfs_ino_shard *ino_shards;
	_Atomic uint64_t ino_entered;
};

struct vfs_node {
	/* Hash chain and LRU links: protected by the shard lock. */
	struct vfs_node *hnext;
	/* Inode index chain: protected by the inode shard's lock. The node is in the index
	 * while it is hashed and on the export's device (ino_indexed, fixed at insert). */
	struct vfs_node *inext;
	uint64_t ino;
	uint64_t ino_seq; /* its place in the order of entering the index (from 1) */
	bool ino_indexed;
	struct vfs_node *lru_prev, *lru_next;
	unsigned refs; /* protected by the shard lock */
	bool hashed;   /* in the shard's table (false once found stale) */
	struct vfs_export *ve;
	uint64_t hash;
	int fd; /* O_PATH object reference; fixed for the node's life */
	/* I/O descriptor opened on first read/write: fd << 1 | writable, or -1. */
	_Atomic int data;
	mode_t type; /* S_IFMT bits */
	struct vfs_fh fh;
	/* The last stable-write log record that may be of this file (vfs_wlog.c). */
	_Atomic uint64_t wlog_seq;
	/* An UNSTABLE write came since the last COMMIT began (kept only where the export's
	 * mark_to_flush is set). */
	atomic_bool unstable;
};

/* vfs_fh.c */
extern uint8_t vfs_key[16];
/* Derive ve->mac_key from vfs_key, ve->id and the back-end handle of the export root. */
void vfs_fh_export_key(struct vfs_export *ve, const struct bk_fh *root);
/* Build the handle of back-end handle @bk in export @ve (MAC'd with ve->mac_key). */
int vfs_fh_make(const struct vfs_export *ve, const struct bk_fh *bk, struct vfs_fh *out);
/* Authenticate @fh for export @ve and extract the back-end handle. */
int vfs_fh_check(const struct vfs_export *ve, const uint8_t *fh, size_t len, struct bk_fh *bk);
/* The handle's MAC as a 64-bit value: a good hash key for an authenticated handle. */
uint64_t vfs_fh_hash(const uint8_t *fh, size_t len);

/* vfs_cache.c */
void vfs_cache_init(struct vfs_export *ve);
void vfs_cache_fini(struct vfs_export *ve);
/* Nodes cached for @ve now (for tests). */
unsigned vfs_cache_count(struct vfs_export *ve);
/* Mark the node of handle @fh stale: later vfs_node_get() of it re-resolves. */
void vfs_cache_forget(struct vfs_export *ve, const struct vfs_fh *fh);
/* The cached node (referenced) of handle @fh (@len bytes), or NULL: opens nothing. */
struct vfs_node *vfs_node_find(struct vfs_export *ve, const uint8_t *fh, size_t len);
/*
 * The handle of inode @ino of device @dev if a node of it was in @ve's cache already
 * when vfs_cache_ino_mark() returned @mark, and still is, copied to *out; false
 * otherwise. Opens nothing, takes no reference. A cached node holds its object open, so
 * its inode number names that object and no other while it is in the index: take the
 * mark, then stat a name, then ask here with the number read, and a handle found is
 * the handle of the very object the stat described (a node that came after the mark
 * might hold a number freed and reused after the stat, so it is not taken).
 */
bool vfs_cache_fh_by_ino(struct vfs_export *ve, uint64_t dev, uint64_t ino, uint64_t mark,
			 struct vfs_fh *out);
/* The mark of the nodes in @ve's inode index now, for vfs_cache_fh_by_ino(). */
uint64_t vfs_cache_ino_mark(struct vfs_export *ve);
/* Node (referenced) for object reference @fd just resolved in @ve, with its attributes
 * in *attr; consumes @fd. */
int vfs_node_from_fd(struct vfs_export *ve, int fd, struct vfs_attr *attr, struct vfs_node **out);
/* The I/O descriptor of a regular file, opened on first use. */
int vfs_node_data_fd(struct vfs_node *node, int *fd, bool *writable);
/* Make @node's changes stable before a reply says they happened: an fsync of a regular
 * file or directory, a syncfs of the export for any other type. */
int vfs_node_sync(struct vfs_node *node);
/* A chown to the same owner and group, the mark that makes an fsync write the inode
 * where the file system needs one (core/fsflush.c), would clear these bits of a
 * non-directory of @mode (set-user-ID, set-group-ID with group execute). */
bool vfs_chown_clears_bits(mode_t mode);
/* Where the export's file system needs it (mark_to_flush), mark @node's inode dirty for
 * its next fsync by a chown to its own owner and group (ctime only), unless that would
 * clear bits of @mode (vfs_chown_clears_bits()). 0, or the chown's error. */
int vfs_node_mark(struct vfs_node *node, mode_t mode);
/* Make what was just written through @node's I/O descriptor @fd stable: the back end's
 * sync_written() (mtime set, then fsync) where the file system needs a mark, else an
 * fsync. */
int vfs_node_sync_written(struct vfs_node *node, int fd);

/* vfs_wlog.c: the stable-write log, or NULL when stable writes fsync. */
extern struct wlog *vfs_wlog;
/* Write @len bytes at @offset of @fd and log them: with @wait, stable on return (or by
 * an fsync when the log cannot take them); without, once vfs_wlog_wait() returns 0.
 * Bytes written, or a negative errno. */
ssize_t vfs_wlog_write(struct vfs_node *node, int fd, const void *data, uint32_t len,
		       uint64_t offset, bool wait);
/* Wait until every record of @node logged so far is on stable storage; where the log
 * failed, make the file stable through @fd instead. 0, or a negative errno. */
int vfs_wlog_wait(struct vfs_node *node, int fd);
/* Log that @node's size became @size, in order with its logged writes, and wait for
 * the record. 0 (also without a log), or -EIO when the change may not be said stable. */
int vfs_wlog_truncate(struct vfs_node *node, uint64_t size);
/* Retire every log record of @node, so that no replay can undo what the caller makes
 * durable next. 0 (also without a log), or -EIO when no fsync may be said stable. */
int vfs_wlog_retire(struct vfs_node *node);
/* What a new node of the cache records as its last log record. */
uint64_t vfs_wlog_seq_now(void);

/* vfs_ops.c */
/* Apply @sa to @node whose current attributes are @st, as the caller @ctx.
 * @created: the object was just made by this caller (ownership failures ignored). */
int vfs_apply_sattr(const struct vfs_ctx *ctx, struct vfs_node *node, const struct stat *st,
		    const struct vfs_sattr *sa, bool created);

/* vfs_util.c */
void vfs_attr_from_stat(const struct vfs_export *ve, const struct stat *st, struct vfs_attr *a);
void vfs_wcc_pre(struct vfs_wcc *w, const struct stat *st);
/* fstat the node; -ESTALE (and the node forgotten) if it has no links left. */
int vfs_node_stat(struct vfs_node *node, struct stat *st);
/* Fill @a from the node; false if it could not be read. */
bool vfs_node_attr(struct vfs_node *node, struct vfs_attr *a);
/* Fill the post-op half of @w from @node. */
void vfs_wcc_post(struct vfs_wcc *w, struct vfs_node *node);
/* Single-component name rules: -EINVAL (empty, '/'), -ENAMETOOLONG (> 255 bytes). */
int vfs_name_check(const char *name);
/* Is @name "." or ".."? */
bool vfs_name_is_dot(const char *name);
/* Take the caller's identity for permission-checked calls. */
int vfs_become(const struct vfs_export *ve, const struct vfs_ctx *ctx);
/* Act as the server for the opens that need its capabilities (by handle, and a node's
 * I/O descriptor); the next vfs_become() of the same caller is cheap (posix_ident.c). */
int vfs_become_server(const struct vfs_export *ve);
/*
 * Mode-bit permission check in user space for @want (4 read, 2 write, 1 execute);
 * root passes read/write always, execute if any x bit is set or it is a directory.
 */
bool vfs_perm(const struct vfs_cred *c, const struct stat *st, unsigned want);
/* Is directory object @fd inside the export? (walks ".." up to the root) */
int vfs_dir_beneath(struct vfs_export *ve, int fd);
/* Handle and attributes of object reference @fd (borrowed) in @ve; its stat in *st. */
int vfs_fh_of_fd(struct vfs_export *ve, int fd, struct vfs_fh *fh, struct vfs_attr *attr,
		 struct stat *st);

#endif
