/*
 * hostile.c - hostile clients against a running shoal-server (issue #5): truncated and
 * oversized records, fragments that never end, record marks that lie, garbage after a
 * valid header, thousands of idle connections (from many loopback addresses), one
 * address past its connection limit, clients that never read their replies, clients
 * that vanish mid-request. Each case is a function.
 *
 *   hostile [-s] [-a] [-t THREADS] [-m MIB [-r S]] HOST EXPORT-PATH SERVER-PID
 *
 * -m MIB says the server runs with --max-call-memory MIB and -r S with --record-timeout
 * S (default 60): then only the cases of that server-wide budget run (memory-cap,
 * address-share, no-read-reads, record-timeout). -i S says it runs with --idle-timeout
 * S: then only idle-timeout runs.
 * -s runs the long (soak) forms; -a says the server runs under ASan (quarantine 16 MiB),
 * whose shadow and quarantine memory are then added to the bound. THREADS is the server's --threads
 * (for the bound). While the cases run, a well-behaved probe client issues NULL and GETATTR calls
 * on its own connection and checks that each is answered within PROBE_DEADLINE_MS (a generous
 * deadline, not a timing claim), and a sampler reads VmRSS from /proc/PID/status.
 *
 * Memory bound: the peak RSS must stay below
 *     base + fixed + THREADS * loop_cost + max over cases of case_cost
 * where base is the RSS measured before the first attack, fixed the duplicate request
 * cache's byte cap plus slack, loop_cost what an event loop keeps for reuse (pooled
 * requests and large receive buffers) and case_cost the sum over the case's connections
 * of what the transport lets one connection hold (see conn_cost() and friends, derived
 * from src/net/net_int.h). Output: "ok CASE ..." or "FAIL CASE: expected X got Y", then
 * the summary lines "hostile: M cases, server up" and "peak RSS under load: X MiB".
 * Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT. Exit status 1 if anything failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hardening/hclient.h"
#include "lib/check.h"
#include "net/net_int.h"

#define PROBE_DEADLINE_MS 2000
#define PROBE_PERIOD_MS	  20
#define MIB		  (1024.0 * 1024.0)
#define DRC_BYTES	  (32u << 20) /* NET_DRC_BYTES in src/net/net.c */
#define SLACK_BYTES	  (24u << 20) /* allocator and thread-stack overhead */
#define BIG		  (1024 * 1024)
#define ASAN_SLACK_MIB	  64
#define CONN_LIMIT	  4096u /* NET_DEF_MAXCONN in src/net/net.c */
#define CLIENT_LIMIT	  512u	/* NET_DEF_MAXPEER in src/net/net.c */
/* The mass-connection cases spread their connections over this many loopback source
 * addresses (127.0.1.x), below the limit per client each. */
#define SPREAD_ADDRS 50u

static pid_t srv_pid;
static unsigned threads = 2;
static bool soak, asan;
static struct hc_fh root_fh, big_fh;
static int ncases;
static const char *_Atomic cur_case = "start";

static atomic_long peak_rss_kib, case_peak_kib, cur_rss_kib;
static atomic_bool stop_bg, srv_dead;
static atomic_long probe_calls, probe_late, probe_max_ms;
static char probe_err[256];

/* ---- reporting ---- */

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- the memory bound, from the transport's own sizes ---- */

static size_t pages(size_t n)
{
	return (n + 16 + 4095) & ~(size_t)4095;
}

/* An open connection with nothing in progress: its struct and receive buffer. */
static size_t conn_cost(void)
{
	return pages(sizeof(struct net_conn));
}

/* One pooled request: the struct (inline call and reply buffers) and its first arena chunk. */
static size_t req_cost(void)
{
	return pages(sizeof(struct net_req)) + pages(64 * 1024);
}

/* A connection in the middle of a record: one request and one record-sized buffer. */
static size_t partial_cost(void)
{
	return conn_cost() + req_cost() + NET_MAX_RECORD;
}

/*
 * A connection that never reads: NET_MAX_INFLIGHT requests, NET_MAX_QUEUED bytes of
 * queued replies, plus what the calls in the blocking pool (at most NET_MAX_BLOCKING per
 * connection) and the record being received may add: each at most one record.
 */
static size_t hostile_cost(void)
{
	return conn_cost() + NET_MAX_INFLIGHT * req_cost() + NET_MAX_QUEUED +
	       (NET_MAX_BLOCKING + 1) * (size_t)NET_MAX_RECORD;
}

/* What each event loop keeps for reuse after a burst. */
static size_t loop_cost(void)
{
	return NET_POOL_KEEP * req_cost() + NET_BIG_KEEP * (size_t)NET_MAX_RECORD;
}

static long base_kib;
static size_t worst_case_bytes;

/* The case about to run holds @b bytes at most. */
static void case_budget_bytes(size_t b)
{
	if (b > worst_case_bytes)
		worst_case_bytes = b;
}

/* The case about to run holds this much at most (sum over its connections). */
static void case_budget(unsigned idle, unsigned partial, unsigned hostile)
{
	case_budget_bytes(idle * conn_cost() + partial * partial_cost() + hostile * hostile_cost());
}

static double bound_mib(void)
{
	double b = base_kib * 1024.0 + DRC_BYTES + SLACK_BYTES + threads * (double)loop_cost() +
		   (double)worst_case_bytes;

	/* ASan: one shadow byte per 8, its 16 MiB quarantine, and its own bookkeeping. */
	return (asan ? b * 1.125 + (16 + ASAN_SLACK_MIB) * MIB : b) / MIB;
}

/* ---- background: RSS sampler and probe client ---- */

static long read_status(const char *key, bool *zombie)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)srv_pid);
	f = fopen(path, "r");
	if (!f) {
		*zombie = true;
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "State:", 6) && strchr(line, 'Z'))
			*zombie = true;
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	}
	fclose(f);
	return v;
}

static void *sampler_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_bg)) {
		bool dead = false;
		long rss = read_status("VmRSS:", &dead);

		if (dead) {
			atomic_store(&srv_dead, true);
			break;
		}
		atomic_store(&cur_rss_kib, rss);
		if (rss > atomic_load(&peak_rss_kib))
			atomic_store(&peak_rss_kib, rss);
		if (rss > atomic_load(&case_peak_kib))
			atomic_store(&case_peak_kib, rss);
		sleep_ms(10);
	}
	return NULL;
}

/* The well-behaved client: NULL and GETATTR, each answered within the deadline. */
static void *probe_main(void *arg)
{
	int fd = -1, st;
	bool getattr = false;

	(void)arg;
	while (!atomic_load(&stop_bg)) {
		long t0, dt;

		if (fd < 0)
			fd = hc_connect_nfs();
		t0 = rr_now_ms();
		st = fd < 0 ? -1 : getattr ? hc_getattr(fd, &root_fh) : hc_null(fd);
		dt = rr_now_ms() - t0;
		atomic_fetch_add(&probe_calls, 1);
		if (dt > atomic_load(&probe_max_ms))
			atomic_store(&probe_max_ms, dt);
		if (st != 0 || dt > PROBE_DEADLINE_MS) {
			atomic_fetch_add(&probe_late, 1);
			snprintf(probe_err, sizeof(probe_err),
				 "during %s: %s answered %s after %ld ms", cur_case,
				 getattr ? "GETATTR" : "NULL", st == 0 ? "NFS3_OK" : "nothing", dt);
			if (fd >= 0)
				close(fd);
			fd = -1;
		}
		getattr = !getattr;
		sleep_ms(PROBE_PERIOD_MS);
	}
	if (fd >= 0)
		close(fd);
	hc_thread_done();
	return NULL;
}

