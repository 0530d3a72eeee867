/*
 * engine.h - the load engine: load processes, each with its own TCP connection, its
 * slice of the fileset and its share of the requested rate, multiplexed as event-driven
 * state machines on a few threads. It creates (or checks and reuses) the fileset, then
 * runs load points and fills struct bench_point.
 */
#ifndef SHOAL_BENCH_ENGINE_H
#define SHOAL_BENCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bench_result.h"
#include "nfs3/nfs3.h"
#include "workload.h"

/* One server address + export, mounted before the engine starts. */
struct bench_target_cfg {
	char host[64];
	char path[256];
	uint16_t nfs_port;
	struct nfs3_fh root;
};

struct bench_cfg {
	struct bench_mix mix;
	struct bench_plan plan;
	uint32_t threads;	/* engine threads */
	uint32_t in_flight;	/* logical ops in flight per process (<= 256) */
	uint32_t biod;		/* RPCs in flight per multi-RPC READ/WRITE */
	uint32_t xfer;		/* bytes per READ/WRITE RPC */
	uint32_t stable;	/* enum stable_how for WRITE */
	double append_pct;	/* writes that append (70) */
	double fail_lookup_pct; /* LOOKUPs of names that do not exist (35, [U]) */
	double tolerance_pct;	/* achieved may fall this far below requested */
	uint64_t ahead_ns;	/* a process sends what is due this soon with what is due now */
	uint32_t send_batch;	/* ...but no more than about this many calls' worth (0: no cap) */
	bool reuse;		/* keep existing files of the right size */
	uint64_t seed;		/* of the operations' random choices (--seed) */
	uint32_t uid, gid;	/* the NFS calls' AUTH_SYS credential (--uid, --gid) */
	unsigned ntargets;
	struct bench_target_cfg targets[BENCH_MAX_TARGETS];
};

struct bench_engine;

/*
 * Connect every load process (process i to target i % ntargets: the Uniform Access
 * Rule). Returns the engine, or NULL with a message in @err.
 */
struct bench_engine *bench_engine_new(const struct bench_cfg *cfg, char *err, size_t errlen);
/*
 * Create the fileset, or with cfg->reuse keep what exists and create what is missing.
 * Shows a progress bar on stderr when @progress. Returns 0 or -1 with a message in @err.
 * Fills the fileset fields of @run.
 */
int bench_engine_populate(struct bench_engine *e, bool progress, struct bench_run *run, char *err,
			  size_t errlen);
/* Start the engine threads (idle until a point is run). 0 or a negative errno. */
int bench_engine_start(struct bench_engine *e);
/*
 * Run one load point: @rate op/s spread evenly over all processes, @warmup_s seconds
 * unmeasured, then @run_s seconds measured. Server CPU comes from /proc for @spids.
 * Fills @pt completely, including validity against cfg->tolerance_pct and 20 ms.
 */
void bench_engine_point(struct bench_engine *e, double rate, double warmup_s, double run_s,
			const pid_t *spids, unsigned nspids, struct bench_point *pt);
/* Stop issuing: every thread has seen the rate 0 when this returns; calls already in
 * flight are still answered. The next bench_engine_point() starts again. */
void bench_engine_idle(struct bench_engine *e);
/*
 * Bring the server to rest before measuring (engine_settle.c): idle the engine, then
 * COMMIT every I/O file over one extra connection per target, one call at a time.
 * Returns 0 with the number of files committed in @files, or -1 with a message in @err.
 */
int bench_engine_settle(struct bench_engine *e, uint64_t *files, char *err, size_t errlen);
/* Errors seen over the whole run (warm-up included), printed per operation and status
 * to @out; returns their total. */
uint64_t bench_engine_errors(struct bench_engine *e, FILE *out);
/* Whether every connection is still up. */
bool bench_engine_healthy(const struct bench_engine *e);
/* Stop the threads, close connections, free everything. */
void bench_engine_free(struct bench_engine *e);

#endif
