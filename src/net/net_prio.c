/*
 * net_prio.c - an event loop's real-time priority and the look at its CPU time that
 * gives it up while the loop is busy (see net_prio.h).
 */
#include "net/net_prio.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SCHED_FIFO at @prio, or an ordinary thread (SCHED_OTHER) if @prio is 0. */
static int set_policy(int prio)
{
	struct sched_param sp = {.sched_priority = prio};

	return pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

bool net_prio_busy(uint64_t cpu_ns, uint64_t calls, uint64_t wall_ms)
{
	return cpu_ns > wall_ms * (1000000u / 2) || calls * 1000u > wall_ms * NET_PRIO_MAX_RATE;
}

int net_prio_create(pthread_t *t, struct net_prio *p, int want, void *(*fn)(void *), void *arg)
{
	static atomic_bool said;
	struct sched_param sp = {.sched_priority = want};
	pthread_attr_t attr;
	int err;

	*p = (struct net_prio){.want = want > 0 ? want : 0, .next_ms = UINT64_MAX};
	if (!p->want)
		return -pthread_create(t, NULL, fn, arg);
	err = pthread_attr_init(&attr);
	if (err)
		return -err;
	err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (!err)
		err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	if (!err)
		err = pthread_attr_setschedparam(&attr, &sp);
	if (!err)
		err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (!err)
		return 0;
	if (!atomic_exchange(&said, true))
		log_info("net: event loops run as ordinary threads, not SCHED_FIFO %d: %s", want,
			 strerror(err));
	p->want = 0;
	return -pthread_create(t, NULL, fn, arg);
}

void net_prio_start(struct net_prio *p, uint64_t now_ms)
{
	*p = (struct net_prio){.want = p->want, .next_ms = UINT64_MAX};
	if (!p->want)
		return;
	p->rt = true;
	p->last_ms = now_ms;
	p->next_ms = now_ms + NET_PRIO_WINDOW_MS;
	p->cpu_ns = thread_cpu_ns();
}

void net_prio_look(struct net_prio *p, uint64_t now_ms)
{
	uint64_t cpu = thread_cpu_ns();
	bool busy =
		net_prio_busy(cpu > p->cpu_ns ? cpu - p->cpu_ns : 0, p->calls, now_ms - p->last_ms);
	int err;

	p->calls = 0;
	p->cpu_ns = cpu;
	p->last_ms = now_ms;
	p->next_ms = now_ms + NET_PRIO_WINDOW_MS;
	if (busy != p->rt)
		return;
	/* A change the system refuses now (it allowed it at start) leaves the thread as
	 * it was; the next look tries again. */
	err = set_policy(busy ? 0 : p->want);
	if (err) {
		log_debug("net: event loop's policy unchanged: %s", strerror(err));
		return;
	}
	p->rt = !busy;
}
