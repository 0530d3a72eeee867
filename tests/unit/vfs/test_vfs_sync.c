/*
 * test_vfs_sync.c - unit tests for metadata durability (src/vfs/vfs_dirops.c,
 * src/vfs/vfs_ops.c): each operation that changes the file system fsyncs what it
 * changed (the object it made or linked, every directory it changed, the file whose
 * attributes it set) before it returns; a failed fsync fails the call; operations that
 * change nothing sync nothing, and a FIFO is never opened to be synced: a symlink,
 * FIFO or device node is made stable by a syncfs of the export instead; a directory is
 * marked dirty (a chown to no one new) before its fsync, which ext4 without a journal
 * needs to write and flush it on older kernels, and so is a file given a new link
 * (not a set-user-ID one, whose bit the chown would clear), and a new regular file (its
 * mode set again); none of these marks where the file system does not need them. The
 * export's back end is wrapped so that every fsync, chown and chmod is recorded by
 * inode number (fsyncs can fail), and every syncfs is counted.
 */
#include "backend/posix/posix.h"
#include "unit/vfs/vfs_fixture.h"
#include "vfs/vfs_internal.h"

#define MAX_SYNCS 64

static ino_t synced[MAX_SYNCS];
static int nsynced;
/* Every chown, chmod, sync_written and fsync in order: 'c', 'm', 'w' or 'f', and the
 * inode. */
static char events[MAX_SYNCS];
static ino_t event_ino[MAX_SYNCS];
static int nevents;
static int nsyncfs;
static bool fail_syncs;
static struct backend_ops rec_ops;

static void note_event(char what, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && nevents < MAX_SYNCS) {
		events[nevents] = what;
		event_ino[nevents++] = st.st_ino;
	}
}

static int rec_chown(int fd, uint32_t uid, uint32_t gid)
{
	note_event('c', fd);
	return posix_backend_ops.chown(fd, uid, gid);
}

static int rec_chmod(int fd, uint32_t mode)
{
	note_event('m', fd);
	return posix_backend_ops.chmod(fd, mode);
}

static int rec_sync_written(int fd)
{
	note_event('w', fd);
	return posix_backend_ops.sync_written(fd);
}

static int rec_fsync(int fd, bool datasync)
{
	struct stat st;

	note_event('f', fd);
	if (fstat(fd, &st) == 0 && nsynced < MAX_SYNCS)
		synced[nsynced++] = st.st_ino;
	if (fail_syncs)
		return -EIO;
	return posix_backend_ops.fsync(fd, datasync);
}

static int rec_syncfs(int fd, bool mark)
{
	nsyncfs++;
	if (fail_syncs)
		return -EIO;
	return posix_backend_ops.syncfs(fd, mark);
}

/* The fixture with its export's fsync and syncfs recorded. */
static void setup(struct fx *f)
{
	fx_setup(f);
	rec_ops = posix_backend_ops;
	rec_ops.fsync = rec_fsync;
	rec_ops.syncfs = rec_syncfs;
	rec_ops.chown = rec_chown;
	rec_ops.chmod = rec_chmod;
	rec_ops.sync_written = rec_sync_written;
	f->ve->be = &rec_ops;
	f->ve->mark_to_flush = true; /* as on ext4 without a journal, whatever /var/tmp is */
	nsynced = 0;
	nevents = 0;
	nsyncfs = 0;
	fail_syncs = false;
}

static void forget_syncs(void)
{
	nsynced = 0;
	nevents = 0;
	nsyncfs = 0;
}

static ino_t ino_of(const struct fx *f, const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", f->exp, rel);
	if (lstat(path, &st) != 0)
		return 0;
	return st.st_ino;
}

static bool was_synced(ino_t ino)
{
	for (int i = 0; i < nsynced; i++)
		if (synced[i] == ino)
			return true;
	return false;
}

/* Every fsync of @ino came right after a chown of it. */
static bool dirtied_before_each_sync(ino_t ino)
{
	int syncs = 0;

	for (int i = 0; i < nevents; i++) {
		if (events[i] != 'f' || event_ino[i] != ino)
			continue;
		if (i == 0 || events[i - 1] != 'c' || event_ino[i - 1] != ino)
			return false;
		syncs++;
	}
	return syncs > 0;
}

