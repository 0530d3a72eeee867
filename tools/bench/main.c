/*
 * main.c - shoal-bench: an SFS2008-style NFSv3 load generator. Parses the command
 * line, finds every export (portmap, MOUNT, FSINFO), creates the fileset, runs the load
 * points and hands the result to the report writers (text in the SPEC seed layout,
 * JSON, SVG) when they are built in.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bench_summary.h"
#include "client.h"
#include "core/clock.h"
#include "engine.h"
#include "mount/mount.h"
#include "peak_search.h"
#include "workload.h"

#if __has_include("report.h")
#include "report.h"
#define HAVE_REPORT 1
#endif
#if __has_include("bench_json.h")
#include "bench_json.h"
#define HAVE_JSON 1
#endif
#if __has_include("bench_chart.h")
#include "bench_chart.h"
#define HAVE_CHART 1
#endif
#if __has_include("bench_host.h")
#include "bench_host.h"
#define HAVE_HOST 1
#endif
#if __has_include("bench_ort.h")
#include "bench_ort.h"
#define HAVE_ORT 1
#endif

#define MAX_PIDS	    16
#define AUTO_PEAK_PRECISION 1.06 /* the peak search stops within 6% */
#define AUTO_PEAK_TRIALS    20

struct opts {
	const char *hosts[BENCH_MAX_TARGETS], *exports[BENCH_MAX_TARGETS];
	unsigned nhosts, nexports;
	uint16_t nfs_port, mount_port;
	double load, scale, warmup, runtime, ws_pct, append_pct, fail_lookup_pct, tolerance;
	double peak_warmup, peak_runtime;   /* a search trial's (not given: a point's) */
	double probe_warmup, probe_runtime; /* a search probe's */
	unsigned points, procs, in_flight, threads, biod, unit_kib, ahead_us, send_batch;
	bool auto_peak, reuse, progress, populate_only;
	uint32_t stable, uid, gid;
	uint64_t seed;
	const char *label, *server_desc, *json, *report, *svg, *desc, *mix;
	pid_t spids[MAX_PIDS];
	unsigned nspids;
};

