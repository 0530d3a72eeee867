/*
 * peak_search.h - the search for a server's peak rate before the load ladder: short
 * probes find roughly where the server stops keeping up, then trials as long as the
 * points pin the peak down within a few percent; and the ladder's run, whose top step
 * runs again if it falls short of the searched peak. Pure control logic: trials and
 * steps are run by callbacks, so both are tested against model servers
 * (test_peak_search.c).
 */
#ifndef SHOAL_BENCH_PEAK_SEARCH_H
#define SHOAL_BENCH_PEAK_SEARCH_H

#include <stdbool.h>

/* One trial of the search: run @rate op/s, as a short probe or as a full-length trial;
 * true if it was valid, with the rate it achieved in *achieved. */
typedef bool (*bench_trial_fn)(void *arg, double rate, bool probe, double *achieved);

struct bench_search {
	double start;	     /* first request, op/s */
	double precision;    /* stop when the valid and invalid requests are this close (> 1) */
	unsigned max_trials; /* per phase: probes, then full-length trials */
	bool probes;	     /* steer with probes first */
	bench_trial_fn fn;
	void *arg;
};

/*
 * Search the peak. With probes: from @start, raise the request by half while probes stay
 * valid (lower it by a third while they are not), then halve the gap once, to within a
 * factor of about 1.22. Full-length trials then start at the highest valid probe: if
 * valid, they halve the gap up to the lowest invalid probe; if not, they step down as
 * far as the probes' gap until one is, and halve the gap from there. Without probes the
 * full-length trials do the probes' climb themselves. Either way they stop within a
 * factor @precision, or after @max_trials trials of the phase. An invalid trial runs
 * twice and is valid if either run was: one stall of the server or of the machine must
 * not stop the search far below the peak.
 *
 * Returns the highest rate a valid full-length trial achieved (probes only steer: a
 * rate kept up for a few seconds may not be kept up for the length of a point); when no
 * full-length trial was valid, what the last one achieved.
 */
double bench_peak_search(const struct bench_search *s);

/* One step of the load ladder, the @i-th run: run @rate op/s and say whether the step
 * was valid, whether it fell short of @rate by more than the tolerance with nothing else
 * wrong (the one failure a run at a lower rate may cure), and the rate it achieved. */
typedef void (*bench_step_fn)(void *arg, unsigned i, double rate, bool *valid, bool *fell_short,
			      double *achieved);

#define BENCH_TOP_AGAIN 2 /* runs at most of a top step again, after it fell short */

/*
 * Run the ladder @rates[0..@n-1] (ascending), one @fn call a step. With @top_again (its
 * top was a search's pick): while the last step fell short of its request and achieved
 * more than every valid step before it, run it again at the rate it achieved, up to
 * BENCH_TOP_AGAIN times and never beyond @max steps in all. Returns the steps run.
 */
unsigned bench_ladder_run(const double *rates, unsigned n, unsigned max, bool top_again,
			  bench_step_fn fn, void *arg);

#endif
