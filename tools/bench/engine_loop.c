/*
 * engine_loop.c - the engine's threads and its controller: each thread runs an epoll
 * loop over the connections of its load processes, issuing what is due and handling
 * replies; the controller (the caller's thread) moves every thread through warm-up and
 * measured phases and merges what the threads counted into a struct bench_point.
 */
#include "engine_int.h"
#include "bench_machine.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_threads.h"
#include "core/clock.h"

#define MAX_WAIT_NS 10000000ull /* look at the controller's flags at least every 10 ms */
#define MAX_EVENTS  64
#define RT_LIMIT_MS 20.0 /* SFS2008's response-time limit for a reported point [C] */

/* Pace every process of @t at its share of the total rate. */
static void apply_rate(struct bench_thread *t, double total, uint64_t now)
{
	struct bench_engine *e = t->eng;

	for (uint32_t i = 0; i < t->nprocs; i++) {
		struct bench_proc *p = t->procs[i];

		p->rate = total / e->nprocs;
		bench_pace_start(&p->pace, p->rate, now, (double)p->id / e->nprocs);
	}
}

static void read_replies(struct bench_proc *p)
{
	struct bench_reply r;
	uint64_t now;
	int rc;

	for (;;) {
		int got = bench_conn_fill(&p->conn);

		rc = got;
		if (got <= 0)
			break;
		now = mono_ns();
		while ((rc = bench_conn_next_reply(&p->conn, &r)) == 1)
			bench_proc_reply(p, &r, now);
		/* fill() offers at least 256 KiB; a shorter read drained the socket */
		if (rc < 0 || got < 128 * 1024)
			break;
	}
	if (rc < 0) {
		fprintf(stderr, "shoal-bench: process %u: connection to %s lost (%s)\n", p->id,
			p->target->host, strerror(-rc));
		bench_proc_kill(p, mono_ns());
		epoll_ctl(p->thr->epfd, EPOLL_CTL_DEL, p->conn.fd, NULL);
	}
}

static void *thread_main(void *arg)
{
	struct bench_thread *t = arg;
	struct bench_engine *e = t->eng;
	struct epoll_event ev[MAX_EVENTS];
	double rate = 0;

	for (;;) {
		unsigned seq = atomic_load(&e->seq);
		int phase = atomic_load(&e->phase);
		uint64_t now = mono_ns(), next = now + MAX_WAIT_NS;
		double want = atomic_load(&e->rate);
		struct timespec ts;
		bool due_any = false;
		int n;

		if (phase == PHASE_STOP)
			break;
		if (want != rate) {
			rate = want;
			apply_rate(t, rate, now);
		}
		t->point = phase == PHASE_MEASURE ? atomic_load(&e->point) : -1;
		atomic_store(&t->ack, seq);
		/* one process due: every process sends what is due within the slack, so
		 * that the thread wakes once per batch rather than once per process */
		for (uint32_t i = 0; i < t->nprocs && !due_any; i++)
			due_any = bench_proc_due(t->procs[i], now);
		for (uint32_t i = 0; i < t->nprocs && due_any; i++) {
			struct bench_proc *p = t->procs[i];

			bench_proc_issue(p, now);
			if (!p->dead && bench_conn_pending(&p->conn) &&
			    bench_conn_flush(&p->conn) < 0)
				bench_proc_kill(p, now);
			if (p->nfresh)
				bench_proc_sent(p, mono_ns());
		}
		for (uint32_t i = 0; i < t->nprocs; i++) {
			struct bench_proc *p = t->procs[i];

			/* what a full socket refused earlier */
			if (!p->dead && bench_conn_pending(&p->conn) &&
			    bench_conn_flush(&p->conn) < 0)
				bench_proc_kill(p, now);
			if (!p->dead && p->rate > 0 && p->nbusy < e->cfg.in_flight) {
				uint64_t due = bench_pace_next_ns(&p->pace);

				if (due < next)
					next = due;
			}
		}
		now = mono_ns();
		ts.tv_sec = 0;
		ts.tv_nsec = next > now ? (long)(next - now) : 0;
		n = epoll_pwait2(t->epfd, ev, MAX_EVENTS, &ts, NULL);
		for (int i = 0; i < n; i++) {
			struct bench_proc *p = ev[i].data.ptr;

			if (!p->dead)
				read_replies(p);
			if (!p->dead && bench_conn_pending(&p->conn) &&
			    bench_conn_flush(&p->conn) < 0)
				bench_proc_kill(p, mono_ns());
		}
	}
	return NULL;
}

