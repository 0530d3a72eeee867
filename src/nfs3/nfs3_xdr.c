/*
 * nfs3_xdr.c - NFSv3 wire format (RFC 1813, sections 2.5, 2.6 and 3.3).
 *
 * Decoders turn a call's arguments into the host-order structs of nfs3.h; encoders
 * write a procedure's result exactly as the RFC's resok/resfail arms lay it out.
 * Decoders check the length before every read, reject malformed input with false and
 * never allocate: names, paths and WRITE data are views into the request buffer, file
 * handles are copied. Encoders report only "out of space". No file-system semantics
 * live here: a name longer than NFS3_MAXNAMLEN decodes fine so that the procedure can
 * answer NFS3ERR_NAMETOOLONG, and MKNOD of a non-device type is left for the procedure
 * to refuse with NFS3ERR_BADTYPE.
 */
#include "nfs3/nfs3.h"

#include <stddef.h>
#include <string.h>

/* READ and COMMIT share one decoder, so their argument structs must share a layout. */
_Static_assert(offsetof(struct nfs3_read_args, fh) == offsetof(struct nfs3_commit_args, fh) &&
		       offsetof(struct nfs3_read_args, offset) ==
			       offsetof(struct nfs3_commit_args, offset) &&
		       offsetof(struct nfs3_read_args, count) ==
			       offsetof(struct nfs3_commit_args, count) &&
		       sizeof(struct nfs3_read_args) == sizeof(struct nfs3_commit_args),
	       "READ and COMMIT arguments must have the same layout");

/* Encoded sizes of fixed-shape types (RFC 1813 section 2.6). */
#define FATTR3_SIZE 84u /* 5 x uint32, 2 x uint64, specdata3, 2 x uint64, 3 x nfstime3 */

/* ---- basic types: decoding ---- */

/* nfs_fh3 - decode a file handle; false if empty, longer than NFS3_FHSIZE or short. */
bool nfs3_dec_fh(struct xdr_cur *c, struct nfs3_fh *fh)
{
	const uint8_t *data;
	uint32_t len;

	if (!xdr_dec_u32(c, &len) || len == 0 || len > NFS3_FHSIZE)
		return false;
	if (!xdr_dec_fixed(c, len, &data))
		return false;
	fh->len = len;
	memcpy(fh->data, data, len);
	return true;
}

static bool dec_time(struct xdr_cur *c, struct nfs3_time *t)
{
	return xdr_dec_u32(c, &t->seconds) && xdr_dec_u32(c, &t->nseconds);
}

/* set_atime / set_mtime: a time_how discriminant, with a time for SET_TO_CLIENT_TIME. */
static bool dec_set_time(struct xdr_cur *c, uint32_t *how, struct nfs3_time *t)
{
	if (!xdr_dec_u32(c, how) || *how > NFS3_SET_TO_CLIENT_TIME)
		return false;
	if (*how != NFS3_SET_TO_CLIENT_TIME)
		return true;
	return dec_time(c, t);
}

/* sattr3 (RFC 1813 section 2.6): each member is a union switched on a bool. */
static bool dec_sattr(struct xdr_cur *c, struct nfs3_sattr *s)
{
	if (!xdr_dec_bool(c, &s->set_mode) || (s->set_mode && !xdr_dec_u32(c, &s->mode)))
		return false;
	if (!xdr_dec_bool(c, &s->set_uid) || (s->set_uid && !xdr_dec_u32(c, &s->uid)))
		return false;
	if (!xdr_dec_bool(c, &s->set_gid) || (s->set_gid && !xdr_dec_u32(c, &s->gid)))
		return false;
	if (!xdr_dec_bool(c, &s->set_size) || (s->set_size && !xdr_dec_u64(c, &s->size)))
		return false;
	if (!dec_set_time(c, &s->atime_how, &s->atime))
		return false;
	return dec_set_time(c, &s->mtime_how, &s->mtime);
}

