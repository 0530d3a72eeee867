/*
 * fixture.h - a fixed, fully populated struct bench_run for the results-side tests
 * (JSON round trip, report golden file, chart): the seed 001 curve of sfs-workload.md
 * Appendix A with a complete per-operation table, two targets, an invalid point and
 * errors, so every field and every branch of the writers has something to show.
 */
#ifndef SHOAL_TEST_BENCH_FIXTURE_H
#define SHOAL_TEST_BENCH_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "bench/bench_result.h"

static const struct {
	const char *name;
	unsigned proc;
	double pct;
} fixture_mix[] = {
	{"GETATTR", 1, 26}, {"SETATTR", 2, 4},	{"LOOKUP", 3, 24},	{"ACCESS", 4, 11},
	{"READLINK", 5, 1}, {"READ", 6, 18},	{"WRITE", 7, 10},	{"CREATE", 8, 1},
	{"REMOVE", 12, 1},  {"READDIR", 16, 1}, {"READDIRPLUS", 17, 2}, {"FSSTAT", 18, 1},
};

/* Fill @r (zeroed first) with the fixture. Deterministic: no clock, no host look-up. */
static inline void fixture_run(struct bench_run *r)
{
	static const double ops[] = {148, 300, 450, 601, 750, 904, 1054, 1207, 1356, 1470, 1390};
	static const double ms[] = {1.7, 2.3, 2.9, 3.2, 3.8, 5.3, 6.9, 9.2, 12.0, 18.1, 24.5};

	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "shoal");
	snprintf(r->server_desc, sizeof(r->server_desc), "shoal-server 0.1.0");
	snprintf(r->workload, sizeof(r->workload), "SFS2008-NFSv3");
	snprintf(r->date, sizeof(r->date), "2025-01-15T12:00:00Z");
	r->load_procs = 8;
	r->calls_in_flight = 2;
	r->transfer_size = 32768;
	r->fileset_bytes = 193273528320ull; /* 180 GiB */
	r->io_files = 354000;
	r->nonio_files = 7080;
	r->dirs = 11808;
	r->symlinks = 8;
	r->working_set_pct = 30;
	r->append_pct = 70;
	snprintf(r->write_stability, sizeof(r->write_stability), "FILE_SYNC");
	snprintf(r->call_pacing, sizeof(r->call_pacing), "each call when it is due");
	snprintf(r->seed, sizeof(r->seed), "7");
	snprintf(r->credential, sizeof(r->credential), "AUTH_SYS uid 1000 gid 1000");
	snprintf(r->settle, sizeof(r->settle), "COMMIT of 120 I/O files in 0.02 s");
	snprintf(r->ladder_top, sizeof(r->ladder_top),
		 "6000 op/s, searched from 5000 op/s in 4 trials of 2 s warm-up + 5 s measured");
	r->ntargets = 2;
	snprintf(r->targets[0].host, sizeof(r->targets[0].host), "127.0.0.1");
	snprintf(r->targets[0].export_path, sizeof(r->targets[0].export_path), "/srv/fs1");
	r->targets[0].procs = 4;
	snprintf(r->targets[1].host, sizeof(r->targets[1].host), "127.0.0.1");
	snprintf(r->targets[1].export_path, sizeof(r->targets[1].export_path), "/srv/fs2");
	r->targets[1].procs = 4;

	r->npoints = sizeof(ops) / sizeof(ops[0]);
	for (unsigned i = 0; i < r->npoints; i++) {
		struct bench_point *pt = &r->points[i];

		pt->requested_ops = 150.0 * (i + 1);
		pt->achieved_ops = ops[i];
		pt->mean_ms = ms[i];
		pt->measured_s = 300;
		pt->warmup_s = 300;
		pt->total_ops = (uint64_t)(ops[i] * 300);
		pt->valid = true;
		pt->client_cpu_us_per_op = 20.5 + i;
		pt->server_cpu_us_per_op = 110.25 - i;
		pt->machine_busy_pct = 40 + 2.5 * i; /* the machine's CPUs */
		pt->machine_steal_pct = 4.5;
		pt->machine_idle_pct = 100 - pt->machine_busy_pct - pt->machine_steal_pct;
		/* ... split by thread group as shoal-server names its threads */
		pt->nserver_threads = 3;
		snprintf(pt->server_threads[0].name, sizeof(pt->server_threads[0].name),
			 "shoal-loop");
		pt->server_threads[0].cpu_us_per_op = 60.25 - i;
		snprintf(pt->server_threads[1].name, sizeof(pt->server_threads[1].name),
			 "shoal-sync");
		pt->server_threads[1].cpu_us_per_op = 40;
		snprintf(pt->server_threads[2].name, sizeof(pt->server_threads[2].name), "other");
		pt->server_threads[2].cpu_us_per_op = 10;
		for (unsigned k = 0; k < sizeof(fixture_mix) / sizeof(fixture_mix[0]); k++) {
			struct bench_op_stats *op = &pt->ops[fixture_mix[k].proc];
			uint64_t n = (uint64_t)(pt->total_ops * fixture_mix[k].pct / 100);

			snprintf(op->name, sizeof(op->name), "%s", fixture_mix[k].name);
			op->target_pct = fixture_mix[k].pct;
			op->actual_pct = fixture_mix[k].pct + (k % 3 == 0 ? 0.1 : -0.05);
			op->logical_ok = n;
			op->physical_ok = n + (fixture_mix[k].proc == 6 ? n / 4 : 0);
			op->mean_ms = ms[i] * (0.5 + 0.1 * k);
			op->stddev_ms = op->mean_ms / 3;
			op->ci95_ms = 0.01 * (k + 1);
			op->pct_time = fixture_mix[k].pct;
			op->p50_us = op->mean_ms * 900;
			op->p90_us = op->mean_ms * 1500;
			op->p99_us = op->mean_ms * 2500;
			op->p999_us = op->mean_ms * 4000;
			op->max_us = op->mean_ms * 9000;
		}
	}
	/* Point 4 lost some calls: errors counted per operation and in the total. */
	r->points[3].ops[7].errors = 3;
	r->points[3].ops[8].errors = 1;
	r->points[3].total_errors = 4;
	/* Point 7 missed its requested rate. */
	r->points[6].valid = false;
	snprintf(r->points[6].invalid_reason, sizeof(r->points[6].invalid_reason),
		 "mix not achieved: READDIR 0.4%% of operations, 1.0%% requested");
	/* Point 11 is past the 20 ms cap, and the server CPU was not measured there. */
	r->points[10].server_cpu_us_per_op = -1;
	r->points[10].nserver_threads = 0;
	memset(r->points[10].server_threads, 0, sizeof(r->points[10].server_threads));

	snprintf(r->host_os, sizeof(r->host_os),
		 "Debian GNU/Linux 12 (bookworm), Linux 6.1.0-18-amd64 x86_64");
	snprintf(r->host_cpu, sizeof(r->host_cpu), "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz");
	r->host_cpus = 2;
	r->host_mem_bytes = 25165824000ull;
}

#endif
