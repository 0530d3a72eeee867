/*
 * wlog_flush.c - what the log does where its own O_DSYNC writes may not reach stable
 * storage.
 *
 * On ext4 without a journal, Linux before "ext4: fix fsync(2) for nojournal mode"
 * (Debian 12's 6.1 among them) ends an O_DSYNC write (and any fsync) without the disk's
 * cache flush when the file's inode is not marked dirty, which an overwrite of the
 * preallocated log never does for a datasync: the records stayed in the disk's volatile
 * cache (tests/kernel/power.sh, phase log-nojournal, lost acknowledged bytes in every
 * run). There the log is opened without O_DSYNC and each write is followed by setting
 * the file's mtime to now, which marks the inode, and an fsync, which then writes it and
 * flushes: one more small write per batch. A journal, or a file system of another
 * kind, needs none of that (core/fsflush.c tells which).
 */
#include "wlog/wlog_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int wlog_mark_sync(struct wlog *w)
{
	const struct timespec now[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_NOW}};

	if (!w->mark)
		return 0;
	if (futimens(w->fd, now) != 0 || fsync(w->fd) != 0)
		return -errno;
	return 0;
}
