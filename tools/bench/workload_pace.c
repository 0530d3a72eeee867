/*
 * workload_pace.c - pacing arithmetic: when a load process's next operation is due,
 * how far ahead it sends, the ladder of requested loads, whether a point achieved what
 * it was asked, and the search for the peak.
 *
 * Pacing is open-loop at a fixed rate per process, as SFS's processes regulate
 * themselves to their share of the requested load (docs/sfs-workload.md section 1.8).
 */
#include "workload.h"

#include <math.h>

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

/*
 * One trial of the search at @rate, counted in *n: an invalid point runs once more while
 * the budget allows, and counts as valid if either run was. A server (or a shared
 * machine) that stalls once for a second fails one point now and then at a rate it
 * sustains; taken as its limit, that stall would cap the search far below the peak.
 */
static bool peak_trial(double rate, unsigned *n, unsigned max_trials, bench_trial_fn fn, void *arg,
		       double *got)
{
	(*n)++;
	if (fn(arg, rate, got))
		return true;
	if (*n >= max_trials)
		return false;
	(*n)++;
	return fn(arg, rate, got);
}

double bench_peak_search(double start, double precision, unsigned max_trials, bench_trial_fn fn,
			 void *arg)
{
	double lo = 0, hi = 0, best = 0, got;
	unsigned n = 0;

	/* Up by half while valid. */
	for (double rate = start; n < max_trials; rate *= 1.5) {
		if (!peak_trial(rate, &n, max_trials, fn, arg, &got)) {
			if (lo == 0) /* even the start is too much: what it achieved */
				return got > 0 ? got : start;
			hi = rate;
			break;
		}
		lo = rate;
		best = got;
	}
	/* Then halve the gap between the last valid request and the first invalid one. */
	while (hi > 0 && hi > lo * precision && n < max_trials) {
		double mid = sqrt(lo * hi);

		if (peak_trial(mid, &n, max_trials, fn, arg, &got)) {
			lo = mid;
			if (got > best)
				best = got;
		} else {
			hi = mid;
		}
	}
	return best;
}
