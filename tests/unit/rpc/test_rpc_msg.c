/*
 * test_rpc_msg.c - call header decoding (RFC 5531 section 9) from golden bytes:
 * AUTH_NONE, AUTH_SYS, wrong rpcvers, unsupported and malformed credentials, and a
 * valid header truncated at every offset.
 */
#include "rpc/rpc_int.h"
#include "unit/test.h"

#define W(v) (uint8_t)((v) >> 24), (uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v)

/* NFSv3 GETATTR, AUTH_NONE, 4 argument bytes. */
static const uint8_t call_none[] = {
	W(0x01020304), W(0), W(2), W(100003), W(3), W(1), /* xid CALL rpcvers prog vers proc */
	W(0),	       W(0),				  /* cred AUTH_NONE */
	W(0),	       W(0),				  /* verf AUTH_NONE */
	W(0xaabbccdd),					  /* args */
};

/* AUTH_SYS: stamp, "host", uid 1000, gid 100, gids {100, 27}. */
static const uint8_t call_sys[] = {
	W(0x11111111), W(0), W(2), W(100005), W(3),   W(0), W(1),   W(32), W(0x12345678), W(4), 'h',
	'o',	       's',  't',  W(1000),   W(100), W(2), W(100), W(27), W(0),	  W(0),
};

static enum rpc_hdr_status dec(const uint8_t *b, size_t len, struct rpc_call_hdr *h,
			       enum rpc_auth_stat *why)
{
	*why = RPC_AUTH_OK;
	return rpc_dec_call_hdr(b, len, h, why);
}

static void test_auth_none(void)
{
	struct rpc_call_hdr h;
	enum rpc_auth_stat why;

	CHECK_EQ(dec(call_none, sizeof(call_none), &h, &why), RPC_HDR_OK);
	CHECK_EQ(h.xid, 0x01020304);
	CHECK_EQ(h.prog, 100003);
	CHECK_EQ(h.vers, 3);
	CHECK_EQ(h.proc, 1);
	CHECK_EQ(h.cred.flavor, RPC_AUTH_NONE);
	CHECK_EQ(h.cred.uid, 65534);
	CHECK_EQ(h.cred.gid, 65534);
	CHECK_EQ(h.cred.ngids, 0);
	CHECK_EQ(h.args_off, 40);
}

static void test_auth_sys(void)
{
	struct rpc_call_hdr h;
	enum rpc_auth_stat why;

	CHECK_EQ(dec(call_sys, sizeof(call_sys), &h, &why), RPC_HDR_OK);
	CHECK_EQ(h.xid, 0x11111111);
	CHECK_EQ(h.prog, 100005);
	CHECK_EQ(h.proc, 0);
	CHECK_EQ(h.cred.flavor, RPC_AUTH_SYS);
	CHECK_EQ(h.cred.uid, 1000);
	CHECK_EQ(h.cred.gid, 100);
	CHECK_EQ(h.cred.ngids, 2);
	CHECK_EQ(h.cred.gids[0], 100);
	CHECK_EQ(h.cred.gids[1], 27);
	CHECK_EQ(h.args_off, sizeof(call_sys));
}

static void test_not_a_call_or_bad_rpcvers(void)
{
	uint8_t b[sizeof(call_none)];
	struct rpc_call_hdr h;
	enum rpc_auth_stat why;

	memcpy(b, call_none, sizeof(b));
	b[7] = 1; /* REPLY */
	CHECK_EQ(dec(b, sizeof(b), &h, &why), RPC_HDR_DROP);
	memcpy(b, call_none, sizeof(b));
	b[11] = 3; /* rpcvers 3 */
	CHECK_EQ(dec(b, sizeof(b), &h, &why), RPC_HDR_RPCVERS);
	CHECK_EQ(h.xid, 0x01020304);
	/* A wrong version is answered even when the rest is missing. */
	CHECK_EQ(dec(b, 12, &h, &why), RPC_HDR_RPCVERS);
}

