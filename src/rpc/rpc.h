/*
 * rpc.h - ONC RPC (RFC 5531) programs, procedures and requests, as seen by the
 * protocol modules (portmap, mount, nfs3).
 *
 * A protocol module describes itself as a table of struct rpc_proc and registers it
 * with rpc_register() at start-up. For each call the rpc layer decodes the header and
 * credentials, consults the duplicate request cache, runs decode -> run -> encode and
 * frames the reply. Handlers never see the transport; they get a struct rpc_req
 * that carries the caller's identity and address and an arena for their allocations.
 */
#ifndef SHOAL_RPC_H
#define SHOAL_RPC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/arena.h"
#include "xdr/xdr.h"

#define RPC_VERSION 2

/* Message types, reply status and accept/reject codes (RFC 5531 section 9). */
enum rpc_msg_type { RPC_CALL = 0, RPC_REPLY = 1 };
enum rpc_reply_stat { RPC_MSG_ACCEPTED = 0, RPC_MSG_DENIED = 1 };
enum rpc_accept_stat {
	RPC_SUCCESS = 0,
	RPC_PROG_UNAVAIL = 1,
	RPC_PROG_MISMATCH = 2,
	RPC_PROC_UNAVAIL = 3,
	RPC_GARBAGE_ARGS = 4,
	RPC_SYSTEM_ERR = 5,
};
enum rpc_reject_stat { RPC_MISMATCH = 0, RPC_AUTH_ERROR = 1 };
enum rpc_auth_stat {
	RPC_AUTH_OK = 0,
	RPC_AUTH_BADCRED = 1,
	RPC_AUTH_REJECTEDCRED = 2,
	RPC_AUTH_BADVERF = 3,
	RPC_AUTH_REJECTEDVERF = 4,
	RPC_AUTH_TOOWEAK = 5,
};
enum rpc_auth_flavor { RPC_AUTH_NONE = 0, RPC_AUTH_SYS = 1 };

#define RPC_AUTH_MAXBYTES   400 /* opaque_auth body limit, RFC 5531 section 8.2 */
#define RPC_AUTHSYS_MAXGIDS 16
#define RPC_AUTHSYS_MAXNAME 255

/* The caller's credential. For AUTH_NONE, uid/gid are left at 65534 ("nobody"). */
struct rpc_cred {
	uint32_t flavor; /* enum rpc_auth_flavor */
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids;
	uint32_t gids[RPC_AUTHSYS_MAXGIDS];
};

/* Whether a procedure's reply is kept for retransmissions (RFC 5531 leaves this to us). */
enum rpc_drc_policy {
	RPC_DRC_NONE,  /* idempotent: re-execute */
	RPC_DRC_REPLY, /* non-idempotent: a retransmission gets the cached reply */
};

struct rpc_req;

/* Which blocking pool runs a blocking procedure: separate threads, so that calls that
 * only read are never stuck behind calls that wait for the disk to flush. */
enum rpc_pool {
	RPC_POOL_SYNC, /* waits for data or metadata to reach stable storage (fsync) */
	/* may wait for the disk, never for a flush: READs that are large or not cached,
	 * directories, large UNSTABLE WRITEs (which dirty-page throttling may hold) */
	RPC_POOL_READ,
	RPC_NPOOLS,
};

