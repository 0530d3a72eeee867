/*
 * nfs3_proc.c - NFSv3 procedures (RFC 1813, section 3.3) and the program table.
 *
 * Each procedure turns decoded arguments into vfs calls and fills a result struct.
 * The wire format lives in nfs3_xdr.c; errno is translated only by nfs3_status().
 * This file holds the helpers every procedure shares (handle resolution, names,
 * attribute conversion), the procedures that read one object or change its
 * attributes, the file system queries, and the table; WRITE and COMMIT live in
 * nfs3_proc_write.c, the directory-changing procedures and READDIR in nfs3_proc_dir.c.
 *
 * Weak cache consistency: wherever a result carries attributes in its failure arm
 * (RFC 1813 sections 3.3.1-3.3.21), they are filled on failure too, fetched with a
 * getattr when the failing vfs call could not supply them. GETATTR, LOOKUP and ACCESS
 * are the hot path: one export table get/put, no heap allocation, no logging on
 * success.
 */
#include "nfs3/nfs3_proc.h"

#include <errno.h>
#include <string.h>

#include "core/arena.h"

/* A READ larger than this would hold the loop while it is copied: run it in the pool.
 * Smaller ones run on the loop as long as the page cache holds their data. */
#define NFS3_READ_INLINE_MAX (64 * 1024)

/* ---- shared helpers (declared in nfs3_proc.h) ---- */

int nfs3_obj_get(struct rpc_req *req, const struct nfs3_fh *fh, struct nfs3_obj *o)
{
	struct export_opts opts;
	uint32_t id;
	int err;

	o->tab = NULL;
	o->exp = NULL;
	o->node = NULL;
	err = vfs_fh_export_id(fh->data, fh->len, &id);
	if (err)
		return err;
	o->tab = export_table_get();
	if (!o->tab)
		return -ESTALE;
	/* An export that was removed by a reload makes its handles stale (RFC 1813 2.6). */
	o->exp = export_by_id(o->tab, id);
	if (!o->exp) {
		err = -ESTALE;
		goto err_put_table;
	}
	if (export_check(o->exp, (const struct sockaddr *)&req->peer, req->peer_len, &opts)) {
		err = -EACCES;
		goto err_put_table;
	}
	export_map_cred(&opts, &req->cred, &o->ctx);
	err = vfs_node_get(o->exp->vx, fh->data, fh->len, !req->may_block, &o->node);
	if (err == -EAGAIN && !req->may_block)
		req->retry_blocking = true; /* not cached: open it in the pool */
	if (err)
		goto err_put_table;
	return 0;

err_put_table:
	export_table_put(o->tab);
	o->tab = NULL;
	o->exp = NULL;
	o->node = NULL;
	return err;
}

int nfs3_obj_get_other(const struct nfs3_obj *o, const struct nfs3_fh *fh, struct vfs_node **out)
{
	uint32_t id;
	int err;

	*out = NULL;
	err = vfs_fh_export_id(fh->data, fh->len, &id);
	if (err)
		return err;
	if (id != o->exp->id)
		return export_by_id(o->tab, id) ? -EXDEV : -ESTALE;
	return vfs_node_get(o->exp->vx, fh->data, fh->len, false, out);
}

void nfs3_obj_put(struct nfs3_obj *o)
{
	if (o->node)
		vfs_node_put(o->node);
	if (o->tab)
		export_table_put(o->tab);
	o->node = NULL;
	o->tab = NULL;
	o->exp = NULL;
}

/*
 * Names. RFC 1813 leaves invalid names to the server; we follow Linux, whose
 * lookup_one_len() (used by knfsd) refuses an empty name or one containing '/' with
 * EACCES, and NFS3ERR_ACCES is in the error list of every procedure that takes a name.
 * Creating "." or ".." answers NFS3ERR_EXIST (they always exist); removing or renaming
 * them answers NFS3ERR_ACCES, as knfsd's nfsd_unlink() does. The codec bounds names
 * by NFS3_MAXPATHLEN only, so the 255-byte limit (NFS3_MAXNAMLEN) is enforced here.
 */
