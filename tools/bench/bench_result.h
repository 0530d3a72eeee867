/*
 * bench_result.h - what one shoal-bench run measured: the contract between the load
 * engine (which fills it), the JSON writer/reader (which store it) and the report
 * writers (text in the SPEC SFS seed layout, SVG/HTML charts).
 *
 * All times are in the units their names say; rates are per second of measured
 * interval. Strings are NUL-terminated and fixed-size so a result can be copied,
 * written and read back without ownership questions.
 */
#ifndef SHOAL_BENCH_RESULT_H
#define SHOAL_BENCH_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#define BENCH_MAX_POINTS	32
#define BENCH_MAX_OPS		24 /* NFSv3 procedures, indexed by procedure number */
#define BENCH_MAX_TARGETS	16
#define BENCH_HIST_BUCKETS	512 /* log-linear latency buckets, see bench_hist.h */
#define BENCH_MAX_THREAD_GROUPS 8   /* server CPU split kept per point */

/* Per-operation statistics of one load point (the columns sfs_prime printed). */
struct bench_op_stats {
	char name[16];			    /* "GETATTR"; empty = operation not in the mix */
	double target_pct;		    /* mix percentage requested */
	double actual_pct;		    /* share of logical operations actually issued */
	uint64_t logical_ok;		    /* logical operations answered without error */
	uint64_t physical_ok;		    /* RPCs answered (a large READ is several) */
	uint64_t errors;		    /* operations answered with an error status or lost */
	double mean_ms, stddev_ms, ci95_ms; /* response time of logical ops */
	double pct_time;		    /* share of total response time */
	double p50_us, p90_us, p99_us, p999_us, max_us;
};

/* The server's CPU time per op spent by one group of its threads: those whose names differ
 * only in trailing digits ("shoal-sync0".."shoal-sync31" are "shoal-sync"). */
struct bench_thread_cpu {
	char name[16];	      /* the group's name; "other" holds the smallest groups */
	double cpu_us_per_op; /* user + system time of its threads, per op */
};

struct bench_point {
	double requested_ops; /* op/s asked for */
	double achieved_ops;  /* logical op/s answered in the measured interval */
	double mean_ms;	      /* mean response time over all logical ops */
	double measured_s, warmup_s;
	uint64_t total_ops, total_errors;
	bool valid;
	char invalid_reason[160];    /* why not valid; empty when valid */
	double client_cpu_us_per_op; /* the load generator's own CPU time per op */
	double server_cpu_us_per_op; /* server processes' CPU time per op; < 0 = unknown */
	/* The whole machine's CPUs over the measured interval, % of their time: busy,
	 * stolen by the hypervisor, idle or waiting for I/O; all 0 when not measured
	 * (bench_machine.h). */
	double machine_busy_pct, machine_steal_pct, machine_idle_pct;
	/* server_cpu_us_per_op split by thread group, largest first; none when unknown or
	 * in a run made before it existed. Threads that ended within the interval are in
	 * the total only. */
	uint32_t nserver_threads;
	struct bench_thread_cpu server_threads[BENCH_MAX_THREAD_GROUPS];
	struct bench_op_stats ops[BENCH_MAX_OPS];
};

/* One server address + export that load processes were spread over (the UAR). */
struct bench_target {
	char host[64];
	char export_path[256];
	uint32_t procs; /* load processes assigned to it */
};

struct bench_run {
	char label[64];	       /* "shoal", "ganesha": names the curve in charts */
	char server_desc[128]; /* what was measured, e.g. "shoal-server 0.1.0" */
	char workload[32];     /* "SFS2008-NFSv3" */
	char date[32];	       /* ISO 8601, UTC */
	/* Benchmark parameters */
	uint32_t load_procs;	  /* load processes (each its own connection) */
	uint32_t calls_in_flight; /* per process: biod-style outstanding RPCs */
	uint32_t transfer_size;	  /* bytes per READ/WRITE RPC (negotiated, <= 32 KiB) */
	uint64_t fileset_bytes;	  /* created */
	uint64_t io_files, nonio_files, dirs, symlinks;
	double working_set_pct;	  /* 30 for SFS2008 */
	double append_pct;	  /* 70 */
	char write_stability[16]; /* "FILE_SYNC", "UNSTABLE", ... */
	char call_pacing[96];	  /* when a process sends its calls (--send-ahead-us) */
	char seed[24]; /* of the operations' random choices, in decimal; empty in a run made
			* before it existed (its processes' choices were correlated) */
	/* The NFS calls' credential ("AUTH_SYS uid 0 gid 0"); empty in a run made before it
	 * existed (its calls came as root). */
	char credential[48];
	/* Before the first point (engine_settle.c): what was done ("COMMIT of N I/O files
	 * in S s") or why it failed; empty in a run made before it existed. */
	char settle[192];
	bool settle_failed; /* then the server was not known to be at rest */
	/* How the top of the ladder was set: the peak search's trials and their lengths, or
	 * the --load given; empty in a run made before it existed. */
	char ladder_top[192];
	uint32_t ntargets;
	struct bench_target targets[BENCH_MAX_TARGETS];
	/* Results */
	uint32_t npoints;
	struct bench_point points[BENCH_MAX_POINTS];
	double peak_ops; /* highest achieved op/s of a valid point, <= 20 ms */
	double ort_ms;	 /* overall response time, bench_ort() */
	/* Host facts detected at run time (for the report) */
	char host_os[128], host_cpu[128];
	uint32_t host_cpus;
	uint64_t host_mem_bytes;
};

#endif
