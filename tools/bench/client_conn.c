/*
 * client_conn.c - one TCP connection of shoal-bench's RPC client: connecting, queuing
 * calls with record marks (RFC 5531 section 11), writing and reading without
 * blocking, and cutting the byte stream back into replies.
 *
 * Calls are encoded in place in the send buffer, WRITE data is sent from where it
 * lives (the send queue is a list of pieces handed to one sendmsg), and replies are
 * parsed in place in the receive buffer: the hot path makes no allocation and copies
 * no payload in user space. Long replies whose bodies nobody reads can be cut, their
 * tails discarded in the kernel (bench_conn_fill()).
 */
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "rpc/rpc.h"

#define SBUF_INIT  (1u << 20)
#define RBUF_SIZE  (2u << 20)
#define RBUF_ROOM  (256u * 1024) /* compact when less is free at the end */
#define MAX_RECORD (1u << 20)	 /* larger replies are not ours */
#define LAST_FRAG  0x80000000u
#define SQ_INIT	   256 /* send-queue pieces; grows on demand */

/* @c's credential: AUTH_SYS as @uid and @gid, no other groups. */
static bool enc_cred(struct bench_conn *c, uint32_t uid, uint32_t gid)
{
	static const char machine[] = "shoal-bench";
	struct xdr_out o;
	uint8_t body[64];
	struct xdr_out b;

	xdr_out_init(&b, body, sizeof(body));
	if (!(xdr_enc_u32(&b, 0) && xdr_enc_opaque(&b, machine, sizeof(machine) - 1) &&
	      xdr_enc_u32(&b, uid) && xdr_enc_u32(&b, gid) && xdr_enc_u32(&b, 0)))
		return false;
	xdr_out_init(&o, c->cred, sizeof(c->cred));
	if (!(xdr_enc_u32(&o, RPC_AUTH_SYS) && xdr_enc_opaque(&o, body, (uint32_t)b.len) &&
	      xdr_enc_u32(&o, RPC_AUTH_NONE) && xdr_enc_u32(&o, 0)))
		return false;
	c->credlen = (uint32_t)o.len;
	return true;
}

void bench_conn_set_cred(struct bench_conn *c, uint32_t uid, uint32_t gid)
{
	/* cannot fail: 64 bytes hold the longest (the machine name is fixed) */
	(void)enc_cred(c, uid, gid);
}

int bench_conn_open(struct bench_conn *c, const char *host, uint16_t port, uint32_t prog,
		    uint32_t vers)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL, *a;
	char portstr[8];
	int one = 1, rc, fd = -1;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &ai);
	if (rc != 0)
		return -EHOSTUNREACH;
	rc = -ECONNREFUSED;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return rc;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return bench_conn_adopt(c, fd, prog, vers);
}

int bench_conn_adopt(struct bench_conn *c, int fd, uint32_t prog, uint32_t vers)
{
	struct timespec ts;

	memset(c, 0, sizeof(*c));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	c->fd = fd;
	c->prog = prog;
	c->vers = vers;
	c->scap = SBUF_INIT;
	c->rcap = RBUF_SIZE;
	c->sqcap = SQ_INIT;
	c->sbuf = malloc(c->scap);
	c->rbuf = malloc(c->rcap);
	c->sq = malloc(c->sqcap * sizeof(*c->sq));
	/* Random, so that no two runs send the same XIDs: a server's duplicate request
	 * cache (keyed by client address, XID and arguments, not by connection) would
	 * answer a later run's calls with an earlier run's replies, doing no work. */
	if (getrandom(&c->next_xid, sizeof(c->next_xid), GRND_NONBLOCK) != sizeof(c->next_xid)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		c->next_xid = (uint32_t)ts.tv_nsec ^ (uint32_t)getpid() << 12;
	}
	if (!c->sbuf || !c->rbuf || !c->sq || !enc_cred(c, 0, 0)) {
		bench_conn_close(c);
		return -ENOMEM;
	}
	return 0;
}

