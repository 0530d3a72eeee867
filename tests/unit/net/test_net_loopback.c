/*
 * test_net_loopback.c - the transport end to end on 127.0.0.1: pipelined TCP calls
 * (inline and blocking, replies out of order), a multi-fragment record, the
 * duplicate request cache across a reconnect, UDP datagrams, an oversized record
 * and a client vanishing mid-record; then a clean stop (ASan checks for leaks). And
 * the two blocking pools: with every thread of the sync pool held, a call of the read
 * pool is still answered. And connections are spread evenly over the event loops.
 * Replies of the blocking pool, which its threads write to the socket themselves: one
 * the socket cannot take whole is finished by the loop before any other reply, and a
 * connection paused with every pool slot taken resumes on their completions alone.
 * Pool threads run as SCHED_BATCH, event loops as SCHED_OTHER. A call whose handler,
 * run on a loop, finds it would block is run again in its pool and answered from there.
 * A call that announces a large reply waits, unstarted, while the memory budget lacks
 * room for it, and runs once a reply ahead of it is sent; a client that closes its
 * connection and reconnects still has what its running calls hold charged to it. A pool
 * thread runs the queued calls that gather with the one it takes as one group, and
 * their shared step once.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "net/net.h"
#include "net/net_int.h"
#include "rpc/rpc.h"
#include "unit/test.h"

#define W(v)  (uint8_t)((v) >> 24), (uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v)
#define TPROG 0x20000077u

static atomic_int creates;

static bool dec_u32(struct xdr_cur *c, void *args)
{
	return xdr_dec_u32(c, args);
}

static bool enc_u32(struct xdr_out *o, const void *res)
{
	return xdr_enc_u32(o, *(const uint32_t *)res);
}

static void run_echo(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	*(uint32_t *)res = *(const uint32_t *)args;
}

static void run_slow(struct rpc_req *req, const void *args, void *res)
{
	struct timespec ts = {0, 20 * 1000 * 1000};

	(void)req;
	nanosleep(&ts, NULL);
	*(uint32_t *)res = *(const uint32_t *)args;
}

static void run_create(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	*(uint32_t *)res =
		*(const uint32_t *)args + 1000 * (uint32_t)(atomic_fetch_add(&creates, 1) + 1);
}

/* HOLD says it started, then waits to be released: a call stuck on a flush. */
static sem_t hold_started, hold_release;

static void run_hold(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	sem_post(&hold_started);
	sem_wait(&hold_release);
	*(uint32_t *)res = *(const uint32_t *)args;
}

/* WHOAMI answers with the id of the thread that ran it: an inline call runs on its
 * connection's loop, so the answer names that loop. */
static void run_whoami(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	(void)args;
	*(uint32_t *)res = (uint32_t)gettid();
}

/* POLICY answers with the scheduling policy of the thread that ran it. */
static void run_policy(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	(void)args;
	*(uint32_t *)res = (uint32_t)sched_getscheduler(0);
}

/* RETRY, on a loop, says it would block (after writing a result that must not be
 * sent, and taking a buffer from its arena that notes its own address); in a pool, it
 * answers with its thread's scheduling policy, plus 1000 if the buffer it takes is not
 * the loop run's one, given back. */
static atomic_int retry_loop_runs;

static void run_retry(struct rpc_req *req, const void *args, void *res)
{
	void **buf = arena_alloc(&req->arena, 64);

	(void)args;
	if (!buf)
		return;
	if (!req->may_block) {
		atomic_fetch_add(&retry_loop_runs, 1);
		*buf = buf;
		*(uint32_t *)res = 0xdead;
		req->retry_blocking = true;
		return;
	}
	/* 0 + policy once cleared */
	*(uint32_t *)res += (uint32_t)sched_getscheduler(0) + (*buf == buf ? 0 : 1000);
}

/* HOLDBIG is HOLD announcing a 1 MiB reply (it sends 4 bytes). */
static uint32_t mib_reply(const void *args)
{
	(void)args;
	return 1u << 20;
}

/* BIG answers with BIG_LEN bytes: more than a socket's largest send buffer (4 MiB by
 * default), so that no single write of it can be whole. */
enum { BIG_LEN = 6 << 20, BIG_REC = 28 + BIG_LEN };
static uint8_t big_data[BIG_LEN];

static bool enc_big(struct xdr_out *o, const void *res)
{
	(void)res;
	return xdr_enc_opaque_ref(o, big_data, BIG_LEN);
}

/* GROUP calls gather when their arguments agree in the hundreds; the run leaves its
 * result for the group's end, which adds 1000 times the group's size to each. Run
 * other than in a group, a call answers its argument. */
static atomic_int group_ends;

static bool group_gathers(const void *args, const void *other)
{
	return *(const uint32_t *)args / 100 == *(const uint32_t *)other / 100;
}

static void run_group(struct rpc_req *req, const void *args, void *res)
{
	*(uint32_t *)res = *(const uint32_t *)args;
	if (req->gathered)
		req->gather_state = res;
}

static void group_end(struct rpc_req *const *reqs, unsigned n)
{
	atomic_fetch_add(&group_ends, 1);
	for (unsigned i = 0; i < n; i++) {
		*(uint32_t *)reqs[i]->gather_state += 1000 * n;
		reqs[i]->gather_state = NULL;
	}
}

