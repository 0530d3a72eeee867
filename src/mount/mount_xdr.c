/*
 * mount_xdr.c - MOUNT wire format (RFC 1813 appendix I; fhstatus of RFC 1094 appendix A).
 *
 * Only the wire format lives here: no export table, no vfs. Server-side decoders
 * return views into the request; the result decoders (for clients and tests) copy
 * into an arena because lists have no fixed size.
 */
#include "mount/mount.h"

#include <string.h>

bool mount_dec_dirpath_args(struct xdr_cur *c, void *args)
{
	struct mount_dirpath_args *a = args;

	return xdr_dec_string(c, MNTPATHLEN, &a->path);
}

bool mount_enc_dirpath_args(struct xdr_out *o, const struct mount_dirpath_args *args)
{
	return xdr_enc_opaque(o, args->path.data, args->path.len);
}

bool mount_enc_mnt3_res(struct xdr_out *o, const void *resp)
{
	const struct mount_mnt3_res *res = resp;

	if (!xdr_enc_u32(o, res->status))
		return false;
	if (res->status != MNT3_OK)
		return true;
	if (res->fh_len > FHSIZE3 || res->nflavors > MOUNT_MAXFLAVORS)
		return false;
	if (!xdr_enc_opaque(o, res->fh, res->fh_len) || !xdr_enc_u32(o, res->nflavors))
		return false;
	for (uint32_t i = 0; i < res->nflavors; i++) {
		if (!xdr_enc_u32(o, res->flavors[i]))
			return false;
	}
	return true;
}

bool mount_enc_fhstatus(struct xdr_out *o, const void *resp)
{
	const struct mount_fhstatus *res = resp;

	if (!xdr_enc_u32(o, res->status))
		return false;
	return res->status != 0 || xdr_enc_fixed(o, res->fh, FHSIZE);
}

/* A string that is NULL is sent as empty. */
static bool enc_str(struct xdr_out *o, const char *s)
{
	return xdr_enc_opaque(o, s, s ? (uint32_t)strlen(s) : 0);
}

bool mount_enc_dump_res(struct xdr_out *o, const void *resp)
{
	const struct mount_dump_res *res = resp;

	/* mountlist: an XDR optional-data list, "1 entry" repeated, then 0 */
	for (size_t i = 0; i < res->n; i++) {
		if (!xdr_enc_bool(o, true) || !enc_str(o, res->list[i].hostname) ||
		    !enc_str(o, res->list[i].directory))
			return false;
	}
	return xdr_enc_bool(o, false);
}

bool mount_enc_export_res(struct xdr_out *o, const void *resp)
{
	const struct mount_export_res *res = resp;

	for (size_t i = 0; i < res->n; i++) {
		const struct mount_exportnode *en = &res->list[i];

		if (!xdr_enc_bool(o, true) || !enc_str(o, en->dir))
			return false;
		for (size_t g = 0; g < en->ngroups; g++) {
			if (!xdr_enc_bool(o, true) || !enc_str(o, en->groups[g]))
				return false;
		}
		if (!xdr_enc_bool(o, false))
			return false;
	}
	return xdr_enc_bool(o, false);
}

bool mount_dec_mnt3_res(struct xdr_cur *c, struct mount_mnt3_res *res)
{
	struct xdr_view fh;
	uint32_t n;

	memset(res, 0, sizeof(*res));
	if (!xdr_dec_u32(c, &res->status))
		return false;
	if (res->status != MNT3_OK)
		return true;
	if (!xdr_dec_opaque(c, FHSIZE3, &fh) || !xdr_dec_u32(c, &n))
		return false;
	res->fh_len = fh.len;
	memcpy(res->fh, fh.data, fh.len);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t fl;

		if (!xdr_dec_u32(c, &fl))
			return false;
		if (res->nflavors < MOUNT_MAXFLAVORS)
			res->flavors[res->nflavors++] = fl;
	}
	return true;
}

/* Decode a string of at most @max bytes into a NUL-terminated arena copy. */
static bool dec_str(struct xdr_cur *c, struct arena *a, uint32_t max, const char **out)
{
	struct xdr_view v;
	char *s;

	if (!xdr_dec_string(c, max, &v))
		return false;
	s = arena_alloc(a, (size_t)v.len + 1);
	if (!s)
		return false;
	memcpy(s, v.data, v.len);
	s[v.len] = '\0';
	*out = s;
	return true;
}

bool mount_dec_dump_res(struct xdr_cur *c, struct arena *a, struct mount_dump_res *res)
{
	struct xdr_cur scan = *c;
	struct xdr_view v;
	size_t n = 0;
	bool more;

	/* pass 1: validate and count, so that the array is allocated once */
	for (;;) {
		if (!xdr_dec_bool(&scan, &more))
			return false;
		if (!more)
			break;
		if (!xdr_dec_string(&scan, MNTNAMLEN, &v) || !xdr_dec_string(&scan, MNTPATHLEN, &v))
			return false;
		n++;
	}
	res->n = n;
	res->list = n ? arena_zalloc(a, n * sizeof(*res->list)) : NULL;
	if (n && !res->list)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!xdr_dec_bool(c, &more) || !dec_str(c, a, MNTNAMLEN, &res->list[i].hostname) ||
		    !dec_str(c, a, MNTPATHLEN, &res->list[i].directory))
			return false;
	}
	return xdr_dec_bool(c, &more);
}

/* Skip one groups list, counting its names. */
static bool scan_groups(struct xdr_cur *c, size_t *n)
{
	struct xdr_view v;
	bool more;

	*n = 0;
	for (;;) {
		if (!xdr_dec_bool(c, &more))
			return false;
		if (!more)
			return true;
		if (!xdr_dec_string(c, MNTNAMLEN, &v))
			return false;
		(*n)++;
	}
}

bool mount_dec_export_res(struct xdr_cur *c, struct arena *a, struct mount_export_res *res)
{
	struct xdr_cur scan = *c;
	struct xdr_view v;
	size_t n = 0, ng;
	bool more;

	for (;;) {
		if (!xdr_dec_bool(&scan, &more))
			return false;
		if (!more)
			break;
		if (!xdr_dec_string(&scan, MNTPATHLEN, &v) || !scan_groups(&scan, &ng))
			return false;
		n++;
	}
	res->n = n;
	res->list = n ? arena_zalloc(a, n * sizeof(*res->list)) : NULL;
	if (n && !res->list)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct mount_exportnode *en = &res->list[i];

		if (!xdr_dec_bool(c, &more) || !dec_str(c, a, MNTPATHLEN, &en->dir))
			return false;
		scan = *c;
		if (!scan_groups(&scan, &en->ngroups))
			return false;
		en->groups =
			en->ngroups ? arena_zalloc(a, en->ngroups * sizeof(*en->groups)) : NULL;
		if (en->ngroups && !en->groups)
			return false;
		for (size_t g = 0; g < en->ngroups; g++) {
			if (!xdr_dec_bool(c, &more) || !dec_str(c, a, MNTNAMLEN, &en->groups[g]))
				return false;
		}
		if (!xdr_dec_bool(c, &more))
			return false;
	}
	return xdr_dec_bool(c, &more);
}
