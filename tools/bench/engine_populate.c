/*
 * engine_populate.c - creating the fileset before anything is measured, or checking
 * and reusing one left by an earlier run with the same plan.
 *
 * Layout under each export (names as in the SFS lineage, docs/sfs-workload.md 1.4):
 *   shoal_bench/proc.NNNNN/dir_ent.NNNNN/file_en.NNNNN   I/O files, 30 per directory
 *   shoal_bench/proc.NNNNN/dir_ent.NNNNN/nonio.NNNNN     non-I/O files, spread over them
 *   shoal_bench/proc.NNNNN/symlink.NNNNN                 symlinks (READLINK)
 *   shoal_bench/proc.NNNNN/scratch/cr.NNNNN              CREATE/REMOVE pool
 * Each process creates its own slice over its own connection with blocking calls,
 * one engine thread's processes after another; data is written UNSTABLE (the fileset
 * need not be durable) in transfer-size pieces.
 */
#include "engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "nfs3/nfs3_client.h"

#define CALL_TIMEOUT_MS 60000
#define RMQ_CAP		4096

struct pop_ctx {
	struct bench_engine *e;
	struct bench_thread *t;
	char err[640];
	int rc;
};

struct dirop {
	const struct nfs3_fh *dir;
	const char *name;
};

static bool enc_lookup(struct xdr_out *o, const void *arg)
{
	const struct dirop *d = arg;

	return nfs3_enc_diropargs(o, d->dir, d->name, (uint32_t)strlen(d->name));
}

static bool enc_create(struct xdr_out *o, const void *arg)
{
	return nfs3_enc_create_args(o, arg);
}

static bool enc_mkdir(struct xdr_out *o, const void *arg)
{
	return nfs3_enc_mkdir_args(o, arg);
}

static bool enc_symlink(struct xdr_out *o, const void *arg)
{
	return nfs3_enc_symlink_args(o, arg);
}

static bool enc_write(struct xdr_out *o, const void *arg)
{
	return nfs3_enc_write_args(o, arg);
}

/* Blocking call over @p's connection: 0 with the results in @res, or a negative errno. */
static int call(struct bench_proc *p, uint32_t proc, bench_enc_fn enc, const void *arg,
		struct xdr_cur *res)
{
	return bench_conn_call_run(&p->conn, proc, enc, arg, res, CALL_TIMEOUT_MS);
}

/* LOOKUP: 0 with @fh (and the size in @size if not NULL) or an error as call(). */
static int lookup(struct bench_proc *p, const struct nfs3_fh *dir, const char *name,
		  struct nfs3_fh *fh, uint64_t *size)
{
	struct dirop d = {dir, name};
	struct nfs3_lookup_res res;
	struct xdr_cur c;
	int rc = call(p, NFS3PROC_LOOKUP, enc_lookup, &d, &c);

	if (rc)
		return rc;
	if (!nfs3_dec_lookup_res(&c, &res))
		return -EPROTO;
	if (res.status != NFS3_OK)
		return (int)res.status;
	*fh = res.fh;
	if (size)
		*size = res.obj_attr.present ? res.obj_attr.attr.size : 0;
	return 0;
}

/* Decode a diropres3; a result without a handle is looked up by name. */
static int dirop_result(struct bench_proc *p, struct xdr_cur *c, const struct nfs3_fh *dir,
			const char *name, struct nfs3_fh *fh)
{
	struct nfs3_diropres res;

	if (!nfs3_dec_diropres(c, &res))
		return -EPROTO;
	if (res.status == NFS3ERR_EXIST || (res.status == NFS3_OK && !res.obj.present))
		return lookup(p, dir, name, fh, NULL);
	if (res.status != NFS3_OK)
		return (int)res.status;
	*fh = res.obj.fh;
	return 0;
}

static int mkdir_or_lookup(struct bench_proc *p, const struct nfs3_fh *dir, const char *name,
			   struct nfs3_fh *fh)
{
	struct nfs3_mkdir_args a = {.attr = {.set_mode = true, .mode = 0755}};
	struct xdr_cur c;
	int rc;

	a.where.dir = *dir;
	a.where.name = (struct xdr_view){(const uint8_t *)name, (uint32_t)strlen(name)};
	rc = call(p, NFS3PROC_MKDIR, enc_mkdir, &a, &c);
	return rc ? rc : dirop_result(p, &c, dir, name, fh);
}

/* CREATE UNCHECKED; @truncate sets the size to 0 (an existing file is emptied). */
static int create(struct bench_proc *p, const struct nfs3_fh *dir, const char *name, bool truncate,
		  struct nfs3_fh *fh)
{
	struct nfs3_create_args a = {.mode = NFS3_UNCHECKED,
				     .attr = {.set_mode = true, .mode = 0644}};
	struct xdr_cur c;
	int rc;