static void test_bad_flavor_and_bodies(void)
{
	uint8_t b[sizeof(call_sys) + 4];
	struct rpc_call_hdr h;
	enum rpc_auth_stat why;

	memcpy(b, call_none, sizeof(call_none));
	b[27] = 6; /* RPCSEC_GSS */
	CHECK_EQ(dec(b, sizeof(call_none), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_REJECTEDCRED);

	memcpy(b, call_sys, sizeof(call_sys));
	b[55] = 17; /* 17 gids */
	CHECK_EQ(dec(b, sizeof(call_sys), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_BADCRED);

	memcpy(b, call_sys, sizeof(call_sys));
	b[31] = 28; /* body shorter than its contents */
	CHECK_EQ(dec(b, sizeof(call_sys), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_BADCRED);

	/* Body with a trailing word: 36 bytes, the verifier shifted by 4. */
	memcpy(b, call_sys, 64);
	b[31] = 36;
	memset(b + 64, 0, 4);
	memcpy(b + 68, call_sys + 64, 8);
	CHECK_EQ(dec(b, sizeof(b), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_BADCRED);

	memcpy(b, call_sys, sizeof(call_sys));
	b[38] = 0x01; /* machinename of 260 bytes: over 255 (and past the body) */
	b[39] = 0x04;
	CHECK_EQ(dec(b, sizeof(call_sys), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_BADCRED);

	memcpy(b, call_none, sizeof(call_none));
	b[30] = 0x01; /* cred body of 404 bytes */
	b[31] = 0x94;
	CHECK_EQ(dec(b, sizeof(call_none), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_BADCRED);

	memcpy(b, call_none, sizeof(call_none));
	b[38] = 0x01; /* verifier body of 404 bytes */
	b[39] = 0x94;
	CHECK_EQ(dec(b, sizeof(call_none), &h, &why), RPC_HDR_AUTH);
	CHECK_EQ(why, RPC_AUTH_BADVERF);
}

static void test_truncated_everywhere(void)
{
	struct rpc_call_hdr h;
	enum rpc_auth_stat why;

	for (size_t n = 0; n < 40; n++)
		CHECK_EQ(dec(call_none, n, &h, &why), RPC_HDR_DROP);
	CHECK_EQ(dec(call_none, 40, &h, &why), RPC_HDR_OK);
	for (size_t n = 0; n < sizeof(call_sys); n++)
		CHECK_EQ(dec(call_sys, n, &h, &why), RPC_HDR_DROP);
}

static void test_reply_headers(void)
{
	static const uint8_t acc[] = {W(7), W(1), W(0), W(0), W(0), W(3)};
	static const uint8_t mis[] = {W(7), W(1), W(0), W(0), W(0), W(2), W(2), W(4)};
	static const uint8_t vers[] = {W(7), W(1), W(1), W(0), W(2), W(2)};
	static const uint8_t auth[] = {W(7), W(1), W(1), W(1), W(5)};
	uint8_t buf[64];
	struct xdr_out o;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(rpc_enc_accepted(&o, 7, RPC_PROC_UNAVAIL));
	CHECK_EQ(o.len, sizeof(acc));
	CHECK_MEM(buf, acc, sizeof(acc));
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(rpc_enc_prog_mismatch(&o, 7, 2, 4));
	CHECK_EQ(o.len, sizeof(mis));
	CHECK_MEM(buf, mis, sizeof(mis));
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(rpc_enc_denied_rpcvers(&o, 7));
	CHECK_EQ(o.len, sizeof(vers));
	CHECK_MEM(buf, vers, sizeof(vers));
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(rpc_enc_denied_auth(&o, 7, RPC_AUTH_TOOWEAK));
	CHECK_EQ(o.len, sizeof(auth));
	CHECK_MEM(buf, auth, sizeof(auth));
	xdr_out_init(&o, buf, 20);
	CHECK(!rpc_enc_accepted(&o, 7, RPC_SUCCESS));
}

TESTS(test_auth_none, test_auth_sys, test_not_a_call_or_bad_rpcvers, test_bad_flavor_and_bodies,
      test_truncated_everywhere, test_reply_headers);
