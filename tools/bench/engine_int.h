/*
 * engine_int.h - the engine's private state, shared by engine_op.c (one load process's
 * operations as a state machine), engine_loop.c (threads, points, statistics) and
 * engine_populate.c (the fileset).
 *
 * Concurrency: a load process and its connection belong to one engine thread for their
 * whole life, so they need no lock. The controller (main thread) talks to the engine
 * threads only through the atomics in struct bench_engine and reads a thread's
 * statistics only after the thread has acknowledged the phase change (ack == seq).
 */
#ifndef SHOAL_BENCH_ENGINE_INT_H
#define SHOAL_BENCH_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "bench_hist.h"
#include "client.h"
#include "engine.h"

#define SLOT_BITS    8 /* XID low bits name the slot: at most 256 logical ops in flight */
#define MAX_SLOTS    (1u << SLOT_BITS)
#define NAME_MAX_LEN 32
#define BENCH_RTRUNC 1024 /* reply bytes kept: the engine reads only the status */

/* A file a process uses: its handle, where it lives and (I/O files) its size now. */
struct bench_file {
	struct nfs3_fh fh;
	uint64_t size;
	uint32_t dir;  /* index into proc->dirs */
	uint32_t name; /* number in its name */
	bool nonio;
};

/* Why an operation failed (bench_slot.fail_status): an nfsstat3 below BENCH_ST_RPC, or: */
#define BENCH_ST_RPC	1000 /* + the reply's accept_stat, or + 100 + its reject_stat */
#define BENCH_ST_LOST	2000 /* the connection was lost with the call in flight */
#define BENCH_ST_ENCODE 3000 /* our own failure to encode the call: never expected */
#define BENCH_ST_SHORT	3001 /* a result too short to hold the procedure's status */

/* One logical operation in flight. */
struct bench_slot {
	uint64_t t_start;
	uint32_t op;
	uint32_t outstanding; /* RPCs sent and not answered */
	struct bench_file *f;
	uint64_t off, end; /* READ/WRITE: next byte to ask for, end of the transfer */
	uint32_t name;	   /* CREATE/REMOVE: name number */
	uint32_t phys;	   /* RPCs answered */
	bool busy, expect_noent, failed;
	uint32_t fail_status;
};

/* What a thread measured for one operation in one point. */
struct bench_acc {
	uint64_t issued, ok, phys, errors;
	struct bench_hist h;
};

/* Errors over the whole run, per operation: count and the last status seen. */
struct bench_errs {
	uint64_t n[NFS3_NPROCS];
	uint32_t last[NFS3_NPROCS]; /* fail_status */
};

struct bench_thread;

struct bench_proc {
	uint32_t id;
	struct bench_thread *thr;
	const struct bench_target_cfg *target;
	struct bench_conn conn;
	bool dead;
	struct nfs3_fh pdir, scratch;
	struct nfs3_fh *dirs;
	uint32_t ndirs;
	struct bench_file *io; /* the first nws are the working set */
	uint32_t nio, nws;
	struct bench_file *nonio;
	uint32_t nnonio;
	struct nfs3_fh *links;
	uint32_t nlinks;
	uint32_t *rmq; /* names that exist in scratch/, a ring */
	uint32_t rmq_cap, rmq_head, rmq_len, next_name;
	uint64_t ws_base, ws_now; /* working-set bytes: planned, now */
	uint64_t rng;
	uint32_t xseq;
	double rate;
	struct bench_pace pace;
	struct bench_slot slots[MAX_SLOTS];
	uint8_t freestk[MAX_SLOTS]; /* indices of free slots */
	uint32_t nfree;
	uint8_t fresh[MAX_SLOTS]; /* slots started since the last flush */
	uint32_t nfresh;
	uint32_t nbusy;
};

struct bench_thread {
	struct bench_engine *eng;
	pthread_t tid;
	int epfd;
	struct bench_proc **procs;
	uint32_t nprocs;
	atomic_uint ack;
	/* written by this thread, read by the controller after ack */
	int point;	       /* -1 = not measuring */
	struct bench_acc *acc; /* [NFS3_NPROCS] for the current point */
	struct bench_errs errs;
};

enum { PHASE_IDLE, PHASE_WARMUP, PHASE_MEASURE, PHASE_STOP };

struct bench_engine {
	struct bench_cfg cfg;
	struct bench_proc *procs;
	uint32_t nprocs;
	struct bench_thread *thr;
	uint32_t nthr;
	bool started;
	uint8_t *wdata; /* WRITE payload, cfg.xfer bytes */
	/* controller -> threads */
	atomic_uint seq;
	atomic_int phase;
	atomic_int point;
	_Atomic double rate;		/* total requested op/s */
	atomic_uint_fast64_t populated; /* progress of the fileset creation */
};

/* Whether @p has an operation due at @now and a free slot for it. */
bool bench_proc_due(const struct bench_proc *p, uint64_t now);
/*
 * Issue every operation of @p due within cfg.ahead_ns of @now, as far as free slots
 * allow. The caller calls it only when some operation is due now (bench_proc_due() of
 * any process of the thread): issuing what became due since the last pass at every
 * wake-up would cost a system call per operation, while waiting for the first due one
 * and sending the slack's worth with it lets calls share one sendmsg() and both sides
 * share wake-ups. The calls are only queued: flush them, then bench_proc_sent().
 */
void bench_proc_issue(struct bench_proc *p, uint64_t now);
/* The calls bench_proc_issue() queued were handed to the kernel at @now: their
 * response times start there, not when they were encoded. */
void bench_proc_sent(struct bench_proc *p, uint64_t now);
/* Handle one reply for @p received at @now. */
void bench_proc_reply(struct bench_proc *p, const struct bench_reply *r, uint64_t now);
/* The connection broke: fail every operation in flight and stop the process. */
void bench_proc_kill(struct bench_proc *p, uint64_t now);
/* Name of a file: "file_en.00012", "nonio.00003", "dir_ent.00001", "cr.00000042". */
int bench_name(char *buf, size_t len, const char *prefix, uint32_t n);

#endif
