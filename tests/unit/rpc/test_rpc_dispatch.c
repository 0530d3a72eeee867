/*
 * test_rpc_dispatch.c - reply framing through rpc_process_buffer() for every
 * accept and deny case, with a tiny test program registered here: SUCCESS,
 * PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR, a handler's
 * AUTH_ERROR, RPC_MISMATCH, rejected credentials, dropped calls and -ENOSPC; and the
 * per-procedure statistics: only calls that ran are counted, each under its version.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "rpc/rpc_int.h"
#include "unit/test.h"

#define W(v)  (uint8_t)((v) >> 24), (uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v)
#define TPROG 0x20000099u

static uint32_t seen_uid;

static bool dec_u32(struct xdr_cur *c, void *args)
{
	return xdr_dec_u32(c, args);
}

static bool enc_u32(struct xdr_out *o, const void *res)
{
	return xdr_enc_u32(o, *(const uint32_t *)res);
}

static void run_null(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	(void)args;
	(void)res;
}

static void run_echo(struct rpc_req *req, const void *args, void *res)
{
	seen_uid = req->cred.uid;
	*(uint32_t *)res = *(const uint32_t *)args + 1;
}

static void run_deny(struct rpc_req *req, const void *args, void *res)
{
	(void)args;
	(void)res;
	req->auth_reject = RPC_AUTH_TOOWEAK;
}

static bool enc_huge(struct xdr_out *o, const void *res)
{
	static const uint8_t zero[1024];

	(void)res;
	for (int i = 0; i < 100; i++) {
		if (!xdr_enc_fixed(o, zero, sizeof(zero)))
			return false;
	}
	return true;
}

static const struct rpc_proc v2_procs[] = {
	[0] = {.name = "NULL", .run = run_null},
	[1] = {.name = "ECHO",
	       .decode = dec_u32,
	       .run = run_echo,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4},
	[2] = {.name = "HOLE"},
	[3] = {.name = "DENY", .run = run_deny, .encode = enc_u32, .res_size = 4},
	[4] = {.name = "HUGE", .run = run_null, .encode = enc_huge, .blocking = true},
};
static const struct rpc_proc v4_procs[] = {
	[0] = {.name = "NONULL"},
	[1] = {.name = "ECHO4",
	       .decode = dec_u32,
	       .run = run_echo,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4},
};
static const struct rpc_version tvers[] = {
	{.vers = 2, .nprocs = 5, .procs = v2_procs},
	{.vers = 4, .nprocs = 2, .procs = v4_procs},
};
static const struct rpc_program tprog = {
	.name = "test", .prog = TPROG, .nvers = 2, .versions = tvers};

static long serve(const uint8_t *call, size_t len, uint8_t *reply, size_t cap)
{
	if (!rpc_program_find(TPROG))
		rpc_register(&tprog);
	return rpc_process_buffer(call, len, NULL, 0, reply, cap);
}

/* Build a call with an AUTH_SYS (uid 500) or AUTH_NONE credential and one arg word. */
static size_t mkcall(uint8_t *b, uint32_t xid, uint32_t rpcvers, uint32_t prog, uint32_t vers,
		     uint32_t proc, uint32_t flavor, bool arg)
{
	const uint8_t sys[] = {W(1), W(20), W(0), W(0), W(500), W(600), W(0)};
	const uint8_t hdr[] = {W(xid), W(0), W(rpcvers), W(prog), W(vers), W(proc)};
	size_t n = 0;

	memcpy(b, hdr, sizeof(hdr));
	n += sizeof(hdr);
	if (flavor == RPC_AUTH_SYS) {
		memcpy(b + n, sys, sizeof(sys));
		n += sizeof(sys);
	} else {
		xdr_put_u32(b + n, flavor);
		xdr_put_u32(b + n + 4, 0);
		n += 8;
	}
	memset(b + n, 0, 8);
	n += 8;
	if (arg) {
		xdr_put_u32(b + n, 41);
		n += 4;
	}
	return n;
}

#define EXPECT_REPLY(call, n, ...)                                                                 \
	do {                                                                                       \
		static const uint8_t want_[] = {__VA_ARGS__};                                      \
		uint8_t got_[256];                                                                 \
		long r_ = serve(call, n, got_, sizeof(got_));                                      \
		CHECK_EQ(r_, sizeof(want_));                                                       \
		if (r_ == (long)sizeof(want_))                                                     \
			CHECK_MEM(got_, want_, sizeof(want_));                                     \
	} while (0)

