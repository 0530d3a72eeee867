/*
 * test_net_prio.c - unit tests for an event loop's real-time priority
 * (src/net/net_prio.c): what counts as busy, a loop asked for none staying an ordinary
 * thread, and a real-time thread that keeps its CPU busy, or serves calls faster than
 * the rate, becoming an ordinary one at its next look and real-time again once it has
 * been idle. Where the system refuses
 * real-time scheduling (not root), the refusal is what is checked: the thread stays
 * ordinary and asks nothing more.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "net/net_prio.h"
#include "unit/test.h"

static void test_busy(void)
{
	CHECK(!net_prio_busy(0, 0, 100));
	CHECK(!net_prio_busy(50000000, 0, 100)); /* half is not more than half */
	CHECK(net_prio_busy(50000001, 0, 100));
	CHECK(net_prio_busy(100000000, 0, 100));
	CHECK(net_prio_busy(1, 0, 0)); /* CPU time in no time at all */
	CHECK(!net_prio_busy(0, 0, 0));
	/* Calls: NET_PRIO_MAX_RATE a second is not more than it. */
	CHECK(!net_prio_busy(0, NET_PRIO_MAX_RATE / 10, 100));
	CHECK(net_prio_busy(0, NET_PRIO_MAX_RATE / 10 + 1, 100));
	CHECK(!net_prio_busy(0, NET_PRIO_MAX_RATE, 1000));
	CHECK(net_prio_busy(0, NET_PRIO_MAX_RATE + 1, 1000));
	CHECK(net_prio_busy(0, 1, 0));
}

static int policy_now(void)
{
	struct sched_param sp;
	int policy = -1;

	if (pthread_getschedparam(pthread_self(), &policy, &sp))
		return -1;
	return policy;
}

static void *run_off(void *arg)
{
	struct net_prio p = *(struct net_prio *)arg;

	net_prio_start(&p, mono_ms());
	CHECK(!p.rt);
	CHECK_EQ(policy_now(), SCHED_OTHER);
	/* Asked for nothing, it never looks. */
	net_prio_tick(&p, UINT64_MAX - 1);
	CHECK(!p.rt);
	CHECK_EQ(policy_now(), SCHED_OTHER);
	return NULL;
}

/* Run @fn(&prio) in a thread started by net_prio_create() at @want; the priority it
 * got. */
static int run_thread(int want, void *(*fn)(void *))
{
	struct net_prio p = {.want = -1};
	pthread_t t;

	CHECK_EQ(net_prio_create(&t, &p, want, fn, &p), 0);
	pthread_join(t, NULL);
	return p.want;
}

static void test_off(void)
{
	CHECK_EQ(run_thread(0, run_off), 0);
}

static void *run_busy_then_idle(void *arg)
{
	struct timespec idle = {.tv_sec = 0, .tv_nsec = 3 * NET_PRIO_WINDOW_MS * 1000000L};
	struct net_prio p = *(struct net_prio *)arg;
	uint64_t start = mono_ms(), now;

	net_prio_start(&p, start);
	if (!p.want) {
		/* Refused: an ordinary thread that asks nothing more. */
		CHECK(!p.rt);
		CHECK_EQ(policy_now(), SCHED_OTHER);
		net_prio_tick(&p, UINT64_MAX - 1);
		CHECK_EQ(policy_now(), SCHED_OTHER);
		return NULL;
	}
	CHECK(p.rt);
	CHECK_EQ(policy_now(), SCHED_FIFO);
	/* Before its window has passed it does not look, however busy. */
	net_prio_tick(&p, start + NET_PRIO_WINDOW_MS - 1);
	CHECK(p.rt);
	/* Busy for three windows: the kernel lets ordinary threads have at most a few
	 * percent of a CPU from a real-time one, so this thread used nearly all of it. */
	do
		now = mono_ms();
	while (now < start + 3 * NET_PRIO_WINDOW_MS);
	net_prio_tick(&p, now);
	CHECK(!p.rt);
	CHECK_EQ(policy_now(), SCHED_OTHER);
	/* Idle for three windows: real-time again at the next look. */
	nanosleep(&idle, NULL);
	net_prio_tick(&p, mono_ms());
	CHECK(p.rt);
	CHECK_EQ(policy_now(), SCHED_FIFO);
	/* Idle, but serving calls faster than NET_PRIO_MAX_RATE a second: ordinary. */
	nanosleep(&idle, NULL);
	p.calls = NET_PRIO_MAX_RATE; /* in three windows: over three times the rate */
	net_prio_tick(&p, mono_ms());
	CHECK(!p.rt);
	CHECK_EQ(policy_now(), SCHED_OTHER);
	CHECK_EQ(p.calls, 0);
	nanosleep(&idle, NULL);
	net_prio_tick(&p, mono_ms());
	CHECK(p.rt);
	CHECK_EQ(policy_now(), SCHED_FIFO);
	return NULL;
}

static void test_busy_then_idle(void)
{
	int got = run_thread(1, run_busy_then_idle);

	/* Root (or CAP_SYS_NICE) gets what it asked for; anyone else is refused. */
	if (geteuid() == 0)
		CHECK_EQ(got, 1);
}

TESTS(test_busy, test_off, test_busy_then_idle);
