/*
 * portmap_proc.c - portmapper v2 procedures (RFC 1833 section 3.2) over a registry.
 *
 * The registry is small (a handful of programs) and read rarely, so it is an array
 * under one mutex. SET and UNSET change it only for callers on the loopback interface;
 * anyone else gets FALSE, so a remote host cannot redirect our clients. CALLIT is not
 * offered: forwarding calls on behalf of unauthenticated UDP senders makes a
 * portmapper a traffic amplifier.
 *
 * Locks: reg_lock protects reg[] and nreg; nothing else is called with it held.
 */
#include "portmap/portmap.h"

#include <netinet/in.h>
#include <pthread.h>
#include <string.h>

#define PMAP_MAX_MAPPINGS 256

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pmap_mapping reg[PMAP_MAX_MAPPINGS];
static size_t nreg;

/* Index of the mapping of (prog, vers, prot), or -1. Call with reg_lock held. */
static long reg_find(uint32_t prog, uint32_t vers, uint32_t prot)
{
	for (size_t i = 0; i < nreg; i++) {
		if (reg[i].prog == prog && reg[i].vers == vers && reg[i].prot == prot)
			return (long)i;
	}
	return -1;
}

/* Add a mapping unless the triple is taken or the table is full. Lock held. */
static bool reg_add(const struct pmap_mapping *m)
{
	if (m->port == 0 || m->port > 65535 || reg_find(m->prog, m->vers, m->prot) >= 0 ||
	    nreg == PMAP_MAX_MAPPINGS)
		return false;
	reg[nreg++] = *m;
	return true;
}

void pmap_registry_set(uint32_t prog, uint32_t vers, uint32_t prot, uint32_t port)
{
	struct pmap_mapping m = {prog, vers, prot, port};
	long i;

	pthread_mutex_lock(&reg_lock);
	i = reg_find(prog, vers, prot);
	if (i >= 0)
		reg[i] = reg[--nreg];
	if (port)
		reg_add(&m);
	pthread_mutex_unlock(&reg_lock);
}

uint32_t pmap_registry_getport(uint32_t prog, uint32_t vers, uint32_t prot)
{
	uint32_t port = 0;
	long i;

	pthread_mutex_lock(&reg_lock);
	i = reg_find(prog, vers, prot);
	if (i >= 0)
		port = reg[i].port;
	pthread_mutex_unlock(&reg_lock);
	return port;
}

void pmap_registry_clear(void)
{
	pthread_mutex_lock(&reg_lock);
	nreg = 0;
	pthread_mutex_unlock(&reg_lock);
}

/* True for 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. */
static bool peer_is_loopback(const struct rpc_req *req)
{
	if (req->peer.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&req->peer;

		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	}
	if (req->peer.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&req->peer;

		if (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) && sin6->sin6_addr.s6_addr[12] == 127;
	}
	return false;
}

static void pmap_null(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	(void)args;
	(void)res;
}

/* RFC 1833: SET refuses a (prog, vers, prot) that is already mapped. */
static void pmap_set(struct rpc_req *req, const void *args, void *resp)
{
	struct pmap_bool_res *res = resp;

	if (!peer_is_loopback(req))
		return;
	pthread_mutex_lock(&reg_lock);
	res->ok = reg_add(args);
	pthread_mutex_unlock(&reg_lock);
}

/* RFC 1833: UNSET removes (prog, vers) for every protocol; prot and port are ignored. */
static void pmap_unset(struct rpc_req *req, const void *args, void *resp)
{
	const struct pmap_mapping *m = args;
	struct pmap_bool_res *res = resp;
	size_t k = 0;

	if (!peer_is_loopback(req))
		return;
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nreg; i++) {
		if (reg[i].prog == m->prog && reg[i].vers == m->vers)
			res->ok = true;
		else
			reg[k++] = reg[i];
	}
	nreg = k;
	pthread_mutex_unlock(&reg_lock);
}

static void pmap_getport(struct rpc_req *req, const void *args, void *resp)
{
	const struct pmap_mapping *m = args;
	struct pmap_port_res *res = resp;

	(void)req;
	res->port = pmap_registry_getport(m->prog, m->vers, m->prot);
}

static void pmap_dump(struct rpc_req *req, const void *args, void *resp)
{
	struct pmap_dump_res *res = resp;

	(void)args;
	pthread_mutex_lock(&reg_lock);
	res->maps = arena_alloc(&req->arena, (nreg ? nreg : 1) * sizeof(*res->maps));
	if (res->maps) {
		memcpy(res->maps, reg, nreg * sizeof(*res->maps));
		res->n = nreg;
	}
	pthread_mutex_unlock(&reg_lock);
}

#define MAPPING sizeof(struct pmap_mapping)

static const struct rpc_proc pmap_procs[PMAP_NPROCS] = {
	[PMAPPROC_NULL] = {.name = "NULL",
			   .decode = xdr_dec_void,
			   .run = pmap_null,
			   .encode = xdr_enc_void},
	[PMAPPROC_SET] = {.name = "SET",
			  .decode = pmap_dec_mapping,
			  .run = pmap_set,
			  .encode = pmap_enc_bool_res,
			  .args_size = MAPPING,
			  .res_size = sizeof(struct pmap_bool_res),
			  .drc = RPC_DRC_REPLY},
	[PMAPPROC_UNSET] = {.name = "UNSET",
			    .decode = pmap_dec_mapping,
			    .run = pmap_unset,
			    .encode = pmap_enc_bool_res,
			    .args_size = MAPPING,
			    .res_size = sizeof(struct pmap_bool_res),
			    .drc = RPC_DRC_REPLY},
	[PMAPPROC_GETPORT] = {.name = "GETPORT",
			      .decode = pmap_dec_mapping,
			      .run = pmap_getport,
			      .encode = pmap_enc_port_res,
			      .args_size = MAPPING,
			      .res_size = sizeof(struct pmap_port_res)},
	[PMAPPROC_DUMP] = {.name = "DUMP",
			   .decode = xdr_dec_void,
			   .run = pmap_dump,
			   .encode = pmap_enc_dump_res,
			   .res_size = sizeof(struct pmap_dump_res)},
	[PMAPPROC_CALLIT] = {.name = "CALLIT"}, /* no run: PROC_UNAVAIL */
};

static const struct rpc_version pmap_versions[] = {
	{.vers = PMAP_VERSION, .nprocs = PMAP_NPROCS, .procs = pmap_procs},
};

const struct rpc_program portmap_program = {
	.name = "portmapper",
	.prog = PMAP_PROGRAM,
	.nvers = 1,
	.versions = pmap_versions,
};