static bool chowned(ino_t ino)
{
	for (int i = 0; i < nevents; i++)
		if (events[i] == 'c' && event_ino[i] == ino)
			return true;
	return false;
}

/* Where syncs may skip the flush of an unmarked inode (ve->mark_to_flush), a COMMIT
 * after UNSTABLE writes marks the file (a chown to the same owner) before its fsync;
 * not without such writes since the last COMMIT, and not where the file system needs
 * no mark. UNSTABLE writes to a file whose set-user-ID (or set-group-ID and
 * group-executable) bit the chown would clear are made stable at once instead. */
static void test_commit_marks_after_unstable_writes(void)
{
	enum vfs_stable committed;
	struct vfs_node *a;
	struct vfs_wcc wcc;
	struct vfs_fh fh;
	uint32_t written;
	char path[300];
	struct fx f;
	ino_t ino;

	setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "a");
	a = fx_node(&f, &fh);
	ino = ino_of(&f, "a");
	f.ve->mark_to_flush = true;
	forget_syncs();
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 0, "x", 1, VFS_UNSTABLE, &written, &committed, &wcc),
		 0);
	CHECK_EQ(vfs_commit(&fx_root_ctx, a, 0, 0, &wcc), 0);
	CHECK(dirtied_before_each_sync(ino));
	forget_syncs();
	CHECK_EQ(vfs_commit(&fx_root_ctx, a, 0, 0, &wcc), 0); /* nothing written since */
	CHECK(was_synced(ino));
	CHECK(!chowned(ino));
	snprintf(path, sizeof(path), "%s/a", f.exp);
	CHECK_EQ(chmod(path, 04755), 0);
	forget_syncs();
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 1, "y", 1, VFS_UNSTABLE, &written, &committed, &wcc),
		 0);
	/* Root's write keeps the bit, which COMMIT's chown would clear: made stable now. */
	CHECK_EQ(committed, VFS_FILE_SYNC);
	CHECK(nevents == 1 && events[0] == 'w' && event_ino[0] == ino);
	CHECK_EQ(vfs_commit(&fx_root_ctx, a, 0, 0, &wcc), 0);
	CHECK(was_synced(ino));
	CHECK(!chowned(ino)); /* the chown would clear the bit */
	/* Set-group-ID and group-executable: the same. */
	CHECK_EQ(chmod(path, 02750), 0);
	forget_syncs();
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 1, "y", 1, VFS_UNSTABLE, &written, &committed, &wcc),
		 0);
	CHECK_EQ(committed, VFS_FILE_SYNC);
	CHECK_EQ(chmod(path, 02640), 0); /* no group execute: the chown keeps it */
	forget_syncs();
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 1, "y", 1, VFS_UNSTABLE, &written, &committed, &wcc),
		 0);
	CHECK_EQ(committed, VFS_UNSTABLE);
	CHECK_EQ(vfs_commit(&fx_root_ctx, a, 0, 0, &wcc), 0);
	CHECK(dirtied_before_each_sync(ino));
	CHECK_EQ(chmod(path, 0644), 0);
	f.ve->mark_to_flush = false;
	forget_syncs();
	CHECK_EQ(chmod(path, 04755), 0);
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 2, "z", 1, VFS_UNSTABLE, &written, &committed, &wcc),
		 0);
	CHECK_EQ(committed, VFS_UNSTABLE); /* no marks needed: nothing to make stable early */
	CHECK_EQ(vfs_commit(&fx_root_ctx, a, 0, 0, &wcc), 0);
	CHECK(was_synced(ino));
	CHECK(!chowned(ino));
	vfs_node_put(a);
	fx_teardown(&f);
}

/* Stable writes go through sync_written() where the file system needs marks, and
 * through RWF_SYNC/RWF_DSYNC elsewhere; a directory is chowned only where needed. */
