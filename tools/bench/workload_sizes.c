/*
 * workload_sizes.c - transfer-size and file-size distributions.
 *
 * The tables are SFS 3.0's (docs/sfs-workload.md sections 1.2 and 3.2 [C]) expressed
 * in blocks; SFS2008's own buckets were not recovered, so with the default 32 KiB
 * block these are PROVISIONAL (SFS 3.0 scaled from 8 KiB to 32 KiB transfers).
 */
#include "workload.h"

const struct bench_xfer_table bench_read_sizes = {
	"READ (SFS 3.0 table, PROVISIONAL for SFS2008)",
	6,
	{{0, 0, true}, {85, 1, false}, {8, 2, true}, {4, 4, true}, {2, 8, true}, {1, 16, true}},
};

const struct bench_xfer_table bench_write_sizes = {
	"WRITE (SFS 3.0 table, PROVISIONAL for SFS2008)",
	6,
	{{49, 0, true}, {36, 1, true}, {8, 2, true}, {4, 4, true}, {2, 8, true}, {1, 16, true}},
};

const double bench_fsize_pct[BENCH_FSIZE_ROWS] = {33, 21, 13, 10, 8, 5, 4, 3, 2, 1};
const uint32_t bench_fsize_kib[BENCH_FSIZE_ROWS] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 1024};

/* A uniform 64-bit number as a percentage in [0, 100). */
static double rnd_pct(uint64_t rnd)
{
	return (double)(rnd >> 11) * (100.0 / 9007199254740992.0);
}

uint32_t bench_xfer_pick(const struct bench_xfer_table *t, uint32_t unit, uint64_t rnd,
			 uint64_t rnd2)
{
	double x = rnd_pct(rnd), acc = 0;
	unsigned i;
	uint32_t size;

	for (i = 0; i + 1 < t->n; i++) {
		acc += t->row[i].pct;
		if (x < acc)
			break;
	}
	size = t->row[i].blocks * unit;
	if (t->row[i].frag)
		size += (uint32_t)(1 + rnd2 % 7) * (unit / 8);
	/* reads shorter than one block are rounded up to a block [C: SFS 3.0 op_read] */
	return size ? size : unit;
}

double bench_xfer_mean(const struct bench_xfer_table *t, uint32_t unit)
{
	double m = 0;

	for (unsigned i = 0; i < t->n; i++) {
		double s = (double)t->row[i].blocks * unit + (t->row[i].frag ? 4.0 * unit / 8 : 0);

		m += t->row[i].pct / 100.0 * (s ? s : unit);
	}
	return m;
}

double bench_xfer_rpcs(const struct bench_xfer_table *t, uint32_t unit, uint32_t xfer)
{
	double m = 0;

	for (unsigned i = 0; i < t->n; i++) {
		unsigned nf = t->row[i].frag ? 7 : 1;
		double r = 0;

		/* average over the fragment sizes, each equally likely */
		for (unsigned f = 1; f <= nf; f++) {
			uint64_t s = (uint64_t)t->row[i].blocks * unit +
				     (t->row[i].frag ? f * (unit / 8) : 0);

			r += s ? (double)((s + xfer - 1) / xfer) : 1;
		}
		m += t->row[i].pct / 100.0 * r / nf;
	}
	return m;
}

uint64_t bench_fsize_pick(uint32_t unit, uint64_t rnd)
{
	double x = rnd_pct(rnd), acc = 0;
	unsigned i;

	for (i = 0; i + 1 < BENCH_FSIZE_ROWS; i++) {
		acc += bench_fsize_pct[i];
		if (x < acc)
			break;
	}

	return (uint64_t)bench_fsize_kib[i] * 1024 * unit / 8192;
}

double bench_fsize_mean(uint32_t unit)
{
	double m = 0;

	for (unsigned i = 0; i < BENCH_FSIZE_ROWS; i++)
		m += bench_fsize_pct[i] / 100.0 * bench_fsize_kib[i] * 1024.0 * unit / 8192;
	return m;
}
