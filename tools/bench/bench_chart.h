/*
 * bench_chart.h - the throughput/response-time curves of one or more shoal-bench runs
 * as a self-contained SVG image, overlaid for comparison.
 */
#ifndef SHOAL_BENCH_CHART_H
#define SHOAL_BENCH_CHART_H

#include <stdio.h>

#include "bench_result.h"

/*
 * bench_chart_svg - write an SVG document (no XML prolog: it starts with "<svg") that
 * plots achieved op/s against mean response time for each of the @nruns runs in @runs:
 * one polyline with a marker per load point for each run (invalid points drawn hollow),
 * axes with ticks and labels, the 20 ms line when it is in range, and a legend naming
 * each run with its peak and ORT. Returns 0, or -1 if writing failed.
 */
int bench_chart_svg(const struct bench_run *runs, unsigned nruns, FILE *out);

#endif
