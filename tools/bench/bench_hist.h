/*
 * bench_hist.h - HDR-style log-linear latency histogram in microseconds.
 *
 * Values below BENCH_HIST_LINEAR us get one bucket per microsecond; above, every
 * power of two is split into BENCH_HIST_SUB equal buckets, so a bucket is at most
 * 1/BENCH_HIST_SUB (6.25 %) of its value wide and BENCH_HIST_BUCKETS (512) buckets
 * reach 2^35 us. Count, sum, sum of squares and the exact maximum are kept beside the
 * buckets, so means and maxima carry no bucket error. Recording is a few shifts; a
 * histogram belongs to one thread, merging is done after the fact.
 */
#ifndef SHOAL_BENCH_HIST_H
#define SHOAL_BENCH_HIST_H

#include <stdint.h>

#include "bench_result.h"

#define BENCH_HIST_LINEAR   32 /* 1 us buckets below this */
#define BENCH_HIST_SUB_BITS 4
#define BENCH_HIST_SUB	    (1u << BENCH_HIST_SUB_BITS)

struct bench_hist {
	uint64_t count;
	double sum_us, sumsq_us;
	uint64_t max_us;
	uint64_t bucket[BENCH_HIST_BUCKETS];
};

/* Bucket index of a value in us (values past the last bucket land in it). */
unsigned bench_hist_index(uint64_t us);
/* Lowest value in us that falls in bucket @i. */
uint64_t bench_hist_lower(unsigned i);
/* Record one value in microseconds. */
void bench_hist_record(struct bench_hist *h, uint64_t us);
/* Add @src into @dst. */
void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src);
/*
 * The value below which a fraction @q (0..1) of the recorded values lie, in us,
 * interpolated inside its bucket and never above the recorded maximum; 0 if empty.
 */
double bench_hist_quantile(const struct bench_hist *h, double q);
/* Mean and population standard deviation in us (0 if empty). */
double bench_hist_mean(const struct bench_hist *h);
double bench_hist_stddev(const struct bench_hist *h);

#endif
