/*
 * test_posix.c - unit tests for the posix back-end (src/backend/posix/): per-thread
 * identity with its cache (and the server's moment of capabilities that keeps the
 * caller's groups), name resolution that never leaves the directory or follows
 * a link, handles round trip, a syncfs that ends with a cache flush, chmod of an O_PATH
 * descriptor with and without fchmodat2(). Runs as root in directories made by
 * test_disk_dir().
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/posix/posix.h"
#include "unit/test.h"

static const struct backend_ops *be = &posix_backend_ops;

/* This binary's syncfs(2), fchownat(2), futimens(3) and fsync(2) note the order of
 * their calls ('s', 'c', 't', 'f') and the descriptor, then make the real system calls
 * (futimens fails with futimens_errno instead when that is set). */
static char sync_calls[16];
static int sync_fds[16];
static unsigned nsync_calls;

static void note_sync(char what, int fd)
{
	if (nsync_calls < sizeof(sync_calls) - 1) {
		sync_fds[nsync_calls] = fd;
		sync_calls[nsync_calls++] = what;
	}
}

int syncfs(int fd)
{
	note_sync('s', fd);
	return (int)syscall(SYS_syncfs, fd);
}

int fsync(int fd)
{
	note_sync('f', fd);
	return (int)syscall(SYS_fsync, fd);
}

static int futimens_errno;
static long mtime_nsec_asked;

int futimens(int fd, const struct timespec times[2])
{
	note_sync('t', fd);
	mtime_nsec_asked = times ? times[1].tv_nsec : -1;
	if (futimens_errno) {
		errno = futimens_errno;
		return -1;
	}
	return (int)syscall(SYS_utimensat, fd, NULL, times, 0);
}

int fchownat(int fd, const char *path, uid_t uid, gid_t gid, int flags)
{
	note_sync('c', fd);
	return (int)syscall(SYS_fchownat, fd, path, uid, gid, flags);
}

static void test_identity_cached(void)
{
	struct vfs_cred user = {.uid = 1000, .gid = 1000, .ngroups = 1, .groups = {27}};
	char dir[64], path[128];
	unsigned long before;
	struct stat st;
	int dfd, fd;

	test_disk_dir(dir, sizeof(dir), "shoal-posix");
	CHECK_EQ(chmod(dir, 0777), 0);
	dfd = open(dir, O_PATH | O_DIRECTORY);
	CHECK_EQ(be->set_identity(&user), 0);
	before = posix_identity_switches();
	CHECK_EQ(be->set_identity(&user), 0);
	CHECK_EQ(posix_identity_switches(), before);
	fd = be->create(dfd, "u", 0644, true);
	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_uid, 1000);
	CHECK_EQ(st.st_gid, 1000);
	be->close(fd);
	/* Capabilities are gone while fsuid != 0: no reading a root-only file. */
	CHECK_EQ(be->set_identity(NULL), 0);
	fd = be->create(dfd, "r", 0600, true);
	be->close(fd);
	CHECK_EQ(be->set_identity(&user), 0);
	snprintf(path, sizeof(path), "%s/r", dir);
	CHECK_EQ(open(path, O_RDONLY), -1);
	CHECK_EQ(errno, EACCES);
	CHECK_EQ(be->set_identity(NULL), 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(be->unlink(dfd, "u", false), 0);
	CHECK_EQ(be->unlink(dfd, "r", false), 0);
	close(dfd);
	CHECK_EQ(rmdir(dir), 0);
}

/* Number @k of this thread's line @key in /proc/thread-self/status, or -1 if it has
 * none: on "Uid:" and "Gid:" 0 real, 1 effective, 2 saved, 3 file system; on "Groups:"
 * the supplementary groups in order. */
static long status_id(const char *key, int k)
{
	char line[256], *p, *end;
	long v = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)) != 0)
			continue;
		p = line + strlen(key);
		for (int i = 0; i <= k; i++, p = end) {
			v = strtol(p, &end, 10);
			if (end == p) {
				v = -1;
				break;
			}
		}
	}
	fclose(f);
	return v;
}

/* The server's file-system capabilities for a moment: fsuid 0 alone (a root-only file
 * opens), the caller's fsgid and groups kept, one switch each way; back as the caller,
 * the file is refused again. */