/* Publish a change to the threads and wait until every one has seen it. */
static void publish(struct bench_engine *e)
{
	unsigned seq = atomic_fetch_add(&e->seq, 1) + 1;
	struct timespec ts = {0, 200000};

	for (uint32_t i = 0; i < e->nthr; i++)
		while ((int)(atomic_load(&e->thr[i].ack) - seq) < 0)
			nanosleep(&ts, NULL);
}

void bench_engine_idle(struct bench_engine *e)
{
	atomic_store(&e->rate, 0.0);
	atomic_store(&e->phase, PHASE_WARMUP);
	publish(e);
}

int bench_engine_start(struct bench_engine *e)
{
	for (uint32_t i = 0; i < e->nthr; i++) {
		struct bench_thread *t = &e->thr[i];

		for (uint32_t j = 0; j < t->nprocs; j++) {
			struct epoll_event ev = {.events = EPOLLIN, .data.ptr = t->procs[j]};

			t->procs[j]->conn.rtrunc = BENCH_RTRUNC;
			if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->procs[j]->conn.fd, &ev) < 0)
				return -errno;
		}
	}
	for (uint32_t i = 0; i < e->nthr; i++) {
		int rc = pthread_create(&e->thr[i].tid, NULL, thread_main, &e->thr[i]);

		if (rc)
			return -rc;
		e->thr[i].eng = e;
	}
	e->started = true;
	return 0;
}

static double cpu_self_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* CPU time of the processes @pids, in seconds (every thread's, the ended ones' too);
 * negative if one cannot be read. */
