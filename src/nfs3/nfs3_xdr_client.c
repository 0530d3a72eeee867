/*
 * nfs3_xdr_client.c - NFSv3 wire format as a client writes calls and reads replies
 * (RFC 1813 sections 2.6 and 3.3), for shoal-bench and tests.
 *
 * Mirror image of nfs3_xdr.c: here arguments are encoded and results decoded. Decoders
 * check every length, copy file handles and leave names and data as views into the
 * reply buffer.
 */
#include "nfs3/nfs3_client.h"

#include <string.h>

/* ---- arguments ---- */

bool nfs3_enc_fh_args(struct xdr_out *o, const struct nfs3_fh *fh)
{
	return nfs3_enc_fh(o, fh);
}

bool nfs3_enc_diropargs(struct xdr_out *o, const struct nfs3_fh *dir, const char *name,
			uint32_t len)
{
	return nfs3_enc_fh(o, dir) && xdr_enc_opaque(o, name, len);
}

static bool enc_set_time(struct xdr_out *o, uint32_t how, const struct nfs3_time *t)
{
	if (!xdr_enc_u32(o, how))
		return false;
	if (how != NFS3_SET_TO_CLIENT_TIME)
		return true;
	return xdr_enc_u32(o, t->seconds) && xdr_enc_u32(o, t->nseconds);
}

bool nfs3_enc_sattr(struct xdr_out *o, const struct nfs3_sattr *s)
{
	if (!xdr_enc_bool(o, s->set_mode) || (s->set_mode && !xdr_enc_u32(o, s->mode)))
		return false;
	if (!xdr_enc_bool(o, s->set_uid) || (s->set_uid && !xdr_enc_u32(o, s->uid)))
		return false;
	if (!xdr_enc_bool(o, s->set_gid) || (s->set_gid && !xdr_enc_u32(o, s->gid)))
		return false;
	if (!xdr_enc_bool(o, s->set_size) || (s->set_size && !xdr_enc_u64(o, s->size)))
		return false;
	return enc_set_time(o, s->atime_how, &s->atime) && enc_set_time(o, s->mtime_how, &s->mtime);
}

bool nfs3_enc_setattr_args(struct xdr_out *o, const struct nfs3_setattr_args *a)
{
	if (!nfs3_enc_fh(o, &a->fh) || !nfs3_enc_sattr(o, &a->attr) ||
	    !xdr_enc_bool(o, a->guard_check))
		return false;
	if (!a->guard_check)
		return true;
	return xdr_enc_u32(o, a->guard_ctime.seconds) && xdr_enc_u32(o, a->guard_ctime.nseconds);
}

bool nfs3_enc_access_args(struct xdr_out *o, const struct nfs3_access_args *a)
{
	return nfs3_enc_fh(o, &a->fh) && xdr_enc_u32(o, a->access);
}

bool nfs3_enc_read_args(struct xdr_out *o, const struct nfs3_read_args *a)
{
	return nfs3_enc_fh(o, &a->fh) && xdr_enc_u64(o, a->offset) && xdr_enc_u32(o, a->count);
}

bool nfs3_enc_write_args(struct xdr_out *o, const struct nfs3_write_args *a)
{
	if (a->data.len != a->count)
		return false;
	return nfs3_enc_fh(o, &a->fh) && xdr_enc_u64(o, a->offset) && xdr_enc_u32(o, a->count) &&
	       xdr_enc_u32(o, a->stable) && xdr_enc_opaque_ref(o, a->data.data, a->data.len);
}

bool nfs3_enc_create_args(struct xdr_out *o, const struct nfs3_create_args *a)
{
	if (!nfs3_enc_diropargs(o, &a->where.dir, (const char *)a->where.name.data,
				a->where.name.len) ||
	    !xdr_enc_u32(o, a->mode))
		return false;
	if (a->mode == NFS3_EXCLUSIVE)
		return xdr_enc_fixed(o, a->verf, NFS3_CREATEVERFSIZE);
	return nfs3_enc_sattr(o, &a->attr);
}

bool nfs3_enc_mkdir_args(struct xdr_out *o, const struct nfs3_mkdir_args *a)
{
	return nfs3_enc_diropargs(o, &a->where.dir, (const char *)a->where.name.data,
				  a->where.name.len) &&
	       nfs3_enc_sattr(o, &a->attr);
}

bool nfs3_enc_symlink_args(struct xdr_out *o, const struct nfs3_symlink_args *a)
{
	return nfs3_enc_diropargs(o, &a->where.dir, (const char *)a->where.name.data,
				  a->where.name.len) &&
	       nfs3_enc_sattr(o, &a->attr) && xdr_enc_opaque(o, a->path.data, a->path.len);
}

bool nfs3_enc_readdir_args(struct xdr_out *o, const struct nfs3_readdir_args *a)
{
	return nfs3_enc_fh(o, &a->dir) && xdr_enc_u64(o, a->cookie) &&
	       xdr_enc_fixed(o, a->cookieverf, NFS3_COOKIEVERFSIZE) && xdr_enc_u32(o, a->count);
}

