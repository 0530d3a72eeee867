/*
 * rpc.c - program registry and call dispatch: header checks, duplicate request
 * cache, decode -> run -> encode, reply framing (RFC 5531 section 9).
 *
 * The transport drives a call in three steps so that the run step can move to the
 * blocking pool: rpc_call_begin() (on the event loop), rpc_call_run() (loop or pool)
 * and rpc_call_end() (on the loop). rpc_process_buffer() runs all three inline.
 */
#include "rpc/rpc_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"

#define RPC_MAX_PROGRAMS 16
#define RPC_MAX_VERS	 8 /* versions of a program that get stats slots */

/*
 * Registered programs. Written only by rpc_register() before the server starts, read
 * without a lock afterwards (the thread start publishes the table).
 */
static const struct rpc_program *rpc_programs[RPC_MAX_PROGRAMS];
static unsigned rpc_nprograms;
/* The stats slot of procedure 0 of each version (-1: none), and the slots used. */
static int rpc_vbase[RPC_MAX_PROGRAMS][RPC_MAX_VERS];
static int rpc_nslots;

int rpc_register(const struct rpc_program *prog)
{
	int *vbase;

	if (rpc_program_find(prog->prog))
		return -EEXIST;
	if (rpc_nprograms == RPC_MAX_PROGRAMS)
		return -ENOSPC;
	vbase = rpc_vbase[rpc_nprograms];
	for (uint32_t i = 0; i < RPC_MAX_VERS; i++) {
		vbase[i] = -1;
		if (i < prog->nvers &&
		    rpc_nslots + (int)prog->versions[i].nprocs <= RPC_STATS_SLOTS) {
			vbase[i] = rpc_nslots;
			rpc_nslots += (int)prog->versions[i].nprocs;
		}
	}
	rpc_programs[rpc_nprograms++] = prog;
	return 0;
}

static int rpc_program_index(uint32_t prog)
{
	for (unsigned i = 0; i < rpc_nprograms; i++) {
		if (rpc_programs[i]->prog == prog)
			return (int)i;
	}
	return -1;
}

const struct rpc_program *rpc_program_find(uint32_t prog)
{
	int i = rpc_program_index(prog);

	return i < 0 ? NULL : rpc_programs[i];
}

void rpc_unregister_all(void)
{
	rpc_nprograms = 0;
	rpc_nslots = 0;
}

void rpc_stats_walk(rpc_stats_fn fn, void *arg)
{
	struct rpc_proc_stats st;

	for (unsigned i = 0; i < rpc_nprograms; i++) {
		const struct rpc_program *p = rpc_programs[i];

		for (uint32_t j = 0; j < p->nvers && j < RPC_MAX_VERS; j++) {
			const struct rpc_version *v = &p->versions[j];

			if (rpc_vbase[i][j] < 0)
				continue;
			for (uint32_t k = 0; k < v->nprocs; k++) {
				rpc_stats_sum(rpc_vbase[i][j] + (int)k, &st);
				if (st.calls && v->procs[k].run)
					fn(arg, p->name, v->vers, v->procs[k].name, &st);
			}
		}
	}
}

