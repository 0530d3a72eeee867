/*
 * drc.h - the duplicate request cache (private to the rpc and net layers).
 *
 * Non-idempotent procedures (RPC_DRC_REPLY) must not run twice when a client
 * retransmits: the first arrival is recorded IN_PROGRESS, a retransmission arriving
 * meanwhile is dropped, and one arriving after the reply was sent gets a copy of the
 * original reply bytes. The key is the xid, the client's IP address (not the port, so
 * a TCP reconnect still hits), program/version/procedure, the call length and a
 * checksum of the arguments. The table is sharded with one mutex per shard, hashed
 * with SipHash under a random key, bounded in entries (LRU) and in reply bytes.
 */
#ifndef SHOAL_RPC_DRC_H
#define SHOAL_RPC_DRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/arena.h"
#include "xdr/xdr.h"

struct drc;

struct drc_key {
	uint64_t sum; /* checksum of the argument bytes */
	uint32_t xid;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	uint32_t len;	  /* length of the whole call */
	uint8_t addr[16]; /* client IP; IPv4 as v4-mapped IPv6 */
	uint32_t pad;	  /* always zero: keys are compared with memcmp */
};

/* Identifies an IN_PROGRESS entry across eviction (the generation changes). */
struct drc_slot {
	uint32_t shard;
	uint32_t idx;
	uint32_t gen;
};

enum drc_result {
	DRC_MISS,	 /* new entry recorded IN_PROGRESS: run the call, then drc_done() */
	DRC_IN_PROGRESS, /* the original is still running: drop this retransmission */
	DRC_HIT,	 /* *reply holds a copy of the original reply */
};

struct drc_stats {
	uint64_t hits, in_progress, misses, evictions;
	uint64_t entries, bytes;
};

/*
 * Create a cache of @nshards (rounded up to a power of two) shards of @per_shard
 * entries each, storing at most @max_bytes of replies in total; DONE entries older
 * than @ttl_ms are not replayed. Returns NULL when out of memory.
 */
struct drc *drc_new(unsigned nshards, unsigned per_shard, size_t max_bytes, unsigned ttl_ms);
void drc_free(struct drc *d);
/* Replace the millisecond clock (tests). */
void drc_set_clock(struct drc *d, uint64_t (*now_ms)(void));

/* Fill @k for a call. @args[0..args_len) are the argument bytes after the verifier. */
void drc_make_key(const struct drc *d, struct drc_key *k, const struct sockaddr *peer, uint32_t xid,
		  uint32_t prog, uint32_t vers, uint32_t proc, const uint8_t *args, size_t args_len,
		  size_t call_len);
/*
 * Look @k up. On DRC_MISS, *slot names the new IN_PROGRESS entry. On DRC_HIT the
 * cached reply is copied to @buf when it fits in @cap, otherwise into @a; *reply and
 * *len describe the copy (NULL/0 if memory ran out, treat as a drop).
 */
enum drc_result drc_begin(struct drc *d, const struct drc_key *k, struct drc_slot *slot,
			  struct arena *a, void *buf, size_t cap, const void **reply, size_t *len);
/* Store the reply @o of the call begun as @slot and mark it DONE (no-op if evicted). */
void drc_done(struct drc *d, const struct drc_slot *slot, const struct xdr_out *o);
/* Forget the IN_PROGRESS entry @slot (the call produced no cacheable reply). */
void drc_abort(struct drc *d, const struct drc_slot *slot);
void drc_get_stats(struct drc *d, struct drc_stats *st);

#endif
