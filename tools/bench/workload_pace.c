/*
 * workload_pace.c - pacing arithmetic: when a load process's next operation is due,
 * how far ahead it sends, the ladder of requested loads and whether a point achieved
 * what it was asked (the search for the peak: peak_search.c).
 *
 * Pacing is open-loop at a fixed rate per process, as SFS's processes regulate
 * themselves to their share of the requested load (docs/sfs-workload.md section 1.8).
 */
#include "workload.h"

void bench_pace_start(struct bench_pace *p, double rate, uint64_t now_ns, double phase)
{
	p->interval_ns = rate > 0 ? 1e9 / rate : 1e18;
	p->t0_ns = now_ns + (uint64_t)(phase * p->interval_ns);
	p->issued = 0;
}

uint64_t bench_pace_due(const struct bench_pace *p, uint64_t now_ns)
{
	uint64_t should;

	if (now_ns < p->t0_ns)
		return 0;
	should = (uint64_t)((double)(now_ns - p->t0_ns) / p->interval_ns) + 1;
	return should > p->issued ? should - p->issued : 0;
}

uint64_t bench_pace_next_ns(const struct bench_pace *p)
{
	return p->t0_ns + (uint64_t)((double)p->issued * p->interval_ns);
}

void bench_pace_cap_debt(struct bench_pace *p, uint64_t now_ns, uint64_t max)
{
	uint64_t due = bench_pace_due(p, now_ns);

	if (due > max)
		p->t0_ns += (uint64_t)((double)(due - max) * p->interval_ns);
}

uint64_t bench_send_window(uint64_t ahead_ns, uint32_t batch, double thread_rate)
{
	double w;

	if (!batch || thread_rate <= 0)
		return ahead_ns;
	w = batch * 1e9 / thread_rate;
	return w < (double)ahead_ns ? (uint64_t)w : ahead_ns;
}

void bench_ladder(double peak, unsigned n, double *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = peak * (i + 1) / n;
}

bool bench_rate_ok(double requested, double achieved, double tol_pct)
{
	return achieved >= requested * (1.0 - tol_pct / 100.0);
}
