/*
 * bench_ort.c - peak throughput and Overall Response Time of a shoal-bench run.
 *
 * ORT is SPEC's single response-time figure: the area under the throughput/response
 * curve, anchored at the origin, divided by the peak throughput (sfs-workload.md 1.6;
 * this definition reproduces the published ORT of all four seed reports).
 */
#include "bench_ort.h"

#include <math.h>
#include <stdlib.h>

struct ort_xy {
	double x, y;
};

/* Insertion sort by throughput: n is a load ladder (tens of points), and the sort is
 * stable, so equal throughputs keep their measured order. */
static void ort_sort(struct ort_xy *p, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		struct ort_xy v = p[i];
		unsigned j = i;

		while (j > 0 && p[j - 1].x > v.x) {
			p[j] = p[j - 1];
			j--;
		}
		p[j] = v;
	}
}

double bench_ort(const double *ops, const double *ms, unsigned n)
{
	struct ort_xy *p;
	double area = 0, px = 0, py = 0;

	if (n == 0)
		return 0;
	p = malloc(n * sizeof(*p));
	if (!p)
		return NAN;
	for (unsigned i = 0; i < n; i++) {
		p[i].x = ops[i];
		p[i].y = ms[i];
	}
	ort_sort(p, n);
	for (unsigned i = 0; i < n; i++) {
		area += (p[i].x - px) * (p[i].y + py) / 2.0;
		px = p[i].x;
		py = p[i].y;
	}
	free(p);
	return px > 0 ? area / px : 0;
}

/* The number of points, never more than the array holds. */
static unsigned run_npoints(const struct bench_run *run)
{
	if (run->npoints > BENCH_MAX_POINTS)
		return BENCH_MAX_POINTS;
	return run->npoints;
}

int bench_peak_index(const struct bench_run *run)
{
	int best = -1;
	unsigned n = run_npoints(run);

	for (unsigned i = 0; i < n; i++) {
		const struct bench_point *pt = &run->points[i];

		if (!pt->valid || !(pt->mean_ms <= BENCH_MAX_PEAK_MS) || !(pt->achieved_ops > 0))
			continue;
		if (best < 0 || pt->achieved_ops > run->points[best].achieved_ops)
			best = (int)i;
	}
	return best;
}

/* Raise @pt's error total to the sum of its per-operation error counts. */
static void finalize_errors(struct bench_point *pt)
{
	uint64_t sum = 0;

	for (unsigned k = 0; k < BENCH_MAX_OPS; k++)
		sum += pt->ops[k].errors;
	if (pt->total_errors < sum)
		pt->total_errors = sum;
}

void bench_finalize(struct bench_run *run)
{
	double ops[BENCH_MAX_POINTS], ms[BENCH_MAX_POINTS];
	unsigned n = run_npoints(run);
	unsigned m = 0;
	int peak;

	for (unsigned i = 0; i < n; i++)
		finalize_errors(&run->points[i]);
	run->peak_ops = 0;
	run->ort_ms = 0;
	peak = bench_peak_index(run);
	if (peak < 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		const struct bench_point *pt = &run->points[i];

		if (!pt->valid || pt->requested_ops > run->points[peak].requested_ops ||
		    pt->achieved_ops > run->points[peak].achieved_ops)
			continue;
		ops[m] = pt->achieved_ops;
		ms[m] = pt->mean_ms;
		m++;
	}
	run->peak_ops = run->points[peak].achieved_ops;
	run->ort_ms = bench_ort(ops, ms, m);
}