static void test_server_fs_keeps_groups(void)
{
	struct vfs_cred user = {.uid = 1000, .gid = 1000, .ngroups = 1, .groups = {27}};
	char dir[64], path[128];
	unsigned long before;
	int dfd, fd;

	test_disk_dir(dir, sizeof(dir), "shoal-posix");
	CHECK_EQ(chmod(dir, 0755), 0); /* the caller may look in: only the file refuses it */
	dfd = open(dir, O_PATH | O_DIRECTORY);
	CHECK_EQ(be->set_identity(NULL), 0);
	fd = be->create(dfd, "r", 0600, true);
	CHECK(fd >= 0);
	be->close(fd);
	snprintf(path, sizeof(path), "%s/r", dir);
	CHECK_EQ(be->set_identity(&user), 0);
	CHECK_EQ(open(path, O_RDONLY), -1);
	CHECK_EQ(errno, EACCES);
	before = posix_identity_switches();
	CHECK(be->version >= 2);
	CHECK_EQ(be->set_server_fs(), 0);
	CHECK_EQ(be->set_server_fs(), 0);
	CHECK_EQ(posix_identity_switches(), before + 1);
	CHECK_EQ(status_id("Uid:", 3), 0);
	CHECK_EQ(status_id("Gid:", 3), 1000);
	CHECK_EQ(status_id("Groups:", 0), 27);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(be->set_identity(&user), 0);
	CHECK_EQ(posix_identity_switches(), before + 2);
	CHECK_EQ(status_id("Uid:", 3), 1000);
	CHECK_EQ(open(path, O_RDONLY), -1);
	CHECK_EQ(errno, EACCES);
	/* Another identity after the server's moment: a full switch, its own fsgid. */
	user.gid = 2000;
	CHECK_EQ(be->set_server_fs(), 0);
	CHECK_EQ(be->set_identity(&user), 0);
	CHECK_EQ(status_id("Uid:", 3), 1000);
	CHECK_EQ(status_id("Gid:", 3), 2000);
	CHECK_EQ(be->set_identity(NULL), 0);
	CHECK_EQ(status_id("Gid:", 3), 0);
	CHECK_EQ(be->unlink(dfd, "r", false), 0);
	close(dfd);
	CHECK_EQ(rmdir(dir), 0);
}

