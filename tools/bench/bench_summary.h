/*
 * bench_summary.h - shoal-bench's own console lines: one per load point and one per
 * operation, the machine-greppable summary that the integration test reads. The full
 * reports (SPEC seed layout, JSON, SVG) are written by report.c and friends.
 */
#ifndef SHOAL_BENCH_SUMMARY_H
#define SHOAL_BENCH_SUMMARY_H

#include <stdio.h>

#include "bench_result.h"

/* "point I/N requested R achieved A op/s mean M ms ...", a "threads NAME US ... us/op"
 * line with the server's CPU per op by thread group when known, and an "op NAME ..."
 * line per operation of the point. */
void bench_summary_point(FILE *out, const struct bench_point *pt, unsigned i, unsigned n);
/* Fallbacks used when the report side is not built in: the highest valid achieved
 * rate and the Overall Response Time (docs/sfs-workload.md section 1.6). */
void bench_summary_finalize(struct bench_run *run);

#endif
