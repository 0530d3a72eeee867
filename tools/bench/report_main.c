/*
 * report_main.c - shoal-bench-report: the results side of shoal-bench without the load
 * engine. Reads runs stored as JSON, writes the text report of the first, an SVG with
 * all their curves overlaid, and prints the curves side by side with the ratios of the
 * first run to each other one (peak op/s, ORT, server CPU per op at the peak).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_chart.h"
#include "bench_json.h"
#include "bench_machine.h"
#include "bench_ort.h"
#include "report.h"

/* As many as the chart draws apart (12 colours, 12 legend entries in its height). */
#define MAX_RUNS 12

static void usage(FILE *f)
{
	fputs("Usage: shoal-bench-report [--desc FILE] [--report FILE] [--svg FILE] [--no-report]\n"
	      "                          RUN.json [RUN.json...]\n"
	      "\n"
	      "Write the text report of the first run (to stdout unless --report), an SVG of\n"
	      "all runs' throughput/response curves (--svg), then print the curves side by\n"
	      "side and the ratios of the first run to each other run.\n"
	      "\n"
	      "  --desc FILE     description of the system under test, \"Key: value\" lines\n"
	      "                  (see bench/sut-example.txt)\n"
	      "  --report FILE   write the text report to FILE\n"
	      "  --no-report     do not write a text report\n"
	      "  --svg FILE      write the chart to FILE\n",
	      f);
}