static const struct rpc_proc tprocs[] = {
	[1] = {.name = "ECHO",
	       .decode = dec_u32,
	       .run = run_echo,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4},
	[2] = {.name = "SLOW",
	       .decode = dec_u32,
	       .run = run_slow,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4,
	       .blocking = true},
	[3] = {.name = "CREATE",
	       .decode = dec_u32,
	       .run = run_create,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4,
	       .drc = RPC_DRC_REPLY},
	[4] = {.name = "HOLD",
	       .decode = dec_u32,
	       .run = run_hold,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4,
	       .blocking = true},
	[5] = {.name = "LIST",
	       .decode = dec_u32,
	       .run = run_echo,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4,
	       .blocking = true,
	       .pool = RPC_POOL_READ},
	[6] = {.name = "WHOAMI",
	       .decode = dec_u32,
	       .run = run_whoami,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4},
	[7] = {.name = "BIG",
	       .decode = dec_u32,
	       .run = run_echo,
	       .encode = enc_big,
	       .args_size = 4,
	       .res_size = 4,
	       .blocking = true},
	[8] = {.name = "POLICY",
	       .decode = dec_u32,
	       .run = run_policy,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4},
	[9] = {.name = "POLICY_SYNC",
	       .decode = dec_u32,
	       .run = run_policy,
	       .encode = enc_u32,
	       .args_size = 4,
	       .res_size = 4,
	       .blocking = true},
	[10] = {.name = "POLICY_READ",
		.decode = dec_u32,
		.run = run_policy,
		.encode = enc_u32,
		.args_size = 4,
		.res_size = 4,
		.blocking = true,
		.pool = RPC_POOL_READ},
	[11] = {.name = "RETRY",
		.decode = dec_u32,
		.run = run_retry,
		.encode = enc_u32,
		.args_size = 4,
		.res_size = 4,
		.pool = RPC_POOL_READ},
	[12] = {.name = "HOLDBIG",
		.decode = dec_u32,
		.run = run_hold,
		.encode = enc_u32,
		.args_size = 4,
		.res_size = 4,
		.blocking = true,
		.pool = RPC_POOL_READ,
		.reply_size = mib_reply},
	[13] = {.name = "GROUP",
		.decode = dec_u32,
		.run = run_group,
		.encode = enc_u32,
		.args_size = 4,
		.res_size = 4,
		.blocking = true,
		.gathers = group_gathers,
		.gather_end = group_end},
};
static const struct rpc_version tvers[] = {{.vers = 1, .nprocs = 14, .procs = tprocs}};
static const struct rpc_program tprog = {.name = "t", .prog = TPROG, .nvers = 1, .versions = tvers};

/* A call message (no record mark): 44 bytes. */
static size_t mkcall(uint8_t *b, uint32_t xid, uint32_t proc, uint32_t arg)
{
	const uint8_t c[] = {W(xid), W(0), W(2), W(TPROG), W(1),  W(proc),
			     W(0),   W(0), W(0), W(0),	   W(arg)};

	memcpy(b, c, sizeof(c));
	return sizeof(c);
}

static int64_t now_ms(void)
{
	return (int64_t)mono_ms();
}

/* Receive exactly @n bytes before the deadline; false on timeout or EOF. */
static bool recv_all(int fd, uint8_t *b, size_t n, int64_t deadline)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		r = recv(fd, b + got, n - got, 0);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* A connection to the server from 127.0.0.@host (another client address for each). */
static int tcp_connect_from(uint16_t port, uint8_t host)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_in src = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	src.sin_addr.s_addr = htonl(0x7f000000u | host);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tcp_connect(uint16_t port)
{
	return tcp_connect_from(port, 1);
}

/* Read one reply record: returns xid and the result word, false on a bad reply. */
static bool read_reply(int fd, uint32_t *xid, uint32_t *res, int64_t deadline)
{
	uint8_t b[64];
	uint32_t mark;

	if (!recv_all(fd, b, 4, deadline))
		return false;
	mark = xdr_get_u32(b);
	if (mark != (0x80000000u | 28))
		return false;
	if (!recv_all(fd, b, 28, deadline))
		return false;
	*xid = xdr_get_u32(b);
	*res = xdr_get_u32(b + 24);
	return xdr_get_u32(b + 4) == 1 && xdr_get_u32(b + 8) == 0 && xdr_get_u32(b + 20) == 0;
}

static void tcp_pipelined(uint16_t port)
{
	enum { N = 200 };
	static uint8_t buf[N * 48];
	bool seen[N] = {false};
	size_t len = 0;
	int64_t deadline = now_ms() + 10000;
	int fd = tcp_connect(port), ok = 0;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (uint32_t i = 0; i < N; i++) {
		size_t n = mkcall(buf + len + 4, i, i % 10 == 0 ? 2 : 1, i * 7);

		xdr_put_u32(buf + len, 0x80000000u | (uint32_t)n);
		len += 4 + n;
	}
	CHECK_EQ(send(fd, buf, len, 0), (ssize_t)len);
	for (int i = 0; i < N; i++) {
		uint32_t xid, res;

		if (!read_reply(fd, &xid, &res, deadline) || xid >= N || seen[xid] ||
		    res != xid * 7)
			break;
		seen[xid] = true;
		ok++;
	}
	CHECK_EQ(ok, N);
	close(fd);
}

