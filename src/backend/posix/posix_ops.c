/*
 * posix_ops.c - the posix back-end's file operations: one Linux syscall each.
 *
 * Object references are O_PATH descriptors. Names are resolved with openat2() and
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV plus O_NOFOLLOW, so no
 * name can leave the directory it is looked up in, cross a mount or follow a link.
 * Calls that O_PATH descriptors cannot serve directly (link, reopen for I/O, chmod
 * before Linux 6.6) go through /proc/self/fd/N, which the kernel allows for the
 * process itself whatever the thread's fsuid.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backend/posix/posix.h"

#define PROC_FD_PATH_MAX 32

static void proc_fd_path(char buf[PROC_FD_PATH_MAX], int fd)
{
	snprintf(buf, PROC_FD_PATH_MAX, "/proc/self/fd/%d", fd);
}

static int ret_fd(int fd)
{
	return fd < 0 ? -errno : fd;
}

static int ret0(int rc)
{
	return rc < 0 ? -errno : 0;
}

static int posix_root_open(const char *path, int *mount_fd, int *root_fd)
{
	/* open_by_handle_at() refuses an O_PATH mount descriptor, hence O_RDONLY. */
	int mfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rfd;

	if (mfd < 0)
		return -errno;
	rfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0) {
		int err = -errno;

		close(mfd);
		return err;
	}
	*mount_fd = mfd;
	*root_fd = rfd;
	return 0;
}

static int posix_fh_of(int fd, const char *name, struct bk_fh *fh, int *mount_id)
{
	union {
		struct file_handle h;
		/* Only sizes the union: room for the handle bytes after the header. */
		// cppcheck-suppress unusedStructMember
		uint8_t space[sizeof(struct file_handle) + BK_FH_MAX];
	} u;
	int mid;

	u.h.handle_bytes = BK_FH_MAX;
	if (name_to_handle_at(fd, name, &u.h, &mid, name[0] ? 0 : AT_EMPTY_PATH) != 0)
		return errno == EOVERFLOW ? -EOPNOTSUPP : -errno;
	fh->type = (uint32_t)u.h.handle_type;
	fh->len = (uint8_t)u.h.handle_bytes;
	memcpy(fh->data, u.h.f_handle, u.h.handle_bytes);
	if (mount_id)
		*mount_id = mid;
	return 0;
}

static int posix_open_fh(int mount_fd, const struct bk_fh *fh)
{
	union {
		struct file_handle h;
		/* Only sizes the union: room for the handle bytes after the header. */
		// cppcheck-suppress unusedStructMember
		uint8_t space[sizeof(struct file_handle) + BK_FH_MAX];
	} u;

	if (fh->len > BK_FH_MAX)
		return -EINVAL;
	u.h.handle_bytes = fh->len;
	u.h.handle_type = (int)fh->type;
	memcpy(u.h.f_handle, fh->data, fh->len);
	return ret_fd(open_by_handle_at(mount_fd, &u.h, O_PATH | O_CLOEXEC));
}

static int posix_open_data(int fd, bool *writable)
{
	char path[PROC_FD_PATH_MAX];
	int dfd;

	proc_fd_path(path, fd);
	dfd = open(path, O_RDWR | O_CLOEXEC);
	if (dfd >= 0) {
		*writable = true;
		return dfd;
	}
	if (errno != EACCES && errno != EROFS && errno != EISDIR && errno != ETXTBSY &&
	    errno != EPERM)
		return -errno;
	*writable = false;
	return ret_fd(open(path, O_RDONLY | O_CLOEXEC));
}

static int resolve_how(int dirfd, const char *name, uint64_t extra)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV | extra,
	};

	return ret_fd((int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how)));
}

static int posix_resolve(int dirfd, const char *name)
{
	return resolve_how(dirfd, name, 0);
}

/* RESOLVE_CACHED: the walk must complete from the dentry cache. A kernel before 5.12
 * does not know the flag (EINVAL): then no walk is known to need no disk (-EAGAIN), and
 * the caller's full walk gives the real answer. */
static int posix_resolve_cached(int dirfd, const char *name)
{
	int fd = resolve_how(dirfd, name, RESOLVE_CACHED);

	return fd == -EINVAL ? -EAGAIN : fd;
}