static int write_file(const char *path, int (*fn)(const void *arg, FILE *out), const void *arg)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f) {
		fprintf(stderr, "shoal-bench-report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = fn(arg, f);
	if (fclose(f) != 0 || rc != 0) {
		fprintf(stderr, "shoal-bench-report: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

struct report_arg {
	const struct bench_run *run;
	const char *desc;
};

static int do_report(const void *arg, FILE *out)
{
	const struct report_arg *a = arg;

	return bench_report_text(a->run, a->desc, out);
}

struct chart_arg {
	const struct bench_run *runs;
	unsigned n;
};

static int do_chart(const void *arg, FILE *out)
{
	const struct chart_arg *a = arg;

	return bench_chart_svg(a->runs, a->n, out);
}

static const char *label(const struct bench_run *r)
{
	return r->label[0] ? r->label : "(unnamed)";
}

/* @r's peak point; NULL if it has none. */
static const struct bench_point *peak_point(const struct bench_run *r)
{
	int p = bench_peak_index(r);

	return p >= 0 ? &r->points[p] : NULL;
}

static double peak_cpu(const struct bench_run *r)
{
	const struct bench_point *pt = peak_point(r);

	return pt ? pt->server_cpu_us_per_op : -1;
}

static void print_curves(const struct bench_run *runs, unsigned n)
{
	unsigned maxp = 0;

	for (unsigned r = 0; r < n; r++)
		if (runs[r].npoints > maxp)
			maxp = runs[r].npoints;
	printf("Curves (ops/s achieved, mean ms, errors, server CPU us/op; * = invalid point)\n");
	printf("%5s", "point");
	for (unsigned r = 0; r < n; r++)
		printf(" | %-36.36s", label(&runs[r]));
	printf("\n%5s", "");
	for (unsigned r = 0; r < n; r++)
		printf(" | %9s %9s %8s %7s", "ops/s", "ms", "errors", "cpu/op");
	printf("\n");
	for (unsigned i = 0; i < maxp && i < BENCH_MAX_POINTS; i++) {
		printf("%5u", i + 1);
		for (unsigned r = 0; r < n; r++) {
			const struct bench_point *pt = &runs[r].points[i];
			char cpu[16];

			if (i >= runs[r].npoints) {
				printf(" | %36s", "");
				continue;
			}
			if (pt->server_cpu_us_per_op < 0)
				snprintf(cpu, sizeof(cpu), "?");
			else
				snprintf(cpu, sizeof(cpu), "%.1f", pt->server_cpu_us_per_op);
			printf(" | %8.0f%c %9.3f %8llu %7s", pt->achieved_ops,
			       pt->valid ? ' ' : '*', pt->mean_ms,
			       (unsigned long long)pt->total_errors, cpu);
		}
		printf("\n");
	}
}

/* Each run's server CPU at its peak by thread group, where it was measured. */
static void print_threads(const struct bench_run *runs, unsigned n)
{
	char groups[400];
	bool title = false;

	for (unsigned r = 0; r < n; r++) {
		const struct bench_point *pt = peak_point(&runs[r]);

		if (!pt || !pt->nserver_threads)
			continue;
		if (!title)
			printf("\nServer CPU us/op at the peak by thread group:\n");
		title = true;
		bench_report_threads(pt, groups, sizeof(groups));
		printf("  %-16.16s%s\n", label(&runs[r]), groups);
	}
}

/* The machine's CPUs over each run's peak point, where they were measured. */
static void print_machine(const struct bench_run *runs, unsigned n)
{
	bool title = false;

	for (unsigned r = 0; r < n; r++) {
		const struct bench_point *pt = peak_point(&runs[r]);

		if (!pt || !bench_machine_known(pt))
			continue;
		if (!title)
			printf("\nThe machine's CPUs at the peak (%% of their time):\n");
		title = true;
		printf("  %-16.16s busy %.1f, stolen by the hypervisor %.1f, idle %.1f\n",
		       label(&runs[r]), pt->machine_busy_pct, pt->machine_steal_pct,
		       pt->machine_idle_pct);
	}
}

static void print_summary(const struct bench_run *runs, unsigned n)
{
	printf("\n%-16s %12s %9s %18s %8s %8s\n", "run", "peak ops/s", "ORT ms", "CPU us/op @peak",
	       "errors", "valid");
	for (unsigned r = 0; r < n; r++) {
		unsigned valid = 0;
		unsigned long long errs = 0;
		char cpu[16], v[16];

		for (unsigned i = 0; i < runs[r].npoints && i < BENCH_MAX_POINTS; i++) {
			valid += runs[r].points[i].valid;
			errs += runs[r].points[i].total_errors;
		}
		if (peak_cpu(&runs[r]) < 0)
			snprintf(cpu, sizeof(cpu), "unknown");
		else
			snprintf(cpu, sizeof(cpu), "%.1f", peak_cpu(&runs[r]));
		snprintf(v, sizeof(v), "%u/%u", valid, runs[r].npoints);
		printf("%-16.16s %12.0f %9.3f %18s %8llu %8s\n", label(&runs[r]), runs[r].peak_ops,
		       runs[r].ort_ms, cpu, errs, v);
	}
	print_threads(runs, n);
	print_machine(runs, n);
}

/* "2.41x (bar >= 2x: met)"; n/a when either figure is missing. */
static void print_ratio(const char *what, double a, double b, double bar, int dir)
{
	double q;

	if (!(a > 0) || !(b > 0)) {
		printf("  %-26s n/a\n", what);
		return;
	}
	q = a / b;
	printf("  %-26s %6.2fx  (bar %s %gx: %s)\n", what, q, dir > 0 ? ">=" : "<=", bar,
	       (dir > 0 ? q >= bar : q <= bar) ? "met" : "NOT met");
}

static void print_ratios(const struct bench_run *runs, unsigned n)
{
	for (unsigned r = 1; r < n; r++) {
		printf("\n%s / %s:\n", label(&runs[0]), label(&runs[r]));
		print_ratio("peak ops/s", runs[0].peak_ops, runs[r].peak_ops, 2, 1);
		print_ratio("ORT", runs[0].ort_ms, runs[r].ort_ms, 0.5, -1);
		print_ratio("server CPU per op at peak", peak_cpu(&runs[0]), peak_cpu(&runs[r]),
			    0.5, -1);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"desc", required_argument, NULL, 'd'}, {"report", required_argument, NULL, 'r'},
		{"no-report", no_argument, NULL, 'n'},	{"svg", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},	{NULL, 0, NULL, 0},
	};
	const char *desc = NULL, *report = NULL, *svg = NULL;
	struct bench_run *runs;
	unsigned n = 0;
	int no_report = 0, c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			desc = optarg;
			break;
		case 'r':
			report = optarg;
			break;
		case 'n':
			no_report = 1;
			break;
		case 's':
			svg = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc || argc - optind > MAX_RUNS) {
		fprintf(stderr, "shoal-bench-report: give 1 to %d result files\n", MAX_RUNS);
		usage(stderr);
		return 2;
	}
	runs = calloc(MAX_RUNS, sizeof(*runs));
	if (!runs) {
		fprintf(stderr, "shoal-bench-report: out of memory\n");
		return 1;
	}
	for (; optind < argc; optind++, n++) {
		if (bench_json_read(argv[optind], &runs[n]) < 0) {
			rc = 1;
			goto out;
		}
		bench_finalize(&runs[n]);
	}
	if (!no_report) {
		struct report_arg ra = {&runs[0], desc};

		if (report)
			rc |= write_file(report, do_report, &ra) ? 1 : 0;
		else if (bench_report_text(&runs[0], desc, stdout) < 0)
			rc = 1;
		else
			fputc('\n', stdout);
	}
	if (svg) {
		struct chart_arg ca = {runs, n};

		rc |= write_file(svg, do_chart, &ca) ? 1 : 0;
	}
	print_curves(runs, n);
	print_summary(runs, n);
	print_ratios(runs, n);
	if (fflush(stdout) != 0)
		rc = 1;
out:
	free(runs);
	return rc;
}
