/*
 * net_prio.h - an event loop's real-time priority, given up while the loop is busy.
 *
 * An event loop's calls are short and most answer from memory: what sets their response
 * time is how soon the loop runs once a call has arrived. As an ordinary thread, a loop
 * woken by a call waits for whatever holds its CPU (a blocking-pool thread starting an
 * fsync, or on a shared machine the client itself) to reach the end of its time slice.
 * A loop therefore runs SCHED_FIFO at a low priority, which takes the CPU from any
 * ordinary thread at once. A real-time thread that kept its CPU busy would starve that
 * CPU's ordinary threads, the blocking pools among them. And a loop that takes the CPU
 * at every call wakes for each call alone: with calls arriving faster than every few
 * tens of microseconds, the context switches cost more than the wait they save (a
 * client sending GETATTRs as fast as it can on the same 2 vCPUs got 48,000 answers a
 * second from real-time loops, each waking 17,000 times a second, against 148,000
 * from ordinary ones, which take a batch of calls per wake-up). So a loop looks at its
 * own CPU time and its calls when it wakes, if NET_PRIO_WINDOW_MS or more have passed
 * since it last looked: if it used more than half of the time since, or served more than
 * NET_PRIO_MAX_RATE calls a second, it is an ordinary thread until it looks again;
 * if neither, real-time again.
 *
 * Measured on the 2-vCPU development machine with the SFS2008 mix and the client on the
 * same CPUs, alternately with and without: at 8,400 ops/s (about 5,000 calls a second
 * per loop) the mean response time was lower in 9 pairs of 9, by 5-46%, GETATTR's
 * median by a third to a half, with the server's CPU per op from 10% lower to 20%
 * higher (the switches); at 15,000-19,500 ops/s, with the loops real-time up to 15,000
 * calls a second, lower in 7 of 9 pairs but mostly at more CPU per op, hence the rate
 * above which a loop stays ordinary (on later machines, 16,000 and 20,000 gave a mean
 * no lower and more CPU per op: doc/bench/history.md). Part of the gain, on such a
 * machine, is the loop taking the CPU from the client that has just sent it a call.
 */
#ifndef SHOAL_NET_PRIO_H
#define SHOAL_NET_PRIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define NET_PRIO_WINDOW_MS 100
#define NET_PRIO_MAX_RATE  8000 /* calls a second */

struct net_prio {
	int want;	  /* SCHED_FIFO priority while not busy; 0: an ordinary thread */
	bool rt;	  /* SCHED_FIFO now */
	uint64_t next_ms; /* look at the CPU time again then (UINT64_MAX: never) */
	uint64_t last_ms; /* when it last looked */
	uint64_t cpu_ns;  /* the thread's CPU time then */
	uint64_t calls;	  /* calls served since, counted by the loop */
};

/*
 * Start a thread running @fn(@arg) at SCHED_FIFO priority @want (1-99; 0: an ordinary
 * thread), and set *@p's want to the priority it got, before the thread runs. If the
 * system refuses real-time scheduling (no CAP_SYS_NICE, a cgroup without real-time
 * time), the thread is started as an ordinary one, the want is 0, and the first such
 * refusal in the process is logged. 0 or a negative errno (no thread started).
 */
int net_prio_create(pthread_t *t, struct net_prio *p, int want, void *(*fn)(void *), void *arg);

/* Called by that thread first, on the *@p net_prio_create() set up. */
void net_prio_start(struct net_prio *p, uint64_t now_ms);

/* The look itself: called by net_prio_tick() once the window has passed. */
void net_prio_look(struct net_prio *p, uint64_t now_ms);

/* Call after each wake-up of the loop, with its clock: cheap until a window has passed. */
static inline void net_prio_tick(struct net_prio *p, uint64_t now_ms)
{
	if (now_ms >= p->next_ms)
		net_prio_look(p, now_ms);
}

/* Busy: @cpu_ns of CPU time over @wall_ms of clock is more than half of it, or @calls
 * in that time more than NET_PRIO_MAX_RATE a second. */
bool net_prio_busy(uint64_t cpu_ns, uint64_t calls, uint64_t wall_ms);

#endif
