/*
 * drc.c - the duplicate request cache (see drc.h).
 *
 * Each shard is a fixed array of entries, a chained hash table of entry indices and
 * an LRU list, all protected by the shard's mutex (the only lock here; shards never
 * nest). Small replies live inline in the entry, so the common non-idempotent reply
 * (CREATE, REMOVE, SETATTR) is cached without a malloc; larger ones are copied to the
 * heap and count against the shard's byte bound.
 */
#include "rpc/drc.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "core/clock.h"
#include "core/siphash.h"

#define DRC_INLINE 320
#define DRC_NONE   UINT32_MAX
#define DRC_SUMLEN 256 /* argument bytes checksummed, as knfsd's RC_CSUMLEN */

enum drc_state { DRC_FREE, DRC_BUSY, DRC_DONE };

struct drc_entry {
	struct drc_key key;
	uint64_t hash;
	uint64_t stamp_ms;
	uint32_t gen;
	uint32_t state;
	uint32_t hnext;	       /* next in bucket chain, or in the free list */
	uint32_t lprev, lnext; /* LRU: head is the most recently used */
	uint32_t rlen;
	uint8_t *rbig; /* heap copy of a reply larger than DRC_INLINE */
	uint8_t rinl[DRC_INLINE];
};

struct drc_shard {
	pthread_mutex_t lock; /* protects everything below */
	struct drc_entry *e;
	uint32_t *buckets;
	uint32_t nbuckets;
	uint32_t free;
	uint32_t lru_head, lru_tail;
	size_t bytes; /* heap bytes held by rbig copies */
	struct drc_stats st;
} __attribute__((aligned(64)));

struct drc {
	uint8_t key[16];
	unsigned nshards;
	unsigned per_shard;
	size_t max_bytes; /* per shard */
	uint64_t ttl_ms;
	uint64_t (*now_ms)(void);
	struct drc_shard *shards;
};

