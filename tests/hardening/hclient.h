/*
 * hclient.h - a small raw ONC RPC / NFSv3 / MOUNT client for the hardening tools
 * (hostile.c, faults.c): NFS and MOUNT calls built with the project's src/xdr cursors
 * over the transport of tests/lib/rawrpc.h (record marking, reply summaries).
 *
 * Every blocking wait takes a deadline in CLOCK_MONOTONIC milliseconds; nothing sleeps.
 */
#ifndef SHOAL_TESTS_HCLIENT_H
#define SHOAL_TESTS_HCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/rawrpc.h"
#include "xdr/xdr.h"

#define HC_NFS_PROG   100003
#define HC_MOUNT_PROG 100005
#define HC_MAXREPLY   (1200 * 1024)

/* NFSv3 procedure numbers and statuses used here (RFC 1813). */
enum {
	HC_NULL = 0,
	HC_GETATTR = 1,
	HC_SETATTR = 2,
	HC_LOOKUP = 3,
	HC_READ = 6,
	HC_WRITE = 7,
	HC_CREATE = 8,
	HC_MKDIR = 9,
	HC_REMOVE = 12,
	HC_RMDIR = 13,
	HC_FSSTAT = 18,
	HC_COMMIT = 21,
};

struct hc_fh {
	uint32_t len;
	uint8_t data[64];
};

/* The port in environment variable @name, or @def. */
int hc_env_port(const char *name, int def);
/* Set the server host (numeric IPv4) and the ports used by hc_connect_*(). */
void hc_setup(const char *host, int nfs_port, int mount_port);
/* Connect a TCP socket to the NFS (or MOUNT) port; -1 (errno set) on failure. */
int hc_connect_nfs(void);
/* hc_connect_nfs() from source address @src (on loopback, any 127.x.y.z). */
int hc_connect_nfs_from(const char *src);
int hc_connect_mount(void);
/* Next XID, unique in this process (thread-safe). */
uint32_t hc_xid(void);
/* Encode a call header (AUTH_SYS as root); returns the XID used. */
uint32_t hc_call_header(struct xdr_out *o, uint32_t prog, uint32_t vers, uint32_t proc);
/*
 * Send the call in @msg[0..len) as one record, then read records until the reply with
 * its XID arrives. 0 ok (r filled, buf holds the reply), 1 closed, -1 timeout, -2 junk.
 */
int hc_call(int fd, const uint8_t *msg, size_t len, uint8_t *buf, size_t cap, struct rr_reply *r,
	    int timeout_ms);

/*
 * NFS helpers on a connected NFS socket. Each returns the nfsstat3 of the reply, or
 * -1 when no well-formed, accepted reply arrived within @timeout_ms (see hc_set_timeout).
 */
void hc_set_timeout(int timeout_ms);
int hc_mnt(const char *path, struct hc_fh *out); /* mountstat3, -1 transport */
int hc_null(int fd);
int hc_getattr(int fd, const struct hc_fh *fh);
int hc_lookup(int fd, const struct hc_fh *dir, const char *name, struct hc_fh *out);
int hc_create(int fd, const struct hc_fh *dir, const char *name, struct hc_fh *out);
int hc_mkdir(int fd, const struct hc_fh *dir, const char *name, struct hc_fh *out);
int hc_remove(int fd, const struct hc_fh *dir, const char *name);
int hc_setattr_size(int fd, const struct hc_fh *fh, uint64_t size);
/* WRITE @len bytes of @data at @off; stable 0 UNSTABLE, 2 FILE_SYNC. */
int hc_write(int fd, const struct hc_fh *fh, uint64_t off, const void *data, uint32_t len,
	     uint32_t stable);
/* READ @count bytes at @off; *got gets the bytes returned. */
int hc_read(int fd, const struct hc_fh *fh, uint64_t off, uint32_t count, uint32_t *got);
/* Encode the call message (header and args) of a WRITE or READ into @o; returns the xid. */
uint32_t hc_enc_write(struct xdr_out *o, const struct hc_fh *fh, uint64_t off, const void *data,
		      uint32_t len, uint32_t stable);
uint32_t hc_enc_read(struct xdr_out *o, const struct hc_fh *fh, uint64_t off, uint32_t count);
uint32_t hc_enc_getattr(struct xdr_out *o, const struct hc_fh *fh);
/* Free this thread's reply buffer (call before a thread that used the helpers ends). */
void hc_thread_done(void);
/* Name of an nfsstat3 value ("NFS3ERR_NOSPC"), or "status N". */
const char *hc_nfsstat_name(int st);

#endif
