/*
 * test_portmap.c - unit tests for src/portmap/: the codec, the registry and its
 * procedures (served through rpc_process_buffer), and the rpcbind client against a
 * private portmapper on a loopback UDP port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <poll.h>
#include <unistd.h>

#include "portmap/portmap.h"
#include "unit/test.h"

static struct sockaddr_in loopback = {.sin_family = AF_INET};
static struct sockaddr_in remote = {.sin_family = AF_INET};

static void setup_addrs(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	loopback.sin_port = htons(700);
	inet_pton(AF_INET, "127.0.0.1", &loopback.sin_addr);
	remote.sin_port = htons(700);
	inet_pton(AF_INET, "192.0.2.10", &remote.sin_addr);
	CHECK_EQ(rpc_register(&portmap_program), 0);
}

/* Serve one portmap call from @peer; returns the accept_stat, results at *res. */
static int call(const struct sockaddr_in *peer, uint32_t proc, const struct pmap_mapping *m,
		uint8_t *reply, size_t cap, struct xdr_cur *res)
{
	uint8_t buf[256];
	struct xdr_out o;
	uint32_t v, st;
	long n;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_u32(&o, 0x1234) && xdr_enc_u32(&o, RPC_CALL) && xdr_enc_u32(&o, 2) &&
	      xdr_enc_u32(&o, PMAP_PROGRAM) && xdr_enc_u32(&o, PMAP_VERSION) &&
	      xdr_enc_u32(&o, proc) && xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0) &&
	      xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0));
	if (m)
		CHECK(pmap_enc_mapping(&o, m));
	n = rpc_process_buffer(buf, o.len, (const struct sockaddr *)peer, sizeof(*peer), reply,
			       cap);
	CHECK(n > 0);
	if (n <= 0)
		return -1;
	xdr_cur_init(res, reply, (size_t)n);
	CHECK(xdr_dec_u32(res, &v) && v == 0x1234);
	CHECK(xdr_dec_u32(res, &v) && v == RPC_REPLY);
	CHECK(xdr_dec_u32(res, &v) && v == RPC_MSG_ACCEPTED);
	CHECK(xdr_dec_u32(res, &v) && xdr_dec_u32(res, &v) && v == 0); /* AUTH_NONE verf */
	if (!xdr_dec_u32(res, &st))
		return -1;
	return (int)st;
}

/* SET/UNSET/GETPORT from @peer; returns the u32/bool result, or -1. */
static long call_u32(const struct sockaddr_in *peer, uint32_t proc, uint32_t prog, uint32_t vers,
		     uint32_t prot, uint32_t port)
{
	struct pmap_mapping m = {prog, vers, prot, port};
	uint8_t reply[256];
	struct xdr_cur c;
	uint32_t v;

	if (call(peer, proc, &m, reply, sizeof(reply), &c) != RPC_SUCCESS)
		return -1;
	if (!xdr_dec_u32(&c, &v))
		return -1;
	CHECK_EQ(xdr_cur_left(&c), 0);
	return v;
}

static void test_mapping_codec(void)
{
	struct pmap_mapping m = {100005, 3, PMAP_IPPROTO_UDP, 20048}, d;
	static const uint8_t golden[16] = {0, 1, 0x86, 0xa5, 0, 0, 0,	 3,
					   0, 0, 0,    17,   0, 0, 0x4e, 0x50};
	uint8_t buf[16];
	struct xdr_out o;
	struct xdr_cur c;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(pmap_enc_mapping(&o, &m));
	CHECK_EQ(o.len, 16);
	CHECK_MEM(buf, golden, 16);
	xdr_cur_init(&c, buf, 16);
	CHECK(pmap_dec_mapping(&c, &d));
	CHECK(memcmp(&m, &d, sizeof(m)) == 0);
	for (size_t cut = 0; cut < 16; cut++) {
		xdr_cur_init(&c, buf, cut);
		CHECK(!pmap_dec_mapping(&c, &d));
	}
	xdr_out_init(&o, buf, 15);
	CHECK(!pmap_enc_mapping(&o, &m));
}

