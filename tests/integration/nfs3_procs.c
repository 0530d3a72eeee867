/*
 * nfs3_procs.c - integration client: drives every NFSv3 and MOUNT procedure against a
 * running shoal-server through libnfs's raw async RPC API (a client we did not write).
 *
 * Subcommands (HOST is an address, PATH an export path, FH a handle in hex):
 *   procs HOST PATH              every procedure, its important result fields and error paths
 *   ro HOST PATH FILE            a read-only export: reads work, every change is NFS3ERR_ROFS
 *   mount HOST PATH              prints "MNT3_OK FH" or the mount status name
 *   fh HOST PATH [REL]           prints the handle of REL (LOOKUP per component, no symlinks)
 *   getattr|read|readlink HOST PATH FH   prints the status name (and data / text)
 *   lookup HOST PATH FH NAME     prints the status name and the handle found
 *   write-stable HOST PATH FILE N M  N stable blocks, then M unstable blocks and a COMMIT;
 *                                prints "acked K" and "verf V"
 *   verify HOST PATH FILE K      checks the first K blocks hold the pattern
 * PATH "-" skips the MNT call (the handle is given). Ports come from SHOAL_NFS_PORT and
 * SHOAL_MOUNT_PORT (defaults 2049, 20048); each call waits at most SHOAL_RPC_TIMEOUT
 * seconds (default 30). Check lines are "ok NAME" or "FAIL NAME: expected X got Y"; the
 * exit status is 1 if any check failed, 2 for bad usage or a broken connection.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#define BLOCK	     4096
#define MAXFH	     128
#define BIG_ENTRIES  2000
#define MAX_INFLIGHT 64

struct fh {
	uint32_t len;
	char data[MAXFH];
};

struct ctx {
	struct rpc_context *rpc;
	int timeout_ms;
};

struct call;
typedef void (*call_hook)(struct call *c, void *data);

/* One outstanding RPC. The result is copied shallowly; pointers in it die with the
 * callback, so anything behind a pointer is extracted by @hook while it is valid. */
struct call {
	bool done;
	int rpc_status;
	char err[256];
	size_t res_size;
	call_hook hook;
	void *arg;
	struct fh fh; /* LOOKUP/CREATE/MKDIR/SYMLINK/MKNOD/MNT handle */
	char *buf;    /* READ data / READLINK text destination */
	size_t buflen;
	size_t got;
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
		MKNOD3res mknod;
		REMOVE3res remove;
		RMDIR3res rmdir;
		RENAME3res rename;
		LINK3res link;
		READDIR3res readdir;
		READDIRPLUS3res readdirplus;
		FSSTAT3res fsstat;
		FSINFO3res fsinfo;
		PATHCONF3res pathconf;
		COMMIT3res commit;
		mountres3 mnt;
	} res;
};

static int failures;

static void ok(const char *name)
{
	printf("ok %s\n", name);
}

__attribute__((format(printf, 2, 3))) static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
}

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
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

static const char *st_name(int st)
{
	static char other[32];
	static const struct {
		int st;
		const char *name;
	} names[] = {
		{-1, "RPC-error"},
		{NFS3_OK, "NFS3_OK"},
		{NFS3ERR_PERM, "NFS3ERR_PERM"},
		{NFS3ERR_NOENT, "NFS3ERR_NOENT"},
		{NFS3ERR_IO, "NFS3ERR_IO"},
		{NFS3ERR_NXIO, "NFS3ERR_NXIO"},
		{NFS3ERR_ACCES, "NFS3ERR_ACCES"},
		{NFS3ERR_EXIST, "NFS3ERR_EXIST"},
		{NFS3ERR_XDEV, "NFS3ERR_XDEV"},
		{NFS3ERR_NODEV, "NFS3ERR_NODEV"},
		{NFS3ERR_NOTDIR, "NFS3ERR_NOTDIR"},
		{NFS3ERR_ISDIR, "NFS3ERR_ISDIR"},
		{NFS3ERR_INVAL, "NFS3ERR_INVAL"},
		{NFS3ERR_FBIG, "NFS3ERR_FBIG"},
		{NFS3ERR_NOSPC, "NFS3ERR_NOSPC"},
		{NFS3ERR_ROFS, "NFS3ERR_ROFS"},
		{NFS3ERR_MLINK, "NFS3ERR_MLINK"},
		{NFS3ERR_NAMETOOLONG, "NFS3ERR_NAMETOOLONG"},
		{NFS3ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY"},
		{NFS3ERR_DQUOT, "NFS3ERR_DQUOT"},
		{NFS3ERR_STALE, "NFS3ERR_STALE"},
		{NFS3ERR_REMOTE, "NFS3ERR_REMOTE"},
		{NFS3ERR_BADHANDLE, "NFS3ERR_BADHANDLE"},
		{NFS3ERR_NOT_SYNC, "NFS3ERR_NOT_SYNC"},
		{NFS3ERR_BAD_COOKIE, "NFS3ERR_BAD_COOKIE"},
		{NFS3ERR_NOTSUPP, "NFS3ERR_NOTSUPP"},
		{NFS3ERR_TOOSMALL, "NFS3ERR_TOOSMALL"},
		{NFS3ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT"},
		{NFS3ERR_BADTYPE, "NFS3ERR_BADTYPE"},
		{NFS3ERR_JUKEBOX, "NFS3ERR_JUKEBOX"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].st == st)
			return names[i].name;
	snprintf(other, sizeof(other), "status-%d", st);
	return other;
}

static const char *mnt_name(int st)
{
	static char other[32];

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
	case MNT3ERR_NOTDIR:
		return "MNT3ERR_NOTDIR";
	case MNT3ERR_INVAL:
		return "MNT3ERR_INVAL";
	default:
		snprintf(other, sizeof(other), "mountstat-%d", st);
		return other;
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void call_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct call *c = priv;

	(void)rpc;
	c->done = true;
	c->rpc_status = status;
	if (status != RPC_STATUS_SUCCESS) {
		snprintf(c->err, sizeof(c->err), "rpc status %d: %s", status,
			 data ? (const char *)data : "(no text)");
		return;
	}
	if (c->res_size && data)
		memcpy(&c->res, data, c->res_size);
	if (c->hook && data)
		c->hook(c, data);
}

static void call_init(struct call *c, size_t res_size, call_hook hook)
{
	memset(c, 0, sizeof(*c));
	c->res_size = res_size;
	c->hook = hook;
}

/* Drive the poll loop until every call in @cs is done or the deadline passes. */
static int wait_calls(struct ctx *x, struct call **cs, size_t n)
{
	long deadline = now_ms() + x->timeout_ms;

	for (;;) {
		size_t pending = 0;
		struct pollfd pfd;

		for (size_t i = 0; i < n; i++)
			pending += !cs[i]->done;
		if (!pending)
			return 0;
		if (now_ms() > deadline) {
			for (size_t i = 0; i < n; i++)
				if (!cs[i]->done)
					snprintf(cs[i]->err, sizeof(cs[i]->err),
						 "no reply within %d ms", x->timeout_ms);
			return -1;
		}
		pfd.fd = rpc_get_fd(x->rpc);
		pfd.events = (short)rpc_which_events(x->rpc);
		pfd.revents = 0;
		if (poll(&pfd, 1, 100) < 0)
			continue;
		if (rpc_service(x->rpc, pfd.revents) < 0)
			die("connection broken: %s", rpc_get_error(x->rpc));
	}
}

/* @rc is what the *_async call returned. Returns 0 when a reply was decoded. */
static int run(struct ctx *x, struct call *c, int rc)
{
	if (rc != 0) {
		c->done = true;
		c->rpc_status = RPC_STATUS_ERROR;
		snprintf(c->err, sizeof(c->err), "could not send: %s", rpc_get_error(x->rpc));
		return -1;
	}
	if (wait_calls(x, &c, 1))
		return -1;
	return c->rpc_status == RPC_STATUS_SUCCESS ? 0 : -1;
}

static void conn_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct call *c = priv;

	(void)rpc;
	c->done = true;
	c->rpc_status = status;
	if (status != RPC_STATUS_SUCCESS)
		snprintf(c->err, sizeof(c->err), "%s", data ? (const char *)data : "?");
}

static void ctx_connect(struct ctx *x, const char *host, const char *env, int defport)
{
	const char *p = getenv(env);
	const char *t = getenv("SHOAL_RPC_TIMEOUT");
	int port = p ? atoi(p) : defport;
	struct call c;

	x->timeout_ms = (t ? atoi(t) : 30) * 1000;
	x->rpc = rpc_init_context();
	if (!x->rpc)
		die("rpc_init_context failed");
	call_init(&c, 0, NULL);
	if (run(x, &c, rpc_connect_async(x->rpc, host, port, conn_cb, &c)))
		die("connect to %s port %d: %s", host, port, c.err);
}

static void ctx_close(struct ctx *x)
{
	if (x->rpc)
		rpc_destroy_context(x->rpc);
	x->rpc = NULL;
}

static nfs_fh3 fh3(const struct fh *f)
{
	nfs_fh3 h;

	h.data.data_len = f->len;
	h.data.data_val = (char *)f->data;
	return h;
}

static void fh_set(struct fh *f, u_int len, const char *data)
{
	f->len = len > MAXFH ? MAXFH : len;
	memcpy(f->data, data, f->len);
}

static void fh_print(const char *label, const struct fh *f)
{
	printf("%s ", label);
	for (uint32_t i = 0; i < f->len; i++)
		printf("%02x", (unsigned char)f->data[i]);
	printf("\n");
}

static bool fh_parse(const char *hex, struct fh *f)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > MAXFH)
		return false;
	f->len = (uint32_t)(n / 2);
	for (size_t i = 0; i < f->len; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		f->data[i] = (char)v;
	}
	return true;
}