static int posix_parent(int dirfd)
{
	return ret_fd(openat(dirfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
}

static int posix_stat(int fd, struct stat *st)
{
	return ret0(fstat(fd, st));
}

static void posix_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

static ssize_t posix_pread(int fd, void *buf, size_t n, uint64_t off, bool nowait)
{
	struct iovec iov = {.iov_base = buf, .iov_len = n};
	ssize_t r = nowait ? preadv2(fd, &iov, 1, (off_t)off, RWF_NOWAIT)
			   : pread(fd, buf, n, (off_t)off);

	return r < 0 ? -errno : r;
}

/*
 * Make what was written through @fd stable where a bare fsync (or RWF_SYNC/RWF_DSYNC)
 * may not (core/fsflush.c): Linux before "ext4: fix fsync(2) for nojournal mode"
 * (Debian 12's 6.1 among them), on ext4 without a journal, skips the disk's cache flush
 * when the inode is not marked dirty, which an overwrite leaves it (fdatasync never
 * counts a new mtime; fsync does, unless the write came within the clock tick of the
 * last one), so the data stayed in the disk's volatile cache (tests/kernel/power.sh,
 * phase data-nojournal, lost acknowledged bytes). Setting the mtime to now, as the write
 * itself just did, marks the inode; the fsync then writes it and flushes. If the caller
 * may not set it (neither owner nor writer: a write allowed by other means), the fsync
 * goes ahead alone.
 */
static int posix_sync_written(int fd)
{
	const struct timespec now[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_NOW}};

	if (futimens(fd, now) != 0 && errno != EPERM && errno != EACCES)
		return -errno;
	return ret0(fsync(fd));
}

static ssize_t posix_pwrite(int fd, const void *buf, size_t n, uint64_t off, enum bk_sync sync)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = n};
	int flags = sync == BK_SYNC_FILE ? RWF_SYNC : sync == BK_SYNC_DATA ? RWF_DSYNC : 0;
	ssize_t r = pwritev2(fd, &iov, 1, (off_t)off, flags);

	return r < 0 ? -errno : r;
}

static int posix_fsync(int fd, bool datasync)
{
	return ret0(datasync ? fdatasync(fd) : fsync(fd));
}

