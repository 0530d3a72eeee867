/*
 * nfs3_proc_dir.c - NFSv3 procedures that change or list directories (RFC 1813,
 * sections 3.3.8-3.3.17): CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK,
 * READDIR and READDIRPLUS.
 *
 * Like nfs3_proc.c, these only turn decoded arguments into vfs calls and fill result
 * structs; every result carries the directory's weak cache consistency data in both
 * arms, as the RFC lays them out. Names are checked and copied by nfs3_name().
 */
#include "nfs3/nfs3_proc.h"

#include <errno.h>
#include <string.h>

#include "core/arena.h"

/*
 * The fixed part of READDIR3res/READDIRPLUS3res, counted against count/maxcount:
 * status (4), dir_attributes as a present post_op_attr (4 + 84 for the fattr3),
 * cookieverf (8), the FALSE that ends the entry list (4) and eof (4). Each entry adds
 * nfs3_entry_size(), which includes its leading TRUE.
 */
#define NFS3_READDIR_FIXED (4u + 4u + 84u + 8u + 4u + 4u)

/*
 * Fill a diropres3 (CREATE, MKDIR, SYMLINK, MKNOD): the new object's handle and
 * attributes on success, the directory's wcc data in both arms.
 */
static void nfs3_diropres_fill(struct nfs3_diropres *res, int err, const struct vfs_fh *fh,
			       const struct vfs_attr *attr, const struct vfs_wcc *wcc,
			       struct vfs_node *dir)
{
	nfs3_wcc_from_vfs(&res->dir_wcc, wcc, dir);
	if (err)
		return;
	res->obj.present = fh->len != 0;
	nfs3_fh_from_vfs(&res->obj.fh, fh);
	nfs3_post_op_set(&res->obj_attr, attr);
}

/*
 * CREATE (3.3.8): UNCHECKED and GUARDED apply the client's attributes; EXCLUSIVE
 * ignores them and stores the verifier, the client setting attributes afterwards with
 * SETATTR, as the RFC describes. GUARDED and EXCLUSIVE semantics are the vfs's.
 */
void nfs3_create(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_create_args *args = argp;
	struct nfs3_diropres *res = resp;
	struct vfs_wcc wcc = {0};
	struct vfs_fh fh = {0};
	struct vfs_sattr sa = {0};
	struct vfs_attr attr;
	const char *name;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->where.dir, &o);
	if (err)
		goto out;
	err = nfs3_name(req, &args->where.name, NFS3_NAME_NEW, &name);
	if (err)
		goto out_fill;
	switch (args->mode) {
	case NFS3_UNCHECKED:
	case NFS3_GUARDED:
		err = nfs3_sattr_to_vfs(&sa, &args->attr);
		break;
	case NFS3_EXCLUSIVE:
		break;
	default:
		err = -EINVAL;
		break;
	}
	if (!err)
		err = vfs_create(&o.ctx, o.node, name, (enum vfs_create_how)args->mode, &sa,
				 args->verf, &fh, &attr, &wcc);
out_fill:
	nfs3_diropres_fill(res, err, &fh, &attr, &wcc, o.node);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* MKDIR (3.3.9). */
void nfs3_mkdir(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_mkdir_args *args = argp;
	struct nfs3_diropres *res = resp;
	struct vfs_wcc wcc = {0};
	struct vfs_fh fh = {0};
	struct vfs_sattr sa;
	struct vfs_attr attr;
	const char *name;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->where.dir, &o);
	if (err)
		goto out;
	err = nfs3_name(req, &args->where.name, NFS3_NAME_NEW, &name);
	if (!err)
		err = nfs3_sattr_to_vfs(&sa, &args->attr);
	if (!err)
		err = vfs_mkdir(&o.ctx, o.node, name, &sa, &fh, &attr, &wcc);
	nfs3_diropres_fill(res, err, &fh, &attr, &wcc, o.node);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * The symlink's target as a NUL-terminated arena copy. An empty target is refused
 * with NFS3ERR_NOENT, as symlink(2) and knfsd refuse it; a NUL inside cannot be stored.
 */
