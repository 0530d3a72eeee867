/*
 * rpc_stats.c - per-procedure call counts and server-side service times.
 *
 * A call is timed from the end of its decoding (rpc_call_begin) to the start of its
 * reply's encoding (rpc_call_end): the time the server spent on it, pool queueing
 * included, network and client excluded. Each thread that finishes calls keeps its own
 * counters, which only it writes (relaxed loads and stores: no lock, no atomic
 * read-modify-write on the call path); rpc_stats_walk() sums them for a report.
 * Every procedure of every registered version has a slot, numbered at registration.
 */
#include "rpc/rpc_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct rpc_tstats {
	struct rpc_tstats *next;
	_Atomic uint64_t calls[RPC_STATS_SLOTS];
	_Atomic uint64_t ns[RPC_STATS_SLOTS];
	_Atomic uint64_t max_ns[RPC_STATS_SLOTS];
};

static _Thread_local struct rpc_tstats *rpc_mine;
static struct rpc_tstats *_Atomic rpc_all;
static pthread_mutex_t rpc_all_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rpc_tstats *mine(void)
{
	struct rpc_tstats *t = rpc_mine;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL; /* this thread's calls go uncounted */
	pthread_mutex_lock(&rpc_all_lock);
	t->next = atomic_load(&rpc_all);
	atomic_store(&rpc_all, t);
	pthread_mutex_unlock(&rpc_all_lock);
	rpc_mine = t;
	return t;
}

static void bump(_Atomic uint64_t *v, uint64_t by)
{
	atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + by,
			      memory_order_relaxed);
}

void rpc_stats_note(int slot, uint64_t ns)
{
	struct rpc_tstats *t;

	if (slot < 0 || slot >= RPC_STATS_SLOTS || !(t = mine()))
		return;
	bump(&t->calls[slot], 1);
	bump(&t->ns[slot], ns);
	if (ns > atomic_load_explicit(&t->max_ns[slot], memory_order_relaxed))
		atomic_store_explicit(&t->max_ns[slot], ns, memory_order_relaxed);
}

void rpc_stats_sum(int slot, struct rpc_proc_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (slot < 0 || slot >= RPC_STATS_SLOTS)
		return;
	for (struct rpc_tstats *t = atomic_load(&rpc_all); t; t = t->next) {
		uint64_t m = atomic_load_explicit(&t->max_ns[slot], memory_order_relaxed);

		out->calls += atomic_load_explicit(&t->calls[slot], memory_order_relaxed);
		out->ns_total += atomic_load_explicit(&t->ns[slot], memory_order_relaxed);
		if (m > out->ns_max)
			out->ns_max = m;
	}
}
