/*
 * test_xdr.c - unit tests for the XDR primitives in src/xdr/xdr.c.
 */
#include "unit/test.h"
#include "xdr/xdr.h"

static void test_u32_u64_round_trip(void)
{
	uint8_t buf[64];
	struct xdr_out o;
	struct xdr_cur c;
	uint32_t u;
	uint64_t v;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_u32(&o, 0xdeadbeef));
	CHECK(xdr_enc_u64(&o, 0x0123456789abcdefULL));
	CHECK_EQ(o.len, 12);
	CHECK_EQ(buf[0], 0xde);
	CHECK_EQ(buf[11], 0xef);
	xdr_cur_init(&c, buf, o.len);
	CHECK(xdr_dec_u32(&c, &u));
	CHECK_EQ(u, 0xdeadbeef);
	CHECK(xdr_dec_u64(&c, &v));
	CHECK(v == 0x0123456789abcdefULL);
	CHECK(!xdr_dec_u32(&c, &u));
}

static void test_bool_rejects_other_values(void)
{
	const uint8_t two[4] = {0, 0, 0, 2};
	const uint8_t one[4] = {0, 0, 0, 1};
	struct xdr_cur c;
	bool b = false;

	xdr_cur_init(&c, two, 4);
	CHECK(!xdr_dec_bool(&c, &b));
	xdr_cur_init(&c, one, 4);
	CHECK(xdr_dec_bool(&c, &b));
	CHECK(b);
}

static void test_opaque_padding_and_limits(void)
{
	uint8_t buf[32];
	struct xdr_out o;
	struct xdr_cur c;
	struct xdr_view v;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_opaque(&o, "abcde", 5));
	CHECK_EQ(o.len, 12);
	CHECK_EQ(buf[9], 0);
	CHECK_EQ(buf[11], 0);
	xdr_cur_init(&c, buf, o.len);
	CHECK(!xdr_dec_opaque(&c, 4, &v)); /* longer than the limit */
	xdr_cur_init(&c, buf, o.len);
	CHECK(xdr_dec_opaque(&c, 5, &v));
	CHECK_EQ(v.len, 5);
	CHECK_MEM(v.data, "abcde", 5);
	CHECK_EQ(xdr_cur_left(&c), 0);
	/* Truncated at every offset: a clean false. */
	for (size_t n = 0; n < 12; n++) {
		xdr_cur_init(&c, buf, n);
		CHECK(!xdr_dec_opaque(&c, 64, &v));
	}
}

static void test_string_rejects_nul(void)
{
	uint8_t buf[16];
	struct xdr_out o;
	struct xdr_cur c;
	struct xdr_view v;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_opaque(&o, "a\0b", 3));
	xdr_cur_init(&c, buf, o.len);
	CHECK(!xdr_dec_string(&c, 255, &v));
}

static void test_encoder_out_of_space(void)
{
	uint8_t buf[6];
	struct xdr_out o;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_u32(&o, 1));
	CHECK(!xdr_enc_u32(&o, 2));
	CHECK(!xdr_enc_opaque(&o, "x", 1));
	CHECK_EQ(o.len, 4);
}

static void test_reference_segments_splice_in_order(void)
{
	uint8_t buf[64], flat[64];
	struct iovec iov[2 * XDR_OUT_MAXSEG + 1];
	struct xdr_out o;
	unsigned n;
	size_t total = 0;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_u32(&o, 7));
	CHECK(xdr_enc_opaque_ref(&o, "hello", 5));
	CHECK(xdr_enc_u32(&o, 9));
	CHECK_EQ(xdr_out_total(&o), 4 + 4 + 5 + 3 + 4);
	n = xdr_out_iov(&o, iov, 2 * XDR_OUT_MAXSEG + 1);
	CHECK_EQ(n, 3);
	for (unsigned i = 0; i < n; i++)
		total += iov[i].iov_len;
	CHECK_EQ(total, xdr_out_total(&o));
	xdr_out_flatten(&o, flat);
	CHECK_EQ(xdr_get_u32(flat + 4), 5);
	CHECK_MEM(flat + 8, "hello\0\0\0", 8);
	CHECK_EQ(xdr_get_u32(flat + 16), 9);
	xdr_out_truncate(&o, 4);
	CHECK_EQ(o.nseg, 0);
	CHECK_EQ(xdr_out_total(&o), 4);
}

TESTS(test_u32_u64_round_trip, test_bool_rejects_other_values, test_opaque_padding_and_limits,
      test_string_rejects_nul, test_encoder_out_of_space, test_reference_segments_splice_in_order)