/*
 * diropargs3. Names are bounded by NFS3_MAXPATHLEN, not NFS3_MAXNAMLEN, so that an
 * over-long name reaches the procedure and is answered with NFS3ERR_NAMETOOLONG.
 */
static bool dec_diropargs(struct xdr_cur *c, struct nfs3_diropargs *d)
{
	return nfs3_dec_fh(c, &d->dir) && xdr_dec_string(c, NFS3_MAXPATHLEN, &d->name);
}

static bool dec_fattr(struct xdr_cur *c, struct nfs3_fattr *a)
{
	return xdr_dec_u32(c, &a->type) && xdr_dec_u32(c, &a->mode) && xdr_dec_u32(c, &a->nlink) &&
	       xdr_dec_u32(c, &a->uid) && xdr_dec_u32(c, &a->gid) && xdr_dec_u64(c, &a->size) &&
	       xdr_dec_u64(c, &a->used) && xdr_dec_u32(c, &a->rdev1) && xdr_dec_u32(c, &a->rdev2) &&
	       xdr_dec_u64(c, &a->fsid) && xdr_dec_u64(c, &a->fileid) && dec_time(c, &a->atime) &&
	       dec_time(c, &a->mtime) && dec_time(c, &a->ctime);
}

/* ---- basic types: encoding ---- */

/* nfs_fh3 - encode a file handle; false if out of space or @fh is not a valid handle. */
bool nfs3_enc_fh(struct xdr_out *o, const struct nfs3_fh *fh)
{
	if (fh->len > NFS3_FHSIZE)
		return false;
	return xdr_enc_opaque(o, fh->data, fh->len);
}

static bool enc_time(struct xdr_out *o, const struct nfs3_time *t)
{
	return xdr_enc_u32(o, t->seconds) && xdr_enc_u32(o, t->nseconds);
}

/* fattr3 - encode file attributes (84 bytes); false if out of space. */
bool nfs3_enc_fattr(struct xdr_out *o, const struct nfs3_fattr *a)
{
	uint8_t *p = xdr_enc_reserve(o, FATTR3_SIZE);
	struct xdr_out w;

	if (!p)
		return false;
	/* The room is reserved, so the writes below cannot fail. */
	xdr_out_init(&w, p, FATTR3_SIZE);
	xdr_enc_u32(&w, a->type);
	xdr_enc_u32(&w, a->mode);
	xdr_enc_u32(&w, a->nlink);
	xdr_enc_u32(&w, a->uid);
	xdr_enc_u32(&w, a->gid);
	xdr_enc_u64(&w, a->size);
	xdr_enc_u64(&w, a->used);
	xdr_enc_u32(&w, a->rdev1);
	xdr_enc_u32(&w, a->rdev2);
	xdr_enc_u64(&w, a->fsid);
	xdr_enc_u64(&w, a->fileid);
	enc_time(&w, &a->atime);
	enc_time(&w, &a->mtime);
	enc_time(&w, &a->ctime);
	return true;
}

static bool enc_post_op_attr(struct xdr_out *o, const struct nfs3_post_op_attr *pa)
{
	if (!xdr_enc_bool(o, pa->present))
		return false;
	return !pa->present || nfs3_enc_fattr(o, &pa->attr);
}

static bool enc_post_op_fh(struct xdr_out *o, const struct nfs3_post_op_fh *pf)
{
	if (!xdr_enc_bool(o, pf->present))
		return false;
	return !pf->present || nfs3_enc_fh(o, &pf->fh);
}

/* wcc_data: pre_op_attr (wcc_attr if present), then post_op_attr. */
static bool enc_wcc_data(struct xdr_out *o, const struct nfs3_wcc_data *w)
{
	if (!xdr_enc_bool(o, w->pre_present))
		return false;
	if (w->pre_present && !(xdr_enc_u64(o, w->pre.size) && enc_time(o, &w->pre.mtime) &&
				enc_time(o, &w->pre.ctime)))
		return false;
	return enc_post_op_attr(o, &w->post);
}

