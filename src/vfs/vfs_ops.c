/*
 * vfs_ops.c - operations on one object: getattr, setattr, lookup, access, readlink,
 * read, write, commit, statfs, fsinfo, pathconf.
 *
 * Calls the kernel permission-checks (lookup, chmod, chown, utimes, readlink) run
 * under the caller's identity. READ, WRITE and COMMIT use the node's shared I/O
 * descriptor, opened by the server, so their permission is checked here from the mode
 * bits, with knfsd's owner override: the owner may always read and write their own
 * file, as they could through a descriptor opened before a chmod.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vfs/vfs_internal.h"

int vfs_getattr(struct vfs_node *node, struct vfs_attr *attr)
{
	struct stat st;
	int err = vfs_node_stat(node, &st);

	if (!err)
		vfs_attr_from_stat(node->ve, &st, attr);
	return err;
}

static void time_spec(enum vfs_time_how how, const struct vfs_time *t, struct timespec *ts)
{
	ts->tv_sec = 0;
	if (how == VFS_TIME_SERVER) {
		ts->tv_nsec = UTIME_NOW;
	} else if (how == VFS_TIME_CLIENT) {
		ts->tv_sec = (time_t)t->sec;
		ts->tv_nsec = t->nsec;
	} else {
		ts->tv_nsec = UTIME_OMIT;
	}
}

static int set_size(const struct vfs_ctx *ctx, struct vfs_node *node, const struct stat *st,
		    uint64_t size)
{
	bool writable;
	int fd, err;

	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	if (size > (uint64_t)INT64_MAX)
		return -EFBIG;
	if (ctx->cred.uid != st->st_uid && !vfs_perm(&ctx->cred, st, 2))
		return -EACCES;
	err = vfs_node_data_fd(node, &fd, &writable);
	if (err)
		return err;
	if (!writable)
		return -EROFS;
	err = node->ve->be->truncate(fd, size);
	if (!err && size != (uint64_t)st->st_size)
		err = vfs_wlog_truncate(node, size);
	return err;
}

int vfs_apply_sattr(const struct vfs_ctx *ctx, struct vfs_node *node, const struct stat *st,
		    const struct vfs_sattr *sa, bool created)
{
	const struct backend_ops *be = node->ve->be;
	int err;

	if (sa->set_size) {
		err = set_size(ctx, node, st, sa->size);
		if (err)
			return err;
	}
	err = vfs_become(node->ve, ctx);
	if (err)
		return err;
	if ((sa->set_uid && sa->uid != st->st_uid) || (sa->set_gid && sa->gid != st->st_gid)) {
		err = be->chown(node->fd, sa->set_uid ? sa->uid : UINT32_MAX,
				sa->set_gid ? sa->gid : UINT32_MAX);
		/* A new object simply stays the caller's if it may not give it away. */
		if (err && !(created && err == -EPERM))
			return err;
	}
	if (sa->set_mode && !S_ISLNK(st->st_mode)) {
		err = be->chmod(node->fd, sa->mode);
		if (err)
			return err;
	}
	if (sa->atime_how != VFS_TIME_KEEP || sa->mtime_how != VFS_TIME_KEEP) {
		struct timespec ts[2];

		time_spec(sa->atime_how, &sa->atime, &ts[0]);
		time_spec(sa->mtime_how, &sa->mtime, &ts[1]);
		err = be->utimes(node->fd, ts);
		if (err)
			return err;
	}
	return 0;
}

