/*
 * fuzz_recmark.c - fuzz TCP record marking reassembly (src/net/recmark.h).
 *
 * Input: byte 0 picks the record size limit, byte 1 seeds how the rest is cut into
 * reads (as a socket would deliver it) and how often bytes are taken "directly"
 * (recmark_direct(), as the transport does for large WRITEs); the rest is the byte
 * stream from the client, record marks included. The harness assembles records the
 * way the transport does and checks the parser's promises: it never takes more than
 * it was given or than the fragment holds, a record never exceeds the limit, and a
 * completed record holds exactly the bytes its fragments announced.
 */
#include <stdbool.h>

#include "fuzz/fuzz.h"
#include "net/recmark.h"

static const size_t limits[] = {0, 4, 64, 1024, 65536, 1 << 20, (size_t)1 << 31};

/* A small deterministic generator, so that an input always replays the same way. */
static uint32_t next_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recmark rm;
	uint8_t *rec = NULL;
	size_t have = 0, announced = 0, max, pos = 2;
	uint32_t seed;

	if (size < 2)
		return 0;
	max = limits[data[0] % (sizeof(limits) / sizeof(limits[0]))];
	seed = data[1];
	recmark_init(&rm, max);
	for (;;) {
		size_t chunk = 1 + next_rand(&seed) % 97, take = 0, avail;
		enum rm_event ev;

		avail = size - pos < chunk ? size - pos : chunk;
		ev = recmark_next(&rm, data + pos, avail, &take);
		if (take > avail)
			abort();
		switch (ev) {
		case RM_NEED_MORE:
			if (take)
				abort();
			if (avail == size - pos)
				goto out; /* the stream ended inside a record */
			break;
		case RM_FRAG:
			if (take != 4 || rm.rec_len > max || rm.rec_len < have)
				abort();
			announced = rm.rec_len;
			/* The transport grows its buffer to the announced length. */
			if (rm.rec_len > (1u << 20))
				goto out; /* valid, but more than this input can fill */
			rec = realloc(rec, rm.rec_len ? rm.rec_len : 1);
			if (!rec)
				abort();
			break;
		case RM_BYTES:
			if (take == 0 || have + take > rm.rec_len)
				abort();
			memcpy(rec + have, data + pos, take);
			have += take;
			break;
		case RM_RECORD:
			if (take || have != announced || rm.rec_len != 0)
				abort();
			have = announced = 0;
			break;
		case RM_TOO_BIG:
			goto out;
		}
		pos += take;
		/* Sometimes receive the rest of a fragment "directly", as for a WRITE. */
		if (ev == RM_BYTES && rm.frag_left && next_rand(&seed) % 4 == 0) {
			size_t n = rm.frag_left < size - pos ? rm.frag_left : size - pos;

			n = n > 8 ? n / 2 : n;
			memcpy(rec + have, data + pos, n);
			recmark_direct(&rm, n);
			have += n;
			pos += n;
		}
	}
out:
	free(rec);
	return 0;
}
