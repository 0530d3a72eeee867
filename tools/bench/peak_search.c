/*
 * peak_search.c - the search for a server's peak rate (peak_search.h): a climb and a
 * geometric bisection, run first with short probes and then with full-length trials
 * bracketed by what the probes found. A full-length trial costs as much as a load point
 * (15 s in the quick run); the probes save most of the ones a climb from a low start
 * would need (doc/bench/history.md).
 *
 * Then the ladder up to the peak found. The search keeps the best of its trials, a high
 * draw of a machine whose capacity moves by a tenth from one point to the next, so the
 * ladder's top step, asked for it, falls short now and then. The run's curve would then
 * end a step early, and its ORT leave out the response times near the peak that a
 * compliant SFS run, every point valid, includes; which server that flatters would be
 * chance. So a top step that fell short runs again at the rate it did achieve.
 */
#include "peak_search.h"

#include <math.h>

#define CLIMB		1.5  /* a climb's step: up by half */
#define PROBE_PRECISION 1.25 /* the probes stop within a halving of a step */

struct phase {
	const struct bench_search *s;
	bool probe;
	unsigned n;    /* trials run in this phase */
	double best;   /* highest valid achieved rate */
	double last;   /* what the last trial achieved */
	double lo, hi; /* highest valid and lowest invalid request (0: none yet) */
};

/* One trial at @rate, run again if invalid while the phase's budget allows (callers
 * check that the budget has room for the first run). */
static bool trial(struct phase *p, double rate)
{
	const struct bench_search *s = p->s;
	bool ok = false;

	for (unsigned run = 0; run < 2 && !ok && p->n < s->max_trials; run++) {
		p->n++;
		ok = s->fn(s->arg, rate, p->probe, &p->last);
	}
	if (ok) {
		p->lo = rate;
		if (p->last > p->best)
			p->best = p->last;
	} else {
		p->hi = rate;
	}
	return ok;
}

/* From @rate, step by @step up while valid or down while invalid, until a valid and an
 * invalid request bracket the peak (a known one on the far side ends the walk early). */
static void bracket(struct phase *p, double rate, double step)
{
	bool up;

	if (p->n >= p->s->max_trials)
		return;
	up = trial(p, rate);
	while (p->n < p->s->max_trials) {
		if (up && p->hi > 0)
			return;
		if (!up && p->lo > 0)
			return;
		rate = up ? rate * step : rate / step;
		if (trial(p, rate) != up)
			return;
	}
}

/* Halve the gap between the valid and the invalid request until within @precision. */
static void bisect(struct phase *p, double precision)
{
	while (p->lo > 0 && p->hi > p->lo * precision && p->n < p->s->max_trials)
		trial(p, sqrt(p->lo * p->hi));
}

double bench_peak_search(const struct bench_search *s)
{
	struct phase full = {s, false, 0, 0, 0, 0, 0};
	double rate = s->start, step = CLIMB;

	if (s->probes) {
		struct phase probe = {s, true, 0, 0, 0, 0, 0};

		bracket(&probe, s->start, CLIMB);
		bisect(&probe, PROBE_PRECISION);
		if (probe.lo > 0) {
			rate = probe.lo;
			/* The lowest invalid probe caps the full-length trials, untried. */
			full.hi = probe.hi;
			if (probe.hi > 0)
				step = probe.hi / probe.lo;
		} else if (probe.hi > 0) {
			rate = probe.hi; /* no probe was valid: down from the lowest tried */
		}
	}
	bracket(&full, rate, step);
	bisect(&full, s->precision);
	return full.best > 0 ? full.best : full.last;
}

unsigned bench_ladder_run(const double *rates, unsigned n, unsigned max, bool top_again,
			  bench_step_fn fn, void *arg)
{
	double best = 0, achieved = 0;
	bool valid = false, fell_short = false;
	unsigned i = 0;

	for (; i < n && i < max; i++) {
		if (valid && achieved > best) /* the step before */
			best = achieved;
		fn(arg, i, rates[i], &valid, &fell_short, &achieved);
	}
	for (unsigned again = 0; top_again && again < BENCH_TOP_AGAIN && i < max; again++, i++) {
		if (!fell_short || !(achieved > best))
			break;
		fn(arg, i, achieved, &valid, &fell_short, &achieved);
	}
	return i;
}
