/*
 * test_peak_search.c - the peak search (peak_search.c) against model servers: the peak
 * found within 6% below the true one and never above it, with and without probes; probes
 * that over- or underrate the server; stalls; a start above the peak; the trial budget;
 * and what the probes are for: fewer full-length trials. Then the ladder's run: a top
 * step that fell short runs again at what it achieved, and only then.
 */
#include "peak_search.h"
#include "unit/test.h"

#define PRECISION 1.06

/* A server that sustains up to @cap op/s for a full-length trial and @probe_cap for a
 * probe: valid up to it, short of the request above; except that trial number @stall
 * (1-based, probes and trials counted together; 0: none) stalls, short of any request. */
struct model {
	double cap, probe_cap;
	unsigned stall;
	unsigned n[2]; /* full-length trials, probes */
};

static bool model_trial(void *arg, double rate, bool probe, double *achieved)
{
	struct model *m = arg;
	double cap = probe ? m->probe_cap : m->cap;

	m->n[probe]++;
	if (m->n[0] + m->n[1] == m->stall) {
		*achieved = rate * 0.8;
		return false;
	}
	*achieved = rate <= cap ? rate : cap * 0.97;
	return rate <= cap;
}

static double search(struct model *m, double start, unsigned max_trials, bool probes)
{
	struct bench_search s = {start, PRECISION, max_trials, probes, model_trial, m};

	return bench_peak_search(&s);
}

/* Found within the precision below the peak, never above it, the budget kept. */
static void check_found(const struct model *m, double p)
{
	CHECK(p <= m->cap && p >= m->cap / PRECISION);
	CHECK(m->n[0] <= 20 && m->n[1] <= 20);
}

static void test_found(void)
{
	static const double caps[] = {5000, 7400, 12345, 37969, 48900, 250000};

	for (unsigned i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		for (int probes = 0; probes <= 1; probes++) {
			struct model m = {caps[i], caps[i], 0, {0, 0}};

			check_found(&m, search(&m, 5000, 20, probes));
			CHECK(probes ? m.n[1] > 0 : m.n[1] == 0);
		}
	}
}

/* The point of probing: the climb from a low start costs probes, not full-length trials. */
static void test_probes_save_trials(void)
{
	struct model with = {37969, 37969, 0, {0, 0}};
	struct model without = {37969, 37969, 0, {0, 0}};

	check_found(&with, search(&with, 5000, 20, true));
	check_found(&without, search(&without, 5000, 20, false));
	/* Without: 5 valid steps of the climb, one invalid twice, 3 halvings. */
	CHECK(without.n[0] >= 8);
	/* With: the highest valid probe, then 2 halvings (an invalid one twice). */
	CHECK(with.n[0] <= 5);
}

/* Probes see more than the server keeps up for a point: the trials step down. */
static void test_probes_overrate(void)
{
	for (double over = 1.0; over <= 2.0; over += 0.1) {
		struct model m = {30000, 30000 * over, 0, {0, 0}};

		check_found(&m, search(&m, 5000, 20, true));
	}
}

/* Probes see less (a slow few seconds): the peak found is no higher than the lowest
 * invalid probe, so it may be low, but never above the server's and never far below
 * the probes' view. */
static void test_probes_underrate(void)
{
	struct model m = {30000, 24000, 0, {0, 0}};
	double p = search(&m, 5000, 20, true);

	CHECK(p <= 30000 && p >= 24000 / PRECISION);
}

/* One stall, anywhere among probes and trials, costs a trial, not the peak. */
static void test_stall(void)
{
	for (int probes = 0; probes <= 1; probes++) {
		for (unsigned stall = 1; stall <= 16; stall++) {
			struct model m = {37969, 37969, stall, {0, 0}};

			check_found(&m, search(&m, 5000, 20, probes));
		}
	}
}

/* A start above the peak: the search steps down to it. */
static void test_start_too_high(void)
{
	for (int probes = 0; probes <= 1; probes++) {
		struct model m = {3000, 3000, 0, {0, 0}};

		check_found(&m, search(&m, 5000, 20, probes));
	}
}

