/*
 * rpc_raw.c - integration client that writes ONC RPC (RFC 5531) calls byte by byte, for
 * what a well-behaved client library will not send: retransmissions with the same XID,
 * malformed headers and arguments, bad credentials and oversized records.
 *
 *   rpc_raw malformed HOST     RPC-level rejections, record marking, UDP, oversized record
 *   rpc_raw drc HOST PATH      same-XID retransmissions of CREATE/REMOVE/RENAME get the
 *                              cached reply, byte for byte, and run once
 *   rpc_raw udp HOST           NFS and MOUNT answer datagrams sent to HOST (IPv4 or IPv6)
 *                              from HOST: the socket is connected, so a reply from any
 *                              other address of the server is never seen
 *
 * Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT (defaults 2049, 20048); every reply
 * is awaited at most SHOAL_RPC_TIMEOUT seconds (default 30). Output is "ok NAME" or
 * "FAIL NAME: expected X got Y"; the exit status is 1 if a check failed.
 * Encoding uses the project's own src/xdr cursors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/check.h"
#include "lib/rawrpc.h"
#include "xdr/xdr.h"

#define NFS_PROG   100003
#define MOUNT_PROG 100005
#define MAXMSG	   (256 * 1024)

/* A reply: its summary and its bytes. */
struct reply {
	struct rr_reply h;
	uint8_t raw[MAXMSG];
	size_t rawlen;
};

static const char *host;
static int nfs_port = 2049, mount_port = 20048, timeout_ms = 30000;
static uint32_t next_xid;

/* A socket connected to HOST at @port, or the end of the run. */
static int sock_open(int type, int port)
{
	int fd = rr_connect(host, type, port);

	if (fd < 0) {
		printf("FAIL connect: expected to reach %s port %d got %s\n", host, port,
		       strerror(errno));
		exit(2);
	}
	return fd;
}

/* Send @msg as one record (or two fragments when @split). */
static bool send_record(int fd, const uint8_t *msg, size_t len, bool split)
{
	uint8_t mark[4];
	size_t first = split ? len / 2 : 0;

	if (split) {
		xdr_put_u32(mark, (uint32_t)first);
		if (!rr_send_all(fd, mark, 4) || !rr_send_all(fd, msg, first))
			return false;
	}
	xdr_put_u32(mark, 0x80000000u | (uint32_t)(len - first));
	return rr_send_all(fd, mark, 4) && rr_send_all(fd, msg + first, len - first);
}

/* Receive one record into r->raw; 0 ok, 1 closed, -1 timeout or too big. */
static int recv_record(int fd, struct reply *r)
{
	int rc = rr_recv_record(fd, r->raw, sizeof(r->raw), &r->rawlen, rr_now_ms() + timeout_ms);

	return rc == -2 ? -1 : rc;
}

/* Summarise r->raw into r->h; false if it is not a well-formed reply. */
static bool parse_reply(struct reply *r)
{
	return rr_parse_reply(r->raw, r->rawlen, &r->h);
}

/* One round trip on @fd; false (with a FAIL line) if no well-formed reply came. */
static bool rpc_call(int fd, const char *name, const uint8_t *msg, size_t len, struct reply *r,
		     bool split)
{
	int rc;

	if (!send_record(fd, msg, len, split)) {
		check_fail(name, "expected to send the call got %s", strerror(errno));
		return false;
	}
	rc = recv_record(fd, r);
	if (rc) {
		check_fail(name, "expected a reply got %s",
			   rc > 0 ? "connection closed" : "timeout");
		return false;
	}
	if (!parse_reply(r) || r->h.xid != xdr_get_u32(msg)) {
		check_fail(name, "expected a well-formed reply with our xid got %zu bytes",
			   r->rawlen);
		return false;
	}
	return true;
}

static void expect_accept(const char *name, const struct reply *r, uint32_t code)
{
	static const char *const names[] = {"SUCCESS",	    "PROG_UNAVAIL", "PROG_MISMATCH",
					    "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR"};

	if (r->h.stat == 0 && r->h.code == code)
		check_ok(name);
	else if (r->h.stat == 0)
		check_fail(name, "expected MSG_ACCEPTED %s got accept_stat %u", names[code],
			   r->h.code);
	else
		check_fail(name, "expected MSG_ACCEPTED %s got MSG_DENIED reject_stat %u",
			   names[code], r->h.code);
}

