/*
 * fuzz_mount_args.c - fuzz the MOUNT decoders (src/mount/mount_xdr.c): the argument
 * decoders the server runs, and the result decoders its clients (shoal-bench, tests)
 * run on replies from the network.
 *
 * Input: byte 0 is the procedure number (modulo MOUNT_NPROCS1, the largest table), the
 * rest the arguments as they follow the RPC call header; every MOUNT version that has
 * the procedure decodes them, with the decoder from mount_program's own table. The same
 * bytes are then decoded as a mountres3, a mountlist and an exports list.
 */
#include "fuzz/fuzz.h"
#include "mount/mount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mount_export_res exp;
	struct mount_dump_res dump;
	struct mount_mnt3_res mnt;
	struct xdr_cur c;
	struct arena a;

	if (size < 1)
		return 0;
	fuzz_decode_proc(&mount_program, data[0] % MOUNT_NPROCS1, data + 1, size - 1);

	xdr_cur_init(&c, data + 1, size - 1);
	if (mount_dec_mnt3_res(&c, &mnt) && mnt.status == MNT3_OK &&
	    (mnt.fh_len > FHSIZE3 || mnt.nflavors > MOUNT_MAXFLAVORS))
		abort();
	arena_init(&a, 4096);
	xdr_cur_init(&c, data + 1, size - 1);
	if (mount_dec_dump_res(&c, &a, &dump)) {
		for (size_t i = 0; i < dump.n; i++) {
			if (strlen(dump.list[i].hostname) > MNTNAMLEN ||
			    strlen(dump.list[i].directory) > MNTPATHLEN)
				abort();
		}
	}
	xdr_cur_init(&c, data + 1, size - 1);
	if (mount_dec_export_res(&c, &a, &exp)) {
		for (size_t i = 0; i < exp.n; i++) {
			if (strlen(exp.list[i].dir) > MNTPATHLEN)
				abort();
			for (size_t j = 0; j < exp.list[i].ngroups; j++)
				if (strlen(exp.list[i].groups[j]) > MNTNAMLEN)
					abort();
		}
	}
	arena_fini(&a);
	return 0;
}
