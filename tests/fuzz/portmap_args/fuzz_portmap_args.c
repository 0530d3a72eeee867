/*
 * fuzz_portmap_args.c - fuzz the portmapper argument decoders (src/portmap/portmap_xdr.c)
 * and the two decoders of replies from the network: the pmaplist decoder, and the one
 * the registration client (src/portmap/portmap_client.c) reads rpcbind's answer to its
 * SET or UNSET with.
 *
 * Input: byte 0 is the procedure number (modulo PMAP_NPROCS), the rest the arguments
 * as they follow the RPC call header. The same bytes are also decoded as a DUMP reply
 * body (pmap_dec_dump_res), which reads a list of unbounded length into an arena, and
 * as a whole SET/UNSET reply datagram, expected with the xid its first 4 bytes carry
 * (another xid would stop the decoder at once).
 */
#include <errno.h>

#include "fuzz/fuzz.h"
#include "portmap/portmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmap_dump_res res;
	struct xdr_cur c;
	struct arena a;
	uint32_t xid;
	bool ok;
	int r;

	if (size < 1)
		return 0;
	fuzz_decode_proc(&portmap_program, data[0] % PMAP_NPROCS, data + 1, size - 1);

	arena_init(&a, 4096);
	xdr_cur_init(&c, data + 1, size - 1);
	if (pmap_dec_dump_res(&c, &a, &res) && res.n > (size - 1) / 4)
		abort(); /* every mapping takes 20 bytes of input */
	arena_fini(&a);

	xdr_cur_init(&c, data + 1, size - 1);
	if (!xdr_dec_u32(&c, &xid))
		xid = 0;
	r = pmap_dec_set_reply(data + 1, size - 1, xid, &ok);
	if (r != 0 && r != 1 && r != -EPROTO)
		abort();
	if (r == 1 && size - 1 < 7 * 4)
		abort(); /* xid, REPLY, MSG_ACCEPTED, verifier (2), SUCCESS and the result */
	return 0;
}
