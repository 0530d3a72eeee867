/*
 * workload.h - the SFS2008 NFSv3 workload as data and arithmetic: the operation mix,
 * the file-size and transfer-size tables, the fileset plan (how many files of each
 * class a load process owns, how large, which are in the working set) and the pacing
 * of requested rates. No I/O happens here; the engine (engine*.c) turns choices made
 * here into NFS calls. Facts are tagged as in docs/sfs-workload.md: what is
 * PROVISIONAL is named so in the tables below and in every report.
 */
#ifndef SHOAL_BENCH_WORKLOAD_H
#define SHOAL_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_result.h"

/* ---- random numbers: splitmix64, one state per load process ---- */

static inline uint64_t bench_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The first state of load process @proc's generator in a run seeded with @seed. States
 * are outputs of the generator, not a step apart: processes started a step apart would
 * draw one stream, each a draw behind the next, and so choose alike.
 */
static inline uint64_t bench_proc_seed(uint64_t seed, uint32_t proc)
{
	uint64_t base = bench_rand(&seed);
	uint64_t s = base + (uint64_t)proc * 0x9e3779b97f4a7c15ull;

	return bench_rand(&s);
}

/* Uniform integer in [0, n) (n > 0), by 64x64 multiply-high (no modulo bias to speak of). */
static inline uint64_t bench_rand_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)bench_rand(s) * n) >> 64);
}

/* ---- operation mix (workload_mix.c) ---- */

struct bench_mix_entry {
	uint32_t proc; /* NFS3PROC_* */
	double pct;    /* target share in percent */
};

struct bench_mix {
	unsigned n;
	struct bench_mix_entry e[BENCH_MAX_OPS];
	uint64_t cum[BENCH_MAX_OPS]; /* cumulative share scaled to 2^64 - 1 */
};

/* The SPECsfs2008 NFSv3 mix of docs/sfs-workload.md section 1.1 [C]. */
extern const struct bench_mix_entry bench_mix_sfs2008[];
extern const unsigned bench_mix_sfs2008_n;

/* Whether the engine can send procedure @proc (engine_op.c): not MKDIR, SYMLINK, MKNOD,
 * RMDIR, RENAME or LINK, which the SFS2008 mix does not have. */
bool bench_proc_generated(uint32_t proc);
/* Build a mix from @n entries whose percentages sum to about 100. False if they do not
 * (outside 99.9..100.1), if @n exceeds BENCH_MAX_OPS or a procedure is not one the
 * engine generates (a report must not count calls it never made). */
bool bench_mix_init(struct bench_mix *m, const struct bench_mix_entry *e, unsigned n);
/*
 * Read a mix file in the SFS lineage's format: first line "SFS MIXFILE VERSION 2",
 * '#' comments, then "<opname> <pct>%" lines. Returns 0, or -1 with a message in @err.
 */
int bench_mix_load(struct bench_mix *m, const char *path, char *err, unsigned errlen);
/* The procedure chosen by a uniform 64-bit random number. */
uint32_t bench_mix_pick(const struct bench_mix *m, uint64_t rnd);
/*
 * The procedure a load process issues next, drawn from @m with @rng, when its pool of
 * files for CREATE and REMOVE holds @pool of at most @cap (cap > 0): a REMOVE needs a
 * file there, a CREATE room for one. A draw that cannot be issued is drawn again, so
 * the other shares keep their proportions; after 16 such draws in a row (a mix of
 * only REMOVE, or of only CREATE with the pool full) the other of the two is issued,
 * which makes room or a file for the next. So no mix stalls a load process.
 */
uint32_t bench_mix_pick_pool(const struct bench_mix *m, uint64_t *rng, uint32_t pool, uint32_t cap);
/* "GETATTR" for NFS3PROC_GETATTR; "?" when out of range. */
const char *bench_proc_name(uint32_t proc);
/* NFS3PROC_* for a name (case-insensitive), or -1. */
int bench_proc_by_name(const char *name);

/* ---- sizes (workload_sizes.c) ---- */

/* A row of a transfer-size table: a share of operations, whole blocks, a fragment. */
struct bench_xfer_row {
	double pct;
	uint32_t blocks;
	bool frag; /* add a random fragment of 1..7 eighths of a block */
};

struct bench_xfer_table {
	const char *name;
	unsigned n;
	struct bench_xfer_row row[8];
};

/*
 * SFS 3.0 READ and WRITE size tables (section 1.2 [C]) in units of one block. With the
 * default 32 KiB block they are the PROVISIONAL SFS2008 tables: the real SFS2008
 * buckets were not recovered [U].
 */