static double cpu_pids_s(const pid_t *pids, unsigned n)
{
	double total = 0;

	for (unsigned i = 0; i < n; i++) {
		int64_t ns = proc_cpu_ns(pids[i]);

		if (ns < 0)
			return -1;
		total += (double)ns / 1e9;
	}
	return total;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Merge every thread's counts for the point into @pt. */
static void merge(struct bench_engine *e, struct bench_point *pt, double secs)
{
	struct bench_hist *all = calloc(1, sizeof(*all));
	struct bench_hist *h = calloc(1, sizeof(*h));
	uint64_t issued_total = 0;
	double time_total = 0;

	for (uint32_t op = 0; op < NFS3_NPROCS && all && h; op++) {
		struct bench_op_stats *os = &pt->ops[op];
		uint64_t issued = 0;
		bool in_mix = false;

		memset(h, 0, sizeof(*h));
		for (unsigned m = 0; m < e->cfg.mix.n; m++)
			if (e->cfg.mix.e[m].proc == op) {
				in_mix = true;
				os->target_pct = e->cfg.mix.e[m].pct;
			}
		for (uint32_t i = 0; i < e->nthr; i++) {
			struct bench_acc *a = &e->thr[i].acc[op];

			issued += a->issued;
			os->logical_ok += a->ok;
			os->physical_ok += a->phys;
			os->errors += a->errors;
			bench_hist_merge(h, &a->h);
		}
		if (!in_mix && issued == 0 && os->errors == 0)
			continue;
		snprintf(os->name, sizeof(os->name), "%s", bench_proc_name(op));
		issued_total += os->logical_ok + os->errors;
		pt->total_ops += os->logical_ok;
		pt->total_errors += os->errors;
		os->mean_ms = bench_hist_mean(h) / 1000;
		os->stddev_ms = bench_hist_stddev(h) / 1000;
		os->ci95_ms = h->count ? 1.96 * os->stddev_ms / sqrt((double)h->count) : 0;
		os->p50_us = bench_hist_quantile(h, 0.50);
		os->p90_us = bench_hist_quantile(h, 0.90);
		os->p99_us = bench_hist_quantile(h, 0.99);
		os->p999_us = bench_hist_quantile(h, 0.999);
		os->max_us = (double)h->max_us;
		os->pct_time = h->sum_us; /* normalised below */
		time_total += h->sum_us;
		bench_hist_merge(all, h);
	}
	for (uint32_t op = 0; op < NFS3_NPROCS; op++) {
		struct bench_op_stats *os = &pt->ops[op];

		if (!os->name[0])
			continue;
		os->actual_pct = issued_total ? 100.0 * (double)(os->logical_ok + os->errors) /
							(double)issued_total
					      : 0;
		os->pct_time = time_total > 0 ? 100.0 * os->pct_time / time_total : 0;
	}
	pt->achieved_ops = secs > 0 ? (double)pt->total_ops / secs : 0;
	pt->mean_ms = all ? bench_hist_mean(all) / 1000 : 0;
	free(all);
	free(h);
}

void bench_engine_point(struct bench_engine *e, double rate, double warmup_s, double run_s,
			const pid_t *spids, unsigned nspids, struct bench_point *pt)
{
	static int point_no;
	struct bench_threads th0 = {0}, th1 = {0};
	bool split = false;
	double c0, c1, s0 = -1, s1 = -1;
	struct bench_machine_cpu m0, m1;
	bool machine;
	uint64_t t0, t1;
	int idx = point_no++;

	memset(pt, 0, sizeof(*pt));
	pt->requested_ops = rate;
	pt->warmup_s = warmup_s;
	for (uint32_t i = 0; i < e->nthr; i++)
		memset(e->thr[i].acc, 0, sizeof(struct bench_acc) * NFS3_NPROCS);
	atomic_store(&e->rate, rate);
	atomic_store(&e->phase, PHASE_WARMUP);
	publish(e);
	sleep_s(warmup_s);
	atomic_store(&e->point, idx);
	atomic_store(&e->phase, PHASE_MEASURE);
	c0 = cpu_self_s();
	machine = bench_machine_read(&m0) == 0;
	if (nspids) {
		s0 = cpu_pids_s(spids, nspids);
		split = bench_threads_read(&th0, spids, nspids) == 0;
	}
	t0 = mono_ns();
	publish(e);
	sleep_s(run_s);
	atomic_store(&e->phase, PHASE_WARMUP);
	publish(e);
	t1 = mono_ns();
	c1 = cpu_self_s();
	machine = machine && bench_machine_read(&m1) == 0;
	if (nspids) {
		s1 = cpu_pids_s(spids, nspids);
		split = split && bench_threads_read(&th1, spids, nspids) == 0;
	}
	pt->measured_s = (double)(t1 - t0) / 1e9;
	merge(e, pt, pt->measured_s);
	if (split && s0 >= 0 && s1 >= 0)
		pt->nserver_threads =
			bench_threads_split(&th0, &th1, (double)pt->total_ops, pt->server_threads,
					    BENCH_MAX_THREAD_GROUPS);
	bench_threads_free(&th0);
	bench_threads_free(&th1);
	if (machine)
		bench_machine_point(&m0, &m1, pt->measured_s, sysconf(_SC_CLK_TCK), pt);
	pt->client_cpu_us_per_op = pt->total_ops ? (c1 - c0) * 1e6 / (double)pt->total_ops : 0;
	pt->server_cpu_us_per_op =
		s0 >= 0 && s1 >= 0 && pt->total_ops ? (s1 - s0) * 1e6 / (double)pt->total_ops : -1;
	pt->valid = true;
	if (!bench_rate_ok(rate, pt->achieved_ops, e->cfg.tolerance_pct)) {
		pt->valid = false;
		snprintf(pt->invalid_reason, sizeof(pt->invalid_reason),
			 "achieved %.0f op/s is more than %.0f%% below the requested %.0f",
			 pt->achieved_ops, e->cfg.tolerance_pct, rate);
	} else if (pt->mean_ms > RT_LIMIT_MS) {
		pt->valid = false;
		snprintf(pt->invalid_reason, sizeof(pt->invalid_reason),
			 "mean response time %.1f ms exceeds %.0f ms", pt->mean_ms, RT_LIMIT_MS);
	} else if (!bench_engine_healthy(e)) {
		pt->valid = false;
		snprintf(pt->invalid_reason, sizeof(pt->invalid_reason),
			 "a connection to the server was lost");
	}
}

uint64_t bench_engine_errors(struct bench_engine *e, FILE *out)
{
	uint64_t total = 0;

	for (uint32_t op = 0; op < NFS3_NPROCS; op++) {
		uint64_t n = 0;
		uint32_t last = 0;

		for (uint32_t i = 0; i < e->nthr; i++) {
			n += e->thr[i].errs.n[op];
			if (e->thr[i].errs.n[op])
				last = e->thr[i].errs.last[op];
		}
		if (!n)
			continue;
		total += n;
		if (last >= BENCH_ST_LOST)
			fprintf(out, "errors: %s %llu (last: %s)\n", bench_proc_name(op),
				(unsigned long long)n,
				last == BENCH_ST_LOST	 ? "connection lost"
				: last == BENCH_ST_SHORT ? "result too short for its status"
							 : "call not encodable");
		else if (last >= BENCH_ST_RPC)
			fprintf(out, "errors: %s %llu (last: RPC error %u)\n", bench_proc_name(op),
				(unsigned long long)n, last - BENCH_ST_RPC);
		else
			fprintf(out, "errors: %s %llu (last: nfsstat3 %u)\n", bench_proc_name(op),
				(unsigned long long)n, last);
	}
	return total;
}

bool bench_engine_healthy(const struct bench_engine *e)
{
	for (uint32_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].dead)
			return false;
	return true;
}

