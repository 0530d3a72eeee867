/*
 * net.c - the transport's life cycle (see net.h): create, listen, start, stop, free.
 *
 * Every listener is opened once per event loop with SO_REUSEPORT, so the kernel
 * spreads UDP datagrams and incoming TCP connections over the loops; a loop that
 * accepts a connection while another has fewer hands it over (net_loop.c), so that
 * connections stay evenly spread. No lock or hand-off sits on the call path.
 */
#include "net/net_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/log.h"

/* Threads of each blocking pool. A stable call waits for the file system's commit (a
 * journal commit, or a cache flush), and the calls that wait together share one: on a
 * 2-CPU machine, over ext4 with a journal on a loop device, the SFS mix reached 17,000
 * ops/s with stable WRITEs at 19 ms with 8 threads, 27,000 at 5.6 ms with 32; over ext4
 * without a journal, 8 and 32 did alike. */
#define NET_DEF_BLOCKING 32
#define NET_DEF_MAXCONN	 4096
/* Connections one client address may hold: enough for a load generator's 256 (issue
 * #2's floor) twice over, while one host can take only an eighth of the default limit. */
#define NET_DEF_MAXPEER 512
/* No byte of a record in progress for this long: the client is gone or hostile. A live
 * client's TCP gives up on a dead path in minutes; a minute of silence mid-record is
 * beyond anything a working client does. */
#define NET_DEF_RECORD_MS 60000
/* Connections that carry nothing for this long are closed, as Linux's nfsd closes its
 * idle ones after 6 minutes: a client that vanished without a word (powered off, its
 * network gone) must not keep its connection, and a slot of the limit, for ever. */
#define NET_DEF_IDLE_MS 360000
/* The lowest real-time priority: above every ordinary thread, below anything an
 * administrator made real-time on purpose. */
#define NET_DEF_LOOP_PRIO 1
#define NET_DRC_SHARDS	  16
#define NET_DRC_ENTRIES	  512 /* per shard */
#define NET_DRC_BYTES	  (32u << 20)
#define NET_DRC_TTL_MS	  120000

int net_server_new(const struct net_opts *opts, struct net_server **out)
{
	struct net_server *s = calloc(1, sizeof(*s));
	long ncpu;
	int err;

	if (!s)
		return -ENOMEM;
	if (opts)
		s->opts = *opts;
	if (!s->opts.threads) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		s->opts.threads = ncpu > 0 ? (unsigned)ncpu : 1;
	}
	if (!s->opts.blocking_threads)
		s->opts.blocking_threads = NET_DEF_BLOCKING;
	if (!s->opts.max_connections)
		s->opts.max_connections = NET_DEF_MAXCONN;
	if (!s->opts.max_client_connections)
		s->opts.max_client_connections = NET_DEF_MAXPEER;
	if (s->opts.max_client_connections > s->opts.max_connections)
		s->opts.max_client_connections = s->opts.max_connections;
	if (!s->opts.record_timeout_ms)
		s->opts.record_timeout_ms = NET_DEF_RECORD_MS;
	if (!s->opts.idle_timeout_ms)
		s->opts.idle_timeout_ms = NET_DEF_IDLE_MS;
	if (!s->opts.loop_priority)
		s->opts.loop_priority = NET_DEF_LOOP_PRIO;
	atomic_init(&s->nconns, 0);
	s->mem_cap = net_mem_cap(s->opts.max_call_mib);
	s->mem_share = net_mem_share(s->mem_cap);
	atomic_init(&s->mem_held, 0);
	for (unsigned i = 0; i < RPC_NPOOLS; i++) {
		pthread_mutex_init(&s->pools[i].lock, NULL);
		sem_init(&s->pools[i].wake, 0, 0);
	}
	s->loops = calloc(s->opts.threads, sizeof(*s->loops));
	s->drc = drc_new(NET_DRC_SHARDS, NET_DRC_ENTRIES, NET_DRC_BYTES, NET_DRC_TTL_MS);
	if (!s->loops || !s->drc ||
	    net_peers_init(&s->peers, s->opts.max_connections, s->opts.max_client_connections)) {
		err = -ENOMEM;
		goto err;
	}
	for (unsigned i = 0; i < s->opts.threads; i++) {
		s->loops[i].epfd = -1;
		s->loops[i].evfd = -1;
	}
	for (s->nloops = 0; s->nloops < s->opts.threads; s->nloops++) {
		err = net_loop_init(&s->loops[s->nloops], s);
		if (err) {
			s->nloops++;
			goto err;
		}
	}
	*out = s;
	return 0;