static void tcp_multi_fragment_and_drc(uint16_t port)
{
	uint8_t call[64], buf[128];
	int64_t deadline = now_ms() + 5000;
	uint32_t xid = 0, res = 0, first;
	size_t n = mkcall(call, 4242, 3, 5);
	int fd = tcp_connect(port);

	/* The call in three fragments: 10, 0 and n - 10 bytes. */
	xdr_put_u32(buf, 10);
	memcpy(buf + 4, call, 10);
	xdr_put_u32(buf + 14, 0);
	xdr_put_u32(buf + 18, 0x80000000u | (uint32_t)(n - 10));
	memcpy(buf + 22, call + 10, n - 10);
	CHECK_EQ(send(fd, buf, 22 + n - 10, 0), (ssize_t)(22 + n - 10));
	CHECK(read_reply(fd, &xid, &res, deadline));
	CHECK_EQ(xid, 4242);
	first = res;
	CHECK_EQ(first, 1005);
	close(fd);
	/* A retransmission on a new connection gets the cached reply, not a second run. */
	fd = tcp_connect(port);
	xdr_put_u32(buf, 0x80000000u | (uint32_t)n);
	memcpy(buf + 4, call, n);
	CHECK_EQ(send(fd, buf, 4 + n, 0), (ssize_t)(4 + n));
	CHECK(read_reply(fd, &xid, &res, deadline));
	CHECK_EQ(xid, 4242);
	CHECK_EQ(res, first);
	CHECK_EQ(atomic_load(&creates), 1);
	close(fd);
}

static void udp_calls(uint16_t port)
{
	enum { N = 32 };
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ok = 0;
	int64_t deadline = now_ms() + 5000;
	bool seen[N] = {false};
	uint8_t b[64];

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (uint32_t i = 0; i < N; i++) {
		size_t n = mkcall(b, 100 + i, i % 8 == 0 ? 2 : 1, i);

		CHECK_EQ(sendto(fd, b, n, 0, (struct sockaddr *)&sin, sizeof(sin)), (ssize_t)n);
	}
	while (ok < N) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		r = recv(fd, b, sizeof(b), 0);
		if (r != 28)
			break;
		uint32_t xid = xdr_get_u32(b) - 100;
		if (xid >= N || seen[xid] || xdr_get_u32(b + 24) != xid)
			break;
		seen[xid] = true;
		ok++;
	}
	CHECK_EQ(ok, N);
	close(fd);
}

static void tcp_bad_clients(uint16_t port)
{
	uint8_t b[64];
	int64_t deadline = now_ms() + 5000;
	int fd = tcp_connect(port);

	/* A record over 1 MiB + 64 KiB: the server closes the connection. */
	xdr_put_u32(b, 0x80000000u | (2u << 20));
	CHECK_EQ(send(fd, b, 4, 0), 4);
	{
		struct pollfd p = {.fd = fd, .events = POLLIN};

		CHECK(poll(&p, 1, (int)(deadline - now_ms())) == 1);
		CHECK(recv(fd, b, sizeof(b), 0) <= 0);
	}
	close(fd);
	/* A client that goes away mid-record, and one that never reads its replies. */
	fd = tcp_connect(port);
	xdr_put_u32(b, 0x80000000u | 44);
	mkcall(b + 4, 1, 1, 1);
	CHECK_EQ(send(fd, b, 20, 0), 20);
	close(fd);
	fd = tcp_connect(port);
	for (int i = 0; i < 50; i++) {
		size_t n = mkcall(b + 4, (uint32_t)i, 2, 1);

		xdr_put_u32(b, 0x80000000u | (uint32_t)n);
		send(fd, b, n + 4, 0);
	}
	close(fd);
}

/* A started server of the test program on 127.0.0.1 with @o, its TCP port in @port. */
static struct net_server *start_tcp(const struct net_opts *o, uint16_t *port)
{
	struct net_server *s = NULL;

	if (!rpc_program_find(TPROG))
		CHECK_EQ(rpc_register(&tprog), 0);
	*port = 0;
	CHECK_EQ(net_server_new(o, &s), 0);
	CHECK_EQ(net_server_listen(s, IPPROTO_TCP, "127.0.0.1", 0, port), 0);
	CHECK_EQ(net_server_start(s), 0);
	return s;
}

static void stop(struct net_server *s)
{
	net_server_stop(s, 2000);
	net_server_free(s);
}

static void test_loopback(void)
{
	struct net_opts o = {.threads = 2, .blocking_threads = 4, .max_connections = 64};
	struct net_server *s;
	uint16_t tport = 0, uport = 0;

	if (!rpc_program_find(TPROG))
		CHECK_EQ(rpc_register(&tprog), 0);
	CHECK_EQ(net_server_new(&o, &s), 0);
	CHECK_EQ(net_server_listen(s, IPPROTO_TCP, "127.0.0.1", 0, &tport), 0);
	CHECK_EQ(net_server_listen(s, IPPROTO_UDP, "127.0.0.1", 0, &uport), 0);
	CHECK(tport != 0 && uport != 0);
	CHECK_EQ(net_server_listen(s, IPPROTO_TCP, "127.0.0.1", tport, NULL), -EADDRINUSE);
	CHECK_EQ(net_server_listen(s, IPPROTO_UDP, "127.0.0.1", uport, NULL), -EADDRINUSE);
	CHECK_EQ(net_server_start(s), 0);
	tcp_pipelined(tport);
	tcp_multi_fragment_and_drc(tport);
	udp_calls(uport);
	tcp_bad_clients(tport);
	tcp_pipelined(tport);
	stop(s);
}