/* ---- malformed ---- */

static void simple(int fd, const char *name, uint32_t rpcvers, uint32_t prog, uint32_t vers,
		   uint32_t proc, uint32_t flavor, const void *args, size_t alen, struct reply *r)
{
	uint8_t buf[1024];
	struct xdr_out o;

	xdr_out_init(&o, buf, sizeof(buf));
	rr_call_header(&o, ++next_xid, rpcvers, prog, vers, proc, flavor);
	if (alen)
		memcpy(buf + o.len, args, alen);
	o.len += alen;
	r->h.stat = 99;
	if (!rpc_call(fd, name, buf, o.len, r, false))
		r->h.stat = 99;
}

static void check_rejections(int fd, struct reply *r)
{
	uint8_t args[128], big[65];
	struct xdr_out a;

	simple(fd, "null", 2, NFS_PROG, 3, 0, 1, NULL, 0, r);
	expect_accept("null", r, 0);
	simple(fd, "null-auth-none", 2, NFS_PROG, 3, 0, 0, NULL, 0, r);
	expect_accept("null-auth-none", r, 0);

	simple(fd, "rpc-version-3", 3, NFS_PROG, 3, 0, 1, NULL, 0, r);
	if (r->h.stat == 1 && r->h.code == 0 && r->h.lo == 2 && r->h.hi == 2)
		check_ok("rpc-version-3");
	else if (r->h.stat != 99)
		check_fail("rpc-version-3",
			   "expected MSG_DENIED RPC_MISMATCH 2..2 got stat %u code %u "
			   "%u..%u",
			   r->h.stat, r->h.code, r->h.lo, r->h.hi);

	simple(fd, "unknown-program", 2, 400123, 1, 0, 1, NULL, 0, r);
	expect_accept("unknown-program", r, 1);

	for (uint32_t v = 2; v <= 4; v += 2) {
		char name[32];

		snprintf(name, sizeof(name), "nfs-version-%u", v);
		simple(fd, name, 2, NFS_PROG, v, 0, 1, NULL, 0, r);
		if (r->h.stat == 0 && r->h.code == 2 && r->h.lo == 3 && r->h.hi == 3)
			check_ok(name);
		else if (r->h.stat != 99)
			check_fail(name, "expected PROG_MISMATCH 3..3 got stat %u code %u %u..%u",
				   r->h.stat, r->h.code, r->h.lo, r->h.hi);
	}

	simple(fd, "proc-99", 2, NFS_PROG, 3, 99, 1, NULL, 0, r);
	expect_accept("proc-99", r, 3);

	simple(fd, "getattr-no-args", 2, NFS_PROG, 3, 1, 1, NULL, 0, r);
	expect_accept("getattr-no-args", r, 4);

	xdr_out_init(&a, args, sizeof(args));
	xdr_enc_u32(&a, 32); /* claims 32 bytes of handle, sends 8 */
	xdr_enc_u32(&a, 0x01020304);
	xdr_enc_u32(&a, 0x05060708);
	simple(fd, "getattr-truncated-handle", 2, NFS_PROG, 3, 1, 1, args, a.len, r);
	expect_accept("getattr-truncated-handle", r, 4);

	xdr_out_init(&a, args, sizeof(args));
	xdr_enc_u32(&a, 0);
	simple(fd, "getattr-empty-handle", 2, NFS_PROG, 3, 1, 1, args, a.len, r);
	if ((r->h.stat == 0 && r->h.code == 4) ||
	    (r->h.stat == 0 && r->h.code == 0 && r->h.nfsstat == 10001))
		check_ok("getattr-empty-handle");
	else if (r->h.stat != 99)
		check_fail("getattr-empty-handle",
			   "expected GARBAGE_ARGS or NFS3ERR_BADHANDLE got stat "
			   "%u code %u nfsstat %u",
			   r->h.stat, r->h.code, r->h.nfsstat);

	xdr_out_init(&a, args, sizeof(args));
	memset(big, 0xab, sizeof(big));
	xdr_enc_opaque(&a, big, sizeof(big));
	simple(fd, "getattr-65-byte-handle", 2, NFS_PROG, 3, 1, 1, args, a.len, r);
	if ((r->h.stat == 0 && r->h.code == 4) ||
	    (r->h.stat == 0 && r->h.code == 0 && r->h.nfsstat == 10001))
		check_ok("getattr-65-byte-handle");
	else if (r->h.stat != 99)
		check_fail("getattr-65-byte-handle",
			   "expected GARBAGE_ARGS or NFS3ERR_BADHANDLE got "
			   "stat %u code %u nfsstat %u",
			   r->h.stat, r->h.code, r->h.nfsstat);

	simple(fd, "auth-flavor-6", 2, NFS_PROG, 3, 0, 6, NULL, 0, r);
	if (r->h.stat == 1 && r->h.code == 1)
		check_ok("auth-flavor-6");
	else if (r->h.stat != 99)
		check_fail("auth-flavor-6", "expected MSG_DENIED AUTH_ERROR got stat %u code %u",
			   r->h.stat, r->h.code);

	simple(fd, "null-after-errors", 2, NFS_PROG, 3, 0, 1, NULL, 0, r);
	expect_accept("null-after-errors", r, 0);
}

