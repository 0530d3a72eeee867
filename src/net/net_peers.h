/*
 * net_peers.h - how many TCP connections each client address holds, so that one host
 * cannot take every connection the server allows and lock the others out; and each
 * address's account of call memory (net_mem.c), so that one host cannot take the
 * server's whole budget either.
 *
 * An address is the client's IP address alone (an IPv4 address and its IPv4-mapped
 * IPv6 form are one client); ports do not count. The table is fixed at creation, sized
 * for the server's connection limit, and shared by the event loops under one mutex:
 * it is touched once when a connection is accepted and once when it is freed, never
 * per call. A connection counts until it is freed, not when its socket closes: while
 * calls of a closed connection still run, its address keeps its account, so that a
 * client that reconnects finds what those calls hold still charged to it. An account is
 * reached from its connections without the table (a pointer each, atomics): it lives
 * while the address is in the table or any connection of it is.
 */
#ifndef SHOAL_NET_PEERS_H
#define SHOAL_NET_PEERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* What one client address holds of the server's call memory. */
struct net_acct {
	_Atomic size_t held; /* bytes */
	atomic_uint refs;    /* the table's slot, and each connection's (net_peers_acct()) */
};

struct net_peer {
	uint8_t addr[16];      /* IPv6, or IPv4-mapped */
	uint32_t conns;	       /* 0: the slot is free */
	struct net_acct *acct; /* one reference */
};

struct net_peers {
	pthread_mutex_t lock;
	struct net_peer *slots;
	uint32_t mask;	      /* slots - 1; a power of two at least twice the addresses */
	uint32_t limit;	      /* connections one address may hold */
	uint8_t hash_key[16]; /* keyed hash: clients cannot choose colliding addresses */
};

/* A table for up to @max_conns connections at once, @limit per address. Returns 0 or
 * -ENOMEM. */
int net_peers_init(struct net_peers *p, uint32_t max_conns, uint32_t limit);
void net_peers_fini(struct net_peers *p);
/* Count one more connection from @ss and return its address's account with a reference
 * for the connection (one lock for both, taken once per accepted socket); NULL (nothing
 * counted) if the address already holds @limit, or is new and no memory is left for its
 * account. Addresses of other families than IPv4/IPv6 share one entry. */
struct net_acct *net_peers_take(struct net_peers *p, const struct sockaddr_storage *ss);
/* The connection from @ss, counted by net_peers_take(), is gone with its calls. */
void net_peers_give(struct net_peers *p, const struct sockaddr_storage *ss);
/* The account of @ss, counted by net_peers_take() and not yet given back, with one more
 * reference for the caller; NULL if it is not counted (for tests). */
struct net_acct *net_peers_acct(struct net_peers *p, const struct sockaddr_storage *ss);
/* Drop a reference to @a (NULL: none); the last frees it. Any thread. */
void net_acct_put(struct net_acct *a);
/* Connections counted for @ss now (for tests and the log). */
uint32_t net_peers_count(struct net_peers *p, const struct sockaddr_storage *ss);

#endif