/* ---- socket helpers ---- */

static int conn_nb(void)
{
	int fd = hc_connect_nfs();

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* Close with a TCP reset instead of a FIN. */
static void close_rst(int fd)
{
	struct linger lg = {.l_onoff = 1, .l_linger = 0};

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Drain @fd until the peer closes it (true) or the deadline passes (false). */
static bool wait_closed(int fd, long ms)
{
	long deadline = rr_now_ms() + ms;
	uint8_t junk[65536];

	while (rr_wait_readable(fd, deadline)) {
		ssize_t n = recv(fd, junk, sizeof(junk), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return true;
	}
	return false;
}

/* Send (non-blocking) as much of @buf as the peer takes; false once it closed or stalls. */
static bool send_some(int fd, const void *buf, size_t len, long stall_ms)
{
	const uint8_t *p = buf;
	struct pollfd pf = {.fd = fd, .events = POLLOUT};

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (poll(&pf, 1, (int)stall_ms) <= 0)
			return false;
	}
	return true;
}

/* One call on a fresh connection must be answered: the server still serves. */
static bool fresh_null(const char *name)
{
	int fd = hc_connect_nfs(), st = fd < 0 ? -1 : hc_null(fd);

	if (fd >= 0)
		close(fd);
	if (st != 0)
		check_fail(name, "expected NULL on a new connection to be answered got %s",
			   fd < 0 ? strerror(errno) : "no reply");
	return st == 0;
}

/* fresh_null from source address @src (NULL: any), tried again for up to @ms: the
 * server frees the slots of closed connections as it sees them go, not at once. */
static bool fresh_null_from_within(const char *name, const char *src, long ms)
{
	long deadline = rr_now_ms() + ms;
	int fd, st;

	do {
		fd = hc_connect_nfs_from(src);
		st = fd < 0 ? -1 : hc_null(fd);
		if (fd >= 0)
			close(fd);
	} while (st != 0 && rr_now_ms() < deadline);
	if (st != 0)
		check_fail(name, "expected NULL on a new connection from %s to be answered got %s",
			   src ? src : "the default address",
			   fd < 0 ? strerror(errno) : "no reply");
	return st == 0;
}

static bool fresh_null_within(const char *name, long ms)
{
	return fresh_null_from_within(name, NULL, ms);
}

/* A record holding a NULL call; returns its length (mark included). */
static size_t null_record(uint8_t *buf, size_t cap, uint32_t *xid)
{
	struct xdr_out o;

	xdr_out_init(&o, buf + 4, cap - 4);
	*xid = hc_call_header(&o, HC_NFS_PROG, 3, HC_NULL);
	xdr_put_u32(buf, 0x80000000u | (uint32_t)o.len);
	return o.len + 4;
}

/* Read replies on a blocking-mode @fd until one has @xid; false on close/timeout. */
static bool expect_xid(int fd, uint32_t xid, long ms, struct rr_reply *r)
{
	static _Thread_local uint8_t buf[65536];
	long deadline = rr_now_ms() + ms;
	size_t len;

	for (;;) {
		if (rr_recv_record(fd, buf, sizeof(buf), &len, deadline))
			return false;
		if (rr_parse_reply(buf, len, r) && r->xid == xid)
			return true;
	}
}

/* ---- record-marking cases ---- */

static bool case_truncated_mark(void)
{
	for (int i = 0; i < (soak ? 2000 : 200); i++) {
		int fd = hc_connect_nfs();
		uint8_t mark[4] = {0x80, 0};

		if (fd < 0)
			return check_fail("truncated-mark", "connect: %s", strerror(errno)), false;
		rr_send_all(fd, mark, 1 + i % 3);
		if (i & 1)
			close_rst(fd);
		else
			close(fd);
	}
	return true;
}

static bool case_truncated_record(void)
{
	uint8_t buf[2048];

	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < (soak ? 2000 : 200); i++) {
		int fd = hc_connect_nfs();

		if (fd < 0)
			return check_fail("truncated-record", "connect: %s", strerror(errno)),
			       false;
		xdr_put_u32(buf, 0x80000000u | 1000);
		rr_send_all(fd, buf, 4 + (size_t)(i * 37) % 1000);
		if (i & 1)
			close_rst(fd);
		else
			close(fd);
	}
	return true;
}

static bool case_oversized_mark(void)
{
	static const uint32_t marks[] = {0xffffffffu, 0x7fffffffu, 0x80000000u | (2u << 20),
					 0x80000000u | (NET_MAX_RECORD + 1)};
	uint8_t buf[4 + 8192];
	bool good = true;

	memset(buf, 0x41, sizeof(buf));
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		int fd = hc_connect_nfs();

		xdr_put_u32(buf, marks[i]);
		send_some(fd, buf, sizeof(buf), 1000);
		if (!wait_closed(fd, 5000)) {
			check_fail("oversized-mark",
				   "expected the server to close after mark 0x%08x", marks[i]);
			good = false;
		}
		close(fd);
	}
	return good;
}

/* Non-last fragments whose sum passes the record limit. */
static bool case_oversized_fragments(void)
{
	size_t flen = 60 * 1024, n = NET_MAX_RECORD / flen + 2;
	uint8_t *buf = calloc(1, flen + 4);
	int fd = hc_connect_nfs();
	bool closed;

	xdr_put_u32(buf, (uint32_t)flen);
	for (size_t i = 0; i < n; i++) {
		if (!send_some(fd, buf, flen + 4, 2000))
			break;
	}
	closed = wait_closed(fd, 5000);
	close(fd);
	free(buf);
	if (!closed)
		check_fail("oversized-fragments",
			   "expected a close after %zu fragments of %zu bytes", n, flen);
	return closed;
}

/* Empty non-last fragments are legal: many of them, then a NULL call, answered. */
static bool case_empty_fragments(void)
{
	size_t n = soak ? 1000000 : 100000;
	uint8_t *buf = calloc(n, 4), rec[256];
	uint32_t xid;
	struct rr_reply r;
	int fd = hc_connect_nfs();
	bool good;
	size_t len = null_record(rec, sizeof(rec), &xid);

	good = send_some(fd, buf, n * 4, 5000) && send_some(fd, rec, len, 5000) &&
	       expect_xid(fd, xid, 5000, &r);
	close(fd);
	free(buf);
	if (!good)
		check_fail("empty-fragments",
			   "expected NULL after %zu empty fragments to be answered", n);
	return good;
}

/*
 * Fragments that never end: connections that announce a large record (or an endless
 * chain of fragments), send part of it and go quiet. They must not cost more than
 * partial_cost() each, nor slow the probe.
 */
