/*
 * fsflush.c - whether a file system's syncs flush the disk's write cache on their own.
 *
 * On ext4 without a journal, Linux before "ext4: fix fsync(2) for nojournal mode"
 * (Debian 12's 6.1 among them) ends an fsync, or an O_DSYNC write, without the disk's
 * cache flush when the file's inode is not marked dirty for the VFS: an overwrite
 * synced with fdatasync, a change of a directory's entries, a write in the same clock
 * tick as the last one. Callers that must reach stable storage there mark the inode
 * first (a new mtime, a chown to the same owner), and they ask here whether they must.
 * The fix (upstream commit 1308255bbf84, March 2026) is in Linux 7.0 and was
 * backported to some stable series (fsflush.h lists them; the README's Durability
 * section names them for users); a kernel of another series may have it under any
 * number, or not at all, so only those are taken to have it: every other kernel is
 * marked for (the safe side).
 */
#include "core/fsflush.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

int fs_sysfs_nojournal(dev_t dev, const char *sysfs)
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

/* The decimal number at *@s, moving @s past it; -1 if there is none (or it is huge). */
static long release_number(const char **s)
{
	long n = 0;

	if (**s < '0' || **s > '9')
		return -1;
	for (; **s >= '0' && **s <= '9'; (*s)++) {
		if (n > 100000)
			return -1;
		n = n * 10 + (**s - '0');
	}
	return n;
}

bool fs_release_fixes_nojournal_fsync(const char *release)
{
	const char *s = release;
	long major, minor, patch = 0;

	major = release_number(&s);
	if (major < 0 || *s++ != '.')
		return false;
	minor = release_number(&s);
	if (minor < 0)
		return false;
	if (*s == '.') {
		s++;
		patch = release_number(&s);
		if (patch < 0)
			return false;
	}
	if (major > 7 || (major == 7 && minor > 0))
		return true;
	if (major == 7) /* 7.0's release candidates came before the fix: 7.0.0-rcN */
		return strncmp(s, "-rc", 3) != 0;
	if (major != 6)
		return false;
	/* the stable releases that took it: keep fsflush.h and the README in step */
	return (minor == 6 && patch >= 131) || (minor == 12 && patch >= 80) ||
	       (minor == 18 && patch >= 21);
}

bool fs_flush_needs_mark(int fd)
{
	struct statfs sf;
	struct stat st;
	struct utsname u;

	if (fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0)
		return true;		   /* cannot tell: the safe side */
	if (sf.f_type != EXT4_SUPER_MAGIC) /* also ext2's and ext3's */
		return false;
	if (uname(&u) == 0 && fs_release_fixes_nojournal_fsync(u.release))
		return false;
	return fs_sysfs_nojournal(st.st_dev, "/sys") != 0;
}
