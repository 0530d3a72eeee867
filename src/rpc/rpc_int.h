/*
 * rpc_int.h - the rpc layer's private interface to the transport (src/net) and to
 * its own unit tests: call header decoding, reply header encoding and the three
 * dispatch steps the net layer drives (begin on the loop, run on the loop or the
 * blocking pool, end on the loop).
 */
#ifndef SHOAL_RPC_INT_H
#define SHOAL_RPC_INT_H

#include "rpc/drc.h"
#include "rpc/rpc.h"

/* A decoded call header (RFC 5531 section 9, struct call_body). */
struct rpc_call_hdr {
	uint32_t xid;
	uint32_t rpcvers;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	struct rpc_cred cred;
	size_t args_off; /* offset of the procedure arguments within the call */
};

enum rpc_hdr_status {
	RPC_HDR_OK,
	RPC_HDR_DROP,	 /* not a CALL, or cut short: send nothing */
	RPC_HDR_RPCVERS, /* rpcvers != 2: MSG_DENIED RPC_MISMATCH */
	RPC_HDR_AUTH,	 /* MSG_DENIED AUTH_ERROR with *why */
};

/*
 * Decode the header of the call @call[0..len) into @h. AUTH_NONE callers get uid/gid
 * 65534. On RPC_HDR_AUTH, *why says BADCRED (malformed AUTH_SYS or oversized body) or
 * REJECTEDCRED (unsupported flavor). h->xid is valid unless RPC_HDR_DROP is returned.
 */
enum rpc_hdr_status rpc_dec_call_hdr(const uint8_t *call, size_t len, struct rpc_call_hdr *h,
				     enum rpc_auth_stat *why);

/* Reply headers (RFC 5531 section 9, struct reply_body); false if out of space. */
bool rpc_enc_accepted(struct xdr_out *o, uint32_t xid, enum rpc_accept_stat st);
bool rpc_enc_prog_mismatch(struct xdr_out *o, uint32_t xid, uint32_t low, uint32_t high);
bool rpc_enc_denied_rpcvers(struct xdr_out *o, uint32_t xid);
bool rpc_enc_denied_auth(struct xdr_out *o, uint32_t xid, enum rpc_auth_stat why);

/* Dispatch state of one call, embedded by the transport next to its struct rpc_req. */
struct rpc_req_priv {
	const struct rpc_proc *proc;
	void *args;
	void *res;
	struct xdr_out out; /* the reply message (no record mark) */
	struct drc *drc;
	struct drc_slot slot;
	bool drc_pending;	    /* slot is IN_PROGRESS and must be completed */
	int stat_slot;		    /* the procedure's rpc_stats slot, -1 for none */
	uint64_t t0_ns;		    /* when its decoding ended (CLOCK_MONOTONIC) */
	enum rpc_pool pool;	    /* where it runs if it blocks (proc->pool or proc->pool_if) */
	uint32_t reply_bytes;	    /* proc->reply_size(args), or 0 */
	struct arena_mark run_mark; /* the arena once decoded: a retry goes back to it */
};

enum rpc_step {
	RPC_STEP_DROP,	       /* send nothing; release the request */
	RPC_STEP_REPLY,	       /* priv->out holds the reply already */
	RPC_STEP_RUN,	       /* call rpc_call_run() on the loop, then rpc_call_end() */
	RPC_STEP_RUN_BLOCKING, /* call rpc_call_run() on the blocking pool, then rpc_call_end() */
};

/* rpc_stats.c: slots are numbered by rpc_register(), one per procedure of a version. */
#define RPC_STATS_SLOTS 128
/* Count a call of @slot that the server spent @ns on (in this thread's counters). */
void rpc_stats_note(int slot, uint64_t ns);
/* The counters of @slot summed over every thread. */
void rpc_stats_sum(int slot, struct rpc_proc_stats *out);

/*
 * Start serving the call @call[0..len), which must stay valid until the request is
 * released. req->priv, req->arena, peer, peer_len, ipproto and local_port must be set;
 * the reply is built in @rbuf[0..cap) (and the arena). @drc may be NULL (no cache).
 */
enum rpc_step rpc_call_begin(struct rpc_req *req, struct drc *drc, const uint8_t *call, size_t len,
			     uint8_t *rbuf, size_t cap);
/* Run the procedure of a call for which rpc_call_begin() said RUN or RUN_BLOCKING. */
void rpc_call_run(struct rpc_req *req);
/* Whether the procedure of @req may run its calls in groups (rpc_proc.gathers)... */
bool rpc_call_gathering(const struct rpc_req *req);
/* ...and whether the blocking call @b may run in one group with @a (rpc_proc.gathers). */
bool rpc_call_gathers(const struct rpc_req *a, const struct rpc_req *b);
/* Run the blocking call @req as rpc_call_run() would, as a member of a group: its
 * handler leaves the group's shared step undone... */
void rpc_call_run_gathered(struct rpc_req *req);
/* ...which this does, once every call of the group @reqs[0..n) has run. rpc_call_end()
 * each after. */
void rpc_call_end_group(struct rpc_req *const *reqs, unsigned n);
/* After rpc_call_run() on an event loop: true if the handler asked to run again in its
 * blocking pool (req->retry_blocking), its results and what it allocated from the
 * request's arena then cleared for that run. */
bool rpc_call_retry_blocking(struct rpc_req *req);
/* Encode the reply into priv->out and complete the cache entry, if any. */
void rpc_call_end(struct rpc_req *req);

/* Forget every registered program (tests). */
void rpc_unregister_all(void);

#endif
