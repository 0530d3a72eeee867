/*
 * nfsc.c - the per-procedure calls of nfsc.h: each sends one request through the raw
 * layer (nfsc_call.c; nfsc_write_split() two at once), waits for its reply and returns
 * the protocol status.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/nfsc.h"

/* ---- hooks ---- */

/* The root handle, and in k->got whether AUTH_SYS (1) is among the flavors. */
static void hook_mnt(struct nfsc_call *k, void *res)
{
	mountres3 *r = res;

	if (r->fhs_status == MNT3_OK) {
		mountres3_ok *m = &r->mountres3_u.mountinfo;

		nfsc_fh_set(&k->fh, m->fhandle.fhandle3_len, m->fhandle.fhandle3_val);
		for (u_int i = 0; i < m->auth_flavors.auth_flavors_len; i++)
			k->got |= m->auth_flavors.auth_flavors_val[i] == 1;
	}
}

static void hook_lookup(struct nfsc_call *k, void *res)
{
	LOOKUP3res *r = res;

	if (r->status == NFS3_OK)
		nfsc_fh_set(&k->fh, r->LOOKUP3res_u.resok.object.data.data_len,
			    r->LOOKUP3res_u.resok.object.data.data_val);
}

static void hook_read(struct nfsc_call *k, void *res)
{
	READ3res *r = res;

	if (r->status != NFS3_OK)
		return;
	k->got = r->READ3res_u.resok.data.data_len;
	memcpy(k->buf, r->READ3res_u.resok.data.data_val, k->got < k->cap ? k->got : k->cap);
}

static void hook_readlink(struct nfsc_call *k, void *res)
{
	READLINK3res *r = res;

	if (r->status == NFS3_OK)
		snprintf(k->buf, k->cap, "%s", r->READLINK3res_u.resok.data);
}

/* Where a READDIR listing stands, in k->arg. */
struct listing {
	nfsc_dirent_fn fn;
	void *fn_arg;
	uint64_t last_cookie;
	uint8_t cookieverf[NFS3_COOKIEVERFSIZE];
};

static void hook_readdir(struct nfsc_call *k, void *res)
{
	READDIR3res *r = res;
	struct listing *l = k->arg;

	if (r->status != NFS3_OK)
		return;
	memcpy(l->cookieverf, r->READDIR3res_u.resok.cookieverf, NFS3_COOKIEVERFSIZE);
	/* libnfs's decoder may place entries at unaligned addresses: copy each one out. */
	for (const void *p = r->READDIR3res_u.resok.reply.entries; p;) {
		entry3 e;

		memcpy(&e, p, sizeof(e));
		l->fn(l->fn_arg, e.name, e.fileid);
		l->last_cookie = e.cookie;
		k->got++;
		p = e.nextentry;
	}
}

/* ---- procedures ---- */

int nfsc_mnt(struct nfsc *c, const char *path, struct nfsc_fh *root, bool *authsys)
{
	struct nfsc_call k;

	nfsc_call_init(&k, sizeof(mountres3), hook_mnt);
	if (NFSC_RUN(c, &k, rpc_mount3_mnt_async(c->rpc, nfsc_call_cb, (char *)path, &k)))
		return -1;
	if (k.res.mnt.fhs_status == MNT3_OK) {
		if (root)
			*root = k.fh;
		if (authsys)
			*authsys = k.got;
	}
	return (int)k.res.mnt.fhs_status;
}