static void usage(FILE *f)
{
	fputs("Usage: shoal-bench --load OPS [OPTIONS]\n"
	      "\n"
	      "An SFS2008-style NFSv3 load generator: creates a fileset sized by the load, runs\n"
	      "load points from 10% to 100% of OPS (SFS2008 operation mix) and reports\n"
	      "throughput, response times per operation and the Overall Response Time. Before\n"
	      "the first point (after the peak search, if any) it COMMITs every I/O file, so\n"
	      "that no backlog of earlier UNSTABLE writes is measured.\n"
	      "\n"
	      "  --host H           server address (repeatable; default 127.0.0.1)\n"
	      "  --export PATH      export to mount (repeatable; default /)\n"
	      "                     load processes go round-robin over every host x export\n"
	      "  --nfs-port N --mount-port N   ports (default: ask the portmapper)\n"
	      "  --load OPS         target peak op/s (sizes the fileset)\n"
	      "  --points N         load points at 1/N .. N/N of OPS (default 10)\n"
	      "  --auto-peak        search the peak first (short probes, then trials, to\n"
	      "                     within 6%), then run the points below it; a top point\n"
	      "                     that falls short runs again at the rate it achieved\n"
	      "                     (twice at most)\n"
	      "  --warmup S --runtime S   per point (default 300/300, SFS2008's)\n"
	      "  --peak-warmup S --peak-runtime S   per full-length trial of the peak search\n"
	      "                     (default: as a point's)\n"
	      "  --probe-warmup S --probe-runtime S   per probe, the short trials that steer\n"
	      "                     the search first (default 1 and 2; none if not shorter\n"
	      "                     than a trial, or with --probe-runtime 0)\n"
	      "  --quick            warm-up 5 s, measured 10 s per point\n"
	      "  --procs N          load processes, one TCP connection each (default 8)\n"
	      "  --in-flight N      logical ops in flight per process (default 8, max 256)\n"
	      "  --threads N        engine threads (default 1)\n"
	      "  --biod N           RPCs in flight per large READ/WRITE (default 2)\n"
	      "  --send-ahead-us N  when a process sends, it also sends what is due within\n"
	      "                     N us, to share a wake-up (default 0: each call when due)\n"
	      "  --send-batch N     ...but at most about N calls per engine thread, so\n"
	      "                     that calls sent together wait little for each other\n"
	      "                     (default 8; 0: the time window alone)\n"
	      "  --fileset-scale F  fraction of SFS2008's 120 MiB per op/s (default 0.001)\n"
	      "  --size-unit KIB    block of the size tables (default 32: SFS 3.0's tables\n"
	      "                     scaled to 32 KiB transfers, PROVISIONAL for SFS2008)\n"
	      "  --working-set PCT  I/O files READ/WRITE touch (default 30)\n"
	      "  --append PCT       WRITEs that append (default 70)\n"
	      "  --failed-lookups PCT  LOOKUPs of missing names (default 35, provisional)\n"
	      "  --write-stable file_sync|data_sync|unstable   (default file_sync)\n"
	      "  --uid N --gid N    the NFS calls' AUTH_SYS user and group (default 0 and 0;\n"
	      "                     a server then checks and switches to a real user's\n"
	      "                     identity, as for SFS's ordinary user; the export's\n"
	      "                     root directory must let that user create in it)\n"
	      "  --tolerance PCT    a point achieving less than this below its request is\n"
	      "                     invalid (default 10, provisional)\n"
	      "  --mix FILE         mix file (\"SFS MIXFILE VERSION 2\"); non-standard\n"
	      "  --seed N           seed of the operations' random choices (default 0: every\n"
	      "                     run of the same options makes the same choices)\n"
	      "  --reuse-fileset    keep files of an earlier run, create what is missing\n"
	      "  --populate-only    create the fileset and exit\n"
	      "  --label NAME --server-desc TEXT   name the curve / the server\n"
	      "  --server-pid PID   server process for CPU per op, in all and by thread\n"
	      "                     group (repeatable)\n"
	      "  --json FILE --report FILE --svg FILE --desc FILE   outputs\n"
	      "  --no-progress      no progress bar\n",
	      f);
}

static double num(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "shoal-bench: %s: expected a number in [%g, %g], got '%s'\n", opt,
			lo, hi, s);
		exit(2);
	}
	return v;
}