static void test_dump_codec(void)
{
	struct pmap_mapping maps[3] = {
		{100000, 2, 6, 111}, {100003, 3, 17, 2049}, {100005, 3, 6, 20048}};
	struct pmap_dump_res res = {3, maps}, back;
	uint8_t buf[128];
	struct xdr_out o;
	struct xdr_cur c;
	struct arena a;

	arena_init(&a, 1024);
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(pmap_enc_dump_res(&o, &res));
	CHECK_EQ(o.len, 3 * 20 + 4);
	xdr_cur_init(&c, buf, o.len);
	CHECK(pmap_dec_dump_res(&c, &a, &back));
	CHECK_EQ(back.n, 3);
	CHECK(memcmp(back.maps, maps, sizeof(maps)) == 0);
	for (size_t cut = 0; cut < o.len; cut++) {
		xdr_cur_init(&c, buf, cut);
		CHECK(!pmap_dec_dump_res(&c, &a, &back));
	}
	buf[3] = 2; /* "more" must be a valid bool */
	xdr_cur_init(&c, buf, o.len);
	CHECK(!pmap_dec_dump_res(&c, &a, &back));
	xdr_out_init(&o, buf, 63);
	CHECK(!pmap_enc_dump_res(&o, &res));
	arena_fini(&a);
}

static void test_registry_procs(void)
{
	uint8_t reply[1024];
	struct pmap_dump_res d;
	struct xdr_cur c;
	struct arena a;
	bool saw_nfs = false;

	setup_addrs();
	pmap_registry_clear();
	pmap_registry_set(PMAP_PROGRAM, 2, PMAP_IPPROTO_TCP, 111);
	pmap_registry_set(PMAP_PROGRAM, 2, PMAP_IPPROTO_UDP, 111);
	pmap_registry_set(100003, 3, PMAP_IPPROTO_TCP, 2049);
	pmap_registry_set(100003, 3, PMAP_IPPROTO_TCP, 2050); /* replaces */
	CHECK_EQ(pmap_registry_getport(100003, 3, PMAP_IPPROTO_TCP), 2050);
	pmap_registry_set(100003, 3, PMAP_IPPROTO_TCP, 2049);
	CHECK_EQ(call_u32(&loopback, PMAPPROC_GETPORT, 100003, 3, PMAP_IPPROTO_TCP, 0), 2049);
	CHECK_EQ(call_u32(&remote, PMAPPROC_GETPORT, 100003, 3, PMAP_IPPROTO_UDP, 0), 0);
	CHECK_EQ(call_u32(&remote, PMAPPROC_GETPORT, 100003, 2, PMAP_IPPROTO_TCP, 0), 0);

	/* SET: only from loopback, and only for an unmapped triple (RFC 1833) */
	CHECK_EQ(call_u32(&remote, PMAPPROC_SET, 100005, 3, PMAP_IPPROTO_UDP, 999), 0);
	CHECK_EQ(pmap_registry_getport(100005, 3, PMAP_IPPROTO_UDP), 0);
	CHECK_EQ(call_u32(&loopback, PMAPPROC_SET, 100005, 3, PMAP_IPPROTO_UDP, 20048), 1);
	CHECK_EQ(call_u32(&loopback, PMAPPROC_SET, 100005, 3, PMAP_IPPROTO_TCP, 20048), 1);
	CHECK_EQ(call_u32(&loopback, PMAPPROC_SET, 100005, 3, PMAP_IPPROTO_UDP, 1), 0);
	CHECK_EQ(call_u32(&remote, PMAPPROC_GETPORT, 100005, 3, PMAP_IPPROTO_UDP, 0), 20048);

	/* DUMP lists everything, parsed back with the client decoder */
	arena_init(&a, 4096);
	CHECK_EQ(call(&remote, PMAPPROC_DUMP, NULL, reply, sizeof(reply), &c), RPC_SUCCESS);
	CHECK(pmap_dec_dump_res(&c, &a, &d));
	CHECK_EQ(d.n, 5);
	for (size_t i = 0; i < d.n; i++)
		saw_nfs = saw_nfs || (d.maps[i].prog == 100003 && d.maps[i].port == 2049);
	CHECK(saw_nfs);
	arena_fini(&a);

	/* UNSET: only from loopback; removes (prog, vers) for every protocol */
	CHECK_EQ(call_u32(&remote, PMAPPROC_UNSET, 100005, 3, 0, 0), 0);
	CHECK_EQ(pmap_registry_getport(100005, 3, PMAP_IPPROTO_TCP), 20048);
	CHECK_EQ(call_u32(&loopback, PMAPPROC_UNSET, 100005, 3, 0, 0), 1);
	CHECK_EQ(pmap_registry_getport(100005, 3, PMAP_IPPROTO_TCP), 0);
	CHECK_EQ(pmap_registry_getport(100005, 3, PMAP_IPPROTO_UDP), 0);
	CHECK_EQ(call_u32(&loopback, PMAPPROC_UNSET, 100005, 3, 0, 0), 0);

	/* v4-mapped loopback counts as loopback */
	{
		struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(1)};
		struct pmap_mapping m = {7, 1, 6, 7};
		uint8_t buf[128];
		struct xdr_out o;
		long n;

		inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
		xdr_out_init(&o, buf, sizeof(buf));
		CHECK(xdr_enc_u32(&o, 9) && xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 2) &&
		      xdr_enc_u32(&o, PMAP_PROGRAM) && xdr_enc_u32(&o, 2) &&
		      xdr_enc_u32(&o, PMAPPROC_SET) && xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0) &&
		      xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0) && pmap_enc_mapping(&o, &m));
		n = rpc_process_buffer(buf, o.len, (struct sockaddr *)&s6, sizeof(s6), reply,
				       sizeof(reply));
		CHECK_EQ(n, 28);
		CHECK_EQ(pmap_registry_getport(7, 1, 6), 7);
	}
	pmap_registry_clear();
}