/* Nothing valid at all within the budget: what the last trial achieved. */
static void test_nothing_valid(void)
{
	struct model m = {1e-3, 1e-3, 0, {0, 0}};
	double p = search(&m, 5000, 20, true);

	CHECK_EQ(m.n[1], 20);
	CHECK_EQ(m.n[0], 20);
	CHECK(p == 1e-3 * 0.97);
}

/* The budget bounds each phase, the second run of an invalid point included. */
static void test_budget(void)
{
	struct model m = {1e12, 1e12, 0, {0, 0}};

	search(&m, 5000, 5, true);
	CHECK_EQ(m.n[1], 5);
	CHECK_EQ(m.n[0], 5);
	/* No budget at all: no trial, and no peak. */
	m.n[0] = m.n[1] = 0;
	CHECK(search(&m, 5000, 0, true) == 0);
	CHECK_EQ(m.n[0] + m.n[1], 0);
}

/* A server for the ladder: its i-th step achieves the request up to cap[i] (0: no cap),
 * and is short (invalid) below 90% of it; step @broken is invalid for another reason. */
struct ladder_model {
	double cap[8];
	int broken;
	unsigned n;
	double req[8];
};

static void ladder_step(void *arg, unsigned i, double rate, bool *valid, bool *fell_short,
			double *achieved)
{
	struct ladder_model *m = arg;

	CHECK_EQ(i, m->n);
	m->req[m->n++] = rate;
	*achieved = m->cap[i] > 0 && m->cap[i] < rate ? m->cap[i] : rate;
	*fell_short = *achieved < rate * 0.9;
	*valid = !*fell_short && (int)i != m->broken;
}

static const double ladder5[] = {100, 200, 300, 400, 1000};

static unsigned run_ladder(struct ladder_model *m, unsigned max, bool top_again)
{
	m->n = 0;
	return bench_ladder_run(ladder5, 5, max, top_again, ladder_step, m);
}

/* A ladder whose steps all hold runs once, step by step at the rates given. */
static void test_ladder_valid(void)
{
	struct ladder_model m = {{0}, -1, 0, {0}};

	CHECK_EQ(run_ladder(&m, 8, true), 5);
	CHECK_EQ(m.n, 5);
	for (unsigned i = 0; i < 5; i++)
		CHECK(m.req[i] == ladder5[i]);
}

/* A short top runs again at what it achieved; again while it falls short and achieves
 * more than the valid steps, twice at most. */
static void test_ladder_top_again(void)
{
	struct ladder_model once = {{0, 0, 0, 0, 800}, -1, 0, {0}};
	struct ladder_model twice = {{0, 0, 0, 0, 800, 700, 600}, -1, 0, {0}};

	CHECK_EQ(run_ladder(&once, 8, true), 6);
	CHECK(once.req[5] == 800);
	CHECK_EQ(run_ladder(&twice, 8, true), 7);
	CHECK(twice.req[5] == 800 && twice.req[6] == 700);
	/* The limit on steps in all bounds the runs again. */
	CHECK_EQ(run_ladder(&twice, 6, true), 6);
	CHECK_EQ(run_ladder(&twice, 5, true), 5);
	CHECK_EQ(run_ladder(&twice, 3, true), 3);
}

/* No run again: without top_again (a ladder asked for, not searched), for a top invalid
 * for another reason than its rate, or one that achieved no more than a valid step. */
static void test_ladder_top_kept(void)
{
	struct ladder_model fixed = {{0, 0, 0, 0, 800}, -1, 0, {0}};
	struct ladder_model broken = {{0}, 4, 0, {0}};
	struct ladder_model below = {{0, 0, 0, 0, 390}, -1, 0, {0}};
	struct ladder_model again_below = {{0, 0, 0, 0, 800, 380}, -1, 0, {0}};

	CHECK_EQ(run_ladder(&fixed, 8, false), 5);
	CHECK_EQ(run_ladder(&broken, 8, true), 5);
	CHECK_EQ(run_ladder(&below, 8, true), 5);
	CHECK_EQ(run_ladder(&again_below, 8, true), 6);
}

TESTS(test_found, test_probes_save_trials, test_probes_overrate, test_probes_underrate, test_stall,
      test_start_too_high, test_nothing_valid, test_budget, test_ladder_valid,
      test_ladder_top_again, test_ladder_top_kept);