/* One datagram call to @port, answered on a connected socket: the reply must come from
 * the address the call went to, or the kernel drops it before we see it. */
static void udp_call(const char *name, int port, uint32_t prog, uint32_t proc, uint32_t want,
		     struct reply *r)
{
	int fd = sock_open(SOCK_DGRAM, port);
	uint8_t buf[256];
	struct xdr_out o;

	xdr_out_init(&o, buf, sizeof(buf));
	rr_call_header(&o, ++next_xid, 2, prog, 3, proc, 1);
	if (send(fd, buf, o.len, 0) != (ssize_t)o.len ||
	    !rr_wait_readable(fd, rr_now_ms() + timeout_ms) ||
	    (r->rawlen = (size_t)recv(fd, r->raw, sizeof(r->raw), 0)) == (size_t)-1 ||
	    !parse_reply(r) || r->h.xid != next_xid)
		check_fail(name, "expected a reply over UDP from %s port %d", host, port);
	else
		expect_accept(name, r, want);
	close(fd);
}

/* UDP: NFS answers datagrams (and says PROC_UNAVAIL for procedure 99), MOUNT too. */
static void check_udp(struct reply *r)
{
	udp_call("udp-null", nfs_port, NFS_PROG, 0, 0, r);
	udp_call("udp-proc-99", nfs_port, NFS_PROG, 99, 3, r);
	udp_call("udp-mount-null", mount_port, MOUNT_PROG, 0, 0, r);
}

static void check_framing(struct reply *r)
{
	uint8_t buf[256], two[512];
	struct xdr_out o;
	int fd = sock_open(SOCK_STREAM, nfs_port);
	size_t len;

	/* One call in two fragments: record marking, RFC 5531 section 11. */
	xdr_out_init(&o, buf, sizeof(buf));
	rr_call_header(&o, ++next_xid, 2, NFS_PROG, 3, 0, 1);
	if (rpc_call(fd, "fragmented-record", buf, o.len, r, true))
		expect_accept("fragmented-record", r, 0);

	/* Two calls in one write: both answered, in some order. */
	len = o.len;
	for (int i = 0; i < 2; i++) {
		xdr_put_u32(two + i * (len + 4), 0x80000000u | (uint32_t)len);
		xdr_put_u32(buf, ++next_xid);
		memcpy(two + i * (len + 4) + 4, buf, len);
	}
	if (!rr_send_all(fd, two, 2 * (len + 4)))
		check_fail("pipelined-calls", "expected to send got %s", strerror(errno));
	else if (recv_record(fd, r) || !parse_reply(r) || recv_record(fd, r) || !parse_reply(r))
		check_fail("pipelined-calls", "expected two replies to two calls in one segment");
	else
		check_ok("pipelined-calls");
	close(fd);

	check_udp(r);

	/* MOUNT v1 and v3 answer NULL on the mount port. */
	fd = sock_open(SOCK_STREAM, mount_port);
	for (uint32_t v = 1; v <= 3; v += 2) {
		char name[32];

		snprintf(name, sizeof(name), "mount-v%u-null", v);
		simple(fd, name, 2, MOUNT_PROG, v, 0, 1, NULL, 0, r);
		if (r->h.stat != 99)
			expect_accept(name, r, 0);
	}
	close(fd);
}

