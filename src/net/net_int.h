/*
 * net_int.h - private structures of the transport: server, event loops, connections,
 * pooled requests and the blocking pool.
 *
 * Ownership: a request belongs to the loop that received it for its whole life; the
 * blocking pool borrows it and hands it back through the loop's completion stack.
 * A connection is touched only by its loop, so its reference count needs no atomics:
 * one reference while it is open, one per request that names it, one while it sits
 * on the loop's dirty list. The one exception is its socket's sending side: a pool
 * thread may write a reply straight to the socket (net_req_reply_direct()), under the
 * connection's tx_lock, which guards what decides whether it may (closed, the send
 * queue, tx_part).
 *
 * Locks: the pool mutex (protects its job queue) and each connection's tx_lock are
 * leaves; the DRC's shard mutexes are taken inside rpc calls, never while holding
 * either.
 */
#ifndef SHOAL_NET_INT_H
#define SHOAL_NET_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "net/net.h"
#include "net/net_peers.h"
#include "net/net_prio.h"
#include "net/recmark.h"
#include "rpc/rpc_int.h"

#define NET_MAX_RECORD	 (1024 * 1024 + 64 * 1024)
#define NET_REQ_RBUF	 8192	     /* inline receive buffer of a request */
#define NET_REPLY_BUF	 (64 * 1024) /* inline reply buffer */
#define NET_CONN_RBUF	 (64 * 1024) /* per-connection receive buffer */
#define NET_DIRECT_MIN	 (16 * 1024) /* receive fragment rests this big straight into the request */
#define NET_MAX_INFLIGHT 128	     /* calls in progress per connection */
#define NET_MAX_QUEUED	 (4u << 20)  /* queued reply bytes per connection */
/* Calls per connection in the blocking pool. At this many the connection stops reading,
 * cheap calls too: one connection (as a kernel client uses) with 64 calls in flight
 * over a journaled ext4 at 16,000 ops/s saw GETATTRs at 3.4 ms with 8, 0.77 ms with 16
 * and 0.61 ms with 32. Each may hold a record (NET_MAX_RECORD): 16 of them are 17 MiB
 * that one connection can pin. */
#define NET_MAX_BLOCKING  16
#define NET_UDP_INFLIGHT  1024 /* UDP calls in progress per loop */
#define NET_POOL_KEEP	  256  /* free requests kept per loop */
#define NET_BIG_KEEP	  4    /* large receive buffers kept per loop */
#define NET_MAX_LISTENERS 16
#define NET_SWEEP_MS	  1000	     /* how often a loop looks for stalled records */
#define NET_NO_SWEEP	  UINT64_MAX /* next_sweep_ms with nothing to time */
#define NET_REPLY_IOV	  (2 * XDR_OUT_MAXSEG + 2)

enum net_ev_kind { NET_EV_WAKE, NET_EV_LISTEN, NET_EV_UDP, NET_EV_CONN };

/* What an epoll event's data.ptr points at: the first member of each watched object. */
struct net_ev {
	enum net_ev_kind kind;
};

struct net_loop;
struct net_conn;

struct net_req {
	struct rpc_req req;
	struct rpc_req_priv rp;
	struct net_loop *loop;
	struct net_conn *conn; /* NULL for UDP */
	int udp_fd;	       /* UDP: the socket to answer on */
	bool udp_v6;	       /* UDP: that socket is AF_INET6 (answer v4-mapped) */
	/* UDP: the address the datagram was sent to (IP_PKTINFO / IPV6_PKTINFO), which the
	 * reply comes from; 0, 4 or 6 for none, pi4 or pi6. */
	uint8_t udp_dst;
	union {
		struct in_pktinfo pi4;
		struct in6_pktinfo pi6;
	} udp_dst_info;
	struct net_req *next; /* free list, send queue, pool queue or completion stack */
	uint8_t *rbuf;	      /* the call: small[] or a NET_MAX_RECORD heap buffer */
	size_t rlen;
	size_t rcap;
	bool big_given;	  /* rbuf is large but already given back to the budget */
	size_t reply_res; /* bytes of the budget reserved for its reply (net_mem.c) */
	bool sent;	  /* a pool thread wrote the whole reply (net_req_reply_direct()) */
	size_t tx_off;	  /* as the connection's tx_part: bytes of it already written */
	size_t total;	  /* reply bytes including the record mark */
	unsigned niov;
	uint8_t mark[4];
	struct iovec iov[NET_REPLY_IOV];
	uint8_t small[NET_REQ_RBUF];
	uint8_t reply[NET_REPLY_BUF];
};