int nfs3_name(struct rpc_req *req, const struct xdr_view *v, enum nfs3_name_use use,
	      const char **out)
{
	bool dot;
	char *s;

	if (v->len == 0)
		return -EACCES;
	if (v->len > NFS3_MAXNAMLEN)
		return -ENAMETOOLONG;
	if (memchr(v->data, '/', v->len) || memchr(v->data, '\0', v->len))
		return -EACCES;
	dot = v->data[0] == '.' && (v->len == 1 || (v->len == 2 && v->data[1] == '.'));
	if (dot && use == NFS3_NAME_NEW)
		return -EEXIST;
	if (dot && use == NFS3_NAME_OLD)
		return -EACCES;
	s = arena_alloc(&req->arena, v->len + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, v->data, v->len);
	s[v->len] = '\0';
	*out = s;
	return 0;
}

/* nfstime3 seconds are 32 bits: times are truncated as knfsd truncates them. */
static void nfs3_time_from_vfs(struct nfs3_time *out, const struct vfs_time *t)
{
	out->seconds = (uint32_t)t->sec;
	out->nseconds = t->nsec;
}

void nfs3_fattr_from_vfs(struct nfs3_fattr *out, const struct vfs_attr *a)
{
	out->type = (uint32_t)a->type;
	out->mode = a->mode;
	out->nlink = a->nlink;
	out->uid = a->uid;
	out->gid = a->gid;
	out->size = a->size;
	out->used = a->used;
	out->rdev1 = a->rdev_major;
	out->rdev2 = a->rdev_minor;
	out->fsid = a->fsid;
	out->fileid = a->fileid;
	nfs3_time_from_vfs(&out->atime, &a->atime);
	nfs3_time_from_vfs(&out->mtime, &a->mtime);
	nfs3_time_from_vfs(&out->ctime, &a->ctime);
}

void nfs3_post_op_set(struct nfs3_post_op_attr *p, const struct vfs_attr *a)
{
	p->present = true;
	nfs3_fattr_from_vfs(&p->attr, a);
}

void nfs3_post_op_fetch(struct vfs_node *node, struct nfs3_post_op_attr *p)
{
	struct vfs_attr a;

	p->present = false;
	if (node && vfs_getattr(node, &a) == 0)
		nfs3_post_op_set(p, &a);
}

void nfs3_wcc_from_vfs(struct nfs3_wcc_data *out, const struct vfs_wcc *w, struct vfs_node *node)
{
	out->pre_present = w->pre_valid;
	if (w->pre_valid) {
		out->pre.size = w->pre.size;
		nfs3_time_from_vfs(&out->pre.mtime, &w->pre.mtime);
		nfs3_time_from_vfs(&out->pre.ctime, &w->pre.ctime);
	}
	if (w->post_valid)
		nfs3_post_op_set(&out->post, &w->post);
	else
		nfs3_post_op_fetch(node, &out->post);
}

static int nfs3_time_how(uint32_t how, const struct nfs3_time *t, enum vfs_time_how *out_how,
			 struct vfs_time *out)
{
	switch (how) {
	case NFS3_DONT_CHANGE:
		*out_how = VFS_TIME_KEEP;
		return 0;
	case NFS3_SET_TO_SERVER_TIME:
		*out_how = VFS_TIME_SERVER;
		return 0;
	case NFS3_SET_TO_CLIENT_TIME:
		if (t->nseconds >= 1000000000u)
			return -EINVAL;
		*out_how = VFS_TIME_CLIENT;
		out->sec = t->seconds;
		out->nsec = t->nseconds;
		return 0;
	default:
		return -EINVAL;
	}
}

int nfs3_sattr_to_vfs(struct vfs_sattr *out, const struct nfs3_sattr *in)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->set_mode = in->set_mode;
	out->set_uid = in->set_uid;
	out->set_gid = in->set_gid;
	out->set_size = in->set_size;
	out->mode = in->mode & 07777;
	out->uid = in->uid;
	out->gid = in->gid;
	out->size = in->size;
	err = nfs3_time_how(in->atime_how, &in->atime, &out->atime_how, &out->atime);
	if (err)
		return err;
	return nfs3_time_how(in->mtime_how, &in->mtime, &out->mtime_how, &out->mtime);
}

