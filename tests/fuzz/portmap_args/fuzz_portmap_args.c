/*
 * fuzz_portmap_args.c - fuzz the portmapper argument decoders (src/portmap/portmap_xdr.c)
 * and the pmaplist decoder the registration client uses on a reply from the network.
 *
 * Input: byte 0 is the procedure number (modulo PMAP_NPROCS), the rest the arguments
 * as they follow the RPC call header. The same bytes are also decoded as a DUMP reply
 * body (pmap_dec_dump_res), which reads a list of unbounded length into an arena.
 */
#include "fuzz/fuzz.h"
#include "portmap/portmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmap_dump_res res;
	struct xdr_cur c;
	struct arena a;

	if (size < 1)
		return 0;
	fuzz_decode_proc(&portmap_program, data[0] % PMAP_NPROCS, data + 1, size - 1);

	arena_init(&a, 4096);
	xdr_cur_init(&c, data + 1, size - 1);
	if (pmap_dec_dump_res(&c, &a, &res) && res.n > (size - 1) / 4)
		abort(); /* every mapping takes 20 bytes of input */
	arena_fini(&a);
	return 0;
}
