/*
 * net_mem.c - the server-wide budget of memory for large calls and replies, in bytes:
 * the receive buffers of calls over NET_REQ_RBUF bytes (NET_MAX_RECORD each), and the
 * replies whose size a call announces (READ data, directory listings: rpc_proc.reply_size), over
 * all connections together, from the moment a request takes its share to the moment it gives it
 * back (its call is encoded, or its reply sent).
 *
 * Each connection's own limits (NET_MAX_BLOCKING, one record in progress) bound what one
 * connection pins; this bounds what all of them pin, so that thousands of connections
 * each sending a large record (or holding one half-sent), or asking for large READs
 * whose replies they never read, cannot exhaust memory. And one client address, however
 * many connections it holds, may hold at most a quarter of the budget (but always one
 * large record's worth): a host that fills its share with records it never finishes
 * delays its own large calls until the record timeout, not every other client's. Its
 * account (net_peers.h) is shared by its connections on every loop, in atomics.
 * A connection whose record or reply needs more than is left, of the budget or of its
 * address's share, stops reading and waits on its loop's list; every share given back
 * wakes the loops that have such connections. Small calls (GETATTR, LOOKUP...) never
 * need one and are not held up.
 *
 * The buffers a loop keeps for reuse (NET_BIG_KEEP) are not counted.
 */
#include "net/net_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define NET_MEM_MIN_DEF (64ull << 20) /* default: an eighth of RAM, within these */
#define NET_MEM_MAX_DEF (4ull << 30)

size_t net_mem_cap(unsigned mib)
{
	unsigned long long bytes = (unsigned long long)mib << 20;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (!mib) {
		bytes = pages > 0 && psize > 0
				? (unsigned long long)pages * (unsigned long long)psize / 8
				: NET_MEM_MIN_DEF;
		if (bytes < NET_MEM_MIN_DEF)
			bytes = NET_MEM_MIN_DEF;
		if (bytes > NET_MEM_MAX_DEF)
			bytes = NET_MEM_MAX_DEF;
	}
	if (bytes < NET_MAX_RECORD)
		bytes = NET_MAX_RECORD;
	return bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

size_t net_mem_share(size_t cap)
{
	return cap / 4 > NET_MAX_RECORD ? cap / 4 : NET_MAX_RECORD;
}

bool net_mem_over_share(const struct net_server *s, struct net_acct *a, size_t bytes)
{
	return a && atomic_load(&a->held) + bytes > s->mem_share;
}

/*
 * The address's share first, counted before it is checked: of two loops taking for one
 * address at once, the one that counted first passes that check (the other may fail
 * without need, and then waits for a give like any other; the first's failure on the
 * budget, if it fails, means that others hold some of it, so there will be one).
 */
bool net_mem_take(struct net_server *s, struct net_acct *a, size_t bytes)
{
	size_t held = atomic_load(&s->mem_held);

	if (a && atomic_fetch_add(&a->held, bytes) + bytes > s->mem_share) {
		atomic_fetch_sub(&a->held, bytes);
		return false;
	}
	do {
		if (held + bytes > s->mem_cap) {
			if (a)
				atomic_fetch_sub(&a->held, bytes);
			return false;
		}
	} while (!atomic_compare_exchange_weak(&s->mem_held, &held, held + bytes));
	return true;
}

/*
 * A loop that found the budget spent counts its waiter (mwaiting) before it tries once
 * more, and a give lowers mem_held before it looks at mwaiting (both sequentially
 * consistent): so either that second try succeeds or this give sees the waiter.
 */
void net_mem_give(struct net_server *s, struct net_acct *a, size_t bytes)
{
	uint64_t one = 1;

	if (a)
		atomic_fetch_sub(&a->held, bytes);
	atomic_fetch_sub(&s->mem_held, bytes);
	for (unsigned i = 0; i < s->nloops; i++) {
		if (atomic_load(&s->loops[i].mwaiting) &&
		    write(s->loops[i].evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			abort(); /* an eventfd write fails only if the fd is gone: our bug */
	}
}