static bool case_endless_fragments(void)
{
	unsigned n = soak ? 96 : 24;
	uint8_t *buf = calloc(1, 600 * 1024 + 4);
	int *fds = calloc(n, sizeof(int));
	bool good = true;

	case_budget(0, n, 0);
	for (unsigned i = 0; i < n; i++) {
		fds[i] = conn_nb();
		if (fds[i] < 0) {
			check_fail("endless-fragments", "connect %u: %s", i, strerror(errno));
			good = false;
			break;
		}
		if (i % 2) {
			/* 1 MiB announced, 600 KiB sent */
			xdr_put_u32(buf, BIG);
			send_some(fds[i], buf, 600 * 1024 + 4, 2000);
		} else {
			/* small non-last fragments, 16 of them, and no last one */
			for (int k = 0; k < 16; k++) {
				xdr_put_u32(buf, 32 * 1024);
				send_some(fds[i], buf, 32 * 1024 + 4, 2000);
			}
		}
	}
	sleep_ms(soak ? 5000 : 1500);
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	free(fds);
	free(buf);
	return good;
}

/* A mark shorter than the call: the tail is read as a bogus mark. */
static bool case_lying_short(void)
{
	uint8_t rec[256];
	uint32_t xid;
	size_t len;

	for (int i = 0; i < 50; i++) {
		int fd = hc_connect_nfs();

		len = null_record(rec, sizeof(rec), &xid);
		xdr_put_u32(rec, 0x80000000u | (uint32_t)(len - 4 - 4 * (1 + i % 8)));
		rr_send_all(fd, rec, len);
		rr_send_all(fd, rec, len);
		/* Whatever the server makes of it, it must answer or close, not hang up others. */
		wait_closed(fd, 50);
		close(fd);
	}
	return true;
}

/* A mark longer than the call: no answer until the rest arrives, then garbage args. */
static bool case_lying_long(void)
{
	uint8_t rec[512];
	struct rr_reply r;
	uint32_t xid;
	size_t len = null_record(rec, sizeof(rec), &xid);
	int fd = hc_connect_nfs();
	bool good = true;

	xdr_put_u32(rec, 0x80000000u | (uint32_t)(len - 4 + 64));
	rr_send_all(fd, rec, len);
	if (rr_wait_readable(fd, rr_now_ms() + 300)) {
		check_fail("lying-long", "expected no reply before the announced bytes arrived");
		good = false;
	}
	memset(rec, 0x5a, 64);
	rr_send_all(fd, rec, 64);
	/* A NULL call with trailing bytes: answered (NULL ignores its args) or refused. */
	if (!expect_xid(fd, xid, 5000, &r)) {
		check_fail("lying-long", "expected a reply to the completed record");
		good = false;
	}
	close(fd);
	return good;
}

/* A valid GETATTR header followed by garbage; then the connection still serves. */
static bool case_garbage_after_header(void)
{
	uint8_t buf[4096], rec[256];
	struct xdr_out o;
	struct rr_reply r;
	int fd = hc_connect_nfs();
	uint32_t xid;
	bool good = true;

	for (int i = 0; i < 64; i++) {
		size_t glen = 4 + (size_t)i * 53 % 3000;

		xdr_out_init(&o, buf + 4, sizeof(buf) - 4);
		xid = hc_call_header(&o, HC_NFS_PROG, 3, (uint32_t)(i % 22));
		for (size_t k = 0; k < glen; k++)
			buf[4 + o.len + k] = (uint8_t)rand();
		if (i % 4 == 0)
			xdr_put_u32(buf + 4 + o.len, 0xfffffff0u); /* an absurd length field */
		o.len += glen & ~(size_t)3;
		xdr_put_u32(buf, 0x80000000u | (uint32_t)o.len);
		rr_send_all(fd, buf, o.len + 4);
		if (!expect_xid(fd, xid, 5000, &r)) {
			check_fail("garbage-after-header",
				   "expected a reply to proc %d with garbage args", i % 22);
			good = false;
			break;
		}
	}
	if (good) {
		size_t len = null_record(rec, sizeof(rec), &xid);

		rr_send_all(fd, rec, len);
		if (!expect_xid(fd, xid, 5000, &r)) {
			check_fail("garbage-after-header",
				   "expected NULL after the garbage answered");
			good = false;
		}
	}
	close(fd);
	return good;
}

