/*
 * bench_summary.c - console lines per point and per operation (see bench_summary.h).
 */
#include "bench_summary.h"
#include "bench_machine.h"

void bench_summary_point(FILE *out, const struct bench_point *pt, unsigned i, unsigned n)
{
	fprintf(out,
		"point %u/%u requested %.0f achieved %.1f op/s mean %.3f ms errors %llu "
		"client_cpu %.2f us/op server_cpu %.2f us/op %s%s\n",
		i + 1, n, pt->requested_ops, pt->achieved_ops, pt->mean_ms,
		(unsigned long long)pt->total_errors, pt->client_cpu_us_per_op,
		pt->server_cpu_us_per_op, pt->valid ? "VALID" : "INVALID: ", pt->invalid_reason);
	if (pt->nserver_threads) {
		fputs("threads", out);
		for (unsigned k = 0; k < pt->nserver_threads && k < BENCH_MAX_THREAD_GROUPS; k++)
			fprintf(out, " %s %.2f", pt->server_threads[k].name,
				pt->server_threads[k].cpu_us_per_op);
		fputs(" us/op\n", out);
	}
	if (bench_machine_known(pt))
		fprintf(out, "machine cpu busy %.1f%% stolen %.1f%% idle %.1f%%\n",
			pt->machine_busy_pct, pt->machine_steal_pct, pt->machine_idle_pct);
	for (unsigned op = 0; op < BENCH_MAX_OPS; op++) {
		const struct bench_op_stats *s = &pt->ops[op];

		if (!s->name[0])
			continue;
		fprintf(out,
			"op %-11s target %5.1f%% actual %5.1f%% ok %llu physical %llu errors %llu "
			"mean %.3f ms p50 %.0f p90 %.0f p99 %.0f p99.9 %.0f max %.0f us\n",
			s->name, s->target_pct, s->actual_pct, (unsigned long long)s->logical_ok,
			(unsigned long long)s->physical_ok, (unsigned long long)s->errors,
			s->mean_ms, s->p50_us, s->p90_us, s->p99_us, s->p999_us, s->max_us);
	}
}

void bench_summary_finalize(struct bench_run *run)
{
	double area = 0, px = 0, py = 0, peak = 0;

	/* points in ascending achieved throughput, from the origin (0, 0) */
	for (unsigned k = 0; k < run->npoints; k++) {
		const struct bench_point *pt = &run->points[k];

		if (pt->valid && pt->mean_ms <= 20.0 && pt->achieved_ops > peak)
			peak = pt->achieved_ops;
	}
	for (unsigned k = 0; k < run->npoints; k++) {
		const struct bench_point *pt = &run->points[k];

		if (!pt->valid || pt->achieved_ops > peak || pt->achieved_ops < px)
			continue;
		area += (pt->achieved_ops - px) * (pt->mean_ms + py) / 2;
		px = pt->achieved_ops;
		py = pt->mean_ms;
	}
	run->peak_ops = peak;
	run->ort_ms = px > 0 ? area / px : 0;
}
