/*
 * portmap_xdr.c - portmapper v2 wire format (RFC 1833 section 3.1).
 *
 * Only the wire format lives here; the registry and the procedures are in
 * portmap_proc.c.
 */
#include "portmap/portmap.h"

bool pmap_dec_mapping(struct xdr_cur *c, void *args)
{
	struct pmap_mapping *m = args;

	return xdr_dec_u32(c, &m->prog) && xdr_dec_u32(c, &m->vers) && xdr_dec_u32(c, &m->prot) &&
	       xdr_dec_u32(c, &m->port);
}

bool pmap_enc_mapping(struct xdr_out *o, const struct pmap_mapping *m)
{
	return xdr_enc_u32(o, m->prog) && xdr_enc_u32(o, m->vers) && xdr_enc_u32(o, m->prot) &&
	       xdr_enc_u32(o, m->port);
}

bool pmap_enc_bool_res(struct xdr_out *o, const void *resp)
{
	const struct pmap_bool_res *res = resp;

	return xdr_enc_bool(o, res->ok);
}

bool pmap_enc_port_res(struct xdr_out *o, const void *resp)
{
	const struct pmap_port_res *res = resp;

	return xdr_enc_u32(o, res->port);
}

bool pmap_enc_dump_res(struct xdr_out *o, const void *resp)
{
	const struct pmap_dump_res *res = resp;

	/* pmaplist: an optional-data list, "1 mapping" repeated, then 0 */
	for (size_t i = 0; i < res->n; i++) {
		if (!xdr_enc_bool(o, true) || !pmap_enc_mapping(o, &res->maps[i]))
			return false;
	}
	return xdr_enc_bool(o, false);
}

bool pmap_dec_dump_res(struct xdr_cur *c, struct arena *a, struct pmap_dump_res *res)
{
	struct xdr_cur scan = *c;
	struct pmap_mapping m;
	size_t n = 0;
	bool more;

	for (;;) {
		if (!xdr_dec_bool(&scan, &more))
			return false;
		if (!more)
			break;
		if (!pmap_dec_mapping(&scan, &m))
			return false;
		n++;
	}
	res->n = n;
	res->maps = n ? arena_alloc(a, n * sizeof(*res->maps)) : NULL;
	if (n && !res->maps)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!xdr_dec_bool(c, &more) || !pmap_dec_mapping(c, &res->maps[i]))
			return false;
	}
	return xdr_dec_bool(c, &more);
}
