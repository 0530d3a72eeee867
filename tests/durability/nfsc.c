/*
 * nfsc.c - the synchronous NFSv3/MOUNT client of nfsc.h: each call sends one libnfs raw
 * async request and drives the connection's poll loop until the reply or the deadline.
 *
 * libnfs frees a reply's pointers when the callback returns, so whatever lives behind a
 * pointer (handles, READ data, READDIR entries) is copied out by a per-call hook.
 */
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "durability/nfsc.h"

struct call;
typedef void (*call_hook)(struct call *k, void *res);

struct call {
	bool done;
	int status;
	size_t res_size;
	call_hook hook;
	struct nfsc_fh fh; /* handle copied by the hook */
	void *buf;	   /* READ / READLINK / READDIR destination */
	size_t cap;
	size_t got;
	nfsc_dirent_fn fn;
	void *fn_arg;
	uint64_t last_cookie;
	uint8_t cookieverf[NFS3_COOKIEVERFSIZE];
	union {
		GETATTR3res getattr;
		SETATTR3res setattr;
		LOOKUP3res lookup;
		ACCESS3res access;
		READLINK3res readlink;
		READ3res read;
		WRITE3res write;
		CREATE3res create;
		MKDIR3res mkdir;
		SYMLINK3res symlink;
		REMOVE3res remove;
		RMDIR3res rmdir;
		RENAME3res rename;
		LINK3res link;
		READDIR3res readdir;
		COMMIT3res commit;
		mountres3 mnt;
	} res;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void call_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct call *k = priv;

	(void)rpc;
	k->done = true;
	k->status = status;
	if (status != RPC_STATUS_SUCCESS || !data)
		return;
	if (k->res_size)
		memcpy(&k->res, data, k->res_size);
	if (k->hook)
		k->hook(k, data);
}

static void call_init(struct call *k, size_t res_size, call_hook hook)
{
	memset(k, 0, sizeof(*k));
	k->res_size = res_size;
	k->hook = hook;
}

/* @rc is what the *_async function returned. 0 when a reply was decoded. */
static int run(struct nfsc *c, struct call *k, int rc)
{
	long deadline = now_ms() + c->timeout_ms;

	if (c->broken || !c->rpc)
		return -1;
	if (rc != 0) {
		snprintf(c->err, sizeof(c->err), "could not send: %s", rpc_get_error(c->rpc));
		c->broken = true;
		return -1;
	}
	while (!k->done) {
		struct pollfd pfd;

		if (now_ms() > deadline) {
			snprintf(c->err, sizeof(c->err), "no reply within %d ms", c->timeout_ms);
			c->broken = true;
			return -1;
		}
		pfd.fd = rpc_get_fd(c->rpc);
		pfd.events = (short)rpc_which_events(c->rpc);
		pfd.revents = 0;
		if (poll(&pfd, 1, 100) < 0)
			continue;
		if (rpc_service(c->rpc, pfd.revents) < 0) {
			snprintf(c->err, sizeof(c->err), "connection broken: %s",
				 rpc_get_error(c->rpc));
			c->broken = true;
			return -1;
		}
	}
	if (k->status != RPC_STATUS_SUCCESS) {
		snprintf(c->err, sizeof(c->err), "rpc status %d: %s", k->status,
			 rpc_get_error(c->rpc));
		c->broken = true;
		return -1;
	}
	return 0;
}

int nfsc_connect(struct nfsc *c, const char *host, int port, int timeout_s)
{
	struct call k;

	memset(c, 0, sizeof(*c));
	c->timeout_ms = timeout_s * 1000;
	c->rpc = rpc_init_context();
	if (!c->rpc) {
		snprintf(c->err, sizeof(c->err), "rpc_init_context failed");
		return -1;
	}
	call_init(&k, 0, NULL);
	if (run(c, &k, rpc_connect_async(c->rpc, host, port, call_cb, &k))) {
		rpc_destroy_context(c->rpc);
		c->rpc = NULL;
		return -1;
	}
	return 0;
}

