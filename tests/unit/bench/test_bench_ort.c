/*
 * test_bench_ort.c - bench_ort() reproduces the published Overall Response Time of the
 * four seed reports from their curves (sfs-workload.md Appendix A), and bench_finalize()
 * picks the peak and the ORT curve as SFS does.
 */
#include <math.h>

#include "bench/bench_ort.h"
#include "fixture.h"
#include "unit/test.h"

/* The published ORT is rounded to 0.01 ms: ours must round to the same figure. */
#define CHECK_ORT(ops, ms, published)                                                              \
	do {                                                                                       \
		double ort_ = bench_ort(ops, ms, sizeof(ops) / sizeof(ops[0]));                    \
		if (!(fabs(ort_ - (published)) <= 0.005)) {                                        \
			fprintf(stderr, "%s:%d: ORT %.4f, published %.2f\n", __FILE__, __LINE__,   \
				ort_, (double)(published));                                        \
			test_failed_checks++;                                                      \
		}                                                                                  \
	} while (0)

static void test_seed_000_emc_cifs(void)
{
	static const double ops[] = {65440,  131003, 196722, 262434, 328725,
				     393590, 460330, 526705, 594683, 661951};
	static const double ms[] = {.4, .5, .6, .6, .7, .8, .9, 1.1, 1.4, 2.1};

	CHECK_ORT(ops, ms, 0.81);
}

static void test_seed_001_reference_nfs(void)
{
	static const double ops[] = {148, 300, 450, 601, 750, 904, 1054, 1207, 1356, 1470};
	static const double ms[] = {1.7, 2.3, 2.9, 3.2, 3.8, 5.3, 6.9, 9.2, 12.0, 18.1};

	CHECK_ORT(ops, ms, 5.40);
}

static void test_seed_003_isilon_nfs(void)
{
	static const double ops[] = {100124, 200493, 301372, 401911,  507219, 611887,
				     708723, 829790, 906386, 1016284, 1112705};
	static const double ms[] = {4.8, 4.2, 3.1, 2.5, 2.3, 1.9, 2.0, 1.9, 2.1, 2.0, 2.3};

	CHECK_ORT(ops, ms, 2.54);
}

static void test_seed_004_exanet_sfs97(void)
{
	static const double ops[] = {13765, 27393,  41151,  55114,  68874,  82760,
				     96577, 110481, 124327, 138671, 141382, 143880};
	static const double ms[] = {.6, .8, 1.0, 1.1, 1.3, 1.6, 1.7, 1.9, 2.5, 2.9, 3.2, 3.5};

	CHECK_ORT(ops, ms, 1.47);
}

/* The curve is integrated in throughput order, whatever order the points come in. */
static void test_order_does_not_matter(void)
{
	static const double ops[] = {1470, 148, 750, 300, 1356, 450, 904, 601, 1207, 1054};
	static const double ms[] = {18.1, 1.7, 3.8, 2.3, 12.0, 2.9, 5.3, 3.2, 9.2, 6.9};

	CHECK_ORT(ops, ms, 5.40);
}

static void test_degenerate(void)
{
	static const double one_x[] = {1000}, one_y[] = {2};
	static const double zero_x[] = {0, 0}, zero_y[] = {1, 2};

	CHECK(bench_ort(NULL, NULL, 0) == 0);
	/* One point: the triangle from the origin, area x*y/2, over x. */
	CHECK(fabs(bench_ort(one_x, one_y, 1) - 1.0) < 1e-12);
	CHECK(bench_ort(zero_x, zero_y, 2) == 0);
}

static void test_finalize_fixture(void)
{
	static const double ops[] = {148, 300, 450, 601, 750, 904, 1207, 1356, 1470};
	static const double ms[] = {1.7, 2.3, 2.9, 3.2, 3.8, 5.3, 9.2, 12.0, 18.1};
	struct bench_run r;

	/* Point 7 is invalid (left out), point 11 is over 20 ms (past the peak). */
	fixture_run(&r);
	bench_finalize(&r);
	CHECK(r.peak_ops == 1470);
	CHECK_EQ(bench_peak_index(&r), 9);
	CHECK(fabs(r.ort_ms - bench_ort(ops, ms, 9)) < 1e-12);
	CHECK_EQ(r.points[3].total_errors, 4);
}

static void test_finalize_peak_rules(void)
{
	struct bench_run r;

	fixture_run(&r);
	/* The highest achieved point is invalid: the next best valid one is the peak. */
	r.points[9].valid = false;
	bench_finalize(&r);
	CHECK(r.peak_ops == 1356);
	CHECK_EQ(bench_peak_index(&r), 8);
	/* A higher throughput over 20 ms does not count. */
	r.points[9].valid = true;
	r.points[9].mean_ms = 20.01;
	bench_finalize(&r);
	CHECK(r.peak_ops == 1356);
	/* Exactly 20 ms does. */
	r.points[9].mean_ms = 20.0;
	bench_finalize(&r);
	CHECK(r.peak_ops == 1470);
}

static void test_finalize_no_valid_point(void)
{
	struct bench_run r;

	fixture_run(&r);
	for (unsigned i = 0; i < r.npoints; i++)
		r.points[i].mean_ms = 25;
	bench_finalize(&r);
	CHECK(r.peak_ops == 0);
	CHECK(r.ort_ms == 0);
	CHECK_EQ(bench_peak_index(&r), -1);
	r.npoints = 0;
	bench_finalize(&r);
	CHECK(r.peak_ops == 0);
}

/* Errors counted per operation are never lost from a point's total. */
static void test_finalize_errors(void)
{
	struct bench_run r;

	fixture_run(&r);
	r.points[0].ops[3].errors = 7;
	r.points[0].total_errors = 0;
	r.points[1].total_errors = 9; /* more than the per-op sum (lost calls): kept */
	bench_finalize(&r);
	CHECK_EQ(r.points[0].total_errors, 7);
	CHECK_EQ(r.points[1].total_errors, 9);
}

TESTS(test_seed_000_emc_cifs, test_seed_001_reference_nfs, test_seed_003_isilon_nfs,
      test_seed_004_exanet_sfs97, test_order_does_not_matter, test_degenerate,
      test_finalize_fixture, test_finalize_peak_rules, test_finalize_no_valid_point,
      test_finalize_errors)
