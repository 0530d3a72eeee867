/*
 * net_peers.c - connections per client address (see net_peers.h).
 *
 * Open addressing with linear probing, at most half full (the table has twice as many
 * slots as the server allows connections, so as addresses), and backward-shift
 * deletion: an address whose last connection closes leaves no tombstone, so probes
 * stay short however many clients come and go.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/siphash.h"
#include "net/net_peers.h"

/* The 16-byte key of @ss: an IPv6 address, IPv4 in its mapped form, else zeros. */
static void peer_key(const struct sockaddr_storage *ss, uint8_t key[16])
{
	memset(key, 0, 16);
	if (ss->ss_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		key[10] = 0xff;
		key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

static uint32_t home_of(const struct net_peers *p, const uint8_t key[16])
{
	return (uint32_t)siphash24(p->hash_key, key, 16) & p->mask;
}

/* The slot holding @key, or the free slot where it would go. Called locked. */
static uint32_t find_slot(const struct net_peers *p, const uint8_t key[16])
{
	uint32_t i = home_of(p, key);

	while (p->slots[i].conns && memcmp(p->slots[i].addr, key, 16) != 0)
		i = (i + 1) & p->mask;
	return i;
}

int net_peers_init(struct net_peers *p, uint32_t max_conns, uint32_t limit)
{
	uint32_t n = 16;

	memset(p, 0, sizeof(*p));
	while (n < 2 * (uint64_t)max_conns && n < (1u << 30))
		n <<= 1;
	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots)
		return -ENOMEM;
	p->mask = n - 1;
	p->limit = limit ? limit : 1;
	/* Without randomness the key is fixed: collisions become choosable, not wrong. */
	if (getrandom(p->hash_key, sizeof(p->hash_key), GRND_NONBLOCK) != sizeof(p->hash_key))
		memset(p->hash_key, 0x5a, sizeof(p->hash_key));
	pthread_mutex_init(&p->lock, NULL);
	return 0;
}

void net_peers_fini(struct net_peers *p)
{
	if (!p->slots)
		return;
	for (uint32_t i = 0; i <= p->mask; i++) {
		if (p->slots[i].conns)
			net_acct_put(p->slots[i].acct);
	}
	pthread_mutex_destroy(&p->lock);
	free(p->slots);
	p->slots = NULL;
}

struct net_acct *net_peers_take(struct net_peers *p, const struct sockaddr_storage *ss)
{
	uint8_t key[16];
	struct net_peer *e;
	struct net_acct *a = NULL;
	bool ok;

	peer_key(ss, key);
	pthread_mutex_lock(&p->lock);
	e = &p->slots[find_slot(p, key)];
	ok = e->conns < p->limit;
	if (ok && !e->conns) {
		e->acct = malloc(sizeof(*e->acct));
		ok = e->acct != NULL;
		if (ok) {
			atomic_init(&e->acct->held, 0);
			atomic_init(&e->acct->refs, 1);
			memcpy(e->addr, key, 16);
		}
	}
	if (ok) {
		e->conns++;
		a = e->acct;
		atomic_fetch_add(&a->refs, 1);
	}
	pthread_mutex_unlock(&p->lock);
	return a;
}

struct net_acct *net_peers_acct(struct net_peers *p, const struct sockaddr_storage *ss)
{
	uint8_t key[16];
	struct net_peer *e;
	struct net_acct *a = NULL;

	peer_key(ss, key);
	pthread_mutex_lock(&p->lock);
	e = &p->slots[find_slot(p, key)];
	if (e->conns) {
		a = e->acct;
		atomic_fetch_add(&a->refs, 1);
	}
	pthread_mutex_unlock(&p->lock);
	return a;
}

void net_acct_put(struct net_acct *a)
{
	if (a && atomic_fetch_sub(&a->refs, 1) == 1)
		free(a);
}

/* Empty slot @i, moving back the entries after it that probed past it. Called locked. */
static void remove_slot(struct net_peers *p, uint32_t i)
{
	uint32_t j = i;

	net_acct_put(p->slots[i].acct);
	for (;;) {
		uint32_t home;

		j = (j + 1) & p->mask;
		if (!p->slots[j].conns)
			break;
		home = home_of(p, p->slots[j].addr);
		/* Entry j may fill hole i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			p->slots[i] = p->slots[j];
			i = j;
		}
	}
	p->slots[i].conns = 0;
}

void net_peers_give(struct net_peers *p, const struct sockaddr_storage *ss)
{
	uint8_t key[16];
	uint32_t i;

	peer_key(ss, key);
	pthread_mutex_lock(&p->lock);
	i = find_slot(p, key);
	if (p->slots[i].conns && --p->slots[i].conns == 0)
		remove_slot(p, i);
	pthread_mutex_unlock(&p->lock);
}

uint32_t net_peers_count(struct net_peers *p, const struct sockaddr_storage *ss)
{
	uint8_t key[16];
	uint32_t n;

	peer_key(ss, key);
	pthread_mutex_lock(&p->lock);
	n = p->slots[find_slot(p, key)].conns;
	pthread_mutex_unlock(&p->lock);
	return n;
}
