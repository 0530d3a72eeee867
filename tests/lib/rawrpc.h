/*
 * rawrpc.h - the transport of the test tools that write ONC RPC (RFC 5531) by hand
 * with the project's src/xdr cursors (tests/integration/rpc_raw.c, the hardening
 * tools): sockets, record marking (RFC 5531 section 11), call headers, and a summary
 * of each reply.
 *
 * Every wait takes a deadline in CLOCK_MONOTONIC milliseconds; nothing sleeps.
 */
#ifndef SHOAL_TESTS_RAWRPC_H
#define SHOAL_TESTS_RAWRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdr/xdr.h"

/* A reply, summarised: how it was answered at the RPC level, and the results. */
struct rr_reply {
	uint32_t xid;
	uint32_t stat;	    /* 0 accepted, 1 denied */
	uint32_t code;	    /* accept_stat or reject_stat */
	uint32_t lo, hi;    /* the version range of RPC_MISMATCH or PROG_MISMATCH */
	uint32_t auth;	    /* auth_stat of AUTH_ERROR */
	uint32_t nfsstat;   /* first word of the results when SUCCESS (nfsstat3, mountstat3) */
	struct xdr_cur res; /* the results after that word */
};

/* Monotonic milliseconds. */
long rr_now_ms(void);
/* A socket of @type (SOCK_STREAM, SOCK_DGRAM) connected to @host (numeric IPv4 or IPv6)
 * at @port; -1 with errno set on failure. */
int rr_connect(const char *host, int type, int port);
/* rr_connect() from source address @src (numeric, of @host's family; NULL: any). */
int rr_connect_from(const char *host, const char *src, int type, int port);
bool rr_send_all(int fd, const void *buf, size_t len);
/* Wait until @fd is readable (true) or the deadline passes (false). */
bool rr_wait_readable(int fd, long deadline);
/*
 * Receive one record into @buf (@cap bytes); 0 ok, 1 connection closed, -1 deadline
 * passed, -2 record larger than @cap.
 */
int rr_recv_record(int fd, uint8_t *buf, size_t cap, size_t *len, long deadline);
/* Summarise a reply message into @r; false if it is not a well-formed RPC reply. */
bool rr_parse_reply(const uint8_t *buf, size_t len, struct rr_reply *r);
/*
 * Encode a call header. @flavor 1 is AUTH_SYS as root, 0 AUTH_NONE; any other gets a
 * body of 8 zero bytes, which the server cannot know. The verifier is AUTH_NONE.
 */
void rr_call_header(struct xdr_out *o, uint32_t xid, uint32_t rpcvers, uint32_t prog, uint32_t vers,
		    uint32_t proc, uint32_t flavor);

#endif