/* ---- arguments (RFC 1813 section 3.3) ---- */

/* NULL takes no arguments. */
/* NULL returns nothing. */
/*
 * GETATTR3args, and FSSTAT/FSINFO/PATHCONF: a handle. @args points to a struct whose
 * first member is a struct nfs3_fh.
 */
bool nfs3_dec_getattr_args(struct xdr_cur *c, void *args)
{
	return nfs3_dec_fh(c, args);
}

/* SETATTR3args into struct nfs3_setattr_args: handle, sattr3, sattrguard3. */
bool nfs3_dec_setattr_args(struct xdr_cur *c, void *args)
{
	struct nfs3_setattr_args *a = args;

	if (!nfs3_dec_fh(c, &a->fh) || !dec_sattr(c, &a->attr))
		return false;
	if (!xdr_dec_bool(c, &a->guard_check))
		return false;
	return !a->guard_check || dec_time(c, &a->guard_ctime);
}

/*
 * LOOKUP3args, REMOVE3args and RMDIR3args: one diropargs3. @args points to a struct
 * nfs3_lookup_args or nfs3_remove_args.
 */
bool nfs3_dec_lookup_args(struct xdr_cur *c, void *args)
{
	return dec_diropargs(c, args);
}

/* ACCESS3args into struct nfs3_access_args. */
bool nfs3_dec_access_args(struct xdr_cur *c, void *args)
{
	struct nfs3_access_args *a = args;

	return nfs3_dec_fh(c, &a->fh) && xdr_dec_u32(c, &a->access);
}

/* READ3args and COMMIT3args (identical layout): handle, offset, count. */
bool nfs3_dec_read_args(struct xdr_cur *c, void *args)
{
	struct nfs3_read_args *a = args;

	return nfs3_dec_fh(c, &a->fh) && xdr_dec_u64(c, &a->offset) && xdr_dec_u32(c, &a->count);
}

/*
 * WRITE3args into struct nfs3_write_args. The data is a view into the request, at
 * most NFS3_MAXDATA bytes. As knfsd does, a call whose count differs from the length
 * of its data is refused as malformed (RFC 1813 section 3.3.7 makes them equal).
 */
bool nfs3_dec_write_args(struct xdr_cur *c, void *args)
{
	struct nfs3_write_args *a = args;

	if (!nfs3_dec_fh(c, &a->fh) || !xdr_dec_u64(c, &a->offset) || !xdr_dec_u32(c, &a->count))
		return false;
	if (!xdr_dec_u32(c, &a->stable) || a->stable > NFS3_FILE_SYNC)
		return false;
	if (!xdr_dec_opaque(c, NFS3_MAXDATA, &a->data))
		return false;
	return a->data.len == a->count;
}

/* CREATE3args: diropargs3, then createhow3 (sattr3 or a createverf3). */
bool nfs3_dec_create_args(struct xdr_cur *c, void *args)
{
	struct nfs3_create_args *a = args;
	const uint8_t *verf;

	if (!dec_diropargs(c, &a->where))
		return false;
	if (!xdr_dec_u32(c, &a->mode))
		return false;
	switch (a->mode) {
	case NFS3_UNCHECKED:
	case NFS3_GUARDED:
		return dec_sattr(c, &a->attr);
	case NFS3_EXCLUSIVE:
		if (!xdr_dec_fixed(c, NFS3_CREATEVERFSIZE, &verf))
			return false;
		memcpy(a->verf, verf, NFS3_CREATEVERFSIZE);
		return true;
	default:
		return false;
	}
}

/* MKDIR3args: diropargs3, sattr3. */
bool nfs3_dec_mkdir_args(struct xdr_cur *c, void *args)
{
	struct nfs3_mkdir_args *a = args;

	return dec_diropargs(c, &a->where) && dec_sattr(c, &a->attr);
}

