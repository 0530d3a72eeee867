/*
 * test_fsflush.c - whether an ext4 is without a journal, as sysfs tells
 * (src/core/fsflush.c): against a sysfs tree made here, in a mkdtemp() directory under
 * /tmp, and against the file system of /tmp itself (an answer, whatever it is).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/fsflush.h"
#include "unit/test.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/shoal-fsflush.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
}

static void teardown(void)
{
	rmdir(dir);
}

/* mkdir -p @where. */
static int mkdirs(const char *where)
{
	char p[256];

	snprintf(p, sizeof(p), "%s", where);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Whether an ext4 is without a journal, as a sysfs tree made here tells. */
static void test_sysfs_nojournal(void)
{
	char p[256], q[256];
	dev_t dev = makedev(250, 7);
	FILE *f;

	setup();
	snprintf(p, sizeof(p), "%s/sys/devices/blk/vdq", dir);
	CHECK_EQ(mkdirs(p), 0);
	snprintf(p, sizeof(p), "%s/sys/dev/block", dir);
	CHECK_EQ(mkdirs(p), 0);
	snprintf(p, sizeof(p), "%s/sys/fs/ext4/vdq", dir);
	CHECK_EQ(mkdirs(p), 0);
	snprintf(p, sizeof(p), "%s/sys", dir);
	CHECK_EQ(fs_sysfs_nojournal(dev, p), -1); /* no link for the device */
	snprintf(q, sizeof(q), "%s/sys/dev/block/250:7", dir);
	CHECK_EQ(symlink("../../devices/blk/vdq", q), 0);
	snprintf(q, sizeof(q), "%s/sys/fs/ext4/vdq/journal_task", dir);
	f = fopen(q, "w");
	CHECK(f != NULL && fputs("<none>\n", f) >= 0 && fclose(f) == 0);
	CHECK_EQ(fs_sysfs_nojournal(dev, p), 1);
	f = fopen(q, "w");
	CHECK(f != NULL && fputs("1234\n", f) >= 0 && fclose(f) == 0);
	CHECK_EQ(fs_sysfs_nojournal(dev, p), 0);
	CHECK_EQ(unlink(q), 0); /* the ext2 driver's: no ext4 entry */
	snprintf(q, sizeof(q), "%s/sys/fs/ext4/vdq", dir);
	CHECK_EQ(rmdir(q), 0);
	CHECK_EQ(fs_sysfs_nojournal(dev, p), 0);
	snprintf(q, sizeof(q), "%s/sys/fs/ext4", dir);
	CHECK_EQ(rmdir(q), 0); /* no ext4 in sysfs at all: cannot tell */
	CHECK_EQ(fs_sysfs_nojournal(dev, p), -1);
	snprintf(q, sizeof(q), "rm -r %s/sys", dir);
	CHECK_EQ(system(q), 0);
	teardown();
}

/* A file system that is not ext2/3/4 (the /proc of this process) needs no mark. */
static void test_other_fs_needs_no_mark(void)
{
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(!fs_flush_needs_mark(fd));
	close(fd);
	CHECK(fs_flush_needs_mark(-1)); /* cannot tell: the safe side */
}

/* Which kernel releases are taken to have "ext4: fix fsync(2) for nojournal mode". */
static void test_release_fix(void)
{
	static const char *const fixed[] = {
		"6.18.21",
		"6.12.80",
		"6.12.118+deb12-amd64",
		"6.6.131",
		"6.18.44-fc-v1272",
		"6.18.21-rc1",
		"6.18.100",
		"7.0",
		"7.0.0",
		"7.0.3-amd64",
		"7.0.0-10-generic",
		"7.1.0-rc1",
		"7.12.4",
		"8.0.0-rc2",
		"10.2",
	};
	static const char *const unfixed[] = {
		"6.1.0-28-amd64",
		"6.1.158",
		"6.18",
		"6.18.0",
		"6.18.20",
		"6.18.2",
		"6.12.79",
		"6.19.11",
		"6.6.130",
		"5.14.0-427.el9.x86_64",
		"7.0.0-rc6",
		"7.0-rc1",
		"4.19.0",
		"",
		"7",
		"7.",
		".0",
		"x7.1",
		"6.18.",
		"6.18.x",
		"99999999999999999999.1",
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!fs_release_fixes_nojournal_fsync(fixed[i]))
			fprintf(stderr, "taken as unfixed: %s\n", fixed[i]);
		CHECK(fs_release_fixes_nojournal_fsync(fixed[i]));
	}
	for (size_t i = 0; i < sizeof(unfixed) / sizeof(unfixed[0]); i++) {
		if (fs_release_fixes_nojournal_fsync(unfixed[i]))
			fprintf(stderr, "taken as fixed: %s\n", unfixed[i]);
		CHECK(!fs_release_fixes_nojournal_fsync(unfixed[i]));
	}
}

TESTS(test_sysfs_nojournal, test_other_fs_needs_no_mark, test_release_fix);
