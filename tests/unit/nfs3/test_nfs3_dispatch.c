/*
 * test_nfs3_dispatch.c - where each READ and WRITE of the NFSv3 program runs, as
 * rpc_call_begin() decides from its decoded arguments: small READs and small UNSTABLE
 * WRITEs on the event loop; stable WRITEs in the pool of calls that wait for an fsync;
 * large READs and large UNSTABLE WRITEs (which the kernel may hold to throttle dirty
 * pages) in the pool that never waits for a flush; metadata reads on the loop, with
 * that pool for the ones not cached. And the replies that READ, READDIR and
 * READDIRPLUS announce (what the transport reserves of its memory budget first).
 */
#include <netinet/in.h>

#include "nfs3/nfs3.h"
#include "nfs3/nfs3_client.h"
#include "rpc/rpc_int.h"
#include "unit/test.h"

static uint8_t payload[256 * 1024];

/* A call header (AUTH_NONE) for NFSv3 procedure @proc. */
static bool call_header(struct xdr_out *o, uint32_t proc)
{
	const uint32_t w[] = {77, 0, 2, NFS3_PROGRAM, NFS3_VERSION, proc, 0, 0, 0, 0};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!xdr_enc_u32(o, w[i]))
			return false;
	return true;
}

static uint32_t last_reply_bytes; /* what the last begin() announced */

/* Begin the call in @msg[0..len); *pool gets where it would block. */
static enum rpc_step begin(const uint8_t *msg, size_t len, enum rpc_pool *pool)
{
	static uint8_t reply[4096];
	struct rpc_req_priv pv;
	struct rpc_req req;
	enum rpc_step step;

	memset(&req, 0, sizeof(req));
	memset(&pv, 0, sizeof(pv));
	req.priv = &pv;
	req.ipproto = IPPROTO_TCP;
	arena_init(&req.arena, 4096);
	step = rpc_call_begin(&req, NULL, msg, len, reply, sizeof(reply));
	*pool = pv.pool;
	last_reply_bytes = pv.reply_bytes;
	arena_fini(&req.arena);
	return step;
}

static enum rpc_step write_step(uint32_t count, uint32_t stable, enum rpc_pool *pool)
{
	static uint8_t msg[sizeof(payload) + 512];
	struct nfs3_write_args a = {.fh = {.len = 8},
				    .offset = 4096,
				    .count = count,
				    .stable = stable,
				    .data = {.data = payload, .len = count}};

	static uint8_t flat[sizeof(msg)];
	struct xdr_out o;
	size_t at;

	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_WRITE) && nfs3_enc_write_args(&o, &a));
	CHECK_EQ(o.nseg, 1); /* the data, by reference: splice it in */
	at = o.seg[0].at;
	memcpy(flat, msg, at);
	memcpy(flat + at, payload, count);
	memcpy(flat + at + count, msg + at, o.len - at);
	return begin(flat, xdr_out_total(&o), pool);
}

static enum rpc_step read_step(uint32_t count, enum rpc_pool *pool)
{
	struct nfs3_read_args a = {.fh = {.len = 8}, .offset = 0, .count = count};
	uint8_t msg[512];
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_READ) && nfs3_enc_read_args(&o, &a));
	CHECK_EQ(o.nseg, 0);
	return begin(msg, o.len, pool);
}

static void test_write_placement(void)
{
	enum rpc_pool pool;

	CHECK_EQ(write_step(4096, NFS3_UNSTABLE, &pool), RPC_STEP_RUN);
	CHECK_EQ(write_step(65536, NFS3_UNSTABLE, &pool), RPC_STEP_RUN);
	CHECK_EQ(write_step(65537, NFS3_UNSTABLE, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(pool, RPC_POOL_READ);
	CHECK_EQ(write_step(sizeof(payload), NFS3_UNSTABLE, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(pool, RPC_POOL_READ);
	CHECK_EQ(write_step(4096, NFS3_FILE_SYNC, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(pool, RPC_POOL_SYNC);
	CHECK_EQ(write_step(sizeof(payload), NFS3_DATA_SYNC, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(pool, RPC_POOL_SYNC);
}

static void test_read_placement(void)
{
	enum rpc_pool pool;

	CHECK_EQ(read_step(32768, &pool), RPC_STEP_RUN);
	CHECK_EQ(last_reply_bytes, 32768);
	CHECK_EQ(read_step(65536, &pool), RPC_STEP_RUN);
	CHECK_EQ(read_step(1 << 20, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(pool, RPC_POOL_READ);
	CHECK_EQ(last_reply_bytes, 1 << 20);
	CHECK_EQ(read_step(0xffffffffu, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(last_reply_bytes, NFS3_MAXDATA); /* what we would send at most */
	CHECK_EQ(write_step(65536, NFS3_UNSTABLE, &pool), RPC_STEP_RUN);
	CHECK_EQ(last_reply_bytes, 0); /* a small reply: nothing to reserve */
}

/* READDIR announces count, READDIRPLUS maxcount, each up to our largest listing. */
static void test_dir_replies(void)
{
	struct nfs3_readdirplus_args p = {.dir = {.len = 8}, .dircount = 4096, .maxcount = 8192};
	struct nfs3_readdir_args d = {.dir = {.len = 8}, .count = 100000};
	enum rpc_pool pool;
	uint8_t msg[512];
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_READDIRPLUS) && nfs3_enc_readdirplus_args(&o, &p));
	CHECK_EQ(begin(msg, o.len, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(last_reply_bytes, 8192);
	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_READDIR) && nfs3_enc_readdir_args(&o, &d));
	CHECK_EQ(begin(msg, o.len, &pool), RPC_STEP_RUN_BLOCKING);
	CHECK_EQ(last_reply_bytes, 65536 - 512); /* NFS3_DIR_MAXREPLY */
}

/* GETATTR, LOOKUP and ACCESS run on the loop; one that would have to open a handle or
 * read a directory runs again in the pool that never waits for a flush. */
static void test_meta_placement(void)
{
	const struct nfs3_fh fh = {.len = 8};
	const struct nfs3_access_args acc = {.fh = {.len = 8}, .access = 1};
	enum rpc_pool pool;
	uint8_t msg[512];
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_GETATTR) && nfs3_enc_fh_args(&o, &fh));
	CHECK_EQ(begin(msg, o.len, &pool), RPC_STEP_RUN);
	CHECK_EQ(pool, RPC_POOL_READ);
	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_LOOKUP) && nfs3_enc_diropargs(&o, &fh, "x", 1));
	CHECK_EQ(begin(msg, o.len, &pool), RPC_STEP_RUN);
	CHECK_EQ(pool, RPC_POOL_READ);
	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(call_header(&o, NFS3PROC_ACCESS) && nfs3_enc_access_args(&o, &acc));
	CHECK_EQ(begin(msg, o.len, &pool), RPC_STEP_RUN);
	CHECK_EQ(pool, RPC_POOL_READ);
}

static void setup(void)
{
	static bool done;

	if (!done)
		CHECK_EQ(rpc_register(&nfs3_program), 0);
	done = true;
}

static void test_placement(void)
{
	setup();
	test_write_placement();
	test_read_placement();
	test_dir_replies();
	test_meta_placement();
}

TESTS(test_placement);