static void test_marks_only_where_needed(void)
{
	enum vfs_stable committed;
	struct vfs_node *a;
	struct vfs_wcc wcc;
	struct vfs_fh fh;
	uint32_t written;
	struct fx f;

	setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "a");
	a = fx_node(&f, &fh);
	forget_syncs();
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 0, "x", 1, VFS_FILE_SYNC, &written, &committed, &wcc),
		 0);
	CHECK_EQ(nevents, 1);
	CHECK(events[0] == 'w' && event_ino[0] == ino_of(&f, "a"));
	f.ve->mark_to_flush = false;
	forget_syncs();
	CHECK_EQ(vfs_write(&fx_root_ctx, a, 0, "y", 1, VFS_DATA_SYNC, &written, &committed, &wcc),
		 0);
	CHECK_EQ(nevents, 0); /* one pwritev2(RWF_DSYNC): no fsync, no mark */
	CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, "a", &wcc), 0);
	CHECK(was_synced(ino_of(&f, "")));
	CHECK(!chowned(ino_of(&f, "")));
	vfs_node_put(a);
	fx_teardown(&f);
}

static void test_directory_marked_dirty_before_sync(void)
{
	struct vfs_wcc wcc, wcc2;
	struct vfs_attr at;
	struct vfs_fh fh;
	struct vfs_node *d;
	struct fx f;

	setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "a");
	CHECK(dirtied_before_each_sync(ino_of(&f, "")));
	for (int i = 0; i < nevents; i++) /* a regular file is never chowned */
		CHECK(events[i] != 'c' || event_ino[i] != ino_of(&f, "a"));
	CHECK_EQ(vfs_mkdir(&fx_root_ctx, f.root, "d", &fx_no_sattr, &fh, &at, &wcc), 0);
	d = fx_node(&f, &fh);
	forget_syncs();
	CHECK_EQ(vfs_rename(&fx_root_ctx, f.root, "a", d, "b", &wcc, &wcc2), 0);
	CHECK(dirtied_before_each_sync(ino_of(&f, "")));
	CHECK(dirtied_before_each_sync(ino_of(&f, "d")));
	forget_syncs();
	CHECK_EQ(vfs_remove(&fx_root_ctx, d, "b", &wcc), 0);
	CHECK(dirtied_before_each_sync(ino_of(&f, "d")));
	vfs_node_put(d);
	fx_teardown(&f);
}

static void test_creation_syncs_object_and_directory(void)
{
	struct vfs_attr a;
	struct vfs_wcc wcc;
	struct vfs_fh fh;
	struct fx f;

	setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "a");
	CHECK(was_synced(ino_of(&f, "a")));
	CHECK(was_synced(ino_of(&f, "")));
	forget_syncs();
	CHECK_EQ(vfs_mkdir(&fx_root_ctx, f.root, "d", &fx_no_sattr, &fh, &a, &wcc), 0);
	CHECK(was_synced(ino_of(&f, "d")));
	CHECK(was_synced(ino_of(&f, "")));
	CHECK_EQ(nsyncfs, 0); /* what can be fsynced is never synced the costly way */
	forget_syncs();
	CHECK_EQ(vfs_symlink(&fx_root_ctx, f.root, "s", "a", &fx_no_sattr, &fh, &a, &wcc), 0);
	CHECK(was_synced(ino_of(&f, "")));
	CHECK_EQ(nsyncfs, 1); /* the symlink's own inode: no fsync can reach it */
	forget_syncs();
	CHECK_EQ(vfs_mknod(&fx_root_ctx, f.root, "p", VFS_FIFO, &fx_no_sattr, 0, 0, &fh, &a, &wcc),
		 0);
	CHECK(was_synced(ino_of(&f, "")));
	CHECK(!was_synced(ino_of(&f, "p"))); /* never opened: that could block */
	CHECK_EQ(nsyncfs, 1);
	fx_teardown(&f);
}