static void test_success_auth_sys_and_none(void)
{
	uint8_t c[128];
	size_t n;

	n = mkcall(c, 9, 2, TPROG, 2, 1, RPC_AUTH_SYS, true);
	EXPECT_REPLY(c, n, W(9), W(1), W(0), W(0), W(0), W(0), W(42));
	CHECK_EQ(seen_uid, 500);
	n = mkcall(c, 10, 2, TPROG, 2, 1, RPC_AUTH_NONE, true);
	EXPECT_REPLY(c, n, W(10), W(1), W(0), W(0), W(0), W(0), W(42));
	CHECK_EQ(seen_uid, 65534);
	n = mkcall(c, 11, 2, TPROG, 2, 0, RPC_AUTH_NONE, false);
	EXPECT_REPLY(c, n, W(11), W(1), W(0), W(0), W(0), W(0));
}

static void test_accept_errors(void)
{
	uint8_t c[128];
	size_t n;

	n = mkcall(c, 1, 2, TPROG + 1, 2, 1, RPC_AUTH_NONE, true);
	EXPECT_REPLY(c, n, W(1), W(1), W(0), W(0), W(0), W(RPC_PROG_UNAVAIL));
	n = mkcall(c, 2, 2, TPROG, 3, 1, RPC_AUTH_NONE, true);
	EXPECT_REPLY(c, n, W(2), W(1), W(0), W(0), W(0), W(RPC_PROG_MISMATCH), W(2), W(4));
	n = mkcall(c, 3, 2, TPROG, 2, 2, RPC_AUTH_NONE, true);
	EXPECT_REPLY(c, n, W(3), W(1), W(0), W(0), W(0), W(RPC_PROC_UNAVAIL));
	n = mkcall(c, 4, 2, TPROG, 2, 99, RPC_AUTH_NONE, true);
	EXPECT_REPLY(c, n, W(4), W(1), W(0), W(0), W(0), W(RPC_PROC_UNAVAIL));
	n = mkcall(c, 5, 2, TPROG, 4, 0, RPC_AUTH_NONE, false); /* no NULL in v4's table */
	EXPECT_REPLY(c, n, W(5), W(1), W(0), W(0), W(0), W(RPC_PROC_UNAVAIL));
	n = mkcall(c, 6, 2, TPROG, 2, 1, RPC_AUTH_NONE, false);
	EXPECT_REPLY(c, n, W(6), W(1), W(0), W(0), W(0), W(RPC_GARBAGE_ARGS));
	n = mkcall(c, 7, 2, TPROG, 2, 4, RPC_AUTH_NONE, false); /* encode runs out of room */
	EXPECT_REPLY(c, n, W(7), W(1), W(0), W(0), W(0), W(RPC_SYSTEM_ERR));
}

static void test_denials(void)
{
	uint8_t c[128];
	size_t n;

	n = mkcall(c, 1, 2, TPROG, 2, 3, RPC_AUTH_SYS, false);
	EXPECT_REPLY(c, n, W(1), W(1), W(1), W(RPC_AUTH_ERROR), W(RPC_AUTH_TOOWEAK));
	n = mkcall(c, 2, 3, TPROG, 2, 1, RPC_AUTH_NONE, true);
	EXPECT_REPLY(c, n, W(2), W(1), W(1), W(RPC_MISMATCH), W(2), W(2));
	n = mkcall(c, 3, 2, TPROG, 2, 1, 6, true);
	EXPECT_REPLY(c, n, W(3), W(1), W(1), W(RPC_AUTH_ERROR), W(RPC_AUTH_REJECTEDCRED));
	n = mkcall(c, 4, 2, TPROG, 2, 1, RPC_AUTH_SYS, true);
	c[31] = 16; /* AUTH_SYS body too short for its gid count */
	EXPECT_REPLY(c, n, W(4), W(1), W(1), W(RPC_AUTH_ERROR), W(RPC_AUTH_BADCRED));
}