void nfs3_fh_from_vfs(struct nfs3_fh *out, const struct vfs_fh *fh)
{
	_Static_assert(VFS_FH_MAX <= NFS3_FHSIZE, "vfs handles must fit in nfs_fh3");
	out->len = fh->len;
	memcpy(out->data, fh->data, fh->len);
}

/* READ and WRITE of something that is not a regular file: knfsd's nfsd_mode_check()
 * answers as nfs3_proc.h says, whatever errno the back-end produced. */
enum nfsstat3 nfs3_rw_status(const struct nfs3_post_op_attr *p, enum nfsstat3 st)
{
	if (st == NFS3_OK || !p->present)
		return st;
	if (p->attr.type == NF3DIR)
		return NFS3ERR_ISDIR;
	if (p->attr.type == NF3LNK)
		return NFS3ERR_INVAL;
	return st;
}

/* ---- procedures on one object ---- */

/* NULL (3.3.0): nothing to do; the reply is empty. */
static void nfs3_null(struct rpc_req *req, const void *argp, void *resp)
{
	(void)req;
	(void)argp;
	(void)resp;
}

/* GETATTR (3.3.1): resfail carries nothing. */
static void nfs3_getattr(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_getattr_args *args = argp;
	struct nfs3_getattr_res *res = resp;
	struct vfs_attr attr;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = vfs_getattr(o.node, &attr);
	if (!err)
		nfs3_fattr_from_vfs(&res->attr, &attr);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * SETATTR (3.3.2): obj_wcc in both arms. The guard compares the client's idea of the
 * ctime with the object's (NFS3ERR_NOT_SYNC on mismatch), decided inside the vfs so
 * that the check and the change are not separated by a race we could avoid.
 * The codec's encoder for SETATTR is nfs3_enc_wccstat_res, so the result is filled
 * as a struct nfs3_wccstat_res (the same shape as struct nfs3_setattr_res).
 */
static void nfs3_setattr(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_setattr_args *args = argp;
	struct nfs3_wccstat_res *res = resp;
	struct vfs_wcc wcc = {0};
	struct vfs_time guard;
	struct vfs_sattr sa;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = nfs3_sattr_to_vfs(&sa, &args->attr);
	if (!err) {
		guard.sec = args->guard_ctime.seconds;
		guard.nsec = args->guard_ctime.nseconds;
		err = vfs_setattr(&o.ctx, o.node, &sa, args->guard_check ? &guard : NULL, &wcc);
	}
	nfs3_wcc_from_vfs(&res->wcc, &wcc, o.node);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* LOOKUP (3.3.3): the directory's attributes in both arms. */
static void nfs3_lookup(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_lookup_args *args = argp;
	struct nfs3_lookup_res *res = resp;
	struct vfs_attr attr, dir_attr;
	bool dir_valid = false;
	const char *name;
	struct vfs_fh fh;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->what.dir, &o);
	if (err)
		goto out;
	err = nfs3_name(req, &args->what.name, NFS3_NAME_LOOKUP, &name);
	if (err) {
		nfs3_post_op_fetch(o.node, &res->dir_attr);
		goto out_put;
	}
	err = vfs_lookup(&o.ctx, o.node, name, !req->may_block, &fh, &attr, &dir_attr, &dir_valid);
	if (err == -EAGAIN && !req->may_block) {
		req->retry_blocking = true; /* the name is not cached: look it up in the pool */
		goto out_put;
	}
	if (dir_valid)
		nfs3_post_op_set(&res->dir_attr, &dir_attr);
	if (!err) {
		nfs3_fh_from_vfs(&res->fh, &fh);
		nfs3_post_op_set(&res->obj_attr, &attr);
	}
out_put:
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * ACCESS (3.3.4): obj_attributes in both arms. The vfs decides each bit as the kernel
 * would for the mapped identity; on a read-only export MODIFY, EXTEND and DELETE are
 * never granted, whatever the mode bits say (the operations would get NFS3ERR_ROFS).
 */
static void nfs3_access(struct rpc_req *req, const void *argp, void *resp)
{
	const uint32_t all = NFS3_ACCESS_READ | NFS3_ACCESS_LOOKUP | NFS3_ACCESS_MODIFY |
			     NFS3_ACCESS_EXTEND | NFS3_ACCESS_DELETE | NFS3_ACCESS_EXECUTE;
	const uint32_t mutating = NFS3_ACCESS_MODIFY | NFS3_ACCESS_EXTEND | NFS3_ACCESS_DELETE;
	const struct nfs3_access_args *args = argp;
	struct nfs3_access_res *res = resp;
	uint32_t want = args->access & all;
	uint32_t granted = 0;
	struct vfs_attr attr;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = vfs_access(&o.ctx, o.node, want, &granted, &attr);
	if (err) {
		nfs3_post_op_fetch(o.node, &res->obj_attr);
	} else {
		nfs3_post_op_set(&res->obj_attr, &attr);
		if (o.ctx.readonly)
			granted &= ~mutating;
		res->access = granted & want;
	}
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* READLINK (3.3.5): symlink_attributes in both arms; the path lives in the arena. On an
 * event loop whose metadata reads have lately waited for the disk, it runs in the read
 * pool instead: a long target is read from a block of its own. */
static void nfs3_readlink(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_readlink_args *args = argp;
	struct nfs3_readlink_res *res = resp;
	struct vfs_attr attr;
	struct nfs3_obj o;
	size_t len = 0;
	char *buf;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	buf = arena_alloc(&req->arena, NFS3_MAXPATHLEN);
	err = buf ? vfs_readlink(&o.ctx, o.node, !req->may_block, buf, NFS3_MAXPATHLEN, &len, &attr)
		  : -ENOMEM;
	if (err == -EAGAIN && !req->may_block) {
		req->retry_blocking = true; /* maybe not cached: read it in the pool */
		nfs3_obj_put(&o);
		return;
	}
	if (err) {
		nfs3_post_op_fetch(o.node, &res->attr);
	} else {
		nfs3_post_op_set(&res->attr, &attr);
		res->path.data = (const uint8_t *)buf;
		res->path.len = (uint32_t)len;
	}
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * READ (3.3.6): file_attributes in both arms. The data is read into the arena and
 * sent by reference. A count over our rtmax (NFS3_MAXDATA) is served short, as the
 * RFC allows; the client continues from where the reply ended. On an event loop only
 * what the page cache holds is read: a READ that would wait for the disk runs again
 * in the read pool, so that one cold file does not stall every connection of the loop.
 */
static void nfs3_read(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_read_args *args = argp;
	struct nfs3_read_res *res = resp;
	uint32_t count = args->count < NFS3_MAXDATA ? args->count : NFS3_MAXDATA;
	uint32_t nread = 0;
	struct vfs_attr attr;
	struct nfs3_obj o;
	bool eof = false;
	void *buf;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	buf = arena_alloc(&req->arena, count ? count : 1);
	err = buf ? vfs_read(&o.ctx, o.node, args->offset, count, !req->may_block, buf, &nread,
			     &eof, &attr)
		  : -ENOMEM;
	if (err == -EAGAIN && !req->may_block) {
		req->retry_blocking = true; /* not cached: read it in the pool */
		nfs3_obj_put(&o);
		return;
	}
	if (err) {
		nfs3_post_op_fetch(o.node, &res->attr);
	} else {
		nfs3_post_op_set(&res->attr, &attr);
		res->count = nread;
		res->eof = eof;
		res->data.data = buf;
		res->data.len = nread;
	}
	nfs3_obj_put(&o);
out:
	res->status = nfs3_rw_status(&res->attr, nfs3_status(err));
}

/* ---- file system queries ---- */

/* FSSTAT (3.3.18): obj_attributes in both arms. invarsec 0: the numbers may change. */
static void nfs3_fsstat(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_fhonly_args *args = argp;
	struct nfs3_fsstat_res *res = resp;
	struct vfs_statfs st;
	struct vfs_attr attr;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = vfs_statfs(o.node, &st, &attr);
	if (err) {
		nfs3_post_op_fetch(o.node, &res->obj_attr);
	} else {
		nfs3_post_op_set(&res->obj_attr, &attr);
		res->tbytes = st.tbytes;
		res->fbytes = st.fbytes;
		res->abytes = st.abytes;
		res->tfiles = st.tfiles;
		res->ffiles = st.ffiles;
		res->afiles = st.afiles;
		res->invarsec = 0;
	}
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * FSINFO (3.3.19): obj_attributes in both arms. Transfer sizes are ours (the codec and
 * the rpc layer are sized for NFS3_MAXDATA); limits and properties are the vfs's.
 */
static void nfs3_fsinfo(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_fhonly_args *args = argp;
	struct nfs3_fsinfo_res *res = resp;
	struct vfs_fsinfo fi;
	struct vfs_attr attr;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = vfs_fsinfo(o.node, &fi, &attr);
	if (err) {
		nfs3_post_op_fetch(o.node, &res->obj_attr);
		goto out_put;
	}
	nfs3_post_op_set(&res->obj_attr, &attr);
	res->rtmax = NFS3_MAXDATA;
	res->rtpref = NFS3_MAXDATA;
	res->rtmult = 4096;
	res->wtmax = NFS3_MAXDATA;
	res->wtpref = NFS3_MAXDATA;
	res->wtmult = 4096;
	res->dtpref = 65536;
	res->maxfilesize = fi.maxfilesize;
	nfs3_time_from_vfs(&res->time_delta, &fi.time_delta);
	res->properties = (fi.links ? NFS3_FSF_LINK : 0) | (fi.symlinks ? NFS3_FSF_SYMLINK : 0) |
			  (fi.homogeneous ? NFS3_FSF_HOMOGENEOUS : 0) |
			  (fi.cansettime ? NFS3_FSF_CANSETTIME : 0);
out_put:
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* PATHCONF (3.3.20): obj_attributes in both arms. */
static void nfs3_pathconf(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_fhonly_args *args = argp;
	struct nfs3_pathconf_res *res = resp;
	struct vfs_pathconf pc;
	struct vfs_attr attr;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = vfs_pathconf(o.node, &pc, &attr);
	if (err) {
		nfs3_post_op_fetch(o.node, &res->obj_attr);
	} else {
		nfs3_post_op_set(&res->obj_attr, &attr);
		res->linkmax = pc.linkmax;
		res->name_max = pc.name_max;
		res->no_trunc = pc.no_trunc;
		res->chown_restricted = pc.chown_restricted;
		res->case_insensitive = pc.case_insensitive;
		res->case_preserving = pc.case_preserving;
	}
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* ---- the program table ---- */

/* A large READ runs in the pool; small ones on the loop, unless not cached (nfs3_read). */
static bool nfs3_read_blocks(const void *argp)
{
	const struct nfs3_read_args *args = argp;

	return args->count > NFS3_READ_INLINE_MAX;
}

/* The data a READ's reply may carry: the transport reserves memory for it first... */
static uint32_t nfs3_read_reply_size(const void *argp)
{
	const struct nfs3_read_args *args = argp;

	return args->count < NFS3_MAXDATA ? args->count : NFS3_MAXDATA;
}

/* ...and a directory listing's, as large as count (maxcount) allows, up to our cap. */
static uint32_t nfs3_readdir_reply_size(const void *argp)
{
	const struct nfs3_readdir_args *args = argp;

	return args->count < NFS3_DIR_MAXREPLY ? args->count : NFS3_DIR_MAXREPLY;
}

static uint32_t nfs3_readdirplus_reply_size(const void *argp)
{
	const struct nfs3_readdirplus_args *args = argp;

	return args->maxcount < NFS3_DIR_MAXREPLY ? args->maxcount : NFS3_DIR_MAXREPLY;
}

/* One row of the table; the policy fields (drc, blocking, blocking_if) follow as data. */
#define NFS3_PROC(num, nm, dec, fn, enc, args_t, res_t, ...)                                       \
	[num] = {.name = nm,                                                                       \
		 .decode = dec,                                                                    \
		 .run = fn,                                                                        \
		 .encode = enc,                                                                    \
		 .args_size = sizeof(args_t),                                                      \
		 .res_size = sizeof(res_t),                                                        \
		 __VA_ARGS__}

/*
 * Non-idempotent procedures (those that create, remove or rename, and SETATTR/WRITE,
 * whose retransmission after a later change would undo it) keep their reply in the
 * duplicate request cache; COMMIT is idempotent. Those that change the file system wait
 * for an fsync (their change must be stable before the reply), so they run in the
 * blocking pool, as do COMMIT and stable WRITEs; the READDIRs, READs too large to
 * serve inline or not in the page cache, and large UNSTABLE WRITEs run in the pool of
 * calls that never wait for a flush, so that they never wait behind an fsync;
 * everything else is served on the event loop. READ and the READDIRs announce their
 * replies' size, which the transport reserves of its memory budget before they run.
 * SETATTR is encoded by nfs3_enc_wccstat_res, hence its result type; the codec decodes
 * READLINK, FSSTAT, FSINFO and PATHCONF as GETATTR (a handle) and COMMIT as READ (same
 * layout).
 */
static const struct rpc_proc nfs3_procs[NFS3_NPROCS] = {
	[NFS3PROC_NULL] = {.name = "NULL",
			   .decode = xdr_dec_void,
			   .run = nfs3_null,
			   .encode = xdr_enc_void},
	NFS3_PROC(NFS3PROC_GETATTR, "GETATTR", nfs3_dec_getattr_args, nfs3_getattr,
		  nfs3_enc_getattr_res, struct nfs3_getattr_args, struct nfs3_getattr_res,
		  .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_SETATTR, "SETATTR", nfs3_dec_setattr_args, nfs3_setattr,
		  nfs3_enc_wccstat_res, struct nfs3_setattr_args, struct nfs3_wccstat_res,
		  .drc = RPC_DRC_REPLY, .blocking = true),
	NFS3_PROC(NFS3PROC_LOOKUP, "LOOKUP", nfs3_dec_lookup_args, nfs3_lookup, nfs3_enc_lookup_res,
		  struct nfs3_lookup_args, struct nfs3_lookup_res, .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_ACCESS, "ACCESS", nfs3_dec_access_args, nfs3_access, nfs3_enc_access_res,
		  struct nfs3_access_args, struct nfs3_access_res, .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_READLINK, "READLINK", nfs3_dec_getattr_args, nfs3_readlink,
		  nfs3_enc_readlink_res, struct nfs3_readlink_args, struct nfs3_readlink_res,
		  .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_READ, "READ", nfs3_dec_read_args, nfs3_read, nfs3_enc_read_res,
		  struct nfs3_read_args, struct nfs3_read_res, .drc = RPC_DRC_NONE,
		  .blocking_if = nfs3_read_blocks, .pool = RPC_POOL_READ,
		  .reply_size = nfs3_read_reply_size),
	NFS3_PROC(NFS3PROC_WRITE, "WRITE", nfs3_dec_write_args, nfs3_write, nfs3_enc_write_res,
		  struct nfs3_write_args, struct nfs3_write_out, .drc = RPC_DRC_REPLY,
		  .blocking_if = nfs3_write_blocks, .pool_if = nfs3_write_pool,
		  .gathers = nfs3_write_gathers, .gather_end = nfs3_write_gather_end),
	NFS3_PROC(NFS3PROC_CREATE, "CREATE", nfs3_dec_create_args, nfs3_create, nfs3_enc_diropres,
		  struct nfs3_create_args, struct nfs3_diropres, .drc = RPC_DRC_REPLY,
		  .blocking = true),
	NFS3_PROC(NFS3PROC_MKDIR, "MKDIR", nfs3_dec_mkdir_args, nfs3_mkdir, nfs3_enc_diropres,
		  struct nfs3_mkdir_args, struct nfs3_diropres, .drc = RPC_DRC_REPLY,
		  .blocking = true),
	NFS3_PROC(NFS3PROC_SYMLINK, "SYMLINK", nfs3_dec_symlink_args, nfs3_symlink,
		  nfs3_enc_diropres, struct nfs3_symlink_args, struct nfs3_diropres,
		  .drc = RPC_DRC_REPLY, .blocking = true),
	NFS3_PROC(NFS3PROC_MKNOD, "MKNOD", nfs3_dec_mknod_args, nfs3_mknod, nfs3_enc_diropres,
		  struct nfs3_mknod_args, struct nfs3_diropres, .drc = RPC_DRC_REPLY,
		  .blocking = true),
	NFS3_PROC(NFS3PROC_REMOVE, "REMOVE", nfs3_dec_lookup_args, nfs3_remove,
		  nfs3_enc_wccstat_res, struct nfs3_remove_args, struct nfs3_wccstat_res,
		  .drc = RPC_DRC_REPLY, .blocking = true),
	NFS3_PROC(NFS3PROC_RMDIR, "RMDIR", nfs3_dec_lookup_args, nfs3_rmdir, nfs3_enc_wccstat_res,
		  struct nfs3_remove_args, struct nfs3_wccstat_res, .drc = RPC_DRC_REPLY,
		  .blocking = true),
	NFS3_PROC(NFS3PROC_RENAME, "RENAME", nfs3_dec_rename_args, nfs3_rename, nfs3_enc_rename_res,
		  struct nfs3_rename_args, struct nfs3_rename_res, .drc = RPC_DRC_REPLY,
		  .blocking = true),
	NFS3_PROC(NFS3PROC_LINK, "LINK", nfs3_dec_link_args, nfs3_link, nfs3_enc_link_res,
		  struct nfs3_link_args, struct nfs3_link_res, .drc = RPC_DRC_REPLY,
		  .blocking = true),
	NFS3_PROC(NFS3PROC_READDIR, "READDIR", nfs3_dec_readdir_args, nfs3_readdir,
		  nfs3_enc_readdir_res, struct nfs3_readdir_args, struct nfs3_readdir_res,
		  .drc = RPC_DRC_NONE, .blocking = true, .pool = RPC_POOL_READ,
		  .reply_size = nfs3_readdir_reply_size),
	NFS3_PROC(NFS3PROC_READDIRPLUS, "READDIRPLUS", nfs3_dec_readdirplus_args, nfs3_readdirplus,
		  nfs3_enc_readdir_res, struct nfs3_readdirplus_args, struct nfs3_readdir_res,
		  .drc = RPC_DRC_NONE, .blocking = true, .pool = RPC_POOL_READ,
		  .reply_size = nfs3_readdirplus_reply_size),
	NFS3_PROC(NFS3PROC_FSSTAT, "FSSTAT", nfs3_dec_getattr_args, nfs3_fsstat,
		  nfs3_enc_fsstat_res, struct nfs3_fhonly_args, struct nfs3_fsstat_res,
		  .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_FSINFO, "FSINFO", nfs3_dec_getattr_args, nfs3_fsinfo,
		  nfs3_enc_fsinfo_res, struct nfs3_fhonly_args, struct nfs3_fsinfo_res,
		  .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_PATHCONF, "PATHCONF", nfs3_dec_getattr_args, nfs3_pathconf,
		  nfs3_enc_pathconf_res, struct nfs3_fhonly_args, struct nfs3_pathconf_res,
		  .drc = RPC_DRC_NONE),
	NFS3_PROC(NFS3PROC_COMMIT, "COMMIT", nfs3_dec_read_args, nfs3_commit, nfs3_enc_commit_res,
		  struct nfs3_commit_args, struct nfs3_commit_res, .drc = RPC_DRC_NONE,
		  .blocking = true),
};

static const struct rpc_version nfs3_versions[] = {
	{.vers = NFS3_VERSION, .nprocs = NFS3_NPROCS, .procs = nfs3_procs},
};

/*
 * nfs3_program - the NFS program (100003), version 3 only. Register it with
 * rpc_register(&nfs3_program) at start-up; it is constant and lives forever.
 */
const struct rpc_program nfs3_program = {
	.name = "nfs",
	.prog = NFS3_PROGRAM,
	.nvers = 1,
	.versions = nfs3_versions,
};
