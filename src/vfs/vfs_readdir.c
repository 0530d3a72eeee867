/*
 * vfs_readdir.c - READDIR and READDIRPLUS over getdents64.
 *
 * Each call opens a fresh directory stream (as the caller, so read permission is the
 * kernel's to check), seeks to the cookie and hands entries to the callback. For
 * READDIRPLUS each entry costs an fstatat, and a name_to_handle_at unless the node
 * cache holds the object (vfs_cache_fh_by_ino()). An entry's
 * cookie is its d_off: the file system's own position of the next entry, which ext4
 * (hash order) and tmpfs keep stable while other entries come and go. So the cookie
 * verifier need not change with the directory: it is a MAC of the directory's handle,
 * the same for the directory's whole life, and a client paging through a directory
 * that is being modified never gets BAD_COOKIE.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/siphash.h"
#include "vfs/vfs_internal.h"

#define DIRENT_BUF 32768

/* The fixed part of struct linux_dirent64, read with memcpy (no alignment games). */
struct dirent64_hdr {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	/* Unused, but part of the kernel's record layout that this struct mirrors. */
	// cppcheck-suppress unusedStructMember
	unsigned char d_type;
};

static void cookie_verf(const struct vfs_node *dir, uint8_t verf[8])
{
	uint8_t buf[8 + VFS_FH_MAX];
	uint64_t mac;

	/* Domain-separated from the handle MAC by the prefix. */
	memcpy(buf, "readdir", 8);
	memcpy(buf + 8, dir->fh.data, dir->fh.len);
	mac = siphash24(vfs_key, buf, 8 + (size_t)dir->fh.len);
	for (int i = 0; i < 8; i++)
		verf[i] = (uint8_t)(mac >> (8 * i));
}

static bool is_root(const struct vfs_node *dir, const struct stat *st)
{
	return st->st_dev == dir->ve->root_dev && st->st_ino == dir->ve->root_ino;
}

/* One listing: where it is, and what each entry gets. */
struct listing {
	struct vfs_node *dir;
	const struct stat *dir_st;
	bool plus;
	uint64_t mark; /* vfs_cache_ino_mark() before the first entry's stat */
	vfs_readdir_cb cb;
	void *arg;
};

/* Fill the READDIRPLUS part of @ent; leaves have_plus false if that fails. */
static void fill_plus(const struct listing *l, struct vfs_dirent *ent)
{
	struct vfs_node *dir = l->dir;
	struct vfs_export *ve = dir->ve;
	struct bk_fh bk;
	struct stat st;
	int mount_id;

	ent->have_plus = false;
	if (strcmp(ent->name, ".") == 0 ||
	    (strcmp(ent->name, "..") == 0 && is_root(dir, l->dir_st))) {
		ent->fh = strcmp(ent->name, ".") == 0 ? dir->fh : ve->root_fh;
		vfs_attr_from_stat(ve, l->dir_st, &ent->attr);
		ent->have_plus = true;
		return;
	}
	/* ".." of another directory: the client can LOOKUP it (checked to stay inside). */
	if (strcmp(ent->name, "..") == 0)
		return;
	/* The handle from the node cache if it held the object before the stat (one walk of
	 * the name, not two). Not for a name whose stat crossed into a mount (its number is
	 * not the entry's, d_ino): name_to_handle_at below refuses those, as LOOKUP does. */
	if (ve->be->stat_at(dir->fd, ent->name, &st) != 0)
		return;
	if ((st.st_ino != ent->fileid ||
	     !vfs_cache_fh_by_ino(ve, st.st_dev, st.st_ino, l->mark, &ent->fh)) &&
	    (ve->be->fh_of(dir->fd, ent->name, &bk, &mount_id) != 0 || mount_id != ve->mount_id ||
	     vfs_fh_make(ve, &bk, &ent->fh) != 0))
		return;
	vfs_attr_from_stat(ve, &st, &ent->attr);
	ent->fileid = ent->attr.fileid;
	ent->have_plus = true;
}

/* Hand the records in @buf to the listing's callback; false once it declined one. */
static bool emit(const struct listing *l, char *buf, size_t n)
{
	struct vfs_dirent ent;
	struct dirent64_hdr h;

	for (size_t pos = 0; pos + sizeof(h) <= n; pos += h.d_reclen) {
		memcpy(&h, buf + pos, sizeof(h));
		if (h.d_reclen == 0 || pos + h.d_reclen > n)
			break;
		memset(&ent, 0, sizeof(ent));
		ent.name = buf + pos + offsetof(struct dirent64_hdr, d_type) + 1;
		ent.name_len = (uint32_t)strnlen(ent.name, h.d_reclen);
		ent.fileid = h.d_ino;
		ent.cookie = (uint64_t)h.d_off;
		if (strcmp(ent.name, "..") == 0 && is_root(l->dir, l->dir_st))
			ent.fileid = l->dir_st->st_ino; /* the export's root is its own parent */
		if (l->plus)
			fill_plus(l, &ent);
		if (!l->cb(l->arg, &ent))
			return false;
	}
	return true;
}

int vfs_readdir(const struct vfs_ctx *ctx, struct vfs_node *dir, uint64_t cookie,
		const uint8_t verf_in[8], bool plus, vfs_readdir_cb cb, void *arg,
		uint8_t verf_out[8], bool *eof, struct vfs_attr *dir_attr)
{
	static const uint8_t zero[8];
	const struct backend_ops *be = dir->ve->be;
	char buf[DIRENT_BUF] __attribute__((aligned(8)));
	struct stat dir_st;
	struct listing l;
	uint8_t verf[8];
	ssize_t n;
	int dfd, err;

	*eof = false;
	if (!S_ISDIR(dir->type))
		return -ENOTDIR;
	cookie_verf(dir, verf);
	if (verf_in && memcmp(verf_in, zero, 8) != 0 && memcmp(verf_in, verf, 8) != 0)
		return -VFS_EBADCOOKIE;
	err = vfs_node_stat(dir, &dir_st);
	if (err)
		return err;
	l = (struct listing){dir, &dir_st, plus, vfs_cache_ino_mark(dir->ve), cb, arg};
	err = vfs_become(dir->ve, ctx);
	if (err)
		return err;
	dfd = be->opendir(dir->fd);
	if (dfd < 0)
		return dfd;
	if (cookie) {
		err = be->seekdir(dfd, cookie);
		if (err == -EINVAL)
			err = -VFS_EBADCOOKIE;
		if (err)
			goto out;
	}
	for (;;) {
		n = be->getdents(dfd, buf, sizeof(buf));
		if (n < 0) {
			err = n == -EINVAL || n == -ENOENT ? -VFS_EBADCOOKIE : (int)n;
			goto out;
		}
		if (n == 0) {
			*eof = true;
			break;
		}
		if (!emit(&l, buf, (size_t)n))
			break;
	}
	memcpy(verf_out, verf, 8);
	if (dir_attr)
		vfs_attr_from_stat(dir->ve, &dir_st, dir_attr);
out:
	be->close(dfd);
	return err;
}
