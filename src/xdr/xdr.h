/*
 * xdr.h - bounds-checked XDR (RFC 4506) cursors: xdr_dec_* reads, xdr_enc_* writes.
 *
 * Decoders check the length before every read, return false on short or malformed
 * input and never allocate: opaques and strings come back as views into the buffer
 * being decoded. Encoders write into a caller-owned buffer and report only "out of
 * space"; large payloads (READ data) can be attached by reference so they are never
 * copied (see xdr_enc_opaque_ref).
 */
#ifndef SHOAL_XDR_H
#define SHOAL_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct xdr_out;

/* A view of bytes owned by someone else (usually the request buffer). */
struct xdr_view {
	const uint8_t *data;
	uint32_t len;
};

/* Decode cursor over [p, end). */
struct xdr_cur {
	const uint8_t *p;
	const uint8_t *end;
};

static inline void xdr_cur_init(struct xdr_cur *c, const void *buf, size_t len)
{
	c->p = buf;
	c->end = c->p + len;
}

static inline size_t xdr_cur_left(const struct xdr_cur *c)
{
	return (size_t)(c->end - c->p);
}

/* Each returns false, leaving *v unspecified, if the input is too short. */
bool xdr_dec_u32(struct xdr_cur *c, uint32_t *v);
bool xdr_dec_i32(struct xdr_cur *c, int32_t *v);
bool xdr_dec_u64(struct xdr_cur *c, uint64_t *v);
/* Booleans must be 0 or 1 on the wire (RFC 4506 section 4.4); anything else is false. */
bool xdr_dec_bool(struct xdr_cur *c, bool *v);
/* Fixed-length opaque of @len bytes plus padding; *data points into the buffer. */
bool xdr_dec_fixed(struct xdr_cur *c, uint32_t len, const uint8_t **data);
/* Variable-length opaque of at most @maxlen bytes; a view into the buffer. */
bool xdr_dec_opaque(struct xdr_cur *c, uint32_t maxlen, struct xdr_view *v);
/* A string: as opaque, and additionally refused if it contains a NUL byte. */
bool xdr_dec_string(struct xdr_cur *c, uint32_t maxlen, struct xdr_view *v);
/*
 * The codec of XDR's void, shaped as an RPC procedure's decoder and encoder (every
 * program's NULL procedure uses them): nothing is read or written.
 */
bool xdr_dec_void(struct xdr_cur *c, void *args);
bool xdr_enc_void(struct xdr_out *o, const void *res);
/* Skip @len bytes plus padding. */
bool xdr_dec_skip(struct xdr_cur *c, uint32_t len);

/*
 * Encode buffer. Bytes are written to buf[0..len) ("inline"); an opaque attached by
 * reference is recorded as a segment that sits at inline offset @at. The final reply
 * is the inline bytes with every segment spliced in at its offset, see xdr_out_iov().
 */
#define XDR_OUT_MAXSEG 4

struct xdr_seg {
	size_t at;
	const void *ptr;
	size_t len;
};

struct xdr_out {
	uint8_t *buf;
	size_t cap;
	size_t len;
	unsigned nseg;
	struct xdr_seg seg[XDR_OUT_MAXSEG];
	size_t seg_bytes;
};

static inline void xdr_out_init(struct xdr_out *o, void *buf, size_t cap)
{
	o->buf = buf;
	o->cap = cap;
	o->len = 0;
	o->nseg = 0;
	o->seg_bytes = 0;
}

/* Total encoded length, inline bytes plus referenced segments. */
static inline size_t xdr_out_total(const struct xdr_out *o)
{
	return o->len + o->seg_bytes;
}

bool xdr_enc_u32(struct xdr_out *o, uint32_t v);
bool xdr_enc_i32(struct xdr_out *o, int32_t v);
bool xdr_enc_u64(struct xdr_out *o, uint64_t v);
bool xdr_enc_bool(struct xdr_out *o, bool v);
/* Fixed-length opaque, copied, zero padded to a multiple of four. */
bool xdr_enc_fixed(struct xdr_out *o, const void *data, uint32_t len);
/* Variable-length opaque or string, copied. */
bool xdr_enc_opaque(struct xdr_out *o, const void *data, uint32_t len);
/*
 * Variable-length opaque whose bytes are not copied: @data must stay valid until the
 * reply has been sent (typically it lives in the request arena). Falls back to a copy
 * when all segments are in use.
 */
bool xdr_enc_opaque_ref(struct xdr_out *o, const void *data, uint32_t len);
/* Reserve @n inline bytes (a multiple of 4) to be filled in later; NULL if no room. */
uint8_t *xdr_enc_reserve(struct xdr_out *o, size_t n);
/* Forget everything encoded after inline length @len (no segments may follow it). */
void xdr_out_truncate(struct xdr_out *o, size_t len);
/*
 * Fill @iov (room for @max entries, at least 2 * XDR_OUT_MAXSEG + 1) with the
 * encoded message in order; returns the number used.
 */
unsigned xdr_out_iov(const struct xdr_out *o, struct iovec *iov, unsigned max);
/* Copy the whole encoded message to @dst, which holds xdr_out_total() bytes. */
void xdr_out_flatten(const struct xdr_out *o, void *dst);

/* Big-endian helpers for code that patches reserved slots. */
static inline void xdr_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint32_t xdr_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t xdr_pad(uint32_t len)
{
	return (4 - (len & 3)) & 3;
}

#endif