err:
	net_server_free(s);
	return err;
}

/* Resolve @addr (NULL: the IPv6 wildcard, dual-stack, else IPv4's) into @ss. */
static int net_resolve(const char *addr, int family, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6 ||
	    (!family && addr && inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1)) {
		s6->sin6_family = AF_INET6;
		if (addr && inet_pton(AF_INET6, addr, &s6->sin6_addr) != 1)
			return -EINVAL;
		*len = sizeof(*s6);
		return 0;
	}
	s4->sin_family = AF_INET;
	if (addr && inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
		return -EINVAL;
	*len = sizeof(*s4);
	return 0;
}

static void net_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* Open, configure and bind one socket; *port is updated when it was 0. */
static int net_open(struct sockaddr_storage *ss, socklen_t len, int type, bool dual, bool reuseport,
		    uint16_t *port)
{
	int one = 1, v6only = dual ? 0 : 1, buf = 4 << 20, fd, err;
	struct sockaddr_storage got;
	socklen_t glen = sizeof(got);

	fd = socket(ss->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto err;
	if (ss->ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)) < 0)
		goto err;
	if (type == SOCK_DGRAM) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
		/* Learn each datagram's destination address, to answer from it. */
		if (setsockopt(fd, ss->ss_family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
			       ss->ss_family == AF_INET6 ? IPV6_RECVPKTINFO : IP_PKTINFO, &one,
			       sizeof(one)) < 0)
			goto err;
	}
	net_set_port(ss, *port);
	if (bind(fd, (struct sockaddr *)ss, len) < 0)
		goto err;
	if (type == SOCK_STREAM && reuseport && listen(fd, 1024) < 0)
		goto err;
	if (!*port) {
		if (getsockname(fd, (struct sockaddr *)&got, &glen) < 0)
			goto err;
		*port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
							: ((struct sockaddr_in *)&got)->sin_port);
	}
	return fd;
err:
	err = -errno;
	close(fd);
	return err;
}