/* SYMLINK3args: diropargs3, then symlinkdata3 (sattr3, nfspath3 as a view). */
bool nfs3_dec_symlink_args(struct xdr_cur *c, void *args)
{
	struct nfs3_symlink_args *a = args;

	return dec_diropargs(c, &a->where) && dec_sattr(c, &a->attr) &&
	       xdr_dec_string(c, NFS3_MAXPATHLEN, &a->path);
}

/*
 * MKNOD3args: diropargs3, then mknoddata3 switched on the ftype3: devicedata3 for
 * CHR/BLK, a sattr3 for SOCK/FIFO, nothing for REG/DIR/LNK (answered NFS3ERR_BADTYPE
 * by the procedure). A type outside the enum is malformed.
 */
bool nfs3_dec_mknod_args(struct xdr_cur *c, void *args)
{
	struct nfs3_mknod_args *a = args;

	if (!dec_diropargs(c, &a->where) || !xdr_dec_u32(c, &a->type))
		return false;
	switch (a->type) {
	case NF3CHR:
	case NF3BLK:
		return dec_sattr(c, &a->attr) && xdr_dec_u32(c, &a->rdev1) &&
		       xdr_dec_u32(c, &a->rdev2);
	case NF3SOCK:
	case NF3FIFO:
		return dec_sattr(c, &a->attr);
	case NF3REG:
	case NF3DIR:
	case NF3LNK:
		return true;
	default:
		return false;
	}
}

/* RENAME3args: two diropargs3. */
bool nfs3_dec_rename_args(struct xdr_cur *c, void *args)
{
	struct nfs3_rename_args *a = args;

	return dec_diropargs(c, &a->from) && dec_diropargs(c, &a->to);
}

/* LINK3args: the file's handle, then the new link's diropargs3. */
bool nfs3_dec_link_args(struct xdr_cur *c, void *args)
{
	struct nfs3_link_args *a = args;

	return nfs3_dec_fh(c, &a->file) && dec_diropargs(c, &a->link);
}

/* Shared head of READDIR3args and READDIRPLUS3args: dir, cookie, cookieverf. */
static bool dec_readdir_head(struct xdr_cur *c, struct nfs3_fh *dir, uint64_t *cookie,
			     uint8_t *cookieverf)
{
	const uint8_t *verf;

	if (!nfs3_dec_fh(c, dir) || !xdr_dec_u64(c, cookie))
		return false;
	if (!xdr_dec_fixed(c, NFS3_COOKIEVERFSIZE, &verf))
		return false;
	memcpy(cookieverf, verf, NFS3_COOKIEVERFSIZE);
	return true;
}

/* READDIR3args into struct nfs3_readdir_args. */
bool nfs3_dec_readdir_args(struct xdr_cur *c, void *args)
{
	struct nfs3_readdir_args *a = args;

	return dec_readdir_head(c, &a->dir, &a->cookie, a->cookieverf) && xdr_dec_u32(c, &a->count);
}

/* READDIRPLUS3args into struct nfs3_readdirplus_args. */
bool nfs3_dec_readdirplus_args(struct xdr_cur *c, void *args)
{
	struct nfs3_readdirplus_args *a = args;

	return dec_readdir_head(c, &a->dir, &a->cookie, a->cookieverf) &&
	       xdr_dec_u32(c, &a->dircount) && xdr_dec_u32(c, &a->maxcount);
}

/* ---- results (RFC 1813 section 3.3) ---- */

/* GETATTR3res: status; resok carries the fattr3, resfail nothing. */
bool nfs3_enc_getattr_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_getattr_res *r = res;

	if (!xdr_enc_u32(o, r->status))
		return false;
	return r->status != NFS3_OK || nfs3_enc_fattr(o, &r->attr);
}

/* SETATTR3res, REMOVE3res, RMDIR3res: status and wcc_data in both arms. */
bool nfs3_enc_wccstat_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_wccstat_res *r = res;

	return xdr_enc_u32(o, r->status) && enc_wcc_data(o, &r->wcc);
}