static int nfs3_symlink_target(struct rpc_req *req, const struct xdr_view *v, const char **out)
{
	char *s;

	if (v->len == 0)
		return -ENOENT;
	if (v->len > NFS3_MAXPATHLEN)
		return -ENAMETOOLONG;
	if (memchr(v->data, '\0', v->len))
		return -EINVAL;
	s = arena_alloc(&req->arena, v->len + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, v->data, v->len);
	s[v->len] = '\0';
	*out = s;
	return 0;
}

/* SYMLINK (3.3.10). */
void nfs3_symlink(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_symlink_args *args = argp;
	struct nfs3_diropres *res = resp;
	struct vfs_wcc wcc = {0};
	struct vfs_fh fh = {0};
	const char *name, *target;
	struct vfs_sattr sa;
	struct vfs_attr attr;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->where.dir, &o);
	if (err)
		goto out;
	err = nfs3_name(req, &args->where.name, NFS3_NAME_NEW, &name);
	if (!err)
		err = nfs3_symlink_target(req, &args->path, &target);
	if (!err)
		err = nfs3_sattr_to_vfs(&sa, &args->attr);
	if (!err)
		err = vfs_symlink(&o.ctx, o.node, name, target, &sa, &fh, &attr, &wcc);
	nfs3_diropres_fill(res, err, &fh, &attr, &wcc, o.node);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * MKNOD (3.3.11): character and block devices (with their major/minor numbers),
 * sockets and FIFOs. Regular files, directories and symlinks have their own
 * procedures, so MKNOD of those types is NFS3ERR_BADTYPE.
 */
void nfs3_mknod(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_mknod_args *args = argp;
	struct nfs3_diropres *res = resp;
	struct vfs_wcc wcc = {0};
	struct vfs_fh fh = {0};
	enum vfs_type type = VFS_REG; /* until a type MKNOD may create is seen */
	uint32_t major = 0, minor = 0;
	struct vfs_sattr sa;
	struct vfs_attr attr;
	const char *name;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->where.dir, &o);
	if (err)
		goto out;
	err = nfs3_name(req, &args->where.name, NFS3_NAME_NEW, &name);
	if (err)
		goto out_fill;
	switch (args->type) {
	case NF3CHR:
	case NF3BLK:
	case NF3SOCK:
	case NF3FIFO:
		type = (enum vfs_type)args->type;
		err = nfs3_sattr_to_vfs(&sa, &args->attr);
		break;
	default:
		err = -VFS_EBADTYPE;
		break;
	}
	if (type == VFS_CHR || type == VFS_BLK) {
		major = args->rdev1;
		minor = args->rdev2;
	}
	if (!err)
		err = vfs_mknod(&o.ctx, o.node, name, type, &sa, major, minor, &fh, &attr, &wcc);
out_fill:
	nfs3_diropres_fill(res, err, &fh, &attr, &wcc, o.node);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* REMOVE (3.3.12) and RMDIR (3.3.13): dir_wcc in both arms. */
static void nfs3_unlink(struct rpc_req *req, const struct nfs3_remove_args *args,
			struct nfs3_wccstat_res *res, bool dir)
{
	struct vfs_wcc wcc = {0};
	const char *name;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->object.dir, &o);
	if (err)
		goto out;
	err = nfs3_name(req, &args->object.name, NFS3_NAME_OLD, &name);
	if (!err)
		err = dir ? vfs_rmdir(&o.ctx, o.node, name, &wcc)
			  : vfs_remove(&o.ctx, o.node, name, &wcc);
	nfs3_wcc_from_vfs(&res->wcc, &wcc, o.node);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

void nfs3_remove(struct rpc_req *req, const void *argp, void *resp)
{
	nfs3_unlink(req, argp, resp, false);
}

void nfs3_rmdir(struct rpc_req *req, const void *argp, void *resp)
{
	nfs3_unlink(req, argp, resp, true);
}

