/*
 * dur_trunc.c - a stable WRITE, then a SETATTR that shrinks the file: the pair a replay of
 * the stable-write log must apply in order (tests/durability/test_log_truncate.sh).
 *
 *   dur_trunc HOST EXPORT NAME SIZE
 *
 * Creates NAME in EXPORT, writes 64 KiB of a pattern with FILE_SYNC, sets the size to
 * SIZE (smaller), and prints "acknowledged" once both replies said NFS3_OK; the caller
 * then kills the server and checks, after the replay, that the file holds SIZE bytes of
 * the pattern. Exits 0, 1 when a call was refused, 2 when the tool could not go on.
 * Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT; calls wait SHOAL_RPC_TIMEOUT s.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/nfsc.h"

#define WRITE_LEN (64 * 1024)

int main(int argc, char **argv)
{
	static uint8_t data[WRITE_LEN];
	struct nfsc_env env = nfsc_env();
	sattr3 sa = {0};
	struct nfsc_fh root, fh;
	struct nfsc c;
	uint32_t count = 0;
	uint64_t size;
	int st;

	if (argc != 5) {
		fprintf(stderr, "usage: dur_trunc HOST EXPORT NAME SIZE\n");
		return 2;
	}
	size = strtoull(argv[4], NULL, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + (i >> 8));
	if (nfsc_connect(&c, argv[1], env.mount_port, env.timeout_s))
		nfsc_die("connect to mount port %d: %s", env.mount_port, c.err);
	st = nfsc_mnt(&c, argv[2], &root, NULL);
	nfsc_close(&c);
	if (st != MNT3_OK)
		nfsc_die("MNT %s: expected MNT3_OK got %s", argv[2], nfsc_mntname(st));
	if (nfsc_connect(&c, argv[1], env.nfs_port, env.timeout_s))
		nfsc_die("connect to nfs port %d: %s", env.nfs_port, c.err);
	st = nfsc_create(&c, &root, argv[3], UNCHECKED, 0644, &fh, NULL);
	if (st == NFS3_OK)
		st = nfsc_write(&c, &fh, 0, data, WRITE_LEN, FILE_SYNC, &count, NULL, NULL);
	if (st == NFS3_OK && count != WRITE_LEN) {
		printf("FAIL write: expected %d bytes written got %u\n", WRITE_LEN, count);
		return 1;
	}
	sa.size.set_it = 1;
	sa.size.set_size3_u.size = size;
	if (st == NFS3_OK)
		st = nfsc_setattr(&c, &fh, &sa, NULL);
	nfsc_close(&c);
	if (st != NFS3_OK) {
		printf("FAIL create, write or setattr: expected NFS3_OK got %s\n",
		       st < 0 ? "no reply" : nfsc_stname(st));
		return 1;
	}
	printf("acknowledged\n");
	return 0;
}