static void test_changes_sync_what_they_changed(void)
{
	struct vfs_sattr sa = {.set_mode = true, .mode = 0600};
	struct vfs_wcc wcc, wcc2;
	struct vfs_node *a, *d;
	struct vfs_attr at;
	struct vfs_fh fh;
	char path[300];
	bool av;
	struct fx f;

	setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "a");
	a = fx_node(&f, &fh);
	CHECK_EQ(vfs_mkdir(&fx_root_ctx, f.root, "d", &fx_no_sattr, &fh, &at, &wcc), 0);
	d = fx_node(&f, &fh);

	forget_syncs();
	CHECK_EQ(vfs_setattr(&fx_root_ctx, a, &sa, NULL, &wcc), 0);
	CHECK(was_synced(ino_of(&f, "a")));
	forget_syncs();
	CHECK_EQ(vfs_link(&fx_root_ctx, a, d, "l", &at, &av, &wcc), 0);
	CHECK(was_synced(ino_of(&f, "a")));
	CHECK(dirtied_before_each_sync(ino_of(&f, "a"))); /* its link count */
	CHECK(was_synced(ino_of(&f, "d")));
	/* A set-user-ID file keeps its bit: not marked (the chown would clear it). */
	snprintf(path, sizeof(path), "%s/a", f.exp);
	CHECK_EQ(chmod(path, 04755), 0);
	forget_syncs();
	CHECK_EQ(vfs_link(&fx_root_ctx, a, d, "l2", &at, &av, &wcc), 0);
	CHECK(was_synced(ino_of(&f, "a")));
	CHECK(!chowned(ino_of(&f, "a")));
	CHECK_EQ(at.mode, 04755);
	CHECK_EQ(vfs_remove(&fx_root_ctx, d, "l2", &wcc), 0);
	CHECK_EQ(chmod(path, 0600), 0);
	f.ve->mark_to_flush = false; /* nor where no marks are needed */
	forget_syncs();
	CHECK_EQ(vfs_link(&fx_root_ctx, a, d, "l2", &at, &av, &wcc), 0);
	CHECK(!chowned(ino_of(&f, "a")));
	CHECK_EQ(vfs_remove(&fx_root_ctx, d, "l2", &wcc), 0);
	f.ve->mark_to_flush = true;
	forget_syncs();
	CHECK_EQ(vfs_rename(&fx_root_ctx, f.root, "a", d, "b", &wcc, &wcc2), 0);
	CHECK(was_synced(ino_of(&f, "")));
	CHECK(was_synced(ino_of(&f, "d")));
	CHECK_EQ(nsyncfs, 0);
	forget_syncs();
	CHECK_EQ(vfs_remove(&fx_root_ctx, d, "l", &wcc), 0);
	CHECK(was_synced(ino_of(&f, "d")));
	forget_syncs();
	CHECK_EQ(vfs_remove(&fx_root_ctx, d, "b", &wcc), 0);
	vfs_node_put(a);
	vfs_node_put(d);
	CHECK_EQ(vfs_rmdir(&fx_root_ctx, f.root, "d", &wcc), 0);
	CHECK(was_synced(ino_of(&f, "")));
	fx_teardown(&f);
}

/* A directory moved to another parent has a new "..": it is synced itself. */
static void test_moved_directory_is_synced(void)
{
	struct vfs_wcc wcc, wcc2;
	struct vfs_node *d;
	struct vfs_attr at;
	struct vfs_fh fh;
	struct fx f;

	setup(&f);
	CHECK_EQ(vfs_mkdir(&fx_root_ctx, f.root, "d", &fx_no_sattr, &fh, &at, &wcc), 0);
	d = fx_node(&f, &fh);
	CHECK_EQ(vfs_mkdir(&fx_root_ctx, f.root, "m", &fx_no_sattr, &fh, &at, &wcc), 0);
	forget_syncs();
	CHECK_EQ(vfs_rename(&fx_root_ctx, f.root, "m", d, "m2", &wcc, &wcc2), 0);
	CHECK(was_synced(ino_of(&f, "d/m2")));
	CHECK(was_synced(ino_of(&f, "d")));
	CHECK(was_synced(ino_of(&f, "")));
	/* Within one directory, ".." stays: only the directory is synced. */
	forget_syncs();
	CHECK_EQ(vfs_rename(&fx_root_ctx, d, "m2", d, "m3", &wcc, &wcc2), 0);
	CHECK(!was_synced(ino_of(&f, "d/m3")));
	CHECK(was_synced(ino_of(&f, "d")));
	/* A failed rename syncs nothing. */
	forget_syncs();
	CHECK_EQ(vfs_rename(&fx_root_ctx, d, "nope", f.root, "x", &wcc, &wcc2), -ENOENT);
	CHECK_EQ(nsynced, 0);
	vfs_node_put(d);
	fx_teardown(&f);
}