/* A seed: any 64-bit unsigned integer, in decimal or 0x hex. */
static uint64_t seed_arg(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || *end || errno || s[strspn(s, " \t")] == '-') {
		fprintf(stderr, "shoal-bench: --seed: expected an integer in [0, 2^64), got '%s'\n",
			s);
		exit(2);
	}
	return (uint64_t)v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	enum {
		O_NFSP = 256,
		O_MNTP,
		O_POINTS,
		O_WARM,
		O_RUN,
		O_PWARM,
		O_PRUN,
		O_QWARM,
		O_QRUN,
		O_INFL,
		O_THR,
		O_AHEAD,
		O_BATCH,
		O_BIOD,
		O_SCALE,
		O_UNIT,
		O_WS,
		O_APP,
		O_FL,
		O_STAB,
		O_UID,
		O_GID,
		O_TOL,
		O_MIX,
		O_SEED,
		O_REUSE,
		O_POPONLY,
		O_LABEL,
		O_DESCR,
		O_PID,
		O_JSON,
		O_REP,
		O_SVG,
		O_DESC,
		O_NOPROG,
		O_AUTO,
		O_QUICK
	};
	static const struct option lo[] = {
		{"host", 1, 0, 'H'},
		{"export", 1, 0, 'e'},
		{"nfs-port", 1, 0, O_NFSP},
		{"mount-port", 1, 0, O_MNTP},
		{"load", 1, 0, 'l'},
		{"points", 1, 0, O_POINTS},
		{"auto-peak", 0, 0, O_AUTO},
		{"warmup", 1, 0, O_WARM},
		{"runtime", 1, 0, O_RUN},
		{"peak-warmup", 1, 0, O_PWARM},
		{"peak-runtime", 1, 0, O_PRUN},
		{"probe-warmup", 1, 0, O_QWARM},
		{"probe-runtime", 1, 0, O_QRUN},
		{"quick", 0, 0, O_QUICK},
		{"procs", 1, 0, 'p'},
		{"in-flight", 1, 0, O_INFL},
		{"threads", 1, 0, O_THR},
		{"send-ahead-us", 1, 0, O_AHEAD},
		{"send-batch", 1, 0, O_BATCH},
		{"biod", 1, 0, O_BIOD},
		{"fileset-scale", 1, 0, O_SCALE},
		{"size-unit", 1, 0, O_UNIT},
		{"working-set", 1, 0, O_WS},
		{"append", 1, 0, O_APP},
		{"failed-lookups", 1, 0, O_FL},
		{"write-stable", 1, 0, O_STAB},
		{"uid", 1, 0, O_UID},
		{"gid", 1, 0, O_GID},
		{"tolerance", 1, 0, O_TOL},
		{"mix", 1, 0, O_MIX},
		{"seed", 1, 0, O_SEED},
		{"reuse-fileset", 0, 0, O_REUSE},
		{"populate-only", 0, 0, O_POPONLY},
		{"label", 1, 0, O_LABEL},
		{"server-desc", 1, 0, O_DESCR},
		{"server-pid", 1, 0, O_PID},
		{"json", 1, 0, O_JSON},
		{"report", 1, 0, O_REP},
		{"svg", 1, 0, O_SVG},
		{"desc", 1, 0, O_DESC},
		{"no-progress", 0, 0, O_NOPROG},
		{"help", 0, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "H:e:l:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
		case 'e':
			if ((c == 'H' ? o->nhosts : o->nexports) == BENCH_MAX_TARGETS) {
				fprintf(stderr, "shoal-bench: at most %d hosts and exports\n",
					BENCH_MAX_TARGETS);
				exit(2);
			}
			if (c == 'H')
				o->hosts[o->nhosts++] = optarg;
			else
				o->exports[o->nexports++] = optarg;
			break;
		case O_NFSP:
			o->nfs_port = (uint16_t)num("--nfs-port", optarg, 1, 65535);
			break;
		case O_MNTP:
			o->mount_port = (uint16_t)num("--mount-port", optarg, 1, 65535);
			break;
		case 'l':
			o->load = num("--load", optarg, 1, 1e8);
			break;
		case O_POINTS:
			o->points = (unsigned)num("--points", optarg, 1, BENCH_MAX_POINTS);
			break;
		case O_AUTO:
			o->auto_peak = true;
			break;
		case O_WARM:
			o->warmup = num("--warmup", optarg, 0, 1e5);
			break;
		case O_RUN:
			o->runtime = num("--runtime", optarg, 0.1, 1e5);
			break;
		case O_PWARM:
			o->peak_warmup = num("--peak-warmup", optarg, 0, 1e5);
			break;
		case O_PRUN:
			o->peak_runtime = num("--peak-runtime", optarg, 0.1, 1e5);
			break;
		case O_QWARM:
			o->probe_warmup = num("--probe-warmup", optarg, 0, 1e5);
			break;
		case O_QRUN:
			o->probe_runtime = num("--probe-runtime", optarg, 0, 1e5);
			break;
		case O_QUICK:
			o->warmup = 5;
			o->runtime = 10;
			break;
		case 'p':
			o->procs = (unsigned)num("--procs", optarg, 1, 4096);
			break;
		case O_INFL:
			o->in_flight = (unsigned)num("--in-flight", optarg, 1, 256);
			break;
		case O_THR:
			o->threads = (unsigned)num("--threads", optarg, 1, 64);
			break;
		case O_UID:
			o->uid = (uint32_t)num("--uid", optarg, 0, 4294967294.0);
			break;
		case O_GID:
			o->gid = (uint32_t)num("--gid", optarg, 0, 4294967294.0);
			break;
		case O_AHEAD:
			o->ahead_us = (unsigned)num("--send-ahead-us", optarg, 0, 1000000);
			break;
		case O_BATCH:
			o->send_batch = (unsigned)num("--send-batch", optarg, 0, 4096);
			break;
		case O_BIOD:
			o->biod = (unsigned)num("--biod", optarg, 1, 32);
			break;
		case O_SCALE:
			o->scale = num("--fileset-scale", optarg, 1e-7, 1);
			break;
		case O_UNIT:
			o->unit_kib = (unsigned)num("--size-unit", optarg, 1, 256);
			break;
		case O_WS:
			o->ws_pct = num("--working-set", optarg, 0.01, 100);
			break;
		case O_APP:
			o->append_pct = num("--append", optarg, 0, 100);
			break;
		case O_FL:
			o->fail_lookup_pct = num("--failed-lookups", optarg, 0, 100);
			break;
		case O_SEED:
			o->seed = seed_arg(optarg);
			break;
		case O_TOL:
			o->tolerance = num("--tolerance", optarg, 0, 100);
			break;
		case O_STAB:
			if (!strcasecmp(optarg, "file_sync"))
				o->stable = NFS3_FILE_SYNC;
			else if (!strcasecmp(optarg, "data_sync"))
				o->stable = NFS3_DATA_SYNC;
			else if (!strcasecmp(optarg, "unstable"))
				o->stable = NFS3_UNSTABLE;
			else {
				fprintf(stderr, "shoal-bench: --write-stable: expected file_sync, "
						"data_sync or unstable\n");
				exit(2);
			}
			break;
		case O_MIX:
			o->mix = optarg;
			break;
		case O_REUSE:
			o->reuse = true;
			break;
		case O_POPONLY:
			o->populate_only = true;
			break;
		case O_LABEL:
			o->label = optarg;
			break;
		case O_DESCR:
			o->server_desc = optarg;
			break;
		case O_PID:
			if (o->nspids < MAX_PIDS)
				o->spids[o->nspids++] = (pid_t)num("--server-pid", optarg, 1, 1e9);
			break;
		case O_JSON:
			o->json = optarg;
			break;
		case O_REP:
			o->report = optarg;
			break;
		case O_SVG:
			o->svg = optarg;
			break;
		case O_DESC:
			o->desc = optarg;
			break;
		case O_NOPROG:
			o->progress = false;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc || o->load <= 0) {
		fprintf(stderr, "shoal-bench: --load OPS is required (and no other arguments)\n");
		usage(stderr);
		exit(2);
	}
	if (o->peak_warmup < 0)
		o->peak_warmup = o->warmup;
	if (o->peak_runtime < 0)
		o->peak_runtime = o->runtime;
}

