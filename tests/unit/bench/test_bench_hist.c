/*
 * test_bench_hist.c - the log-linear latency histogram: bucket arithmetic, exact
 * statistics, percentiles within the bucket error, merging.
 */
#include <math.h>

#include "bench_hist.h"
#include "unit/test.h"

static struct bench_hist h1, h2;

static void test_index_monotonic(void)
{
	unsigned prev = 0;

	for (uint64_t v = 0; v < 5000000; v += 1 + v / 100) {
		unsigned i = bench_hist_index(v);

		CHECK(i >= prev);
		CHECK(bench_hist_lower(i) <= v);
		if (i + 1 < BENCH_HIST_BUCKETS)
			CHECK(bench_hist_lower(i + 1) > v);
		prev = i;
	}
	CHECK_EQ(bench_hist_index(7), 7);
	CHECK_EQ(bench_hist_index(UINT64_MAX), BENCH_HIST_BUCKETS - 1);
}

static void test_bucket_width(void)
{
	/* every bucket above the linear range is at most 1/16 of its lower bound wide */
	for (unsigned i = BENCH_HIST_LINEAR; i + 1 < BENCH_HIST_BUCKETS; i++) {
		uint64_t lo = bench_hist_lower(i), hi = bench_hist_lower(i + 1);

		CHECK(hi > lo);
		CHECK((hi - lo) * BENCH_HIST_SUB <= lo);
	}
}

static void test_uniform_percentiles(void)
{
	memset(&h1, 0, sizeof(h1));
	for (uint64_t v = 1; v <= 100000; v++)
		bench_hist_record(&h1, v);
	CHECK_EQ(h1.count, 100000);
	CHECK_EQ(h1.max_us, 100000);
	CHECK(fabs(bench_hist_mean(&h1) - 50000.5) < 1e-6);
	CHECK(fabs(bench_hist_stddev(&h1) - 28867.5) < 1);
	CHECK(fabs(bench_hist_quantile(&h1, 0.5) - 50000) < 50000 * 0.03);
	CHECK(fabs(bench_hist_quantile(&h1, 0.9) - 90000) < 90000 * 0.03);
	CHECK(fabs(bench_hist_quantile(&h1, 0.99) - 99000) < 99000 * 0.03);
	CHECK(bench_hist_quantile(&h1, 1.0) <= 100000);
}

static void test_exact_small_values(void)
{
	memset(&h1, 0, sizeof(h1));
	for (int i = 0; i < 90; i++)
		bench_hist_record(&h1, 10);
	for (int i = 0; i < 10; i++)
		bench_hist_record(&h1, 20);
	CHECK(bench_hist_quantile(&h1, 0.5) >= 10 && bench_hist_quantile(&h1, 0.5) < 11);
	CHECK(bench_hist_quantile(&h1, 0.95) >= 20 && bench_hist_quantile(&h1, 0.95) <= 20);
	CHECK_EQ((long long)bench_hist_quantile(&h2, 0.5), 0); /* empty */
}

static void test_merge(void)
{
	memset(&h1, 0, sizeof(h1));
	memset(&h2, 0, sizeof(h2));
	for (int i = 0; i < 1000; i++)
		bench_hist_record(&h1, 100);
	for (int i = 0; i < 1000; i++)
		bench_hist_record(&h2, 10000);
	bench_hist_merge(&h1, &h2);
	CHECK_EQ(h1.count, 2000);
	CHECK_EQ(h1.max_us, 10000);
	CHECK(fabs(bench_hist_mean(&h1) - 5050) < 1e-6);
	CHECK(bench_hist_quantile(&h1, 0.25) >= 100 && bench_hist_quantile(&h1, 0.25) < 107);
	CHECK(bench_hist_quantile(&h1, 0.75) >= 9500 && bench_hist_quantile(&h1, 0.75) <= 10000);
}

TESTS(test_index_monotonic, test_bucket_width, test_uniform_percentiles, test_exact_small_values,
      test_merge);