/* Pipelined random records, half with a valid header; replies read as they come. */
static bool case_random_records(void)
{
	unsigned n = soak ? 200000 : 5000;
	uint8_t buf[4096], rec[256];
	struct rr_reply r;
	struct xdr_out o;
	int fd = conn_nb();
	uint32_t xid;
	bool good = true;

	for (unsigned i = 0; i < n && good; i++) {
		size_t len = (size_t)rand() % 1500;

		xdr_out_init(&o, buf + 4, sizeof(buf) - 4);
		if (i & 1) {
			hc_call_header(&o, (i & 2) ? HC_NFS_PROG : HC_MOUNT_PROG,
				       (uint32_t)rand() % 5, (uint32_t)rand() % 24);
		}
		for (size_t k = 0; k < len; k++)
			buf[4 + o.len + k] = (uint8_t)rand();
		o.len += len;
		xdr_put_u32(buf, 0x80000000u | (uint32_t)o.len);
		if (!send_some(fd, buf, o.len + 4, 5000)) {
			check_fail("random-records", "expected the server to take record %u", i);
			good = false;
		}
		/* drain replies so that back-pressure never stops us */
		while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (good) {
		size_t len = null_record(rec, sizeof(rec), &xid);

		rr_send_all(fd, rec, len);
		if (!expect_xid(fd, xid, 10000, &r)) {
			check_fail("random-records",
				   "expected NULL after %u random records answered", n);
			good = false;
		}
	}
	close(fd);
	return good;
}

/* One byte at a time: a slow client is served, and slows nobody else. */
static bool case_byte_by_byte(void)
{
	uint8_t rec[256];
	struct rr_reply r;
	uint32_t xid;
	size_t len = null_record(rec, sizeof(rec), &xid);
	int fd = hc_connect_nfs();
	bool good;

	for (size_t i = 0; i < len; i++) {
		rr_send_all(fd, rec + i, 1);
		sleep_ms(5);
	}
	good = expect_xid(fd, xid, 5000, &r);
	if (!good)
		check_fail("byte-by-byte", "expected NULL sent byte by byte to be answered");
	close(fd);
	return good;
}

/* ---- connection-count cases ---- */

/* Open @n connections, from SPREAD_ADDRS source addresses in turn when @spread (so that
 * no address reaches the limit per client), else from @src. */
static int *open_many_from(unsigned n, unsigned *got, bool partial_mark, bool spread,
			   const char *src)
{
	int *fds = calloc(n, sizeof(int));
	uint8_t mark[2] = {0x80, 0};
	char addr[32];

	*got = 0;
	for (unsigned i = 0; i < n; i++) {
		if (spread) {
			snprintf(addr, sizeof(addr), "127.0.1.%u", 10 + i % SPREAD_ADDRS);
			src = addr;
		}
		fds[i] = hc_connect_nfs_from(src);
		if (fds[i] < 0)
			break;
		if (partial_mark && i % 2)
			rr_send_all(fds[i], mark, sizeof(mark));
		(*got)++;
	}
	return fds;
}

static int *open_many(unsigned n, unsigned *got, bool partial_mark)
{
	return open_many_from(n, got, partial_mark, true, NULL);
}

static void close_many(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

static bool case_idle_connections(void)
{
	unsigned n = soak ? 3800 : 2000, got;
	int *fds;
	bool good = true;

	case_budget(n, 0, 0);
	fds = open_many(n, &got, true);
	if (got < n) {
		check_fail("idle-connections", "expected %u connections got %u (%s)", n, got,
			   strerror(errno));
		good = false;
	}
	sleep_ms(soak ? 10000 : 2000);
	/* every idle connection is still served */
	for (unsigned i = 0; good && i < got; i += got / 8 + 1) {
		uint8_t mark[2] = {0x80, 0};

		if (i % 2)
			rr_send_all(fds[i], mark, 2); /* nothing: finish the partial mark below */
		close(fds[i]);
		fds[i] = hc_connect_nfs();
		if (fds[i] < 0 || hc_null(fds[i]) != 0) {
			check_fail("idle-connections",
				   "expected NULL answered with %u connections open", got);
			good = false;
		}
	}
	printf("    %u idle connections, RSS %.1f MiB\n", got, atomic_load(&cur_rss_kib) / 1024.0);
	close_many(fds, got);
	return good;
}

/* Past the connection limit: the extras are refused, the probe's connection is served. */
static bool case_connection_limit(void)
{
	unsigned n = CONN_LIMIT + 300, got, closed = 0;
	int *fds;
	bool good = true;

	case_budget(CONN_LIMIT, 0, 0);
	fds = open_many(n, &got, false);
	/* The server closes what it refuses, the last connection opened among them. */
	if (got)
		rr_wait_readable(fds[got - 1], rr_now_ms() + 10000);
	for (unsigned i = 0; i < got; i++) {
		char c;

		if (recv(fds[i], &c, 1, MSG_DONTWAIT) == 0)
			closed++;
	}
	printf("    %u connections opened, %u refused by the server\n", got, closed);
	if (closed == 0) {
		check_fail("connection-limit", "expected connections over %u to be refused",
			   CONN_LIMIT);
		good = false;
	}
	close_many(fds, got);
	return fresh_null_within("connection-limit", 10000) && good;
}

/* Connections of @fds the server has closed (a FIN or a reset seen, POLLRDHUP, also
 * with replies still unread); waits up to @ms for @want of them. */
static unsigned count_hung_up(const int *fds, unsigned n, unsigned want, long ms)
{
	struct pollfd *pf = calloc(n, sizeof(*pf));
	long deadline = rr_now_ms() + ms;
	unsigned hung;

	for (;;) {
		for (unsigned i = 0; i < n; i++) {
			pf[i].fd = fds[i];
			pf[i].events = POLLRDHUP;
			pf[i].revents = 0;
		}
		poll(pf, n, 0);
		hung = 0;
		for (unsigned i = 0; i < n; i++)
			hung += (pf[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
		if (hung >= want || rr_now_ms() >= deadline)
			break;
		poll(pf, n, 100); /* woken by the next hang-up; re-counted above */
	}
	free(pf);
	return hung;
}

/* One address past its own limit: its extras are refused, the kept ones served, while
 * another address (and the probe) is served; once it closes them it is served again.
 * The loops accept in parallel, so which ones are refused is not fixed; how many is. */
static bool case_client_connection_limit(void)
{
	const char *src = "127.0.0.2";
	unsigned n = CLIENT_LIMIT + 20, got, closed, kept = 0, served = 0;
	int *fds;
	bool good = true;

	case_budget(n, 0, 0);
	fds = open_many_from(n, &got, false, false, src);
	if (got < n) {
		check_fail("client-connection-limit", "expected %u connections from %s got %u (%s)",
			   n, src, got, strerror(errno));
		good = false;
	}
	(void)count_hung_up(fds, got, n - CLIENT_LIMIT, 10000); /* wait for the refusals */
	/* Another address is served meanwhile. */
	good = fresh_null_from_within("client-connection-limit", "127.0.0.3", 10000) && good;
	/* Nothing more was refused after the wait: the limit holds, not a larger one. */
	closed = count_hung_up(fds, got, got, 0);
	for (unsigned i = 0; i < got; i += 37) {
		char c;

		if (recv(fds[i], &c, 1, MSG_DONTWAIT | MSG_PEEK) == 0)
			continue;
		kept++;
		served += hc_null(fds[i]) == 0;
	}
	printf("    %u connections from %s, %u refused by the server; NULL on %u of %u kept "
	       "ones tried answered\n",
	       got, src, closed, served, kept);
	if (good && closed != n - CLIENT_LIMIT) {
		check_fail("client-connection-limit",
			   "expected %u of %u connections from one address refused got %u",
			   n - CLIENT_LIMIT, n, closed);
		good = false;
	}
	if (kept == 0 || served != kept) {
		check_fail("client-connection-limit",
			   "expected NULL answered on every kept connection tried got %u of %u",
			   served, kept);
		good = false;
	}
	close_many(fds, got);
	return fresh_null_from_within("client-connection-limit", src, 10000) && good;
}

/* ---- clients that never read their replies ---- */

/* Pipeline copies of one call record on @fd until the server stops taking them. */
static unsigned flood(int fd, uint8_t *rec, size_t len, unsigned max, long stall_ms)
{
	unsigned n = 0;

	/* A fresh XID each: the same XID again is a retransmission the DRC may drop. */
	while (n < max && (xdr_put_u32(rec + 4, hc_xid()), send_some(fd, rec, len, stall_ms)))
		n++;
	return n;
}

/* Build a record of @proc (GETATTR, READ 1 MiB or WRITE 1 MiB) for the flood cases. */
static size_t flood_record(uint8_t *buf, size_t cap, int kind)
{
	static uint8_t data[BIG];
	struct xdr_out o;

	xdr_out_init(&o, buf + 4, cap - 4);
	if (kind == 0)
		hc_enc_getattr(&o, &root_fh);
	else if (kind == 1)
		hc_enc_read(&o, &big_fh, 0, BIG);
	else
		hc_enc_write(&o, &big_fh, 0, data, BIG, kind == 3 ? 2 : 0);
	xdr_put_u32(buf, 0x80000000u | (uint32_t)o.len);
	return o.len + 4;
}

/*
 * @nconn connections each pipeline calls of @kind and never read. Back-pressure must
 * stop them; memory stays within hostile_cost() per connection. Then the first connection
 * reads everything: every call sent is answered (the server resumes).
 */
static bool no_read(const char *name, int kind, unsigned nconn)
{
	size_t cap = BIG + 4096, len;
	uint8_t *rec = malloc(cap), *buf = malloc(HC_MAXREPLY);
	int *fds = calloc(nconn, sizeof(int));
	unsigned *sent = calloc(nconn, sizeof(unsigned)), answered = 0;
	bool good = true;
	long deadline;

	case_budget(0, 0, nconn);
	len = flood_record(rec, cap, kind);
	for (unsigned i = 0; i < nconn; i++) {
		fds[i] = conn_nb();
		sent[i] = flood(fds[i], rec, len, kind == 0 ? 200000 : kind == 1 ? 2000 : 300, 700);
	}
	sleep_ms(500);
	printf("    %u connections sent %u calls each (first), RSS %.1f MiB\n", nconn, sent[0],
	       atomic_load(&cur_rss_kib) / 1024.0);
	/* the first one now reads: the server must resume and answer every call */
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) & ~O_NONBLOCK);
	deadline = rr_now_ms() + 30000;
	while (answered < sent[0]) {
		size_t got;
		struct rr_reply r;

		if (rr_recv_record(fds[0], buf, HC_MAXREPLY, &got, deadline) ||
		    !rr_parse_reply(buf, got, &r))
			break;
		answered++;
	}
	if (answered < sent[0]) {
		check_fail(name, "expected %u replies once the client read got %u", sent[0],
			   answered);
		good = false;
	}
	for (unsigned i = 0; i < nconn; i++) {
		if (i % 2)
			close_rst(fds[i]);
		else
			close(fds[i]);
	}
	free(fds);
	free(sent);
	free(rec);
	free(buf);
	return good;
}

static bool case_no_read_getattr(void)
{
	return no_read("no-read-getattr", 0, soak ? 16 : 4);
}

static bool case_no_read_read(void)
{
	return no_read("no-read-read-1m", 1, soak ? 12 : 4);
}

static bool case_no_read_write(void)
{
	return no_read("no-read-write-1m", 2, soak ? 12 : 4);
}

static bool case_no_read_write_stable(void)
{
	return no_read("no-read-write-1m-stable", 3, soak ? 8 : 3);
}

/* Clients that vanish: mid-record, and right after pipelining calls still running. */
static bool case_disconnect_mid_request(void)
{
	size_t cap = BIG + 4096, len;
	uint8_t *rec = malloc(cap);

	for (int i = 0; i < (soak ? 400 : 40); i++) {
		int fd = conn_nb();

		len = flood_record(rec, cap, 2 + i % 2);
		if (i % 3 == 0) {
			send_some(fd, rec, len / 2, 1000); /* half a WRITE */
		} else {
			for (int k = 0; k < 4; k++)
				send_some(fd, rec, len, 1000);
		}
		if (i % 2)
			close_rst(fd);
		else
			close(fd);
	}
	free(rec);
	return true;
}

/* ---- driver ---- */

struct hcase {
	const char *name;
	bool (*fn)(void);
};

/* ---- the server-wide budget of large buffers (-m) ---- */

#define HOLD_BYTES   (900 * 1024) /* of a 1 MiB record, sent and never finished */
#define SMALL_SNDBUF 16384

static unsigned call_mem_mib;	       /* -m: the server's --max-call-memory */
static unsigned record_timeout_s = 60; /* -r: the server's --record-timeout */

/* A non-blocking connection from client address @src (NULL: the default one) whose
 * kernel buffers hold little: what it has sent beyond about a quarter MiB, the server
 * has read. */
static int conn_nb_small_from(const char *src)
{
	int fd = hc_connect_nfs_from(src), sz = SMALL_SNDBUF;

	if (fd >= 0) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	return fd;
}

static int conn_nb_small(void)
{
	return conn_nb_small_from(NULL);
}

/* Send what each of the @n connections still has of @len bytes of @buf, without waiting
 * (sent[i] counts); the number that have sent all of it. */
static unsigned push_all(const int *fds, size_t *sent, unsigned n, const uint8_t *buf, size_t len)
{
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++) {
		while (fds[i] >= 0 && sent[i] < len) {
			ssize_t k = send(fds[i], buf + sent[i], len - sent[i],
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (k <= 0)
				break;
			sent[i] += (size_t)k;
		}
		done += sent[i] == len;
	}
	return done;
}

/* Wait up to @ms for any of the @n connections to take more bytes. */
static void wait_writable(const int *fds, const size_t *sent, unsigned n, size_t len, int ms)
{
	struct pollfd pf[64];
	unsigned k = 0;

	for (unsigned i = 0; i < n && k < 64; i++) {
		if (fds[i] >= 0 && sent[i] < len)
			pf[k++] = (struct pollfd){.fd = fds[i], .events = POLLOUT};
	}
	poll(pf, k, ms);
}

/*
 * For @ms, send @len bytes of @buf on @fd (*@sent so far) as fast as the server takes
 * them: false if it took them all or answered (it had a buffer for the call).
 */
static bool write_stalls(int fd, const uint8_t *buf, size_t len, size_t *sent, long ms)
{
	long until = rr_now_ms() + ms, now;

	while ((now = rr_now_ms()) < until) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};

		push_all(&fd, sent, 1, buf, len);
		if (*sent < len)
			pf.events |= POLLOUT;
		if (poll(&pf, 1, (int)(until - now)) > 0 &&
		    (pf.revents & (POLLIN | POLLHUP | POLLERR)))
			return false;
	}
	return *sent < len;
}

