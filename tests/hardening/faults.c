/*
 * faults.c - faults from below (issue #5): the backing file system full, read-only, the
 * export directory removed or replaced while served, EIO from the device. The shell
 * driver (test_faults.sh) sets the fault up inside a private mount namespace; this
 * client checks that each gives the NFS client the right error and nothing else breaks.
 *
 *   faults nospc HOST PATH          tmpfs (size=1m, few inodes) filled by WRITE and CREATE
 *   faults rofs HOST PATH FILE      a read-only bind mount exported read-write
 *   faults stale HOST PATH rmdir|rename   the export directory removed / replaced
 *   faults eio HOST PATH FILE       FILE sits on a device that now fails every I/O
 *
 * Output: "ok NAME" or "FAIL NAME: expected X got Y", then "faults: N checks, M failed".
 * Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT; every call waits at most 10 s.
 */
#include <errno.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hardening/hclient.h"
#include "lib/check.h"

#define NFS3ERR_IO    5
#define NFS3ERR_NOSPC 28
#define NFS3ERR_ROFS  30
#define NFS3ERR_STALE 70
#define CHUNK	      (64 * 1024)

static int checks;
static int nfd = -1;

/* Expect NFS status @want from a call that returned @got. */
static bool expect(const char *name, int want, int got)
{
	checks++;
	if (got == want) {
		printf("ok %s: %s\n", name, hc_nfsstat_name(got));
		return true;
	}
	check_fail(name, "expected %s got %s", hc_nfsstat_name(want), hc_nfsstat_name(got));
	return false;
}

/* The server still answers on the same connection and on a new one. */
static void still_serving(const char *name)
{
	int fd = hc_connect_nfs(), st = fd < 0 ? -1 : hc_null(fd);

	if (fd >= 0)
		close(fd);
	expect(name, 0, st == 0 && hc_null(nfd) == 0 ? 0 : -1);
}

static bool mount_root(const char *path, struct hc_fh *root)
{
	int st = hc_mnt(path, root);

	checks++;
	if (st != 0) {
		check_fail("mnt", "expected MNT3_OK for %s got %d", path, st);
		return false;
	}
	return true;
}

static int cmd_nospc(const char *path)
{
	static uint8_t data[CHUNK];
	struct hc_fh root, fill, f;
	char name[32];
	uint64_t off = 0;
	uint32_t got;
	int st = 0, i;

	if (!mount_root(path, &root))
		return 1;
	memset(data, 0x33, sizeof(data));
	expect("create-fill", 0, hc_create(nfd, &root, "fill", &fill));
	/* FILE_SYNC chunks until the 1 MiB file system is full. */
	for (i = 0; i < 64 && (st = hc_write(nfd, &fill, off, data, CHUNK, 2)) == 0; i++)
		off += CHUNK;
	printf("    %llu bytes written before the file system filled\n", (unsigned long long)off);
	expect("write-sync-nospc", NFS3ERR_NOSPC, st);
	expect("write-unstable-nospc", NFS3ERR_NOSPC, hc_write(nfd, &fill, off, data, CHUNK, 0));
	/* Inodes: CREATE until the tmpfs inode limit. */
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		st = hc_create(nfd, &root, name, &f);
		if (st != 0)
			break;
	}
	printf("    %d files created before the inodes ran out\n", i);
	expect("create-nospc", NFS3ERR_NOSPC, st);
	expect("mkdir-nospc", NFS3ERR_NOSPC, hc_mkdir(nfd, &root, "dir", &f));
	/* Everything else keeps working. */
	expect("getattr-full", 0, hc_getattr(nfd, &root));
	expect("read-full", 0, hc_read(nfd, &fill, 0, CHUNK, &got));
	expect("remove-full", 0, hc_remove(nfd, &root, "fill"));
	expect("remove-f0", 0, hc_remove(nfd, &root, "f0"));
	expect("create-after-free", 0, hc_create(nfd, &root, "again", &f));
	expect("write-after-free", 0, hc_write(nfd, &f, 0, data, CHUNK, 2));
	still_serving("serving-after-nospc");
	return 0;
}