/* A call (XID and argument @arg) as one record at @b (64 bytes room); its length. */
static size_t frame_call(uint8_t *b, uint32_t proc, uint32_t arg)
{
	size_t n = mkcall(b + 4, arg, proc, arg);

	xdr_put_u32(b, 0x80000000u | (uint32_t)n);
	return n + 4;
}

/* Send one call of @proc with @arg (its xid is @arg) on @fd. */
static void send_call(int fd, uint32_t proc, uint32_t arg)
{
	uint8_t b[64];
	size_t n = frame_call(b, proc, arg);

	CHECK_EQ(send(fd, b, n, 0), (ssize_t)n);
}

static bool started_within(int64_t deadline)
{
	struct timespec ts = {deadline / 1000, (deadline % 1000) * 1000000};

	return sem_clockwait(&hold_started, CLOCK_MONOTONIC, &ts) == 0;
}

static void test_reads_pass_held_flushes(void)
{
	enum { THREADS = 2 };
	struct net_opts o = {.threads = 1, .blocking_threads = THREADS};
	struct net_server *s;
	uint32_t xid, res;
	uint16_t port = 0;
	int held, reader;

	sem_init(&hold_started, 0, 0);
	sem_init(&hold_release, 0, 0);
	s = start_tcp(&o, &port);
	held = tcp_connect(port);
	reader = tcp_connect(port);
	CHECK(held >= 0 && reader >= 0);
	/* Every thread of the sync pool busy, as under a storm of fsyncs. */
	for (uint32_t i = 0; i < THREADS; i++) {
		send_call(held, 4, 10 + i);
		CHECK(started_within(now_ms() + 5000));
	}
	send_call(reader, 5, 77);
	CHECK(read_reply(reader, &xid, &res, now_ms() + 5000));
	CHECK_EQ(xid, 77);
	CHECK_EQ(res, 77);
	for (int i = 0; i < THREADS; i++)
		sem_post(&hold_release);
	for (int i = 0; i < THREADS; i++) {
		CHECK(read_reply(held, &xid, &res, now_ms() + 5000));
		CHECK(xid == res && (xid == 10 || xid == 11));
	}
	close(held);
	close(reader);
	stop(s);
	sem_destroy(&hold_started);
	sem_destroy(&hold_release);
}

/* The loop (its thread id) that serves connection @fd. */
static uint32_t loop_of(int fd, uint32_t tag)
{
	uint32_t xid = 0, res = 0;

	send_call(fd, 6, tag);
	CHECK(read_reply(fd, &xid, &res, now_ms() + 5000));
	CHECK_EQ(xid, tag);
	return res;
}

/*
 * Connections are spread evenly over the loops whatever the kernel's SO_REUSEPORT
 * hash picks, and a loop whose connections closed gets the next ones. Each connection
 * is served once before the next one connects, so every placement knows of the ones
 * before it.
 */
static void test_connections_spread_over_loops(void)
{
	enum { LOOPS = 2, PER = 4, N = LOOPS * PER };
	struct net_opts o = {.threads = LOOPS, .blocking_threads = 1};
	struct timespec ms = {0, 1000000};
	struct net_counters c;
	struct net_server *s;
	uint32_t tid[N], first;
	int fd[N], same = 0;
	uint16_t port = 0;
	int64_t deadline;

	s = start_tcp(&o, &port);
	for (int i = 0; i < N; i++) {
		fd[i] = tcp_connect(port);
		CHECK(fd[i] >= 0);
		tid[i] = loop_of(fd[i], 100 + (uint32_t)i);
	}
	first = tid[0];
	for (int i = 0; i < N; i++)
		same += tid[i] == first;
	CHECK_EQ(same, PER);
	/* Empty the first loop: it gets every new connection until it is even again. */
	for (int i = 0; i < N; i++)
		if (tid[i] == first) {
			close(fd[i]);
			fd[i] = -1;
		}
	deadline = now_ms() + 5000;
	for (net_server_counters(s, &c); c.connections != N - PER && now_ms() < deadline;
	     net_server_counters(s, &c))
		nanosleep(&ms, NULL); /* polling for the server to see the closes */
	CHECK_EQ(c.connections, N - PER);
	for (int i = 0; i < N; i++) {
		if (fd[i] >= 0)
			continue;
		fd[i] = tcp_connect(port);
		CHECK(fd[i] >= 0);
		CHECK_EQ(loop_of(fd[i], 200 + (uint32_t)i), first);
	}
	for (int i = 0; i < N; i++)
		close(fd[i]);
	stop(s);
}

/* Read one reply record of either shape (ECHO's or BIG's) into @b: its xid and, for an
 * ECHO reply, the result word; false on anything else. */