/* True if @fd has something to read, or was closed, now. */
static bool readable_now(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) > 0;
}

/* A 512 KiB WRITE to hostile.big (a large buffer's worth) as one record in @buf (BIG
 * bytes); its length. */
static size_t write_record(uint8_t *buf, uint32_t *xid)
{
	static uint8_t data[BIG / 2];
	struct xdr_out o;

	xdr_out_init(&o, buf + 4, BIG - 4);
	*xid = hc_enc_write(&o, &big_fh, 0, data, BIG / 2, 0);
	xdr_put_u32(buf, 0x80000000u | (uint32_t)o.len);
	return o.len + 4;
}

/* Send the rest of that WRITE on @fd (from @sent on) and expect NFS3_OK within @ms. */
static bool write_answered_within(const char *name, int fd, const uint8_t *buf, size_t len,
				  size_t sent, uint32_t xid, const char *when, long ms)
{
	struct rr_reply r = {0};

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (send_some(fd, buf + sent, len - sent, ms) && expect_xid(fd, xid, ms, &r) &&
	    r.stat == 0 && r.code == 0 && r.nfsstat == 0)
		return true;
	check_fail(name, "expected a 512 KiB WRITE answered NFS3_OK %s (within %ld ms) got %s",
		   when, ms, r.xid == xid ? hc_nfsstat_name((int)r.nfsstat) : "no reply");
	return false;
}

static bool write_answered(const char *name, int fd, const uint8_t *buf, size_t len, size_t sent,
			   uint32_t xid, const char *when)
{
	return write_answered_within(name, fd, buf, len, sent, xid, when, 10000);
}

/* The budget's large buffers (the server's formula): the connections that can hold one. */
static unsigned cap_buffers(void)
{
	return (unsigned)(net_mem_cap(call_mem_mib) / NET_MAX_RECORD);
}

/* Of those, how many one client address may hold (the server's formula). */
static unsigned share_buffers(void)
{
	return (unsigned)(net_mem_share(net_mem_cap(call_mem_mib)) / NET_MAX_RECORD);
}

/* The source address of record holder @i of holders spread over @naddr addresses
 * (127.0.2.x; NULL for @naddr 0: the default address). */
static const char *holder_addr(unsigned i, unsigned naddr)
{
	static char a[SPREAD_ADDRS][16];

	if (!naddr)
		return NULL;
	i %= naddr < SPREAD_ADDRS ? naddr : SPREAD_ADDRS;
	snprintf(a[i], sizeof(a[i]), "127.0.2.%u", 1 + i);
	return a[i];
}

static uint8_t hold_buf[4 + HOLD_BYTES]; /* what each record holder sends */

/*
 * Open @n connections, spread over @naddr client addresses (0: all from the default
 * one), that each announce a 1 MiB record and send 900 KiB of it; wait (up to 20 s)
 * until @want have sent it all. The number that have.
 */
static unsigned hold_records(int *fds, size_t *sent, unsigned n, unsigned want, unsigned naddr)
{
	long deadline = rr_now_ms() + 20000;
	unsigned done;

	xdr_put_u32(hold_buf, BIG); /* a fragment of 1 MiB, not the last */
	for (unsigned i = 0; i < n; i++)
		fds[i] = conn_nb_small_from(holder_addr(i, naddr));
	while ((done = push_all(fds, sent, n, hold_buf, sizeof(hold_buf))) < want &&
	       rr_now_ms() < deadline)
		wait_writable(fds, sent, n, sizeof(hold_buf), 100);
	return done;
}

