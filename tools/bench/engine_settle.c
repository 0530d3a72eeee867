/*
 * engine_settle.c - bringing the server to rest before the first measured point:
 * the engine stops issuing, then every I/O file is COMMITted (RFC 1813 section 3.3.21)
 * over one extra connection per target, so that whatever was written UNSTABLE before
 * is on stable storage when the ladder starts.
 *
 * Why: the fileset's creation writes hundreds of MiB UNSTABLE, and so does the load
 * itself with --write-stable unstable; the kernel writes that back some seconds later,
 * and every fsync the server does meanwhile (FILE_SYNC WRITEs, and metadata for servers
 * that make it stable) waits behind it. Without a peak search that would land in the
 * first load points (measured: 456 MiB dirty after the creation, gone within 2 s of
 * this pass starting). After a search it also lets the server's queues drain first.
 * SFS2008 hides such effects behind a 300 s warm-up per point; one COMMIT per file is
 * the NFS way to ask for the backlog directly.
 */
#include "engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfs3/nfs3_client.h"

#define COMMIT_TIMEOUT_MS 120000

static bool enc_commit(struct xdr_out *o, const void *arg)
{
	struct nfs3_read_args a = {0}; /* COMMIT3args is READ3args' layout: fh, offset, count */

	a.fh = *(const struct nfs3_fh *)arg;
	return nfs3_enc_read_args(o, &a);
}

/* COMMIT (0, 0: the whole file) of @fh; 0, a negative errno or a positive nfsstat3. */
static int commit_file(struct bench_conn *c, const struct nfs3_fh *fh)
{
	struct xdr_cur res;
	uint32_t status;
	int rc = bench_conn_call_run(c, NFS3PROC_COMMIT, enc_commit, fh, &res, COMMIT_TIMEOUT_MS);

	if (rc < 0)
		return rc;
	return xdr_dec_u32(&res, &status) ? (int)status : -EPROTO;
}

/* COMMIT every I/O file of the processes that use target @ti. */
static int settle_target(struct bench_engine *e, unsigned ti, uint64_t *files, char *err,
			 size_t errlen)
{
	const struct bench_target_cfg *t = &e->cfg.targets[ti];
	struct bench_conn c;
	int rc = bench_conn_open(&c, t->host, t->nfs_port, NFS3_PROGRAM, NFS3_VERSION);

	if (rc < 0) {
		snprintf(err, errlen, "settle: cannot connect to %s:%u: %s", t->host, t->nfs_port,
			 strerror(-rc));
		return -1;
	}
	bench_conn_set_cred(&c, e->cfg.uid, e->cfg.gid);
	/* the handles are fixed once the fileset exists: the engine threads only read
	 * them, so reading them here races with nothing */
	for (uint32_t i = 0; i < e->nprocs && rc == 0; i++) {
		const struct bench_proc *p = &e->procs[i];

		if (p->target != t)
			continue;
		for (uint32_t f = 0; f < p->nio && rc == 0; f++)
			if ((rc = commit_file(&c, &p->io[f].fh)) == 0)
				(*files)++;
	}
	bench_conn_close(&c);
	if (rc < 0)
		snprintf(err, errlen, "settle: COMMIT to %s failed: %s", t->host, strerror(-rc));
	else if (rc > 0)
		snprintf(err, errlen, "settle: COMMIT to %s answered nfsstat3 %d", t->host, rc);
	return rc == 0 ? 0 : -1;
}

int bench_engine_settle(struct bench_engine *e, uint64_t *files, char *err, size_t errlen)
{
	*files = 0;
	bench_engine_idle(e);
	for (unsigned ti = 0; ti < e->cfg.ntargets; ti++)
		if (settle_target(e, ti, files, err, errlen) < 0)
			return -1;
	return 0;
}