/* ---- hooks: copy what lives behind pointers while the callback runs ---- */

static void hook_lookup(struct call *c, void *data)
{
	LOOKUP3res *r = data;

	if (r->status == NFS3_OK)
		fh_set(&c->fh, r->LOOKUP3res_u.resok.object.data.data_len,
		       r->LOOKUP3res_u.resok.object.data.data_val);
}

/* CREATE, MKDIR, SYMLINK and MKNOD results share one layout. */
static void hook_newobj(struct call *c, void *data)
{
	CREATE3res *r = data;

	if (r->status == NFS3_OK && r->CREATE3res_u.resok.obj.handle_follows) {
		nfs_fh3 *h = &r->CREATE3res_u.resok.obj.post_op_fh3_u.handle;

		fh_set(&c->fh, h->data.data_len, h->data.data_val);
	}
}

static void hook_read(struct call *c, void *data)
{
	READ3res *r = data;

	if (r->status != NFS3_OK)
		return;
	c->got = r->READ3res_u.resok.data.data_len;
	if (c->buf)
		memcpy(c->buf, r->READ3res_u.resok.data.data_val,
		       c->got < c->buflen ? c->got : c->buflen);
}

static void hook_readlink(struct call *c, void *data)
{
	READLINK3res *r = data;

	if (r->status == NFS3_OK && c->buf)
		snprintf(c->buf, c->buflen, "%s", r->READLINK3res_u.resok.data);
}

static void hook_mnt(struct call *c, void *data)
{
	mountres3 *r = data;

	if (r->fhs_status == MNT3_OK) {
		mountres3_ok *m = &r->mountres3_u.mountinfo;
		bool sys = false;

		fh_set(&c->fh, m->fhandle.fhandle3_len, m->fhandle.fhandle3_val);
		for (u_int i = 0; i < m->auth_flavors.auth_flavors_len; i++)
			sys |= m->auth_flavors.auth_flavors_val[i] == 1;
		c->got = sys;
	}
}

/*
 * EXPORT and DUMP: c->got = 1 when the path in c->arg is listed. libnfs 4.0 lays list
 * nodes out at 4-byte alignment, so each node is copied before its fields are read
 * (UBSan rightly objects to the misaligned member access otherwise).
 */
static void hook_export(struct call *c, void *data)
{
	exports p;

	memcpy(&p, data, sizeof(p));
	while (p) {
		struct exportnode e;

		memcpy(&e, p, sizeof(e));
		if (e.ex_dir && strcmp(e.ex_dir, c->arg) == 0)
			c->got = 1;
		p = e.ex_next;
	}
}

static void hook_dump(struct call *c, void *data)
{
	mountlist p;

	memcpy(&p, data, sizeof(p));
	while (p) {
		struct mountbody m;

		memcpy(&m, p, sizeof(m));
		if (m.ml_directory && strcmp(m.ml_directory, c->arg) == 0)
			c->got = 1;
		p = m.ml_next;
	}
}

/* ---- one wrapper per procedure: returns the nfsstat3, or -1 for an RPC failure ---- */