static void test_drops_truncation_and_nospc(void)
{
	uint8_t c[128], r[256];
	size_t n = mkcall(c, 8, 2, TPROG, 2, 1, RPC_AUTH_NONE, true);

	for (size_t k = 0; k < n - 4; k++)
		CHECK_EQ(serve(c, k, r, sizeof(r)), 0);
	for (size_t k = n - 4; k < n; k++)
		EXPECT_REPLY(c, k, W(8), W(1), W(0), W(0), W(0), W(RPC_GARBAGE_ARGS));
	c[7] = 1; /* a REPLY is never answered */
	CHECK_EQ(serve(c, n, r, sizeof(r)), 0);
	c[7] = 0;
	CHECK_EQ(serve(c, n, r, 27), -ENOSPC);
	CHECK_EQ(serve(c, n, r, 28), 28);
}

static void test_register_and_peer_str(void)
{
	struct rpc_req req;
	struct sockaddr_in *sin = (struct sockaddr_in *)&req.peer;
	char buf[64];

	if (!rpc_program_find(TPROG))
		CHECK_EQ(rpc_register(&tprog), 0);
	CHECK_EQ(rpc_register(&tprog), -EEXIST);
	CHECK(rpc_program_find(TPROG) == &tprog);
	CHECK(rpc_program_find(1) == NULL);
	memset(&req, 0, sizeof(req));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0xc0000207);
	CHECK(strcmp(rpc_peer_str(&req, buf, sizeof(buf)), "192.0.2.7") == 0);
	req.peer.ss_family = AF_UNIX;
	CHECK(strcmp(rpc_peer_str(&req, buf, sizeof(buf)), "?") == 0);
}

/* Calls counted so far for test program version @vers, procedure @proc. */
struct count_arg {
	uint32_t vers;
	const char *proc;
	uint64_t calls;
	uint64_t ns_total, ns_max;
};

static void count_cb(void *arg, const char *prog, uint32_t vers, const char *proc,
		     const struct rpc_proc_stats *st)
{
	struct count_arg *a = arg;

	if (strcmp(prog, "test") == 0 && vers == a->vers && strcmp(proc, a->proc) == 0) {
		a->calls = st->calls;
		a->ns_total = st->ns_total;
		a->ns_max = st->ns_max;
	}
}

static uint64_t counted(uint32_t vers, const char *proc)
{
	struct count_arg a = {.vers = vers, .proc = proc};

	rpc_stats_walk(count_cb, &a);
	CHECK(a.ns_max <= a.ns_total);
	return a.calls;
}

static void test_stats_count_what_ran(void)
{
	uint64_t echo, echo4, deny;
	uint8_t c[128], r[256];
	size_t n;

	if (!rpc_program_find(TPROG))
		CHECK_EQ(rpc_register(&tprog), 0);
	echo = counted(2, "ECHO");
	echo4 = counted(4, "ECHO4");
	deny = counted(2, "DENY");
	for (int i = 0; i < 3; i++) {
		n = mkcall(c, 20, 2, TPROG, 2, 1, RPC_AUTH_NONE, true);
		CHECK(serve(c, n, r, sizeof(r)) > 0);
	}
	n = mkcall(c, 21, 2, TPROG, 4, 1, RPC_AUTH_NONE, true);
	CHECK(serve(c, n, r, sizeof(r)) > 0);
	CHECK(serve(c, n, r, sizeof(r)) > 0);
	n = mkcall(c, 22, 2, TPROG, 2, 1, RPC_AUTH_NONE, false); /* GARBAGE_ARGS: never ran */
	CHECK(serve(c, n, r, sizeof(r)) > 0);
	n = mkcall(c, 23, 2, TPROG, 2, 2, RPC_AUTH_NONE, false); /* PROC_UNAVAIL */
	CHECK(serve(c, n, r, sizeof(r)) > 0);
	n = mkcall(c, 24, 2, TPROG, 2, 3, RPC_AUTH_SYS, false); /* ran, then refused */
	CHECK(serve(c, n, r, sizeof(r)) > 0);
	CHECK_EQ(counted(2, "ECHO") - echo, 3);
	CHECK_EQ(counted(4, "ECHO4") - echo4, 2);
	CHECK_EQ(counted(2, "DENY") - deny, 1);
	CHECK_EQ(counted(2, "HOLE"), 0);
}

TESTS(test_success_auth_sys_and_none, test_accept_errors, test_denials,
      test_drops_truncation_and_nospc, test_register_and_peer_str, test_stats_count_what_ran);