void nfsc_set_auth(struct nfsc *c, enum nfsc_auth auth, uint32_t uid, uint32_t gid)
{
	struct AUTH *a;

	if (auth == NFSC_AUTH_NONE)
		a = libnfs_authnone_create();
	else
		a = libnfs_authunix_create("shoal-test", uid, gid, 0, NULL);
	if (a)
		rpc_set_auth(c->rpc, a); /* the context owns it from now on */
}

void nfsc_close(struct nfsc *c)
{
	if (c->rpc)
		rpc_destroy_context(c->rpc);
	c->rpc = NULL;
}

bool nfsc_broken(const struct nfsc *c)
{
	return c->broken || !c->rpc;
}

const char *nfsc_stname(int st)
{
	static const struct {
		int st;
		const char *name;
	} names[] = {
		{-1, "RPC-error"},
		{NFS3_OK, "NFS3_OK"},
		{NFS3ERR_PERM, "NFS3ERR_PERM"},
		{NFS3ERR_NOENT, "NFS3ERR_NOENT"},
		{NFS3ERR_IO, "NFS3ERR_IO"},
		{NFS3ERR_ACCES, "NFS3ERR_ACCES"},
		{NFS3ERR_EXIST, "NFS3ERR_EXIST"},
		{NFS3ERR_XDEV, "NFS3ERR_XDEV"},
		{NFS3ERR_NOTDIR, "NFS3ERR_NOTDIR"},
		{NFS3ERR_ISDIR, "NFS3ERR_ISDIR"},
		{NFS3ERR_INVAL, "NFS3ERR_INVAL"},
		{NFS3ERR_ROFS, "NFS3ERR_ROFS"},
		{NFS3ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY"},
		{NFS3ERR_STALE, "NFS3ERR_STALE"},
		{NFS3ERR_BADHANDLE, "NFS3ERR_BADHANDLE"},
		{NFS3ERR_NOTSUPP, "NFS3ERR_NOTSUPP"},
		{NFS3ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT"},
		{NFS3ERR_JUKEBOX, "NFS3ERR_JUKEBOX"},
	};
	static _Thread_local char other[32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].st == st)
			return names[i].name;
	snprintf(other, sizeof(other), "status-%d", st);
	return other;
}

const char *nfsc_mntname(int st)
{
	static _Thread_local char other[32];

	switch (st) {
	case -1:
		return "RPC-error";
	case MNT3_OK:
		return "MNT3_OK";
	case MNT3ERR_PERM:
		return "MNT3ERR_PERM";
	case MNT3ERR_NOENT:
		return "MNT3ERR_NOENT";
	case MNT3ERR_ACCES:
		return "MNT3ERR_ACCES";
	default:
		snprintf(other, sizeof(other), "mountstat-%d", st);
		return other;
	}
}

void nfsc_fh_hex(const struct nfsc_fh *fh, char *out)
{
	for (uint32_t i = 0; i < fh->len; i++)
		sprintf(out + 2 * i, "%02x", fh->data[i]);
	out[2 * fh->len] = 0;
}

bool nfsc_fh_parse(const char *hex, struct nfsc_fh *fh)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > NFSC_FHMAX || n == 0)
		return false;
	fh->len = (uint32_t)(n / 2);
	for (size_t i = 0; i < fh->len; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		fh->data[i] = (uint8_t)v;
	}
	return true;
}

static nfs_fh3 fh3(const struct nfsc_fh *f)
{
	nfs_fh3 h;

	h.data.data_len = f->len;
	h.data.data_val = (char *)f->data;
	return h;
}

static void fh_copy(struct nfsc_fh *f, u_int len, const char *data)
{
	f->len = len > NFSC_FHMAX ? NFSC_FHMAX : len;
	memcpy(f->data, data, f->len);
}

/* ---- hooks ---- */

static void hook_mnt(struct call *k, void *res)
{
	mountres3 *r = res;

	if (r->fhs_status == MNT3_OK)
		fh_copy(&k->fh, r->mountres3_u.mountinfo.fhandle.fhandle3_len,
			r->mountres3_u.mountinfo.fhandle.fhandle3_val);
}