void bench_conn_close(struct bench_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->sbuf);
	free(c->rbuf);
	free(c->sq);
	c->sbuf = c->rbuf = NULL;
	c->sq = NULL;
}

/* Room for @n more segments at the end of the send queue. */
static bool sq_room(struct bench_conn *c, uint32_t n)
{
	struct bench_sseg *q;

	if (c->sqn == 0)
		c->sqh = 0;
	if (c->sqcap - c->sqh - c->sqn >= n)
		return true;
	if (c->sqh > 0) {
		memmove(c->sq, c->sq + c->sqh, c->sqn * sizeof(*c->sq));
		c->sqh = 0;
		if (c->sqcap - c->sqn >= n)
			return true;
	}
	q = realloc(c->sq, (c->sqcap * 2 + n) * sizeof(*q));
	if (!q)
		return false;
	c->sq = q;
	c->sqcap = c->sqcap * 2 + n;
	return true;
}

/*
 * Make room for one more call of at most BENCH_CALL_MAX inline bytes at the end of
 * sbuf. Queued pieces are kept by offset, so sbuf may move; bytes already sent are
 * dropped from its front when that makes the room.
 */
static bool send_room(struct bench_conn *c)
{
	size_t base = c->slen;
	uint8_t *n;

	if (!sq_room(c, 2 * XDR_OUT_MAXSEG + 1))
		return false;
	for (uint32_t i = c->sqh; i < c->sqh + c->sqn; i++)
		if (!c->sq[i].ext) {
			base = c->sq[i].off; /* the first inline byte still to send */
			break;
		}
	if (c->scap - c->slen >= BENCH_CALL_MAX + 4)
		return true;
	if (base > 0) {
		memmove(c->sbuf, c->sbuf + base, c->slen - base);
		for (uint32_t i = c->sqh; i < c->sqh + c->sqn; i++)
			if (!c->sq[i].ext)
				c->sq[i].off -= base;
		c->slen -= base;
		if (c->scap - c->slen >= BENCH_CALL_MAX + 4)
			return true;
	}
	n = realloc(c->sbuf, c->scap * 2);
	if (!n)
		return false;
	c->sbuf = n;
	c->scap *= 2;
	return true;
}

uint32_t bench_conn_call_begin(struct bench_conn *c, struct xdr_out *o, uint32_t proc)
{
	uint32_t xid = c->next_xid++;
	uint8_t *p;

	if (!send_room(c)) {
		xdr_out_init(o, NULL, 0); /* every encode fails; call_end drops the call */
		return xid;
	}
	xdr_out_init(o, c->sbuf + c->slen + 4, c->scap - c->slen - 4);
	xdr_enc_u32(o, xid);
	xdr_enc_u32(o, RPC_CALL);
	xdr_enc_u32(o, RPC_VERSION);
	xdr_enc_u32(o, c->prog);
	xdr_enc_u32(o, c->vers);
	xdr_enc_u32(o, proc);
	p = xdr_enc_reserve(o, c->credlen);
	if (p)
		memcpy(p, c->cred, c->credlen);
	return xid;
}

/* Queue @len bytes at sbuf[@off] (ext NULL) or at @ext, merging with the last piece
 * when it ends where this one starts. Room was made by send_room(). */
static void sq_push(struct bench_conn *c, const uint8_t *ext, size_t off, size_t len)
{
	struct bench_sseg *last = c->sqn ? &c->sq[c->sqh + c->sqn - 1] : NULL;

	if (len == 0)
		return;
	c->squeued += len;
	if (last && !ext && !last->ext && last->off + last->len == off) {
		last->len += len;
		return;
	}
	c->sq[c->sqh + c->sqn++] = (struct bench_sseg){ext, off, len};
}

