/*
 * bench_hist.c - the log-linear latency histogram of bench_hist.h: index arithmetic,
 * recording, merging and quantiles.
 */
#include "bench_hist.h"

#include <math.h>

unsigned bench_hist_index(uint64_t us)
{
	unsigned k, sub, idx;

	if (us < BENCH_HIST_LINEAR)
		return (unsigned)us;
	k = 63u - (unsigned)__builtin_clzll(us); /* 2^k <= us < 2^(k+1), k >= 5 */
	sub = (unsigned)(us >> (k - BENCH_HIST_SUB_BITS)) & (BENCH_HIST_SUB - 1);
	idx = BENCH_HIST_LINEAR + (k - 5) * BENCH_HIST_SUB + sub;
	return idx < BENCH_HIST_BUCKETS ? idx : BENCH_HIST_BUCKETS - 1;
}

uint64_t bench_hist_lower(unsigned i)
{
	unsigned k, sub;

	if (i < BENCH_HIST_LINEAR)
		return i;
	k = (i - BENCH_HIST_LINEAR) / BENCH_HIST_SUB + 5;
	sub = (i - BENCH_HIST_LINEAR) % BENCH_HIST_SUB;
	return (1ull << k) + ((uint64_t)sub << (k - BENCH_HIST_SUB_BITS));
}

void bench_hist_record(struct bench_hist *h, uint64_t us)
{
	double v = (double)us;

	h->count++;
	h->sum_us += v;
	h->sumsq_us += v * v;
	if (us > h->max_us)
		h->max_us = us;
	h->bucket[bench_hist_index(us)]++;
}

void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src)
{
	dst->count += src->count;
	dst->sum_us += src->sum_us;
	dst->sumsq_us += src->sumsq_us;
	if (src->max_us > dst->max_us)
		dst->max_us = src->max_us;
	for (unsigned i = 0; i < BENCH_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

double bench_hist_quantile(const struct bench_hist *h, double q)
{
	double rank, seen = 0, lo, hi, v;

	if (h->count == 0)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = q * (double)h->count;
	for (unsigned i = 0; i < BENCH_HIST_BUCKETS; i++) {
		double n = (double)h->bucket[i];

		if (n == 0 || seen + n < rank) {
			seen += n;
			continue;
		}
		lo = (double)bench_hist_lower(i);
		hi = i + 1 < BENCH_HIST_BUCKETS ? (double)bench_hist_lower(i + 1)
						: (double)h->max_us + 1;
		v = lo + (hi - lo) * ((rank - seen) / n);
		return v > (double)h->max_us ? (double)h->max_us : v;
	}
	return (double)h->max_us;
}

double bench_hist_mean(const struct bench_hist *h)
{
	return h->count ? h->sum_us / (double)h->count : 0;
}

double bench_hist_stddev(const struct bench_hist *h)
{
	double m, var;

	if (h->count == 0)
		return 0;
	m = bench_hist_mean(h);
	var = h->sumsq_us / (double)h->count - m * m;
	return var > 0 ? sqrt(var) : 0;
}