	a.attr.set_size = truncate;
	a.where.dir = *dir;
	a.where.name = (struct xdr_view){(const uint8_t *)name, (uint32_t)strlen(name)};
	rc = call(p, NFS3PROC_CREATE, enc_create, &a, &c);
	return rc ? rc : dirop_result(p, &c, dir, name, fh);
}

static int write_file(struct bench_proc *p, const struct nfs3_fh *fh, uint64_t size)
{
	const struct bench_cfg *cfg = &p->thr->eng->cfg;

	for (uint64_t off = 0; off < size; off += cfg->xfer) {
		uint32_t n = size - off < cfg->xfer ? (uint32_t)(size - off) : cfg->xfer;
		struct nfs3_write_args a = {.offset = off, .count = n, .stable = NFS3_UNSTABLE};
		struct nfs3_write_res res;
		struct xdr_cur c;
		int rc;

		a.fh = *fh;
		a.data = (struct xdr_view){p->thr->eng->wdata, n};
		rc = call(p, NFS3PROC_WRITE, enc_write, &a, &c);
		if (rc)
			return rc;
		if (!nfs3_dec_write_res(&c, &res))
			return -EPROTO;
		if (res.status != NFS3_OK)
			return (int)res.status;
	}
	return 0;
}

static int make_symlink(struct bench_proc *p, const char *name, struct nfs3_fh *fh)
{
	static const char target[] = "dir_ent.00000/file_en.00000";
	struct nfs3_symlink_args a = {.attr = {.set_mode = true, .mode = 0777}};
	struct xdr_cur c;
	int rc;

	if (lookup(p, &p->pdir, name, fh, NULL) == 0)
		return 0;
	a.where.dir = p->pdir;
	a.where.name = (struct xdr_view){(const uint8_t *)name, (uint32_t)strlen(name)};
	a.path = (struct xdr_view){(const uint8_t *)target, sizeof(target) - 1};
	rc = call(p, NFS3PROC_SYMLINK, enc_symlink, &a, &c);
	return rc ? rc : dirop_result(p, &c, &p->pdir, name, fh);
}

static const char *why(int rc)
{
	static _Thread_local char buf[32];

	if (rc < 0)
		return strerror(-rc);
	snprintf(buf, sizeof(buf), "nfsstat3 %d", rc);
	return buf;
}

static int alloc_proc(struct bench_proc *p, const struct bench_plan *pl)
{
	p->ndirs = pl->dirs_per_proc;
	p->nio = pl->io_per_proc;
	p->nws = pl->ws_per_proc;
	p->nnonio = pl->nonio_per_proc;
	p->nlinks = pl->symlinks_per_proc;
	p->rmq_cap = RMQ_CAP;
	p->dirs = calloc(p->ndirs, sizeof(*p->dirs));
	p->io = calloc(p->nio, sizeof(*p->io));
	p->nonio = calloc(p->nnonio, sizeof(*p->nonio));
	p->links = calloc(p->nlinks, sizeof(*p->links));
	p->rmq = calloc(p->rmq_cap, sizeof(*p->rmq));
	return p->dirs && p->io && p->nonio && p->links && p->rmq ? 0 : -ENOMEM;
}

