/*
 * export.h - which client may see which tree, and as whom.
 *
 * An export table is parsed from a file in the syntax of Linux /etc/exports(5) (or
 * built for the one-directory quick start), opened (every path becomes a vfs_export),
 * and published by an atomic pointer swap. Readers take a reference to the table
 * they started with, so a reload (SIGHUP) never pulls an export out from under a
 * request in flight.
 */
#ifndef SHOAL_EXPORT_H
#define SHOAL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rpc/rpc.h"
#include "vfs/vfs.h"

/* The options in force for one client of one export. */
struct export_opts {
	bool ro;
	bool root_squash; /* default on, as in exports(5) */
	bool all_squash;
	bool secure;	  /* require a source port below 1024; default off */
	uint32_t anonuid; /* default 65534 */
	uint32_t anongid; /* default 65534 */
};

struct export_client; /* one client specification with its options */

struct export
{
	uint32_t id;	       /* stable: carried in every file handle */
	char *path;	       /* absolute, as written in the file */
	struct vfs_export *vx; /* set by export_table_open() */
	char *clients_text;    /* "host1 10.0.0.0/8 *" for MOUNT EXPORT */
	size_t nclients;
	struct export_client *clients;
};

struct export_table;

/*
 * Parse an exports file. On a bad line returns -EINVAL and writes
 * "FILE:LINE: what is wrong" into @err; other failures are a negative errno with a
 * message in @err too. On success *out holds a new, unopened table.
 */
int export_table_parse(const char *file, struct export_table **out, char *err, size_t errlen);
/* The quick start: @dir read-write to every client (no_root_squash). */
int export_table_single(const char *dir, struct export_table **out, char *err, size_t errlen);
/*
 * Open every export's directory with the vfs. @prev (may be NULL) is the table being
 * replaced: exports with the same path reuse its vfs_export, keeping caches warm.
 * Returns 0, or a negative errno with "PATH: reason" in @err.
 */
int export_table_open(struct export_table *t, const struct export_table *prev, char *err,
		      size_t errlen);
/* Make @t the current table; consumes the caller's reference. */
void export_table_publish(struct export_table *t);
/* The current table with a reference held (NULL before the first publish). */
struct export_table *export_table_get(void);
void export_table_put(struct export_table *t);

size_t export_table_count(const struct export_table *t);
const struct export *export_table_at(const struct export_table *t, size_t i);
/* Flush every export of @t to stable storage (syncfs), logging each failure; 0 or the
 * first error. */
int export_table_sync(const struct export_table *t);
const struct export *export_by_id(const struct export_table *t, uint32_t id);
/* Find by path, ignoring a trailing slash; NULL if not exported. */
const struct export *export_by_path(const struct export_table *t, const char *path);

/*
 * May the client at @peer use @e? Returns 0 and fills *opts with the options of the
 * first matching client specification, or -EACCES.
 */
int export_check(const struct export *e, const struct sockaddr *peer, socklen_t peer_len,
		 struct export_opts *opts);
/* Apply squashing to the RPC credential and build the vfs context. */
void export_map_cred(const struct export_opts *opts, const struct rpc_cred *cred,
		     struct vfs_ctx *ctx);

#endif