/* Mount every host x export (the Uniform Access Rule: processes go round-robin over
 * all of them) and negotiate the transfer size. 0 or -1 after a message. */
static int setup_targets(const struct opts *o, struct bench_cfg *cfg, struct bench_run *run)
{
	uint32_t xfer = 32768; /* SFS2008 caps transfers at 32 KiB [C] */

	for (unsigned h = 0; h < o->nhosts; h++) {
		for (unsigned x = 0; x < o->nexports; x++) {
			struct bench_target_cfg *t = &cfg->targets[cfg->ntargets];
			uint16_t mport = o->mount_port;
			uint32_t rt, wt;
			int rc = 0;

			if (cfg->ntargets == BENCH_MAX_TARGETS) {
				fprintf(stderr, "shoal-bench: at most %d host x export pairs\n",
					BENCH_MAX_TARGETS);
				return -1;
			}
			snprintf(t->host, sizeof(t->host), "%s", o->hosts[h]);
			snprintf(t->path, sizeof(t->path), "%s", o->exports[x]);
			t->nfs_port = o->nfs_port;
			if (!mport)
				rc = bench_pmap_getport(t->host, MOUNT_PROGRAM, 3, &mport);
			if (!rc && !t->nfs_port)
				rc = bench_pmap_getport(t->host, NFS3_PROGRAM, 3, &t->nfs_port);
			if (rc) {
				fprintf(stderr, "shoal-bench: %s: portmap: %s\n", t->host,
					strerror(-rc));
				return -1;
			}
			rc = bench_mount(t->host, mport, t->path, &t->root);
			if (!rc)
				rc = bench_fsinfo(t->host, t->nfs_port, &t->root, &rt, &wt);
			if (rc) {
				fprintf(stderr, "shoal-bench: mount %s:%s: %s%d\n", t->host,
					t->path, rc < 0 ? strerror(-rc) : "status ",
					rc < 0 ? 0 : rc);
				return -1;
			}
			if (rt && rt < xfer)
				xfer = rt;
			if (wt && wt < xfer)
				xfer = wt;
			snprintf(run->targets[cfg->ntargets].host, sizeof(run->targets[0].host),
				 "%s", t->host);
			snprintf(run->targets[cfg->ntargets].export_path,
				 sizeof(run->targets[0].export_path), "%s", t->path);
			cfg->ntargets++;
		}
	}
	cfg->xfer = xfer & ~3u;
	run->ntargets = cfg->ntargets;
	for (unsigned i = 0; i < o->procs; i++)
		run->targets[i % cfg->ntargets].procs++;
	return 0;
}

