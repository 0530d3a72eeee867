/*
 * xdr.c - XDR primitive codecs (RFC 4506): integers, booleans, opaques, strings.
 *
 * Every decoder checks the remaining length before it reads; every encoder checks the
 * remaining capacity before it writes. Nothing here allocates.
 */
#include "xdr/xdr.h"

#include <string.h>

bool xdr_dec_u32(struct xdr_cur *c, uint32_t *v)
{
	if (xdr_cur_left(c) < 4)
		return false;
	*v = xdr_get_u32(c->p);
	c->p += 4;
	return true;
}

bool xdr_dec_i32(struct xdr_cur *c, int32_t *v)
{
	uint32_t u;

	if (!xdr_dec_u32(c, &u))
		return false;
	*v = (int32_t)u;
	return true;
}

bool xdr_dec_u64(struct xdr_cur *c, uint64_t *v)
{
	uint32_t hi, lo;

	if (xdr_cur_left(c) < 8)
		return false;
	hi = xdr_get_u32(c->p);
	lo = xdr_get_u32(c->p + 4);
	c->p += 8;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

bool xdr_dec_bool(struct xdr_cur *c, bool *v)
{
	uint32_t u;

	if (!xdr_dec_u32(c, &u) || u > 1)
		return false;
	*v = u != 0;
	return true;
}

bool xdr_dec_fixed(struct xdr_cur *c, uint32_t len, const uint8_t **data)
{
	size_t need = (size_t)len + xdr_pad(len);

	if (xdr_cur_left(c) < need)
		return false;
	*data = c->p;
	c->p += need;
	return true;
}

bool xdr_dec_opaque(struct xdr_cur *c, uint32_t maxlen, struct xdr_view *v)
{
	uint32_t len;

	if (!xdr_dec_u32(c, &len) || len > maxlen)
		return false;
	v->len = len;
	return xdr_dec_fixed(c, len, &v->data);
}

bool xdr_dec_string(struct xdr_cur *c, uint32_t maxlen, struct xdr_view *v)
{
	if (!xdr_dec_opaque(c, maxlen, v))
		return false;
	return v->len == 0 || memchr(v->data, 0, v->len) == NULL;
}

bool xdr_dec_void(struct xdr_cur *c, void *args)
{
	(void)c;
	(void)args;
	return true;
}

bool xdr_enc_void(struct xdr_out *o, const void *res)
{
	(void)o;
	(void)res;
	return true;
}

bool xdr_dec_skip(struct xdr_cur *c, uint32_t len)
{
	const uint8_t *unused;

	return xdr_dec_fixed(c, len, &unused);
}

uint8_t *xdr_enc_reserve(struct xdr_out *o, size_t n)
{
	uint8_t *p;

	if (o->cap - o->len < n)
		return NULL;
	p = o->buf + o->len;
	o->len += n;
	return p;
}

bool xdr_enc_u32(struct xdr_out *o, uint32_t v)
{
	uint8_t *p = xdr_enc_reserve(o, 4);

	if (!p)
		return false;
	xdr_put_u32(p, v);
	return true;
}

bool xdr_enc_i32(struct xdr_out *o, int32_t v)
{
	return xdr_enc_u32(o, (uint32_t)v);
}

bool xdr_enc_u64(struct xdr_out *o, uint64_t v)
{
	uint8_t *p = xdr_enc_reserve(o, 8);

	if (!p)
		return false;
	xdr_put_u32(p, (uint32_t)(v >> 32));
	xdr_put_u32(p + 4, (uint32_t)v);
	return true;
}

bool xdr_enc_bool(struct xdr_out *o, bool v)
{
	return xdr_enc_u32(o, v ? 1 : 0);
}

bool xdr_enc_fixed(struct xdr_out *o, const void *data, uint32_t len)
{
	uint32_t pad = xdr_pad(len);
	uint8_t *p = xdr_enc_reserve(o, (size_t)len + pad);

	if (!p)
		return false;
	if (len)
		memcpy(p, data, len);
	memset(p + len, 0, pad);
	return true;
}

bool xdr_enc_opaque(struct xdr_out *o, const void *data, uint32_t len)
{
	size_t mark = o->len;

	if (!xdr_enc_u32(o, len))
		return false;
	if (!xdr_enc_fixed(o, data, len)) {
		o->len = mark;
		return false;
	}
	return true;
}

bool xdr_enc_opaque_ref(struct xdr_out *o, const void *data, uint32_t len)
{
	uint32_t pad = xdr_pad(len);
	uint8_t *p;

	if (o->nseg == XDR_OUT_MAXSEG || len == 0)
		return xdr_enc_opaque(o, data, len);
	if (o->cap - o->len < 4 + (size_t)pad)
		return false;
	xdr_enc_u32(o, len);
	o->seg[o->nseg].at = o->len;
	o->seg[o->nseg].ptr = data;
	o->seg[o->nseg].len = len;
	o->nseg++;
	o->seg_bytes += len;
	p = xdr_enc_reserve(o, pad);
	memset(p, 0, pad);
	return true;
}

void xdr_out_truncate(struct xdr_out *o, size_t len)
{
	while (o->nseg && o->seg[o->nseg - 1].at > len) {
		o->nseg--;
		o->seg_bytes -= o->seg[o->nseg].len;
	}
	if (len < o->len)
		o->len = len;
}

unsigned xdr_out_iov(const struct xdr_out *o, struct iovec *iov, unsigned max)
{
	size_t from = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < o->nseg && n + 2 <= max; i++) {
		if (o->seg[i].at > from) {
			iov[n].iov_base = o->buf + from;
			iov[n++].iov_len = o->seg[i].at - from;
		}
		iov[n].iov_base = (void *)o->seg[i].ptr;
		iov[n++].iov_len = o->seg[i].len;
		from = o->seg[i].at;
	}
	if (o->len > from && n < max) {
		iov[n].iov_base = o->buf + from;
		iov[n++].iov_len = o->len - from;
	}
	return n;
}

void xdr_out_flatten(const struct xdr_out *o, void *dst)
{
	uint8_t *d = dst;
	size_t from = 0;

	for (unsigned i = 0; i < o->nseg; i++) {
		memcpy(d, o->buf + from, o->seg[i].at - from);
		d += o->seg[i].at - from;
		memcpy(d, o->seg[i].ptr, o->seg[i].len);
		d += o->seg[i].len;
		from = o->seg[i].at;
	}
	memcpy(d, o->buf + from, o->len - from);
}