struct rpc_proc {
	const char *name;
	/* Decode arguments into *args (zeroed, args_size bytes); false = GARBAGE_ARGS. */
	bool (*decode)(struct xdr_cur *c, void *args);
	/* Perform the call; fills *res (zeroed, res_size bytes). Cannot fail at RPC level. */
	void (*run)(struct rpc_req *req, const void *args, void *res);
	/* Encode *res; false only when out of space (answered as SYSTEM_ERR). */
	bool (*encode)(struct xdr_out *o, const void *res);
	uint32_t args_size;
	uint32_t res_size;
	enum rpc_drc_policy drc;
	/* May block (fsync, large uncached I/O, big directories): run off the event loop. */
	bool blocking;
	/* Optional: decided per call from the decoded arguments (overrides @blocking). */
	bool (*blocking_if)(const void *args);
	/* Where a blocking call runs (default RPC_POOL_SYNC), and one of its inline calls
	 * that asks to run again where it may block (rpc_req.retry_blocking). A procedure
	 * that is never blocking retries in RPC_POOL_READ. */
	enum rpc_pool pool;
	/* Optional: the pool decided per call from the decoded arguments (overrides @pool). */
	enum rpc_pool (*pool_if)(const void *args);
	/* Optional, for RPC_DRC_NONE procedures only: how many bytes of data its reply may
	 * carry, from the decoded arguments (a READ's count). The transport reserves that
	 * much of its memory budget before the call runs, and the call waits for it. */
	uint32_t (*reply_size)(const void *args);
	/*
	 * Optional, for blocking procedures: whether a call with arguments @other may run
	 * in one group with a call with @args, and the step the group then shares. The pool
	 * thread that takes a call also takes the queued calls it gathers (the first few,
	 * in arrival order, also those queued while they ran) and runs each with
	 * rpc_req.gathered set: a handler then leaves the shared step (a stable WRITE's
	 * sync) to gather_end(), called once for the group, even a group of one, after
	 * every call of it has run and before any reply is encoded.
	 */
	bool (*gathers)(const void *args, const void *other);
	void (*gather_end)(struct rpc_req *const *reqs, unsigned n);
};

struct rpc_version {
	uint32_t vers;
	uint32_t nprocs;
	const struct rpc_proc *procs; /* indexed by procedure number; NULL run = unavailable */
};

struct rpc_program {
	const char *name;
	uint32_t prog;
	uint32_t nvers;
	const struct rpc_version *versions; /* ascending by vers */
};

/*
 * A call being served. The fields above the marker are for handlers; the rest belongs
 * to the rpc and net layers.
 */
struct rpc_req {
	uint32_t xid;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	struct rpc_cred cred;
	struct sockaddr_storage peer; /* the client's address */
	socklen_t peer_len;
	int ipproto;	     /* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t local_port; /* port the call arrived on */
	struct arena arena;  /* handlers allocate here; freed after the reply */
	/*
	 * Set by a handler to refuse the call with AUTH_ERROR and this auth_stat
	 * (for example RPC_AUTH_TOOWEAK) instead of sending its encoded result.
	 */
	enum rpc_auth_stat auth_reject;
	/* Set by the transport: the handler runs where it may wait for the disk (a
	 * blocking pool, or a synchronous caller); false on an event loop. */
	bool may_block;
	/* Set by a handler running where it may not block (may_block false) that would
	 * have to: its results are dropped and it runs again in its blocking pool. */
	bool retry_blocking;
	/* Set by the transport: this call runs in a group (rpc_proc.gathers). The handler
	 * may leave gather_state for its procedure's gather_end(), which clears it. */
	bool gathered;
	void *gather_state;

	/* ---- private to the rpc and net layers ---- */
	struct rpc_req_priv *priv;
};

/*
 * Register a program. Call before the server starts; the table must stay valid for
 * the life of the process. Returns 0 or -EEXIST if the program number is taken.
 */
int rpc_register(const struct rpc_program *prog);
/* The registered program with this number, or NULL. */
const struct rpc_program *rpc_program_find(uint32_t prog);

/*
 * Serve one call synchronously, without a transport: decode the call in
 * @call[0..len), dispatch it (blocking procedures run inline) and write the whole
 * reply message (no record mark) to @reply. Returns the reply length, 0 when no reply
 * is to be sent (a call the rpc layer drops), or -ENOSPC if @cap is too small.
 * Used by tests and fuzz targets; the duplicate request cache is not consulted.
 */
long rpc_process_buffer(const void *call, size_t len, const struct sockaddr *peer,
			socklen_t peer_len, void *reply, size_t cap);

/* Calls of one procedure and the server's time on them (decoded to reply encoded). */
struct rpc_proc_stats {
	uint64_t calls;
	uint64_t ns_total;
	uint64_t ns_max;
};
typedef void (*rpc_stats_fn)(void *arg, const char *prog, uint32_t vers, const char *proc,
			     const struct rpc_proc_stats *st);
/* Call @fn for every procedure of the registered programs that has served a call. */
void rpc_stats_walk(rpc_stats_fn fn, void *arg);

/* Text form of the caller's address ("192.0.2.7" or "2001:db8::1"), for logs. */
const char *rpc_peer_str(const struct rpc_req *req, char *buf, size_t len);

#endif