static unsigned pow2_at_least(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static int drc_shard_init(struct drc_shard *s, unsigned n)
{
	memset(s, 0, sizeof(*s));
	s->nbuckets = pow2_at_least(n);
	s->e = calloc(n, sizeof(*s->e));
	s->buckets = malloc(s->nbuckets * sizeof(*s->buckets));
	if (!s->e || !s->buckets)
		return -1;
	for (uint32_t i = 0; i < s->nbuckets; i++)
		s->buckets[i] = DRC_NONE;
	for (uint32_t i = 0; i < n; i++)
		s->e[i].hnext = i + 1 < n ? i + 1 : DRC_NONE;
	s->free = 0;
	s->lru_head = s->lru_tail = DRC_NONE;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

struct drc *drc_new(unsigned nshards, unsigned per_shard, size_t max_bytes, unsigned ttl_ms)
{
	struct drc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->nshards = pow2_at_least(nshards ? nshards : 1);
	d->per_shard = per_shard ? per_shard : 1;
	d->max_bytes = max_bytes / d->nshards;
	d->ttl_ms = ttl_ms;
	d->now_ms = mono_coarse_ms;
	if (getrandom(d->key, sizeof(d->key), 0) != sizeof(d->key)) {
		for (unsigned i = 0; i < sizeof(d->key); i++)
			d->key[i] = (uint8_t)(mono_coarse_ms() * 131 + i);
	}
	d->shards = aligned_alloc(64, d->nshards * sizeof(*d->shards));
	if (!d->shards) {
		free(d);
		return NULL;
	}
	for (unsigned i = 0; i < d->nshards; i++) {
		if (drc_shard_init(&d->shards[i], d->per_shard) < 0) {
			d->nshards = i + 1;
			drc_free(d);
			return NULL;
		}
	}
	return d;
}

void drc_free(struct drc *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < d->nshards; i++) {
		struct drc_shard *s = &d->shards[i];

		if (s->e) {
			for (unsigned k = 0; k < d->per_shard; k++)
				free(s->e[k].rbig);
		}
		free(s->e);
		free(s->buckets);
		pthread_mutex_destroy(&s->lock);
	}
	free(d->shards);
	free(d);
}

void drc_set_clock(struct drc *d, uint64_t (*now_ms)(void))
{
	d->now_ms = now_ms;
}

void drc_make_key(const struct drc *d, struct drc_key *k, const struct sockaddr *peer, uint32_t xid,
		  uint32_t prog, uint32_t vers, uint32_t proc, const uint8_t *args, size_t args_len,
		  size_t call_len)
{
	memset(k, 0, sizeof(*k));
	k->xid = xid;
	k->prog = prog;
	k->vers = vers;
	k->proc = proc;
	k->len = (uint32_t)call_len;
	if (peer && peer->sa_family == AF_INET) {
		k->addr[10] = 0xff;
		k->addr[11] = 0xff;
		memcpy(k->addr + 12, &((const struct sockaddr_in *)peer)->sin_addr, 4);
	} else if (peer && peer->sa_family == AF_INET6) {
		memcpy(k->addr, &((const struct sockaddr_in6 *)peer)->sin6_addr, 16);
	}
	k->sum = siphash24(d->key, args, args_len < DRC_SUMLEN ? args_len : DRC_SUMLEN);
}

static void lru_unlink(struct drc_shard *s, uint32_t i)
{
	struct drc_entry *e = &s->e[i];

	if (e->lprev != DRC_NONE)
		s->e[e->lprev].lnext = e->lnext;
	else
		s->lru_head = e->lnext;
	if (e->lnext != DRC_NONE)
		s->e[e->lnext].lprev = e->lprev;
	else
		s->lru_tail = e->lprev;
}

static void lru_push_head(struct drc_shard *s, uint32_t i)
{
	struct drc_entry *e = &s->e[i];

	e->lprev = DRC_NONE;
	e->lnext = s->lru_head;
	if (s->lru_head != DRC_NONE)
		s->e[s->lru_head].lprev = i;
	s->lru_head = i;
	if (s->lru_tail == DRC_NONE)
		s->lru_tail = i;
}

/* Unhash, unlink and free entry @i; its reply copy is released after the unlock. */
static uint8_t *drc_remove(struct drc_shard *s, uint32_t i)
{
	struct drc_entry *e = &s->e[i];
	uint32_t *pp = &s->buckets[e->hash & (s->nbuckets - 1)];
	uint8_t *big = e->rbig;

	while (*pp != i)
		pp = &s->e[*pp].hnext;
	*pp = e->hnext;
	lru_unlink(s, i);
	if (big)
		s->bytes -= e->rlen;
	e->rbig = NULL;
	e->state = DRC_FREE;
	e->gen++;
	e->hnext = s->free;
	s->free = i;
	s->st.entries--;
	return big;
}

static struct drc_shard *drc_shard_of(struct drc *d, uint64_t hash)
{
	return &d->shards[(hash >> 40) & (d->nshards - 1)];
}

static uint32_t drc_find(struct drc_shard *s, const struct drc_key *k, uint64_t hash)
{
	uint32_t i = s->buckets[hash & (s->nbuckets - 1)];

	while (i != DRC_NONE) {
		if (s->e[i].hash == hash && memcmp(&s->e[i].key, k, sizeof(*k)) == 0)
			return i;
		i = s->e[i].hnext;
	}
	return DRC_NONE;
}

/* Copy entry @e's reply out (shard locked). */
static void drc_copy_reply(const struct drc_entry *e, struct arena *a, void *buf, size_t cap,
			   const void **reply, size_t *len)
{
	const uint8_t *src = e->rbig ? e->rbig : e->rinl;
	void *dst = e->rlen <= cap ? buf : arena_alloc(a, e->rlen);

	*reply = dst;
	*len = dst ? e->rlen : 0;
	if (dst)
		memcpy(dst, src, e->rlen);
}

enum drc_result drc_begin(struct drc *d, const struct drc_key *k, struct drc_slot *slot,
			  struct arena *a, void *buf, size_t cap, const void **reply, size_t *len)
{
	uint64_t hash = siphash24(d->key, k, sizeof(*k));
	struct drc_shard *s = drc_shard_of(d, hash);
	uint64_t now = d->now_ms();
	uint8_t *old[2] = {NULL, NULL};
	enum drc_result res;
	struct drc_entry *e;
	uint32_t i;

	pthread_mutex_lock(&s->lock);
	i = drc_find(s, k, hash);
	if (i != DRC_NONE) {
		e = &s->e[i];
		if (e->state == DRC_BUSY) {
			s->st.in_progress++;
			res = DRC_IN_PROGRESS;
			goto out;
		}
		if (now - e->stamp_ms <= d->ttl_ms) {
			drc_copy_reply(e, a, buf, cap, reply, len);
			lru_unlink(s, i);
			lru_push_head(s, i);
			s->st.hits++;
			res = DRC_HIT;
			goto out;
		}
		old[0] = drc_remove(s, i); /* too old to replay: run the call again */
	}
	if (s->free == DRC_NONE) {
		old[1] = drc_remove(s, s->lru_tail);
		s->st.evictions++;
	}
	i = s->free;
	e = &s->e[i];
	s->free = e->hnext;
	e->key = *k;
	e->hash = hash;
	e->state = DRC_BUSY;
	e->stamp_ms = now;
	e->rlen = 0;
	e->hnext = s->buckets[hash & (s->nbuckets - 1)];
	s->buckets[hash & (s->nbuckets - 1)] = i;
	lru_push_head(s, i);
	s->st.entries++;
	s->st.misses++;
	slot->shard = (uint32_t)(s - d->shards);
	slot->idx = i;
	slot->gen = e->gen;
	res = DRC_MISS;
out:
	pthread_mutex_unlock(&s->lock);
	free(old[0]);
	free(old[1]);
	return res;
}

/* Make room for @n more heap bytes by evicting from the LRU tail (shard locked). */
static void drc_make_room(struct drc *d, struct drc_shard *s, size_t n, uint32_t keep,
			  uint8_t **victims, unsigned *nv, unsigned maxv)
{
	uint32_t i = s->lru_tail;

	while (s->bytes + n > d->max_bytes && i != DRC_NONE && *nv < maxv) {
		uint32_t prev = s->e[i].lprev;

		if (i != keep && s->e[i].rbig) {
			victims[(*nv)++] = drc_remove(s, i);
			s->st.evictions++;
		}
		i = prev;
	}
}

void drc_done(struct drc *d, const struct drc_slot *slot, const struct xdr_out *o)
{
	struct drc_shard *s = &d->shards[slot->shard];
	size_t n = xdr_out_total(o);
	uint8_t *victims[16], *big = NULL;
	unsigned nv = 0;
	struct drc_entry *e;

	if (n > DRC_INLINE) {
		big = n <= d->max_bytes ? malloc(n) : NULL;
		if (big)
			xdr_out_flatten(o, big);
	}
	pthread_mutex_lock(&s->lock);
	e = &s->e[slot->idx];
	if (e->gen != slot->gen || e->state != DRC_BUSY)
		goto out; /* evicted while the call ran */
	if (n > DRC_INLINE) {
		if (big)
			drc_make_room(d, s, n, slot->idx, victims, &nv, 16);
		if (!big || s->bytes + n > d->max_bytes) {
			victims[nv++] = drc_remove(s, slot->idx);
			goto out;
		}
		e->rbig = big;
		big = NULL;
		s->bytes += n;
	} else {
		xdr_out_flatten(o, e->rinl);
	}
	e->rlen = (uint32_t)n;
	e->state = DRC_DONE;
	e->stamp_ms = d->now_ms();
out:
	pthread_mutex_unlock(&s->lock);
	free(big);
	for (unsigned i = 0; i < nv; i++)
		free(victims[i]);
}

void drc_abort(struct drc *d, const struct drc_slot *slot)
{
	struct drc_shard *s = &d->shards[slot->shard];
	uint8_t *big = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->e[slot->idx].gen == slot->gen && s->e[slot->idx].state == DRC_BUSY)
		big = drc_remove(s, slot->idx);
	pthread_mutex_unlock(&s->lock);
	free(big);
}

void drc_get_stats(struct drc *d, struct drc_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < d->nshards; i++) {
		struct drc_shard *s = &d->shards[i];

		pthread_mutex_lock(&s->lock);
		st->hits += s->st.hits;
		st->in_progress += s->st.in_progress;
		st->misses += s->st.misses;
		st->evictions += s->st.evictions;
		st->entries += s->st.entries;
		st->bytes += s->bytes;
		pthread_mutex_unlock(&s->lock);
	}
}
