/*
 * vfs.h - protocol-neutral, handle-based file operations.
 *
 * The protocol modules (nfs3, mount, later smb2) call only what is declared here.
 * Everything returns 0 or a negative errno; the few conditions errno cannot express
 * have the VFS_E* codes below. Nothing here knows XDR or a protocol status.
 *
 * A handle (struct vfs_fh) is opaque above this layer. It is minted by the back-end,
 * survives a server restart, names the export it belongs to, and is authenticated
 * (a keyed MAC) so that a forged or altered handle is refused with -VFS_EBADHANDLE
 * before any file is touched. A handle whose file is gone gives -ESTALE.
 *
 * Permissions: every operation is performed for the identity in struct vfs_ctx and
 * refused exactly as the kernel would refuse that user (-EACCES, -EPERM); a read-only
 * context gets -EROFS from every operation that would change anything.
 */
#ifndef SHOAL_VFS_H
#define SHOAL_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Conditions errno has no name for (values as the Linux kernel's internal ones). */
#define VFS_EBADHANDLE 521 /* handle malformed, forged or of another server */
#define VFS_ENOTSYNC   522 /* SETATTR guard (ctime) did not match */
#define VFS_EBADCOOKIE 523 /* READDIR cookie or cookie verifier no longer valid */
#define VFS_ENOTSUPP   524 /* operation not supported for this object */
#define VFS_ETOOSMALL  525 /* READDIR buffer too small for even one entry */
#define VFS_EBADTYPE   527 /* MKNOD of a type that cannot be created */

#define VFS_FH_MAX 64

struct vfs_fh {
	uint8_t len;
	uint8_t data[VFS_FH_MAX];
};

enum vfs_type {
	VFS_REG = 1,
	VFS_DIR = 2,
	VFS_BLK = 3,
	VFS_CHR = 4,
	VFS_LNK = 5,
	VFS_SOCK = 6,
	VFS_FIFO = 7,
};

struct vfs_time {
	int64_t sec;
	uint32_t nsec;
};

struct vfs_attr {
	enum vfs_type type;
	uint32_t mode; /* permission bits only (07777) */
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint64_t used; /* bytes of storage actually allocated */
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint64_t fsid;	 /* the export's file system id, stable across restarts */
	uint64_t fileid; /* inode number */
	struct vfs_time atime;
	struct vfs_time mtime;
	struct vfs_time ctime;
};

/* The subset of attributes taken before a change ("pre-op", RFC 1813 wcc_attr). */
struct vfs_wcc_attr {
	uint64_t size;
	struct vfs_time mtime;
	struct vfs_time ctime;
};

/* Weak cache consistency data for one object: attributes before and after a change. */
struct vfs_wcc {
	bool pre_valid;
	bool post_valid;
	struct vfs_wcc_attr pre;
	struct vfs_attr post;
};

enum vfs_time_how { VFS_TIME_KEEP = 0, VFS_TIME_SERVER = 1, VFS_TIME_CLIENT = 2 };

/* Attributes to set; a field is applied only when its set_* flag is true. */
struct vfs_sattr {
	bool set_mode, set_uid, set_gid, set_size;
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	enum vfs_time_how atime_how, mtime_how;
	struct vfs_time atime, mtime;
};

#define VFS_MAXGROUPS 16

/* Who is asking, after the export's squashing rules have been applied. */
struct vfs_cred {
	uint32_t uid;
	uint32_t gid;
	uint32_t ngroups;
	uint32_t groups[VFS_MAXGROUPS];
};

struct vfs_ctx {
	struct vfs_cred cred;
	bool readonly; /* the export is read-only for this client */
};

enum vfs_stable { VFS_UNSTABLE = 0, VFS_DATA_SYNC = 1, VFS_FILE_SYNC = 2 };

enum vfs_create_how { VFS_CREATE_UNCHECKED = 0, VFS_CREATE_GUARDED = 1, VFS_CREATE_EXCLUSIVE = 2 };

