/*
 * export_priv.h - the export module's private types, shared by the exports-file parser
 * (export_parse.c) and the table, matching and publishing code (export.c).
 *
 * Nothing outside src/export/ includes this file: other modules see struct export
 * and the functions of export.h only.
 */
#ifndef SHOAL_EXPORT_PRIV_H
#define SHOAL_EXPORT_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/export.h"

/* One address range a client specification stands for. */
struct export_addr {
	int family;	  /* AF_INET (4 address bytes used) or AF_INET6 */
	unsigned prefix;  /* leading bits that must match: 0..32 or 0..128 */
	uint8_t addr[16]; /* host bits already cleared */
};

/* One client specification of an export line: "*", a host, an address or a CIDR. */
struct export_client {
	char *spec; /* as written, for MOUNT EXPORT and messages */
	bool any;   /* "*" or a bare "(opts)": every client */
	size_t naddrs;
	struct export_addr *addrs; /* a host name resolves to all of its addresses */
	struct export_opts opts;
};

struct export_table {
	atomic_uint refs;
	size_t n;
	struct export *exports;
};

/* A new empty table holding one reference; NULL when out of memory. */
struct export_table *export_table_new(void);
/* Free @t and everything it owns, putting each export's vfs_export. */
void export_table_free(struct export_table *t);
/*
 * Append an export to @t, taking ownership of @path and @clients (an array of
 * @nclients, also consumed on failure). Returns the new export or NULL (out of memory).
 */
struct export *export_table_add(struct export_table *t, char *path, struct export_client *clients,
				size_t nclients);
/* Free one client specification's members (not the struct itself). */
void export_client_fini(struct export_client *cl);
/* The export id derived from a path when no fsid= is given: SipHash, all-zero key. */
uint32_t export_path_id(const char *path);
/* The options exports(5) implies when none are written. */
void export_opts_default(struct export_opts *o);

#endif