static bool read_any(int fd, uint8_t *b, uint32_t *xid, uint32_t *res, bool *big, int64_t deadline)
{
	uint32_t len;

	if (!recv_all(fd, b, 4, deadline))
		return false;
	len = xdr_get_u32(b) & 0x7fffffffu;
	if (!(xdr_get_u32(b) & 0x80000000u) || (len != 28 && len != BIG_REC) ||
	    !recv_all(fd, b, len, deadline))
		return false;
	*xid = xdr_get_u32(b);
	*big = len == BIG_REC;
	*res = xdr_get_u32(b + 24);
	if (xdr_get_u32(b + 4) != 1 || xdr_get_u32(b + 8) != 0 || xdr_get_u32(b + 20) != 0)
		return false;
	return !*big || (*res == BIG_LEN && memcmp(b + 28, big_data, BIG_LEN) == 0);
}

static int tcp_connect_small_rcvbuf(uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), rcv = 4096;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Pool threads write BIG replies themselves; none fits the socket, so each is left
 * half-written for the loop, and the ECHO replies and the other BIGs queued meanwhile
 * must follow it whole: any interleaving breaks a record. Then a client that asks for
 * BIGs and goes away: the server carries on (and ASan sees nothing leak).
 */
static void test_pool_replies_whole_and_in_records(void)
{
	static const uint32_t procs[] = {7, 1, 7, 1, 7};
	static uint8_t rec[BIG_REC];
	struct net_opts o = {.threads = 1, .blocking_threads = 4};
	bool seen[6] = {false}, big;
	struct net_server *s;
	uint32_t xid, res;
	uint16_t port = 0;
	int fd, gone;

	for (size_t i = 0; i < BIG_LEN; i++)
		big_data[i] = (uint8_t)(i % 251);
	s = start_tcp(&o, &port);
	fd = tcp_connect_small_rcvbuf(port);
	CHECK(fd >= 0);
	for (uint32_t i = 0; i < 5; i++)
		send_call(fd, procs[i], i + 1);
	for (int i = 0; i < 5; i++) {
		if (!read_any(fd, rec, &xid, &res, &big, now_ms() + 20000) || xid < 1 || xid > 5 ||
		    seen[xid] || big != (procs[xid - 1] == 7) || (!big && res != xid))
			break;
		seen[xid] = true;
	}
	for (int i = 1; i <= 5; i++)
		CHECK(seen[i]);
	gone = tcp_connect_small_rcvbuf(port);
	CHECK(gone >= 0);
	send_call(gone, 7, 7);
	send_call(gone, 7, 8);
	close(gone);
	send_call(fd, 1, 9);
	CHECK(read_any(fd, rec, &xid, &res, &big, now_ms() + 5000));
	CHECK(xid == 9 && res == 9 && !big);
	close(fd);
	stop(s);
}

/*
 * With NET_MAX_BLOCKING calls held in the pool the connection stops reading, an ECHO
 * behind them unread. Their replies go out from the pool threads, but only the loop
 * can resume the connection: it must be woken for them, since nothing else will (a
 * loop with no record in progress sleeps until an event).
 */
static void test_paused_connection_resumes_on_completions(void)
{
	struct net_opts o = {.threads = 1, .blocking_threads = NET_MAX_BLOCKING};
	bool seen[NET_MAX_BLOCKING + 1] = {false};
	struct net_server *s;
	uint32_t xid, res;
	uint16_t port = 0;
	int fd, got = 0;

	sem_init(&hold_started, 0, 0);
	sem_init(&hold_release, 0, 0);
	s = start_tcp(&o, &port);
	fd = tcp_connect(port);
	CHECK(fd >= 0);
	for (uint32_t i = 0; i < NET_MAX_BLOCKING; i++)
		send_call(fd, 4, i);
	send_call(fd, 1, NET_MAX_BLOCKING);
	for (int i = 0; i < NET_MAX_BLOCKING; i++)
		CHECK(started_within(now_ms() + 5000));
	for (int i = 0; i < NET_MAX_BLOCKING; i++)
		sem_post(&hold_release);
	for (int i = 0; i <= NET_MAX_BLOCKING; i++) {
		if (!read_reply(fd, &xid, &res, now_ms() + 5000) || xid > NET_MAX_BLOCKING ||
		    seen[xid] || res != xid)
			break;
		seen[xid] = true;
		got++;
	}
	CHECK_EQ(got, NET_MAX_BLOCKING + 1);
	close(fd);
	stop(s);
	sem_destroy(&hold_started);
	sem_destroy(&hold_release);
}

static void *try_fifo(void *arg)
{
	struct sched_param sp = {.sched_priority = 1};

	*(bool *)arg = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	return NULL;
}

/* Whether this process may make a thread SCHED_FIFO (root, or CAP_SYS_NICE). */
static bool fifo_allowed(void)
{
	bool ok = false;
	pthread_t t;

	if (pthread_create(&t, NULL, try_fifo, &ok))
		return false;
	pthread_join(t, NULL);
	return ok;
}

/* The pools' threads are batch threads, so that their wake-ups do not preempt a loop;
 * a loop is real-time (net_prio.c) where the system allows it and the server asks for
 * it, as by default, so that its wake-ups preempt at once, else an ordinary thread. */
