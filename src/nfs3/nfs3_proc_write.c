/*
 * nfs3_proc_write.c - NFSv3 WRITE and COMMIT (RFC 1813 sections 3.3.7 and 3.3.21), and
 * where a WRITE runs.
 *
 * An UNSTABLE WRITE up to NFS3_WRITE_INLINE_MAX runs on the event loop, unless the
 * loop's recent writes or metadata reads waited for the disk (vfs_nowait.c): the kernel
 * holds writers back when dirty pages pile up, and that loop's other connections would
 * wait with it; it then runs in the pool that never waits for a flush.
 * A stable WRITE waits for a sync in the blocking pool. Stable WRITEs of one file that
 * are queued together (a client's large write split into several calls in flight) run
 * in one group there (rpc_proc.gathers): each writes its data, and one sync then makes
 * all of them stable before any of them is answered, instead of one sync each, each
 * waiting for the last (the sync is an fsync of the file, or with the stable-write log
 * one wait for the batch that holds all of their records).
 */
#include "nfs3/nfs3_proc.h"

#include <errno.h>
#include <string.h>

/* An UNSTABLE WRITE larger than this runs in the pool too (nfs3_write_blocks()). */
#define NFS3_WRITE_INLINE_MAX (64 * 1024)

/*
 * WRITE (3.3.7): file_wcc in both arms. The payload is handed to the vfs as the view
 * into the request buffer (zero copy). The verifier lets the client detect a server
 * restart between an UNSTABLE write and its COMMIT. In a group, a stable write leaves
 * its sync to nfs3_write_gather_end() and keeps its file for it.
 */
void nfs3_write(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_write_args *args = argp;
	struct nfs3_write_out *out = resp;
	struct nfs3_write_res *res = &out->res;
	enum vfs_stable committed = VFS_FILE_SYNC;
	struct vfs_wcc wcc = {0};
	uint32_t written = 0;
	bool later = false;
	struct nfs3_obj o;
	uint32_t count;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	/* The codec already insists on count == data length; this guards the view. */
	if (args->count > args->data.len || args->stable > NFS3_FILE_SYNC) {
		err = -EINVAL;
	} else {
		count = args->count < NFS3_MAXDATA ? args->count : NFS3_MAXDATA;
		err = vfs_write_sync_later(&o.ctx, o.node, args->offset, args->data.data, count,
					   (enum vfs_stable)args->stable, !req->may_block, &written,
					   &committed, &wcc, req->gathered ? &later : NULL);
	}
	if (err == -EAGAIN && !req->may_block) {
		req->retry_blocking = true; /* the loop's writes lately waited: write in the pool */
		nfs3_obj_put(&o);
		return;
	}
	nfs3_wcc_from_vfs(&res->wcc, &wcc, o.node);
	if (!err) {
		res->count = written;
		res->committed = (uint32_t)committed;
		vfs_write_verf(res->verf);
	}
	if (later) {
		out->o = o;
		req->gather_state = out;
	} else {
		nfs3_obj_put(&o);
	}
out:
	res->status = nfs3_rw_status(&res->wcc.post, nfs3_status(err));
}

/* Stable WRITEs of one file run in one group. */
bool nfs3_write_gathers(const void *argp, const void *otherp)
{
	const struct nfs3_write_args *a = argp, *b = otherp;

	return a->stable != NFS3_UNSTABLE && b->stable != NFS3_UNSTABLE && a->fh.len == b->fh.len &&
	       memcmp(a->fh.data, b->fh.data, a->fh.len) == 0;
}

/*
 * The group's shared step: one sync per file (a group is of one handle, but two
 * handles may name one file), as the first of its writers, after all of them wrote.
 * A failed sync fails every write it was to make stable. The last write of each file
 * gets its post-op attributes anew (a sync may change the times: vfs_node_sync()),
 * so that each reply's pre-op attributes are the previous one's post-op ones.
 */
void nfs3_write_gather_end(struct rpc_req *const *reqs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct nfs3_write_out *w = reqs[i]->gather_state, *last = w;
		int err;

		if (!w || w->synced)
			continue;
		err = vfs_write_sync(&w->o.ctx, w->o.node);
		for (unsigned j = i; j < n; j++) {
			struct nfs3_write_out *v = reqs[j]->gather_state;

			if (!v || v->synced || v->o.node != w->o.node)
				continue;
			v->synced = true;
			if (err)
				v->res.status = nfs3_status(err);
			last = v;
		}
		nfs3_post_op_fetch(w->o.node, &last->res.wcc.post);
	}
	for (unsigned i = 0; i < n; i++) {
		struct nfs3_write_out *w = reqs[i]->gather_state;

		if (w)
			nfs3_obj_put(&w->o);
		reqs[i]->gather_state = NULL;
	}
}

/* COMMIT (3.3.21): file_wcc in both arms, the write verifier in resok. */
void nfs3_commit(struct rpc_req *req, const void *argp, void *resp)
{
	const struct nfs3_commit_args *args = argp;
	struct nfs3_commit_res *res = resp;
	struct vfs_wcc wcc = {0};
	struct nfs3_obj o;
	int err;

	err = nfs3_obj_get(req, &args->fh, &o);
	if (err)
		goto out;
	err = vfs_commit(&o.ctx, o.node, args->offset, args->count, &wcc);
	nfs3_wcc_from_vfs(&res->wcc, &wcc, o.node);
	if (!err)
		vfs_write_verf(res->verf);
	nfs3_obj_put(&o);
out:
	res->status = nfs3_status(err);
}

/* A stable WRITE waits for an fsync; a large UNSTABLE one holds the loop while it is
 * copied, and the kernel may hold it longer to throttle dirty pages. */
bool nfs3_write_blocks(const void *argp)
{
	const struct nfs3_write_args *args = argp;

	return args->stable != NFS3_UNSTABLE || args->data.len > NFS3_WRITE_INLINE_MAX;
}

/* ...in the pool of fsyncs if stable, else in the one that never waits for a flush. */
enum rpc_pool nfs3_write_pool(const void *argp)
{
	const struct nfs3_write_args *args = argp;

	return args->stable != NFS3_UNSTABLE ? RPC_POOL_SYNC : RPC_POOL_READ;
}