static void check_oversized(struct reply *r)
{
	uint8_t mark[4], junk[4096];
	int fd = sock_open(SOCK_STREAM, nfs_port);
	long deadline = rr_now_ms() + timeout_ms;
	bool closed = false;

	xdr_put_u32(mark, 0x80000000u | (100u << 20));
	memset(junk, 0x41, sizeof(junk));
	rr_send_all(fd, mark, 4);
	rr_send_all(fd, junk, sizeof(junk)); /* may fail once the server has closed */
	while (!closed && rr_wait_readable(fd, deadline)) {
		ssize_t n = recv(fd, junk, sizeof(junk), 0);

		closed = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
	}
	if (closed)
		check_ok("oversized-record-closed");
	else
		check_fail("oversized-record-closed",
			   "expected the server to close a connection whose "
			   "record mark claims 100 MiB within %d ms",
			   timeout_ms);
	close(fd);

	fd = sock_open(SOCK_STREAM, nfs_port);
	simple(fd, "null-after-oversized", 2, NFS_PROG, 3, 0, 1, NULL, 0, r);
	if (r->h.stat != 99)
		expect_accept("null-after-oversized", r, 0);
	close(fd);
}

/* ---- drc ---- */

static void enc_dirop(struct xdr_out *o, const struct xdr_view *dir, const char *name)
{
	xdr_enc_opaque(o, dir->data, dir->len);
	xdr_enc_opaque(o, name, (uint32_t)strlen(name));
}

/* Build an NFSv3 call with @xid: proc CREATE (8, GUARDED), REMOVE (12), LOOKUP (3),
 * RENAME (14, @name2 is the new name in the same directory). */
static size_t nfs_call(uint8_t *buf, size_t cap, uint32_t xid, uint32_t proc,
		       const struct xdr_view *dir, const char *name, const char *name2)
{
	struct xdr_out o;

	xdr_out_init(&o, buf, cap);
	rr_call_header(&o, xid, 2, NFS_PROG, 3, proc, 1);
	enc_dirop(&o, dir, name);
	if (proc == 8) {
		xdr_enc_u32(&o, 1); /* GUARDED */
		xdr_enc_u32(&o, 1); /* set mode */
		xdr_enc_u32(&o, 0644);
		for (int i = 0; i < 5; i++)
			xdr_enc_u32(&o, 0); /* uid gid size atime mtime: unset */
	} else if (proc == 14) {
		enc_dirop(&o, dir, name2);
	}
	return o.len;
}

static bool raw_mount(const char *path, uint8_t *fhbuf, struct xdr_view *fh, struct reply *r)
{
	uint8_t buf[1200];
	struct xdr_out o;
	struct xdr_view v;
	int fd = sock_open(SOCK_STREAM, mount_port);
	bool good = false;

	xdr_out_init(&o, buf, sizeof(buf));
	rr_call_header(&o, ++next_xid, 2, MOUNT_PROG, 3, 1, 1);
	xdr_enc_opaque(&o, path, (uint32_t)strlen(path));
	if (rpc_call(fd, "mnt", buf, o.len, r, false) && r->h.stat == 0 && r->h.code == 0 &&
	    r->h.nfsstat == 0 && xdr_dec_opaque(&r->h.res, 64, &v)) {
		memcpy(fhbuf, v.data, v.len);
		fh->data = fhbuf;
		fh->len = v.len;
		good = true;
	} else {
		check_fail("mnt", "expected MNT3_OK for %s got stat %u code %u status %u", path,
			   r->h.stat, r->h.code, r->h.nfsstat);
	}
	close(fd);
	return good;
}

/* Send @msg, then the very same bytes again: the two replies must be identical and OK. */
static void retransmit(int fd1, int fd2, const char *name, const uint8_t *msg, size_t len,
		       struct reply *r1, struct reply *r2)
{
	if (!rpc_call(fd1, name, msg, len, r1, false) || !rpc_call(fd2, name, msg, len, r2, false))
		return;
	if (r1->h.stat != 0 || r1->h.code != 0 || r1->h.nfsstat != 0)
		check_fail(name, "expected the first reply NFS3_OK got stat %u code %u status %u",
			   r1->h.stat, r1->h.code, r1->h.nfsstat);
	else if (r2->rawlen != r1->rawlen || memcmp(r1->raw, r2->raw, r1->rawlen))
		check_fail(name,
			   "expected a byte-identical cached reply got %zu vs %zu bytes, status "
			   "%u then %u",
			   r1->rawlen, r2->rawlen, r1->h.nfsstat, r2->h.nfsstat);
	else
		check_ok(name);
}

