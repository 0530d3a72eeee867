/*
 * net_mem.c - the server-wide budget of large receive buffers: how many calls over
 * NET_REQ_RBUF bytes all connections together may hold, being received or served.
 *
 * Each connection's own limits (NET_MAX_BLOCKING, one record in progress) bound what one
 * client pins; this bounds what all of them pin, so that thousands of connections each
 * sending a large record (or holding one half-sent) cannot exhaust memory. A connection
 * whose record needs a buffer when none is left stops reading and waits on its loop's
 * list; every buffer given back wakes the loops that have such connections. Small calls
 * (GETATTR, LOOKUP...) never need one and are not held up.
 *
 * The buffers a loop keeps for reuse (NET_BIG_KEEP) are not counted: a buffer counts from
 * the moment a request takes it to the moment the request gives it back.
 */
#include "net/net_int.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define NET_MEM_MIN_DEF (64ull << 20) /* default: an eighth of RAM, within these */
#define NET_MEM_MAX_DEF (4ull << 30)

unsigned net_mem_cap(unsigned mib)
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
	return bytes < NET_MAX_RECORD ? 1 : (unsigned)(bytes / NET_MAX_RECORD);
}

bool net_mem_take(struct net_server *s)
{
	unsigned held = atomic_load(&s->bigs_held);

	do {
		if (held >= s->big_cap)
			return false;
	} while (!atomic_compare_exchange_weak(&s->bigs_held, &held, held + 1));
	return true;
}

/*
 * A loop that found the budget spent counts its waiter (mwaiting) before it tries once
 * more, and a give lowers bigs_held before it looks at mwaiting (both sequentially
 * consistent): so either that second try succeeds or this give sees the waiter.
 */
void net_mem_give(struct net_server *s)
{
	uint64_t one = 1;

	atomic_fetch_sub(&s->bigs_held, 1);
	for (unsigned i = 0; i < s->nloops; i++) {
		if (atomic_load(&s->loops[i].mwaiting) &&
		    write(s->loops[i].evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			abort(); /* an eventfd write fails only if the fd is gone: our bug */
	}
}
