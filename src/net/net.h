/*
 * net.h - the transport: listeners, per-thread event loops, TCP record marking,
 * UDP datagrams, the blocking-work pool, back-pressure and graceful shutdown.
 *
 * Every connection lives on one event loop for its whole life. A complete RPC record
 * becomes a struct rpc_req that the rpc layer serves; replies may complete out of
 * order and are written back by the owning loop.
 */
#ifndef SHOAL_NET_H
#define SHOAL_NET_H

#include <stdint.h>

struct net_opts {
	unsigned threads;	   /* event-loop threads; 0 = one per CPU */
	unsigned blocking_threads; /* threads of each blocking pool; 0 = default (32) */
	unsigned max_connections;  /* 0 = default (4096) */
	/* TCP connections one client address may hold at once; 0 = default (512), above
	 * max_connections the same as it. */
	unsigned max_client_connections;
	/* MiB that calls over 8 KiB may hold at once, being received or served, over all
	 * connections (a connection whose call needs more waits); 0 = default (an eighth
	 * of RAM, 64 MiB to 4 GiB). */
	unsigned max_call_mib;
	/* A connection whose record in progress receives nothing for this long is closed;
	 * 0 = default (60 s). Checked once a second. */
	unsigned record_timeout_ms;
	/* A connection with no call in progress that has sent nothing for this long is
	 * closed (its client reconnects when it needs to); 0 = default (360 s, as Linux's
	 * nfsd), NET_IDLE_NEVER = never. Checked every eighth of it, at least every second. */
	unsigned idle_timeout_ms;
	/* SCHED_FIFO priority of the event loops while they are not busy (under half of
	 * their CPU, under 8,000 calls a second: net_prio.h), 1-99; 0 = default (1),
	 * NET_PRIO_NONE = ordinary threads. */
	int loop_priority;
};

#define NET_PRIO_NONE (-1)

#define NET_IDLE_NEVER 0xffffffffu

struct net_server;

/* Create a server (no threads yet). Returns 0 or a negative errno. */
int net_server_new(const struct net_opts *opts, struct net_server **out);
/*
 * Bind a listener for all registered RPC programs. @proto is IPPROTO_TCP or
 * IPPROTO_UDP, @addr a numeric IPv4/IPv6 address or NULL for any, @port 0 for an
 * ephemeral port. *bound gets the port actually bound. Returns 0, -EADDRINUSE,
 * -EACCES (privileged port) or another negative errno.
 */
int net_server_listen(struct net_server *s, int proto, const char *addr, uint16_t port,
		      uint16_t *bound);
/* Start the event loops and the blocking pools. Returns 0 or a negative errno. */
int net_server_start(struct net_server *s);
/*
 * Stop: close the listeners, let every call already received finish and its reply
 * be written (for at most @grace_ms), then close all connections and join threads.
 */
void net_server_stop(struct net_server *s, unsigned grace_ms);
void net_server_free(struct net_server *s);

/* What the server has counted since it started, for its operators. */
struct net_counters {
	uint64_t drc_hits;	  /* retransmissions answered from the duplicate request cache */
	uint64_t drc_in_progress; /* retransmissions dropped while the original still ran */
	uint64_t drc_misses;
	uint64_t drc_evictions;
	uint64_t oversized;	 /* records over the size limit (connections closed) */
	uint64_t refused;	 /* connections refused over max_connections */
	uint64_t refused_client; /* refused over max_client_connections */
	uint64_t mem_waits;	 /* times a connection waited for memory for a large call */
	uint64_t stalled;	 /* connections closed by the record timeout */
	uint64_t idle;		 /* connections closed by the idle timeout */
	uint64_t grouped;	 /* calls run in a group after its first (one sync for several) */
	uint64_t empty_wakes;	 /* pool threads woken that found no call (another took it) */
	unsigned connections;
};
void net_server_counters(struct net_server *s, struct net_counters *c);

#endif