/*
 * RENAME (3.3.14): both directories' wcc data in both arms. The two directories must
 * be in the same export (NFS3ERR_XDEV otherwise), which also keeps a rename from
 * moving a file into a tree the client was not given.
 */
void nfs3_rename(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_rename_args *args = argp;
	struct nfs3_rename_res *res = resp;
	struct vfs_wcc from_wcc = {0}, to_wcc = {0};
	const char *from_name, *to_name;
	struct vfs_node *to_dir = NULL;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->from.dir, &o);
	if (err)
		goto out;
	err = nfs3_obj_get_other(&o, &args->to.dir, &to_dir);
	if (!err)
		err = nfs3_name(req, &args->from.name, NFS3_NAME_OLD, &from_name);
	if (!err)
		err = nfs3_name(req, &args->to.name, NFS3_NAME_NEW, &to_name);
	if (!err)
		err = vfs_rename(&o.ctx, o.node, from_name, to_dir, to_name, &from_wcc, &to_wcc);
	nfs3_wcc_from_vfs(&res->fromdir_wcc, &from_wcc, o.node);
	nfs3_wcc_from_vfs(&res->todir_wcc, &to_wcc, to_dir);
	if (to_dir)
		vfs_node_put(to_dir);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/*
 * LINK (3.3.15): the file's attributes and the directory's wcc data in both arms;
 * file and directory must be in the same export (NFS3ERR_XDEV).
 */
void nfs3_link(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_link_args *args = argp;
	struct nfs3_link_res *res = resp;
	struct vfs_node *dir = NULL;
	struct vfs_wcc wcc = {0};
	bool attr_valid = false;
	struct vfs_attr attr;
	const char *name;
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->file, &o);
	if (err)
		goto out;
	err = nfs3_obj_get_other(&o, &args->link.dir, &dir);
	if (!err)
		err = nfs3_name(req, &args->link.name, NFS3_NAME_NEW, &name);
	if (!err)
		err = vfs_link(&o.ctx, o.node, dir, name, &attr, &attr_valid, &wcc);
	if (attr_valid)
		nfs3_post_op_set(&res->file_attr, &attr);
	else
		nfs3_post_op_fetch(o.node, &res->file_attr);
	nfs3_wcc_from_vfs(&res->linkdir_wcc, &wcc, dir);
	if (dir)
		vfs_node_put(dir);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* ---- READDIR and READDIRPLUS ---- */

/* Entries gathered by the readdir callback, with the budgets they must stay within. */
struct nfs3_dir_fill {
	struct arena *arena;
	bool plus;
	struct nfs3_entry *ents; /* arena array, doubled when full */
	uint32_t n, cap;
	uint64_t used, max;	  /* encoded entry bytes vs count/maxcount budget */
	uint64_t dirused, dirmax; /* READDIRPLUS: directory information vs dircount */
	bool stopped;		  /* an entry was refused: the listing is not at its end */
	int err;
};

static bool nfs3_dir_grow(struct nfs3_dir_fill *f)
{
	uint32_t cap = f->cap ? f->cap * 2 : 32;
	struct nfs3_entry *ents = arena_alloc(f->arena, (size_t)cap * sizeof(*ents));

	if (!ents)
		return false;
	if (f->n)
		memcpy(ents, f->ents, (size_t)f->n * sizeof(*ents));
	f->ents = ents;
	f->cap = cap;
	return true;
}

/*
 * vfs_readdir callback: take @d if it fits. The whole reply must fit in count
 * (READDIR) or maxcount (READDIRPLUS): that limit is never exceeded. For READDIRPLUS,
 * dircount bounds the directory information alone, without attributes and handles
 * (RFC 1813 section 3.3.17). Clients treat it as a hint (Linux sends maxcount / 8;
 * knfsd ignores it), so we count it leniently and always take the first entry that
 * fits in maxcount.
 */
