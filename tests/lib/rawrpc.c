/*
 * rawrpc.c - sockets, record marking with deadlines, call headers and reply summaries
 * for the test tools that write ONC RPC by hand (rawrpc.h).
 */
#include "lib/rawrpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

long rr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int rr_connect(const char *host, int type, int port)
{
	return rr_connect_from(host, NULL, type, port);
}

int rr_connect_from(const char *host, const char *src, int type, int port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
	struct sockaddr_in src4 = {.sin_family = AF_INET};
	struct sockaddr_in6 src6 = {.sin6_family = AF_INET6};
	bool v6 = inet_pton(AF_INET, host, &sin.sin_addr) != 1;
	int fd, e;

	if ((v6 && inet_pton(AF_INET6, host, &sin6.sin6_addr) != 1) ||
	    (src && inet_pton(v6 ? AF_INET6 : AF_INET, src,
			      v6 ? (void *)&src6.sin6_addr : (void *)&src4.sin_addr) != 1)) {
		errno = EINVAL;
		return -1;
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if ((src && (v6 ? bind(fd, (struct sockaddr *)&src6, sizeof(src6))
			: bind(fd, (struct sockaddr *)&src4, sizeof(src4))) < 0) ||
	    (v6 ? connect(fd, (struct sockaddr *)&sin6, sizeof(sin6))
		: connect(fd, (struct sockaddr *)&sin, sizeof(sin))) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

bool rr_send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

bool rr_wait_readable(int fd, long deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	long left;

	while ((left = deadline - rr_now_ms()) > 0) {
		int n = poll(&p, 1, (int)left);

		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
	return false;
}

/* Read exactly @len bytes; 0 ok, 1 closed, -1 deadline. */
static int recv_all(int fd, uint8_t *p, size_t len, long deadline)
{
	while (len) {
		ssize_t n;

		if (!rr_wait_readable(fd, deadline))
			return -1;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return 1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rr_recv_record(int fd, uint8_t *buf, size_t cap, size_t *len, long deadline)
{
	bool last = false;
	uint8_t mark[4];
	uint32_t flen;
	int rc;

	*len = 0;
	while (!last) {
		rc = recv_all(fd, mark, 4, deadline);
		if (rc)
			return rc;
		flen = xdr_get_u32(mark) & 0x7fffffffu;
		last = mark[0] & 0x80;
		if (flen > cap - *len)
			return -2;
		rc = recv_all(fd, buf + *len, flen, deadline);
		if (rc)
			return rc;
		*len += flen;
	}
	return 0;
}

bool rr_parse_reply(const uint8_t *buf, size_t len, struct rr_reply *r)
{
	struct xdr_cur c;
	uint32_t mtype, flavor;
	struct xdr_view v;

	xdr_cur_init(&c, buf, len);
	r->code = r->lo = r->hi = r->auth = r->nfsstat = 0;
	if (!xdr_dec_u32(&c, &r->xid) || !xdr_dec_u32(&c, &mtype) || mtype != 1 ||
	    !xdr_dec_u32(&c, &r->stat))
		return false;
	if (r->stat == 1) { /* MSG_DENIED: RPC_MISMATCH with its range, or AUTH_ERROR */
		if (!xdr_dec_u32(&c, &r->code))
			return false;
		if (r->code == 0)
			return xdr_dec_u32(&c, &r->lo) && xdr_dec_u32(&c, &r->hi);
		return xdr_dec_u32(&c, &r->auth);
	}
	if (r->stat != 0 || !xdr_dec_u32(&c, &flavor) || !xdr_dec_opaque(&c, 400, &v) ||
	    !xdr_dec_u32(&c, &r->code))
		return false;
	if (r->code == 2) /* PROG_MISMATCH */
		return xdr_dec_u32(&c, &r->lo) && xdr_dec_u32(&c, &r->hi);
	if (r->code == 0 && xdr_cur_left(&c) >= 4)
		xdr_dec_u32(&c, &r->nfsstat);
	r->res = c;
	return true;
}

void rr_call_header(struct xdr_out *o, uint32_t xid, uint32_t rpcvers, uint32_t prog, uint32_t vers,
		    uint32_t proc, uint32_t flavor)
{
	xdr_enc_u32(o, xid);
	xdr_enc_u32(o, 0); /* CALL */
	xdr_enc_u32(o, rpcvers);
	xdr_enc_u32(o, prog);
	xdr_enc_u32(o, vers);
	xdr_enc_u32(o, proc);
	xdr_enc_u32(o, flavor);
	if (flavor == 1) {
		uint8_t body[64];
		struct xdr_out b;

		xdr_out_init(&b, body, sizeof(body));
		xdr_enc_u32(&b, 1);		      /* stamp */
		xdr_enc_opaque(&b, "shoal-test", 10); /* machine name */
		xdr_enc_u32(&b, 0);		      /* uid */
		xdr_enc_u32(&b, 0);		      /* gid */
		xdr_enc_u32(&b, 0);		      /* no extra gids */
		xdr_enc_opaque(o, body, (uint32_t)b.len);
	} else if (flavor == 0) {
		xdr_enc_u32(o, 0);
	} else {
		xdr_enc_opaque(o, "\0\0\0\0\0\0\0\0", 8);
	}
	xdr_enc_u32(o, 0); /* verifier AUTH_NONE */
	xdr_enc_u32(o, 0);
}