static void test_pool_threads_are_batch(void)
{
	for (int run = 0; run < 2; run++) {
		struct net_opts o = {.threads = 1,
				     .blocking_threads = 2,
				     .loop_priority = run ? NET_PRIO_NONE : 0};
		int loop_policy = !run && fifo_allowed() ? SCHED_FIFO : SCHED_OTHER;
		struct net_server *s;
		uint16_t port = 0;
		int fd;

		s = start_tcp(&o, &port);
		fd = tcp_connect(port);
		CHECK(fd >= 0);
		for (uint32_t i = 0; i < 4; i++) {
			uint32_t xid = 0, res = 99;

			send_call(fd, 8 + i % 3, 500 + i);
			CHECK(read_reply(fd, &xid, &res, now_ms() + 5000));
			CHECK_EQ(xid, 500 + i);
			CHECK_EQ(res, i % 3 == 0 ? loop_policy : SCHED_BATCH);
		}
		close(fd);
		stop(s);
	}
}

/* A handler that would block on the loop runs once there, then again in its pool, whose
 * result alone is sent (the loop run's is cleared, and its arena allocations released). */
static void test_retry_in_pool(void)
{
	struct net_opts o = {.threads = 1, .blocking_threads = 2};
	struct net_server *s;
	uint16_t port = 0;
	int fd;

	atomic_store(&retry_loop_runs, 0);
	s = start_tcp(&o, &port);
	fd = tcp_connect(port);
	CHECK(fd >= 0);
	for (uint32_t i = 0; i < 4; i++) {
		uint32_t xid = 0, res = 99;

		send_call(fd, 11, 700 + i);
		CHECK(read_reply(fd, &xid, &res, now_ms() + 5000));
		CHECK_EQ(xid, 700 + i);
		CHECK_EQ(res, SCHED_BATCH);
	}
	CHECK_EQ(atomic_load(&retry_loop_runs), 4);
	close(fd);
	stop(s);
}

static uint64_t mem_waits_of(const struct net_counters *c)
{
	return c->mem_waits;
}

static uint64_t open_connections_of(const struct net_counters *c)
{
	return c->connections;
}

/* Wait (up to 5 s) until the counter @get reads from @s is @n; what it reads then. */
static uint64_t counter_reach(struct net_server *s, uint64_t (*get)(const struct net_counters *),
			      uint64_t n)
{
	int64_t deadline = now_ms() + 5000;
	struct net_counters cnt;

	do {
		sched_yield();
		net_server_counters(s, &cnt);
	} while (get(&cnt) != n && now_ms() < deadline);
	return get(&cnt);
}

/* Wait until @s has counted @n waits for call memory; that count. */
static uint64_t mem_waits_reach(struct net_server *s, uint64_t n)
{
	return counter_reach(s, mem_waits_of, n);
}

/* Index of the first of @n descriptors with something to read (-1: none before
 * @deadline). */