struct bench_engine *bench_engine_new(const struct bench_cfg *cfg, char *err, size_t errlen)
{
	struct bench_engine *e = calloc(1, sizeof(*e));
	uint32_t nthr;

	if (!e)
		goto nomem;
	e->cfg = *cfg;
	e->nprocs = cfg->plan.procs;
	nthr = cfg->threads ? cfg->threads : 1;
	if (nthr > e->nprocs)
		nthr = e->nprocs;
	e->nthr = nthr;
	e->procs = calloc(e->nprocs, sizeof(*e->procs));
	e->thr = calloc(nthr, sizeof(*e->thr));
	e->wdata = malloc(cfg->xfer);
	if (!e->procs || !e->thr || !e->wdata)
		goto nomem;
	for (uint32_t i = 0; i < cfg->xfer; i++)
		e->wdata[i] = (uint8_t)(i * 131 + 7);
	for (uint32_t i = 0; i < nthr; i++) {
		struct bench_thread *t = &e->thr[i];

		t->eng = e;
		t->point = -1;
		t->epfd = epoll_create1(EPOLL_CLOEXEC);
		t->procs = calloc(e->nprocs / nthr + 1, sizeof(*t->procs));
		t->acc = calloc(NFS3_NPROCS, sizeof(*t->acc));
		if (t->epfd < 0 || !t->procs || !t->acc)
			goto nomem;
	}
	for (uint32_t i = 0; i < e->nprocs; i++) {
		struct bench_proc *p = &e->procs[i];
		struct bench_thread *t = &e->thr[i % nthr];
		int rc;

		p->id = i;
		p->thr = t;
		p->target = &e->cfg.targets[i % cfg->ntargets];
		p->conn.fd = -1;
		p->rng = bench_proc_seed(cfg->seed, i);
		for (uint32_t s = 0; s < MAX_SLOTS; s++)
			p->freestk[p->nfree++] = (uint8_t)(MAX_SLOTS - 1 - s);
		t->procs[t->nprocs++] = p;
		rc = bench_conn_open(&p->conn, p->target->host, p->target->nfs_port, NFS3_PROGRAM,
				     NFS3_VERSION);
		if (rc < 0) {
			snprintf(err, errlen, "process %u: cannot connect to %s port %u: %s", i,
				 p->target->host, p->target->nfs_port, strerror(-rc));
			bench_engine_free(e);
			return NULL;
		}
		bench_conn_set_cred(&p->conn, cfg->uid, cfg->gid);
		/* The connection's random first XID: a rerun against the same server must
		 * not repeat this one's XIDs (its calls, from the same seed, repeat). */
		p->xseq = p->conn.next_xid;
	}
	return e;
nomem:
	snprintf(err, errlen, "out of memory");
	bench_engine_free(e);
	return NULL;
}

void bench_engine_free(struct bench_engine *e)
{
	if (!e)
		return;
	if (e->started) {
		atomic_store(&e->phase, PHASE_STOP);
		for (uint32_t i = 0; i < e->nthr; i++)
			pthread_join(e->thr[i].tid, NULL);
	}
	for (uint32_t i = 0; e->procs && i < e->nprocs; i++) {
		struct bench_proc *p = &e->procs[i];

		if (p->conn.fd >= 0 || p->conn.sbuf)
			bench_conn_close(&p->conn);
		free(p->dirs);
		free(p->io);
		free(p->nonio);
		free(p->links);
		free(p->rmq);
	}
	for (uint32_t i = 0; e->thr && i < e->nthr; i++) {
		if (e->thr[i].epfd > 0)
			close(e->thr[i].epfd);
		free(e->thr[i].procs);
		free(e->thr[i].acc);
	}
	free(e->procs);
	free(e->thr);
	free(e->wdata);
	free(e);
}
