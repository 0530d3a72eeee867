/*
 * acc_probe.c - one NFSv3 or MOUNT call as a chosen identity, for the access-control
 * test (test_access.sh), which asserts on what it prints.
 *
 *   acc_probe mnt HOST PATH                    "MNT3_OK FH" or the mount status
 *   acc_probe getattr HOST FH                  "NFS3_OK fileid=N type=T uid=U gid=G"
 *   acc_probe lookup HOST FH NAME              "NFS3_OK FH fileid=N type=T" or status
 *   acc_probe read HOST FH                     "NFS3_OK count=N" or status
 *   acc_probe write HOST FH                    status of a 4-byte FILE_SYNC write
 *   acc_probe create|mkdir HOST FH NAME        "NFS3_OK FH" or status (mode 0644/0755)
 *   acc_probe symlink HOST FH NAME TARGET      status
 *   acc_probe remove|setattr HOST FH [NAME]    status (setattr: mode 0600)
 *   acc_probe access HOST FH                   "NFS3_OK 0xBITS" for all six bits asked
 *   acc_probe readlink HOST FH                 "NFS3_OK TARGET" or status
 *
 * The identity is AUTH_SYS uid ACC_UID / gid ACC_GID (default 0/0), or AUTH_NONE with
 * ACC_AUTH=none. Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT. Exit status 0
 * whenever a reply came (the status is the result), 2 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nfsc.h"

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v ? atoi(v) : def;
}

__attribute__((noreturn)) static void usage(void)
{
	fprintf(stderr, "usage: acc_probe mnt|getattr|lookup|read|write|create|mkdir|symlink|"
			"remove|setattr|access|readlink HOST ARG...\n");
	exit(2);
}

static void print_fh(const char *status, const struct nfsc_fh *fh)
{
	char hex[2 * NFSC_FHMAX + 1];

	nfsc_fh_hex(fh, hex);
	printf("%s %s", status, hex);
}

static int do_mnt(const char *host, const char *path)
{
	struct nfsc c;
	struct nfsc_fh root;
	int st;

	if (nfsc_connect(&c, host, env_int("SHOAL_MOUNT_PORT", 20048), 30)) {
		printf("RPC-error %s\n", c.err);
		return 2;
	}
	nfsc_set_auth(&c, NFSC_AUTH_SYS, 0, 0);
	st = nfsc_mnt(&c, path, &root, NULL);
	if (st == MNT3_OK)
		print_fh("MNT3_OK", &root);
	else
		printf("%s", nfsc_mntname(st));
	printf("\n");
	nfsc_close(&c);
	return st < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd, *auth = getenv("ACC_AUTH");
	struct nfsc_fh fh, out = {0};
	struct nfsc c;
	fattr3 a;
	int st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		usage();
	cmd = argv[1];
	if (!strcmp(cmd, "mnt"))
		return do_mnt(argv[2], argv[3]);
	if (!nfsc_fh_parse(argv[3], &fh)) {
		printf("bad-handle-argument\n");
		return 2;
	}
	if (nfsc_connect(&c, argv[2], env_int("SHOAL_NFS_PORT", 2049), 30)) {
		printf("RPC-error %s\n", c.err);
		return 2;
	}
	nfsc_set_auth(&c, auth && !strcmp(auth, "none") ? NFSC_AUTH_NONE : NFSC_AUTH_SYS,
		      (uint32_t)env_int("ACC_UID", 0), (uint32_t)env_int("ACC_GID", 0));
	memset(&a, 0, sizeof(a));
	if (!strcmp(cmd, "getattr")) {
		st = nfsc_getattr(&c, &fh, &a);
		printf("%s", nfsc_stname(st));
		if (st == NFS3_OK)
			printf(" fileid=%" PRIu64 " type=%d uid=%u gid=%u", (uint64_t)a.fileid,
			       a.type, a.uid, a.gid);
	} else if (!strcmp(cmd, "lookup") && argc == 5) {
		st = nfsc_lookup(&c, &fh, argv[4], &out, &a);
		if (st == NFS3_OK) {
			print_fh("NFS3_OK", &out);
			printf(" fileid=%" PRIu64 " type=%d", (uint64_t)a.fileid, a.type);
		} else {
			printf("%s", nfsc_stname(st));
		}
	} else if (!strcmp(cmd, "read")) {
		static char buf[65536];
		uint32_t n = 0;

		st = nfsc_read(&c, &fh, 0, sizeof(buf), buf, &n, NULL);
		printf("%s", nfsc_stname(st));
		if (st == NFS3_OK)
			printf(" count=%u", n);
	} else if (!strcmp(cmd, "write")) {
		st = nfsc_write(&c, &fh, 0, "pwnd", 4, FILE_SYNC, NULL, NULL, NULL);
		printf("%s", nfsc_stname(st));
	} else if ((!strcmp(cmd, "create") || !strcmp(cmd, "mkdir")) && argc == 5) {
		st = !strcmp(cmd, "create")
			     ? nfsc_create(&c, &fh, argv[4], UNCHECKED, 0644, &out, NULL)
			     : nfsc_mkdir(&c, &fh, argv[4], 0755, &out);
		if (st == NFS3_OK)
			print_fh("NFS3_OK", &out);
		else
			printf("%s", nfsc_stname(st));
	} else if (!strcmp(cmd, "symlink") && argc == 6) {
		st = nfsc_symlink(&c, &fh, argv[4], argv[5], NULL);
		printf("%s", nfsc_stname(st));
	} else if (!strcmp(cmd, "remove") && argc == 5) {
		st = nfsc_remove(&c, &fh, argv[4]);
		printf("%s", nfsc_stname(st));
	} else if (!strcmp(cmd, "setattr")) {
		sattr3 sa;

		memset(&sa, 0, sizeof(sa));
		sa.mode.set_it = 1;
		sa.mode.set_mode3_u.mode = 0600;
		st = nfsc_setattr(&c, &fh, &sa, NULL);
		printf("%s", nfsc_stname(st));
	} else if (!strcmp(cmd, "access")) {
		uint32_t granted = 0;

		st = nfsc_access(&c, &fh, 0x3f, &granted);
		printf("%s", nfsc_stname(st));
		if (st == NFS3_OK)
			printf(" 0x%02x", granted);
	} else if (!strcmp(cmd, "readlink")) {
		char buf[4096];

		st = nfsc_readlink(&c, &fh, buf, sizeof(buf));
		printf("%s", nfsc_stname(st));
		if (st == NFS3_OK)
			printf(" %s", buf);
	} else {
		usage();
	}
	printf("\n");
	nfsc_close(&c);
	return st < 0 ? 2 : 0;
}