static int build_cfg(const struct opts *o, struct bench_cfg *cfg)
{
	char err[640];

	if (o->mix) {
		if (bench_mix_load(&cfg->mix, o->mix, err, sizeof(err)) < 0) {
			fprintf(stderr, "shoal-bench: %s\n", err);
			return -1;
		}
	} else if (!bench_mix_init(&cfg->mix, bench_mix_sfs2008, bench_mix_sfs2008_n)) {
		return -1;
	}
	for (unsigned i = 0; i < cfg->mix.n; i++) {
		uint32_t p = cfg->mix.e[i].proc;

		if (p == NFS3PROC_MKDIR || p == NFS3PROC_SYMLINK || p == NFS3PROC_MKNOD ||
		    p == NFS3PROC_RMDIR || p == NFS3PROC_RENAME || p == NFS3PROC_LINK) {
			fprintf(stderr,
				"shoal-bench: the mix asks for %s, which is not generated\n",
				bench_proc_name(p));
			return -1;
		}
	}
	bench_plan_init(&cfg->plan, o->load, o->scale, o->procs, o->unit_kib * 1024, o->ws_pct);
	cfg->threads = o->threads;
	cfg->in_flight = o->in_flight;
	cfg->ahead_ns = (uint64_t)o->ahead_us * 1000;
	cfg->send_batch = o->send_batch;
	cfg->biod = o->biod;
	cfg->stable = o->stable;
	cfg->append_pct = o->append_pct;
	cfg->fail_lookup_pct = o->fail_lookup_pct;
	cfg->tolerance_pct = o->tolerance;
	cfg->reuse = o->reuse;
	cfg->seed = o->seed;
	cfg->uid = o->uid;
	cfg->gid = o->gid;
	return 0;
}

static void fill_run_header(const struct opts *o, const struct bench_cfg *cfg,
			    struct bench_run *run)
{
	static const char *const stab[] = {"UNSTABLE", "DATA_SYNC", "FILE_SYNC"};
	time_t now = time(NULL);
	struct tm tm;

