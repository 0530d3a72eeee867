/*
 * vfs_dirops.c - operations that change a directory: create, mkdir, symlink, mknod,
 * remove, rmdir, rename, link.
 *
 * All run under the caller's identity, so the kernel checks write and search
 * permission on the directory, the sticky bit, and makes the caller the owner of what
 * is created. Each returns weak cache consistency data for the directory: pre from an
 * fstat before the change, post from one after it. When a change removes an object's
 * last link, its cached node is forgotten so that its handle turns stale at once.
 *
 * A change is stable before it is reported done (RFC 1813 asks that of every operation
 * that modifies the file system): what was created or linked is synced, then every
 * directory that changed, and a directory moved to another parent (its ".." changed).
 * A failed sync fails the call, though the change was made.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "vfs/vfs_internal.h"

/* Checks shared by every directory change; fills the pre-op half of @wcc. */
static int dir_begin(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
		     struct vfs_wcc *wcc)
{
	struct stat st;
	int err;

	memset(wcc, 0, sizeof(*wcc));
	if (ctx->readonly)
		return -EROFS;
	err = vfs_name_check(name);
	if (err)
		return err;
	if (!S_ISDIR(dir->type))
		return -ENOTDIR;
	err = vfs_node_stat(dir, &st);
	if (err)
		return err;
	vfs_wcc_pre(wcc, &st);
	return vfs_become(dir->ve, ctx);
}

/*
 * Finish creating an object: cache its node (consumes @fd), apply @sa (may be NULL) as
 * the caller, and fill @fh, @attr and the directory's post-op attributes.
 */
static int finish_new(const struct vfs_ctx *ctx, struct vfs_node *dir, int fd,
		      const struct vfs_sattr *sa, struct vfs_fh *fh, struct vfs_attr *attr,
		      struct vfs_wcc *dir_wcc)
{
	struct vfs_node *node;
	struct stat st;
	bool mark;
	int err;

	err = vfs_node_from_fd(dir->ve, fd, attr, &node);
	if (err)
		goto out;
	/* Linux before "ext4: fix fsync(2) for nojournal mode" (Debian 12's 6.1 among them)
	 * fsyncs an inode on ext4 without a journal only if it is marked dirty, which a new
	 * empty file often is not: setting its mode again marks it, so the fsync writes it
	 * (tests/kernel/power.sh, phase meta-nojournal, loses such files without this).
	 * Only where the file system may need it (core/fsflush.c), as every mark. */
	mark = S_ISREG(node->type) && dir->ve->mark_to_flush;
	if (mark)
		err = dir->ve->be->chmod(node->fd, attr->mode);
	if (!err && sa) {
		err = vfs_node_stat(node, &st);
		if (!err)
			err = vfs_apply_sattr(ctx, node, &st, sa, true);
	}
	if (!err && (sa || mark))
		err = vfs_getattr(node, attr); /* what @sa set, and the new ctime */
	if (!err)
		err = vfs_node_sync(node);
	if (!err)
		err = vfs_node_sync(dir);
	*fh = node->fh;
	vfs_node_put(node);
out:
	vfs_wcc_post(dir_wcc, dir);
	return err;
}

/* @sa without what creation itself already applied (the mode). */
static struct vfs_sattr sattr_rest(const struct vfs_sattr *sa)
{
	struct vfs_sattr rest = *sa;

	rest.set_mode = false;
	return rest;
}

static void verf_times(const uint8_t verf[8], struct timespec ts[2])
{
	uint32_t a, m;

	/* As knfsd: atime.sec and mtime.sec hold the verifier, kept positive. */
	memcpy(&a, verf, 4);
	memcpy(&m, verf + 4, 4);
	ts[0].tv_sec = a & 0x7fffffff;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = m & 0x7fffffff;
	ts[1].tv_nsec = 0;
}

