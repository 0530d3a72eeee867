/*
 * client.h - shoal-bench's own ONC RPC client over TCP (RFC 5531, record marking of
 * section 11): one non-blocking connection, calls encoded straight into its send
 * buffer, replies parsed in place from its receive buffer. Many calls may be in flight;
 * matching replies to calls by XID is the caller's job (the engine keeps a slot table).
 *
 * Also the synchronous helpers the set-up needs: portmap GETPORT, MOUNT MNT and a
 * blocking call/reply round trip used to create the fileset.
 */
#ifndef SHOAL_BENCH_CLIENT_H
#define SHOAL_BENCH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfs3/nfs3.h"
#include "xdr/xdr.h"

#define BENCH_CALL_MAX (64u * 1024) /* largest call we encode (a 32 KiB WRITE fits) */

/*
 * A piece of the send queue: @len bytes at sbuf[@off] when @ext is NULL, else at @ext
 * (WRITE data sent by reference from a buffer that outlives the call).
 */
struct bench_sseg {
	const uint8_t *ext;
	size_t off, len;
};

struct bench_conn {
	int fd;
	uint32_t prog, vers;
	uint8_t *sbuf; /* encoded call bytes: [0, slen), sent ones included */
	size_t slen, scap;
	struct bench_sseg *sq; /* what is still to send, in order: sq[sqh, sqh + sqn) */
	uint32_t sqh, sqn, sqcap;
	size_t squeued; /* bytes in sq */
	uint8_t *rbuf;	/* received bytes not yet parsed: [roff, rlen) */
	size_t roff, rlen, rcap;
	size_t rtrunc;	  /* when > 0: replies longer than this are cut (see below) */
	size_t rskip;	  /* bytes of the current cut reply still to discard from the socket */
	uint8_t cred[64]; /* AUTH_SYS credential and AUTH_NONE verifier, pre-encoded */
	uint32_t credlen;
	uint32_t next_xid;
	uint64_t bytes_out, bytes_in;
};

/* A parsed reply; @res is positioned at the procedure's results when @ok. */
struct bench_reply {
	uint32_t xid;
	bool ok;	  /* MSG_ACCEPTED and SUCCESS */
	uint32_t rpc_err; /* otherwise: accept_stat, or 100 + reject_stat when denied */
	struct xdr_cur res;
};

/*
 * Connect to @host:@port over TCP for program @prog version @vers, with AUTH_SYS
 * uid/gid 0. @host is a numeric IPv4/IPv6 address or a name. Returns 0 or a negative
 * errno; on success the socket is non-blocking with TCP_NODELAY.
 */
int bench_conn_open(struct bench_conn *c, const char *host, uint16_t port, uint32_t prog,
		    uint32_t vers);
/* Send the calls started from now on as @uid and @gid (AUTH_SYS, no other groups). */
void bench_conn_set_cred(struct bench_conn *c, uint32_t uid, uint32_t gid);
/* Take @fd, a connected stream socket, as @c's connection (made non-blocking); on
 * -ENOMEM, @fd is closed. */
int bench_conn_adopt(struct bench_conn *c, int fd, uint32_t prog, uint32_t vers);
/* Close the socket and free the buffers. */
void bench_conn_close(struct bench_conn *c);

/*
 * Start a call to procedure @proc: writes the record mark placeholder and the call
 * header into the send buffer and sets @o to encode the arguments after them.
 * Returns the XID used. The call is only queued once bench_conn_call_end() runs.
 */
uint32_t bench_conn_call_begin(struct bench_conn *c, struct xdr_out *o, uint32_t proc);
/* Finish the call begun with @o (patches the record mark). False if @o ran out of room,
 * in which case nothing is queued. Opaques that @o holds by reference (segments) are
 * sent from where they are, so they must stay valid until the call has been flushed. */
bool bench_conn_call_end(struct bench_conn *c, struct xdr_out *o);
/* Bytes queued and not yet written. */
static inline size_t bench_conn_pending(const struct bench_conn *c)
{
	return c->squeued;
}
/*
 * Write what the socket takes now, every queued call in one sendmsg() where it fits.
 * 0 when all is sent or the socket is full, else -errno.
 */
int bench_conn_flush(struct bench_conn *c);
/*
 * Read what has arrived. Returns bytes taken from the socket (0 = nothing now), -EPIPE
 * at EOF or -errno.
 *
 * With c->rtrunc set, a single-fragment reply longer than rtrunc bytes whose head is
 * buffered but whose tail is still in the socket has that tail discarded in the kernel
 * (recv with MSG_TRUNC, no copy): the reply is then delivered only once the whole of
 * it has arrived, holding just the bytes that were buffered. For callers that read no
 * further than the head of long replies (READ data, directory listings).
 */
int bench_conn_fill(struct bench_conn *c);
/*
 * Next complete reply in the receive buffer: 1 with @r filled (valid until the next
 * fill), 0 when no whole reply is buffered, -EPROTO when the stream is not RPC replies.
 */
int bench_conn_next_reply(struct bench_conn *c, struct bench_reply *r);

/* Encoder of one call's arguments for the synchronous helper. */
typedef bool (*bench_enc_fn)(struct xdr_out *o, const void *arg);

/*
 * One blocking round trip: encode @proc with @enc(@arg), wait at most @timeout_ms for
 * its reply (others are discarded). Returns 0 with @r filled, or -ETIMEDOUT, -EPROTO,
 * -EPIPE or another negative errno. Not for use while async calls are in flight.
 */
int bench_conn_call_sync(struct bench_conn *c, uint32_t proc, bench_enc_fn enc, const void *arg,
			 struct bench_reply *r, int timeout_ms);

/* bench_conn_call_sync() of a call the server must run: 0 with its results in @res, a
 * negative errno as that, or -EPROTO when the reply says the call was not run. */
int bench_conn_call_run(struct bench_conn *c, uint32_t proc, bench_enc_fn enc, const void *arg,
			struct xdr_cur *res, int timeout_ms);

/* ---- set-up over MOUNT and portmap (client_mount.c) ---- */

/* Ask the portmapper at @host:111 (TCP) for the TCP port of @prog/@vers. 0 if not found. */
int bench_pmap_getport(const char *host, uint32_t prog, uint32_t vers, uint16_t *port);
/* MOUNT v3 MNT of @path at @host:@port; the root handle in @fh. Returns 0, a negative
 * errno, or a positive mountstat3 when the server refused. */
int bench_mount(const char *host, uint16_t port, const char *path, struct nfs3_fh *fh);

/* FSINFO of @root at @host:@port: the server's largest READ and WRITE. 0, a negative
 * errno or a positive nfsstat3. */
int bench_fsinfo(const char *host, uint16_t port, const struct nfs3_fh *root, uint32_t *rtmax,
		 uint32_t *wtmax);

#endif