bool nfs3_enc_readdirplus_args(struct xdr_out *o, const struct nfs3_readdirplus_args *a)
{
	return nfs3_enc_fh(o, &a->dir) && xdr_enc_u64(o, a->cookie) &&
	       xdr_enc_fixed(o, a->cookieverf, NFS3_COOKIEVERFSIZE) &&
	       xdr_enc_u32(o, a->dircount) && xdr_enc_u32(o, a->maxcount);
}

/* ---- results ---- */

static bool dec_time(struct xdr_cur *c, struct nfs3_time *t)
{
	return xdr_dec_u32(c, &t->seconds) && xdr_dec_u32(c, &t->nseconds);
}

static bool dec_fattr(struct xdr_cur *c, struct nfs3_fattr *a)
{
	return xdr_dec_u32(c, &a->type) && xdr_dec_u32(c, &a->mode) && xdr_dec_u32(c, &a->nlink) &&
	       xdr_dec_u32(c, &a->uid) && xdr_dec_u32(c, &a->gid) && xdr_dec_u64(c, &a->size) &&
	       xdr_dec_u64(c, &a->used) && xdr_dec_u32(c, &a->rdev1) && xdr_dec_u32(c, &a->rdev2) &&
	       xdr_dec_u64(c, &a->fsid) && xdr_dec_u64(c, &a->fileid) && dec_time(c, &a->atime) &&
	       dec_time(c, &a->mtime) && dec_time(c, &a->ctime);
}

bool nfs3_dec_post_op_attr(struct xdr_cur *c, struct nfs3_post_op_attr *pa)
{
	if (!xdr_dec_bool(c, &pa->present))
		return false;
	return !pa->present || dec_fattr(c, &pa->attr);
}

bool nfs3_dec_wcc_data(struct xdr_cur *c, struct nfs3_wcc_data *w)
{
	if (!xdr_dec_bool(c, &w->pre_present))
		return false;
	if (w->pre_present && !(xdr_dec_u64(c, &w->pre.size) && dec_time(c, &w->pre.mtime) &&
				dec_time(c, &w->pre.ctime)))
		return false;
	return nfs3_dec_post_op_attr(c, &w->post);
}

bool nfs3_dec_lookup_res(struct xdr_cur *c, struct nfs3_lookup_res *r)
{
	if (!xdr_dec_u32(c, &r->status))
		return false;
	if (r->status == NFS3_OK &&
	    !(nfs3_dec_fh(c, &r->fh) && nfs3_dec_post_op_attr(c, &r->obj_attr)))
		return false;
	return nfs3_dec_post_op_attr(c, &r->dir_attr);
}

bool nfs3_dec_diropres(struct xdr_cur *c, struct nfs3_diropres *r)
{
	if (!xdr_dec_u32(c, &r->status))
		return false;
	if (r->status == NFS3_OK) {
		if (!xdr_dec_bool(c, &r->obj.present) ||
		    (r->obj.present && !nfs3_dec_fh(c, &r->obj.fh)) ||
		    !nfs3_dec_post_op_attr(c, &r->obj_attr))
			return false;
	}
	return nfs3_dec_wcc_data(c, &r->dir_wcc);
}

bool nfs3_dec_read_res(struct xdr_cur *c, struct nfs3_read_res *r)
{
	if (!xdr_dec_u32(c, &r->status) || !nfs3_dec_post_op_attr(c, &r->attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_dec_u32(c, &r->count) && xdr_dec_bool(c, &r->eof) &&
	       xdr_dec_opaque(c, UINT32_MAX, &r->data);
}

bool nfs3_dec_write_res(struct xdr_cur *c, struct nfs3_write_res *r)
{
	const uint8_t *verf;

	if (!xdr_dec_u32(c, &r->status) || !nfs3_dec_wcc_data(c, &r->wcc))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_dec_u32(c, &r->count) || !xdr_dec_u32(c, &r->committed) ||
	    !xdr_dec_fixed(c, NFS3_WRITEVERFSIZE, &verf))
		return false;
	memcpy(r->verf, verf, NFS3_WRITEVERFSIZE);
	return true;
}

bool nfs3_dec_wccstat_res(struct xdr_cur *c, struct nfs3_wccstat_res *r)
{
	return xdr_dec_u32(c, &r->status) && nfs3_dec_wcc_data(c, &r->wcc);
}

bool nfs3_dec_fsinfo_res(struct xdr_cur *c, struct nfs3_fsinfo_res *r)
{
	if (!xdr_dec_u32(c, &r->status) || !nfs3_dec_post_op_attr(c, &r->obj_attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_dec_u32(c, &r->rtmax) && xdr_dec_u32(c, &r->rtpref) &&
	       xdr_dec_u32(c, &r->rtmult) && xdr_dec_u32(c, &r->wtmax) &&
	       xdr_dec_u32(c, &r->wtpref) && xdr_dec_u32(c, &r->wtmult) &&
	       xdr_dec_u32(c, &r->dtpref) && xdr_dec_u64(c, &r->maxfilesize) &&
	       dec_time(c, &r->time_delta) && xdr_dec_u32(c, &r->properties);
}
