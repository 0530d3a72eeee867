/*
 * hclient.c - raw ONC RPC / NFSv3 / MOUNT client for the hardening tools (hclient.h).
 *
 * Calls are built with src/xdr; replies are read by record marking with a deadline.
 * The NFS helpers keep one reply buffer per thread, so the probe thread of hostile.c
 * and its attack threads can use them at the same time.
 */
#include "hardening/hclient.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char hc_host[64] = "127.0.0.1";
static int hc_nfs_port = 2049, hc_mount_port = 20048;
static int hc_timeout_ms = 5000;
static atomic_uint hc_next_xid;
static _Thread_local uint8_t *hc_buf;

int hc_env_port(const char *name, int def)
{
	const char *p = getenv(name);

	return p ? atoi(p) : def;
}

void hc_setup(const char *host, int nfs_port, int mount_port)
{
	snprintf(hc_host, sizeof(hc_host), "%s", host);
	hc_nfs_port = nfs_port;
	hc_mount_port = mount_port;
	atomic_store(&hc_next_xid, (unsigned)getpid() << 16);
}

void hc_set_timeout(int timeout_ms)
{
	hc_timeout_ms = timeout_ms;
}

uint32_t hc_xid(void)
{
	return atomic_fetch_add(&hc_next_xid, 1) + 1;
}

static int hc_connect_from(const char *src, int port)
{
	int fd = rr_connect_from(hc_host, src, SOCK_STREAM, port), one = 1;

	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int hc_connect_nfs(void)
{
	return hc_connect_from(NULL, hc_nfs_port);
}

int hc_connect_nfs_from(const char *src)
{
	return hc_connect_from(src, hc_nfs_port);
}

int hc_connect_mount(void)
{
	return hc_connect_from(NULL, hc_mount_port);
}

uint32_t hc_call_header(struct xdr_out *o, uint32_t prog, uint32_t vers, uint32_t proc)
{
	uint32_t xid = hc_xid();

	rr_call_header(o, xid, 2, prog, vers, proc, 1);
	return xid;
}

int hc_call(int fd, const uint8_t *msg, size_t len, uint8_t *buf, size_t cap, struct rr_reply *r,
	    int timeout_ms)
{
	long deadline = rr_now_ms() + timeout_ms;
	uint8_t mark[4];
	size_t got;
	int rc;

	xdr_put_u32(mark, 0x80000000u | (uint32_t)len);
	if (!rr_send_all(fd, mark, 4) || !rr_send_all(fd, msg, len))
		return 1;
	for (;;) {
		rc = rr_recv_record(fd, buf, cap, &got, deadline);
		if (rc)
			return rc;
		if (!rr_parse_reply(buf, got, r))
			return -2;
		if (r->xid == xdr_get_u32(msg))
			return 0;
	}
}

/* ---- NFS and MOUNT helpers ---- */

static uint8_t *hc_tbuf(void)
{
	if (!hc_buf)
		hc_buf = malloc(HC_MAXREPLY);
	if (!hc_buf)
		abort();
	return hc_buf;
}

void hc_thread_done(void)
{
	free(hc_buf);
	hc_buf = NULL;
}

/* One call on @fd; the NFS status, or -1 when no accepted SUCCESS reply came. */
static int hc_do(int fd, struct xdr_out *o, struct rr_reply *r)
{
	if (hc_call(fd, o->buf, o->len, hc_tbuf(), HC_MAXREPLY, r, hc_timeout_ms))
		return -1;
	if (r->stat != 0 || r->code != 0)
		return -1;
	return (int)r->nfsstat;
}

static void hc_enc_fh(struct xdr_out *o, const struct hc_fh *fh)
{
	xdr_enc_opaque(o, fh->data, fh->len);
}

static bool hc_dec_fh(struct xdr_cur *c, struct hc_fh *fh)
{
	struct xdr_view v;

	if (!xdr_dec_opaque(c, 64, &v))
		return false;
	fh->len = v.len;
	memcpy(fh->data, v.data, v.len);
	return true;
}

int hc_mnt(const char *path, struct hc_fh *out)
{
	uint8_t buf[2048];
	struct xdr_out o;
	struct rr_reply r;
	int fd = hc_connect_mount(), st;

	if (fd < 0)
		return -1;
	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_MOUNT_PROG, 3, 1);
	xdr_enc_opaque(&o, path, (uint32_t)strlen(path));
	st = hc_do(fd, &o, &r);
	if (st == 0 && !hc_dec_fh(&r.res, out))
		st = -1;
	close(fd);
	return st;
}

