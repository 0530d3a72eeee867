/*
 * test_workload_pace.c - pacing arithmetic: ops due over time match the rate, the
 * phase staggers the start, a backlog is capped, the send window, the ladder and the
 * validity rule (the peak search: test_peak_search.c).
 */
#include <math.h>

#include "unit/test.h"
#include "workload.h"

static void test_rate(void)
{
	struct bench_pace p;
	uint64_t t0 = 1000000000ull;

	bench_pace_start(&p, 2500, t0, 0);
	CHECK_EQ(bench_pace_due(&p, t0), 1); /* op 0 is due at once */
	/* issue as due, step 37 us at a time, for 2 s: 5000 ops, +1 for op 0 */
	for (uint64_t t = t0; t <= t0 + 2000000000ull; t += 37000) {
		uint64_t d = bench_pace_due(&p, t);

		p.issued += d;
	}
	CHECK(p.issued >= 5000 && p.issued <= 5001);
	CHECK(bench_pace_next_ns(&p) > t0 + 2000000000ull - 400000);
}

static void test_phase(void)
{
	struct bench_pace p;

	bench_pace_start(&p, 1000, 0, 0.5);
	CHECK_EQ(bench_pace_due(&p, 400000), 0);
	CHECK_EQ(bench_pace_due(&p, 500000), 1);
	CHECK_EQ(bench_pace_next_ns(&p), 500000);
}

static void test_debt_cap(void)
{
	struct bench_pace p;

	bench_pace_start(&p, 1000, 0, 0);
	CHECK_EQ(bench_pace_due(&p, 1000000000ull), 1001);
	bench_pace_cap_debt(&p, 1000000000ull, 8);
	CHECK_EQ(bench_pace_due(&p, 1000000000ull), 8);
}

static void test_ladder(void)
{
	double l[10];

	bench_ladder(5000, 10, l);
	CHECK(fabs(l[0] - 500) < 1e-9);
	CHECK(fabs(l[4] - 2500) < 1e-9);
	CHECK(fabs(l[9] - 5000) < 1e-9);
}

static void test_rate_ok(void)
{
	CHECK(bench_rate_ok(1000, 950, 10));
	CHECK(bench_rate_ok(1000, 900, 10));
	CHECK(!bench_rate_ok(1000, 899, 10));
	CHECK(bench_rate_ok(1000, 1200, 10));
}

/* The send window: the time cap at low rates, batch calls' worth at high ones. */
static void test_send_window(void)
{
	CHECK_EQ(bench_send_window(1000000, 0, 50000), 1000000); /* no batch: the cap */
	CHECK_EQ(bench_send_window(1000000, 8, 4000), 1000000);	 /* 8 calls take 2 ms */
	CHECK_EQ(bench_send_window(1000000, 8, 50000), 160000);	 /* 8 calls take 160 us */
	CHECK_EQ(bench_send_window(1000000, 8, 0), 1000000);	 /* idle */
	CHECK_EQ(bench_send_window(0, 8, 50000), 0);		 /* no window at all */
}

TESTS(test_rate, test_phase, test_debt_cap, test_ladder, test_rate_ok, test_send_window);