/* ACCESS bits, as RFC 1813 section 3.3.4 numbers them. */
#define VFS_ACCESS_READ	   0x01
#define VFS_ACCESS_LOOKUP  0x02
#define VFS_ACCESS_MODIFY  0x04
#define VFS_ACCESS_EXTEND  0x08
#define VFS_ACCESS_DELETE  0x10
#define VFS_ACCESS_EXECUTE 0x20

struct vfs_statfs {
	uint64_t tbytes, fbytes, abytes; /* total, free, free to unprivileged users */
	uint64_t tfiles, ffiles, afiles;
};

struct vfs_fsinfo {
	uint64_t maxfilesize;
	struct vfs_time time_delta; /* timestamp granularity */
	bool links, symlinks, homogeneous, cansettime;
};

struct vfs_pathconf {
	uint32_t linkmax;
	uint32_t name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};

struct vfs_export; /* an exported directory tree, opened (refcounted) */
struct vfs_node;   /* an object resolved from a handle (refcounted, cached open file) */

/* ---- lifetime ---- */

/*
 * Load (or create, mode 0600) the handle key and server state kept in @state_dir,
 * and compute the write verifier for this server instance. Call once before any
 * other vfs function. Returns 0 or a negative errno.
 */
int vfs_init(const char *state_dir);
void vfs_fini(void);

/*
 * Open the directory @path for export under the stable id @export_id (carried in
 * every handle). Returns 0 with *out holding a reference, or -ENOENT, -ENOTDIR,
 * -EOPNOTSUPP (the file system cannot make handles), or another negative errno.
 */
int vfs_export_open(const char *path, uint32_t export_id, struct vfs_export **out);
void vfs_export_get(struct vfs_export *ve);
void vfs_export_put(struct vfs_export *ve);
/*
 * Flush everything written to the export's file system to stable storage (syncfs);
 * used at shutdown so that even UNSTABLE data that was never committed survives.
 */
int vfs_export_sync(struct vfs_export *ve);
/*
 * Whether @path still names the directory the export was opened on: 0, or -ESTALE
 * when it was removed or replaced while served (then the old root is not handed out).
 */
int vfs_export_check(struct vfs_export *ve, const char *path);
/* The handle of the export's root directory. */
int vfs_export_root(struct vfs_export *ve, struct vfs_fh *out);

/* ---- the stable-write log (src/wlog) ---- */

struct wlog;
struct wlog_rec;
/*
 * Make stable WRITEs durable through @w instead of an fsync each (NULL: fsync them).
 * Set it before serving and clear it only after the last call finished.
 */
void vfs_set_wlog(struct wlog *w);
/*
 * Apply one record of a log being replayed (the key is a handle of export @ve).
 * Returns 0, -ESTALE when the file no longer exists, or another negative errno.
 */
int vfs_replay(struct vfs_export *ve, const struct wlog_rec *r);

/*
 * The export id a handle claims, read without authenticating it (used to find the
 * export, whose vfs_node_get() then authenticates everything). -VFS_EBADHANDLE if
 * the handle is not of our format.
 */
int vfs_fh_export_id(const uint8_t *fh, size_t len, uint32_t *export_id);

/*
 * Resolve a handle. Returns 0 with *out referenced (release with vfs_node_put()),
 * -VFS_EBADHANDLE (malformed, forged, or of another export), -ESTALE (the object is
 * gone), or another negative errno. With @nowait (a caller that should not wait for
 * the disk), a valid handle the node cache does not hold answers -EAGAIN while this
 * thread is cold (vfs_nowait.c: a recent open of its own waited for the disk); else it
 * is opened here, which may read the inode, and a directory's parents, from the disk.
 */
int vfs_node_get(struct vfs_export *ve, const uint8_t *fh, size_t len, bool nowait,
		 struct vfs_node **out);
void vfs_node_put(struct vfs_node *node);