struct net_conn {
	struct net_ev ev;
	int fd;
	struct net_loop *loop;
	unsigned refs;
	/* Taken by the loop around every change of closed, sq_head/sq_tail/sq_off and
	 * tx_part, and around its own sends; by a pool thread around a direct send. */
	pthread_mutex_t tx_lock;
	/* A reply a pool thread began to write and the socket did not take whole: nothing
	 * else may be written until the loop, given it back, puts it first in the queue. */
	struct net_req *tx_part;
	bool closed;
	bool paused;	 /* EPOLLIN removed by back-pressure or shutdown */
	bool dirty;	 /* on loop->dirty */
	bool mem_wait;	 /* on loop->mw_head: its record waits for a large buffer */
	uint32_t events; /* current epoll mask */
	unsigned inflight;
	unsigned blocking; /* calls in the blocking pool, whose replies are not yet counted */
	size_t queued;
	struct net_req *sq_head, *sq_tail;
	size_t sq_off; /* bytes of sq_head already written */
	struct net_conn *dirty_next;
	struct net_conn *dead_next;	    /* loop->dead */
	struct net_conn *prev, *next;	    /* loop->conns */
	struct net_conn *mw_prev, *mw_next; /* loop->mw_head */
	uint64_t rx_ms; /* loop->now_ms when bytes last came (for the record timeout) */
	/* loop->now_ms when its queued replies last moved (began to wait, or the socket
	 * took bytes): a client that reads none of them for the record timeout is closed. */
	uint64_t tx_ms;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	struct net_acct *acct; /* its address's call memory (a reference) */
	uint16_t local_port;
	struct recmark rm;
	struct net_req *cur; /* record being assembled */
	/* A call decoded but not started: its reply's share of the budget was not there.
	 * It runs (as parked_step says) once the budget has room; the connection reads
	 * nothing meanwhile. */
	struct net_req *parked;
	enum rpc_step parked_step;
	size_t rpos, rlen;
	uint8_t rbuf[NET_CONN_RBUF];
};

/* A socket of one loop: its TCP listener or UDP socket for one listen() call. */
struct net_sock {
	struct net_ev ev;
	int fd;
	uint16_t port;
	struct net_loop *loop;
};

/* A connection accepted by one loop for another: the socket and what conn_new() needs. */
struct net_incoming {
	struct net_incoming *next;
	int fd;
	uint16_t port;
	socklen_t len;
	struct sockaddr_storage ss;
	struct net_acct *acct; /* the reference net_peers_take() gave */
};

struct net_loop {
	struct net_server *srv;
	struct net_ev wake_ev;
	int epfd;
	int evfd;
	pthread_t thr;
	bool started;
	atomic_bool stop_req;
	bool stopping;
	unsigned stop_grace_ms; /* written before stop_req is set */
	uint64_t deadline_ms;
	struct net_sock socks[NET_MAX_LISTENERS];
	unsigned nsocks;
	_Atomic(struct net_req *) done; /* completions pushed by the blocking pool */
	atomic_bool done_woken;		/* a pusher wrote evfd since the loop last took done */
	/* Paused connections: while there are any, completions may be what resumes one, so
	 * pool threads wake the loop for each (net_pool.c). */
	atomic_uint npaused;
	/* Connections closed and not yet freed (some have calls still in a pool): while
	 * there are any, pool threads wake the loop for each completion, so that such a
	 * connection is freed, and stops counting against its address's and the server's
	 * limits, as soon as its last call is done, not when the loop next happens to wake
	 * (loop_reap()). */
	atomic_uint nclosing;
	/* Connections another loop accepted and placed here (listen_accept()). */
	_Atomic(struct net_incoming *) incoming;
	/* Connections of this loop, counting those placed but not yet taken in: raised
	 * by the loop that places one, lowered by this loop when it closes one. */
	atomic_uint nconn;
	struct net_req *free;
	unsigned nfree;
	uint8_t *bigs[NET_BIG_KEEP];
	unsigned nbig;
	struct net_conn *conns;
	struct net_conn *dirty;
	/* Connections whose last reference went during this batch of epoll events: a
	 * later event of the batch may still name one, so they are freed after it. */
	struct net_conn *dead;
	/* Connections waiting for a large buffer (net_mem.c), oldest first; their number,
	 * read by the threads that give buffers back. */
	struct net_conn *mw_head, *mw_tail;
	atomic_uint mwaiting;
	uint64_t now_ms;      /* CLOCK_MONOTONIC when epoll_wait last returned */
	struct net_prio prio; /* its priority (net_prio.h), asked for before it starts */
	/* When to look for stalled records and idle connections again, or NET_NO_SWEEP. */
	uint64_t next_sweep_ms;
	/* Calls queued on each blocking pool for which no pool thread was woken yet
	 * (loop_start_pools()). */
	unsigned unwoken[RPC_NPOOLS];
	unsigned inflight; /* requests of this loop not yet released */
	unsigned udp_inflight;
	/* Written by the loop, read by net_server_counters() (relaxed atomics). */
	_Atomic uint64_t oversized;	 /* records over NET_MAX_RECORD (connections closed) */
	_Atomic uint64_t refused;	 /* connections refused over max_connections */
	_Atomic uint64_t refused_client; /* refused over max_client_connections */
	uint64_t client_warn_ms;	 /* no warning of a refused client before then */
	_Atomic uint64_t mem_waits;	 /* times a connection waited for a large buffer */
	_Atomic uint64_t stalled;	 /* connections closed by the record timeout */
	_Atomic uint64_t idle;		 /* connections closed by the idle timeout */
	uint8_t udp_spill[65536];
};

