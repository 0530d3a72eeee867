/*
 * test_recmark.c - RFC 5531 record marking: single and multi-fragment records,
 * records split at every byte, back-to-back records and the size limit.
 */
#include "net/recmark.h"
#include "unit/test.h"
#include "xdr/xdr.h"

/* Feed @in in chunks of @step bytes; collect records into @out (lengths in @lens). */
static int assemble(const uint8_t *in, size_t len, size_t step, size_t max, uint8_t *out,
		    size_t *lens, int maxrec, bool *too_big)
{
	struct recmark rm;
	size_t have = 0, pos = 0, take, rec = 0, outpos = 0;
	uint8_t buf[256];
	int n = 0;

	*too_big = false;
	recmark_init(&rm, max);
	while (pos < len || have) {
		size_t add = len - pos < step ? len - pos : step;

		memcpy(buf + have, in + pos, add);
		have += add;
		pos += add;
		for (;;) {
			enum rm_event ev = recmark_next(&rm, buf, have, &take);

			if (ev == RM_NEED_MORE)
				break;
			if (ev == RM_TOO_BIG) {
				*too_big = true;
				return n;
			}
			if (ev == RM_BYTES) {
				memcpy(out + outpos, buf, take);
				outpos += take;
				rec += take;
			}
			if (ev == RM_RECORD && n < maxrec) {
				lens[n++] = rec;
				rec = 0;
			}
			memmove(buf, buf + take, have - take);
			have -= take;
		}
		if (add == 0)
			break;
	}
	return n;
}

static void put_mark(uint8_t *p, bool last, uint32_t len)
{
	xdr_put_u32(p, (last ? RM_LAST_FRAG : 0) | len);
}

static void test_single_fragment(void)
{
	uint8_t in[12], out[16];
	size_t lens[4];
	bool big;

	put_mark(in, true, 8);
	memcpy(in + 4, "abcdefgh", 8);
	CHECK_EQ(assemble(in, sizeof(in), sizeof(in), 100, out, lens, 4, &big), 1);
	CHECK(!big);
	CHECK_EQ(lens[0], 8);
	CHECK_MEM(out, "abcdefgh", 8);
}

static void test_multi_fragment_every_split(void)
{
	/* Record "hello world!" as fragments of 5, 0 and 7 bytes, then a 3-byte record. */
	uint8_t in[4 + 5 + 4 + 4 + 7 + 4 + 3], out[64];
	size_t lens[4], p = 0;
	bool big;

	put_mark(in + p, false, 5);
	memcpy(in + p + 4, "hello", 5);
	p += 9;
	put_mark(in + p, false, 0);
	p += 4;
	put_mark(in + p, true, 7);
	memcpy(in + p + 4, " world!", 7);
	p += 11;
	put_mark(in + p, true, 3);
	memcpy(in + p + 4, "xyz", 3);
	p += 7;
	CHECK_EQ(p, sizeof(in));
	for (size_t step = 1; step <= sizeof(in); step++) {
		memset(out, 0, sizeof(out));
		CHECK_EQ(assemble(in, sizeof(in), step, 100, out, lens, 4, &big), 2);
		CHECK(!big);
		CHECK_EQ(lens[0], 12);
		CHECK_EQ(lens[1], 3);
		CHECK_MEM(out, "hello world!xyz", 15);
	}
}

static void test_empty_record(void)
{
	uint8_t in[4], out[4];
	size_t lens[2];
	bool big;

	put_mark(in, true, 0);
	CHECK_EQ(assemble(in, 4, 4, 100, out, lens, 2, &big), 1);
	CHECK_EQ(lens[0], 0);
}

static void test_oversized(void)
{
	uint8_t in[4 + 60 + 4], out[128];
	size_t lens[2];
	bool big;

	/* One fragment over the limit. */
	put_mark(in, true, 101);
	CHECK_EQ(assemble(in, 4, 4, 100, out, lens, 2, &big), 0);
	CHECK(big);
	/* Fragments that are each small but add up to more than the limit. */
	memset(in, 'a', sizeof(in));
	put_mark(in, false, 60);
	put_mark(in + 64, true, 41);
	CHECK_EQ(assemble(in, sizeof(in), 7, 100, out, lens, 2, &big), 0);
	CHECK(big);
	/* Exactly the limit is fine. */
	put_mark(in + 64, true, 40);
	CHECK(40 + 60 == 100);
}

static void test_direct_receive(void)
{
	struct recmark rm;
	uint8_t hdr[4];
	size_t take;

	recmark_init(&rm, 1 << 20);
	put_mark(hdr, true, 5000);
	CHECK_EQ(recmark_next(&rm, hdr, 4, &take), RM_FRAG);
	CHECK_EQ(take, 4);
	CHECK_EQ(rm.rec_len, 5000);
	recmark_direct(&rm, 3000);
	CHECK_EQ(rm.frag_left, 2000);
	recmark_direct(&rm, 2000);
	CHECK_EQ(recmark_next(&rm, hdr, 0, &take), RM_RECORD);
	CHECK_EQ(recmark_next(&rm, hdr, 0, &take), RM_NEED_MORE);
}

TESTS(test_single_fragment, test_multi_fragment_every_split, test_empty_record, test_oversized,
      test_direct_receive);
