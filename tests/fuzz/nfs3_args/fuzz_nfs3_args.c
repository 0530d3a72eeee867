/*
 * fuzz_nfs3_args.c - fuzz every NFSv3 argument decoder (src/nfs3/nfs3_xdr.c).
 *
 * Input: byte 0 is the procedure number (taken modulo NFS3_NPROCS), the rest the
 * procedure's arguments as they follow the RPC call header. The decoder is taken from
 * nfs3_program's own table, so a procedure added there is fuzzed without a change here.
 * Each decoder must refuse bad input cleanly (no read or write out of bounds).
 */
#include "fuzz/fuzz.h"
#include "nfs3/nfs3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_decode_proc(&nfs3_program, data[0] % NFS3_NPROCS, data + 1, size - 1);
	return 0;
}