/* LOOKUP3res: resok is object, obj_attributes, dir_attributes; resfail dir_attributes. */
bool nfs3_enc_lookup_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_lookup_res *r = res;

	if (!xdr_enc_u32(o, r->status))
		return false;
	if (r->status == NFS3_OK && !(nfs3_enc_fh(o, &r->fh) && enc_post_op_attr(o, &r->obj_attr)))
		return false;
	return enc_post_op_attr(o, &r->dir_attr);
}

/* ACCESS3res: obj_attributes in both arms, then access in resok. */
bool nfs3_enc_access_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_access_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->obj_attr))
		return false;
	return r->status != NFS3_OK || xdr_enc_u32(o, r->access);
}

/* READLINK3res: symlink_attributes in both arms, then the nfspath3 in resok. */
bool nfs3_enc_readlink_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_readlink_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->attr))
		return false;
	return r->status != NFS3_OK || xdr_enc_opaque(o, r->path.data, r->path.len);
}

/*
 * READ3res: file_attributes in both arms; resok adds count, eof and the data, which
 * is attached by reference (zero copy) and must stay valid until the reply is sent.
 */
bool nfs3_enc_read_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_read_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_enc_u32(o, r->count) && xdr_enc_bool(o, r->eof) &&
	       xdr_enc_opaque_ref(o, r->data.data, r->data.len);
}

/* WRITE3res: file_wcc in both arms; resok adds count, committed and the verifier. */
bool nfs3_enc_write_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_write_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_wcc_data(o, &r->wcc))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_enc_u32(o, r->count) && xdr_enc_u32(o, r->committed) &&
	       xdr_enc_fixed(o, r->verf, NFS3_WRITEVERFSIZE);
}

/*
 * CREATE3res, MKDIR3res, SYMLINK3res, MKNOD3res (diropres3): resok is obj,
 * obj_attributes, dir_wcc; resfail is dir_wcc.
 */
bool nfs3_enc_diropres(struct xdr_out *o, const void *res)
{
	const struct nfs3_diropres *r = res;

	if (!xdr_enc_u32(o, r->status))
		return false;
	if (r->status == NFS3_OK &&
	    !(enc_post_op_fh(o, &r->obj) && enc_post_op_attr(o, &r->obj_attr)))
		return false;
	return enc_wcc_data(o, &r->dir_wcc);
}

/* RENAME3res: fromdir_wcc and todir_wcc in both arms. */
bool nfs3_enc_rename_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_rename_res *r = res;

	return xdr_enc_u32(o, r->status) && enc_wcc_data(o, &r->fromdir_wcc) &&
	       enc_wcc_data(o, &r->todir_wcc);
}

/* LINK3res: file_attributes and linkdir_wcc in both arms. */
bool nfs3_enc_link_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_link_res *r = res;

	return xdr_enc_u32(o, r->status) && enc_post_op_attr(o, &r->file_attr) &&
	       enc_wcc_data(o, &r->linkdir_wcc);
}

/*
 * Encoded size of one entry3 or entryplus3 including the value_follows word that
 * precedes it in the optional-linked list (RFC 1813 sections 3.3.16 and 3.3.17).
 */
uint32_t nfs3_entry_size(const struct nfs3_entry *e, bool plus)
{
	uint32_t n = 4 + 8 + 4 + e->name.len + xdr_pad(e->name.len) + 8;

	if (!plus)
		return n;
	n += 4 + (e->attr.present ? FATTR3_SIZE : 0);
	n += 4;
	if (e->fh.present)
		n += 4 + e->fh.fh.len + xdr_pad(e->fh.fh.len);
	return n;
}

