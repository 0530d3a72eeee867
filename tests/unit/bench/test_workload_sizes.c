/*
 * test_workload_sizes.c - transfer-size and file-size distributions: long-run row
 * frequencies match the tables, sizes stay in each row's range, means and
 * RPCs-per-operation agree with the tables' arithmetic; the fileset plan follows the
 * SFS counting rules.
 */
#include <math.h>
#include <stdio.h>

#include "unit/test.h"
#include "workload.h"

#define DRAWS 2000000
#define UNIT  (32u * 1024)

/* Row of a drawn size, from its whole blocks. */
static int row_of(const struct bench_xfer_table *t, uint32_t size)
{
	uint32_t blocks = size / UNIT, frag = size % UNIT;

	for (unsigned i = 0; i < t->n; i++)
		if (t->row[i].pct > 0 && t->row[i].blocks == blocks &&
		    (frag != 0) == t->row[i].frag)
			return (int)i;
	if (frag == 0 && blocks == 1) /* sub-block reads are rounded up to one block */
		for (unsigned i = 0; i < t->n; i++)
			if (t->row[i].blocks == 1 && !t->row[i].frag)
				return (int)i;
	return -1;
}

static void check_table(const struct bench_xfer_table *t)
{
	static uint64_t count[8];
	uint64_t s = 7;
	double sum = 0;

	memset(count, 0, sizeof(count));
	for (int i = 0; i < DRAWS; i++) {
		uint32_t size = bench_xfer_pick(t, UNIT, bench_rand(&s), bench_rand(&s));
		int r = row_of(t, size);

		CHECK(r >= 0);
		CHECK(size % (UNIT / 8) == 0);
		CHECK(size <= 16 * UNIT + 7 * UNIT / 8);
		if (r >= 0)
			count[r]++;
		sum += size;
	}
	for (unsigned i = 0; i < t->n; i++)
		CHECK(fabs(100.0 * (double)count[i] / DRAWS - t->row[i].pct) < 0.1);
	CHECK(fabs(sum / DRAWS - bench_xfer_mean(t, UNIT)) / bench_xfer_mean(t, UNIT) < 0.01);
}

static void test_read_sizes(void)
{
	check_table(&bench_read_sizes);
	/* SFS 3.0 arithmetic [C]: 1.64 RPCs per READ when transfers are one block */
	CHECK(fabs(bench_xfer_rpcs(&bench_read_sizes, UNIT, UNIT) - 1.64) < 0.005);
}

static void test_write_sizes(void)
{
	check_table(&bench_write_sizes);
	CHECK(fabs(bench_xfer_rpcs(&bench_write_sizes, UNIT, UNIT) - 2.0) < 0.005);
}

static void test_file_sizes(void)
{
	uint64_t count[BENCH_FSIZE_ROWS] = {0};
	uint64_t s = 9;

	for (int i = 0; i < DRAWS; i++) {
		uint64_t size = bench_fsize_pick(8192, bench_rand(&s));
		unsigned r;

		for (r = 0; r < BENCH_FSIZE_ROWS; r++)
			if (size == bench_fsize_kib[r] * 1024ull)
				break;
		CHECK(r < BENCH_FSIZE_ROWS);
		if (r < BENCH_FSIZE_ROWS)
			count[r]++;
	}
	for (unsigned r = 0; r < BENCH_FSIZE_ROWS; r++)
		CHECK(fabs(100.0 * (double)count[r] / DRAWS - bench_fsize_pct[r]) < 0.1);
	/* SFS 3.0: mean 26.7 KB at the 8 KiB unit [C]; four times that at 32 KiB */
	CHECK(fabs(bench_fsize_mean(8192) / 1024 - 26.71) < 0.01);
	CHECK(fabs(bench_fsize_mean(UNIT) / bench_fsize_mean(8192) - 4) < 1e-9);
}

static void test_plan(void)
{
	struct bench_plan p;
	uint64_t bytes;

	bench_plan_init(&p, 1000, 0.01, 4, UNIT, 30);
	CHECK_EQ(p.target_bytes, (uint64_t)(1000 * 0.01 * 120 * 1048576.0));
	CHECK_EQ(p.dirs_per_proc, p.io_per_proc / 30 + 1);
	CHECK_EQ(p.symlinks_per_proc, 20 / 4 + 1);
	CHECK(p.nonio_per_proc >= 25);
	CHECK_EQ(p.ws_per_proc, (uint32_t)ceil(p.io_per_proc * 0.3));
	CHECK_EQ(bench_plan_file_size(&p, 1, 5), bench_plan_file_size(&p, 1, 5));
	bytes = bench_plan_bytes(&p);
	/* the planned files add up to the target within a few percent */
	CHECK(fabs((double)bytes / (double)p.target_bytes - 1) < 0.15);
}

TESTS(test_read_sizes, test_write_sizes, test_file_sizes, test_plan);
