/*
 * portmap_client.c - register our programs with a system portmapper/rpcbind.
 *
 * Used when port 111 already belongs to rpcbind: instead of serving portmap ourselves
 * we send it PMAPPROC_SET / PMAPPROC_UNSET (version 2, which rpcbind still accepts
 * from the loopback interface) over UDP, as the classic pmap_set() did.
 */
#include "portmap/portmap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PMAP_CLIENT_TRIES   3
#define PMAP_CLIENT_WAIT_MS 500 /* per try */

static uint32_t new_xid(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec << 20 ^ (uint32_t)getpid() << 8;
}

/* Encode the call: RFC 5531 header with AUTH_NONE, then a mapping. */
static bool enc_call(struct xdr_out *o, uint32_t xid, uint32_t proc, const struct pmap_mapping *m)
{
	return xdr_enc_u32(o, xid) && xdr_enc_u32(o, RPC_CALL) && xdr_enc_u32(o, RPC_VERSION) &&
	       xdr_enc_u32(o, PMAP_PROGRAM) && xdr_enc_u32(o, PMAP_VERSION) &&
	       xdr_enc_u32(o, proc) && xdr_enc_u32(o, RPC_AUTH_NONE) && xdr_enc_u32(o, 0) &&
	       xdr_enc_u32(o, RPC_AUTH_NONE) && xdr_enc_u32(o, 0) && pmap_enc_mapping(o, m);
}

int pmap_dec_set_reply(const uint8_t *buf, size_t len, uint32_t xid, bool *ok)
{
	uint32_t v, st;
	struct xdr_cur c;
	struct xdr_view verf;

	xdr_cur_init(&c, buf, len);
	if (!xdr_dec_u32(&c, &v) || v != xid)
		return 0;
	if (!xdr_dec_u32(&c, &v) || v != RPC_REPLY || !xdr_dec_u32(&c, &st) ||
	    st != RPC_MSG_ACCEPTED)
		return -EPROTO;
	if (!xdr_dec_u32(&c, &v) || !xdr_dec_opaque(&c, RPC_AUTH_MAXBYTES, &verf) ||
	    !xdr_dec_u32(&c, &st) || st != RPC_SUCCESS || !xdr_dec_bool(&c, ok))
		return -EPROTO;
	return 1;
}

int pmap_register_at(const struct sockaddr_in *server, uint32_t prog, uint32_t vers, uint32_t prot,
		     uint16_t port, bool set)
{
	struct pmap_mapping m = {prog, vers, prot, port};
	uint8_t call[128], reply[512];
	uint32_t xid = new_xid();
	struct xdr_out o;
	bool ok = false;
	int fd, rc = -ETIMEDOUT;

	xdr_out_init(&o, call, sizeof(call));
	if (!enc_call(&o, xid, set ? PMAPPROC_SET : PMAPPROC_UNSET, &m))
		return -ENOSPC;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* connected, so that an ICMP "port unreachable" comes back as ECONNREFUSED */
	if (connect(fd, (const struct sockaddr *)server, sizeof(*server)) < 0) {
		rc = -errno;
		goto out;
	}
	for (int try = 0; try < PMAP_CLIENT_TRIES && rc == -ETIMEDOUT; try++) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		if (send(fd, call, o.len, 0) < 0) {
			rc = errno == ECONNREFUSED ? -ECONNREFUSED : -errno;
			break;
		}
		while (rc == -ETIMEDOUT) {
			ssize_t n;
			int r = poll(&pfd, 1, PMAP_CLIENT_WAIT_MS);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break; /* timed out: send again */
			n = recv(fd, reply, sizeof(reply), 0);
			if (n < 0) {
				rc = -errno;
				break;
			}
			r = pmap_dec_set_reply(reply, (size_t)n, xid, &ok);
			if (r < 0)
				rc = r;
			else if (r > 0)
				rc = ok ? 0 : (set ? -EEXIST : -ENOENT);
		}
	}
out:
	close(fd);
	return rc;
}

int pmap_register_with_rpcbind(uint32_t prog, uint32_t vers, uint32_t prot, uint16_t port, bool set)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(PMAP_PORT)};

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return pmap_register_at(&sin, prog, vers, prot, port, set);
}
