/*
 * fuzz_rpc_call.c - fuzz the RPC call header and credential decoder
 * (rpc_dec_call_hdr in src/rpc/rpc_int.h: RFC 5531 call_body, AUTH_NONE, AUTH_SYS).
 *
 * Input: one whole call message as it follows the record mark. Besides "no crash",
 * checks what the callers rely on: the arguments start inside the message, an
 * AUTH_SYS credential has at most RPC_AUTHSYS_MAXGIDS groups, and every answer the
 * rpc layer would send for the status can be encoded.
 */
#include "fuzz/fuzz.h"
#include "rpc/rpc_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum rpc_auth_stat why = RPC_AUTH_OK;
	struct rpc_call_hdr h;
	uint8_t buf[512];
	struct xdr_out o;

	memset(&h, 0xa5, sizeof(h)); /* no field may be relied on unset */
	xdr_out_init(&o, buf, sizeof(buf));
	switch (rpc_dec_call_hdr(data, size, &h, &why)) {
	case RPC_HDR_OK:
		if (h.args_off > size || h.rpcvers != RPC_VERSION)
			abort();
		if (h.cred.flavor == RPC_AUTH_SYS && h.cred.ngids > RPC_AUTHSYS_MAXGIDS)
			abort();
		if (!rpc_enc_accepted(&o, h.xid, RPC_GARBAGE_ARGS) ||
		    !rpc_enc_prog_mismatch(&o, h.xid, 2, 3))
			abort();
		break;
	case RPC_HDR_RPCVERS:
		if (!rpc_enc_denied_rpcvers(&o, h.xid))
			abort();
		break;
	case RPC_HDR_AUTH:
		/* BADVERF too: an oversized verifier body (RFC 5531 section 8.2) */
		if (why != RPC_AUTH_BADCRED && why != RPC_AUTH_REJECTEDCRED &&
		    why != RPC_AUTH_BADVERF)
			abort();
		if (!rpc_enc_denied_auth(&o, h.xid, why))
			abort();
		break;
	case RPC_HDR_DROP:
		break;
	default:
		abort();
	}
	return 0;
}