bool bench_conn_call_end(struct bench_conn *c, struct xdr_out *o)
{
	size_t start = c->slen, pos = start, total = xdr_out_total(o);

	if (o->buf == NULL || o->len > BENCH_CALL_MAX || total > MAX_RECORD)
		return false;
	xdr_put_u32(c->sbuf + start, LAST_FRAG | (uint32_t)total);
	/* inline bytes up to each segment, the segment from where it lives, the rest */
	for (unsigned i = 0; i < o->nseg; i++) {
		size_t end = start + 4 + o->seg[i].at;

		sq_push(c, NULL, pos, end - pos);
		sq_push(c, o->seg[i].ptr, 0, o->seg[i].len);
		pos = end;
	}
	sq_push(c, NULL, pos, start + 4 + o->len - pos);
	c->slen += 4 + o->len;
	return true;
}

#define FLUSH_IOV 64

int bench_conn_flush(struct bench_conn *c)
{
	while (c->sqn > 0) {
		struct iovec iov[FLUSH_IOV];
		struct msghdr msg = {.msg_iov = iov};
		size_t n;
		ssize_t sent;

		for (n = 0; n < FLUSH_IOV && n < c->sqn; n++) {
			const struct bench_sseg *q = &c->sq[c->sqh + n];

			iov[n].iov_base = (void *)(q->ext ? q->ext + q->off : c->sbuf + q->off);
			iov[n].iov_len = q->len;
		}
		msg.msg_iovlen = n;
		sent = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
		if (sent < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c->bytes_out += (uint64_t)sent;
		c->squeued -= (size_t)sent;
		while (sent > 0) {
			struct bench_sseg *q = &c->sq[c->sqh];

			if ((size_t)sent < q->len) {
				q->off += (size_t)sent;
				q->len -= (size_t)sent;
				break;
			}
			sent -= (ssize_t)q->len;
			c->sqh++;
			c->sqn--;
		}
	}
	c->sqh = 0;
	c->slen = 0;
	return 0;
}

/* Discard what the socket holds of the reply being cut, without copying it. */
static int skip_tail(struct bench_conn *c)
{
	ssize_t n;

	do
		n = recv(c->fd, c->rbuf, c->rskip, MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	if (n == 0)
		return -EPIPE;
	c->rskip -= (size_t)n;
	c->bytes_in += (uint64_t)n;
	return (int)n;
}

int bench_conn_fill(struct bench_conn *c)
{
	ssize_t n;
	int skipped = 0;

	if (c->rskip > 0) {
		skipped = skip_tail(c);
		if (skipped <= 0 || c->rskip > 0)
			return skipped;
	}
	if (c->roff == c->rlen)
		c->roff = c->rlen = 0;
	if (c->rcap - c->rlen < RBUF_ROOM && c->roff > 0) {
		memmove(c->rbuf, c->rbuf + c->roff, c->rlen - c->roff);
		c->rlen -= c->roff;
		c->roff = 0;
	}
	if (c->rcap == c->rlen)
		return -EPROTO;
	do
		n = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? skipped : -errno;
	if (n == 0)
		return -EPIPE;
	c->rlen += (size_t)n;
	c->bytes_in += (uint64_t)n;
	return skipped + (int)n;
}

/*
 * Find one whole record at rbuf[roff]: its payload length in *len, fragments joined in
 * place. 1 = found, 0 = incomplete, -EPROTO = too large.
 */
static int whole_record(struct bench_conn *c, uint32_t *len)
{
	uint8_t *base = c->rbuf + c->roff;
	size_t avail = c->rlen - c->roff, at = 0, payload = 0;
	uint32_t mark;

	if (c->rskip > 0)
		return 0; /* the reply being cut is not all in yet */
	if (c->rtrunc && avail >= 4 + c->rtrunc) {
		mark = xdr_get_u32(base);
		if ((mark & LAST_FRAG) && (mark & ~LAST_FRAG) <= MAX_RECORD &&
		    (mark & ~LAST_FRAG) > avail - 4) {
			/* keep the head, let the kernel drop the tail; the stream stays
			 * consistent once the mark says what is kept */
			c->rskip = (mark & ~LAST_FRAG) - (avail - 4);
			xdr_put_u32(base, LAST_FRAG | (uint32_t)(avail - 4));
			return 0;
		}
	}
	for (;;) {
		if (avail - at < 4)
			return 0;
		mark = xdr_get_u32(base + at);
		if ((mark & ~LAST_FRAG) > MAX_RECORD || payload + (mark & ~LAST_FRAG) > MAX_RECORD)
			return -EPROTO;
		if (avail - at - 4 < (mark & ~LAST_FRAG))
			return 0;
		at += 4 + (mark & ~LAST_FRAG);
		payload += mark & ~LAST_FRAG;
		if (mark & LAST_FRAG)
			break;
	}
	if (at != payload + 4) {
		/* several fragments: slide each payload back over the following marks */
		size_t rd = 0, wr = 4;

		for (;;) {
			mark = xdr_get_u32(base + rd);
			memmove(base + wr, base + rd + 4, mark & ~LAST_FRAG);
			wr += mark & ~LAST_FRAG;
			rd += 4 + (mark & ~LAST_FRAG);
			if (mark & LAST_FRAG)
				break;
		}
		/* keep the stream consistent: a fresh single-fragment mark, filler after it */
		xdr_put_u32(base, LAST_FRAG | (uint32_t)payload);
		memmove(base + wr, base + rd, avail - rd);
		c->rlen -= rd - wr;
	}
	*len = (uint32_t)payload;
	return 1;
}

int bench_conn_next_reply(struct bench_conn *c, struct bench_reply *r)
{
	uint32_t len, v, st;
	struct xdr_view verf;
	int rc = whole_record(c, &len);

	if (rc <= 0)
		return rc;
	xdr_cur_init(&r->res, c->rbuf + c->roff + 4, len);
	c->roff += 4 + len;
	if (!xdr_dec_u32(&r->res, &r->xid) || !xdr_dec_u32(&r->res, &v) || v != RPC_REPLY ||
	    !xdr_dec_u32(&r->res, &st))
		return -EPROTO;
	r->ok = false;
	if (st == RPC_MSG_DENIED) {
		if (!xdr_dec_u32(&r->res, &v))
			return -EPROTO;
		r->rpc_err = 100 + v;
		return 1;
	}
	if (st != RPC_MSG_ACCEPTED || !xdr_dec_u32(&r->res, &v) ||
	    !xdr_dec_opaque(&r->res, RPC_AUTH_MAXBYTES, &verf) || !xdr_dec_u32(&r->res, &v))
		return -EPROTO;
	r->rpc_err = v;
	r->ok = v == RPC_SUCCESS;
	return 1;
}

int bench_conn_call_sync(struct bench_conn *c, uint32_t proc, bench_enc_fn enc, const void *arg,
			 struct bench_reply *r, int timeout_ms)
{
	struct xdr_out o;
	uint32_t xid = bench_conn_call_begin(c, &o, proc);
	int64_t deadline = (int64_t)mono_ms() + timeout_ms;
	int rc;

	if ((enc && !enc(&o, arg)) || !bench_conn_call_end(c, &o))
		return -ENOSPC;
	for (;;) {
		struct pollfd pfd = {c->fd, POLLIN | (bench_conn_pending(c) ? POLLOUT : 0), 0};
		int64_t left = deadline - (int64_t)mono_ms();

		rc = bench_conn_flush(c);
		if (rc < 0)
			return rc;
		while ((rc = bench_conn_next_reply(c, r)) == 1)
			if (r->xid == xid)
				return 0;
		if (rc < 0)
			return rc;
		if (left <= 0)
			return -ETIMEDOUT;
		pfd.events = POLLIN | (bench_conn_pending(c) ? POLLOUT : 0);
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
		rc = bench_conn_fill(c);
		if (rc < 0)
			return rc;
	}
}

int bench_conn_call_run(struct bench_conn *c, uint32_t proc, bench_enc_fn enc, const void *arg,
			struct xdr_cur *res, int timeout_ms)
{
	struct bench_reply r;
	int rc = bench_conn_call_sync(c, proc, enc, arg, &r, timeout_ms);

	if (rc < 0)
		return rc;
	if (!r.ok)
		return -EPROTO;
	*res = r.res;
	return 0;
}