static int p3_getattr(struct ctx *x, const struct fh *f, fattr3 *attr)
{
	struct call c;
	GETATTR3args a = {.object = fh3(f)};

	call_init(&c, sizeof(GETATTR3res), NULL);
	if (run(x, &c, rpc_nfs3_getattr_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (attr && c.res.getattr.status == NFS3_OK)
		*attr = c.res.getattr.GETATTR3res_u.resok.obj_attributes;
	return (int)c.res.getattr.status;
}

static int p3_lookup(struct ctx *x, const struct fh *dir, const char *name, struct fh *out,
		     fattr3 *attr, bool *dir_attrs)
{
	struct call c;
	LOOKUP3args a = {.what = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&c, sizeof(LOOKUP3res), hook_lookup);
	if (run(x, &c, rpc_nfs3_lookup_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (c.res.lookup.status == NFS3_OK) {
		if (out)
			*out = c.fh;
		if (attr) {
			post_op_attr *p = &c.res.lookup.LOOKUP3res_u.resok.obj_attributes;

			if (p->attributes_follow)
				*attr = p->post_op_attr_u.attributes;
			else if (p3_getattr(x, &c.fh, attr) != NFS3_OK)
				return -1;
		}
	} else if (dir_attrs) {
		*dir_attrs = c.res.lookup.LOOKUP3res_u.resfail.dir_attributes.attributes_follow;
	}
	return (int)c.res.lookup.status;
}

static sattr3 sattr_mode(int mode)
{
	sattr3 s;

	memset(&s, 0, sizeof(s));
	if (mode >= 0) {
		s.mode.set_it = 1;
		s.mode.set_mode3_u.mode = (mode3)mode;
	}
	return s;
}

static int p3_create(struct ctx *x, const struct fh *dir, const char *name, createmode3 how,
		     const char *verf, struct fh *out)
{
	struct call c;
	CREATE3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.how.mode = how;
	if (how == EXCLUSIVE)
		memcpy(a.how.createhow3_u.verf, verf, NFS3_CREATEVERFSIZE);
	else
		a.how.createhow3_u.obj_attributes = sattr_mode(0644);
	call_init(&c, sizeof(CREATE3res), hook_newobj);
	if (run(x, &c, rpc_nfs3_create_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (c.res.create.status == NFS3_OK && out) {
		if (!c.res.create.CREATE3res_u.resok.obj.handle_follows &&
		    p3_lookup(x, dir, name, &c.fh, NULL, NULL) != NFS3_OK)
			return -1;
		*out = c.fh;
	}
	return (int)c.res.create.status;
}

static int p3_mkdir(struct ctx *x, const struct fh *dir, const char *name, struct fh *out)
{
	struct call c;
	MKDIR3args a = {.where = {.dir = fh3(dir), .name = (char *)name},
			.attributes = sattr_mode(0755)};

	call_init(&c, sizeof(MKDIR3res), hook_newobj);
	if (run(x, &c, rpc_nfs3_mkdir_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (c.res.mkdir.status == NFS3_OK && out) {
		if (!c.res.mkdir.MKDIR3res_u.resok.obj.handle_follows &&
		    p3_lookup(x, dir, name, &c.fh, NULL, NULL) != NFS3_OK)
			return -1;
		*out = c.fh;
	}
	return (int)c.res.mkdir.status;
}

static int p3_remove(struct ctx *x, const struct fh *dir, const char *name)
{
	struct call c;
	REMOVE3args a = {.object = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&c, sizeof(REMOVE3res), NULL);
	if (run(x, &c, rpc_nfs3_remove_async(x->rpc, call_cb, &a, &c)))
		return -1;
	return (int)c.res.remove.status;
}

static int p3_rmdir(struct ctx *x, const struct fh *dir, const char *name)
{
	struct call c;
	RMDIR3args a = {.object = {.dir = fh3(dir), .name = (char *)name}};

	call_init(&c, sizeof(RMDIR3res), NULL);
	if (run(x, &c, rpc_nfs3_rmdir_async(x->rpc, call_cb, &a, &c)))
		return -1;
	return (int)c.res.rmdir.status;
}

static int p3_write(struct ctx *x, const struct fh *f, uint64_t off, const char *data, uint32_t len,
		    stable_how how, WRITE3resok *resok)
{
	struct call c;
	WRITE3args a;

	memset(&a, 0, sizeof(a));
	a.file = fh3(f);
	a.offset = off;
	a.count = len;
	a.stable = how;
	a.data.data_len = len;
	a.data.data_val = (char *)data;
	call_init(&c, sizeof(WRITE3res), NULL);
	if (run(x, &c, rpc_nfs3_write_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (resok && c.res.write.status == NFS3_OK)
		*resok = c.res.write.WRITE3res_u.resok;
	return (int)c.res.write.status;
}

static int p3_commit(struct ctx *x, const struct fh *f, char *verf)
{
	struct call c;
	COMMIT3args a = {.file = fh3(f), .offset = 0, .count = 0};

	call_init(&c, sizeof(COMMIT3res), NULL);
	if (run(x, &c, rpc_nfs3_commit_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (verf && c.res.commit.status == NFS3_OK)
		memcpy(verf, c.res.commit.COMMIT3res_u.resok.verf, NFS3_WRITEVERFSIZE);
	return (int)c.res.commit.status;
}

/* READ into @buf; *count and *eof from the reply. */
static int p3_read(struct ctx *x, const struct fh *f, uint64_t off, uint32_t len, char *buf,
		   uint32_t *count, bool *eof)
{
	struct call c;
	READ3args a = {.file = fh3(f), .offset = off, .count = len};

	call_init(&c, sizeof(READ3res), hook_read);
	c.buf = buf;
	c.buflen = len;
	if (run(x, &c, rpc_nfs3_read_async(x->rpc, call_cb, &a, &c)))
		return -1;
	if (c.res.read.status == NFS3_OK) {
		if (count)
			*count = c.res.read.READ3res_u.resok.count;
		if (eof)
			*eof = c.res.read.READ3res_u.resok.eof;
		if (c.got != c.res.read.READ3res_u.resok.count)
			fail("read-count", "data length %zu equal to count %u", c.got,
			     c.res.read.READ3res_u.resok.count);
	}
	return (int)c.res.read.status;
}

static int p3_readlink(struct ctx *x, const struct fh *f, char *buf, size_t len)
{
	struct call c;
	READLINK3args a = {.symlink = fh3(f)};

	call_init(&c, sizeof(READLINK3res), hook_readlink);
	c.buf = buf;
	c.buflen = len;
	buf[0] = 0;
	if (run(x, &c, rpc_nfs3_readlink_async(x->rpc, call_cb, &a, &c)))
		return -1;
	return (int)c.res.readlink.status;
}

static int p3_setattr(struct ctx *x, const struct fh *f, const sattr3 *s, const nfstime3 *guard)
{
	struct call c;
	SETATTR3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(f);
	a.new_attributes = *s;
	if (guard) {
		a.guard.check = 1;
		a.guard.sattrguard3_u.obj_ctime = *guard;
	}
	call_init(&c, sizeof(SETATTR3res), NULL);
	if (run(x, &c, rpc_nfs3_setattr_async(x->rpc, call_cb, &a, &c)))
		return -1;
	return (int)c.res.setattr.status;
}

static int p3_rename(struct ctx *x, const struct fh *fd, const char *fn, const struct fh *td,
		     const char *tn)
{
	struct call c;
	RENAME3args a = {.from = {.dir = fh3(fd), .name = (char *)fn},
			 .to = {.dir = fh3(td), .name = (char *)tn}};

	call_init(&c, sizeof(RENAME3res), NULL);
	if (run(x, &c, rpc_nfs3_rename_async(x->rpc, call_cb, &a, &c)))
		return -1;
	return (int)c.res.rename.status;
}

static int mnt(struct ctx *mx, const char *path, struct fh *root, bool *has_sys)
{
	struct call c;

	call_init(&c, sizeof(mountres3), hook_mnt);
	if (run(mx, &c, rpc_mount3_mnt_async(mx->rpc, call_cb, (char *)path, &c)))
		return -1;
	if (c.res.mnt.fhs_status == MNT3_OK) {
		*root = c.fh;
		if (has_sys)
			*has_sys = c.got;
	}
	return (int)c.res.mnt.fhs_status;
}

/* ---- check helpers ---- */

static bool expect(const char *name, int got, int want)
{
	if (got == want) {
		ok(name);
		return true;
	}
	fail(name, "expected %s got %s", st_name(want), st_name(got));
	return false;
}

static bool expect_true(const char *name, bool cond, const char *what)
{
	if (cond) {
		ok(name);
		return true;
	}
	fail(name, "expected %s", what);
	return false;
}

static void pattern(char *buf, size_t len, uint64_t block, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)((block * 131 + i * 7 + seed) & 0xff);
}

/* Mount @path (unless "-") on HOST's mount port; the root handle goes to *root. */
static void do_mount(const char *host, const char *path, struct fh *root)
{
	struct ctx mx = {0};
	int st;

	if (strcmp(path, "-") == 0)
		return;
	ctx_connect(&mx, host, "SHOAL_MOUNT_PORT", 20048);
	st = mnt(&mx, path, root, NULL);
	ctx_close(&mx);
	if (st != MNT3_OK)
		die("MNT %s: expected MNT3_OK got %s", path, mnt_name(st));
}

/* ---- procs: the mount protocol ---- */

static void check_mount_procs(const char *host, const char *path, struct fh *root)
{
	struct ctx mx = {0};
	struct call c;
	bool sys = false;
	int st;

	ctx_connect(&mx, host, "SHOAL_MOUNT_PORT", 20048);
	call_init(&c, 0, NULL);
	expect_true("mount-null", run(&mx, &c, rpc_mount3_null_async(mx.rpc, call_cb, &c)) == 0,
		    "a reply to MOUNT NULL");

	st = mnt(&mx, path, root, &sys);
	if (st != MNT3_OK)
		die("MNT %s: expected MNT3_OK got %s (%s)", path, mnt_name(st), c.err);
	ok("mount-mnt");
	expect_true("mount-mnt-handle", root->len > 0 && root->len <= 64,
		    "a handle of 1..64 bytes");
	expect_true("mount-mnt-authsys", sys, "AUTH_SYS (1) among the auth flavors");

	st = mnt(&mx, "/no/such/export/path", &(struct fh){0}, NULL);
	if (st == MNT3ERR_NOENT || st == MNT3ERR_ACCES)
		ok("mount-mnt-unexported");
	else
		fail("mount-mnt-unexported", "expected MNT3ERR_NOENT or MNT3ERR_ACCES got %s",
		     mnt_name(st));

	call_init(&c, 0, hook_export);
	c.arg = (void *)path;
	if (run(&mx, &c, rpc_mount3_export_async(mx.rpc, call_cb, &c)))
		fail("mount-export", "expected a reply got %s", c.err);
	else
		expect_true("mount-export", c.got, "the export list to contain the path");

	call_init(&c, 0, hook_dump);
	c.arg = (void *)path;
	if (run(&mx, &c, rpc_mount3_dump_async(mx.rpc, call_cb, &c)))
		fail("mount-dump", "expected a reply got %s", c.err);
	else
		expect_true("mount-dump", c.got, "the mount list to contain the mounted path");

	call_init(&c, 0, NULL);
	expect_true("mount-umnt",
		    run(&mx, &c, rpc_mount3_umnt_async(mx.rpc, call_cb, (char *)path, &c)) == 0,
		    "a reply to UMNT");
	call_init(&c, 0, hook_dump);
	c.arg = (void *)path;
	if (run(&mx, &c, rpc_mount3_dump_async(mx.rpc, call_cb, &c)))
		fail("mount-dump-after-umnt", "expected a reply got %s", c.err);
	else
		expect_true("mount-dump-after-umnt", !c.got,
			    "the path gone from the mount list after UMNT");
	ctx_close(&mx);
}

/* ---- procs: files ---- */

static void check_create_setattr(struct ctx *x, const struct fh *dir)
{
	struct fh f, f2, e1, e2;
	fattr3 a, b;
	sattr3 s;
	nfstime3 wrong = {1, 1};

	if (!expect("create-unchecked", p3_create(x, dir, "f", UNCHECKED, NULL, &f), NFS3_OK))
		return;
	if (expect("create-getattr", p3_getattr(x, &f, &a), NFS3_OK)) {
		expect_true("create-attrs", a.type == NF3REG && a.size == 0 && a.nlink == 1,
			    "a regular file, size 0, nlink 1");
		if ((a.mode & 07777) == 0644)
			ok("create-mode");
		else
			fail("create-mode", "expected mode 0644 got 0%o", a.mode & 07777);
	}
	expect("create-guarded-exists", p3_create(x, dir, "f", GUARDED, NULL, NULL), NFS3ERR_EXIST);
	if (expect("create-unchecked-again", p3_create(x, dir, "f", UNCHECKED, NULL, &f2),
		   NFS3_OK) &&
	    p3_getattr(x, &f2, &b) == NFS3_OK)
		expect_true("create-unchecked-same", b.fileid == a.fileid, "the same fileid");

	if (expect("create-exclusive", p3_create(x, dir, "x", EXCLUSIVE, "verf0001", &e1),
		   NFS3_OK) &&
	    expect("create-exclusive-retry", p3_create(x, dir, "x", EXCLUSIVE, "verf0001", &e2),
		   NFS3_OK)) {
		p3_getattr(x, &e1, &a);
		p3_getattr(x, &e2, &b);
		expect_true("create-exclusive-same", a.fileid == b.fileid,
			    "the retry to return the same file");
	}
	expect("create-exclusive-other", p3_create(x, dir, "x", EXCLUSIVE, "verf0002", NULL),
	       NFS3ERR_EXIST);

	s = sattr_mode(0600);
	s.size.set_it = 1;
	s.size.set_size3_u.size = 100;
	if (expect("setattr", p3_setattr(x, &f, &s, NULL), NFS3_OK) &&
	    p3_getattr(x, &f, &a) == NFS3_OK) {
		if (a.size == 100 && (a.mode & 07777) == 0600)
			ok("setattr-applied");
		else
			fail("setattr-applied",
			     "expected size 100 mode 0600 got size %" PRIu64 " mode 0%o",
			     (uint64_t)a.size, a.mode & 07777);
		s = sattr_mode(0640);
		expect("setattr-guard-wrong", p3_setattr(x, &f, &s, &wrong), NFS3ERR_NOT_SYNC);
		expect("setattr-guard-right", p3_setattr(x, &f, &s, &a.ctime), NFS3_OK);
	}
	s = sattr_mode(-1);
	s.size.set_it = 1;
	s.size.set_size3_u.size = 0;
	p3_setattr(x, &f, &s, NULL);
}

static void check_lookup_access(struct ctx *x, const struct fh *root, const struct fh *dir)
{
	struct call c;
	struct fh f;
	fattr3 a, d, r;
	bool dattr = false;

	if (expect("lookup-hit", p3_lookup(x, dir, "f", &f, &a, NULL), NFS3_OK))
		expect_true("lookup-hit-type", a.type == NF3REG, "a regular file");
	expect("lookup-miss", p3_lookup(x, dir, "no-such-name", NULL, NULL, &dattr), NFS3ERR_NOENT);
	expect_true("lookup-miss-dir-attrs", dattr, "directory attributes with NOENT");
	if (p3_getattr(x, dir, &d) == NFS3_OK &&
	    expect("lookup-dot", p3_lookup(x, dir, ".", NULL, &a, NULL), NFS3_OK))
		expect_true("lookup-dot-same", a.fileid == d.fileid, "\".\" to be the directory");
	if (p3_getattr(x, root, &r) == NFS3_OK &&
	    expect("lookup-dotdot", p3_lookup(x, dir, "..", NULL, &a, NULL), NFS3_OK))
		expect_true("lookup-dotdot-parent", a.fileid == r.fileid,
			    "\"..\" to be the export root");
	if (expect("lookup-root-dotdot", p3_lookup(x, root, "..", NULL, &a, NULL), NFS3_OK))
		expect_true("lookup-root-dotdot-stays", a.fileid == r.fileid,
			    "\"..\" of the export root to be the root itself");

	ACCESS3args aa = {.object = fh3(&f), .access = 0x3f};
	call_init(&c, sizeof(ACCESS3res), NULL);
	if (run(x, &c, rpc_nfs3_access_async(x->rpc, call_cb, &aa, &c)))
		fail("access", "expected a reply got %s", c.err);
	else if (expect("access", (int)c.res.access.status, NFS3_OK)) {
		uint32_t want = 0x1 | 0x4 | 0x8; /* READ MODIFY EXTEND for root on 0644 */
		uint32_t got = c.res.access.ACCESS3res_u.resok.access;

		if ((got & want) == want && !(got & ~0x3fu))
			ok("access-bits");
		else
			fail("access-bits", "expected READ|MODIFY|EXTEND (0x%x) got 0x%x", want,
			     got);
	}
}

static void check_io(struct ctx *x, const struct fh *dir)
{
	static char out[3 * 8192], in[3 * 8192 + 100];
	WRITE3resok w[3];
	struct fh f;
	char cverf[8];
	uint32_t count = 0;
	bool eof = false;
	fattr3 a;

	if (p3_lookup(x, dir, "f", &f, NULL, NULL) != NFS3_OK)
		return;
	pattern(out, sizeof(out), 0, 17);
	if (!expect("write-unstable", p3_write(x, &f, 0, out, 8192, UNSTABLE, &w[0]), NFS3_OK) ||
	    !expect("write-datasync", p3_write(x, &f, 8192, out + 8192, 8192, DATA_SYNC, &w[1]),
		    NFS3_OK) ||
	    !expect("write-filesync", p3_write(x, &f, 16384, out + 16384, 8192, FILE_SYNC, &w[2]),
		    NFS3_OK))
		return;
	expect_true("write-count", w[0].count == 8192 && w[1].count == 8192 && w[2].count == 8192,
		    "count 8192 for each write");
	expect_true("write-committed", w[1].committed >= DATA_SYNC && w[2].committed == FILE_SYNC,
		    "DATA_SYNC >= DATA_SYNC and FILE_SYNC == FILE_SYNC");
	expect_true("write-verf-stable",
		    !memcmp(w[0].verf, w[1].verf, 8) && !memcmp(w[1].verf, w[2].verf, 8),
		    "the same write verifier within a run");
	if (expect("commit", p3_commit(x, &f, cverf), NFS3_OK))
		expect_true("commit-verf", !memcmp(cverf, w[0].verf, 8),
			    "COMMIT's verifier equal to WRITE's");
	if (p3_getattr(x, &f, &a) == NFS3_OK)
		expect_true("write-size", a.size == sizeof(out), "size 24576 after the writes");

	if (expect("read", p3_read(x, &f, 0, sizeof(out), in, &count, &eof), NFS3_OK))
		expect_true("read-data", count == sizeof(out) && !memcmp(in, out, sizeof(out)),
			    "the 24576 bytes written");
	if (expect("read-across-eof", p3_read(x, &f, 24000, 4096, in, &count, &eof), NFS3_OK)) {
		if (count == 576 && eof && !memcmp(in, out + 24000, 576))
			ok("read-across-eof-result");
		else
			fail("read-across-eof-result",
			     "expected count 576 eof 1 got count %u eof %d", count, eof);
	}
	if (expect("read-past-eof", p3_read(x, &f, 100000, 10, in, &count, &eof), NFS3_OK)) {
		if (count == 0 && eof)
			ok("read-past-eof-result");
		else
			fail("read-past-eof-result", "expected count 0 eof 1 got count %u eof %d",
			     count, eof);
	}
}

static void check_special(struct ctx *x, const struct fh *dir)
{
	struct call c;
	struct fh sl, f, ln;
	char text[256];
	fattr3 a, b;

	SYMLINK3args sa;
	memset(&sa, 0, sizeof(sa));
	sa.where.dir = fh3(dir);
	sa.where.name = "sl";
	sa.symlink.symlink_attributes = sattr_mode(0777);
	sa.symlink.symlink_data = "some/target text";
	call_init(&c, sizeof(SYMLINK3res), hook_newobj);
	if (run(x, &c, rpc_nfs3_symlink_async(x->rpc, call_cb, &sa, &c)))
		fail("symlink", "expected a reply got %s", c.err);
	else if (expect("symlink", (int)c.res.symlink.status, NFS3_OK) &&
		 expect("symlink-lookup", p3_lookup(x, dir, "sl", &sl, &a, NULL), NFS3_OK)) {
		expect_true("symlink-type", a.type == NF3LNK, "type NF3LNK");
		if (expect("readlink", p3_readlink(x, &sl, text, sizeof(text)), NFS3_OK)) {
			if (strcmp(text, "some/target text") == 0)
				ok("readlink-text");
			else
				fail("readlink-text", "expected \"some/target text\" got \"%s\"",
				     text);
		}
	}

	MKNOD3args ma;
	memset(&ma, 0, sizeof(ma));
	ma.where.dir = fh3(dir);
	ma.where.name = "fifo";
	ma.what.type = NF3FIFO;
	ma.what.mknoddata3_u.pipe_attributes = sattr_mode(0644);
	call_init(&c, sizeof(MKNOD3res), hook_newobj);
	if (run(x, &c, rpc_nfs3_mknod_async(x->rpc, call_cb, &ma, &c)))
		fail("mknod-fifo", "expected a reply got %s", c.err);
	else if (expect("mknod-fifo", (int)c.res.mknod.status, NFS3_OK) &&
		 p3_lookup(x, dir, "fifo", NULL, &a, NULL) == NFS3_OK)
		expect_true("mknod-fifo-type", a.type == NF3FIFO, "type NF3FIFO");
	ma.where.name = "reg";
	ma.what.type = NF3REG;
	call_init(&c, sizeof(MKNOD3res), NULL);
	if (run(x, &c, rpc_nfs3_mknod_async(x->rpc, call_cb, &ma, &c)))
		fail("mknod-reg", "expected NFS3ERR_BADTYPE got %s", c.err);
	else
		expect("mknod-reg", (int)c.res.mknod.status, NFS3ERR_BADTYPE);

	if (p3_lookup(x, dir, "f", &f, &a, NULL) != NFS3_OK)
		return;
	LINK3args la = {.file = fh3(&f), .link = {.dir = fh3(dir), .name = "f.link"}};
	call_init(&c, sizeof(LINK3res), NULL);
	if (run(x, &c, rpc_nfs3_link_async(x->rpc, call_cb, &la, &c)))
		fail("link", "expected a reply got %s", c.err);
	else if (expect("link", (int)c.res.link.status, NFS3_OK) &&
		 expect("link-lookup", p3_lookup(x, dir, "f.link", &ln, &b, NULL), NFS3_OK))
		expect_true("link-same", b.fileid == a.fileid && b.nlink == 2,
			    "the same fileid with nlink 2");
}

static void check_namespace(struct ctx *x, const struct fh *dir)
{
	struct fh d2, xf;
	fattr3 a, b;
	char longname[300];

	expect("rename-within", p3_rename(x, dir, "f.link", dir, "g"), NFS3_OK);
	expect("rename-within-old-gone", p3_lookup(x, dir, "f.link", NULL, NULL, NULL),
	       NFS3ERR_NOENT);
	expect("rename-within-new", p3_lookup(x, dir, "g", NULL, NULL, NULL), NFS3_OK);
	if (expect("mkdir", p3_mkdir(x, dir, "d2", &d2), NFS3_OK)) {
		if (p3_getattr(x, &d2, &a) == NFS3_OK)
			expect_true("mkdir-type", a.type == NF3DIR, "type NF3DIR");
		expect("mkdir-exists", p3_mkdir(x, dir, "d2", NULL), NFS3ERR_EXIST);
		expect("rename-across", p3_rename(x, dir, "g", &d2, "g"), NFS3_OK);
		expect("rename-across-new", p3_lookup(x, &d2, "g", NULL, NULL, NULL), NFS3_OK);
		expect("rename-across-old-gone", p3_lookup(x, dir, "g", NULL, NULL, NULL),
		       NFS3ERR_NOENT);
	}
	if (p3_create(x, dir, "h", UNCHECKED, NULL, NULL) == NFS3_OK &&
	    p3_lookup(x, dir, "x", &xf, &a, NULL) == NFS3_OK &&
	    expect("rename-over", p3_rename(x, dir, "x", dir, "h"), NFS3_OK) &&
	    p3_lookup(x, dir, "h", NULL, &b, NULL) == NFS3_OK)
		expect_true("rename-over-replaced", a.fileid == b.fileid,
			    "the target to be the renamed file");

	expect("remove-missing", p3_remove(x, dir, "no-such-name"), NFS3ERR_NOENT);
	expect("rmdir-notempty", p3_rmdir(x, dir, "d2"), NFS3ERR_NOTEMPTY);
	expect("remove", p3_remove(x, &d2, "g"), NFS3_OK);
	expect("remove-gone", p3_lookup(x, &d2, "g", NULL, NULL, NULL), NFS3ERR_NOENT);
	expect("rmdir", p3_rmdir(x, dir, "d2"), NFS3_OK);

	memset(longname, 'n', 256);
	longname[256] = 0;
	expect("create-nametoolong", p3_create(x, dir, longname, UNCHECKED, NULL, NULL),
	       NFS3ERR_NAMETOOLONG);
	expect("lookup-nametoolong", p3_lookup(x, dir, longname, NULL, NULL, NULL),
	       NFS3ERR_NAMETOOLONG);
	expect("mkdir-nametoolong", p3_mkdir(x, dir, longname, NULL), NFS3ERR_NAMETOOLONG);
	longname[255] = 0;
	if (expect("create-name255", p3_create(x, dir, longname, UNCHECKED, NULL, NULL), NFS3_OK))
		p3_remove(x, dir, longname);
}

/* ---- READDIR / READDIRPLUS over a big directory ---- */

struct listing {
	unsigned char *seen; /* per name e<N>, N < n */
	int n;
	int dups, strays, entries, missing_attrs, fresh;
	char stray[64];
	char last_name[32]; /* the last e<N> name of the last page */
	uint64_t last_cookie;
	char verf[NFS3_COOKIEVERFSIZE];
	bool eof;
	int count; /* entries in the last page */
};

static void note_name(struct listing *l, const char *name)
{
	int i;

	l->entries++;
	l->count++;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return;
	if (name[0] == 'n') {
		l->fresh++; /* created during the listing: may or may not be listed */
		return;
	}
	if (sscanf(name, "e%d", &i) != 1 || i < 0 || i >= l->n) {
		l->strays++;
		snprintf(l->stray, sizeof(l->stray), "%s", name);
		return;
	}
	snprintf(l->last_name, sizeof(l->last_name), "%s", name);
	if (l->seen[i]++)
		l->dups++;
}

static void hook_readdir(struct call *c, void *data)
{
	READDIR3res *r = data;
	struct listing *l = c->arg;

	l->count = 0;
	if (r->status != NFS3_OK)
		return;
	memcpy(l->verf, r->READDIR3res_u.resok.cookieverf, NFS3_COOKIEVERFSIZE);
	for (entry3 *p = r->READDIR3res_u.resok.reply.entries; p;) {
		entry3 e; /* copied: libnfs list nodes may be misaligned, see hook_export */

		memcpy(&e, p, sizeof(e));
		note_name(l, e.name);
		l->last_cookie = e.cookie;
		p = e.nextentry;
	}
	l->eof = r->READDIR3res_u.resok.reply.eof;
}

static void hook_readdirplus(struct call *c, void *data)
{
	READDIRPLUS3res *r = data;
	struct listing *l = c->arg;

	l->count = 0;
	if (r->status != NFS3_OK)
		return;
	memcpy(l->verf, r->READDIRPLUS3res_u.resok.cookieverf, NFS3_COOKIEVERFSIZE);
	for (entryplus3 *p = r->READDIRPLUS3res_u.resok.reply.entries; p;) {
		entryplus3 e; /* copied: libnfs list nodes may be misaligned */

		memcpy(&e, p, sizeof(e));
		note_name(l, e.name);
		l->last_cookie = e.cookie;
		if (strcmp(e.name, ".") && strcmp(e.name, "..") &&
		    (!e.name_attributes.attributes_follow || !e.name_handle.handle_follows ||
		     e.name_attributes.post_op_attr_u.attributes.fileid != e.fileid))
			l->missing_attrs++;
		p = e.nextentry;
	}
	l->eof = r->READDIRPLUS3res_u.resok.reply.eof;
}

/* One page; returns the status. */
static int readdir_page(struct ctx *x, const struct fh *dir, bool plus, uint64_t cookie,
			const char *verf, struct listing *l)
{
	struct call c;
	int rc;

	if (plus) {
		READDIRPLUS3args a = {
			.dir = fh3(dir), .cookie = cookie, .dircount = 512, .maxcount = 4096};
		memcpy(a.cookieverf, verf, NFS3_COOKIEVERFSIZE);
		call_init(&c, sizeof(READDIRPLUS3res), hook_readdirplus);
		c.arg = l;
		rc = run(x, &c, rpc_nfs3_readdirplus_async(x->rpc, call_cb, &a, &c));
	} else {
		READDIR3args a = {.dir = fh3(dir), .cookie = cookie, .count = 1024};
		memcpy(a.cookieverf, verf, NFS3_COOKIEVERFSIZE);
		call_init(&c, sizeof(READDIR3res), hook_readdir);
		c.arg = l;
		rc = run(x, &c, rpc_nfs3_readdir_async(x->rpc, call_cb, &a, &c));
	}
	if (rc) {
		fail(plus ? "readdirplus-page" : "readdir-page", "expected a reply got %s", c.err);
		return -1;
	}
	return (int)(plus ? c.res.readdirplus.status : c.res.readdir.status);
}

/*
 * List @dir, whose names are e<0..n-1>, page by page with READDIR or READDIRPLUS.
 * With @gone (n flags: names removed by an earlier listing, not expected any more),
 * between every two pages one new name is created and one name already listed is
 * removed (and flagged in @gone): the cookies and the verifier must stay valid while
 * the directory changes, so every e<N> still there must be seen exactly once.
 */
static void list_dir(struct ctx *x, const struct fh *dir, bool plus, int n, unsigned char *gone)
{
	bool mutate = gone != NULL;
	const char *name = plus ? "readdirplus" : "readdir";
	char label[64], verf[NFS3_COOKIEVERFSIZE] = {0}, fresh[32];
	struct listing *l = calloc(1, sizeof(*l));
	uint64_t cookie = 0, mid_cookie = 0;
	int pages = 0, st = NFS3_OK, missing = 0, max_pages = n / 4 + 100, idx;
	unsigned char *was_gone = gone ? malloc((size_t)n) : NULL;

	l->n = n;
	l->seen = calloc((size_t)n, 1);
	if (!l->seen || (gone && !was_gone))
		die("out of memory");
	if (gone)
		memcpy(was_gone, gone, (size_t)n);
	while (!l->eof && pages < max_pages) {
		st = readdir_page(x, dir, plus, cookie, verf, l);
		if (st != NFS3_OK)
			break;
		pages++;
		if (l->count == 0 && !l->eof) {
			fail(name, "expected entries or eof got an empty page");
			st = -2;
			break;
		}
		if (pages == 1)
			memcpy(verf, l->verf, sizeof(verf));
		else if (pages == 3)
			mid_cookie = l->last_cookie;
		else if (memcmp(verf, l->verf, sizeof(verf)) != 0) {
			fail(name, "expected the same cookie verifier on page %d", pages);
			st = -2;
			break;
		}
		cookie = l->last_cookie;
		if (mutate && !l->eof) {
			snprintf(fresh, sizeof(fresh), "n%s%d", plus ? "p" : "", pages);
			if (p3_create(x, dir, fresh, UNCHECKED, NULL, NULL) != NFS3_OK ||
			    (l->last_name[0] && p3_remove(x, dir, l->last_name) != NFS3_OK)) {
				fail(name, "expected to create %s and remove %s between pages",
				     fresh, l->last_name);
				st = -2;
				break;
			}
			if (l->last_name[0] && sscanf(l->last_name, "e%d", &idx) == 1)
				gone[idx] = 1;
		}
	}
	snprintf(label, sizeof(label), "%s-pages", name);
	if (st != -2 && expect(label, st, NFS3_OK)) {
		for (int i = 0; i < n; i++)
			missing += !l->seen[i] && !(was_gone && was_gone[i]);
		snprintf(label, sizeof(label), "%s-every-name-once", name);
		if (!missing && !l->dups && !l->strays && pages > 2)
			printf("ok %s: %d names in %d pages%s\n", label, n, pages,
			       mutate ? ", the directory changing between pages" : "");
		else
			fail(label,
			     "expected %d names each once in several pages got %d missing, %d "
			     "duplicates, %d strays (%s) in %d pages",
			     n, missing, l->dups, l->strays, l->stray, pages);
	}
	if (plus) {
		snprintf(label, sizeof(label), "%s-attrs-handles", name);
		if (!l->missing_attrs)
			ok(label);
		else
			fail(label, "expected attributes and a handle per entry got %d without",
			     l->missing_attrs);
	}
	if (mid_cookie) {
		verf[0] ^= 0x5a;
		verf[7] ^= 0xa5;
		snprintf(label, sizeof(label), "%s-bad-cookieverf", name);
		expect(label, readdir_page(x, dir, plus, mid_cookie, verf, l), NFS3ERR_BAD_COOKIE);
	}
	free(was_gone);
	free(l->seen);
	free(l);
}

/* Create (or remove) e0000..e1999 with up to MAX_INFLIGHT calls in flight. */
static int populate(struct ctx *x, const struct fh *dir, bool remove)
{
	static struct call calls[MAX_INFLIGHT];
	static char names[MAX_INFLIGHT][16];
	int bad = 0;

	for (int base = 0; base < BIG_ENTRIES; base += MAX_INFLIGHT) {
		struct call *cs[MAX_INFLIGHT];
		int n = BIG_ENTRIES - base < MAX_INFLIGHT ? BIG_ENTRIES - base : MAX_INFLIGHT;

		for (int i = 0; i < n; i++) {
			int rc;

			snprintf(names[i], sizeof(names[i]), "e%04d", base + i);
			cs[i] = &calls[i];
			if (remove) {
				REMOVE3args a = {.object = {.dir = fh3(dir), .name = names[i]}};
				call_init(cs[i], sizeof(REMOVE3res), NULL);
				rc = rpc_nfs3_remove_async(x->rpc, call_cb, &a, cs[i]);
			} else {
				CREATE3args a;
				memset(&a, 0, sizeof(a));
				a.where.dir = fh3(dir);
				a.where.name = names[i];
				a.how.mode = GUARDED;
				call_init(cs[i], sizeof(CREATE3res), NULL);
				rc = rpc_nfs3_create_async(x->rpc, call_cb, &a, cs[i]);
			}
			if (rc)
				die("could not send: %s", rpc_get_error(x->rpc));
		}
		if (wait_calls(x, cs, (size_t)n))
			return -1;
		for (int i = 0; i < n; i++)
			bad += cs[i]->rpc_status != RPC_STATUS_SUCCESS ||
			       (remove ? cs[i]->res.remove.status : cs[i]->res.create.status) !=
				       NFS3_OK;
	}
	return bad;
}

static void check_readdir(struct ctx *x, const struct fh *dir)
{
	struct fh big;

	if (!expect("mkdir-big", p3_mkdir(x, dir, "big", &big), NFS3_OK))
		return;
	if (populate(x, &big, false)) {
		fail("create-2000", "expected %d GUARDED creates to succeed", BIG_ENTRIES);
		return;
	}
	ok("create-2000");
	list_dir(x, &big, false, BIG_ENTRIES, NULL);
	list_dir(x, &big, true, BIG_ENTRIES, NULL);
	expect_true("remove-2000", populate(x, &big, true) == 0, "every REMOVE to succeed");
	expect("rmdir-big", p3_rmdir(x, dir, "big"), NFS3_OK);
}

/* ---- file-system information ---- */

static void check_fsinfo(struct ctx *x, const struct fh *root)
{
	struct call c;

	FSSTAT3args sa = {.fsroot = fh3(root)};
	call_init(&c, sizeof(FSSTAT3res), NULL);
	if (run(x, &c, rpc_nfs3_fsstat_async(x->rpc, call_cb, &sa, &c)))
		fail("fsstat", "expected a reply got %s", c.err);
	else if (expect("fsstat", (int)c.res.fsstat.status, NFS3_OK)) {
		FSSTAT3resok *r = &c.res.fsstat.FSSTAT3res_u.resok;

		if (r->tbytes > 0 && r->fbytes <= r->tbytes && r->abytes <= r->fbytes &&
		    r->ffiles <= r->tfiles && r->afiles <= r->ffiles)
			ok("fsstat-fields");
		else
			fail("fsstat-fields",
			     "expected 0 < tbytes >= fbytes >= abytes, tfiles >= ffiles >= afiles "
			     "got %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			     " %" PRIu64,
			     (uint64_t)r->tbytes, (uint64_t)r->fbytes, (uint64_t)r->abytes,
			     (uint64_t)r->tfiles, (uint64_t)r->ffiles, (uint64_t)r->afiles);
	}

	FSINFO3args ia = {.fsroot = fh3(root)};
	call_init(&c, sizeof(FSINFO3res), NULL);
	if (run(x, &c, rpc_nfs3_fsinfo_async(x->rpc, call_cb, &ia, &c)))
		fail("fsinfo", "expected a reply got %s", c.err);
	else if (expect("fsinfo", (int)c.res.fsinfo.status, NFS3_OK)) {
		FSINFO3resok *r = &c.res.fsinfo.FSINFO3res_u.resok;

		if (r->rtmax >= 8192 && r->wtmax >= 8192 && r->rtpref && r->rtpref <= r->rtmax &&
		    r->wtpref && r->wtpref <= r->wtmax && r->dtpref && r->maxfilesize > 0 &&
		    (r->properties & (FSF3_LINK | FSF3_SYMLINK)) == (FSF3_LINK | FSF3_SYMLINK))
			ok("fsinfo-fields");
		else
			fail("fsinfo-fields",
			     "expected rtmax/wtmax >= 8192, prefs within max, dtpref, maxfilesize, "
			     "LINK|SYMLINK got rtmax %u rtpref %u wtmax %u wtpref %u dtpref %u "
			     "props 0x%x",
			     r->rtmax, r->rtpref, r->wtmax, r->wtpref, r->dtpref, r->properties);
	}

	PATHCONF3args pa = {.object = fh3(root)};
	call_init(&c, sizeof(PATHCONF3res), NULL);
	if (run(x, &c, rpc_nfs3_pathconf_async(x->rpc, call_cb, &pa, &c)))
		fail("pathconf", "expected a reply got %s", c.err);
	else if (expect("pathconf", (int)c.res.pathconf.status, NFS3_OK)) {
		PATHCONF3resok *r = &c.res.pathconf.PATHCONF3res_u.resok;

		if (r->name_max == 255 && r->no_trunc && r->linkmax >= 1)
			ok("pathconf-fields");
		else
			fail("pathconf-fields",
			     "expected name_max 255, no_trunc, linkmax >= 1 got %u %u %u",
			     r->name_max, r->no_trunc, r->linkmax);
	}
}

/* ---- bad handles ---- */

static void check_bad_handles(struct ctx *x, const struct fh *root, const struct fh *dir)
{
	struct fh bad, f;
	struct call c;
	int st;

	for (uint32_t i = 0; i<root->len; i += root->len> 8 ? root->len / 4 : 1) {
		char name[48];

		bad = *root;
		bad.data[i] ^= 0x01;
		snprintf(name, sizeof(name), "flipped-byte-%u", i);
		expect(name, p3_getattr(x, &bad, NULL), NFS3ERR_BADHANDLE);
	}
	bad = *root;
	bad.data[root->len - 1] ^= 0x80;
	expect("flipped-last-byte", p3_getattr(x, &bad, NULL), NFS3ERR_BADHANDLE);

	bad.len = 0;
	GETATTR3args a = {.object = fh3(&bad)};
	call_init(&c, sizeof(GETATTR3res), NULL);
	st = run(x, &c, rpc_nfs3_getattr_async(x->rpc, call_cb, &a, &c))
		     ? -1
		     : (int)c.res.getattr.status;
	if (st == -1 || st == NFS3ERR_BADHANDLE)
		ok("empty-handle");
	else
		fail("empty-handle", "expected an RPC error or NFS3ERR_BADHANDLE got %s",
		     st_name(st));

	if (p3_create(x, dir, "stale", UNCHECKED, NULL, &f) == NFS3_OK &&
	    expect("stale-remove", p3_remove(x, dir, "stale"), NFS3_OK))
		expect("stale-handle", p3_getattr(x, &f, NULL), NFS3ERR_STALE);
}

static void cleanup_dir(struct ctx *x, const struct fh *root, const char *name,
			const struct fh *dir)
{
	static const char *const names[] = {"f", "x", "h", "sl", "fifo", "g", "f.link"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		p3_remove(x, dir, names[i]);
	expect("rmdir-workdir", p3_rmdir(x, root, name), NFS3_OK);
}

static int cmd_procs(const char *host, const char *path)
{
	struct ctx x = {0};
	struct fh root, dir;
	fattr3 a;
	struct call c;
	char name[64];

	check_mount_procs(host, path, &root);
	ctx_connect(&x, host, "SHOAL_NFS_PORT", 2049);
	call_init(&c, 0, NULL);
	expect_true("null", run(&x, &c, rpc_nfs3_null_async(x.rpc, call_cb, &c)) == 0,
		    "a reply to NFS NULL");
	if (expect("getattr-root", p3_getattr(&x, &root, &a), NFS3_OK))
		expect_true("getattr-root-type", a.type == NF3DIR, "the root to be NF3DIR");

	snprintf(name, sizeof(name), "procs.%d", (int)getpid());
	if (!expect("mkdir-workdir", p3_mkdir(&x, &root, name, &dir), NFS3_OK))
		die("cannot continue without a work directory");
	check_create_setattr(&x, &dir);
	check_lookup_access(&x, &root, &dir);
	check_io(&x, &dir);
	check_special(&x, &dir);
	check_namespace(&x, &dir);
	check_readdir(&x, &dir);
	check_fsinfo(&x, &root);
	check_bad_handles(&x, &root, &dir);
	cleanup_dir(&x, &root, name, &dir);
	ctx_close(&x);
	printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
	return failures ? 1 : 0;
}

/* ro HOST PATH FILE: FILE exists in the export root and is readable. */
static int cmd_ro(const char *host, const char *path, const char *file)
{
	struct ctx x = {0};
	struct fh root, f;
	struct call c;
	char buf[64];
	sattr3 s = sattr_mode(0600);

	do_mount(host, path, &root);
	ctx_connect(&x, host, "SHOAL_NFS_PORT", 2049);
	expect("ro-getattr", p3_getattr(&x, &root, NULL), NFS3_OK);
	if (expect("ro-lookup", p3_lookup(&x, &root, file, &f, NULL, NULL), NFS3_OK)) {
		expect("ro-read", p3_read(&x, &f, 0, sizeof(buf), buf, NULL, NULL), NFS3_OK);
		expect("ro-write", p3_write(&x, &f, 0, "zz", 2, FILE_SYNC, NULL), NFS3ERR_ROFS);
		expect("ro-setattr", p3_setattr(&x, &f, &s, NULL), NFS3ERR_ROFS);
		ACCESS3args aa = {.object = fh3(&f), .access = 0x3f};
		call_init(&c, sizeof(ACCESS3res), NULL);
		if (run(&x, &c, rpc_nfs3_access_async(x.rpc, call_cb, &aa, &c)) == 0 &&
		    expect("ro-access", (int)c.res.access.status, NFS3_OK))
			expect_true("ro-access-bits",
				    !(c.res.access.ACCESS3res_u.resok.access & (0x4 | 0x8 | 0x10)),
				    "no MODIFY, EXTEND or DELETE on a read-only export");
	}
	expect("ro-create", p3_create(&x, &root, "new", UNCHECKED, NULL, NULL), NFS3ERR_ROFS);
	expect("ro-mkdir", p3_mkdir(&x, &root, "newdir", NULL), NFS3ERR_ROFS);
	expect("ro-remove", p3_remove(&x, &root, file), NFS3ERR_ROFS);
	expect("ro-rename", p3_rename(&x, &root, file, &root, "renamed"), NFS3ERR_ROFS);
	expect("ro-file-kept", p3_lookup(&x, &root, file, NULL, NULL, NULL), NFS3_OK);
	ctx_close(&x);
	printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
	return failures ? 1 : 0;
}

/*
 * bigdir HOST PATH DIR N: DIR (in the export at PATH) holds e<0..N-1>; list it with
 * READDIR and then READDIRPLUS while it changes between pages (see list_dir()).
 */
static int cmd_bigdir(const char *host, const char *path, const char *dirname, int n)
{
	struct ctx x = {0};
	struct fh root, dir;

	if (n <= 0) {
		fprintf(stderr, "nfs3_procs bigdir: N must be a positive number of names\n");
		return 2;
	}
	do_mount(host, path, &root);
	ctx_connect(&x, host, "SHOAL_NFS_PORT", 2049);
	unsigned char *gone = calloc((size_t)n, 1);

	if (!gone)
		die("out of memory");
	if (expect("bigdir-lookup", p3_lookup(&x, &root, dirname, &dir, NULL, NULL), NFS3_OK)) {
		list_dir(&x, &dir, false, n, gone);
		list_dir(&x, &dir, true, n, gone);
	}
	free(gone);
	ctx_close(&x);
	printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
	return failures ? 1 : 0;
}

/* ---- small commands for shell tests ---- */

static int cmd_mount(const char *host, const char *path)
{
	struct ctx mx = {0};
	struct fh root;
	int st;

	ctx_connect(&mx, host, "SHOAL_MOUNT_PORT", 20048);
	st = mnt(&mx, path, &root, NULL);
	ctx_close(&mx);
	if (st == MNT3_OK)
		fh_print("MNT3_OK", &root);
	else
		printf("%s\n", mnt_name(st));
	return st < 0 ? 2 : 0;
}

/* Walk @rel from @root by LOOKUP; returns the status of the last step. */
static int walk(struct ctx *x, const struct fh *root, const char *rel, struct fh *out)
{
	char *copy = strdup(rel), *save = NULL;
	int st = NFS3_OK;

	*out = *root;
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		st = p3_lookup(x, out, p, out, NULL, NULL);
		if (st != NFS3_OK)
			break;
	}
	free(copy);
	return st;
}

static int cmd_small(const char *cmd, const char *host, const char *path, const char *a1,
		     const char *a2)
{
	struct ctx x = {0};
	struct fh root = {0}, f, out;
	static char buf[65536];
	uint32_t count = 0;
	bool eof = false;
	int st;

	do_mount(host, path, &root);
	ctx_connect(&x, host, "SHOAL_NFS_PORT", 2049);
	if (!strcmp(cmd, "fh")) {
		st = walk(&x, &root, a1 ? a1 : "", &out);
		if (st == NFS3_OK)
			fh_print("fh", &out);
		else
			printf("%s\n", st_name(st));
		ctx_close(&x);
		return st == NFS3_OK ? 0 : 1;
	}
	if (!a1 || !fh_parse(a1, &f))
		die("bad handle \"%s\"", a1 ? a1 : "");
	if (!strcmp(cmd, "getattr")) {
		fattr3 a;

		st = p3_getattr(&x, &f, &a);
		printf("%s\n", st_name(st));
		if (st == NFS3_OK)
			printf("type %d size %" PRIu64 " fileid %" PRIu64 "\n", a.type,
			       (uint64_t)a.size, (uint64_t)a.fileid);
	} else if (!strcmp(cmd, "read")) {
		st = p3_read(&x, &f, 0, sizeof(buf) - 1, buf, &count, &eof);
		printf("%s\n", st_name(st));
		if (st == NFS3_OK) {
			buf[count] = 0;
			printf("count %u eof %d\ndata %s\n", count, eof, buf);
		}
	} else if (!strcmp(cmd, "readlink")) {
		st = p3_readlink(&x, &f, buf, sizeof(buf));
		printf("%s\n", st_name(st));
		if (st == NFS3_OK)
			printf("text %s\n", buf);
	} else if (!strcmp(cmd, "lookup") && a2) {
		fattr3 a;

		st = p3_lookup(&x, &f, a2, &out, &a, NULL);
		printf("%s\n", st_name(st));
		if (st == NFS3_OK) {
			fh_print("fh", &out);
			printf("type %d fileid %" PRIu64 "\n", a.type, (uint64_t)a.fileid);
		}
	} else {
		die("unknown command %s", cmd);
	}
	ctx_close(&x);
	return st < 0 ? 2 : 0;
}

/* write-stable: N stable blocks (FILE_SYNC and DATA_SYNC alternately), then M unstable
 * blocks and a COMMIT. Only what a stable reply or the COMMIT covered counts as acked. */
static int cmd_write_stable(const char *host, const char *path, const char *file, int n, int m)
{
	struct ctx x = {0};
	struct fh root, f;
	char block[BLOCK], verf[8], first[8];
	WRITE3resok w;
	int acked = 0, st;

	do_mount(host, path, &root);
	ctx_connect(&x, host, "SHOAL_NFS_PORT", 2049);
	st = p3_create(&x, &root, file, UNCHECKED, NULL, &f);
	if (st != NFS3_OK)
		die("CREATE %s: expected NFS3_OK got %s", file, st_name(st));
	for (int i = 0; i < n + m; i++) {
		stable_how how = i >= n ? UNSTABLE : i % 2 ? DATA_SYNC : FILE_SYNC;

		pattern(block, sizeof(block), (uint64_t)i, 99);
		st = p3_write(&x, &f, (uint64_t)i * BLOCK, block, BLOCK, how, &w);
		if (st != NFS3_OK || w.count != BLOCK)
			die("WRITE block %d: expected NFS3_OK count %d got %s count %u", i, BLOCK,
			    st_name(st), st == NFS3_OK ? w.count : 0);
		if (how != UNSTABLE && w.committed < how)
			die("WRITE block %d: expected committed >= %d got %d", i, how, w.committed);
		if (i == 0)
			memcpy(first, w.verf, 8);
		else if (memcmp(first, w.verf, 8))
			die("WRITE block %d: the write verifier changed within a run", i);
		if (how != UNSTABLE)
			acked++;
	}
	if (m > 0) {
		st = p3_commit(&x, &f, verf);
		if (st != NFS3_OK)
			die("COMMIT: expected NFS3_OK got %s", st_name(st));
		if (memcmp(first, verf, 8))
			die("COMMIT: verifier differs from the writes'");
		acked += m;
	}
	ctx_close(&x);
	printf("acked %d\nverf ", acked);
	for (int i = 0; i < 8; i++)
		printf("%02x", (unsigned char)first[i]);
	printf("\n");
	return 0;
}

static int cmd_verify(const char *host, const char *path, const char *file, int k)
{
	struct ctx x = {0};
	struct fh root, f;
	char want[BLOCK], got[BLOCK];
	uint32_t count;
	int bad = 0, st;

	do_mount(host, path, &root);
	ctx_connect(&x, host, "SHOAL_NFS_PORT", 2049);
	st = p3_lookup(&x, &root, file, &f, NULL, NULL);
	if (st != NFS3_OK)
		die("LOOKUP %s: expected NFS3_OK got %s", file, st_name(st));
	for (int i = 0; i < k; i++) {
		pattern(want, sizeof(want), (uint64_t)i, 99);
		count = 0;
		st = p3_read(&x, &f, (uint64_t)i * BLOCK, BLOCK, got, &count, NULL);
		if (st != NFS3_OK || count != BLOCK || memcmp(want, got, BLOCK)) {
			if (bad++ < 5)
				fail("verify-block",
				     "expected block %d (%d bytes of pattern) got %s count %u %s",
				     i, BLOCK, st_name(st), count,
				     st == NFS3_OK && count == BLOCK ? "wrong bytes" : "");
		}
	}
	ctx_close(&x);
	if (!bad)
		printf("ok verify %d blocks\n", k);
	return bad ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: nfs3_procs procs|ro|mount|fh|getattr|read|readlink|lookup|"
			"write-stable|verify|bigdir HOST PATH [ARGS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *cmd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		usage();
	cmd = argv[1];
	if (!strcmp(cmd, "procs"))
		return cmd_procs(argv[2], argv[3]);
	if (!strcmp(cmd, "ro") && argc == 5)
		return cmd_ro(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "mount"))
		return cmd_mount(argv[2], argv[3]);
	if (!strcmp(cmd, "write-stable") && argc == 7)
		return cmd_write_stable(argv[2], argv[3], argv[4], atoi(argv[5]), atoi(argv[6]));
	if (!strcmp(cmd, "bigdir") && argc == 6)
		return cmd_bigdir(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (!strcmp(cmd, "verify") && argc == 6)
		return cmd_verify(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (!strcmp(cmd, "fh") || !strcmp(cmd, "getattr") || !strcmp(cmd, "read") ||
	    !strcmp(cmd, "readlink") || !strcmp(cmd, "lookup"))
		return cmd_small(cmd, argv[2], argv[3], argc > 4 ? argv[4] : NULL,
				 argc > 5 ? argv[5] : NULL);
	usage();
}
