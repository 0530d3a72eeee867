/*
 * wlog_flush.c - whether the log's own O_DSYNC writes reach stable storage, and what
 * the log does where they may not.
 *
 * On ext4 without a journal, Linux before "ext4: fix fsync(2) for nojournal mode"
 * (Debian 12's 6.1 among them) ends an O_DSYNC write (and any fsync) without the disk's
 * cache flush when the file's inode is not marked dirty, which an overwrite of the
 * preallocated log never does for a datasync: the records stayed in the disk's volatile
 * cache (tests/kernel/power.sh, phase log-nojournal, lost acknowledged bytes in every
 * run). There the log is opened without O_DSYNC and each write is followed by setting
 * the file's mtime to now, which marks the inode, and an fsync, which then writes it and
 * flushes: one more small write per batch. A journal, or a file system of another
 * kind, needs none of that.
 */
#include "wlog/wlog_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

int wlog_sysfs_nojournal(dev_t dev, const char *sysfs)
{
	char link[PATH_MAX], real[PATH_MAX], attr[PATH_MAX + 64], buf[32] = {0};
	const char *name;
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major(dev), minor(dev));
	if (!realpath(link, real))
		return -1; /* no sysfs to ask */
	name = strrchr(real, '/');
	name = name ? name + 1 : real;
	snprintf(attr, sizeof(attr), "%s/fs/ext4/%s/journal_task", sysfs, name);
	fd = open(attr, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* No ext4 entry for a device that has one of its file systems: the ext2 (or
		 * ext3) driver has it, whose fsync always ends with a flush. */
		snprintf(attr, sizeof(attr), "%s/fs/ext4", sysfs);
		return access(attr, F_OK) == 0 ? 0 : -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	return strncmp(buf, "<none>", 6) == 0;
}

bool wlog_needs_mark(int fd)
{
	struct statfs sf;
	struct stat st;

	if (fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0)
		return true;		   /* cannot tell: the safe side */
	if (sf.f_type != EXT4_SUPER_MAGIC) /* also ext2's and ext3's */
		return false;
	return wlog_sysfs_nojournal(st.st_dev, "/sys") != 0;
}

int wlog_mark_sync(struct wlog *w)
{
	const struct timespec now[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_NOW}};

	if (!w->mark)
		return 0;
	if (futimens(w->fd, now) != 0 || fsync(w->fd) != 0)
		return -errno;
	return 0;
}