/* One list element: value_follows, then entry3 or entryplus3. */
static bool enc_entry(struct xdr_out *o, const struct nfs3_entry *e, bool plus)
{
	if (!xdr_enc_bool(o, true) || !xdr_enc_u64(o, e->fileid) ||
	    !xdr_enc_opaque(o, e->name.data, e->name.len) || !xdr_enc_u64(o, e->cookie))
		return false;
	return !plus || (enc_post_op_attr(o, &e->attr) && enc_post_op_fh(o, &e->fh));
}

/*
 * READDIR3res and READDIRPLUS3res (@plus chooses entry3 or entryplus3): dir_attributes
 * in both arms; resok adds the cookieverf and the dirlist3 (entries as an optional
 * linked list terminated by FALSE, then eof).
 */
bool nfs3_enc_readdir_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_readdir_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->dir_attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_enc_fixed(o, r->cookieverf, NFS3_COOKIEVERFSIZE))
		return false;
	for (uint32_t i = 0; i < r->nentries; i++)
		if (!enc_entry(o, &r->entries[i], r->plus))
			return false;
	return xdr_enc_bool(o, false) && xdr_enc_bool(o, r->eof);
}

/* FSSTAT3res: obj_attributes in both arms; resok adds the byte and file counts. */
bool nfs3_enc_fsstat_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_fsstat_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->obj_attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_enc_u64(o, r->tbytes) && xdr_enc_u64(o, r->fbytes) &&
	       xdr_enc_u64(o, r->abytes) && xdr_enc_u64(o, r->tfiles) &&
	       xdr_enc_u64(o, r->ffiles) && xdr_enc_u64(o, r->afiles) &&
	       xdr_enc_u32(o, r->invarsec);
}

/* FSINFO3res: obj_attributes in both arms; resok adds the transfer sizes and limits. */
bool nfs3_enc_fsinfo_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_fsinfo_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->obj_attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_enc_u32(o, r->rtmax) && xdr_enc_u32(o, r->rtpref) && xdr_enc_u32(o, r->rtmult) &&
	       xdr_enc_u32(o, r->wtmax) && xdr_enc_u32(o, r->wtpref) && xdr_enc_u32(o, r->wtmult) &&
	       xdr_enc_u32(o, r->dtpref) && xdr_enc_u64(o, r->maxfilesize) &&
	       enc_time(o, &r->time_delta) && xdr_enc_u32(o, r->properties);
}

/* PATHCONF3res: obj_attributes in both arms; resok adds the limits and four bools. */
bool nfs3_enc_pathconf_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_pathconf_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_post_op_attr(o, &r->obj_attr))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_enc_u32(o, r->linkmax) && xdr_enc_u32(o, r->name_max) &&
	       xdr_enc_bool(o, r->no_trunc) && xdr_enc_bool(o, r->chown_restricted) &&
	       xdr_enc_bool(o, r->case_insensitive) && xdr_enc_bool(o, r->case_preserving);
}

/* COMMIT3res: file_wcc in both arms; resok adds the write verifier. */
bool nfs3_enc_commit_res(struct xdr_out *o, const void *res)
{
	const struct nfs3_commit_res *r = res;

	if (!xdr_enc_u32(o, r->status) || !enc_wcc_data(o, &r->wcc))
		return false;
	return r->status != NFS3_OK || xdr_enc_fixed(o, r->verf, NFS3_WRITEVERFSIZE);
}

/* ---- client side ---- */

/* GETATTR3args from the client: the handle. False if out of space. */
bool nfs3_enc_getattr_args(struct xdr_out *o, const struct nfs3_getattr_args *a)
{
	return nfs3_enc_fh(o, &a->fh);
}

/*
 * GETATTR3res as a client sees it: the status, and the fattr3 when it is NFS3_OK.
 * False if the reply is short.
 */
bool nfs3_dec_getattr_res(struct xdr_cur *c, struct nfs3_getattr_res *r)
{
	if (!xdr_dec_u32(c, &r->status))
		return false;
	return r->status != NFS3_OK || dec_fattr(c, &r->attr);
}