/* SETATTR on a symlink cannot fsync it: the export is synced instead. */
static void test_symlink_setattr_syncs_the_export(void)
{
	struct vfs_sattr sa = {.set_uid = true, .uid = 0};
	struct vfs_node *s;
	struct vfs_attr at;
	struct vfs_wcc wcc;
	struct vfs_fh fh;
	struct fx f;

	setup(&f);
	CHECK_EQ(vfs_symlink(&fx_root_ctx, f.root, "s", "a", &fx_no_sattr, &fh, &at, &wcc), 0);
	s = fx_node(&f, &fh);
	forget_syncs();
	CHECK_EQ(vfs_setattr(&fx_root_ctx, s, &sa, NULL, &wcc), 0);
	CHECK_EQ(nsyncfs, 1);
	fail_syncs = true;
	CHECK_EQ(vfs_setattr(&fx_root_ctx, s, &sa, NULL, &wcc), -EIO);
	fail_syncs = false;
	vfs_node_put(s);
	fx_teardown(&f);
}

static void test_failed_sync_fails_the_call(void)
{
	struct vfs_attr a;
	struct vfs_wcc wcc;
	struct vfs_fh fh;
	struct fx f;

	setup(&f);
	fail_syncs = true;
	CHECK_EQ(vfs_create(&fx_root_ctx, f.root, "a", VFS_CREATE_UNCHECKED, &fx_no_sattr, NULL,
			    &fh, &a, &wcc),
		 -EIO);
	CHECK(wcc.post_valid);
	CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, "a", &wcc), -EIO);
	CHECK_EQ(vfs_mkdir(&fx_root_ctx, f.root, "d", &fx_no_sattr, &fh, &a, &wcc), -EIO);
	fail_syncs = false;
	fx_teardown(&f);
}

static void test_reading_syncs_nothing(void)
{
	struct vfs_attr a, da;
	struct vfs_fh fh, fh2;
	struct vfs_node *n;
	uint32_t got;
	char buf[16];
	bool dv, eof;
	struct fx f;

	setup(&f);
	fh = fx_create(&f, &fx_root_ctx, "a");
	n = fx_node(&f, &fh);
	forget_syncs();
	CHECK_EQ(vfs_lookup(&fx_root_ctx, f.root, "a", false, &fh2, &a, &da, &dv), 0);
	CHECK_EQ(vfs_getattr(n, &a), 0);
	CHECK_EQ(vfs_read(&fx_root_ctx, n, 0, sizeof(buf), false, buf, &got, &eof, &a), 0);
	CHECK_EQ(nsynced, 0);
	vfs_node_put(n);
	fx_teardown(&f);
}

/* A new regular file's mode is set again before its fsync (a mark) where the file
 * system needs marks, and not elsewhere; it is synced either way. */
static void test_new_file_marked_only_where_needed(void)
{
	ino_t a, b;
	int ma = -1, fa = -1;
	struct fx f;

	setup(&f);
	fx_create(&f, &fx_root_ctx, "a");
	a = ino_of(&f, "a");
	for (int i = 0; i < nevents; i++) {
		if (event_ino[i] == a && events[i] == 'm' && ma < 0)
			ma = i;
		if (event_ino[i] == a && events[i] == 'f' && fa < 0)
			fa = i;
	}
	CHECK(ma >= 0 && fa > ma);
	f.ve->mark_to_flush = false;
	forget_syncs();
	fx_create(&f, &fx_root_ctx, "b");
	b = ino_of(&f, "b");
	CHECK(was_synced(b));
	for (int i = 0; i < nevents; i++)
		CHECK(events[i] != 'm' || event_ino[i] != b);
	fx_teardown(&f);
}

TESTS(test_directory_marked_dirty_before_sync, test_commit_marks_after_unstable_writes,
      test_marks_only_where_needed, test_creation_syncs_object_and_directory,
      test_changes_sync_what_they_changed, test_moved_directory_is_synced,
      test_symlink_setattr_syncs_the_export, test_failed_sync_fails_the_call,
      test_reading_syncs_nothing, test_new_file_marked_only_where_needed);
