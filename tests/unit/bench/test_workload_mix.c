/*
 * test_workload_mix.c - the operation mix: the SFS2008 table sums to 100, long-run
 * draws match it within 0.1 percentage points, the CREATE/REMOVE pool's limits never
 * stall a draw, mix files parse, a mix of an operation shoal-bench cannot send
 * (MKDIR...) is refused with a message naming the line, and load processes draw
 * streams of their own, set by the run's seed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs3/nfs3.h"
#include "unit/test.h"
#include "workload.h"

#define DRAWS 4000000

static void test_table(void)
{
	double total = 0;

	for (unsigned i = 0; i < bench_mix_sfs2008_n; i++)
		total += bench_mix_sfs2008[i].pct;
	CHECK(fabs(total - 100) < 1e-9);
	CHECK_EQ(bench_mix_sfs2008_n, 12);
	CHECK_EQ(bench_mix_sfs2008[0].proc, NFS3PROC_GETATTR);
	CHECK(bench_mix_sfs2008[0].pct == 26);
}

static void test_long_run_frequencies(void)
{
	uint64_t count[NFS3_NPROCS] = {0};
	struct bench_mix m;
	uint64_t s = 42;

	CHECK(bench_mix_init(&m, bench_mix_sfs2008, bench_mix_sfs2008_n));
	for (int i = 0; i < DRAWS; i++)
		count[bench_mix_pick(&m, bench_rand(&s))]++;
	for (unsigned i = 0; i < bench_mix_sfs2008_n; i++) {
		double got = 100.0 * (double)count[bench_mix_sfs2008[i].proc] / DRAWS;

		if (fabs(got - bench_mix_sfs2008[i].pct) >= 0.1)
			fprintf(stderr, "%s: %.3f%% vs %.1f%%\n",
				bench_proc_name(bench_mix_sfs2008[i].proc), got,
				bench_mix_sfs2008[i].pct);
		CHECK(fabs(got - bench_mix_sfs2008[i].pct) < 0.1);
	}
	CHECK_EQ(count[NFS3PROC_COMMIT], 0);
	CHECK_EQ(count[NFS3PROC_FSINFO], 0);
}

/* With room and files in the pool, the pool never changes a draw. */
static void test_pool_free(void)
{
	struct bench_mix m;
	uint64_t a = 7, b = 7;

	CHECK(bench_mix_init(&m, bench_mix_sfs2008, bench_mix_sfs2008_n));
	for (int i = 0; i < 100000; i++)
		CHECK_EQ(bench_mix_pick_pool(&m, &a, 10, 20), bench_mix_pick(&m, bench_rand(&b)));
}

/* An empty pool: no REMOVE, the other shares in proportion (GETATTR 26 of 99). */
static void test_pool_empty(void)
{
	uint64_t count[NFS3_NPROCS] = {0};
	struct bench_mix m;
	uint64_t s = 3;

	CHECK(bench_mix_init(&m, bench_mix_sfs2008, bench_mix_sfs2008_n));
	for (int i = 0; i < DRAWS / 4; i++)
		count[bench_mix_pick_pool(&m, &s, 0, 20)]++;
	CHECK_EQ(count[NFS3PROC_REMOVE], 0);
	CHECK(fabs(100.0 * (double)count[NFS3PROC_GETATTR] / (DRAWS / 4) - 2600.0 / 99) < 0.2);
	CHECK(fabs(100.0 * (double)count[NFS3PROC_CREATE] / (DRAWS / 4) - 100.0 / 99) < 0.1);
}

/* Mixes that could only draw what the pool forbids get the other one, never a stall. */
static void test_pool_only(void)
{
	const struct bench_mix_entry rm[] = {{NFS3PROC_REMOVE, 100}};
	const struct bench_mix_entry cr[] = {{NFS3PROC_CREATE, 100}};
	const struct bench_mix_entry most[] = {{NFS3PROC_REMOVE, 99.99}, {NFS3PROC_GETATTR, 0.01}};
	struct bench_mix m;
	uint64_t s = 5;

	CHECK(bench_mix_init(&m, rm, 1));
	CHECK_EQ(bench_mix_pick_pool(&m, &s, 0, 4), NFS3PROC_CREATE);
	CHECK_EQ(bench_mix_pick_pool(&m, &s, 1, 4), NFS3PROC_REMOVE);
	CHECK_EQ(bench_mix_pick_pool(&m, &s, 4, 4), NFS3PROC_REMOVE);
	CHECK(bench_mix_init(&m, cr, 1));
	CHECK_EQ(bench_mix_pick_pool(&m, &s, 4, 4), NFS3PROC_REMOVE);
	CHECK_EQ(bench_mix_pick_pool(&m, &s, 3, 4), NFS3PROC_CREATE);
	CHECK_EQ(bench_mix_pick_pool(&m, &s, 0, 4), NFS3PROC_CREATE);
	CHECK(bench_mix_init(&m, most, 2));
	for (int i = 0; i < 1000; i++)
		CHECK(bench_mix_pick_pool(&m, &s, 0, 4) != NFS3PROC_REMOVE);
}

