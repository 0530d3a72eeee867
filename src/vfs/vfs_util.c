/*
 * vfs_util.c - helpers shared by the vfs operations: attributes from struct stat,
 * weak cache consistency data, name rules, identity and mode-bit permission checks,
 * and the "is this directory still inside the export" walk.
 */
#include <errno.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "backend/posix/posix.h"
#include "vfs/vfs_internal.h"

#define VFS_NAME_MAX  255
#define VFS_MAX_DEPTH 4096

static enum vfs_type type_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR:
		return VFS_DIR;
	case S_IFBLK:
		return VFS_BLK;
	case S_IFCHR:
		return VFS_CHR;
	case S_IFLNK:
		return VFS_LNK;
	case S_IFSOCK:
		return VFS_SOCK;
	case S_IFIFO:
		return VFS_FIFO;
	default:
		return VFS_REG;
	}
}

void vfs_attr_from_stat(const struct vfs_export *ve, const struct stat *st, struct vfs_attr *a)
{
	a->type = type_of(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (uint64_t)st->st_size;
	a->used = (uint64_t)st->st_blocks * 512;
	a->rdev_major = major(st->st_rdev);
	a->rdev_minor = minor(st->st_rdev);
	a->fsid = ve->id;
	a->fileid = st->st_ino;
	a->atime.sec = st->st_atim.tv_sec;
	a->atime.nsec = (uint32_t)st->st_atim.tv_nsec;
	a->mtime.sec = st->st_mtim.tv_sec;
	a->mtime.nsec = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime.sec = st->st_ctim.tv_sec;
	a->ctime.nsec = (uint32_t)st->st_ctim.tv_nsec;
}

void vfs_wcc_pre(struct vfs_wcc *w, const struct stat *st)
{
	w->pre_valid = true;
	w->pre.size = (uint64_t)st->st_size;
	w->pre.mtime.sec = st->st_mtim.tv_sec;
	w->pre.mtime.nsec = (uint32_t)st->st_mtim.tv_nsec;
	w->pre.ctime.sec = st->st_ctim.tv_sec;
	w->pre.ctime.nsec = (uint32_t)st->st_ctim.tv_nsec;
}

int vfs_node_stat(struct vfs_node *node, struct stat *st)
{
	int err = node->ve->be->stat(node->fd, st);

	if (err)
		return err;
	if (st->st_nlink == 0) {
		/* Removed behind our back: later handle lookups must see ESTALE. */
		vfs_cache_forget(node->ve, &node->fh);
		return -ESTALE;
	}
	return 0;
}

bool vfs_node_attr(struct vfs_node *node, struct vfs_attr *a)
{
	struct stat st;

	if (vfs_node_stat(node, &st) != 0)
		return false;
	vfs_attr_from_stat(node->ve, &st, a);
	return true;
}

void vfs_wcc_post(struct vfs_wcc *w, struct vfs_node *node)
{
	w->post_valid = vfs_node_attr(node, &w->post);
}

int vfs_name_check(const char *name)
{
	size_t len;

	if (!name || !name[0])
		return -EINVAL;
	len = strnlen(name, VFS_NAME_MAX + 1);
	if (len > VFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (memchr(name, '/', len))
		return -EINVAL;
	return 0;
}

bool vfs_chown_clears_bits(mode_t mode)
{
	return !S_ISDIR(mode) && ((mode & S_ISUID) || ((mode & S_ISGID) && (mode & S_IXGRP)));
}

int vfs_node_mark(struct vfs_node *node, mode_t mode)
{
	if (!node->ve->mark_to_flush || vfs_chown_clears_bits(mode))
		return 0;
	return node->ve->be->chown(node->fd, (uint32_t)-1, (uint32_t)-1);
}

int vfs_node_sync_written(struct vfs_node *node, int fd)
{
	return node->ve->mark_to_flush ? node->ve->be->sync_written(fd)
				       : node->ve->be->fsync(fd, false);
}

bool vfs_name_is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

int vfs_become(const struct vfs_export *ve, const struct vfs_ctx *ctx)
{
	return ve->be->set_identity(&ctx->cred);
}

int vfs_become_server(const struct vfs_export *ve)
{
	if (ve->be->version >= 2)
		return ve->be->set_server_fs();
	return ve->be->set_identity(NULL);
}

int vfs_thread_reset_identity(void)
{
	return posix_backend_ops.set_identity(NULL);
}

static bool in_groups(const struct vfs_cred *c, uint32_t gid)
{
	if (c->gid == gid)
		return true;
	for (uint32_t i = 0; i < c->ngroups && i < VFS_MAXGROUPS; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

bool vfs_perm(const struct vfs_cred *c, const struct stat *st, unsigned want)
{
	unsigned bits;

	if (c->uid == 0) {
		if (!(want & 1))
			return true;
		return S_ISDIR(st->st_mode) || (st->st_mode & 0111);
	}
	if (c->uid == st->st_uid)
		bits = (st->st_mode >> 6) & 7;
	else if (in_groups(c, st->st_gid))
		bits = (st->st_mode >> 3) & 7;
	else
		bits = st->st_mode & 7;
	return (bits & want) == want;
}

int vfs_dir_beneath(struct vfs_export *ve, int fd)
{
	const struct backend_ops *be = ve->be;
	struct stat st;
	int cur = -1, err;

	err = vfs_become_server(ve);
	if (err)
		return err;
	err = be->stat(fd, &st);
	for (int depth = 0; !err && depth < VFS_MAX_DEPTH; depth++) {
		ino_t ino = st.st_ino;
		int up;

		if (st.st_dev == ve->root_dev && st.st_ino == ve->root_ino)
			goto out;
		if (st.st_dev != ve->root_dev)
			break;
		up = be->parent(cur >= 0 ? cur : fd);
		if (up < 0) {
			err = up;
			break;
		}
		be->close(cur);
		cur = up;
		err = be->stat(cur, &st);
		if (!err && st.st_ino == ino)
			break; /* reached the file system's root */
	}
	if (!err)
		err = -EACCES;
out:
	be->close(cur);
	return err;
}

int vfs_fh_of_fd(struct vfs_export *ve, int fd, struct vfs_fh *fh, struct vfs_attr *attr,
		 struct stat *st)
{
	struct bk_fh bk;
	int mount_id, err;

	err = ve->be->fh_of(fd, "", &bk, &mount_id);
	if (err)
		return err == -EOVERFLOW ? -EOPNOTSUPP : err;
	if (mount_id != ve->mount_id)
		return -EXDEV;
	err = vfs_fh_make(ve, &bk, fh);
	if (err)
		return err;
	err = ve->be->stat(fd, st);
	if (err)
		return err;
	vfs_attr_from_stat(ve, st, attr);
	return 0;
}