static void hook_lookup(struct call *k, void *res)
{
	LOOKUP3res *r = res;

	if (r->status == NFS3_OK)
		fh_copy(&k->fh, r->LOOKUP3res_u.resok.object.data.data_len,
			r->LOOKUP3res_u.resok.object.data.data_val);
}

/* CREATE, MKDIR and SYMLINK results share one layout. */
static void hook_newobj(struct call *k, void *res)
{
	CREATE3res *r = res;

	if (r->status == NFS3_OK && r->CREATE3res_u.resok.obj.handle_follows) {
		nfs_fh3 *h = &r->CREATE3res_u.resok.obj.post_op_fh3_u.handle;

		fh_copy(&k->fh, h->data.data_len, h->data.data_val);
	}
}

static void hook_read(struct call *k, void *res)
{
	READ3res *r = res;

	if (r->status != NFS3_OK)
		return;
	k->got = r->READ3res_u.resok.data.data_len;
	memcpy(k->buf, r->READ3res_u.resok.data.data_val, k->got < k->cap ? k->got : k->cap);
}

static void hook_readlink(struct call *k, void *res)
{
	READLINK3res *r = res;

	if (r->status == NFS3_OK)
		snprintf(k->buf, k->cap, "%s", r->READLINK3res_u.resok.data);
}

static void hook_readdir(struct call *k, void *res)
{
	READDIR3res *r = res;

	if (r->status != NFS3_OK)
		return;
	memcpy(k->cookieverf, r->READDIR3res_u.resok.cookieverf, NFS3_COOKIEVERFSIZE);
	/* libnfs's decoder may place entries at unaligned addresses: copy each one out. */
	for (const void *p = r->READDIR3res_u.resok.reply.entries; p;) {
		entry3 e;

		memcpy(&e, p, sizeof(e));
		k->fn(k->fn_arg, e.name, e.fileid);
		k->last_cookie = e.cookie;
		k->got++;
		p = e.nextentry;
	}
}

/* ---- procedures ---- */

int nfsc_mnt(struct nfsc *c, const char *path, struct nfsc_fh *root)
{
	struct call k;

	call_init(&k, sizeof(mountres3), hook_mnt);
	if (run(c, &k, rpc_mount3_mnt_async(c->rpc, call_cb, (char *)path, &k)))
		return -1;
	if (k.res.mnt.fhs_status == MNT3_OK && root)
		*root = k.fh;
	return (int)k.res.mnt.fhs_status;
}

int nfsc_getattr(struct nfsc *c, const struct nfsc_fh *fh, fattr3 *attr)
{
	struct call k;
	GETATTR3args a = {.object = fh3(fh)};

	call_init(&k, sizeof(GETATTR3res), NULL);
	if (run(c, &k, rpc_nfs3_getattr_async(c->rpc, call_cb, &a, &k)))
		return -1;
	if (attr && k.res.getattr.status == NFS3_OK)
		*attr = k.res.getattr.GETATTR3res_u.resok.obj_attributes;
	return (int)k.res.getattr.status;
}

int nfsc_setattr(struct nfsc *c, const struct nfsc_fh *fh, const sattr3 *sa)
{
	struct call k;
	SETATTR3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(fh);
	a.new_attributes = *sa;
	call_init(&k, sizeof(SETATTR3res), NULL);
	if (run(c, &k, rpc_nfs3_setattr_async(c->rpc, call_cb, &a, &k)))
		return -1;
	return (int)k.res.setattr.status;
}

int nfsc_lookup(struct nfsc *c, const struct nfsc_fh *dir, const char *name, struct nfsc_fh *out,
		fattr3 *attr)
{
	struct call k;
	LOOKUP3args a = {.what = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&k, sizeof(LOOKUP3res), hook_lookup);
	if (run(c, &k, rpc_nfs3_lookup_async(c->rpc, call_cb, &a, &k)))
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
	struct call k;
	ACCESS3args a = {.object = fh3(fh), .access = want};

	call_init(&k, sizeof(ACCESS3res), NULL);
	if (run(c, &k, rpc_nfs3_access_async(c->rpc, call_cb, &a, &k)))
		return -1;
	if (granted && k.res.access.status == NFS3_OK)
		*granted = k.res.access.ACCESS3res_u.resok.access;
	return (int)k.res.access.status;
}