int net_server_listen(struct net_server *s, int proto, const char *addr, uint16_t port,
		      uint16_t *bound)
{
	int type = proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
	struct sockaddr_storage ss;
	struct epoll_event e;
	socklen_t len;
	unsigned i, k = s->nlisteners;
	int fd, err;

	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return -EPROTONOSUPPORT;
	if (s->started)
		return -EBUSY;
	if (k == NET_MAX_LISTENERS)
		return -ENOSPC;
	err = net_resolve(addr, addr ? 0 : AF_INET6, &ss, &len);
	if (err)
		return err;
	if (port) {
		/*
		 * SO_REUSEPORT would let us share a port that another server of the same
		 * user holds: probe with a plain bind first so that is -EADDRINUSE.
		 */
		fd = net_open(&ss, len, type, !addr, false, &port);
		if (fd == -EAFNOSUPPORT && !addr) {
			net_resolve(NULL, AF_INET, &ss, &len);
			fd = net_open(&ss, len, type, false, false, &port);
		}
		if (fd < 0)
			return fd;
		close(fd);
	}
	for (i = 0; i < s->nloops; i++) {
		fd = net_open(&ss, len, type, !addr && ss.ss_family == AF_INET6, true, &port);
		if (fd == -EAFNOSUPPORT && !addr && i == 0) {
			net_resolve(NULL, AF_INET, &ss, &len);
			fd = net_open(&ss, len, type, false, true, &port);
		}
		if (fd < 0) {
			err = fd;
			goto err;
		}
		s->loops[i].socks[k].ev.kind = type == SOCK_STREAM ? NET_EV_LISTEN : NET_EV_UDP;
		s->loops[i].socks[k].fd = fd;
		s->loops[i].socks[k].port = port;
		s->loops[i].socks[k].loop = &s->loops[i];
		e.events = EPOLLIN;
		e.data.ptr = &s->loops[i].socks[k].ev;
		if (epoll_ctl(s->loops[i].epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
			err = -errno;
			close(fd);
			goto err;
		}
	}
	for (i = 0; i < s->nloops; i++)
		s->loops[i].nsocks = k + 1;
	s->nlisteners++;
	if (bound)
		*bound = port;
	return 0;
err:
	while (i-- > 0) {
		epoll_ctl(s->loops[i].epfd, EPOLL_CTL_DEL, s->loops[i].socks[k].fd, NULL);
		close(s->loops[i].socks[k].fd);
	}
	return err;
}

/* Thread names (at most 15 characters) show in ps -L, top -H and perf. */
static const char *const pool_names[RPC_NPOOLS] = {
	[RPC_POOL_SYNC] = "shoal-sync",
	[RPC_POOL_READ] = "shoal-read",
};

int net_server_start(struct net_server *s)
{
	char name[16];
	int err;

	if (s->started)
		return -EBUSY;
	s->started = true;
	for (unsigned i = 0; i < RPC_NPOOLS; i++) {
		err = net_pool_start(&s->pools[i], s->opts.blocking_threads, pool_names[i]);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < s->nloops; i++) {
		err = net_prio_create(&s->loops[i].thr, &s->loops[i].prio, s->opts.loop_priority,
				      net_loop_main, &s->loops[i]);
		if (err)
			return err;
		snprintf(name, sizeof(name), "shoal-loop%u", i % 10000);
		pthread_setname_np(s->loops[i].thr, name); /* a name only: failure is harmless */
		s->loops[i].started = true;
	}
	return 0;
}

void net_server_stop(struct net_server *s, unsigned grace_ms)
{
	if (!s->started || s->stopped) {
		s->stopped = true;
		return;
	}
	for (unsigned i = 0; i < s->nloops; i++) {
		s->loops[i].stop_grace_ms = grace_ms;
		if (s->loops[i].started)
			net_loop_wake_stop(&s->loops[i]);
	}
	for (unsigned i = 0; i < s->nloops; i++) {
		if (s->loops[i].started)
			pthread_join(s->loops[i].thr, NULL);
	}
	/* Blocking jobs still queued finish now; their replies go nowhere but the DRC. */
	for (unsigned i = 0; i < RPC_NPOOLS; i++)
		net_pool_stop(&s->pools[i]);
	for (unsigned i = 0; i < s->nloops; i++)
		net_loop_drain(&s->loops[i]);
	s->stopped = true;
}

void net_server_counters(struct net_server *s, struct net_counters *c)
{
	struct drc_stats d;

	memset(c, 0, sizeof(*c));
	drc_get_stats(s->drc, &d);
	c->drc_hits = d.hits;
	c->drc_in_progress = d.in_progress;
	c->drc_misses = d.misses;
	c->drc_evictions = d.evictions;
	for (unsigned i = 0; i < s->nloops; i++) {
		c->oversized += atomic_load_explicit(&s->loops[i].oversized, memory_order_relaxed);
		c->refused += atomic_load_explicit(&s->loops[i].refused, memory_order_relaxed);
		c->refused_client +=
			atomic_load_explicit(&s->loops[i].refused_client, memory_order_relaxed);
		c->mem_waits += atomic_load_explicit(&s->loops[i].mem_waits, memory_order_relaxed);
		c->stalled += atomic_load_explicit(&s->loops[i].stalled, memory_order_relaxed);
		c->idle += atomic_load_explicit(&s->loops[i].idle, memory_order_relaxed);
	}
	for (unsigned i = 0; i < RPC_NPOOLS; i++) {
		c->grouped += atomic_load_explicit(&s->pools[i].grouped, memory_order_relaxed);
		c->empty_wakes +=
			atomic_load_explicit(&s->pools[i].empty_wakes, memory_order_relaxed);
	}
	for (unsigned i = 0; i < s->nloops; i++) /* open ones: not those still finishing calls */
		c->connections += atomic_load_explicit(&s->loops[i].nconn, memory_order_relaxed);
}

void net_server_free(struct net_server *s)
{
	if (!s)
		return;
	if (s->started && !s->stopped)
		net_server_stop(s, 0);
	if (s->loops) {
		for (unsigned i = 0; i < s->nloops; i++)
			net_loop_fini(&s->loops[i]);
	}
	drc_free(s->drc);
	net_peers_fini(&s->peers);
	for (unsigned i = 0; i < RPC_NPOOLS; i++) {
		pthread_mutex_destroy(&s->pools[i].lock);
		sem_destroy(&s->pools[i].wake);
	}
	free(s->loops);
	free(s);
}