/*
 * On @wfd, a 512 KiB WRITE (a large buffer's worth) must stall for a second (@why) while
 * @holding of the @n record holders @fds have sent their records whole, and be answered
 * once they hang up (they are closed here, and so is @wfd). False (reported) if not.
 */
static bool waits_for_holders(const char *name, int wfd, int *fds, size_t *sent, unsigned n,
			      unsigned holding, const char *why)
{
	uint8_t *wbuf = malloc(BIG);
	size_t wlen, wsent = 0;
	unsigned done;
	bool good = true;
	uint32_t xid;

	wlen = write_record(wbuf, &xid);
	if (!write_stalls(wfd, wbuf, wlen, &wsent, 1000)) {
		check_fail(name,
			   "expected a 512 KiB WRITE %s to stall got it answered or taken (%zu of "
			   "%zu bytes sent)",
			   why, wsent, wlen);
		good = false;
	}
	done = push_all(fds, sent, n, hold_buf, sizeof(hold_buf));
	if (done != holding) {
		check_fail(name, "expected still %u connections to have sent all got %u", holding,
			   done);
		good = false;
	}
	printf("    %u of %u connections hold a 1 MiB record each; a 512 KiB WRITE %s waits\n",
	       done, n, why);
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	good = write_answered(name, wfd, wbuf, wlen, wsent, xid, "once the holders hung up") &&
	       good;
	close(wfd);
	free(wbuf);
	return good;
}

/*
 * With the server's budget at CAP large buffers, CAP + 8 connections each announce a
 * 1 MiB record and send 900 KiB of it through a small send buffer, so that a connection
 * finishes sending only if the server took a buffer for its record: exactly CAP finish
 * (the holders come from enough addresses that their shares add up to more than CAP).
 * A well-behaved client's 512 KiB WRITE then gets no reply within a second while the
 * probe's small calls go on; once the record holders hang up, it is answered.
 */
static bool case_memory_cap(void)
{
	unsigned cap = cap_buffers(), n = cap + 8, done;
	unsigned naddr = (cap + share_buffers() - 1) / share_buffers() + 1;
	size_t *sent = calloc(n, sizeof(size_t));
	int *fds = calloc(n, sizeof(int));
	bool good = true;

	case_budget(n - cap, cap, 0);
	done = hold_records(fds, sent, n, cap, naddr);
	if (done != cap) {
		check_fail("memory-cap",
			   "expected %u of %u connections to send their %u KiB (a large buffer "
			   "each) got %u",
			   cap, n, HOLD_BYTES / 1024, done);
		good = false;
	}
	/* A WRITE that needs a large buffer: none is left. */
	good = waits_for_holders("memory-cap", conn_nb_small(), fds, sent, n, cap,
				 "while the budget is spent") &&
	       good;
	free(fds);
	free(sent);
	return good;
}

/*
 * One address's share of the budget: CAP + 4 connections from one client address each
 * announce a 1 MiB record and send 900 KiB of it; only SHARE of them get a buffer (a
 * quarter of the budget, or one), the others wait. Another address's 512 KiB WRITE is
 * then answered at once (in less than half the record timeout, which would otherwise
 * free the buffers), while one more from the holders' address stalls until they hang
 * up.
 */
static bool case_address_share(void)
{
	unsigned cap = cap_buffers(), share = share_buffers(), n = cap + 4, done;
	size_t wlen, *sent = calloc(n, sizeof(size_t));
	uint8_t *wbuf = malloc(BIG);
	int *fds = calloc(n, sizeof(int)), wfd;
	bool good = true;
	uint32_t xid;

	case_budget(n - share, share + 2, 0);
	done = hold_records(fds, sent, n, share, 1);
	if (done != share) {
		check_fail("address-share",
			   "expected %u of %u connections from one address to send their %u KiB "
			   "(its share of %u large buffers) got %u",
			   share, n, HOLD_BYTES / 1024, cap, done);
		good = false;
	}
	wlen = write_record(wbuf, &xid);
	wfd = conn_nb_small_from("127.0.3.1");
	good = write_answered_within("address-share", wfd, wbuf, wlen, 0, xid,
				     "from another address while one holds its share",
				     record_timeout_s * 1000L / 2) &&
	       good;
	close(wfd);
	free(wbuf);
	good = waits_for_holders("address-share", conn_nb_small_from(holder_addr(0, 1)), fds, sent,
				 n, share, "from the holders' address") &&
	       good;
	free(fds);
	free(sent);
	return good;
}

/*
 * The record timeout (-r S, the server's --record-timeout): as many connections as the
 * budget has buffers each hold a 1 MiB record half-sent, and go quiet; a NULL call
 * arrives a byte a second for longer than the timeout. The server must close every
 * holder after S seconds (not within the first), give their buffers back (a 512 KiB
 * WRITE is then answered), and answer the slow NULL: it never went quiet that long.
 */