int vfs_setattr(const struct vfs_ctx *ctx, struct vfs_node *node, const struct vfs_sattr *sa,
		const struct vfs_time *guard_ctime, struct vfs_wcc *wcc)
{
	struct stat st;
	int err;

	memset(wcc, 0, sizeof(*wcc));
	err = vfs_node_stat(node, &st);
	if (err)
		return err;
	vfs_wcc_pre(wcc, &st);
	if (ctx->readonly) {
		err = -EROFS;
		goto out;
	}
	if (guard_ctime && (guard_ctime->sec != st.st_ctim.tv_sec ||
			    guard_ctime->nsec != (uint32_t)st.st_ctim.tv_nsec)) {
		err = -VFS_ENOTSYNC;
		goto out;
	}
	err = vfs_apply_sattr(ctx, node, &st, sa, false);
	if (!err) /* stable before the reply, as RFC 1813 asks of SETATTR */
		err = vfs_node_sync(node);
out:
	vfs_wcc_post(wcc, node);
	return err;
}

/* Object reference for @name in directory @dir (as the caller: vfs_become() done);
 * ".." stays inside. */
static int lookup_fd(struct vfs_node *dir, const char *name)
{
	struct vfs_export *ve = dir->ve;
	struct stat st;
	int fd, err;

	if (strcmp(name, "..") != 0)
		return ve->be->resolve(dir->fd, name);
	err = ve->be->stat(dir->fd, &st);
	if (err)
		return err;
	if (st.st_dev == ve->root_dev && st.st_ino == ve->root_ino)
		return ve->be->resolve(dir->fd, ".");
	fd = ve->be->parent(dir->fd);
	if (fd < 0)
		return fd;
	err = vfs_dir_beneath(ve, fd);
	if (err) {
		ve->be->close(fd);
		return err;
	}
	return fd;
}

#define LOOKUP_UNCACHED 1 /* lookup_cached(): take the path that opens the object */

/*
 * LOOKUP of an object the cache holds, without opening anything: one stat of the name
 * (as the caller, vfs_become() done, so the directory's search permission is checked;
 * a symbolic link is not followed) gives the object's inode number, mount and
 * attributes, and the node cache's inode index the handle. The index's mark, taken
 * before the stat, makes the node found one that held the object open all through the
 * stat, so the number named that object and no other (vfs_cache_fh_by_ino()). The
 * node is touched, as a call by its handle would, so that names looked up often keep
 * their nodes. Returns 0, a negative errno, or LOOKUP_UNCACHED: not cached, on another
 * mount (or a kernel that cannot say which), or an error the opening path should judge.
 */
static int lookup_cached(struct vfs_node *dir, const char *name, struct vfs_fh *fh,
			 struct vfs_attr *attr)
{
	struct vfs_export *ve = dir->ve;
	uint64_t mark = vfs_cache_ino_mark(ve);
	struct vfs_node *node;
	struct stat st;
	int mount_id, err;

	if (ve->be->version < 3)
		return LOOKUP_UNCACHED;
	err = ve->be->stat_at_mnt(dir->fd, name, &st, &mount_id);
	if (err == -ENOENT)
		return err;
	if (err || mount_id != ve->mount_id ||
	    !vfs_cache_fh_by_ino(ve, st.st_dev, st.st_ino, mark, fh))
		return LOOKUP_UNCACHED;
	node = vfs_node_find(ve, fh->data, fh->len);
	vfs_node_put(node);
	vfs_attr_from_stat(ve, &st, attr);
	return 0;
}