static bool nfs3_dir_take(void *arg, const struct vfs_dirent *d)
{
	struct nfs3_dir_fill *f = arg;
	struct nfs3_entry e;
	uint32_t size, dsize;
	char *name;

	memset(&e, 0, sizeof(e));
	e.fileid = d->fileid;
	e.cookie = d->cookie;
	e.name.data = (const uint8_t *)d->name;
	e.name.len = d->name_len;
	if (f->plus && d->have_plus) {
		nfs3_post_op_set(&e.attr, &d->attr);
		e.fh.present = d->fh.len != 0;
		nfs3_fh_from_vfs(&e.fh.fh, &d->fh);
	}
	size = nfs3_entry_size(&e, f->plus);
	/* Read leniently: the fileid, the name's bytes and the cookie, no XDR overhead. */
	dsize = 8 + d->name_len + 8;
	if (f->used + size > f->max)
		goto stop;
	if (f->plus && f->n > 0 && f->dirused + dsize > f->dirmax)
		goto stop;
	if (f->n == f->cap && !nfs3_dir_grow(f))
		goto nomem;
	name = arena_alloc(f->arena, d->name_len ? d->name_len : 1);
	if (!name)
		goto nomem;
	memcpy(name, d->name, d->name_len);
	e.name.data = (const uint8_t *)name;
	f->ents[f->n++] = e;
	f->used += size;
	f->dirused += dsize;
	return true;

nomem:
	f->err = -ENOMEM;
stop:
	f->stopped = true;
	return false;
}

/*
 * The body of READDIR (3.3.16) and READDIRPLUS (3.3.17): dir_attributes in both arms;
 * the cookie verifier is checked and issued by the vfs. If not even one entry fits in
 * the client's budget the answer is NFS3ERR_TOOSMALL. Entries and names live in the
 * request's arena until the reply has been sent.
 */
static void nfs3_readdir_common(struct rpc_req *req, const struct nfs3_fh *fh, uint64_t cookie,
				const uint8_t *verf, bool plus, uint32_t count, uint32_t dircount,
				struct nfs3_readdir_res *res)
{
	uint32_t max = count < NFS3_DIR_MAXREPLY ? count : NFS3_DIR_MAXREPLY;
	struct nfs3_dir_fill f;
	struct vfs_attr dir_attr;
	struct nfs3_obj o;
	bool eof = false;
	int err;

	res->plus = plus;
	err = nfs3_obj_get(req, fh, &o);
	if (err)
		goto out;
	if (max <= NFS3_READDIR_FIXED) {
		err = -VFS_ETOOSMALL;
		nfs3_post_op_fetch(o.node, &res->dir_attr);
		goto out_put;
	}
	memset(&f, 0, sizeof(f));
	f.arena = &req->arena;
	f.plus = plus;
	f.max = max - NFS3_READDIR_FIXED;
	f.dirmax = dircount;
	err = vfs_readdir(&o.ctx, o.node, cookie, verf, plus, nfs3_dir_take, &f, res->cookieverf,
			  &eof, &dir_attr);
	if (err) {
		nfs3_post_op_fetch(o.node, &res->dir_attr);
		goto out_put;
	}
	nfs3_post_op_set(&res->dir_attr, &dir_attr);
	if (f.n == 0 && f.err) {
		err = f.err;
	} else if (f.n == 0 && !eof) {
		err = -VFS_ETOOSMALL;
	} else {
		res->entries = f.ents;
		res->nentries = f.n;
		/* The vfs may see the end after we refused an entry; the client needs it. */
		res->eof = eof && !f.stopped;
	}
out_put:
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* READDIR (3.3.16): count bounds the whole READDIR3resok. */
void nfs3_readdir(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_readdir_args *args = argp;

	nfs3_readdir_common(req, &args->dir, args->cookie, args->cookieverf, false, args->count, 0,
			    resp);
}

/* READDIRPLUS (3.3.17): maxcount bounds the whole reply, dircount the entry3 parts. */
void nfs3_readdirplus(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_readdirplus_args *args = argp;

	nfs3_readdir_common(req, &args->dir, args->cookie, args->cookieverf, true, args->maxcount,
			    args->dircount, resp);
}