/* An existing file for EXCLUSIVE create: ours again if it holds the same verifier. */
static int exclusive_retry(struct vfs_node *dir, const char *name, const uint8_t verf[8])
{
	const struct backend_ops *be = dir->ve->be;
	struct timespec ts[2];
	struct stat st;
	int fd = be->resolve(dir->fd, name);

	if (fd < 0)
		return fd == -ENOENT ? -EEXIST : fd;
	verf_times(verf, ts);
	if (be->stat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_atim.tv_sec != ts[0].tv_sec ||
	    st.st_mtim.tv_sec != ts[1].tv_sec) {
		be->close(fd);
		return -EEXIST;
	}
	return fd;
}

static int create_exclusive(struct vfs_node *dir, const char *name, const uint8_t verf[8])
{
	const struct backend_ops *be = dir->ve->be;
	struct timespec ts[2];
	int fd, err;

	fd = be->create(dir->fd, name, 0600, true);
	if (fd == -EEXIST)
		return exclusive_retry(dir, name, verf);
	if (fd < 0)
		return fd;
	verf_times(verf, ts);
	err = be->utimes(fd, ts);
	if (err) {
		be->close(fd);
		be->unlink(dir->fd, name, false);
		return err;
	}
	return fd;
}

int vfs_create(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	       enum vfs_create_how how, const struct vfs_sattr *sa, const uint8_t verf[8],
	       struct vfs_fh *fh, struct vfs_attr *attr, struct vfs_wcc *dir_wcc)
{
	const struct backend_ops *be = dir->ve->be;
	struct vfs_sattr rest = sattr_rest(sa);
	struct stat st;
	int fd, err;

	err = dir_begin(ctx, dir, name, dir_wcc);
	if (err)
		return err;
	if (vfs_name_is_dot(name)) {
		err = -EEXIST;
		goto out;
	}
	if (how == VFS_CREATE_EXCLUSIVE) {
		fd = create_exclusive(dir, name, verf);
		if (fd < 0) {
			err = fd;
			goto out;
		}
		return finish_new(ctx, dir, fd, NULL, fh, attr, dir_wcc);
	}
	fd = be->create(dir->fd, name, sa->set_mode ? sa->mode : 0644, true);
	if (fd == -EEXIST && how == VFS_CREATE_UNCHECKED) {
		/* UNCHECKED on an existing file: keep it, truncating only if asked. */
		fd = be->resolve(dir->fd, name);
		if (fd >= 0 && (be->stat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
			be->close(fd);
			fd = -EEXIST;
		}
		memset(&rest, 0, sizeof(rest));
		rest.set_size = sa->set_size;
		rest.size = sa->size;
	}
	if (fd < 0) {
		err = fd;
		goto out;
	}
	return finish_new(ctx, dir, fd, &rest, fh, attr, dir_wcc);
out:
	vfs_wcc_post(dir_wcc, dir);
	return err;
}

/* After making @name by some call that returns no descriptor: resolve and finish. */
static int made(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name, int err,
		const struct vfs_sattr *sa, struct vfs_fh *fh, struct vfs_attr *attr,
		struct vfs_wcc *dir_wcc)
{
	struct vfs_sattr rest;
	int fd;

	if (err)
		goto out;
	fd = dir->ve->be->resolve(dir->fd, name);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	rest = sattr_rest(sa);
	return finish_new(ctx, dir, fd, &rest, fh, attr, dir_wcc);
out:
	vfs_wcc_post(dir_wcc, dir);
	return err;
}

int vfs_mkdir(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	      const struct vfs_sattr *sa, struct vfs_fh *fh, struct vfs_attr *attr,
	      struct vfs_wcc *dir_wcc)
{
	int err = dir_begin(ctx, dir, name, dir_wcc);

	if (err)
		return err;
	if (vfs_name_is_dot(name))
		err = -EEXIST;
	else
		err = dir->ve->be->mkdir(dir->fd, name, sa->set_mode ? sa->mode : 0755);
	return made(ctx, dir, name, err, sa, fh, attr, dir_wcc);
}

int vfs_symlink(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
		const char *target, const struct vfs_sattr *sa, struct vfs_fh *fh,
		struct vfs_attr *attr, struct vfs_wcc *dir_wcc)
{
	int err = dir_begin(ctx, dir, name, dir_wcc);