int nfsc_readlink(struct nfsc *c, const struct nfsc_fh *fh, char *buf, size_t cap)
{
	struct call k;
	READLINK3args a = {.symlink = fh3(fh)};

	call_init(&k, sizeof(READLINK3res), hook_readlink);
	k.buf = buf;
	k.cap = cap;
	buf[0] = 0;
	if (run(c, &k, rpc_nfs3_readlink_async(c->rpc, call_cb, &a, &k)))
		return -1;
	return (int)k.res.readlink.status;
}

int nfsc_read(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, uint32_t len, void *buf,
	      uint32_t *count, bool *eof)
{
	struct call k;
	READ3args a = {.file = fh3(fh), .offset = off, .count = len};

	call_init(&k, sizeof(READ3res), hook_read);
	k.buf = buf;
	k.cap = len;
	if (run(c, &k, rpc_nfs3_read_async(c->rpc, call_cb, &a, &k)))
		return -1;
	if (k.res.read.status == NFS3_OK) {
		if (count)
			*count = k.got < len ? (uint32_t)k.got : len;
		if (eof)
			*eof = k.res.read.READ3res_u.resok.eof;
	}
	return (int)k.res.read.status;
}

int nfsc_write(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, const void *data,
	       uint32_t len, stable_how how, uint32_t *count, stable_how *committed,
	       uint8_t verf[8])
{
	struct call k;
	WRITE3args a;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = off;
	a.count = len;
	a.stable = how;
	a.data.data_len = len;
	a.data.data_val = (char *)data;
	call_init(&k, sizeof(WRITE3res), NULL);
	if (run(c, &k, rpc_nfs3_write_async(c->rpc, call_cb, &a, &k)))
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

int nfsc_commit(struct nfsc *c, const struct nfsc_fh *fh, uint8_t verf[8])
{
	struct call k;
	COMMIT3args a = {.file = fh3(fh), .offset = 0, .count = 0};

	call_init(&k, sizeof(COMMIT3res), NULL);
	if (run(c, &k, rpc_nfs3_commit_async(c->rpc, call_cb, &a, &k)))
		return -1;
	if (verf && k.res.commit.status == NFS3_OK)
		memcpy(verf, k.res.commit.COMMIT3res_u.resok.verf, 8);
	return (int)k.res.commit.status;
}

static sattr3 sattr_mode(uint32_t mode)
{
	sattr3 s;

	memset(&s, 0, sizeof(s));
	s.mode.set_it = 1;
	s.mode.set_mode3_u.mode = mode;
	return s;
}

/* The handle of a new object: from the reply, else by LOOKUP. */
static int new_handle(struct nfsc *c, struct call *k, const struct nfsc_fh *dir, const char *name,
		      struct nfsc_fh *out)
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
	struct call k;
	CREATE3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.how.mode = how;
	a.how.createhow3_u.obj_attributes = sattr_mode(mode);
	call_init(&k, sizeof(CREATE3res), hook_newobj);
	if (run(c, &k, rpc_nfs3_create_async(c->rpc, call_cb, &a, &k)))
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

int nfsc_mkdir(struct nfsc *c, const struct nfsc_fh *dir, const char *name, uint32_t mode,
	       struct nfsc_fh *out)
{
	struct call k;
	MKDIR3args a = {.where = {.dir = fh3(dir), .name = (char *)name},
			.attributes = sattr_mode(mode)};

	call_init(&k, sizeof(MKDIR3res), hook_newobj);
	if (run(c, &k, rpc_nfs3_mkdir_async(c->rpc, call_cb, &a, &k)))
		return -1;
	if (k.res.mkdir.status != NFS3_OK)
		return (int)k.res.mkdir.status;
	return new_handle(c, &k, dir, name, out);
}

int nfsc_symlink(struct nfsc *c, const struct nfsc_fh *dir, const char *name, const char *target,
		 struct nfsc_fh *out)
{
	struct call k;
	SYMLINK3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.symlink.symlink_attributes = sattr_mode(0777);
	a.symlink.symlink_data = (char *)target;
	call_init(&k, sizeof(SYMLINK3res), hook_newobj);
	if (run(c, &k, rpc_nfs3_symlink_async(c->rpc, call_cb, &a, &k)))
		return -1;
	if (k.res.symlink.status != NFS3_OK)
		return (int)k.res.symlink.status;
	return new_handle(c, &k, dir, name, out);
}

int nfsc_remove(struct nfsc *c, const struct nfsc_fh *dir, const char *name)
{
	struct call k;
	REMOVE3args a = {.object = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&k, sizeof(REMOVE3res), NULL);
	if (run(c, &k, rpc_nfs3_remove_async(c->rpc, call_cb, &a, &k)))
		return -1;
	return (int)k.res.remove.status;
}

int nfsc_rmdir(struct nfsc *c, const struct nfsc_fh *dir, const char *name)
{
	struct call k;
	RMDIR3args a = {.object = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&k, sizeof(RMDIR3res), NULL);
	if (run(c, &k, rpc_nfs3_rmdir_async(c->rpc, call_cb, &a, &k)))
		return -1;
	return (int)k.res.rmdir.status;
}

int nfsc_rename(struct nfsc *c, const struct nfsc_fh *fdir, const char *fname,
		const struct nfsc_fh *tdir, const char *tname)
{
	struct call k;
	RENAME3args a = {.from = {.dir = fh3(fdir), .name = (char *)fname},
			 .to = {.dir = fh3(tdir), .name = (char *)tname}};

	call_init(&k, sizeof(RENAME3res), NULL);
	if (run(c, &k, rpc_nfs3_rename_async(c->rpc, call_cb, &a, &k)))
		return -1;
	return (int)k.res.rename.status;
}

int nfsc_link(struct nfsc *c, const struct nfsc_fh *fh, const struct nfsc_fh *dir, const char *name)
{
	struct call k;
	LINK3args a = {.file = fh3(fh), .link = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&k, sizeof(LINK3res), NULL);
	if (run(c, &k, rpc_nfs3_link_async(c->rpc, call_cb, &a, &k)))
		return -1;
	return (int)k.res.link.status;
}

int nfsc_readdir(struct nfsc *c, const struct nfsc_fh *dir, nfsc_dirent_fn fn, void *arg)
{
	uint64_t cookie = 0;
	uint8_t verf[NFS3_COOKIEVERFSIZE] = {0};

	for (;;) {
		struct call k;
		READDIR3args a;

		memset(&a, 0, sizeof(a));
		a.dir = fh3(dir);
		a.cookie = cookie;
		memcpy(a.cookieverf, verf, sizeof(verf));
		a.count = 4096;
		call_init(&k, sizeof(READDIR3res), hook_readdir);
		k.fn = fn;
		k.fn_arg = arg;
		if (run(c, &k, rpc_nfs3_readdir_async(c->rpc, call_cb, &a, &k)))
			return -1;
		if (k.res.readdir.status != NFS3_OK)
			return (int)k.res.readdir.status;
		if (k.res.readdir.READDIR3res_u.resok.reply.eof)
			return NFS3_OK;
		if (k.got == 0) {
			snprintf(c->err, sizeof(c->err), "READDIR: no entries and no eof");
			return NFS3ERR_SERVERFAULT;
		}
		cookie = k.last_cookie;
		memcpy(verf, k.cookieverf, sizeof(verf));
	}
}

struct nfsc_env nfsc_env(void)
{
	const char *n = getenv("SHOAL_NFS_PORT"), *m = getenv("SHOAL_MOUNT_PORT");
	const char *t = getenv("SHOAL_RPC_TIMEOUT");

	return (struct nfsc_env){.nfs_port = n ? atoi(n) : 2049,
				 .mount_port = m ? atoi(m) : 20048,
				 .timeout_s = t ? atoi(t) : 30};
}

void nfsc_die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL fatal: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(2);
}

uint64_t nfsc_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}
