/*
 * faildisk.c - a disk that fails on demand, for the EIO case of test_faults.sh where the
 * kernel has no device-mapper (and so no "error" target).
 *
 *   faildisk IMAGE FLAG MOUNTPOINT
 *
 * A one-file FUSE file system: MOUNTPOINT/disk is the image file IMAGE, read and written
 * in place, until the file FLAG exists; from then on every read, write and fsync of it
 * fails with EIO. A loop device over MOUNTPOINT/disk is then a block device whose every
 * I/O fails once the test creates FLAG, so a file system on it answers EIO. The file is
 * opened direct_io, so no page cache of this layer hides the failure. IMAGE and FLAG
 * must be absolute paths: faildisk returns once the file system is mounted and keeps
 * serving in the background (from "/") until MOUNTPOINT is unmounted.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int img_fd = -1;
static const char *flag_path;

static int failing(void)
{
	return access(flag_path, F_OK) == 0;
}

static int fd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/disk") != 0)
		return -ENOENT;
	if (fstat(img_fd, st) != 0)
		return -errno;
	st->st_mode = S_IFREG | 0600;
	st->st_nlink = 1;
	return 0;
}

static int fd_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	return 0;
}

static int fd_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") != 0)
		return -ENOENT;
	fi->direct_io = 1;
	return 0;
}

/* One pread or pwrite of the image, whole or failed: the bytes done, or -errno. */
static int image_io(int write, char *buf, size_t size, off_t off)
{
	size_t done = 0;

	if (failing())
		return -EIO;
	while (done < size) {
		ssize_t r = write ? pwrite(img_fd, buf + done, size - done, off + (off_t)done)
				  : pread(img_fd, buf + done, size - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break; /* read past the end of the image */
		done += (size_t)r;
	}
	return (int)done;
}

static int fd_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return image_io(0, buf, size, off);
}

static int fd_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return image_io(1, (char *)buf, size, off);
}

static int fd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	if (failing())
		return -EIO;
	return (datasync ? fdatasync(img_fd) : fsync(img_fd)) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
	.getattr = fd_getattr,
	.readdir = fd_readdir,
	.open = fd_open,
	.read = fd_read,
	.write = fd_write,
	.fsync = fd_fsync,
};

int main(int argc, char **argv)
{
	char *fargv[] = {argv[0], argc == 4 ? argv[3] : NULL, NULL};

	if (argc != 4 || argv[1][0] != '/' || argv[2][0] != '/') {
		fprintf(stderr, "usage: faildisk /abs/IMAGE /abs/FLAG MOUNTPOINT\n");
		return 2;
	}
	flag_path = argv[2];
	img_fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (img_fd < 0) {
		fprintf(stderr, "faildisk: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return fuse_main(2, fargv, &ops, NULL);
}