static void test_callit_unavailable_and_garbage(void)
{
	uint8_t reply[256];
	struct xdr_cur c;

	setup_addrs();
	CHECK_EQ(call(&remote, PMAPPROC_CALLIT, NULL, reply, sizeof(reply), &c), RPC_PROC_UNAVAIL);
	CHECK_EQ(call(&remote, PMAPPROC_GETPORT, NULL, reply, sizeof(reply), &c), RPC_GARBAGE_ARGS);
}

/* ---- the rpcbind client against a private portmapper thread ---- */

struct fake_pmap {
	int fd;
	unsigned answered;
	unsigned drop_first; /* ignore this many requests, to exercise retries */
};

static void *fake_pmap_thread(void *arg)
{
	struct fake_pmap *f = arg;
	uint8_t buf[512], reply[512];
	struct pollfd pfd = {.fd = f->fd, .events = POLLIN};

	while (poll(&pfd, 1, 3000) > 0) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(f->fd, buf, sizeof(buf), 0, (struct sockaddr *)&peer, &plen);
		long r;

		if (n <= 0)
			break;
		if (f->drop_first) {
			f->drop_first--;
			continue;
		}
		r = rpc_process_buffer(buf, (size_t)n, (struct sockaddr *)&peer, plen, reply,
				       sizeof(reply));
		if (r > 0)
			sendto(f->fd, reply, (size_t)r, 0, (struct sockaddr *)&peer, plen);
		if (++f->answered == 3)
			break;
	}
	return NULL;
}

static void test_register_client(void)
{
	struct sockaddr_in srv = {.sin_family = AF_INET};
	struct fake_pmap f = {.drop_first = 1};
	socklen_t len = sizeof(srv);
	pthread_t th;
	int fd;

	setup_addrs();
	pmap_registry_clear();
	srv.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	f.fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(f.fd >= 0);
	CHECK_EQ(bind(f.fd, (struct sockaddr *)&srv, sizeof(srv)), 0);
	CHECK_EQ(getsockname(f.fd, (struct sockaddr *)&srv, &len), 0);
	CHECK_EQ(pthread_create(&th, NULL, fake_pmap_thread, &f), 0);

	CHECK_EQ(pmap_register_at(&srv, 100005, 3, PMAP_IPPROTO_TCP, 20048, true), 0);
	CHECK_EQ(pmap_registry_getport(100005, 3, PMAP_IPPROTO_TCP), 20048);
	CHECK_EQ(pmap_register_at(&srv, 100005, 3, PMAP_IPPROTO_TCP, 20049, true), -EEXIST);
	CHECK_EQ(pmap_register_at(&srv, 100005, 3, PMAP_IPPROTO_TCP, 0, false), 0);
	CHECK_EQ(pmap_registry_getport(100005, 3, PMAP_IPPROTO_TCP), 0);
	pthread_join(th, NULL);
	close(f.fd);

	/* nobody listening: refused (ICMP) rather than a long wait */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	srv.sin_port = 0;
	CHECK_EQ(bind(fd, (struct sockaddr *)&srv, sizeof(srv)), 0);
	len = sizeof(srv);
	CHECK_EQ(getsockname(fd, (struct sockaddr *)&srv, &len), 0);
	close(fd);
	{
		int rc = pmap_register_at(&srv, 100005, 3, PMAP_IPPROTO_TCP, 1, true);

		CHECK(rc == -ECONNREFUSED || rc == -ETIMEDOUT);
	}
}

TESTS(test_mapping_codec, test_dump_codec, test_registry_procs, test_callit_unavailable_and_garbage,
      test_register_client);
