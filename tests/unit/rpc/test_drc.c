/*
 * test_drc.c - the duplicate request cache: a retransmission after the reply is a
 * hit with the original bytes (also from another port of the same host), one during
 * the call is dropped, other calls miss, and the entry, byte and age bounds hold.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "rpc/drc.h"
#include "unit/test.h"

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static void key_for(struct drc *d, struct drc_key *k, uint32_t xid, uint16_t port, uint32_t ip,
		    uint8_t argbyte)
{
	struct sockaddr_in sin;
	uint8_t args[16];

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(ip);
	memset(args, argbyte, sizeof(args));
	drc_make_key(d, k, (struct sockaddr *)&sin, xid, 100003, 3, 8, args, sizeof(args), 56);
}

static void reply_of(struct xdr_out *o, uint8_t *buf, size_t cap, uint32_t xid, size_t len)
{
	xdr_out_init(o, buf, cap);
	xdr_enc_u32(o, xid);
	while (o->len < len)
		xdr_enc_u32(o, 0x5a5a5a5a);
}

static void test_hit_and_in_progress(void)
{
	struct drc *d = drc_new(4, 8, 1 << 20, 120000);
	struct drc_key k, k2;
	struct drc_slot slot, slot2;
	struct arena a;
	uint8_t rbuf[64], out[64];
	struct xdr_out o;
	const void *rep;
	size_t len;

	arena_init(&a, 4096);
	key_for(d, &k, 77, 900, 0x0a000001, 1);
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	CHECK_EQ(drc_begin(d, &k, &slot2, &a, out, sizeof(out), &rep, &len), DRC_IN_PROGRESS);
	reply_of(&o, rbuf, sizeof(rbuf), 77, 40);
	drc_done(d, &slot, &o);
	/* Same host, another source port (a reconnect): still a hit. */
	key_for(d, &k2, 77, 901, 0x0a000001, 1);
	memset(out, 0, sizeof(out));
	CHECK_EQ(drc_begin(d, &k2, &slot2, &a, out, sizeof(out), &rep, &len), DRC_HIT);
	CHECK(rep == out);
	CHECK_EQ(len, 40);
	CHECK_MEM(out, rbuf, 40);
	/* A reply larger than the caller's buffer comes back in the arena. */
	CHECK_EQ(drc_begin(d, &k2, &slot2, &a, out, 16, &rep, &len), DRC_HIT);
	CHECK(rep != out && rep != NULL);
	CHECK_EQ(len, 40);
	/* Other xid, other host, other arguments: misses. */
	key_for(d, &k2, 78, 900, 0x0a000001, 1);
	CHECK_EQ(drc_begin(d, &k2, &slot2, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	drc_abort(d, &slot2);
	key_for(d, &k2, 77, 900, 0x0a000002, 1);
	CHECK_EQ(drc_begin(d, &k2, &slot2, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	key_for(d, &k2, 77, 900, 0x0a000001, 2);
	CHECK_EQ(drc_begin(d, &k2, &slot2, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	/* An aborted entry is forgotten. */
	key_for(d, &k2, 78, 900, 0x0a000001, 1);
	CHECK_EQ(drc_begin(d, &k2, &slot2, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	arena_fini(&a);
	drc_free(d);
}

static void test_entry_bound_and_stale_slot(void)
{
	struct drc *d = drc_new(2, 4, 1 << 20, 120000);
	struct drc_slot first, slot;
	struct drc_stats st;
	struct drc_key k;
	struct arena a;
	uint8_t rbuf[64], out[64];
	struct xdr_out o;
	const void *rep;
	size_t len;

	arena_init(&a, 4096);
	key_for(d, &k, 1000, 1, 1, 0);
	CHECK_EQ(drc_begin(d, &k, &first, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	for (uint32_t x = 1; x < 200; x++) {
		key_for(d, &k, 1000 + x, 1, 1, 0);
		CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
		reply_of(&o, rbuf, sizeof(rbuf), x, 32);
		drc_done(d, &slot, &o);
	}
	drc_get_stats(d, &st);
	CHECK(st.entries <= 8);
	CHECK(st.evictions >= 190);
	/* The first call's entry was evicted: completing it stores nothing. */
	reply_of(&o, rbuf, sizeof(rbuf), 1000, 32);
	drc_done(d, &first, &o);
	drc_get_stats(d, &st);
	CHECK(st.entries <= 8);
	key_for(d, &k, 1000, 1, 1, 0);
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	/* The most recent one is still there. */
	key_for(d, &k, 1199, 1, 1, 0);
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_HIT);
	arena_fini(&a);
	drc_free(d);
}

static void test_byte_bound(void)
{
	struct drc *d = drc_new(1, 64, 8192, 120000);
	static uint8_t rbuf[4096];
	struct drc_slot slot;
	struct drc_stats st;
	struct drc_key k;
	struct arena a;
	uint8_t out[64];
	struct xdr_out o;
	const void *rep;
	size_t len;

	arena_init(&a, 4096);
	for (uint32_t x = 0; x < 20; x++) {
		key_for(d, &k, x, 1, 1, 0);
		CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
		reply_of(&o, rbuf, sizeof(rbuf), x, 3000);
		drc_done(d, &slot, &o);
		drc_get_stats(d, &st);
		CHECK(st.bytes <= 8192);
	}
	CHECK(st.bytes > 0);
	/* A reply larger than the whole bound is not kept at all. */
	key_for(d, &k, 500, 1, 1, 0);
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	o.len = 0;
	{
		static uint8_t huge[9000];

		reply_of(&o, huge, sizeof(huge), 500, 9000);
		drc_done(d, &slot, &o);
	}
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	arena_fini(&a);
	drc_free(d);
}

static void test_old_entries_not_replayed(void)
{
	struct drc *d = drc_new(1, 8, 1 << 20, 120000);
	struct drc_slot slot;
	struct drc_key k;
	struct arena a;
	uint8_t rbuf[64], out[64];
	struct xdr_out o;
	const void *rep;
	size_t len;

	arena_init(&a, 4096);
	fake_now = 1000000;
	drc_set_clock(d, fake_clock);
	key_for(d, &k, 5, 1, 1, 0);
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	reply_of(&o, rbuf, sizeof(rbuf), 5, 16);
	drc_done(d, &slot, &o);
	fake_now += 119000;
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_HIT);
	fake_now += 2000;
	CHECK_EQ(drc_begin(d, &k, &slot, &a, out, sizeof(out), &rep, &len), DRC_MISS);
	arena_fini(&a);
	drc_free(d);
}

TESTS(test_hit_and_in_progress, test_entry_bound_and_stale_slot, test_byte_bound,
      test_old_entries_not_replayed);