static bool case_record_timeout(void)
{
	unsigned cap = cap_buffers(), done, closed = 0;
	unsigned naddr = (cap + share_buffers() - 1) / share_buffers(); /* a share each */
	size_t *sent = calloc(cap, sizeof(size_t)), wlen, nlen, k;
	uint8_t *wbuf = malloc(BIG), nrec[128];
	int *fds = calloc(cap, sizeof(int)), wfd, sfd = hc_connect_nfs();
	long t0 = rr_now_ms(), deadline = t0 + (record_timeout_s + 5) * 1000L;
	bool good = true;
	uint32_t xid, nxid;
	struct rr_reply r;

	case_budget(0, cap, 0);
	done = hold_records(fds, sent, cap, cap, naddr);
	if (done != cap) {
		check_fail("record-timeout", "expected %u connections to hold a record got %u", cap,
			   done);
		good = false;
	}
	/* The slow NULL: its mark, then one byte a second, for longer than the timeout;
	 * meanwhile, until a second before the timeout, every holder must stay open. */
	nlen = null_record(nrec, sizeof(nrec), &nxid);
	send_some(sfd, nrec, 4, 1000);
	for (k = 4; k < nlen - 1 && rr_now_ms() < t0 + (record_timeout_s + 2) * 1000L; k++) {
		for (unsigned i = 0; i < cap && rr_now_ms() < t0 + (record_timeout_s - 1) * 1000L;
		     i++) {
			if (fds[i] >= 0 && readable_now(fds[i])) {
				check_fail("record-timeout",
					   "expected holder %u open for %u s got it closed after "
					   "%ld ms",
					   i, record_timeout_s - 1, rr_now_ms() - t0);
				good = false;
				close(fds[i]);
				fds[i] = -1;
			}
		}
		send_some(sfd, nrec + k, 1, 1000);
		sleep_ms(1000);
	}
	send_some(sfd, nrec + k, nlen - k, 1000);
	if (!expect_xid(sfd, nxid, 10000, &r)) {
		check_fail("record-timeout",
			   "expected a NULL sent a byte a second answered got no reply");
		good = false;
	}
	for (unsigned i = 0; i < cap; i++) {
		if (fds[i] >= 0 && wait_closed(fds[i], deadline - rr_now_ms()))
			closed++;
	}
	if (closed != cap) {
		check_fail("record-timeout",
			   "expected all %u holders closed within %u s (+5) got %u closed", cap,
			   record_timeout_s, closed);
		good = false;
	}
	printf("    %u record holders closed, seen by %.1f s; a NULL sent over %zu s answered\n",
	       closed, (rr_now_ms() - t0) / 1000.0, k - 4);
	wlen = write_record(wbuf, &xid);
	wfd = conn_nb_small();
	good = write_answered("record-timeout", wfd, wbuf, wlen, 0, xid,
			      "once the holders were closed") &&
	       good;
	close(wfd);
	close(sfd);
	for (unsigned i = 0; i < cap; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	free(fds);
	free(sent);
	free(wbuf);
	return good;
}

static const struct hcase cases[] = {
	{"truncated-mark", case_truncated_mark},
	{"truncated-record", case_truncated_record},
	{"oversized-mark", case_oversized_mark},
	{"oversized-fragments", case_oversized_fragments},
	{"empty-fragments", case_empty_fragments},
	{"endless-fragments", case_endless_fragments},
	{"lying-short", case_lying_short},
	{"lying-long", case_lying_long},
	{"garbage-after-header", case_garbage_after_header},
	{"random-records", case_random_records},
	{"byte-by-byte", case_byte_by_byte},
	{"idle-connections", case_idle_connections},
	{"connection-limit", case_connection_limit},
	{"client-connection-limit", case_client_connection_limit},
	{"no-read-getattr", case_no_read_getattr},
	{"no-read-read-1m", case_no_read_read},
	{"no-read-write-1m", case_no_read_write},
	{"no-read-write-1m-stable", case_no_read_write_stable},
	{"disconnect-mid-request", case_disconnect_mid_request},
};

/* ---- the idle timeout (-i) ---- */

static unsigned idle_timeout_s; /* -i: the server's --idle-timeout */

/* Poll @fds (-1: done with) until one is closed by the server or @until; each one
 * found closed gets its time in @closed_at and is set to -1 in @fds (closed here). */
static void note_closed(int *fds, long *closed_at, unsigned n, long until)
{
	struct pollfd pf[8];
	long wait = until - rr_now_ms();

	for (unsigned i = 0; i < n; i++) {
		pf[i].fd = fds[i];
		pf[i].events = POLLIN | POLLRDHUP;
		pf[i].revents = 0;
	}
	if (poll(pf, n, wait > 0 ? (int)wait : 0) <= 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		char c;

		if (fds[i] < 0 || !pf[i].revents ||
		    recv(fds[i], &c, 1, MSG_DONTWAIT | MSG_PEEK) != 0)
			continue;
		closed_at[i] = rr_now_ms();
		close(fds[i]);
		fds[i] = -1;
	}
}

/* Connections that send nothing for the idle timeout are closed, whether they never
 * called, were answered, or left half a record mark, and not before it; one that calls
 * four times per timeout is kept and answered throughout; a new one is served after. */
static bool case_idle_timeout(void)
{
	static const char *const what[] = {"never called", "was answered once", "sent half a mark"};
	long idle_ms = idle_timeout_s * 1000L, deadline, next_call, last_sent[3], closed_at[3];
	uint8_t mark[2] = {0x80, 0};
	int fds[3], busy = hc_connect_nfs();
	unsigned calls = 0, answered = 0;
	bool good = true;

	for (int i = 0; i < 3; i++) {
		fds[i] = hc_connect_nfs();
		last_sent[i] = rr_now_ms();
		closed_at[i] = -1;
	}
	if (busy < 0 || fds[0] < 0 || fds[1] < 0 || fds[2] < 0 || hc_null(fds[1]) != 0 ||
	    !rr_send_all(fds[2], mark, sizeof(mark))) {
		check_fail("idle-timeout", "expected 4 connections and a NULL answered got %s",
			   strerror(errno));
		return false;
	}
	last_sent[1] = last_sent[2] = rr_now_ms();
	deadline = rr_now_ms() + idle_ms + 5000; /* the sweep runs every second: slack */
	next_call = rr_now_ms();
	while (rr_now_ms() < deadline && (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0)) {
		if (rr_now_ms() >= next_call) {
			calls++;
			answered += hc_null(busy) == 0;
			next_call = rr_now_ms() + idle_ms / 4;
		}
		note_closed(fds, closed_at, 3, next_call < deadline ? next_call : deadline);
	}
	for (int i = 0; i < 3; i++) {
		if (closed_at[i] < 0) {
			check_fail("idle-timeout",
				   "expected the connection that %s closed within "
				   "%ld ms got it open",
				   what[i], idle_ms + 5000);
			close(fds[i]);
			good = false;
		} else if (closed_at[i] - last_sent[i] < idle_ms - 100) {
			check_fail("idle-timeout",
				   "expected the connection that %s kept for %ld ms got it closed "
				   "after %ld",
				   what[i], idle_ms, closed_at[i] - last_sent[i]);
			good = false;
		} else {
			printf("    the connection that %s closed after %.1f s\n", what[i],
			       (closed_at[i] - last_sent[i]) / 1000.0);
		}
	}
	if (calls == 0 || answered != calls || hc_null(busy) != 0) {
		check_fail("idle-timeout",
			   "expected every NULL of a connection calling every %ld ms answered got "
			   "%u of %u",
			   idle_ms / 4, answered, calls);
		good = false;
	}
	printf("    a connection calling every %ld ms: %u of %u answered, still open\n",
	       idle_ms / 4, answered, calls);
	close(busy);
	return good;
}

static const struct hcase idle_cases[] = {
	{"idle-timeout", case_idle_timeout},
};

/* Run alone, against a server started with --max-call-memory (-m) and --record-timeout
 * (-r). */
#define NOREAD_CONNS 40u
#define NOREAD_CALLS 8u

/*
 * NOREAD_CONNS connections each ask for NOREAD_CALLS READs of 1 MiB and read no reply:
 * the replies that the server holds for them stay within --max-call-memory (each READ
 * reserves its data before it runs; the rest wait), while small calls (the probe) are
 * answered; the server closes those that take none of their replies for the record
 * timeout; once the clients are gone a fresh 1 MiB READ is answered.
 */
static bool case_no_read_reads(void)
{
	size_t cap = BIG + 4096, len;
	uint8_t *rec = malloc(cap);
	int fds[NOREAD_CONNS];
	unsigned sent = 0, hung;
	uint32_t got = 0;
	bool good = true;
	long t0 = rr_now_ms(), deadline;
	int fd, st = -1;

	case_budget_bytes(NOREAD_CONNS * (conn_cost() + 2 * req_cost()) +
			  ((size_t)call_mem_mib << 20) + 2 * cap_buffers() * req_cost());
	len = flood_record(rec, cap, 1);
	for (unsigned i = 0; i < NOREAD_CONNS; i++) {
		fds[i] = conn_nb();
		sent += fds[i] < 0 ? 0 : flood(fds[i], rec, len, NOREAD_CALLS, 200);
	}
	hung = count_hung_up(fds, NOREAD_CONNS, 1, (record_timeout_s + 5) * 1000L);
	printf("    %u READs of 1 MiB sent over %u connections, none read; %u closed by the "
	       "server after %.1f s; RSS %.1f MiB\n",
	       sent, NOREAD_CONNS, hung, (rr_now_ms() - t0) / 1000.0,
	       atomic_load(&cur_rss_kib) / 1024.0);
	if (!hung) {
		check_fail("no-read-reads",
			   "expected connections that took no reply closed within %u s (+5) got "
			   "none",
			   record_timeout_s);
		good = false;
	}
	for (unsigned i = 0; i < NOREAD_CONNS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	deadline = rr_now_ms() + 10000;
	do {
		fd = hc_connect_nfs();
		st = fd < 0 ? -1 : hc_read(fd, &big_fh, 0, BIG, &got);
		if (fd >= 0)
			close(fd);
	} while ((st != 0 || got != BIG) && rr_now_ms() < deadline);
	if (st != 0 || got != BIG) {
		check_fail("no-read-reads",
			   "expected a 1 MiB READ answered once the clients were gone got status "
			   "%d, %u bytes",
			   st, got);
		good = false;
	}
	free(rec);
	return good;
}

static const struct hcase budget_cases[] = {
	{"memory-cap", case_memory_cap},
	{"address-share", case_address_share},
	{"no-read-reads", case_no_read_reads},
	{"record-timeout", case_record_timeout},
};

static bool setup_files(const char *path)
{
	static uint8_t data[BIG];
	int fd, st;

	st = hc_mnt(path, &root_fh);
	if (st != 0) {
		check_fail("setup", "expected MNT %s to give MNT3_OK got %d", path, st);
		return false;
	}
	fd = hc_connect_nfs();
	memset(data, 0x42, sizeof(data));
	st = fd < 0 ? -1 : hc_create(fd, &root_fh, "hostile.big", &big_fh);
	if (st == 0)
		st = hc_write(fd, &big_fh, 0, data, BIG, 2);
	if (fd >= 0)
		close(fd);
	if (st != 0) {
		check_fail("setup", "expected CREATE and WRITE of hostile.big to succeed got %s",
			   hc_nfsstat_name(st));
		return false;
	}
	return true;
}

static void run_case(const struct hcase *c)
{
	int before = check_failures();
	long late_before = atomic_load(&probe_late);
	bool good;
	long t0 = rr_now_ms();

	atomic_store(&cur_case, c->name);
	atomic_store(&case_peak_kib, 0);
	good = c->fn();
	ncases++;
	if (atomic_load(&srv_dead)) {
		check_fail(c->name, "expected the server to survive got it dead");
		return;
	}
	good = fresh_null(c->name) && good;
	if (atomic_load(&probe_late) != late_before) {
		check_fail(c->name, "expected the probe answered within %d ms: %s",
			   PROBE_DEADLINE_MS, probe_err);
		good = false;
	}
	if (good && check_failures() == before)
		printf("ok %s (%ld ms, peak RSS %.1f MiB)\n", c->name, rr_now_ms() - t0,
		       atomic_load(&case_peak_kib) / 1024.0);
}

int main(int argc, char **argv)
{
	pthread_t sampler, probe;
	struct rlimit rl;
	int opt;
	bool dead = false;
	const char *tag;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "ai:m:r:st:")) != -1) {
		if (opt == 's')
			soak = true;
		else if (opt == 'a')
			asan = true;
		else if (opt == 't')
			threads = (unsigned)atoi(optarg);
		else if (opt == 'm')
			call_mem_mib = (unsigned)atoi(optarg);
		else if (opt == 'r')
			record_timeout_s = (unsigned)atoi(optarg);
		else if (opt == 'i')
			idle_timeout_s = (unsigned)atoi(optarg);
		else
			goto usage;
	}
	if (argc - optind != 3)
		goto usage;
	hc_setup(argv[optind], hc_env_port("SHOAL_NFS_PORT", 2049),
		 hc_env_port("SHOAL_MOUNT_PORT", 20048));
	srv_pid = (pid_t)atoi(argv[optind + 2]);
	srand(5);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < CONN_LIMIT + 400) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < CONN_LIMIT + 400) {
			printf("FAIL setup: expected an fd limit of %u got %lu (ulimit -n)\n",
			       CONN_LIMIT + 400, (unsigned long)rl.rlim_cur);
			return 1;
		}
	}
	hc_set_timeout(PROBE_DEADLINE_MS);
	if (!setup_files(argv[optind + 1]))
		return 1;
	base_kib = read_status("VmRSS:", &dead);
	if (dead || base_kib <= 0) {
		printf("FAIL setup: expected to read VmRSS of pid %d\n", (int)srv_pid);
		return 1;
	}
	printf("    server base RSS %.1f MiB; per connection: idle %.1f KiB, mid-record %.2f MiB, "
	       "not reading %.1f MiB; per loop kept %.1f MiB\n",
	       base_kib / 1024.0, conn_cost() / 1024.0, partial_cost() / MIB, hostile_cost() / MIB,
	       loop_cost() / MIB);
	pthread_create(&sampler, NULL, sampler_main, NULL);
	pthread_create(&probe, NULL, probe_main, NULL);
	for (size_t i = 0; call_mem_mib && i < sizeof(budget_cases) / sizeof(budget_cases[0]) &&
			   !atomic_load(&srv_dead);
	     i++)
		run_case(&budget_cases[i]);
	for (size_t i = 0; idle_timeout_s && i < sizeof(idle_cases) / sizeof(idle_cases[0]) &&
			   !atomic_load(&srv_dead);
	     i++)
		run_case(&idle_cases[i]);
	for (size_t i = 0; !call_mem_mib && !idle_timeout_s &&
			   i < sizeof(cases) / sizeof(cases[0]) && !atomic_load(&srv_dead);
	     i++)
		run_case(&cases[i]);
	atomic_store(&stop_bg, true);
	pthread_join(probe, NULL);
	pthread_join(sampler, NULL);
	dead = atomic_load(&srv_dead);
	read_status("VmHWM:", &dead);
	/* The figures of a -m run are labelled apart from those of the main run. */
	tag = call_mem_mib ? " (memory cap)" : idle_timeout_s ? " (idle timeout)" : "";
	printf("probe%s: %ld calls, slowest %ld ms, %ld late or unanswered (deadline %d ms)\n", tag,
	       atomic_load(&probe_calls), atomic_load(&probe_max_ms), atomic_load(&probe_late),
	       PROBE_DEADLINE_MS);
	if (atomic_load(&peak_rss_kib) / 1024.0 > bound_mib())
		check_fail("memory-bound", "expected peak RSS under %.1f MiB got %.1f MiB",
			   bound_mib(), atomic_load(&peak_rss_kib) / 1024.0);
	else
		printf("ok memory-bound (peak %.1f MiB <= bound %.1f MiB)\n",
		       atomic_load(&peak_rss_kib) / 1024.0, bound_mib());
	printf("hostile%s: %d cases, server %s\n", tag, ncases, dead ? "DEAD" : "up");
	printf("peak RSS under load%s: %.1f MiB (bound %.1f MiB)\n", tag,
	       atomic_load(&peak_rss_kib) / 1024.0, bound_mib());
	printf("%s: %d failed\n", check_failures() || dead ? "FAILED" : "PASSED", check_failures());
	hc_thread_done();
	return check_failures() || dead ? 1 : 0;
usage:
	fprintf(stderr, "usage: hostile [-s] [-a] [-t THREADS] [-m MIB [-r S] | -i S] HOST "
			"EXPORT-PATH SERVER-PID\n");
	return 2;
}