	if (err)
		return err;
	if (vfs_name_is_dot(name))
		err = -EEXIST;
	else if (!target || !target[0])
		err = -EINVAL;
	else
		err = dir->ve->be->symlink(dir->fd, name, target);
	return made(ctx, dir, name, err, sa, fh, attr, dir_wcc);
}

int vfs_mknod(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name, enum vfs_type type,
	      const struct vfs_sattr *sa, uint32_t major, uint32_t minor, struct vfs_fh *fh,
	      struct vfs_attr *attr, struct vfs_wcc *dir_wcc)
{
	uint32_t mode = sa->set_mode ? sa->mode & 07777 : 0644;
	int err;

	switch (type) {
	case VFS_CHR:
		mode |= S_IFCHR;
		break;
	case VFS_BLK:
		mode |= S_IFBLK;
		break;
	case VFS_FIFO:
		mode |= S_IFIFO;
		major = minor = 0;
		break;
	case VFS_SOCK:
		mode |= S_IFSOCK;
		major = minor = 0;
		break;
	default:
		memset(dir_wcc, 0, sizeof(*dir_wcc));
		return -VFS_EBADTYPE;
	}
	err = dir_begin(ctx, dir, name, dir_wcc);
	if (err)
		return err;
	if (vfs_name_is_dot(name))
		err = -EEXIST;
	else
		err = dir->ve->be->mknod(dir->fd, name, mode, major, minor);
	return made(ctx, dir, name, err, sa, fh, attr, dir_wcc);
}

/* Resolve @name in @dir and remember its handle, to forget it once it is gone. */
static int victim_open(struct vfs_node *dir, const char *name, struct vfs_fh *fh, struct stat *st)
{
	const struct backend_ops *be = dir->ve->be;
	struct vfs_attr attr;
	struct stat fst;
	int fd = be->resolve(dir->fd, name);

	if (fd < 0)
		return fd;
	if (be->stat(fd, st) != 0 || vfs_fh_of_fd(dir->ve, fd, fh, &attr, &fst) != 0)
		fh->len = 0;
	return fd;
}

/* Drop the node of a victim whose last link went away. */
static void victim_close(struct vfs_node *dir, int fd, const struct vfs_fh *fh)
{
	const struct backend_ops *be = dir->ve->be;
	struct stat st;

	if (fh->len && be->stat(fd, &st) == 0 && st.st_nlink == 0)
		vfs_cache_forget(dir->ve, fh);
	be->close(fd);
}

static int remove_common(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
			 bool is_dir, struct vfs_wcc *dir_wcc)
{
	struct vfs_fh fh;
	struct stat st;
	int fd, err;

	err = dir_begin(ctx, dir, name, dir_wcc);
	if (err)
		return err;
	/* As rmdir(2): "." is invalid, ".." is never empty. */
	if (strcmp(name, ".") == 0) {
		err = -EINVAL;
		goto out;
	}
	if (strcmp(name, "..") == 0) {
		err = -ENOTEMPTY;
		goto out;
	}
	fd = victim_open(dir, name, &fh, &st);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	if (S_ISDIR(st.st_mode) != is_dir)
		err = is_dir ? -ENOTDIR : -EISDIR;
	else
		err = dir->ve->be->unlink(dir->fd, name, is_dir);
	victim_close(dir, fd, &fh);
	if (!err)
		err = vfs_node_sync(dir);
out:
	vfs_wcc_post(dir_wcc, dir);
	return err;
}

int vfs_remove(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	       struct vfs_wcc *dir_wcc)
{
	return remove_common(ctx, dir, name, false, dir_wcc);
}

int vfs_rmdir(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name,
	      struct vfs_wcc *dir_wcc)
{
	return remove_common(ctx, dir, name, true, dir_wcc);
}

/*
 * After a rename to another directory (@err its outcome so far): a directory that moved
 * has a new ".." entry, which no fsync of its old or new parent writes on a file system
 * without a journal, so it is synced too. Consumes @fd, the object as it was resolved
 * before the rename.
 */
static int sync_moved(struct vfs_export *ve, int fd, int err)
{
	struct vfs_node *node;
	struct vfs_attr attr;
	struct stat st;

	if (err || ve->be->stat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		ve->be->close(fd);
		return err;
	}
	err = vfs_node_from_fd(ve, fd, &attr, &node);
	if (err)
		return err;
	err = vfs_node_sync(node);
	vfs_node_put(node);
	return err;
}

int vfs_rename(const struct vfs_ctx *ctx, struct vfs_node *from_dir, const char *from_name,
	       struct vfs_node *to_dir, const char *to_name, struct vfs_wcc *from_wcc,
	       struct vfs_wcc *to_wcc)
{
	struct vfs_fh fh;
	struct stat st;
	int fd, moved, err;