int vfs_lookup(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name, bool nowait,
	       struct vfs_fh *fh, struct vfs_attr *attr, struct vfs_attr *dir_attr,
	       bool *dir_attr_valid)
{
	struct vfs_node *node;
	int fd, err;

	err = vfs_name_check(name);
	if (err)
		goto out;
	if (!S_ISDIR(dir->type)) {
		err = -ENOTDIR;
		goto out;
	}
	err = vfs_become(dir->ve, ctx);
	if (err)
		goto out;
	if (nowait && vfs_nowait_cold() && strcmp(name, "..") != 0) {
		/*
		 * This thread's opens have waited for the disk lately (vfs_nowait.c): only from the
		 * kernel's name cache, as lookup_cached()'s walk would read a directory block
		 * the cache lacks. ".." needs no disk: a cached name pins its parents' names.
		 */
		fd = dir->ve->be->resolve_cached(dir->fd, name);
	} else {
		struct vfs_nowait_mark mark;

		vfs_nowait_start(nowait, &mark);
		err = LOOKUP_UNCACHED;
		if (strcmp(name, "..") != 0)
			err = lookup_cached(dir, name, fh, attr);
		fd = err == LOOKUP_UNCACHED ? lookup_fd(dir, name) : 0;
		vfs_nowait_end(&mark);
		if (err != LOOKUP_UNCACHED)
			goto out;
	}
	if (fd < 0) {
		err = fd;
		goto out;
	}
	/* Cache the result: the client's next call names this handle. */
	err = vfs_node_from_fd(dir->ve, fd, attr, &node);
	if (!err) {
		*fh = node->fh;
		vfs_node_put(node);
	}
out:
	if (dir_attr) {
		bool ok = vfs_node_attr(dir, dir_attr);

		if (dir_attr_valid)
			*dir_attr_valid = ok;
	}
	return err;
}

int vfs_access(const struct vfs_ctx *ctx, struct vfs_node *node, uint32_t want, uint32_t *granted,
	       struct vfs_attr *attr)
{
	const struct vfs_cred *c = &ctx->cred;
	struct stat st;
	uint32_t g = 0;
	int err = vfs_node_stat(node, &st);

	if (err)
		return err;
	vfs_attr_from_stat(node->ve, &st, attr);
	if (vfs_perm(c, &st, 4))
		g |= VFS_ACCESS_READ;
	if (vfs_perm(c, &st, 1))
		g |= S_ISDIR(st.st_mode) ? VFS_ACCESS_LOOKUP : VFS_ACCESS_EXECUTE;
	if (!ctx->readonly && vfs_perm(c, &st, 2))
		g |= VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND | VFS_ACCESS_DELETE;
	*granted = g & want;
	return 0;
}

int vfs_readlink(const struct vfs_ctx *ctx, struct vfs_node *node, bool nowait, char *buf,
		 size_t cap, size_t *len, struct vfs_attr *attr)
{
	struct vfs_nowait_mark mark;
	ssize_t r;
	int err;

	if (!S_ISLNK(node->type))
		return -EINVAL;
	err = vfs_become(node->ve, ctx);
	if (err)
		return err;
	if (nowait && vfs_nowait_cold())
		return -EAGAIN;
	vfs_nowait_start(nowait, &mark);
	r = node->ve->be->readlink(node->fd, buf, cap);
	vfs_nowait_end(&mark);
	if (r < 0)
		return (int)r;
	*len = (size_t)r;
	if (!vfs_node_attr(node, attr))
		return -ESTALE;
	return 0;
}

/* Check I/O on @node: regular file, permission from the mode bits (owner override). */
static int io_check(const struct vfs_ctx *ctx, struct vfs_node *node, struct stat *st,
		    unsigned want)
{
	int err;

	if (S_ISDIR(node->type))
		return -EISDIR;
	if (!S_ISREG(node->type))
		return -EINVAL;
	err = vfs_node_stat(node, st);
	if (err)
		return err;
	if (ctx->cred.uid == st->st_uid || vfs_perm(&ctx->cred, st, want))
		return 0;
	/* Reading an executable-only file is allowed, as knfsd does for page-in. */
	if (want == 4 && vfs_perm(&ctx->cred, st, 1))
		return 0;
	return -EACCES;
}