int hc_null(int fd)
{
	uint8_t buf[256];
	struct xdr_out o;
	struct rr_reply r;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_NFS_PROG, 3, HC_NULL);
	if (hc_call(fd, o.buf, o.len, hc_tbuf(), HC_MAXREPLY, &r, hc_timeout_ms))
		return -1;
	return r.stat == 0 && r.code == 0 ? 0 : -1;
}

uint32_t hc_enc_getattr(struct xdr_out *o, const struct hc_fh *fh)
{
	uint32_t xid = hc_call_header(o, HC_NFS_PROG, 3, HC_GETATTR);

	hc_enc_fh(o, fh);
	return xid;
}

int hc_getattr(int fd, const struct hc_fh *fh)
{
	uint8_t buf[512];
	struct xdr_out o;
	struct rr_reply r;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_enc_getattr(&o, fh);
	return hc_do(fd, &o, &r);
}

int hc_lookup(int fd, const struct hc_fh *dir, const char *name, struct hc_fh *out)
{
	uint8_t buf[1024];
	struct xdr_out o;
	struct rr_reply r;
	int st;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_NFS_PROG, 3, HC_LOOKUP);
	hc_enc_fh(&o, dir);
	xdr_enc_opaque(&o, name, (uint32_t)strlen(name));
	st = hc_do(fd, &o, &r);
	if (st == 0 && out && !hc_dec_fh(&r.res, out))
		st = -1;
	return st;
}

/* diropres3 (RFC 1813 section 3.3.8): status, then post_op_fh3 when OK. */
static int hc_dirop_fh(int st, struct rr_reply *r, struct hc_fh *out)
{
	bool follows;

	if (st != 0 || !out)
		return st;
	if (!xdr_dec_bool(&r->res, &follows) || !follows || !hc_dec_fh(&r->res, out))
		return -1;
	return 0;
}

/* sattr3 with only the mode set (for CREATE and MKDIR). */
static void hc_enc_sattr_mode(struct xdr_out *o, uint32_t mode)
{
	xdr_enc_u32(o, 1);
	xdr_enc_u32(o, mode);
	for (int i = 0; i < 5; i++)
		xdr_enc_u32(o, 0); /* uid gid size atime mtime: unset */
}

int hc_create(int fd, const struct hc_fh *dir, const char *name, struct hc_fh *out)
{
	uint8_t buf[1024];
	struct xdr_out o;
	struct rr_reply r;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_NFS_PROG, 3, HC_CREATE);
	hc_enc_fh(&o, dir);
	xdr_enc_opaque(&o, name, (uint32_t)strlen(name));
	xdr_enc_u32(&o, 0); /* UNCHECKED */
	hc_enc_sattr_mode(&o, 0644);
	return hc_dirop_fh(hc_do(fd, &o, &r), &r, out);
}

int hc_mkdir(int fd, const struct hc_fh *dir, const char *name, struct hc_fh *out)
{
	uint8_t buf[1024];
	struct xdr_out o;
	struct rr_reply r;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_NFS_PROG, 3, HC_MKDIR);
	hc_enc_fh(&o, dir);
	xdr_enc_opaque(&o, name, (uint32_t)strlen(name));
	hc_enc_sattr_mode(&o, 0755);
	return hc_dirop_fh(hc_do(fd, &o, &r), &r, out);
}

int hc_remove(int fd, const struct hc_fh *dir, const char *name)
{
	uint8_t buf[1024];
	struct xdr_out o;
	struct rr_reply r;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_NFS_PROG, 3, HC_REMOVE);
	hc_enc_fh(&o, dir);
	xdr_enc_opaque(&o, name, (uint32_t)strlen(name));
	return hc_do(fd, &o, &r);
}