/* The 8-byte write verifier: different for every start of the server. */
void vfs_write_verf(uint8_t verf[8]);

/*
 * Operations leave the caller's file-system identity (fsuid, fsgid, groups) set on the
 * calling thread, cached so that the next call from the same user costs no syscall.
 * Call this before a thread does file work of its own (state files, logs) to act as
 * the server again. Returns 0 or a negative errno.
 */
int vfs_thread_reset_identity(void);

/* ---- operations ---- */

int vfs_getattr(struct vfs_node *node, struct vfs_attr *attr);
/*
 * Change attributes. If @guard_ctime is not NULL the change is made only if the
 * object's ctime equals it, else -VFS_ENOTSYNC. @wcc gets pre and post attributes.
 */
int vfs_setattr(const struct vfs_ctx *ctx, struct vfs_node *node, const struct vfs_sattr *sa,
		const struct vfs_time *guard_ctime, struct vfs_wcc *wcc);
/*
 * Look @name up in directory @dir. "." and ".." are allowed; ".." of the export root
 * is the root itself. On success fills *fh and *attr. @dir_attr (may be NULL) gets the
 * directory's attributes, with *dir_attr_valid telling whether it could be read. With
 * @nowait, while this thread is cold (see vfs_node_get()), only a name the kernel's
 * name cache holds (found or known missing): -EAGAIN where the lookup would read the
 * directory.
 */
int vfs_lookup(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name, bool nowait,
	       struct vfs_fh *fh, struct vfs_attr *attr, struct vfs_attr *dir_attr,
	       bool *dir_attr_valid);
/* Which of the @want VFS_ACCESS_* bits the caller holds; *attr is filled too. */
int vfs_access(const struct vfs_ctx *ctx, struct vfs_node *node, uint32_t want, uint32_t *granted,
	       struct vfs_attr *attr);
/* Read a symlink's target into @buf (@cap bytes, not NUL-terminated); *len = length.
 * With @nowait, -EAGAIN while this thread's metadata reads have lately waited for the
 * disk (vfs_nowait.c): a long target lives in a block of its own, which may not be
 * cached. */
int vfs_readlink(const struct vfs_ctx *ctx, struct vfs_node *node, bool nowait, char *buf,
		 size_t cap, size_t *len, struct vfs_attr *attr);
/* Read up to @count bytes at @offset into @buf. *eof is set when the end was reached.
 * With @nowait, -EAGAIN instead of waiting for the disk: not all of it is cached. */
int vfs_read(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset, uint32_t count,
	     bool nowait, void *buf, uint32_t *nread, bool *eof, struct vfs_attr *attr);
/*
 * Write @len bytes at @offset. With VFS_DATA_SYNC or VFS_FILE_SYNC the data (and for
 * FILE_SYNC the metadata) is on stable storage before this returns; *committed says
 * how stable the write actually is (it may be more stable than asked).
 */
int vfs_write(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset, const void *data,
	      uint32_t len, enum vfs_stable stable, uint32_t *written, enum vfs_stable *committed,
	      struct vfs_wcc *wcc);
/*
 * vfs_write() of a stable write that leaves its sync to a later vfs_write_sync() of
 * @node, which makes every write of the file before it stable: a group of writes then
 * shares one sync (an fsync, or one batch of the stable-write log). *@later says
 * whether the sync was left so (false when the write was UNSTABLE, or failed).
 * *committed is what the write will be once that sync succeeds. @later NULL:
 * vfs_write(), the sync done here. With @nowait (an UNSTABLE write on an event loop),
 * -EAGAIN, before anything is written, while this thread's writes or metadata reads
 * have lately waited (vfs_nowait.c): the kernel holds writers back when dirty pages pile
 * up, and a partial write of a page it does not cache first reads that page.
 */
int vfs_write_sync_later(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset,
			 const void *data, uint32_t len, enum vfs_stable stable, bool nowait,
			 uint32_t *written, enum vfs_stable *committed, struct vfs_wcc *wcc,
			 bool *later);
