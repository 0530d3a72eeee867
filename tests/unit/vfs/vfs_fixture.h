/*
 * vfs_fixture.h - shared set-up for the vfs unit tests: a fresh state directory and
 * export under a directory made by test_disk_dir() (a disk file system), the export's
 * root node, and contexts for root and for an ordinary user (uid 1000); the same in a
 * mount namespace of a test's own, for bind mounts inside the export. Tests run as
 * root.
 */
#ifndef SHOAL_TEST_VFS_FIXTURE_H
#define SHOAL_TEST_VFS_FIXTURE_H

#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit/test.h"
#include "vfs/vfs.h"

#define FX_EXPORT_ID 7

struct fx {
	char base[64];
	char state[96];
	char exp[96];
	struct vfs_export *ve;
	struct vfs_node *root;
	struct vfs_fh root_fh;
};

static const struct vfs_ctx fx_root_ctx = {.cred = {.uid = 0, .gid = 0}};
static const struct vfs_ctx fx_user_ctx = {.cred = {.uid = 1000, .gid = 1000}};
static const struct vfs_sattr fx_no_sattr;

static inline void fx_open(struct fx *f)
{
	CHECK_EQ(vfs_init(f->state), 0);
	CHECK_EQ(vfs_export_open(f->exp, FX_EXPORT_ID, &f->ve), 0);
	CHECK_EQ(vfs_export_root(f->ve, &f->root_fh), 0);
	CHECK_EQ(vfs_node_get(f->ve, f->root_fh.data, f->root_fh.len, false, &f->root), 0);
}

static inline void fx_close(struct fx *f)
{
	vfs_node_put(f->root);
	vfs_export_put(f->ve);
	vfs_fini();
}

static inline void fx_setup(struct fx *f)
{
	test_disk_dir(f->base, sizeof(f->base), "shoal-vfs");
	snprintf(f->state, sizeof(f->state), "%s/state", f->base);
	snprintf(f->exp, sizeof(f->exp), "%s/export", f->base);
	CHECK_EQ(mkdir(f->state, 0700), 0);
	CHECK_EQ(mkdir(f->exp, 0777), 0);
	CHECK_EQ(chmod(f->exp, 0777), 0);
	fx_open(f);
}

static inline int fx_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void fx_teardown(struct fx *f)
{
	fx_close(f);
	CHECK_EQ(vfs_thread_reset_identity(), 0);
	CHECK_EQ(nftw(f->base, fx_rm, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Node for @fh in the fixture's export (NULL on failure). */
static inline struct vfs_node *fx_node(struct fx *f, const struct vfs_fh *fh)
{
	struct vfs_node *n = NULL;

	CHECK_EQ(vfs_node_get(f->ve, fh->data, fh->len, false, &n), 0);
	return n;
}

/* Create regular file @name in the root as @ctx (UNCHECKED); returns its handle. */
static inline struct vfs_fh fx_create(struct fx *f, const struct vfs_ctx *ctx, const char *name)
{
	struct vfs_fh fh = {0};
	struct vfs_attr attr;
	struct vfs_wcc wcc;

	CHECK_EQ(vfs_create(ctx, f->root, name, VFS_CREATE_UNCHECKED, &fx_no_sattr, NULL, &fh,
			    &attr, &wcc),
		 0);
	return fh;
}

/*
 * fx_setup() in a mount namespace of the test's own (root needed; the test that calls
 * it runs last in its file), with directories "in" and "bm" in the export, their paths
 * in @in and @bm (@cap bytes each): for a bind mount of one onto the other.
 */
static inline void fx_setup_mounts(struct fx *f, char *in, char *bm, size_t cap)
{
	CHECK_EQ(unshare(CLONE_NEWNS), 0);
	CHECK_EQ(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	fx_setup(f);
	snprintf(in, cap, "%s/in", f->exp);
	snprintf(bm, cap, "%s/bm", f->exp);
	CHECK_EQ(mkdir(in, 0755), 0);
	CHECK_EQ(mkdir(bm, 0755), 0);
}

#endif