struct net_pool {
	pthread_mutex_t lock; /* protects head, tail and stop */
	/* One post per wake-up asked for (net_pool_wake(), net_pool_stop()): a semaphore,
	 * not a condition variable, whose waiter takes the lock back marked contended and
	 * so makes one more futex call at every unlock after a wake-up. */
	sem_t wake;
	struct net_req *head, *tail;
	bool stop;
	pthread_t *thr;
	unsigned nthr;
	unsigned started;
	_Atomic uint64_t grouped;     /* calls run in a group after its first (rpc_proc.gathers) */
	_Atomic uint64_t empty_wakes; /* a thread woken found no call queued */
};

struct net_server {
	struct net_opts opts;
	struct net_loop *loops;
	unsigned nloops;
	unsigned nlisteners;
	struct drc *drc;
	struct net_pool pools[RPC_NPOOLS]; /* indexed by enum rpc_pool */
	/* Connections counted against max_connections: open ones, and closed ones whose
	 * calls are still running (freed in loop_reap()). */
	atomic_uint nconns;
	struct net_peers peers;	 /* connections per client address, counted alike */
	size_t mem_cap;		 /* bytes that large calls and replies may hold at once */
	size_t mem_share;	 /* of those, what one client address may hold */
	_Atomic size_t mem_held; /* held now */
	bool started;
	bool stopped;
};

/* net_loop.c */
int net_loop_init(struct net_loop *l, struct net_server *s);
void net_loop_fini(struct net_loop *l);
void *net_loop_main(void *arg);
/* Ask a loop to begin its graceful stop. */
void net_loop_wake_stop(struct net_loop *l);
/* After the loop thread and the pool have ended: finish what the pool handed back. */
void net_loop_drain(struct net_loop *l);
/*
 * Called by a pool thread once @r has run and its reply is encoded: write the reply
 * straight to its connection's socket when nothing is queued before it. Sets r->sent if
 * it was written whole: the loop then has only to release @r.
 */
void net_req_reply_direct(struct net_req *r);

/* net_mem.c */
/* The budget in bytes for @mib MiB; 0 for the default (an eighth of RAM, 64 MiB to
 * 4 GiB). At least one large receive buffer (NET_MAX_RECORD). */
size_t net_mem_cap(unsigned mib);
/* What one client address may hold of a budget of @cap bytes. */
size_t net_mem_share(size_t cap);
/* Take @bytes (at most NET_MAX_RECORD) from the budget, for a client address's account
 * @a (NULL: none, UDP); false if the budget or the address's share lacks them. */
bool net_mem_take(struct net_server *s, struct net_acct *a, size_t bytes);
/* True if @a (NULL: none) holds too much to take @bytes more, whatever the budget. */
bool net_mem_over_share(const struct net_server *s, struct net_acct *a, size_t bytes);
/* Give @bytes taken for @a back, waking the loops that have connections waiting. */
void net_mem_give(struct net_server *s, struct net_acct *a, size_t bytes);

/* net_pool.c */
/* Start @n threads, named @prefix and their number (for ps -L, top -H, perf). */
int net_pool_start(struct net_pool *p, unsigned n, const char *prefix);
/* Queue @r. No thread is woken for it: the caller wakes them later, net_pool_wake(),
 * one for each call for which this returned true (false: it joins the group of the
 * call queued before it, whose thread takes it). */
bool net_pool_submit(struct net_pool *p, struct net_req *r);
/* Wake up to @n idle threads of @p, for the calls submitted since the last wake. */
void net_pool_wake(struct net_pool *p, unsigned n);
/* Let queued jobs finish, then join the threads. */
void net_pool_stop(struct net_pool *p);

#endif