/* The sync vfs_write_sync_later() left, as the caller @ctx (one of the writers). */
int vfs_write_sync(const struct vfs_ctx *ctx, struct vfs_node *node);
/* Make everything written to [offset, offset+count) stable (count 0: to the end). */
int vfs_commit(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset, uint32_t count,
	       struct vfs_wcc *wcc);
/*
 * Create a regular file. EXCLUSIVE stores @verf with the file, so that a retried
 * create with the same verifier succeeds and a different one gets -EEXIST.
 * @sa is applied for UNCHECKED/GUARDED (ignored for EXCLUSIVE, per RFC 1813 3.3.8).
 */
int vfs_create(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	       enum vfs_create_how how, const struct vfs_sattr *sa, const uint8_t verf[8],
	       struct vfs_fh *fh, struct vfs_attr *attr, struct vfs_wcc *dir_wcc);
int vfs_mkdir(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	      const struct vfs_sattr *sa, struct vfs_fh *fh, struct vfs_attr *attr,
	      struct vfs_wcc *dir_wcc);
int vfs_symlink(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
		const char *target, const struct vfs_sattr *sa, struct vfs_fh *fh,
		struct vfs_attr *attr, struct vfs_wcc *dir_wcc);
/* Create a device node, FIFO or socket; -VFS_EBADTYPE for other types. */
int vfs_mknod(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name, enum vfs_type type,
	      const struct vfs_sattr *sa, uint32_t major, uint32_t minor, struct vfs_fh *fh,
	      struct vfs_attr *attr, struct vfs_wcc *dir_wcc);
int vfs_remove(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	       struct vfs_wcc *dir_wcc);
int vfs_rmdir(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	      struct vfs_wcc *dir_wcc);
/* Rename; -EXDEV if the two directories are in different exports. */
int vfs_rename(const struct vfs_ctx *ctx, struct vfs_node *from_dir, const char *from_name,
	       struct vfs_node *to_dir, const char *to_name, struct vfs_wcc *from_wcc,
	       struct vfs_wcc *to_wcc);
int vfs_link(const struct vfs_ctx *ctx, struct vfs_node *node, struct vfs_node *dir,
	     const char *name, struct vfs_attr *attr, bool *attr_valid, struct vfs_wcc *dir_wcc);

/*
 * One directory entry handed to a readdir callback. @cookie resumes the listing
 * after this entry. With plus, @fh and @attr are filled when @have_plus is true
 * (it may be false for an entry that vanished while being listed).
 */
struct vfs_dirent {
	const char *name;
	uint32_t name_len;
	uint64_t fileid;
	uint64_t cookie;
	bool have_plus;
	struct vfs_fh fh;
	struct vfs_attr attr;
};

/* Return true to take the entry and continue, false to stop before this entry. */
typedef bool (*vfs_readdir_cb)(void *arg, const struct vfs_dirent *ent);

/*
 * List directory @dir from @cookie (0 = start). @verf_in is the verifier the client
 * holds (all zero with cookie 0); -VFS_EBADCOOKIE if it no longer matches or the
 * cookie is invalid. Cookies and the verifier stay valid while the directory changes.
 * *eof is true when the callback saw the last entry.
 */
int vfs_readdir(const struct vfs_ctx *ctx, struct vfs_node *dir, uint64_t cookie,
		const uint8_t verf_in[8], bool plus, vfs_readdir_cb cb, void *arg,
		uint8_t verf_out[8], bool *eof, struct vfs_attr *dir_attr);

int vfs_statfs(struct vfs_node *node, struct vfs_statfs *st, struct vfs_attr *attr);
int vfs_fsinfo(struct vfs_node *node, struct vfs_fsinfo *fi, struct vfs_attr *attr);
int vfs_pathconf(struct vfs_node *node, struct vfs_pathconf *pc, struct vfs_attr *attr);

#endif
