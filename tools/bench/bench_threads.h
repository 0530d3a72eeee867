/*
 * bench_threads.h - where the server's CPU time went: its threads' CPU time at the start
 * and end of a measured interval, added up per group of threads named alike. A
 * thread's time is its run time in nanoseconds from /proc/PID/task/TID/schedstat, as
 * the process totals are, so that the groups add up to the total; where the kernel
 * keeps no such figure, its user + system clock ticks from .../stat. A name less its
 * trailing digits names the group: shoal-server's "shoal-sync0".."shoal-sync31" are
 * "shoal-sync", so the split shows the event loops, the blocking pools and the rest
 * apart (a server that names all its threads alike, as nfs-ganesha does, is one group).
 */
#ifndef SHOAL_BENCH_THREADS_H
#define SHOAL_BENCH_THREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "bench_result.h"

struct bench_thread_time {
	pid_t tid;
	char group[16];
	uint64_t ns; /* CPU time so far */
};

/* Every thread of some processes at one moment. */
struct bench_threads {
	struct bench_thread_time *t;
	unsigned n, cap;
};

/* @comm less its trailing digits, into @group (at least 16 bytes); a name of digits
 * only is kept whole. */
void bench_thread_group(const char *comm, char *group);

/* Read every thread of @pids into @s (emptied first). Threads that end while they are
 * read are left out. Returns 0, or -1 if a process cannot be read or memory runs out. */
int bench_threads_read(struct bench_threads *s, const pid_t *pids, unsigned npids);
void bench_threads_free(struct bench_threads *s);

/*
 * The time each group's threads spent from @a to @b (a later reading of the same
 * processes), in microseconds per op over @ops operations: into @out, largest first
 * (equal ones by name), at most @max groups, the smallest beyond @max - 1 added up as
 * "other". A thread not in @a started in between and counts whole; threads that ended
 * in between are not seen, and groups that spent nothing are left out. Returns the
 * number of groups written.
 */
unsigned bench_threads_split(const struct bench_threads *a, const struct bench_threads *b,
			     double ops, struct bench_thread_cpu *out, unsigned max);

#endif
