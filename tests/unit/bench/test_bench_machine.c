/*
 * test_bench_machine.c - the machine's CPU shares over an interval (bench_machine.c):
 * /proc/stat parsed from kernels' layouts (with and without steal, the aggregate line
 * anywhere, per-CPU lines counted and not mistaken for it), shares taken against the
 * wall clock (busy as the rest), an interval without time, with counters gone back or
 * with CPUs come or gone left unmeasured, and a real reading.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_machine.h"
#include "unit/test.h"

static void test_parse(void)
{
	struct bench_machine_cpu c;
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	const char *stat = "cpu  100 5 200 1000 50 3 7 40 11 0\n"
			   "cpu0 50 2 100 500 25 1 3 20 5 0\n"
			   "cpu1 50 3 100 500 25 2 4 20 6 0\n"
			   "intr 12345 0 0\n";

	CHECK_EQ(bench_machine_parse(stat, &c), 0);
	CHECK_EQ(c.idle, 1000 + 50);
	CHECK_EQ(c.steal, 40);
	CHECK_EQ(c.ncpu, 2);
	/* An old kernel's four fields: no steal. */
	CHECK_EQ(bench_machine_parse("cpu  1 2 3 4\ncpu0 1 2 3 4\n", &c), 0);
	CHECK_EQ(c.idle, 4);
	CHECK_EQ(c.steal, 0);
	CHECK_EQ(c.ncpu, 1);
	/* The aggregate line need not come first. */
	CHECK_EQ(bench_machine_parse("btime 1\ncpu0 9 0 1 30\ncpu  9 0 1 30 0 0 0 10\n", &c), 0);
	CHECK_EQ(c.steal, 10);
	CHECK_EQ(bench_machine_parse("cpu0 1 2 3 4\n", &c), -1);       /* no aggregate */
	CHECK_EQ(bench_machine_parse("cpu  1 2 3 4\n", &c), -1);       /* no CPU */
	CHECK_EQ(bench_machine_parse("cpu  1 2\ncpu0 1 2\n", &c), -1); /* too few fields */
	CHECK_EQ(bench_machine_parse("", &c), -1);
}

static void test_point_shares(void)
{
	/* 2 CPUs x 10 s at 100 ticks a second: 2,000 ticks, 460 idle and 240 stolen. */
	struct bench_machine_cpu a = {.idle = 5000, .steal = 100, .ncpu = 2};
	struct bench_machine_cpu b = a;
	struct bench_point pt;

	b.idle += 460;
	b.steal += 240;
	memset(&pt, 0, sizeof(pt));
	CHECK(!bench_machine_known(&pt));
	bench_machine_point(&a, &b, 10, 100, &pt);
	CHECK(bench_machine_known(&pt));
	CHECK(pt.machine_idle_pct > 22.99 && pt.machine_idle_pct < 23.01);
	CHECK(pt.machine_steal_pct > 11.99 && pt.machine_steal_pct < 12.01);
	CHECK(pt.machine_busy_pct > 64.99 && pt.machine_busy_pct < 65.01);
	/* Counters a tick ahead of the clock: within 100, busy not negative. */
	b.idle = a.idle + 2001;
	bench_machine_point(&a, &b, 10, 100, &pt);
	CHECK(pt.machine_idle_pct == 100 && pt.machine_steal_pct == 0 && pt.machine_busy_pct == 0);
	CHECK(bench_machine_known(&pt)); /* all idle is a measurement */
	/* No time between the readings, a counter gone back, a CPU come: not measured. */
	bench_machine_point(&a, &a, 0, 100, &pt);
	CHECK(!bench_machine_known(&pt));
	bench_machine_point(&b, &a, 10, 100, &pt);
	CHECK(!bench_machine_known(&pt));
	b = a;
	b.ncpu = 3;
	bench_machine_point(&a, &b, 1, 100, &pt);
	CHECK(!bench_machine_known(&pt));
}

/* This machine's own /proc/stat: readable, its CPUs counted, time and counters forward. */
static void test_read_real(void)
{
	struct bench_machine_cpu a, b;
	struct bench_point pt;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(bench_machine_read(&a), 0);
	CHECK(a.ncpu >= 1);
	CHECK(a.idle > 0);
	usleep(30000);
	CHECK_EQ(bench_machine_read(&b), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(b.idle >= a.idle && b.steal >= a.steal);
	CHECK_EQ(b.ncpu, a.ncpu);
	memset(&pt, 0, sizeof(pt));
	bench_machine_point(
		&a, &b, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		sysconf(_SC_CLK_TCK), &pt);
	CHECK(bench_machine_known(&pt));
	CHECK(pt.machine_busy_pct >= 0 && pt.machine_idle_pct >= 0 && pt.machine_steal_pct >= 0);
	CHECK(pt.machine_busy_pct + pt.machine_idle_pct + pt.machine_steal_pct < 100.001);
}

TESTS(test_parse, test_point_shares, test_read_real);
