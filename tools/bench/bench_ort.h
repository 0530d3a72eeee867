/*
 * bench_ort.h - the SFS result figures of a run: peak throughput and the Overall
 * Response Time (ORT), computed as SPEC SFS does (docs: sfs-workload.md section 1.6).
 */
#ifndef SHOAL_BENCH_ORT_H
#define SHOAL_BENCH_ORT_H

#include "bench_result.h"

/* The highest mean response time a point may have and still be the reported peak
 * (SPECsfs2008; SFS97_R1 used 40 ms). */
#define BENCH_MAX_PEAK_MS 20.0

/*
 * bench_ort - the Overall Response Time of a curve of @n points, @ops[i] achieved op/s
 * and @ms[i] mean response time in ms: the area under the piecewise-linear curve through
 * the points sorted by throughput, starting at the origin (0, 0), divided by the highest
 * throughput. The points may come in any order. Returns 0 when @n is 0 or no point has a
 * positive throughput, and NAN if memory for sorting cannot be had.
 */
double bench_ort(const double *ops, const double *ms, unsigned n);

/*
 * bench_peak_index - the index in @run->points of the reported point: the valid point
 * with the highest achieved op/s whose mean response time is at most BENCH_MAX_PEAK_MS
 * (the first of equals). Returns -1 if no point qualifies.
 */
int bench_peak_index(const struct bench_run *run);

/*
 * bench_finalize - fill @run->peak_ops and @run->ort_ms from its points. The ORT curve
 * is the valid points requested at or below the peak point's requested load, i.e. the
 * ladder up to and including the peak; points past the peak, and invalid points, are
 * left out, as SFS reports leave them out. With no qualifying point both are 0.
 * Also makes every point's total_errors at least the sum of its per-operation errors,
 * so an error counted anywhere is never lost from the totals.
 */
void bench_finalize(struct bench_run *run);

#endif