int nfsc_getattr(struct nfsc *c, const struct nfsc_fh *fh, fattr3 *attr)
{
	struct nfsc_call k;
	GETATTR3args a = {.object = nfsc_fh3(fh)};

	nfsc_call_init(&k, sizeof(GETATTR3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_getattr_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (attr && k.res.getattr.status == NFS3_OK)
		*attr = k.res.getattr.GETATTR3res_u.resok.obj_attributes;
	return (int)k.res.getattr.status;
}

int nfsc_setattr(struct nfsc *c, const struct nfsc_fh *fh, const sattr3 *sa, const nfstime3 *guard)
{
	struct nfsc_call k;
	SETATTR3args a;

	memset(&a, 0, sizeof(a));
	a.object = nfsc_fh3(fh);
	a.new_attributes = *sa;
	if (guard) {
		a.guard.check = 1;
		a.guard.sattrguard3_u.obj_ctime = *guard;
	}
	nfsc_call_init(&k, sizeof(SETATTR3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_setattr_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	return (int)k.res.setattr.status;
}

int nfsc_lookup(struct nfsc *c, const struct nfsc_fh *dir, const char *name, struct nfsc_fh *out,
		fattr3 *attr)
{
	struct nfsc_call k;
	LOOKUP3args a = {.what = {.dir = nfsc_fh3(dir), .name = (char *)name}};

	nfsc_call_init(&k, sizeof(LOOKUP3res), hook_lookup);
	if (NFSC_RUN(c, &k, rpc_nfs3_lookup_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.lookup.status != NFS3_OK)
		return (int)k.res.lookup.status;
	if (out)
		*out = k.fh;
	if (attr) {
		post_op_attr *p = &k.res.lookup.LOOKUP3res_u.resok.obj_attributes;

		if (p->attributes_follow)
			*attr = p->post_op_attr_u.attributes;
		else
			return nfsc_getattr(c, &k.fh, attr);
	}
	return NFS3_OK;
}

int nfsc_access(struct nfsc *c, const struct nfsc_fh *fh, uint32_t want, uint32_t *granted)
{
	struct nfsc_call k;
	ACCESS3args a = {.object = nfsc_fh3(fh), .access = want};

	nfsc_call_init(&k, sizeof(ACCESS3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_access_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (granted && k.res.access.status == NFS3_OK)
		*granted = k.res.access.ACCESS3res_u.resok.access;
	return (int)k.res.access.status;
}

int nfsc_readlink(struct nfsc *c, const struct nfsc_fh *fh, char *buf, size_t cap)
{
	struct nfsc_call k;
	READLINK3args a = {.symlink = nfsc_fh3(fh)};

	nfsc_call_init(&k, sizeof(READLINK3res), hook_readlink);
	k.buf = buf;
	k.cap = cap;
	buf[0] = 0;
	if (NFSC_RUN(c, &k, rpc_nfs3_readlink_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	return (int)k.res.readlink.status;
}

int nfsc_read(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, uint32_t len, void *buf,
	      uint32_t *count, bool *eof)
{
	struct nfsc_call k;
	READ3args a = {.file = nfsc_fh3(fh), .offset = off, .count = len};

	nfsc_call_init(&k, sizeof(READ3res), hook_read);
	k.buf = buf;
	k.cap = len;
	if (NFSC_RUN(c, &k, rpc_nfs3_read_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.read.status == NFS3_OK) {
		if (k.got != k.res.read.READ3res_u.resok.count || k.got > len) {
			snprintf(c->err, sizeof(c->err), "READ of %u: count %u with %zu bytes", len,
				 k.res.read.READ3res_u.resok.count, k.got);
			c->broken = true;
			return -1;
		}
		if (count)
			*count = (uint32_t)k.got;
		if (eof)
			*eof = k.res.read.READ3res_u.resok.eof;
	}
	return (int)k.res.read.status;
}

/* The arguments of a WRITE of @len bytes at @data to @off of @fh. */
static WRITE3args write_args(const struct nfsc_fh *fh, uint64_t off, const void *data, uint32_t len,
			     stable_how how)
{
	WRITE3args a;

	memset(&a, 0, sizeof(a));
	a.file = nfsc_fh3(fh);
	a.offset = off;
	a.count = len;
	a.stable = how;
	a.data.data_len = len;
	a.data.data_val = (char *)data;
	return a;
}

int nfsc_write(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, const void *data,
	       uint32_t len, stable_how how, uint32_t *count, stable_how *committed,
	       uint8_t verf[8])
{
	WRITE3args a = write_args(fh, off, data, len, how);
	struct nfsc_call k;

	nfsc_call_init(&k, sizeof(WRITE3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_write_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.write.status == NFS3_OK) {
		WRITE3resok *r = &k.res.write.WRITE3res_u.resok;

		if (count)
			*count = r->count;
		if (committed)
			*committed = r->committed;
		if (verf)
			memcpy(verf, r->verf, 8);
	}
	return (int)k.res.write.status;
}

int nfsc_write_split(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, const void *data,
		     uint32_t len, uint32_t first, stable_how how, uint32_t *count,
		     stable_how *committed, uint8_t verf[8])
{
	struct nfsc_call k[2];
	struct nfsc_call *const ks[2] = {&k[0], &k[1]};
	const uint32_t at[2] = {0, first}, n[2] = {first, len - first};
	stable_how least = FILE_SYNC;
	uint32_t total = 0;
	const int one = 1, zero = 0;

	if (first == 0 || first >= len || nfsc_broken(c))
		return -1;
	/* both calls leave in one segment, so that the server reads them together */
	(void)setsockopt(rpc_get_fd(c->rpc), IPPROTO_TCP, TCP_CORK, &one, sizeof(one));
	for (int i = 0; i < 2; i++) {
		WRITE3args a = write_args(fh, off + at[i], (const char *)data + at[i], n[i], how);

		nfsc_call_init(&k[i], sizeof(WRITE3res), NULL);
		/* libnfs encodes the arguments into its output queue before this returns */
		if (rpc_nfs3_write_async(c->rpc, nfsc_call_cb, &a, &k[i]))
			return nfsc_run(c, &k[i], -1); /* says why, and drops the connection */
	}
	if (rpc_service(c->rpc, POLLOUT) < 0) /* libnfs writes what it queued */
		return nfsc_run(c, &k[0], -1);
	(void)setsockopt(rpc_get_fd(c->rpc), IPPROTO_TCP, TCP_CORK, &zero, sizeof(zero));
	if (nfsc_wait(c, ks, 2))
		return -1;
	for (int i = 0; i < 2; i++) {
		WRITE3res *r = &k[i].res.write;

		if (r->status != NFS3_OK)
			return (int)r->status;
		total += r->WRITE3res_u.resok.count;
		if (r->WRITE3res_u.resok.committed < least)
			least = r->WRITE3res_u.resok.committed;
		if (verf)
			memcpy(verf, r->WRITE3res_u.resok.verf, 8);
	}
	if (count)
		*count = total;
	if (committed)
		*committed = least;
	return NFS3_OK;
}

int nfsc_commit(struct nfsc *c, const struct nfsc_fh *fh, uint8_t verf[8])
{
	struct nfsc_call k;
	COMMIT3args a = {.file = nfsc_fh3(fh), .offset = 0, .count = 0};

	nfsc_call_init(&k, sizeof(COMMIT3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_commit_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (verf && k.res.commit.status == NFS3_OK)
		memcpy(verf, k.res.commit.COMMIT3res_u.resok.verf, 8);
	return (int)k.res.commit.status;
}

sattr3 nfsc_sattr_mode(int mode)
{
	sattr3 s;

	memset(&s, 0, sizeof(s));
	if (mode >= 0) {
		s.mode.set_it = 1;
		s.mode.set_mode3_u.mode = (mode3)mode;
	}
	return s;
}

/* The handle of a new object: from the reply, else by LOOKUP. */
static int new_handle(struct nfsc *c, struct nfsc_call *k, const struct nfsc_fh *dir,
		      const char *name, struct nfsc_fh *out)
{
	if (!out)
		return NFS3_OK;
	if (k->fh.len) {
		*out = k->fh;
		return NFS3_OK;
	}
	return nfsc_lookup(c, dir, name, out, NULL);
}

int nfsc_create(struct nfsc *c, const struct nfsc_fh *dir, const char *name, createmode3 how,
		uint32_t mode, struct nfsc_fh *out, fattr3 *attr)
{
	struct nfsc_call k;
	CREATE3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = nfsc_fh3(dir);
	a.where.name = (char *)name;
	a.how.mode = how;
	a.how.createhow3_u.obj_attributes = nfsc_sattr_mode((int)mode);
	nfsc_call_init(&k, sizeof(CREATE3res), nfsc_hook_newobj);
	if (NFSC_RUN(c, &k, rpc_nfs3_create_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.create.status != NFS3_OK)
		return (int)k.res.create.status;
	if (attr) {
		post_op_attr *p = &k.res.create.CREATE3res_u.resok.obj_attributes;

		memset(attr, 0, sizeof(*attr));
		if (p->attributes_follow)
			*attr = p->post_op_attr_u.attributes;
	}
	return new_handle(c, &k, dir, name, out);
}

int nfsc_create_exclusive(struct nfsc *c, const struct nfsc_fh *dir, const char *name,
			  const uint8_t verf[8], struct nfsc_fh *out)
{
	struct nfsc_call k;
	CREATE3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = nfsc_fh3(dir);
	a.where.name = (char *)name;
	a.how.mode = EXCLUSIVE;
	memcpy(a.how.createhow3_u.verf, verf, NFS3_CREATEVERFSIZE);
	nfsc_call_init(&k, sizeof(CREATE3res), nfsc_hook_newobj);
	if (NFSC_RUN(c, &k, rpc_nfs3_create_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.create.status != NFS3_OK)
		return (int)k.res.create.status;
	return new_handle(c, &k, dir, name, out);
}

int nfsc_mkdir(struct nfsc *c, const struct nfsc_fh *dir, const char *name, uint32_t mode,
	       struct nfsc_fh *out)
{
	struct nfsc_call k;
	MKDIR3args a = {.where = {.dir = nfsc_fh3(dir), .name = (char *)name},
			.attributes = nfsc_sattr_mode((int)mode)};

	nfsc_call_init(&k, sizeof(MKDIR3res), nfsc_hook_newobj);
	if (NFSC_RUN(c, &k, rpc_nfs3_mkdir_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.mkdir.status != NFS3_OK)
		return (int)k.res.mkdir.status;
	return new_handle(c, &k, dir, name, out);
}

int nfsc_symlink(struct nfsc *c, const struct nfsc_fh *dir, const char *name, const char *target,
		 struct nfsc_fh *out)
{
	struct nfsc_call k;
	SYMLINK3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = nfsc_fh3(dir);
	a.where.name = (char *)name;
	a.symlink.symlink_attributes = nfsc_sattr_mode(0777);
	a.symlink.symlink_data = (char *)target;
	nfsc_call_init(&k, sizeof(SYMLINK3res), nfsc_hook_newobj);
	if (NFSC_RUN(c, &k, rpc_nfs3_symlink_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	if (k.res.symlink.status != NFS3_OK)
		return (int)k.res.symlink.status;
	return new_handle(c, &k, dir, name, out);
}

int nfsc_remove(struct nfsc *c, const struct nfsc_fh *dir, const char *name)
{
	struct nfsc_call k;
	REMOVE3args a = {.object = {.dir = nfsc_fh3(dir), .name = (char *)name}};

	nfsc_call_init(&k, sizeof(REMOVE3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_remove_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	return (int)k.res.remove.status;
}

int nfsc_rmdir(struct nfsc *c, const struct nfsc_fh *dir, const char *name)
{
	struct nfsc_call k;
	RMDIR3args a = {.object = {.dir = nfsc_fh3(dir), .name = (char *)name}};

	nfsc_call_init(&k, sizeof(RMDIR3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_rmdir_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	return (int)k.res.rmdir.status;
}

int nfsc_rename(struct nfsc *c, const struct nfsc_fh *fdir, const char *fname,
		const struct nfsc_fh *tdir, const char *tname)
{
	struct nfsc_call k;
	RENAME3args a = {.from = {.dir = nfsc_fh3(fdir), .name = (char *)fname},
			 .to = {.dir = nfsc_fh3(tdir), .name = (char *)tname}};

	nfsc_call_init(&k, sizeof(RENAME3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_rename_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	return (int)k.res.rename.status;
}

int nfsc_link(struct nfsc *c, const struct nfsc_fh *fh, const struct nfsc_fh *dir, const char *name)
{
	struct nfsc_call k;
	LINK3args a = {.file = nfsc_fh3(fh), .link = {.dir = nfsc_fh3(dir), .name = (char *)name}};

	nfsc_call_init(&k, sizeof(LINK3res), NULL);
	if (NFSC_RUN(c, &k, rpc_nfs3_link_async(c->rpc, nfsc_call_cb, &a, &k)))
		return -1;
	return (int)k.res.link.status;
}

int nfsc_readdir(struct nfsc *c, const struct nfsc_fh *dir, nfsc_dirent_fn fn, void *arg)
{
	struct listing l = {.fn = fn, .fn_arg = arg};

	for (;;) {
		struct nfsc_call k;
		READDIR3args a;

		memset(&a, 0, sizeof(a));
		a.dir = nfsc_fh3(dir);
		a.cookie = l.last_cookie;
		memcpy(a.cookieverf, l.cookieverf, sizeof(a.cookieverf));
		a.count = 4096;
		nfsc_call_init(&k, sizeof(READDIR3res), hook_readdir);
		k.arg = &l;
		if (NFSC_RUN(c, &k, rpc_nfs3_readdir_async(c->rpc, nfsc_call_cb, &a, &k)))
			return -1;
		if (k.res.readdir.status != NFS3_OK)
			return (int)k.res.readdir.status;
		if (k.res.readdir.READDIR3res_u.resok.reply.eof)
			return NFS3_OK;
		if (k.got == 0) {
			snprintf(c->err, sizeof(c->err), "READDIR: no entries and no eof");
			return NFS3ERR_SERVERFAULT;
		}
	}
}
