/*
 * rpc_msg.c - ONC RPC message headers (RFC 5531 sections 8-9): the call header with
 * its AUTH_NONE / AUTH_SYS credential, and the accepted and denied reply headers.
 *
 * A call too short to carry its whole header is dropped rather than answered, as
 * knfsd does: the client will retransmit, and a garbled xid is not worth a reply.
 */
#include "rpc/rpc_int.h"

#define RPC_NOBODY 65534u

/* AUTH_SYS body (RFC 5531 appendix A): stamp, machinename, uid, gid, gids<16>. */
static bool rpc_dec_authsys(const struct xdr_view *body, struct rpc_cred *cred)
{
	struct xdr_cur c;
	struct xdr_view name;
	uint32_t stamp, n;

	xdr_cur_init(&c, body->data, body->len);
	if (!xdr_dec_u32(&c, &stamp) || !xdr_dec_string(&c, RPC_AUTHSYS_MAXNAME, &name))
		return false;
	if (!xdr_dec_u32(&c, &cred->uid) || !xdr_dec_u32(&c, &cred->gid))
		return false;
	if (!xdr_dec_u32(&c, &n) || n > RPC_AUTHSYS_MAXGIDS)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (!xdr_dec_u32(&c, &cred->gids[i]))
			return false;
	}
	cred->ngids = n;
	/* The body length is part of the credential: trailing bytes make it malformed. */
	return xdr_cur_left(&c) == 0;
}

/* Read an opaque_auth; *too_big is set when the body exceeds RPC_AUTH_MAXBYTES. */
static bool rpc_dec_opaque_auth(struct xdr_cur *c, uint32_t *flavor, struct xdr_view *body,
				bool *too_big)
{
	uint32_t len;

	*too_big = false;
	if (!xdr_dec_u32(c, flavor) || !xdr_dec_u32(c, &len))
		return false;
	if (len > RPC_AUTH_MAXBYTES) {
		*too_big = true;
		return false;
	}
	body->len = len;
	return xdr_dec_fixed(c, len, &body->data);
}

enum rpc_hdr_status rpc_dec_call_hdr(const uint8_t *call, size_t len, struct rpc_call_hdr *h,
				     enum rpc_auth_stat *why)
{
	struct xdr_cur c;
	struct xdr_view cred, verf;
	uint32_t mtype, cflavor, vflavor;
	bool too_big;

	xdr_cur_init(&c, call, len);
	if (!xdr_dec_u32(&c, &h->xid) || !xdr_dec_u32(&c, &mtype) || mtype != RPC_CALL)
		return RPC_HDR_DROP;
	if (!xdr_dec_u32(&c, &h->rpcvers))
		return RPC_HDR_DROP;
	if (h->rpcvers != RPC_VERSION)
		return RPC_HDR_RPCVERS;
	if (!xdr_dec_u32(&c, &h->prog) || !xdr_dec_u32(&c, &h->vers) || !xdr_dec_u32(&c, &h->proc))
		return RPC_HDR_DROP;
	if (!rpc_dec_opaque_auth(&c, &cflavor, &cred, &too_big)) {
		if (!too_big)
			return RPC_HDR_DROP;
		*why = RPC_AUTH_BADCRED;
		return RPC_HDR_AUTH;
	}
	if (!rpc_dec_opaque_auth(&c, &vflavor, &verf, &too_big)) {
		if (!too_big)
			return RPC_HDR_DROP;
		*why = RPC_AUTH_BADVERF;
		return RPC_HDR_AUTH;
	}
	h->args_off = (size_t)(c.p - call);
	h->cred.flavor = cflavor;
	h->cred.ngids = 0;
	switch (cflavor) {
	case RPC_AUTH_NONE:
		h->cred.uid = RPC_NOBODY;
		h->cred.gid = RPC_NOBODY;
		return RPC_HDR_OK;
	case RPC_AUTH_SYS:
		if (rpc_dec_authsys(&cred, &h->cred))
			return RPC_HDR_OK;
		*why = RPC_AUTH_BADCRED;
		return RPC_HDR_AUTH;
	default:
		*why = RPC_AUTH_REJECTEDCRED;
		return RPC_HDR_AUTH;
	}
}

static bool rpc_enc_reply_start(struct xdr_out *o, uint32_t xid, enum rpc_reply_stat st)
{
	uint8_t *p = xdr_enc_reserve(o, 12);

	if (!p)
		return false;
	xdr_put_u32(p, xid);
	xdr_put_u32(p + 4, RPC_REPLY);
	xdr_put_u32(p + 8, st);
	return true;
}

bool rpc_enc_accepted(struct xdr_out *o, uint32_t xid, enum rpc_accept_stat st)
{
	uint8_t *p = xdr_enc_reserve(o, 24);

	if (!p)
		return false;
	xdr_put_u32(p, xid);
	xdr_put_u32(p + 4, RPC_REPLY);
	xdr_put_u32(p + 8, RPC_MSG_ACCEPTED);
	xdr_put_u32(p + 12, RPC_AUTH_NONE); /* verifier: AUTH_NONE, empty body */
	xdr_put_u32(p + 16, 0);
	xdr_put_u32(p + 20, st);
	return true;
}

bool rpc_enc_prog_mismatch(struct xdr_out *o, uint32_t xid, uint32_t low, uint32_t high)
{
	return rpc_enc_accepted(o, xid, RPC_PROG_MISMATCH) && xdr_enc_u32(o, low) &&
	       xdr_enc_u32(o, high);
}

bool rpc_enc_denied_rpcvers(struct xdr_out *o, uint32_t xid)
{
	return rpc_enc_reply_start(o, xid, RPC_MSG_DENIED) && xdr_enc_u32(o, RPC_MISMATCH) &&
	       xdr_enc_u32(o, RPC_VERSION) && xdr_enc_u32(o, RPC_VERSION);
}

bool rpc_enc_denied_auth(struct xdr_out *o, uint32_t xid, enum rpc_auth_stat why)
{
	return rpc_enc_reply_start(o, xid, RPC_MSG_DENIED) && xdr_enc_u32(o, RPC_AUTH_ERROR) &&
	       xdr_enc_u32(o, why);
}