const char *rpc_peer_str(const struct rpc_req *req, char *buf, size_t len)
{
	const struct sockaddr *sa = (const struct sockaddr *)&req->peer;
	const void *src = NULL;

	if (sa->sa_family == AF_INET)
		src = &((const struct sockaddr_in *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		src = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (!src || !inet_ntop(sa->sa_family, src, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

/* Find the procedure; on failure encode the accept_stat that says why. */
static const struct rpc_proc *rpc_lookup(struct rpc_req *req, struct xdr_out *o, int *slot)
{
	int pi = rpc_program_index(req->prog);
	const struct rpc_program *p = pi < 0 ? NULL : rpc_programs[pi];
	const struct rpc_version *v = NULL;

	if (!p) {
		rpc_enc_accepted(o, req->xid, RPC_PROG_UNAVAIL);
		return NULL;
	}
	for (uint32_t i = 0; i < p->nvers; i++) {
		if (p->versions[i].vers == req->vers) {
			v = &p->versions[i];
			*slot = i < RPC_MAX_VERS && rpc_vbase[pi][i] >= 0
					? rpc_vbase[pi][i] + (int)req->proc
					: -1;
		}
	}
	if (!v) {
		rpc_enc_prog_mismatch(o, req->xid, p->versions[0].vers,
				      p->versions[p->nvers - 1].vers);
		return NULL;
	}
	if (req->proc >= v->nprocs || !v->procs[req->proc].run) {
		rpc_enc_accepted(o, req->xid, RPC_PROC_UNAVAIL);
		return NULL;
	}
	return &v->procs[req->proc];
}

/* Consult the cache; returns the step to take, or RPC_STEP_RUN to go on. */
static enum rpc_step rpc_drc_check(struct rpc_req *req, struct drc *drc, const uint8_t *call,
				   size_t len, size_t args_off)
{
	struct rpc_req_priv *pv = req->priv;
	struct drc_key k;
	const void *reply;
	size_t rlen;

	drc_make_key(drc, &k, (const struct sockaddr *)&req->peer, req->xid, req->prog, req->vers,
		     req->proc, call + args_off, len - args_off, len);
	switch (drc_begin(drc, &k, &pv->slot, &req->arena, pv->out.buf, pv->out.cap, &reply,
			  &rlen)) {
	case DRC_MISS:
		pv->drc = drc;
		pv->drc_pending = true;
		return RPC_STEP_RUN;
	case DRC_IN_PROGRESS:
		return RPC_STEP_DROP;
	case DRC_HIT:
		break;
	}
	if (!reply)
		return RPC_STEP_DROP;
	if (reply != pv->out.buf)
		xdr_out_init(&pv->out, (void *)reply, rlen);
	pv->out.len = rlen;
	return RPC_STEP_REPLY;
}

/* Answer SYSTEM_ERR and let go of the cache entry. */
static enum rpc_step rpc_fail(struct rpc_req *req, enum rpc_accept_stat st)
{
	struct rpc_req_priv *pv = req->priv;

	xdr_out_truncate(&pv->out, 0);
	rpc_enc_accepted(&pv->out, req->xid, st);
	if (pv->drc_pending) {
		drc_abort(pv->drc, &pv->slot);
		pv->drc_pending = false;
	}
	return RPC_STEP_REPLY;
}

enum rpc_step rpc_call_begin(struct rpc_req *req, struct drc *drc, const uint8_t *call, size_t len,
			     uint8_t *rbuf, size_t cap)
{
	struct rpc_req_priv *pv = req->priv;
	const struct rpc_proc *proc;
	struct rpc_call_hdr h;
	enum rpc_auth_stat why = RPC_AUTH_OK;
	struct xdr_cur c;
	enum rpc_step step;

	pv->proc = NULL;
	pv->drc = NULL;
	pv->drc_pending = false;
	pv->stat_slot = -1;
	req->auth_reject = RPC_AUTH_OK;
	req->retry_blocking = false;
	req->gathered = false;
	req->gather_state = NULL;
	xdr_out_init(&pv->out, rbuf, cap);
	switch (rpc_dec_call_hdr(call, len, &h, &why)) {
	case RPC_HDR_DROP:
		return RPC_STEP_DROP;
	case RPC_HDR_RPCVERS:
		rpc_enc_denied_rpcvers(&pv->out, h.xid);
		return RPC_STEP_REPLY;
	case RPC_HDR_AUTH:
		rpc_enc_denied_auth(&pv->out, h.xid, why);
		return RPC_STEP_REPLY;
	case RPC_HDR_OK:
		break;
	}
	req->xid = h.xid;
	req->prog = h.prog;
	req->vers = h.vers;
	req->proc = h.proc;
	req->cred = h.cred;
	proc = rpc_lookup(req, &pv->out, &pv->stat_slot);
	if (!proc)
		return RPC_STEP_REPLY;
	if (drc && proc->drc == RPC_DRC_REPLY) {
		step = rpc_drc_check(req, drc, call, len, h.args_off);
		if (step != RPC_STEP_RUN)
			return step;
	}
	pv->proc = proc;
	pv->args = arena_zalloc(&req->arena, proc->args_size);
	pv->res = arena_zalloc(&req->arena, proc->res_size);
	if (!pv->args || !pv->res)
		return rpc_fail(req, RPC_SYSTEM_ERR);
	xdr_cur_init(&c, call + h.args_off, len - h.args_off);
	if (proc->decode && !proc->decode(&c, pv->args))
		return rpc_fail(req, RPC_GARBAGE_ARGS);
	pv->t0_ns = mono_ns();
	arena_mark(&req->arena, &pv->run_mark);
	/* A procedure that never blocks by design never waits for a flush either: when one
	 * call of it asks to run where it may block (retry_blocking), that is RPC_POOL_READ. */
	if (proc->pool_if)
		pv->pool = proc->pool_if(pv->args);
	else if (proc->blocking || proc->blocking_if)
		pv->pool = proc->pool;
	else
		pv->pool = RPC_POOL_READ;
	/* A call that waits for its reply's memory is decoded, not started: with a cached
	 * reply pending it could not simply be dropped, so only idempotent ones wait. */
	pv->reply_bytes =
		proc->reply_size && proc->drc == RPC_DRC_NONE ? proc->reply_size(pv->args) : 0;
	if (proc->blocking_if ? proc->blocking_if(pv->args) : proc->blocking)
		return RPC_STEP_RUN_BLOCKING;
	return RPC_STEP_RUN;
}

void rpc_call_run(struct rpc_req *req)
{
	struct rpc_req_priv *pv = req->priv;

	pv->proc->run(req, pv->args, pv->res);
}

bool rpc_call_gathering(const struct rpc_req *req)
{
	return req->priv->proc->gathers != NULL;
}

bool rpc_call_gathers(const struct rpc_req *a, const struct rpc_req *b)
{
	const struct rpc_proc *proc = a->priv->proc;

	return proc->gathers && b->priv->proc == proc &&
	       proc->gathers(a->priv->args, b->priv->args);
}

void rpc_call_run_gathered(struct rpc_req *req)
{
	req->gathered = true;
	rpc_call_run(req);
}

void rpc_call_end_group(struct rpc_req *const *reqs, unsigned n)
{
	reqs[0]->priv->proc->gather_end(reqs, n);
}

bool rpc_call_retry_blocking(struct rpc_req *req)
{
	struct rpc_req_priv *pv = req->priv;

	if (!req->retry_blocking)
		return false;
	req->retry_blocking = false;
	arena_rewind(&req->arena, &pv->run_mark); /* what the first run allocated */
	memset(pv->res, 0, pv->proc->res_size);
	return true;
}

void rpc_call_end(struct rpc_req *req)
{
	struct rpc_req_priv *pv = req->priv;
	struct xdr_out *o = &pv->out;

	rpc_stats_note(pv->stat_slot, mono_ns() - pv->t0_ns);
	xdr_out_truncate(o, 0);
	if (req->auth_reject != RPC_AUTH_OK) {
		rpc_enc_denied_auth(o, req->xid, req->auth_reject);
	} else if (!rpc_enc_accepted(o, req->xid, RPC_SUCCESS) ||
		   (pv->proc->encode && !pv->proc->encode(o, pv->res))) {
		xdr_out_truncate(o, 0);
		rpc_enc_accepted(o, req->xid, RPC_SYSTEM_ERR);
	}
	if (pv->drc_pending) {
		drc_done(pv->drc, &pv->slot, o);
		pv->drc_pending = false;
	}
}

long rpc_process_buffer(const void *call, size_t len, const struct sockaddr *peer,
			socklen_t peer_len, void *reply, size_t cap)
{
	enum { SCRATCH = 64 * 1024 };
	struct rpc_req_priv pv;
	struct rpc_req req;
	uint8_t *scratch;
	long ret;

	memset(&req, 0, sizeof(req));
	req.priv = &pv;
	if (peer && peer_len <= sizeof(req.peer)) {
		memcpy(&req.peer, peer, peer_len);
		req.peer_len = peer_len;
	}
	req.ipproto = IPPROTO_TCP;
	req.may_block = true; /* blocking procedures run inline here */
	arena_init(&req.arena, SCRATCH);
	scratch = arena_alloc(&req.arena, SCRATCH);
	if (!scratch) {
		ret = -ENOMEM;
		goto out;
	}
	switch (rpc_call_begin(&req, NULL, call, len, scratch, SCRATCH)) {
	case RPC_STEP_DROP:
		ret = 0;
		goto out;
	case RPC_STEP_RUN:
	case RPC_STEP_RUN_BLOCKING:
		rpc_call_run(&req);
		rpc_call_end(&req);
		break;
	case RPC_STEP_REPLY:
		break;
	}
	if (xdr_out_total(&pv.out) > cap) {
		ret = -ENOSPC;
		goto out;
	}
	xdr_out_flatten(&pv.out, reply);
	ret = (long)xdr_out_total(&pv.out);
out:
	arena_fini(&req.arena);
	return ret;
}