static int cmd_rofs(const char *path, const char *file)
{
	struct hc_fh root, fh, f;
	uint8_t data[512];
	uint32_t got;

	if (!mount_root(path, &root))
		return 1;
	memset(data, 1, sizeof(data));
	expect("lookup-ro", 0, hc_lookup(nfd, &root, file, &fh));
	expect("read-ro", 0, hc_read(nfd, &fh, 0, 512, &got));
	expect("create-rofs", NFS3ERR_ROFS, hc_create(nfd, &root, "new", &f));
	expect("mkdir-rofs", NFS3ERR_ROFS, hc_mkdir(nfd, &root, "newdir", &f));
	expect("write-unstable-rofs", NFS3ERR_ROFS, hc_write(nfd, &fh, 0, data, 512, 0));
	expect("write-sync-rofs", NFS3ERR_ROFS, hc_write(nfd, &fh, 0, data, 512, 2));
	expect("setattr-size-rofs", NFS3ERR_ROFS, hc_setattr_size(nfd, &fh, 0));
	expect("remove-rofs", NFS3ERR_ROFS, hc_remove(nfd, &root, file));
	expect("getattr-ro", 0, hc_getattr(nfd, &root));
	still_serving("serving-after-rofs");
	return 0;
}

static int cmd_stale(const char *path, const char *mode)
{
	struct hc_fh root, file, dir, nroot, f;
	char p[4096], old[4096];
	int st;

	if (!mount_root(path, &root))
		return 1;
	expect("create-a", 0, hc_create(nfd, &root, "a", &file));
	expect("mkdir-d", 0, hc_mkdir(nfd, &root, "d", &dir));
	snprintf(p, sizeof(p), "%s/a", path);
	snprintf(old, sizeof(old), "%s.old", path);
	if (!strcmp(mode, "rmdir")) {
		snprintf(p, sizeof(p), "%s/a", path);
		unlink(p);
		snprintf(p, sizeof(p), "%s/d", path);
		rmdir(p);
		if (rmdir(path) < 0) {
			check_fail("rmdir", "expected to remove %s got %s", path, strerror(errno));
			return 1;
		}
	} else if (rename(path, old) < 0 || mkdir(path, 0755) < 0) {
		check_fail("rename", "expected to replace %s got %s", path, strerror(errno));
		return 1;
	}
	printf("    export directory %s\n", !strcmp(mode, "rmdir") ? "removed" : "replaced");
	if (!strcmp(mode, "rmdir")) {
		expect("getattr-old-root-stale", NFS3ERR_STALE, hc_getattr(nfd, &root));
		expect("getattr-old-file-stale", NFS3ERR_STALE, hc_getattr(nfd, &file));
		expect("getattr-old-dir-stale", NFS3ERR_STALE, hc_getattr(nfd, &dir));
		expect("lookup-old-root-stale", NFS3ERR_STALE, hc_lookup(nfd, &root, "a", &f));
		expect("create-old-root-stale", NFS3ERR_STALE, hc_create(nfd, &root, "b", &f));
	} else {
		/* The renamed directory still exists, but it is no longer the export: the
		 * server re-checks the export path at most once a second, so wait (with a
		 * deadline) until the old root turns stale, then every old handle must be. */
		struct timespec nap = {0, 50 * 1000 * 1000};
		int tries = 0;

		while (hc_getattr(nfd, &root) != NFS3ERR_STALE && tries++ < 100)
			nanosleep(&nap, NULL);
		expect("getattr-old-root-stale", NFS3ERR_STALE, hc_getattr(nfd, &root));
		expect("getattr-old-file-stale", NFS3ERR_STALE, hc_getattr(nfd, &file));
		expect("getattr-old-dir-stale", NFS3ERR_STALE, hc_getattr(nfd, &dir));
		expect("lookup-old-root-stale", NFS3ERR_STALE, hc_lookup(nfd, &root, "a", &f));
	}
	still_serving("serving-after-removal");
	if (!strcmp(mode, "rmdir")) {
		st = hc_mnt(path, &nroot);
		checks++;
		if (st == 0 || st == -1)
			check_fail("mnt-removed",
				   "expected a clean MNT3ERR status for a removed export "
				   "got %s",
				   st == 0 ? "MNT3_OK" : "no reply");
		else
			printf("ok mnt-removed: mountstat3 %d\n", st);
		if (mkdir(path, 0755) < 0) {
			check_fail("mkdir", "expected to re-create %s got %s", path,
				   strerror(errno));
			return 1;
		}
	}
	/* A new directory at the path: MNT gives the new root (or a clean error). */
	st = hc_mnt(path, &nroot);
	checks++;
	if (st == -1) {
		check_fail("mnt-replaced", "expected a MNT reply for the new %s got none", path);
	} else if (st != 0) {
		printf("ok mnt-replaced: clean error mountstat3 %d\n", st);
	} else if (nroot.len == root.len && !memcmp(nroot.data, root.data, root.len)) {
		check_fail("mnt-replaced", "expected a new root handle got the old one");
	} else {
		printf("ok mnt-replaced: a new root handle\n");
		expect("getattr-new-root", 0, hc_getattr(nfd, &nroot));
		expect("lookup-new-root-empty", 2, hc_lookup(nfd, &nroot, "a", &f));
		expect("create-new-root", 0, hc_create(nfd, &nroot, "c", &f));
		if (!strcmp(mode, "rmdir"))
			expect("getattr-old-root-still-stale", NFS3ERR_STALE,
			       hc_getattr(nfd, &root));
	}
	still_serving("serving-after-replace");
	return 0;
}