static void expect_status(int fd, const char *name, const uint8_t *msg, size_t len, uint32_t want,
			  struct reply *r)
{
	if (!rpc_call(fd, name, msg, len, r, false))
		return;
	if (r->h.stat == 0 && r->h.code == 0 && r->h.nfsstat == want)
		check_ok(name);
	else
		check_fail(name, "expected NFS status %u got stat %u code %u status %u", want,
			   r->h.stat, r->h.code, r->h.nfsstat);
}

static int cmd_drc(const char *path)
{
	static struct reply r1, r2;
	uint8_t fhbuf[64], msg[1024];
	struct xdr_view root;
	char name[64], name2[64];
	int fd, fd2;
	size_t len;
	uint32_t base = (uint32_t)getpid() << 12;

	if (!raw_mount(path, fhbuf, &root, &r1))
		return 1;
	fd = sock_open(SOCK_STREAM, nfs_port);
	snprintf(name, sizeof(name), "drc.%d", (int)getpid());
	snprintf(name2, sizeof(name2), "drc.%d.renamed", (int)getpid());

	len = nfs_call(msg, sizeof(msg), base + 1, 8, &root, name, NULL);
	retransmit(fd, fd, "drc-create-same-conn", msg, len, &r1, &r2);
	len = nfs_call(msg, sizeof(msg), base + 2, 8, &root, name, NULL);
	expect_status(fd, "drc-create-new-xid-exists", msg, len, 17, &r1);

	len = nfs_call(msg, sizeof(msg), base + 3, 14, &root, name, name2);
	retransmit(fd, fd, "drc-rename-same-conn", msg, len, &r1, &r2);
	len = nfs_call(msg, sizeof(msg), base + 4, 3, &root, name2, NULL);
	expect_status(fd, "drc-rename-ran", msg, len, 0, &r1);

	len = nfs_call(msg, sizeof(msg), base + 5, 12, &root, name2, NULL);
	retransmit(fd, fd, "drc-remove-same-conn", msg, len, &r1, &r2);
	len = nfs_call(msg, sizeof(msg), base + 6, 3, &root, name2, NULL);
	expect_status(fd, "drc-remove-ran", msg, len, 2, &r1);
	len = nfs_call(msg, sizeof(msg), base + 7, 12, &root, name2, NULL);
	expect_status(fd, "drc-remove-new-xid-noent", msg, len, 2, &r1);

	/* A client that reconnects (new source port) retransmits with the same XID. */
	fd2 = sock_open(SOCK_STREAM, nfs_port);
	len = nfs_call(msg, sizeof(msg), base + 8, 8, &root, name, NULL);
	retransmit(fd, fd2, "drc-create-reconnect", msg, len, &r1, &r2);
	len = nfs_call(msg, sizeof(msg), base + 9, 12, &root, name, NULL);
	retransmit(fd, fd2, "drc-remove-reconnect", msg, len, &r1, &r2);
	close(fd2);
	close(fd);
	return check_summary();
}

static int cmd_malformed(void)
{
	static struct reply r;
	int fd = sock_open(SOCK_STREAM, nfs_port);

	check_rejections(fd, &r);
	close(fd);
	check_framing(&r);
	check_oversized(&r);
	return check_summary();
}

int main(int argc, char **argv)
{
	const char *p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((p = getenv("SHOAL_NFS_PORT")))
		nfs_port = atoi(p);
	if ((p = getenv("SHOAL_MOUNT_PORT")))
		mount_port = atoi(p);
	if ((p = getenv("SHOAL_RPC_TIMEOUT")))
		timeout_ms = atoi(p) * 1000;
	next_xid = (uint32_t)getpid() << 16 | 0x8000;
	if (argc == 3 && !strcmp(argv[1], "malformed")) {
		host = argv[2];
		return cmd_malformed();
	}
	if (argc == 4 && !strcmp(argv[1], "drc")) {
		host = argv[2];
		return cmd_drc(argv[3]);
	}
	if (argc == 3 && !strcmp(argv[1], "udp")) {
		static struct reply r;

		host = argv[2];
		check_udp(&r);
		return check_summary();
	}
	fprintf(stderr,
		"usage: rpc_raw malformed HOST | rpc_raw drc HOST PATH | rpc_raw udp HOST\n");
	return 2;
}