	snprintf(run->label, sizeof(run->label), "%s", o->label ? o->label : "server");
	snprintf(run->server_desc, sizeof(run->server_desc), "%s",
		 o->server_desc ? o->server_desc : run->label);
	snprintf(run->workload, sizeof(run->workload), "%s",
		 o->mix ? "SFS2008-NFSv3 (custom mix)" : "SFS2008-NFSv3");
	gmtime_r(&now, &tm);
	strftime(run->date, sizeof(run->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	run->load_procs = o->procs;
	run->calls_in_flight = o->in_flight;
	run->transfer_size = cfg->xfer;
	run->working_set_pct = o->ws_pct;
	run->append_pct = o->append_pct;
	snprintf(run->write_stability, sizeof(run->write_stability), "%s", stab[o->stable]);
	snprintf(run->seed, sizeof(run->seed), "%" PRIu64, o->seed);
	snprintf(run->credential, sizeof(run->credential), "AUTH_SYS uid %" PRIu32 " gid %" PRIu32,
		 o->uid, o->gid);
	if (o->ahead_us == 0)
		snprintf(run->call_pacing, sizeof(run->call_pacing), "each call when it is due");
	else if (o->send_batch == 0)
		snprintf(run->call_pacing, sizeof(run->call_pacing),
			 "calls due within %u us sent together", o->ahead_us);
	else
		snprintf(run->call_pacing, sizeof(run->call_pacing),
			 "calls due within %u us sent together, at most about %u per thread",
			 o->ahead_us, o->send_batch);
}

struct peak_trial {
	struct bench_engine *e;
	const struct opts *o;
	unsigned n[2]; /* full-length trials and probes run */
};

static bool peak_trial(void *arg, double rate, bool probe, double *achieved)
{
	struct peak_trial *t = arg;
	const struct opts *o = t->o;
	struct bench_point pt;

	bench_engine_point(t->e, rate, probe ? o->probe_warmup : o->peak_warmup,
			   probe ? o->probe_runtime : o->peak_runtime, o->spids, o->nspids, &pt);
	fprintf(stderr, "auto-peak: %s requested %.0f achieved %.0f op/s mean %.2f ms %s\n",
		probe ? "probe" : "trial", rate, pt.achieved_ops, pt.mean_ms,
		pt.valid ? "valid" : "invalid");
	*achieved = pt.achieved_ops;
	t->n[probe]++;
	return pt.valid;
}

/* Whether the search probes first: only if a probe is shorter than a trial. */
static bool use_probes(const struct opts *o)
{
	return o->probe_runtime > 0 &&
	       o->probe_warmup + o->probe_runtime < o->peak_warmup + o->peak_runtime;
}

/*
 * The top of the ladder: with --auto-peak the highest rate a valid full-length trial
 * achieved, found within 6% (bench_peak_search()), else --load; how, in @run (its JSON
 * and report).
 */
static double ladder_top(struct bench_engine *e, const struct opts *o, struct bench_run *run)
{
	struct peak_trial t = {e, o, {0, 0}};
	struct bench_search s = {
		.start = o->load,
		.precision = AUTO_PEAK_PRECISION,
		.max_trials = AUTO_PEAK_TRIALS,
		.probes = use_probes(o),
		.fn = peak_trial,
		.arg = &t,
	};
	char probes[96] = "";
	double peak;

	if (!o->auto_peak) {
		snprintf(run->ladder_top, sizeof(run->ladder_top), "%.0f op/s, as requested",
			 o->load);
		return o->load;
	}
	peak = bench_peak_search(&s);
	if (s.probes)
		snprintf(probes, sizeof(probes), "%u probes of %g s + %g s and ", t.n[1],
			 o->probe_warmup, o->probe_runtime);
	snprintf(run->ladder_top, sizeof(run->ladder_top),
		 "%.0f op/s, searched from %.0f op/s in %s%u trials of %g s warm-up + %g s "
		 "measured",
		 peak, o->load, probes, t.n[0], o->peak_warmup, o->peak_runtime);
	return peak;
}

struct ladder {
	struct bench_engine *e;
	const struct opts *o;
	struct bench_run *run;
};

/* One step of the ladder (bench_step_fn): a load point, and its console lines. A top
 * step run again is numbered past the ladder's length ("point 6/6" after "5/5"). */
static void ladder_step(void *arg, unsigned i, double rate, bool *valid, bool *fell_short,
			double *achieved)
{
	struct ladder *l = arg;
	struct bench_point *pt = &l->run->points[i];

	if (i >= l->o->points)
		fprintf(stderr, "shoal-bench: the top point fell short; again at %.0f op/s\n",
			rate);
	bench_engine_point(l->e, rate, l->o->warmup, l->o->runtime, l->o->spids, l->o->nspids, pt);
	l->run->npoints = i + 1;
	bench_summary_point(stdout, pt, i, i < l->o->points ? l->o->points : i + 1);
	fflush(stdout);
	*valid = pt->valid;
	/* short with every connection up: a lost one would fail the next run too */
	*fell_short = !bench_rate_ok(rate, pt->achieved_ops, l->o->tolerance) &&
		      bench_engine_healthy(l->e);
	*achieved = pt->achieved_ops;
}

/*
 * The load points of @ladder; with --auto-peak a top point that fell short runs again
 * at the rate it achieved (bench_ladder_run()), and the report's "Peak Load Point"
 * (run->ladder_top) says so.
 */
static void run_ladder(struct bench_engine *e, const struct opts *o, struct bench_run *run,
		       const double *ladder)
{
	struct ladder l = {e, o, run};
	unsigned n = bench_ladder_run(ladder, o->points, BENCH_MAX_POINTS, o->auto_peak,
				      ladder_step, &l);

	for (unsigned i = o->points; i < n; i++) {
		size_t len = strlen(run->ladder_top);

		snprintf(run->ladder_top + len, sizeof(run->ladder_top) - len,
			 i == o->points ? "; the top point fell short, run again at %.0f op/s"
					: " and at %.0f",
			 run->points[i].requested_ops);
	}
}

/*
 * Bring the server to rest before the ladder (bench_engine_settle()), and say how in
 * @run (its JSON and report) and on stderr. A failure makes the exit status 1, but the
 * points are still measured: the run then shows what the server does, and its report
 * says that the server was not known to be at rest.
 */
static bool settle(struct bench_engine *e, struct bench_run *run)
{
	char err[160];
	uint64_t files;
	uint64_t t0 = mono_ns();
	int rc = bench_engine_settle(e, &files, err, sizeof(err));

	run->settle_failed = rc < 0;
	if (rc < 0)
		snprintf(run->settle, sizeof(run->settle), "%s (after %llu files)", err,
			 (unsigned long long)files);
	else
		snprintf(run->settle, sizeof(run->settle), "COMMIT of %llu I/O files in %.2f s",
			 (unsigned long long)files, (double)(mono_ns() - t0) / 1e9);
	fprintf(stderr, "%s%s\n", rc < 0 ? "shoal-bench: " : "settle: ", run->settle);
	return rc == 0;
}

/* Write one output through @fn; false after a message if it cannot be. */
static bool write_out(const char *path, const char *what, bool have,
		      int (*fn)(const struct bench_run *, const char *, FILE *),
		      const struct bench_run *run, const char *arg)
{
	FILE *f;
	int rc;

	if (!path)
		return true;
	if (!have) {
		fprintf(stderr, "shoal-bench: %s output is not built into this binary\n", what);
		return false;
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "shoal-bench: %s: %s\n", path, strerror(errno));
		return false;
	}
	rc = fn(run, arg, f);
	if (fclose(f) != 0 || rc != 0) {
		fprintf(stderr, "shoal-bench: writing %s failed\n", path);
		return false;
	}
	return true;
}

#ifdef HAVE_REPORT
static int do_text(const struct bench_run *run, const char *desc, FILE *f)
{
	return bench_report_text(run, desc, f);
}
#else
#define do_text NULL
#endif
#ifdef HAVE_JSON
static int do_json(const struct bench_run *run, const char *unused, FILE *f)
{
	(void)unused;
	return bench_json_write(run, f);
}
#else
#define do_json NULL
#endif
#ifdef HAVE_CHART
static int do_svg(const struct bench_run *run, const char *unused, FILE *f)
{
	(void)unused;
	return bench_chart_svg(run, 1, f);
}
#else
#define do_svg NULL
#endif

#ifndef HAVE_REPORT
#define HAVE_REPORT 0
#endif
#ifndef HAVE_JSON
#define HAVE_JSON 0
#endif
#ifndef HAVE_CHART
#define HAVE_CHART 0
#endif

static bool outputs(const struct opts *o, const struct bench_run *run)
{
	bool ok = true;

	ok &= write_out(o->report, "text report", HAVE_REPORT, do_text, run, o->desc);
	ok &= write_out(o->json, "JSON", HAVE_JSON, do_json, run, NULL);
	ok &= write_out(o->svg, "SVG", HAVE_CHART, do_svg, run, NULL);
	return ok;
}

int main(int argc, char **argv)
{
	static struct bench_run run;
	static struct bench_cfg cfg;
	struct opts o = {.scale = 0.001,
			 .warmup = 300,
			 .runtime = 300,
			 .peak_warmup = -1,
			 .peak_runtime = -1,
			 .probe_warmup = 1,
			 .probe_runtime = 2,
			 .ws_pct = 30,
			 .append_pct = 70,
			 .fail_lookup_pct = 35,
			 .tolerance = 10,
			 .points = 10,
			 .procs = 8,
			 .in_flight = 8,
			 .threads = 1,
			 .ahead_us = 0,
			 .send_batch = 8,
			 .biod = 2,
			 .unit_kib = 32,
			 .stable = NFS3_FILE_SYNC,
			 .progress = true};
	double ladder[BENCH_MAX_POINTS], peak;
	struct bench_engine *e;
	char err[640];
	uint64_t errors;
	int status = 0;

	parse(argc, argv, &o);
	if (!o.nhosts)
		o.hosts[o.nhosts++] = "127.0.0.1";
	if (!o.nexports)
		o.exports[o.nexports++] = "/";
	if (!isatty(STDERR_FILENO))
		o.progress = false;
	if (build_cfg(&o, &cfg) < 0 || setup_targets(&o, &cfg, &run) < 0)
		return 1;
	fill_run_header(&o, &cfg, &run);
#ifdef HAVE_HOST
	bench_host_detect(&run);
#endif
	fprintf(stderr,
		"shoal-bench: %u processes x %u in flight over %u target(s), transfer %u bytes, "
		"fileset scale %g of 120 MiB per op/s (%u I/O files per process)\n",
		o.procs, o.in_flight, cfg.ntargets, cfg.xfer, o.scale, cfg.plan.io_per_proc);
	e = bench_engine_new(&cfg, err, sizeof(err));
	if (!e) {
		fprintf(stderr, "shoal-bench: %s\n", err);
		return 1;
	}
	if (bench_engine_populate(e, o.progress, &run, err, sizeof(err)) < 0) {
		fprintf(stderr, "shoal-bench: %s\n", err);
		bench_engine_free(e);
		return 1;
	}
	fprintf(stderr, "shoal-bench: fileset %.1f MiB in %llu I/O files, %llu directories\n",
		(double)run.fileset_bytes / 1048576.0, (unsigned long long)run.io_files,
		(unsigned long long)run.dirs);
	if (o.populate_only) {
		bench_engine_free(e);
		return 0;
	}
	if (bench_engine_start(e) < 0) {
		fprintf(stderr, "shoal-bench: cannot start the engine threads\n");
		bench_engine_free(e);
		return 1;
	}
	peak = ladder_top(e, &o, &run);
	if (!settle(e, &run))
		status = 1;
	bench_ladder(peak, o.points, ladder);
	run_ladder(e, &o, &run, ladder);
	errors = bench_engine_errors(e, stdout);
	if (!bench_engine_healthy(e))
		status = 1;
	bench_engine_free(e);
#ifdef HAVE_ORT
	bench_finalize(&run);
#else
	bench_summary_finalize(&run);
#endif
	printf("peak %.1f op/s ORT %.3f ms errors %llu\n", run.peak_ops, run.ort_ms,
	       (unsigned long long)errors);
	if (!outputs(&o, &run))
		status = 1;
	return status;
}