int vfs_read(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset, uint32_t count,
	     bool nowait, void *buf, uint32_t *nread, bool *eof, struct vfs_attr *attr)
{
	struct stat st;
	bool writable;
	ssize_t r;
	int fd, err;

	err = io_check(ctx, node, &st, 4);
	if (err)
		return err;
	if (offset > (uint64_t)INT64_MAX)
		return -EINVAL;
	err = vfs_node_data_fd(node, &fd, &writable);
	if (err)
		return err;
	r = node->ve->be->pread(fd, buf, count, offset, nowait);
	if (r == -EOPNOTSUPP && nowait) /* the file system cannot tell: read and wait */
		r = node->ve->be->pread(fd, buf, count, offset, false);
	if (r < 0)
		return (int)r;
	/* Short, but not at the end of the file: the rest is not in the page cache. */
	if (nowait && (uint32_t)r < count && offset + (uint64_t)r < (uint64_t)st.st_size)
		return -EAGAIN;
	*nread = (uint32_t)r;
	*eof = (uint32_t)r < count || offset + (uint64_t)r >= (uint64_t)st.st_size;
	vfs_attr_from_stat(node->ve, &st, attr);
	return 0;
}

/* A stable write where RWF_SYNC/RWF_DSYNC may skip the cache flush of an inode not
 * marked dirty (core/fsflush.c): a plain write, then the back end's sync_written(),
 * which marks the inode and fsyncs it. */
static ssize_t write_marked(struct vfs_node *node, int fd, const void *data, uint32_t len,
			    uint64_t offset)
{
	ssize_t r = node->ve->be->pwrite(fd, data, len, offset, BK_SYNC_NONE);
	int err;

	if (r < 0)
		return r;
	err = vfs_node_sync_written(node, fd);
	return err ? err : r;
}

int vfs_write_sync_later(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset,
			 const void *data, uint32_t len, enum vfs_stable stable, bool nowait,
			 uint32_t *written, enum vfs_stable *committed, struct vfs_wcc *wcc,
			 bool *later)
{
	struct vfs_nowait_mark mark;
	struct stat st;
	bool writable;
	ssize_t r;
	int fd, err;

	memset(wcc, 0, sizeof(*wcc));
	if (later)
		*later = false;
	if (ctx->readonly)
		return -EROFS;
	err = io_check(ctx, node, &st, 2);
	if (err)
		return err;
	vfs_wcc_pre(wcc, &st);
	if (offset > (uint64_t)INT64_MAX - len)
		return -EFBIG;
	if (nowait && vfs_nowait_cold())
		return -EAGAIN;
	vfs_nowait_start(nowait, &mark);
	err = vfs_node_data_fd(node, &fd, &writable);
	if (err)
		return err;
	if (!writable)
		return -EROFS;
	/* A file that keeps its set-user-ID bit through a write (root's) cannot be marked
	 * by its COMMIT without losing the bit: where marks are needed, its writes are
	 * made stable at once (a server may commit more than it was asked to). */
	if (stable == VFS_UNSTABLE && node->ve->mark_to_flush && vfs_chown_clears_bits(st.st_mode))
		stable = VFS_FILE_SYNC;
	if (stable != VFS_UNSTABLE && vfs_wlog)
		r = vfs_wlog_write(node, fd, data, len, offset, !later);
	else if (stable != VFS_UNSTABLE && later)
		r = node->ve->be->pwrite(fd, data, len, offset, BK_SYNC_NONE);
	else if (stable != VFS_UNSTABLE && node->ve->mark_to_flush)
		r = write_marked(node, fd, data, len, offset);
	else /* one syscall: RWF_DSYNC / RWF_SYNC make the data (and metadata) stable */
		r = node->ve->be->pwrite(fd, data, len, offset, (enum bk_sync)stable);
	vfs_nowait_end(&mark);
	if (r < 0)
		return (int)r;
	if (stable == VFS_UNSTABLE && node->ve->mark_to_flush)
		atomic_store(&node->unstable, true); /* read by vfs_commit() only then */
	*written = (uint32_t)r;
	*committed = stable;
	if (later)
		*later = stable != VFS_UNSTABLE;
	vfs_wcc_post(wcc, node);
	return 0;
}

