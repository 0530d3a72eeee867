/*
 * workload_fileset.c - the fileset plan: how many I/O files, directories, non-I/O
 * files and symlinks each load process owns, and each I/O file's size.
 *
 * Counts follow SFS 3.0's arithmetic, which the SFS2008 counts reproduce
 * (docs/sfs-workload.md section 1.4 [C/D]): per process files/procs + 1, directories
 * = files / 30 + 1, non-I/O files 2 % of I/O files (at least 100), 20 symlinks per
 * client. Bytes follow SFS2008's 120 MiB per requested op/s [D], times a scale factor
 * so that small machines can run (the report prints it).
 */
#include "workload.h"

#include <math.h>

void bench_plan_init(struct bench_plan *p, double load, double scale, uint32_t procs, uint32_t unit,
		     double ws_pct)
{
	double mean = bench_fsize_mean(unit);
	uint64_t io, nonio;

	p->load = load;
	p->scale = scale;
	p->procs = procs ? procs : 1;
	p->unit = unit;
	p->ws_pct = ws_pct;
	p->target_bytes = (uint64_t)(load * scale * BENCH_MIB_PER_OP * 1048576.0);
	io = (uint64_t)ceil((double)p->target_bytes / mean);
	p->io_per_proc = (uint32_t)(io / p->procs + 1);
	p->dirs_per_proc = p->io_per_proc / BENCH_FILES_PER_DIR + 1;
	nonio = io * 2 / 100;
	if (nonio < 100)
		nonio = 100;
	p->nonio_per_proc = (uint32_t)(nonio / p->procs + 1);
	p->symlinks_per_proc = BENCH_SYMLINKS / p->procs + 1;
	p->ws_per_proc = (uint32_t)ceil(p->io_per_proc * ws_pct / 100.0);
	if (p->ws_per_proc == 0)
		p->ws_per_proc = 1;
	if (p->ws_per_proc > p->io_per_proc)
		p->ws_per_proc = p->io_per_proc;
}

uint64_t bench_plan_file_size(const struct bench_plan *p, uint32_t proc, uint32_t file)
{
	uint64_t s = ((uint64_t)proc << 32 | file) ^ 0x53484f414c000000ull;

	return bench_fsize_pick(p->unit, bench_rand(&s));
}

uint64_t bench_plan_bytes(const struct bench_plan *p)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < p->procs; i++)
		for (uint32_t f = 0; f < p->io_per_proc; f++)
			total += bench_plan_file_size(p, i, f);
	return total;
}
