/*
 * fuzz_bench_replies.c - fuzz what shoal-bench reads from the server it measures, which
 * may be any NFSv3 server: the reply stream (record marks, fragments joined in place,
 * long replies cut: tools/bench/client_conn.c) and the NFSv3 result decoders of the
 * client side (src/nfs3/nfs3_xdr_client.c). The MOUNT and portmap result decoders are
 * fuzzed by mount_args and portmap_args.
 *
 * Input: byte 0 picks the result decoder run on every accepted reply; byte 1, when not
 * 0, cuts replies longer than 32 + 8 x its low 7 bits (bench_conn.rtrunc, as for READ
 * data); byte 2 sets the size of the pieces the stream arrives in (1 + byte 2 below 16,
 * else 16 x byte 2: small pieces cost a round trip each);
 * the rest is the byte stream a server sent. It is sent over a loopback TCP connection
 * (as shoal-bench reads it: a cut reply's tail is dropped in the kernel by recv with
 * MSG_TRUNC, which only TCP does) in those pieces, each followed by bench_conn_fill()
 * and every bench_conn_next_reply() there is until one says the stream is not RPC
 * replies; then the end of the stream. A decoder's views must point into the reply.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "fuzz/fuzz.h"
#include "nfs3/nfs3_client.h"

/* Run decoder @sel on reply @r; abort if it accepts and leaves a view outside it. */
static void decode(uint8_t sel, const struct bench_reply *r)
{
	struct xdr_cur c = r->res;
	const uint8_t *lo = r->res.p, *hi = r->res.end;
	union {
		struct nfs3_post_op_attr pa;
		struct nfs3_wcc_data wcc;
		struct nfs3_lookup_res lookup;
		struct nfs3_diropres dirop;
		struct nfs3_read_res read;
		struct nfs3_write_res write;
		struct nfs3_wccstat_res wccstat;
		struct nfs3_fsinfo_res fsinfo;
	} u;

	memset(&u, 0, sizeof(u));
	switch (sel % 8) {
	case 0:
		nfs3_dec_post_op_attr(&c, &u.pa);
		break;
	case 1:
		nfs3_dec_wcc_data(&c, &u.wcc);
		break;
	case 2:
		nfs3_dec_lookup_res(&c, &u.lookup);
		break;
	case 3:
		nfs3_dec_diropres(&c, &u.dirop);
		break;
	case 4:
		if (nfs3_dec_read_res(&c, &u.read) && u.read.status == NFS3_OK &&
		    (u.read.data.data < lo || u.read.data.len > (size_t)(hi - u.read.data.data)))
			abort();
		break;
	case 5:
		nfs3_dec_write_res(&c, &u.write);
		break;
	case 6:
		nfs3_dec_wccstat_res(&c, &u.wccstat);
		break;
	default:
		nfs3_dec_fsinfo_res(&c, &u.fsinfo);
		break;
	}
	if (c.p < lo || c.p > hi)
		abort();
}

/* Take every whole reply the buffer holds; false once the stream is not RPC replies. */
static bool drain(struct bench_conn *c, uint8_t sel)
{
	struct bench_reply r;
	int rc;

	while ((rc = bench_conn_next_reply(c, &r)) == 1) {
		if (r.ok)
			decode(sel, &r);
	}
	return rc == 0;
}

static int listen_fd = -1;
static struct sockaddr_in listen_addr;

/* A listening socket on loopback for every input's connection; none is a setup error
 * (a run that fuzzed nothing must not pass). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	socklen_t len = sizeof(listen_addr);

	(void)argc;
	(void)argv;
	listen_addr.sin_family = AF_INET;
	listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&listen_addr, len) != 0 ||
	    listen(listen_fd, 4) != 0 ||
	    getsockname(listen_fd, (struct sockaddr *)&listen_addr, &len) != 0) {
		perror("fuzz_bench_replies: a listening socket on 127.0.0.1");
		abort();
	}
	return 0;
}

/*
 * connect() to the listener. libFuzzer's -timeout alarm can interrupt it (EINTR) while
 * the handshake waits, and the handshake then goes on in the kernel: wait for its end
 * on this socket rather than connect again, which would leave the first connection in
 * the listener's queue to be paired with the next input.
 */
static int connect_listener(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	socklen_t len = sizeof(int);
	int err = 0, rc;

	if (connect(fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) == 0)
		return 0;
	if (errno != EINTR)
		return -1;
	while ((rc = poll(&p, 1, -1)) < 0 && errno == EINTR)
		;
	if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		return -1;
	errno = err;
	return err ? -1 : 0;
}

/* A connected pair over loopback: *@bench reads, *@server writes. */
static void connect_pair(int *bench, int *server)
{
	int one = 1;

	*bench = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*bench < 0 || connect_listener(*bench) != 0) {
		perror("fuzz_bench_replies: a loopback connection");
		abort();
	}
	while ((*server = accept(listen_fd, NULL, NULL)) < 0 && errno == EINTR)
		;
	if (*server < 0) {
		perror("fuzz_bench_replies: accepting a loopback connection");
		abort();
	}
	setsockopt(*server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Close with a reset: tens of thousands of inputs a minute must not leave as many
 * connections in TIME_WAIT. */
static void close_reset(int fd)
{
	struct linger lg = {.l_onoff = 1, .l_linger = 0};

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Wait (up to a second, again if a signal cuts it short) until @fd has bytes or its end
 * to read. */
static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int rc;

	while ((rc = poll(&p, 1, 1000)) < 0 && errno == EINTR)
		;
	return rc > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_conn c;
	size_t piece, off = 3;
	int sv[2], rc;

	if (size < 3)
		return 0;
	connect_pair(&sv[0], &sv[1]);
	if (bench_conn_adopt(&c, sv[0], 100003, 3) != 0) {
		close(sv[1]);
		return 0;
	}
	c.rtrunc = data[1] ? 32 + 8 * (size_t)(data[1] & 0x7f) : 0;
	piece = data[2] < 16 ? 1 + (size_t)data[2] : 16 * (size_t)data[2];
	while (off < size) {
		size_t n = size - off < piece ? size - off : piece;

		if (write(sv[1], data + off, n) != (ssize_t)n)
			break;
		off += n;
		rc = readable(sv[0]) ? bench_conn_fill(&c) : 0;
		if (rc < 0 || !drain(&c, data[0]))
			goto out;
	}
	shutdown(sv[1], SHUT_WR);
	while (readable(sv[0]) && (rc = bench_conn_fill(&c)) >= 0 && drain(&c, data[0]))
		;
	drain(&c, data[0]);
out:
	close_reset(sv[1]);
	bench_conn_close(&c);
	return 0;
}