static int cmd_eio(const char *path, const char *file)
{
	struct hc_fh root, fh;
	uint8_t data[4096];
	uint32_t got;
	int st;

	if (!mount_root(path, &root))
		return 1;
	memset(data, 7, sizeof(data));
	expect("lookup-eio-file", 0, hc_lookup(nfd, &root, file, &fh));
	expect("read-eio", NFS3ERR_IO, hc_read(nfd, &fh, 0, 4096, &got));
	st = hc_write(nfd, &fh, 0, data, sizeof(data), 2);
	/* ext4 may turn read-only once its journal sees the error: ROFS is right then. */
	expect("write-sync-eio", st == NFS3ERR_ROFS ? NFS3ERR_ROFS : NFS3ERR_IO, st);
	still_serving("serving-after-eio");
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		goto usage;
	hc_setup(argv[2], hc_env_port("SHOAL_NFS_PORT", 2049),
		 hc_env_port("SHOAL_MOUNT_PORT", 20048));
	hc_set_timeout(10000);
	nfd = hc_connect_nfs();
	if (nfd < 0) {
		printf("FAIL connect: expected to reach the server got %s\n", strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "nospc") && argc == 4)
		rc = cmd_nospc(argv[3]);
	else if (!strcmp(argv[1], "rofs") && argc == 5)
		rc = cmd_rofs(argv[3], argv[4]);
	else if (!strcmp(argv[1], "stale") && argc == 5)
		rc = cmd_stale(argv[3], argv[4]);
	else if (!strcmp(argv[1], "eio") && argc == 5)
		rc = cmd_eio(argv[3], argv[4]);
	else
		goto usage;
	close(nfd);
	printf("faults: %d checks, %d failed\n", checks, check_failures());
	hc_thread_done();
	return rc || check_failures() ? 1 : 0;
usage:
	fprintf(stderr, "usage: faults nospc|rofs|stale|eio HOST PATH [FILE|rmdir|rename]\n");
	return 2;
}