	memset(to_wcc, 0, sizeof(*to_wcc));
	err = dir_begin(ctx, from_dir, from_name, from_wcc);
	if (err)
		return err;
	err = vfs_name_check(to_name);
	if (!err && from_dir->ve != to_dir->ve)
		err = -EXDEV;
	if (!err && !S_ISDIR(to_dir->type))
		err = -ENOTDIR;
	if (!err && (vfs_name_is_dot(from_name) || vfs_name_is_dot(to_name)))
		err = -EINVAL;
	if (!err)
		err = vfs_node_stat(to_dir, &st);
	if (err)
		goto out;
	vfs_wcc_pre(to_wcc, &st);
	/* An existing target loses a link: remember it to forget its node. */
	fd = victim_open(to_dir, to_name, &fh, &st);
	moved = to_dir != from_dir ? from_dir->ve->be->resolve(from_dir->fd, from_name) : -1;
	err = from_dir->ve->be->rename(from_dir->fd, from_name, to_dir->fd, to_name);
	if (fd >= 0)
		victim_close(to_dir, fd, &fh);
	/* The new name first: a power cut between the two syncs then leaves the object with
	 * both names (fsck counts the links) rather than with none. */
	if (!err)
		err = vfs_node_sync(to_dir);
	if (!err && to_dir != from_dir)
		err = vfs_node_sync(from_dir);
	if (moved >= 0)
		err = sync_moved(from_dir->ve, moved, err);
out:
	vfs_wcc_post(from_wcc, from_dir);
	if (to_wcc->pre_valid)
		vfs_wcc_post(to_wcc, to_dir);
	return err;
}

/*
 * Where an fsync may skip an inode the VFS was not told is dirty (core/fsflush.c), a
 * new link leaves its file so: ext4 without a journal writes the new count into the
 * inode's table block alone, and the file's fsync then neither writes that block nor
 * flushes the disk (e2fsck would find one link too few, and a later REMOVE of either
 * name would free the file the other still names). A chown to the same owner marks
 * it, changing only the ctime that the link has just set; not a file whose set-user-ID
 * bit it would clear (that one keeps the gap).
 */
static int link_mark(struct vfs_node *node)
{
	struct stat st;
	int err;

	if (!node->ve->mark_to_flush || !S_ISREG(node->type)) /* others: a syncfs */
		return 0;
	err = vfs_node_stat(node, &st);
	return err ? err : vfs_node_mark(node, st.st_mode);
}

int vfs_link(const struct vfs_ctx *ctx, struct vfs_node *node, struct vfs_node *dir,
	     const char *name, struct vfs_attr *attr, bool *attr_valid, struct vfs_wcc *dir_wcc)
{
	int err;

	*attr_valid = false;
	err = dir_begin(ctx, dir, name, dir_wcc);
	if (err)
		return err;
	if (vfs_name_is_dot(name))
		err = -EEXIST;
	else if (node->ve != dir->ve)
		err = -EXDEV;
	else
		err = dir->ve->be->link(node->fd, dir->fd, name);
	if (!err)
		err = link_mark(node);
	if (!err)
		err = vfs_node_sync(node);
	if (!err)
		err = vfs_node_sync(dir);
	*attr_valid = vfs_node_attr(node, attr);
	vfs_wcc_post(dir_wcc, dir);
	return err;
}