extern const struct bench_xfer_table bench_read_sizes;
extern const struct bench_xfer_table bench_write_sizes;

/* Default block ("size unit"): SFS 3.0's 8 KiB scaled to SFS2008's 32 KiB transfers. */
#define BENCH_DEFAULT_UNIT (32u * 1024)

/* Pick a transfer size in bytes from @t with block @unit; @rnd, @rnd2 are uniform. */
uint32_t bench_xfer_pick(const struct bench_xfer_table *t, uint32_t unit, uint64_t rnd,
			 uint64_t rnd2);
/* Mean transfer size in bytes, and mean RPCs per logical op at transfer size @xfer. */
double bench_xfer_mean(const struct bench_xfer_table *t, uint32_t unit);
double bench_xfer_rpcs(const struct bench_xfer_table *t, uint32_t unit, uint32_t xfer);

/* File sizes: SFS 3.0's distribution (section 3.2 [C]) scaled by @unit / 8 KiB. */
#define BENCH_FSIZE_ROWS 10
extern const double bench_fsize_pct[BENCH_FSIZE_ROWS];
extern const uint32_t bench_fsize_kib[BENCH_FSIZE_ROWS]; /* at the 8 KiB unit */
uint64_t bench_fsize_pick(uint32_t unit, uint64_t rnd);
double bench_fsize_mean(uint32_t unit);

/* ---- fileset plan (workload_fileset.c) ---- */

#define BENCH_MIB_PER_OP    120.0 /* SFS2008: fileset bytes per requested op/s [D] */
#define BENCH_FILES_PER_DIR 30	  /* [D] */
#define BENCH_SYMLINKS	    20	  /* per client [C/D] */
#define BENCH_SPARES	    32	  /* pre-created files per process for REMOVE (ours) */

struct bench_plan {
	double load;  /* requested peak op/s the fileset is sized for */
	double scale; /* fraction of the 120 MiB per op/s rule */
	uint32_t procs;
	uint32_t unit; /* block / size unit in bytes */
	double ws_pct; /* working set, percent of I/O files */
	uint64_t target_bytes;
	uint32_t io_per_proc, dirs_per_proc, nonio_per_proc, symlinks_per_proc, ws_per_proc;
};

/* Size the fileset as SFS does (section 1.4): counts per process from the load. */
void bench_plan_init(struct bench_plan *p, double load, double scale, uint32_t procs, uint32_t unit,
		     double ws_pct);
/* Planned size of I/O file @file of process @proc: deterministic, so a fileset can be
 * checked and reused by a later run with the same plan. */
uint64_t bench_plan_file_size(const struct bench_plan *p, uint32_t proc, uint32_t file);
/* Total planned bytes (sum of every I/O file's size). */
uint64_t bench_plan_bytes(const struct bench_plan *p);

/* ---- pacing (workload_pace.c) ---- */

/* Open-loop pacing of one process: op k is due at t0 + k / rate. */
struct bench_pace {
	uint64_t t0_ns;
	double interval_ns;
	uint64_t issued;
};

/* Start at @now with @rate op/s; @phase in [0,1) staggers processes inside one interval. */
void bench_pace_start(struct bench_pace *p, double rate, uint64_t now_ns, double phase);
/* Operations due at @now and not yet issued. */
uint64_t bench_pace_due(const struct bench_pace *p, uint64_t now_ns);
/* When the next operation is due. */
uint64_t bench_pace_next_ns(const struct bench_pace *p);
/* Forgive a backlog larger than @max (the server is slower than asked): the achieved
 * rate falls short and the point is reported as such instead of bursting later. */
void bench_pace_cap_debt(struct bench_pace *p, uint64_t now_ns, uint64_t max);

/* Requested loads of an @n point ladder: (i + 1) / n of @peak (10 %, 20 % ... 100 %). */
void bench_ladder(double peak, unsigned n, double *out);
/*
 * How far ahead a thread sending @thread_rate calls a second sends with what is due:
 * @ahead_ns, shortened at high rates to @batch calls' worth (0: no shortening). Calls
 * sent together queue behind each other at the server: a window of fixed time adds
 * about utilisation x window to every response time, as much for a fast server as for a
 * slow one, while a window of a few calls adds a few of the server's service times.
 */
uint64_t bench_send_window(uint64_t ahead_ns, uint32_t batch, double thread_rate);
/* Whether achieved is within @tol_pct percent below requested (above is always fine). */
bool bench_rate_ok(double requested, double achieved, double tol_pct);

#endif
