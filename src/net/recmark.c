/*
 * recmark.c - TCP record marking parser (RFC 5531 section 11), see recmark.h.
 */
#include "net/recmark.h"

#include "xdr/xdr.h"

void recmark_init(struct recmark *rm, size_t max)
{
	rm->max = max;
	rm->rec_len = 0;
	rm->frag_left = 0;
	rm->in_frag = false;
	rm->last = false;
}

enum rm_event recmark_next(struct recmark *rm, const uint8_t *in, size_t avail, size_t *take)
{
	uint32_t mark;

	*take = 0;
	if (rm->in_frag && rm->frag_left == 0) {
		rm->in_frag = false;
		if (rm->last) {
			rm->rec_len = 0;
			rm->last = false;
			return RM_RECORD;
		}
	}
	if (rm->in_frag) {
		if (avail == 0)
			return RM_NEED_MORE;
		*take = avail < rm->frag_left ? avail : rm->frag_left;
		rm->frag_left -= (uint32_t)*take;
		return RM_BYTES;
	}
	if (avail < 4)
		return RM_NEED_MORE;
	mark = xdr_get_u32(in);
	if ((mark & ~RM_LAST_FRAG) > rm->max - rm->rec_len)
		return RM_TOO_BIG;
	*take = 4;
	rm->in_frag = true;
	rm->last = (mark & RM_LAST_FRAG) != 0;
	rm->frag_left = mark & ~RM_LAST_FRAG;
	rm->rec_len += rm->frag_left;
	return RM_FRAG;
}

void recmark_direct(struct recmark *rm, size_t n)
{
	rm->frag_left -= (uint32_t)n;
}