static int first_readable(const int *fds, int n, int64_t deadline)
{
	struct pollfd p[4];

	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	for (;;) {
		int64_t left = deadline - now_ms();
		int r = poll(p, (nfds_t)n, left > 0 ? (int)left : 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		for (int i = 0; i < n; i++)
			if (p[i].revents)
				return i;
	}
}

/*
 * The budget (2 MiB) has room for two 1 MiB replies, a client address's share (a
 * quarter, but at least a large record's worth) for one. Client A's second call waits
 * unstarted (counted as a wait for memory), and does not hold up client B, whose call
 * runs; client C's then waits for the budget, while a small call is served. From then
 * on each release answers one running call, whichever it is; the answer lets a waiting
 * call run if that call now fits: A's second once A's first is answered, C's whenever
 * the budget has room, and of two that fit the one that waited longer (A's). One that
 * does not fit must not begin. All four are answered.
 */
static void test_large_reply_waits_for_budget(void)
{
	struct net_opts o = {.threads = 1, .blocking_threads = 4, .max_call_mib = 2};
	struct net_server *s;
	uint32_t xid, res, seen = 0, waiting[2] = {21, 23};
	uint16_t port = 0;
	int fd[3], other, started = 0, nwaiting = 2, nrunning = 2;

	sem_init(&hold_started, 0, 0);
	sem_init(&hold_release, 0, 0);
	s = start_tcp(&o, &port);
	for (uint8_t i = 0; i < 3; i++)
		fd[i] = tcp_connect_from(port, 1 + i); /* clients A, B and C */
	other = tcp_connect(port);
	CHECK(fd[0] >= 0 && fd[1] >= 0 && fd[2] >= 0 && other >= 0);
	send_call(fd[0], 12, 20);
	send_call(fd[0], 12, 21);
	CHECK(started_within(now_ms() + 5000));
	CHECK_EQ(mem_waits_reach(s, 1), 1); /* A's second: over A's share */
	send_call(fd[1], 12, 22);
	CHECK(started_within(now_ms() + 5000)); /* B's, past A's waiting one */
	send_call(fd[2], 12, 23);
	CHECK_EQ(mem_waits_reach(s, 2), 2); /* C's: the budget is spent */
	send_call(other, 1, 5);
	CHECK(read_reply(other, &xid, &res, now_ms() + 5000));
	CHECK_EQ(res, 5);
	sem_getvalue(&hold_started, &started);
	CHECK_EQ(started, 0); /* neither waiting call has begun */
	while (nrunning > 0) {
		int k, next = -1;

		sem_post(&hold_release);
		k = first_readable(fd, 3, now_ms() + 5000);
		CHECK(k >= 0);
		if (k < 0 || !read_reply(fd[k], &xid, &res, now_ms() + 5000))
			break;
		CHECK_EQ(xid, res);
		CHECK(xid >= 20 && xid <= 23 && !(seen & 1u << (xid - 20)));
		seen |= 1u << (xid - 20);
		nrunning--;
		for (int i = 0; i < nwaiting && next < 0; i++)
			if (waiting[i] != 21 || (seen & 1u)) /* 21 fits once 20 is answered */
				next = i;
		if (next >= 0) {
			CHECK(started_within(now_ms() + 5000)); /* the one that now fits */
			nrunning++;
			waiting[next] = waiting[--nwaiting];
		} else if (nwaiting) {
			/* A's second still over A's share: a small call's answer shows the
			 * loop has handled the release, and it must not have begun. */
			send_call(other, 1, 6);
			CHECK(read_reply(other, &xid, &res, now_ms() + 5000));
			CHECK_EQ(res, 6);
			sem_getvalue(&hold_started, &started);
			CHECK_EQ(started, 0);
		}
	}
	CHECK_EQ(seen, 15);
	for (int k = 0; k < 3; k++)
		close(fd[k]);
	close(other);
	stop(s);
	sem_destroy(&hold_started);
	sem_destroy(&hold_release);
}

/* Connections of @s counted against its limits (false: not @n within 5 s). */
static bool counted_connections_reach(struct net_server *s, unsigned n)
{
	int64_t deadline = now_ms() + 5000;

	while (atomic_load(&s->nconns) != n && now_ms() < deadline)
		sched_yield();
	return atomic_load(&s->nconns) == n;
}

/*
 * A client that closes its connection while its call still runs in a pool, and opens
 * another, finds that call's memory still charged to its address: its next large call
 * waits (one HOLDBIG is all of an address's share here), while another address's runs.
 * Once the closed connection's call is done, the client's runs, and nothing stays
 * counted. (Before, the address left the table when its last connection closed, and
 * the new connection started a fresh account: a client could take the whole budget by
 * reconnecting.)
 */
static void test_closed_connection_keeps_its_share(void)
{
	struct net_opts o = {.threads = 1, .blocking_threads = 4, .max_call_mib = 4};
	struct net_server *s;
	uint32_t xid, res;
	uint16_t port = 0;
	int fd, again, other, started = 0;

	sem_init(&hold_started, 0, 0);
	sem_init(&hold_release, 0, 0);
	s = start_tcp(&o, &port);
	fd = tcp_connect_from(port, 1);
	CHECK(fd >= 0);
	send_call(fd, 12, 30);
	CHECK(started_within(now_ms() + 5000)); /* running, 1 MiB of the address's share */
	close(fd);
	CHECK_EQ(counter_reach(s, open_connections_of, 0), 0);
	CHECK(counted_connections_reach(s, 1)); /* its call still runs */
	again = tcp_connect_from(port, 1);
	other = tcp_connect_from(port, 2);
	CHECK(again >= 0 && other >= 0);
	send_call(again, 12, 31);
	CHECK_EQ(mem_waits_reach(s, 1), 1); /* over the share the closed call holds */
	send_call(other, 12, 32);
	CHECK(started_within(now_ms() + 5000)); /* another address: the budget has room */
	sem_getvalue(&hold_started, &started);
	CHECK_EQ(started, 0); /* the reconnected client's call has not begun */
	sem_post(&hold_release);
	sem_post(&hold_release); /* the closed connection's call and the other's */
	CHECK(started_within(now_ms() + 5000));
	sem_post(&hold_release);
	CHECK(read_reply(again, &xid, &res, now_ms() + 5000));
	CHECK_EQ(xid, 31);
	CHECK(read_reply(other, &xid, &res, now_ms() + 5000));
	CHECK_EQ(xid, 32);
	CHECK(counted_connections_reach(s, 2));
	close(again);
	close(other);
	CHECK(counted_connections_reach(s, 0));
	stop(s);
	sem_destroy(&hold_started);
	sem_destroy(&hold_release);
}

/* Calls queued in pool @p of @s. */
static unsigned queued(struct net_server *s, enum rpc_pool p)
{
	struct net_pool *pool = &s->pools[p];
	unsigned n = 0;

	pthread_mutex_lock(&pool->lock);
	for (struct net_req *r = pool->head; r; r = r->next)
		n++;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

/* With the only sync-pool thread held, GROUP calls 101, 102, 201 and 103 queue; once
 * released, the thread runs 101, 102 and 103 as one group (each result plus 3000), then
 * 201 as a group of one (plus 1000): two group ends. */
static void test_pool_runs_groups(void)
{
	struct net_opts o = {.threads = 1, .blocking_threads = 1};
	const uint32_t args[] = {101, 102, 201, 103};
	struct net_counters cnt;
	struct net_server *s;
	uint32_t xid, res, seen = 0;
	uint16_t port = 0;
	int64_t deadline;
	int fd;

	sem_init(&hold_started, 0, 0);
	sem_init(&hold_release, 0, 0);
	atomic_store(&group_ends, 0);
	s = start_tcp(&o, &port);
	fd = tcp_connect(port);
	CHECK(fd >= 0);
	send_call(fd, 4, 1);
	CHECK(started_within(now_ms() + 5000));
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		send_call(fd, 13, args[i]);
	deadline = now_ms() + 5000;
	while (queued(s, RPC_POOL_SYNC) < 4 && now_ms() < deadline)
		sched_yield();
	CHECK_EQ(queued(s, RPC_POOL_SYNC), 4);
	sem_post(&hold_release);
	CHECK(read_reply(fd, &xid, &res, now_ms() + 5000));
	CHECK(xid == 1 && res == 1);
	for (int i = 0; i < 4; i++) {
		CHECK(read_reply(fd, &xid, &res, now_ms() + 5000));
		CHECK_EQ(res, xid + (xid == 201 ? 1000 : 3000));
		seen |= xid == 201 ? 16u : 1u << (xid - 100);
	}
	CHECK_EQ(seen, 30u); /* 101, 102, 103 (bits 1-3) and 201 (bit 4) */
	CHECK_EQ(atomic_load(&group_ends), 2);
	net_server_counters(s, &cnt);
	CHECK_EQ(cnt.grouped, 2);
	close(fd);
	stop(s);
	sem_destroy(&hold_started);
	sem_destroy(&hold_release);
}

/* The state letter of this process's thread @tid (R, S, D...), or 0. */
static char thread_state(const char *tid)
{
	char path[300], buf[512];
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name, in parentheses, may hold anything */
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * How many of this process's threads named @prefix... sleep in a futex: a pool thread
 * that waits for work (sem_wait). One that is still starting (slow under the
 * sanitizers) would look at the queue without being woken, and could take a call
 * before the calls read with it are queued. A kernel that hides where a thread sleeps
 * ("0") is taken at the thread's state: sleeping.
 */
static int threads_in_futex(const char *prefix)
{
	char path[300], buf[256];
	struct dirent *e;
	int n = 0;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		FILE *f;
		bool named, asleep = false;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		named = f && fgets(buf, sizeof(buf), f) && !strncmp(buf, prefix, strlen(prefix));
		if (f)
			fclose(f);
		if (!named)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/wchan", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f))
			asleep = strstr(buf, "futex") != NULL ||
				 (!strcmp(buf, "0") && thread_state(e->d_name) == 'S');
		if (f)
			fclose(f);
		n += asleep;
	}
	closedir(d);
	return n;
}

/* Whether @n threads named @prefix... sleep in a futex before @deadline. */
static bool threads_asleep(const char *prefix, int n, int64_t deadline)
{
	while (threads_in_futex(prefix) < n) {
		if (now_ms() >= deadline)
			return false;
		sched_yield();
	}
	return true;
}

/* GROUP calls 101, 102 and 103 sent in one segment are read in one go, queued together
 * and run as one group (each result plus 3000) by one of the two sync-pool threads,
 * woken once for them: the two that joined the first's group ask for no thread of
 * their own, so the other thread sleeps on and no wake-up finds the queue empty (a
 * wake-up a call would wake both, and one would find nothing). Both threads are asleep
 * before the calls are sent, as on a server that has been idle. */
static void test_pool_wakes_once_per_group(void)
{
	struct net_opts o = {.threads = 1, .blocking_threads = 2};
	struct net_counters cnt;
	struct net_server *s;
	uint8_t b[3 * 64];
	uint32_t xid, res, seen = 0;
	uint16_t port = 0;
	size_t len = 0;
	int fd;

	atomic_store(&group_ends, 0);
	s = start_tcp(&o, &port);
	CHECK(threads_asleep("shoal-sync", 2, now_ms() + 5000));
	fd = tcp_connect(port);
	CHECK(fd >= 0);
	for (uint32_t arg = 101; arg <= 103; arg++)
		len += frame_call(b + len, 13, arg);
	CHECK_EQ(send(fd, b, len, 0), (ssize_t)len);
	for (int i = 0; i < 3; i++) {
		CHECK(read_reply(fd, &xid, &res, now_ms() + 5000));
		CHECK_EQ(res, xid + 3000);
		seen |= 1u << (xid - 100);
	}
	CHECK_EQ(seen, 14u);
	CHECK_EQ(atomic_load(&group_ends), 1);
	net_server_counters(s, &cnt);
	CHECK_EQ(cnt.grouped, 2);
	CHECK_EQ(cnt.empty_wakes, 0);
	close(fd);
	stop(s);
}

static void test_listen_errors_and_unstarted_free(void)
{
	struct net_opts o = {.threads = 1};
	struct net_server *s;
	uint16_t p;

	CHECK_EQ(net_server_new(&o, &s), 0);
	CHECK_EQ(net_server_listen(s, IPPROTO_TCP, "not-an-address", 0, &p), -EINVAL);
	CHECK_EQ(net_server_listen(s, IPPROTO_TCP, NULL, 0, &p), 0);
	net_server_free(s);
}

TESTS(test_loopback, test_listen_errors_and_unstarted_free, test_reads_pass_held_flushes,
      test_connections_spread_over_loops, test_pool_replies_whole_and_in_records,
      test_paused_connection_resumes_on_completions, test_pool_threads_are_batch,
      test_retry_in_pool, test_large_reply_waits_for_budget, test_closed_connection_keeps_its_share,
      test_pool_runs_groups, test_pool_wakes_once_per_group);