int hc_setattr_size(int fd, const struct hc_fh *fh, uint64_t size)
{
	uint8_t buf[512];
	struct xdr_out o;
	struct rr_reply r;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_call_header(&o, HC_NFS_PROG, 3, HC_SETATTR);
	hc_enc_fh(&o, fh);
	xdr_enc_u32(&o, 0); /* mode, uid, gid: unset */
	xdr_enc_u32(&o, 0);
	xdr_enc_u32(&o, 0);
	xdr_enc_u32(&o, 1); /* size */
	xdr_enc_u64(&o, size);
	xdr_enc_u32(&o, 0); /* atime, mtime: unchanged */
	xdr_enc_u32(&o, 0);
	xdr_enc_u32(&o, 0); /* no guard */
	return hc_do(fd, &o, &r);
}

uint32_t hc_enc_write(struct xdr_out *o, const struct hc_fh *fh, uint64_t off, const void *data,
		      uint32_t len, uint32_t stable)
{
	uint32_t xid = hc_call_header(o, HC_NFS_PROG, 3, HC_WRITE);

	hc_enc_fh(o, fh);
	xdr_enc_u64(o, off);
	xdr_enc_u32(o, len);
	xdr_enc_u32(o, stable);
	xdr_enc_opaque(o, data, len);
	return xid;
}

uint32_t hc_enc_read(struct xdr_out *o, const struct hc_fh *fh, uint64_t off, uint32_t count)
{
	uint32_t xid = hc_call_header(o, HC_NFS_PROG, 3, HC_READ);

	hc_enc_fh(o, fh);
	xdr_enc_u64(o, off);
	xdr_enc_u32(o, count);
	return xid;
}

int hc_write(int fd, const struct hc_fh *fh, uint64_t off, const void *data, uint32_t len,
	     uint32_t stable)
{
	size_t cap = len + 1024;
	uint8_t *buf = malloc(cap);
	struct xdr_out o;
	struct rr_reply r;
	int st;

	if (!buf)
		return -1;
	xdr_out_init(&o, buf, cap);
	hc_enc_write(&o, fh, off, data, len, stable);
	st = hc_do(fd, &o, &r);
	free(buf);
	return st;
}

int hc_read(int fd, const struct hc_fh *fh, uint64_t off, uint32_t count, uint32_t *got)
{
	uint8_t buf[512];
	struct xdr_out o;
	struct rr_reply r;
	uint32_t follows, v;
	int st;

	xdr_out_init(&o, buf, sizeof(buf));
	hc_enc_read(&o, fh, off, count);
	st = hc_do(fd, &o, &r);
	*got = 0;
	if (st != 0)
		return st;
	/* post_op_attr (84 bytes of fattr3 when it follows), count, eof, data. */
	if (!xdr_dec_u32(&r.res, &follows) || (follows && !xdr_dec_skip(&r.res, 84)) ||
	    !xdr_dec_u32(&r.res, got) || !xdr_dec_u32(&r.res, &v))
		return -1;
	return 0;
}

const char *hc_nfsstat_name(int st)
{
	static const struct {
		int st;
		const char *name;
	} names[] = {
		{0, "NFS3_OK"},
		{1, "NFS3ERR_PERM"},
		{2, "NFS3ERR_NOENT"},
		{5, "NFS3ERR_IO"},
		{13, "NFS3ERR_ACCES"},
		{17, "NFS3ERR_EXIST"},
		{20, "NFS3ERR_NOTDIR"},
		{21, "NFS3ERR_ISDIR"},
		{22, "NFS3ERR_INVAL"},
		{27, "NFS3ERR_FBIG"},
		{28, "NFS3ERR_NOSPC"},
		{30, "NFS3ERR_ROFS"},
		{69, "NFS3ERR_DQUOT"},
		{70, "NFS3ERR_STALE"},
		{10001, "NFS3ERR_BADHANDLE"},
		{10006, "NFS3ERR_SERVERFAULT"},
		{10008, "NFS3ERR_JUKEBOX"},
		{-1, "no reply"},
	};
	static _Thread_local char other[32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].st == st)
			return names[i].name;
	}
	snprintf(other, sizeof(other), "status %d", st);
	return other;
}