int vfs_write(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset, const void *data,
	      uint32_t len, enum vfs_stable stable, uint32_t *written, enum vfs_stable *committed,
	      struct vfs_wcc *wcc)
{
	return vfs_write_sync_later(ctx, node, offset, data, len, stable, false, written, committed,
				    wcc, NULL);
}

int vfs_write_sync(const struct vfs_ctx *ctx, struct vfs_node *node)
{
	bool writable;
	int fd;
	int err = vfs_node_data_fd(node, &fd, &writable);

	if (!err)
		err = vfs_become(node->ve, ctx);
	if (err)
		return err;
	return vfs_wlog ? vfs_wlog_wait(node, fd) : vfs_node_sync_written(node, fd);
}

int vfs_commit(const struct vfs_ctx *ctx, struct vfs_node *node, uint64_t offset, uint32_t count,
	       struct vfs_wcc *wcc)
{
	struct stat st;
	bool writable;
	int fd, err;

	(void)ctx;
	(void)offset;
	(void)count;
	memset(wcc, 0, sizeof(*wcc));
	if (!S_ISREG(node->type))
		return S_ISDIR(node->type) ? -EISDIR : -EINVAL;
	err = vfs_node_stat(node, &st);
	if (err)
		return err;
	vfs_wcc_pre(wcc, &st);
	err = vfs_node_data_fd(node, &fd, &writable);
	if (err)
		return err;
	/* Logged stable writes of this file could otherwise be replayed over what this
	 * COMMIT makes durable. */
	err = vfs_wlog_retire(node);
	/* Where a sync may skip the cache flush of an inode not marked dirty (ext4 without
	 * a journal on older Linux, core/fsflush.c), writes within the clock tick of the
	 * file's last sync leave it unmarked: a chown to the same owner marks it, changing
	 * only the ctime. Only after UNSTABLE writes, which have already cleared any file
	 * capabilities the chown would clear; a file with a set-user-ID bit the chown would
	 * clear had its writes made stable instead (vfs_write()), unless it got the bit
	 * after the write's check: that file is synced unmarked. */
	if (!err && node->ve->mark_to_flush && atomic_exchange(&node->unstable, false))
		err = vfs_node_mark(node, st.st_mode);
	/* fsync, not fdatasync: unstable writes may have changed the size. */
	if (!err)
		err = node->ve->be->fsync(fd, false);
	vfs_wcc_post(wcc, node);
	return err;
}

int vfs_statfs(struct vfs_node *node, struct vfs_statfs *st, struct vfs_attr *attr)
{
	struct statvfs sv;
	int err = node->ve->be->statfs(node->fd, &sv);

	if (err)
		return err;
	st->tbytes = (uint64_t)sv.f_blocks * sv.f_frsize;
	st->fbytes = (uint64_t)sv.f_bfree * sv.f_frsize;
	st->abytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	st->tfiles = sv.f_files;
	st->ffiles = sv.f_ffree;
	st->afiles = sv.f_favail;
	return vfs_getattr(node, attr);
}

int vfs_fsinfo(struct vfs_node *node, struct vfs_fsinfo *fi, struct vfs_attr *attr)
{
	fi->maxfilesize = (uint64_t)INT64_MAX;
	fi->time_delta.sec = 0;
	fi->time_delta.nsec = 1;
	fi->links = true;
	fi->symlinks = true;
	fi->homogeneous = true;
	fi->cansettime = true;
	return vfs_getattr(node, attr);
}

int vfs_pathconf(struct vfs_node *node, struct vfs_pathconf *pc, struct vfs_attr *attr)
{
	long lm = node->ve->be->link_max(node->fd);

	pc->linkmax = lm > 0 && lm <= (long)UINT32_MAX ? (uint32_t)lm : 32000;
	pc->name_max = 255;
	pc->no_trunc = true;
	pc->chown_restricted = true;
	pc->case_insensitive = false;
	pc->case_preserving = true;
	return vfs_getattr(node, attr);
}