static void test_bad_mix(void)
{
	struct bench_mix m;
	const struct bench_mix_entry bad[] = {{NFS3PROC_GETATTR, 50}, {NFS3PROC_LOOKUP, 40}};
	const struct bench_mix_entry badproc[] = {{99, 100}};
	const struct bench_mix_entry mkdir[] = {{NFS3PROC_GETATTR, 50}, {NFS3PROC_MKDIR, 50}};

	CHECK(!bench_mix_init(&m, bad, 2));
	CHECK(!bench_mix_init(&m, badproc, 1));
	/* MKDIR would go out as NULL calls counted as MKDIR: refused */
	CHECK(!bench_mix_init(&m, mkdir, 2));
	for (uint32_t proc = 0; proc < NFS3_NPROCS; proc++) {
		const struct bench_mix_entry one[] = {{proc, 100}};

		CHECK_EQ(bench_mix_init(&m, one, 1), bench_proc_generated(proc));
	}
	CHECK(!bench_proc_generated(NFS3PROC_RENAME));
	CHECK(bench_proc_generated(NFS3PROC_COMMIT));
}

/* Write @text to a fresh mix file and load it into @m; returns bench_mix_load()'s result. */
static int load_text(const char *text, struct bench_mix *m, char *err, unsigned errlen)
{
	char path[] = "/tmp/shoal-mix.XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	rc = bench_mix_load(m, path, err, errlen);
	unlink(path);
	return rc;
}

/* Each way a mix file can be wrong is named in the message, with its line. */
static void test_mix_file_errors(void)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{"SFS MIXFILE VERSION 2\ngetattr 50%\nmkdir 50%\n",
		 ":3: MKDIR is not sent by shoal-bench"},
		{"SFS MIXFILE VERSION 2\ngetattr 50%\nfrobnicate 50%\n",
		 ":3: not an NFSv3 operation"},
		{"SFS MIXFILE VERSION 2\ngetattr\n", ":2: expected '<opname> <pct>%'"},
		{"SFS MIXFILE VERSION 2\ngetattr 50%\n", ":2: percentages must sum to 100"},
	};
	struct bench_mix m;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		CHECK_EQ(load_text(cases[i].text, &m, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].why))
			fprintf(stderr, "case %zu: got '%s'\n", i, err);
		CHECK(strstr(err, cases[i].why) != NULL);
	}
}

static void test_mix_file(void)
{
	struct bench_mix m;
	char err[128];

	CHECK_EQ(load_text("SFS MIXFILE VERSION 2\n# comment\ngetattr 60%\nLOOKUP 40%\n", &m, err,
			   sizeof(err)),
		 0);
	CHECK_EQ(m.n, 2);
	CHECK_EQ(m.e[1].proc, NFS3PROC_LOOKUP);
	CHECK_EQ(load_text("not a mix\n", &m, err, sizeof(err)), -1);
	CHECK_EQ(bench_proc_by_name("readdirplus"), NFS3PROC_READDIRPLUS);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* No value is drawn twice in the first DRAWS_EACH draws of PROCS processes under one
 * seed (64-bit draws collide by chance with odds of about 2^-33 here): processes whose
 * streams were one stream shifted, as states a step apart give, would repeat almost all. */
#define PROCS	   64
#define DRAWS_EACH 1024
static void test_proc_streams(void)
{
	static const uint64_t seeds[] = {0, 1, 0xffffffffffffffffull};
	uint64_t *v = malloc(sizeof(*v) * PROCS * DRAWS_EACH);

	CHECK(v != NULL);
	for (size_t k = 0; v && k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		size_t n = 0, dup = 0;

		for (uint32_t p = 0; p < PROCS; p++) {
			uint64_t s = bench_proc_seed(seeds[k], p);

			for (int i = 0; i < DRAWS_EACH; i++)
				v[n++] = bench_rand(&s);
		}
		qsort(v, n, sizeof(*v), cmp_u64);
		for (size_t i = 1; i < n; i++)
			dup += v[i] == v[i - 1];
		CHECK_EQ(dup, 0);
	}
	free(v);
	/* the same seed gives the same stream; another seed, another */
	CHECK_EQ(bench_proc_seed(5, 3), bench_proc_seed(5, 3));
	CHECK(bench_proc_seed(5, 3) != bench_proc_seed(6, 3));
	CHECK(bench_proc_seed(5, 3) != bench_proc_seed(5, 4));
}

TESTS(test_table, test_proc_streams, test_long_run_frequencies, test_pool_free, test_pool_empty,
      test_pool_only, test_bad_mix, test_mix_file, test_mix_file_errors);
