/*
 * portmap.h - the portmapper, program 100000 version 2 (RFC 1833 section 3): the
 * server side (a registry of program -> port mappings answering SET, UNSET, GETPORT
 * and DUMP), and a client that registers with a system rpcbind instead when one
 * already owns port 111.
 */
#ifndef SHOAL_PORTMAP_H
#define SHOAL_PORTMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "core/arena.h"
#include "rpc/rpc.h"
#include "xdr/xdr.h"

#define PMAP_PROGRAM	 100000
#define PMAP_VERSION	 2
#define PMAP_PORT	 111
#define PMAP_IPPROTO_TCP 6
#define PMAP_IPPROTO_UDP 17

enum pmap_proc {
	PMAPPROC_NULL = 0,
	PMAPPROC_SET = 1,
	PMAPPROC_UNSET = 2,
	PMAPPROC_GETPORT = 3,
	PMAPPROC_DUMP = 4,
	PMAPPROC_CALLIT = 5, /* not offered: forwarding would make us an amplifier */
	PMAP_NPROCS = 6,
};

/* struct mapping of RFC 1833 section 3.1; also the arguments of SET, UNSET, GETPORT. */
struct pmap_mapping {
	uint32_t prog;
	uint32_t vers;
	uint32_t prot; /* PMAP_IPPROTO_TCP or PMAP_IPPROTO_UDP */
	uint32_t port;
};

struct pmap_bool_res {
	bool ok;
};

struct pmap_port_res {
	uint32_t port;
};

/* DUMP: the mappings (an arena copy of the registry). */
struct pmap_dump_res {
	size_t n;
	struct pmap_mapping *maps;
};

/* The portmapper program, for rpc_register(). */
extern const struct rpc_program portmap_program;

/* ---- registry (portmap_proc.c), thread-safe ---- */

/*
 * Map (@prog, @vers, @prot) to @port, replacing any mapping of that triple; port 0
 * removes it. Main registers the portmapper itself, mountd and nfs on tcp and udp.
 */
void pmap_registry_set(uint32_t prog, uint32_t vers, uint32_t prot, uint32_t port);
/* The port mapped to (@prog, @vers, @prot), or 0. */
uint32_t pmap_registry_getport(uint32_t prog, uint32_t vers, uint32_t prot);
/* Remove every mapping (tests; shutdown). */
void pmap_registry_clear(void);

/* ---- client of a system rpcbind (portmap_client.c) ---- */

/*
 * Send PMAPPROC_SET (@set true) or PMAPPROC_UNSET (v2) to the portmapper at
 * 127.0.0.1:111 over UDP, with a short timeout and a couple of retries. Returns 0
 * when it answered TRUE; -EEXIST (SET refused: already mapped) or -ENOENT (UNSET: no
 * such mapping) when it answered FALSE; -ETIMEDOUT, -ECONNREFUSED, -EPROTO (bad or
 * rejected reply) or another negative errno otherwise.
 */
int pmap_register_with_rpcbind(uint32_t prog, uint32_t vers, uint32_t prot, uint16_t port,
			       bool set);
/* The same, to the portmapper at @server (tests use a private one). */
int pmap_register_at(const struct sockaddr_in *server, uint32_t prog, uint32_t vers, uint32_t prot,
		     uint16_t port, bool set);
/*
 * Parse the datagram @buf[0..len) that came back to a SET or UNSET call made with
 * @xid: 1 = ours and answered (the boolean result in *@ok), 0 = not ours (another
 * xid, or too short to hold one), -EPROTO = ours but malformed, denied or not SUCCESS.
 */
int pmap_dec_set_reply(const uint8_t *buf, size_t len, uint32_t xid, bool *ok);

/* ---- wire codec (portmap_xdr.c) ---- */

/* Decode a struct pmap_mapping (arguments of SET, UNSET and GETPORT). */
bool pmap_dec_mapping(struct xdr_cur *c, void *args);
bool pmap_enc_mapping(struct xdr_out *o, const struct pmap_mapping *m);
/* Decoder for no arguments and encoder for no result; always true. */
/* Encode a struct pmap_bool_res / pmap_port_res / pmap_dump_res (pmaplist). */
bool pmap_enc_bool_res(struct xdr_out *o, const void *res);
bool pmap_enc_port_res(struct xdr_out *o, const void *res);
bool pmap_enc_dump_res(struct xdr_out *o, const void *res);
/* Decode a pmaplist (client side, tests); the array is allocated in @a. */
bool pmap_dec_dump_res(struct xdr_cur *c, struct arena *a, struct pmap_dump_res *res);

#endif