/* Create (or find) one process's slice; 0 or an error with a message in @x->err. */
static int populate_proc(struct pop_ctx *x, struct bench_proc *p)
{
	const struct bench_plan *pl = &x->e->cfg.plan;
	bool reuse = x->e->cfg.reuse;
	struct nfs3_fh top;
	char name[NAME_MAX_LEN];
	const char *what = "shoal_bench";
	int rc;

	if ((rc = alloc_proc(p, pl)) != 0)
		goto fail;
	if ((rc = mkdir_or_lookup(p, &p->target->root, "shoal_bench", &top)) != 0)
		goto fail;
	bench_name(name, sizeof(name), "proc", p->id);
	what = name;
	if ((rc = mkdir_or_lookup(p, &top, name, &p->pdir)) != 0)
		goto fail;
	for (uint32_t d = 0; d < p->ndirs; d++) {
		bench_name(name, sizeof(name), "dir_ent", d);
		if ((rc = mkdir_or_lookup(p, &p->pdir, name, &p->dirs[d])) != 0)
			goto fail;
	}
	what = "scratch";
	if ((rc = mkdir_or_lookup(p, &p->pdir, "scratch", &p->scratch)) != 0)
		goto fail;
	for (uint32_t i = 0; i < p->nio; i++) {
		struct bench_file *f = &p->io[i];
		uint64_t want = bench_plan_file_size(pl, p->id, i), have = 0;

		f->dir = i / BENCH_FILES_PER_DIR;
		f->name = i;
		bench_name(name, sizeof(name), "file_en", i);
		if (reuse && lookup(p, &p->dirs[f->dir], name, &f->fh, &have) == 0 &&
		    have >= want) {
			f->size = have;
		} else {
			if ((rc = create(p, &p->dirs[f->dir], name, true, &f->fh)) != 0 ||
			    (rc = write_file(p, &f->fh, want)) != 0)
				goto fail;
			f->size = want;
		}
		if (i < p->nws)
			p->ws_base += f->size;
		atomic_fetch_add(&x->e->populated, 1);
	}
	p->ws_now = p->ws_base;
	for (uint32_t i = 0; i < p->nnonio; i++) {
		struct bench_file *f = &p->nonio[i];

		f->dir = i % p->ndirs;
		f->name = i;
		f->nonio = true;
		bench_name(name, sizeof(name), "nonio", i);
		if (!(reuse && lookup(p, &p->dirs[f->dir], name, &f->fh, NULL) == 0) &&
		    (rc = create(p, &p->dirs[f->dir], name, false, &f->fh)) != 0)
			goto fail;
		atomic_fetch_add(&x->e->populated, 1);
	}
	for (uint32_t i = 0; i < p->nlinks; i++) {
		bench_name(name, sizeof(name), "symlink", i);
		if ((rc = make_symlink(p, name, &p->links[i])) != 0)
			goto fail;
		atomic_fetch_add(&x->e->populated, 1);
	}
	for (uint32_t i = 0; i < BENCH_SPARES; i++) {
		struct nfs3_fh fh;

		bench_name(name, sizeof(name), "cr", i);
		if ((rc = create(p, &p->scratch, name, false, &fh)) != 0)
			goto fail;
		p->rmq[p->rmq_len++] = i;
	}
	p->next_name = BENCH_SPARES;
	return 0;
fail:
	snprintf(x->err, sizeof(x->err), "process %u: creating %s on %s:%s: %s", p->id, what,
		 p->target->host, p->target->path, why(rc));
	return -1;
}

static void *populate_thread(void *arg)
{
	struct pop_ctx *x = arg;

	for (uint32_t i = 0; i < x->t->nprocs && x->rc == 0; i++)
		x->rc = populate_proc(x, x->t->procs[i]);
	return NULL;
}

static void progress_bar(uint64_t done, uint64_t total, double secs)
{
	int width = 40, fill = total ? (int)(done * (uint64_t)width / total) : width;

	fprintf(stderr, "\rcreating fileset [%.*s%*s] %3d%% %llu/%llu files %.0fs", fill,
		"########################################", width - fill, "",
		total ? (int)(done * 100 / total) : 100, (unsigned long long)done,
		(unsigned long long)total, secs);
}

int bench_engine_populate(struct bench_engine *e, bool progress, struct bench_run *run, char *err,
			  size_t errlen)
{
	const struct bench_plan *pl = &e->cfg.plan;
	uint64_t total = (uint64_t)e->nprocs *
			 (pl->io_per_proc + pl->nonio_per_proc + pl->symlinks_per_proc);
	struct pop_ctx *x = calloc(e->nthr, sizeof(*x));
	uint64_t t0 = mono_ns();
	int rc = 0;

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < e->nthr; i++) {
		x[i].e = e;
		x[i].t = &e->thr[i];
		if (pthread_create(&e->thr[i].tid, NULL, populate_thread, &x[i]) != 0)
			x[i].rc = -1;
	}
	for (;;) {
		struct timespec ts = {0, 250000000};
		uint64_t done = atomic_load(&e->populated);

		if (progress)
			progress_bar(done, total, (double)(mono_ns() - t0) / 1e9);
		if (done >= total)
			break;
		bool any_failed = false;

		for (uint32_t i = 0; i < e->nthr; i++)
			any_failed |= x[i].rc != 0;
		if (any_failed)
			break;
		nanosleep(&ts, NULL);
	}
	for (uint32_t i = 0; i < e->nthr; i++) {
		pthread_join(e->thr[i].tid, NULL);
		if (x[i].rc && !rc) {
			snprintf(err, errlen, "%s",
				 x[i].err[0] ? x[i].err : "cannot start a thread");
			rc = -1;
		}
	}
	if (progress)
		fprintf(stderr, "\n");
	free(x);
	if (rc)
		return rc;
	run->fileset_bytes = 0;
	for (uint32_t i = 0; i < e->nprocs; i++)
		for (uint32_t f = 0; f < e->procs[i].nio; f++)
			run->fileset_bytes += e->procs[i].io[f].size;
	run->io_files = (uint64_t)e->nprocs * pl->io_per_proc;
	run->nonio_files = (uint64_t)e->nprocs * pl->nonio_per_proc;
	run->dirs = (uint64_t)e->nprocs * pl->dirs_per_proc;
	run->symlinks = (uint64_t)e->nprocs * pl->symlinks_per_proc;
	return 0;
}
