/*
 * fsflush.h - whether a file system's syncs flush the disk's write cache on their own
 * (fsflush.c).
 */
#ifndef SHOAL_CORE_FSFLUSH_H
#define SHOAL_CORE_FSFLUSH_H

#include <stdbool.h>
#include <sys/types.h>

/* Whether the ext2/3/4 file system on block device @dev, as sysfs at @sysfs tells, is
 * an ext4 without a journal: 1, 0 (a journal, or the ext2/ext3 driver), -1 (sysfs does
 * not say). */
int fs_sysfs_nojournal(dev_t dev, const char *sysfs);

/* Whether the Linux release @release (uname -r: "6.18.44-...", "7.0.0-rc3") has "ext4:
 * fix fsync(2) for nojournal mode": 7.0 (not its release candidates) and later, and the
 * stable releases that took it: 6.6.131, 6.12.80, 6.18.21 and later in those series.
 * False for any other, which may or may not have it. */
bool fs_release_fixes_nojournal_fsync(const char *release);

/* Whether a sync of a file on @fd's file system may end without a cache flush unless
 * its inode is marked dirty first: on ext4 without a journal, or on an ext2/3/4 file
 * system whose journal cannot be told (the safe side), unless the running kernel has
 * the fix (fs_release_fixes_nojournal_fsync()). */
bool fs_flush_needs_mark(int fd);

#endif