static int posix_chown(int fd, uint32_t uid, uint32_t gid)
{
	return ret0(fchownat(fd, "", (uid_t)uid, (gid_t)gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
}

/*
 * syncfs(2) alone is not enough where a file system leaves its metadata to the block
 * device's cache (ext2, ext4 without a journal): Linux's sync_filesystem() flushes the
 * disk's write cache in ->sync_fs() and only then writes and waits for the metadata
 * blocks still dirty or in flight, which a power cut can then take from a disk with a
 * volatile cache. An fsync of @fd (a directory of the file system) ends with a cache
 * flush there and makes them stable too, provided the directory's inode is marked
 * dirty: ext4 without a journal skips the flush of a clean inode on Linux before "ext4:
 * fix fsync(2) for nojournal mode" (see vfs_node_sync()). Where @mark says so, a chown
 * to the same owner and group marks it, changing only its ctime.
 */
static int posix_syncfs(int fd, bool mark)
{
	int err = ret0(syncfs(fd));

	if (!err && mark)
		err = posix_chown(fd, (uint32_t)-1, (uint32_t)-1);
	return err ? err : ret0(fsync(fd));
}

static int posix_create(int dirfd, const char *name, uint32_t mode, bool excl)
{
	int flags = O_CREAT | O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (excl ? O_EXCL : 0);

	return ret_fd(openat(dirfd, name, flags, (mode_t)(mode & 07777)));
}

static int posix_mkdir(int dirfd, const char *name, uint32_t mode)
{
	return ret0(mkdirat(dirfd, name, (mode_t)(mode & 07777)));
}

static int posix_symlink(int dirfd, const char *name, const char *target)
{
	return ret0(symlinkat(target, dirfd, name));
}

static int posix_mknod(int dirfd, const char *name, uint32_t mode, uint32_t major, uint32_t minor)
{
	return ret0(mknodat(dirfd, name, (mode_t)mode, makedev(major, minor)));
}

static int posix_unlink(int dirfd, const char *name, bool dir)
{
	return ret0(unlinkat(dirfd, name, dir ? AT_REMOVEDIR : 0));
}

static int posix_rename(int from_dirfd, const char *from, int to_dirfd, const char *to)
{
	return ret0(renameat(from_dirfd, from, to_dirfd, to));
}

static int posix_link(int fd, int dirfd, const char *name)
{
	char path[PROC_FD_PATH_MAX];

	/* linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH, which a non-zero fsuid drops. */
	proc_fd_path(path, fd);
	return ret0(linkat(AT_FDCWD, path, dirfd, name, AT_SYMLINK_FOLLOW));
}

static ssize_t posix_readlink(int fd, char *buf, size_t cap)
{
	ssize_t r = readlinkat(fd, "", buf, cap);

	return r < 0 ? -errno : r;
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6; the same number on every architecture but alpha */
#endif

/* Set once fchmodat2() with AT_EMPTY_PATH proved missing (ENOSYS, or EINVAL from a
 * kernel that knows the call but not the flag). */
static atomic_bool no_fchmodat2;

/*
 * fchmod() refuses an O_PATH descriptor. fchmodat2() (Linux 6.6) takes one with an
 * empty path, without the walk through /proc that chmod() of /proc/self/fd/N costs
 * (a sixth of a SETATTR's CPU in its pool thread, measured); older kernels take the
 * /proc path. The permission check is the same either way: the thread's fsuid must
 * own the file. EPERM is also what a seccomp filter that does not know the call may
 * answer, so it is asked again the old way, which gives a real refusal again.
 */
static int posix_chmod(int fd, uint32_t mode)
{
	char path[PROC_FD_PATH_MAX];

	if (!atomic_load_explicit(&no_fchmodat2, memory_order_relaxed)) {
		if (syscall(SYS_fchmodat2, fd, "", (mode_t)(mode & 07777), AT_EMPTY_PATH) == 0)
			return 0;
		if (errno == ENOSYS || errno == EINVAL)
			atomic_store_explicit(&no_fchmodat2, true, memory_order_relaxed);
		else if (errno != EPERM)
			return -errno;
	}
	proc_fd_path(path, fd);
	return ret0(chmod(path, (mode_t)(mode & 07777)));
}

static int posix_truncate(int datafd, uint64_t size)
{
	return ret0(ftruncate(datafd, (off_t)size));
}

static int posix_utimes(int fd, const struct timespec ts[2])
{
	return ret0(utimensat(fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
}

static int posix_opendir(int fd)
{
	return ret_fd(openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

static int posix_seekdir(int dfd, uint64_t cookie)
{
	if (cookie > (uint64_t)INT64_MAX)
		return -EINVAL;
	return lseek(dfd, (off_t)cookie, SEEK_SET) < 0 ? -errno : 0;
}

static ssize_t posix_getdents(int dfd, void *buf, size_t cap)
{
	ssize_t r = syscall(SYS_getdents64, dfd, buf, cap);

	return r < 0 ? -errno : r;
}

static int posix_stat_at(int dirfd, const char *name, struct stat *st)
{
	return ret0(fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW));
}

static struct timespec ts_of(const struct statx_timestamp *t)
{
	return (struct timespec){.tv_sec = t->tv_sec, .tv_nsec = t->tv_nsec};
}

static int posix_stat_at_mnt(int dirfd, const char *name, struct stat *st, int *mount_id)
{
	struct statx sx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_MNT_ID, &sx) != 0)
		return -errno;
	/* A file system that cannot give every basic field (none that holds an export)
	 * is looked up the longer way. */
	if ((sx.stx_mask & STATX_BASIC_STATS) != STATX_BASIC_STATS)
		return -EOPNOTSUPP;
	*st = (struct stat){
		.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor),
		.st_ino = sx.stx_ino,
		.st_mode = sx.stx_mode,
		.st_nlink = sx.stx_nlink,
		.st_uid = sx.stx_uid,
		.st_gid = sx.stx_gid,
		.st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor),
		.st_size = (off_t)sx.stx_size,
		.st_blksize = (blksize_t)sx.stx_blksize,
		.st_blocks = (blkcnt_t)sx.stx_blocks,
		.st_atim = ts_of(&sx.stx_atime),
		.st_mtim = ts_of(&sx.stx_mtime),
		.st_ctim = ts_of(&sx.stx_ctime),
	};
	*mount_id = (sx.stx_mask & STATX_MNT_ID) ? (int)sx.stx_mnt_id : -1;
	return 0;
}

static int posix_statfs(int fd, struct statvfs *sv)
{
	return ret0(fstatvfs(fd, sv));
}

static long posix_link_max(int fd)
{
	return fpathconf(fd, _PC_LINK_MAX);
}

const struct backend_ops posix_backend_ops = {
	.version = BACKEND_VERSION,
	.set_identity = posix_set_identity,
	.root_open = posix_root_open,
	.fh_of = posix_fh_of,
	.open_fh = posix_open_fh,
	.open_data = posix_open_data,
	.resolve = posix_resolve,
	.parent = posix_parent,
	.stat = posix_stat,
	.close = posix_close,
	.pread = posix_pread,
	.pwrite = posix_pwrite,
	.fsync = posix_fsync,
	.sync_written = posix_sync_written,
	.create = posix_create,
	.mkdir = posix_mkdir,
	.symlink = posix_symlink,
	.mknod = posix_mknod,
	.unlink = posix_unlink,
	.rename = posix_rename,
	.link = posix_link,
	.readlink = posix_readlink,
	.chmod = posix_chmod,
	.chown = posix_chown,
	.truncate = posix_truncate,
	.utimes = posix_utimes,
	.opendir = posix_opendir,
	.seekdir = posix_seekdir,
	.getdents = posix_getdents,
	.stat_at = posix_stat_at,
	.statfs = posix_statfs,
	.link_max = posix_link_max,
	.syncfs = posix_syncfs,
	.resolve_cached = posix_resolve_cached,
	.set_server_fs = posix_set_server_fs,
	.stat_at_mnt = posix_stat_at_mnt,
};