static void test_resolve_stays_inside(void)
{
	char dir[64];
	struct bk_fh fh;
	struct stat st;
	int dfd, fd, mfd, rfd, mid;

	test_disk_dir(dir, sizeof(dir), "shoal-posix");
	CHECK_EQ(be->set_identity(NULL), 0);
	CHECK_EQ(be->root_open(dir, &mfd, &rfd), 0);
	dfd = rfd;
	CHECK_EQ(be->resolve(dfd, ".."), -EXDEV);
	CHECK_EQ(be->symlink(dfd, "l", "/etc"), 0);
	fd = be->resolve(dfd, "l");
	CHECK(fd >= 0);
	CHECK_EQ(be->stat(fd, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(be->fh_of(fd, "", &fh, &mid), 0);
	be->close(fd);
	fd = be->open_fh(mfd, &fh);
	CHECK(fd >= 0);
	CHECK_EQ(be->stat(fd, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	be->close(fd);
	CHECK_EQ(be->resolve(dfd, "l/passwd") < 0, 1);
	CHECK_EQ(be->unlink(dfd, "l", false), 0);
	be->close(rfd);
	be->close(mfd);
	CHECK_EQ(rmdir(dir), 0);
}

/* resolve_cached() answers only from the dentry cache: a name never looked up (no
 * entry, not even a negative one) is -EAGAIN, not -ENOENT; once a real lookup has found
 * it missing the cache knows, and a name just made is cached. Same limits as resolve(). */
static void test_resolve_cached_only(void)
{
	char dir[64];
	char name[64];
	struct stat st;
	int dfd, fd, mfd, rfd;

	test_disk_dir(dir, sizeof(dir), "shoal-posix");
	CHECK_EQ(be->set_identity(NULL), 0);
	CHECK_EQ(be->root_open(dir, &mfd, &rfd), 0);
	dfd = rfd;
	snprintf(name, sizeof(name), "never-seen-%d", (int)getpid());
	CHECK_EQ(be->resolve_cached(dfd, name), -EAGAIN);
	CHECK_EQ(be->resolve(dfd, name), -ENOENT);
	CHECK_EQ(be->resolve_cached(dfd, name), -ENOENT);
	fd = be->create(dfd, name, 0644, true);
	CHECK(fd >= 0);
	be->close(fd);
	fd = be->resolve_cached(dfd, name);
	CHECK(fd >= 0);
	CHECK_EQ(be->stat(fd, &st), 0);
	CHECK(S_ISREG(st.st_mode));
	be->close(fd);
	CHECK_EQ(be->symlink(dfd, "l", "/etc"), 0);
	fd = be->resolve_cached(dfd, "l");
	CHECK(fd >= 0);
	CHECK_EQ(be->stat(fd, &st), 0);
	CHECK(S_ISLNK(st.st_mode)); /* not followed */
	be->close(fd);
	CHECK(be->resolve_cached(dfd, "l/passwd") < 0);
	CHECK_EQ(be->unlink(dfd, "l", false), 0);
	CHECK_EQ(be->unlink(dfd, name, false), 0);
	be->close(rfd);
	be->close(mfd);
	CHECK_EQ(rmdir(dir), 0);
}

/* Linux's syncfs flushes the disk's cache before it writes the last metadata blocks of
 * ext2 or ext4 without a journal: the back end's syncfs must flush once more after it,
 * through an fsync of the same file system, of an inode marked dirty by a chown first
 * where asked (ext4 without a journal skips the flush of a clean one on older kernels);
 * not marked elsewhere. */
static void test_syncfs_ends_with_flush(void)
{
	char dir[64];
	int mfd, rfd;

	test_disk_dir(dir, sizeof(dir), "shoal-posix");
	CHECK_EQ(be->root_open(dir, &mfd, &rfd), 0);
	memset(sync_calls, 0, sizeof(sync_calls));
	nsync_calls = 0;
	CHECK_EQ(be->syncfs(mfd, true), 0);
	CHECK(strcmp(sync_calls, "scf") == 0);
	CHECK_EQ(sync_fds[0], mfd);
	CHECK_EQ(sync_fds[1], mfd);
	CHECK_EQ(sync_fds[2], mfd);
	nsync_calls = 0;
	memset(sync_calls, 0, sizeof(sync_calls));
	CHECK_EQ(be->syncfs(mfd, false), 0);
	CHECK(strcmp(sync_calls, "sf") == 0);
	/* an error of the syncfs is returned, with no flush after it */
	nsync_calls = 0;
	memset(sync_calls, 0, sizeof(sync_calls));
	CHECK_EQ(be->syncfs(-1, true), -EBADF);
	CHECK(strcmp(sync_calls, "s") == 0);
	be->close(rfd);
	be->close(mfd);
	CHECK_EQ(rmdir(dir), 0);
}

/* sync_written() marks the inode dirty (mtime now) before its fsync: ext4 without a
 * journal skips the flush of a clean inode on older kernels. A caller who may not set
 * the mtime still gets the fsync; any other failure fails the call. */
static void test_sync_written_marks_then_syncs(void)
{
	char path[] = "/tmp/shoal-posix-XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	memset(sync_calls, 0, sizeof(sync_calls));
	nsync_calls = 0;
	CHECK_EQ(be->pwrite(fd, "abcd", 4, 0, BK_SYNC_NONE), 4);
	CHECK(strcmp(sync_calls, "") == 0);
	CHECK_EQ(be->sync_written(fd), 0);
	CHECK(strcmp(sync_calls, "tf") == 0);
	CHECK_EQ(mtime_nsec_asked, UTIME_NOW);
	CHECK_EQ(sync_fds[0], fd);
	CHECK_EQ(sync_fds[1], fd);
	memset(sync_calls, 0, sizeof(sync_calls));
	nsync_calls = 0;
	futimens_errno = EPERM;
	CHECK_EQ(be->sync_written(fd), 0);
	CHECK(strcmp(sync_calls, "tf") == 0);
	futimens_errno = EIO;
	CHECK_EQ(be->sync_written(fd), -EIO);
	futimens_errno = 0;
	close(fd);
	CHECK_EQ(unlink(path), 0);
}

/* In a child whose seccomp filter answers fchmodat2() (452) with @err, as a kernel
 * before 6.6 (ENOSYS) or a filter that does not know the call (EPERM) would: chmod of
 * an O_PATH descriptor must still set the mode, twice (the second time after the
 * back end has learnt what the kernel answered). Exits 0 if so. */
static void chmod_without_fchmodat2(const char *path, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 452, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	struct stat st;
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		_exit(2);
	if (syscall(452, AT_FDCWD, path, 0600, 0) != -1 || errno != err)
		_exit(3); /* the filter is not in force */
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		_exit(4);
	for (unsigned mode = 0640; mode <= 0644; mode += 4) {
		if (be->chmod(fd, mode) != 0 || fstat(fd, &st) != 0 || (st.st_mode & 07777) != mode)
			_exit(5);
	}
	_exit(0);
}

/* chmod takes an O_PATH descriptor, through fchmodat2() where the kernel has it and the
 * /proc path where it does not, and reports a real error either way. */
static void test_chmod_of_path_descriptor(void)
{
	char path[] = "/tmp/shoal-posix-XXXXXX";
	const int errs[] = {ENOSYS, EPERM};
	struct stat st;
	int fd = mkstemp(path), pfd, status;
	pid_t pid;

	CHECK(fd >= 0);
	close(fd);
	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	CHECK(pfd >= 0);
	CHECK_EQ(be->chmod(pfd, 01751), 0);
	CHECK_EQ(fstat(pfd, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 01751u);
	CHECK_EQ(be->chmod(-1, 0644), -EBADF);
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0)
			chmod_without_fchmodat2(path, errs[i]);
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		CHECK(WIFEXITED(status));
		CHECK_EQ(WEXITSTATUS(status), 0);
	}
	close(pfd);
	CHECK_EQ(unlink(path), 0);
}

TESTS(test_identity_cached, test_server_fs_keeps_groups, test_resolve_stays_inside,
      test_resolve_cached_only, test_syncfs_ends_with_flush, test_sync_written_marks_then_syncs,
      test_chmod_of_path_descriptor);
