/*
 * mount.h - the MOUNT protocol, program 100005 (RFC 1813 appendix I; version 1 as in
 * RFC 1094 appendix A): constants, and the argument and result structs shared by the
 * wire codec (mount_xdr.c) and the procedures (mount_proc.c).
 *
 * Version 3 hands out NFSv3 file handles. Versions 1 and 2 have a fixed 32-byte handle,
 * too small for ours, so their MNT is always refused; their DUMP and EXPORT work,
 * because showmount asks with version 1.
 */
#ifndef SHOAL_MOUNT_H
#define SHOAL_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "rpc/rpc.h"
#include "xdr/xdr.h"

#define MOUNT_PROGRAM 100005
#define MNTPATHLEN    1024 /* longest dirpath */
#define MNTNAMLEN     255  /* longest host or group name */
#define FHSIZE3	      64   /* fhandle3 */
#define FHSIZE	      32   /* the fixed handle of versions 1 and 2 */

enum mount_proc {
	MOUNTPROC_NULL = 0,
	MOUNTPROC_MNT = 1,
	MOUNTPROC_DUMP = 2,
	MOUNTPROC_UMNT = 3,
	MOUNTPROC_UMNTALL = 4,
	MOUNTPROC_EXPORT = 5,
	MOUNTPROC_EXPORTALL = 6, /* versions 1 and 2 only; same reply as EXPORT */
	MOUNT_NPROCS3 = 6,
	MOUNT_NPROCS1 = 7,
};

enum mountstat3 {
	MNT3_OK = 0,
	MNT3ERR_PERM = 1,
	MNT3ERR_NOENT = 2,
	MNT3ERR_IO = 5,
	MNT3ERR_ACCES = 13,
	MNT3ERR_NOTDIR = 20,
	MNT3ERR_INVAL = 22,
	MNT3ERR_NAMETOOLONG = 63,
	MNT3ERR_NOTSUPP = 10004,
	MNT3ERR_SERVERFAULT = 10006,
};

/* MNT and UMNT arguments: a dirpath, a view into the request buffer (no NUL). */
struct mount_dirpath_args {
	struct xdr_view path;
};

#define MOUNT_MAXFLAVORS 4

/* MNT result of version 3: mountres3. */
struct mount_mnt3_res {
	uint32_t status; /* enum mountstat3 */
	uint32_t fh_len; /* the rest only with MNT3_OK */
	uint8_t fh[FHSIZE3];
	uint32_t nflavors;
	uint32_t flavors[MOUNT_MAXFLAVORS];
};

/* MNT result of versions 1 and 2: fhstatus (an errno-like status, 0 = OK). */
struct mount_fhstatus {
	uint32_t status;
	uint8_t fh[FHSIZE];
};

/* One mountlist entry (DUMP). Strings are NUL-terminated, owned by the request arena. */
struct mount_body {
	const char *hostname;
	const char *directory;
};

struct mount_dump_res {
	size_t n;
	struct mount_body *list;
};

/* One exportnode (EXPORT): a directory and the names of the clients allowed in. */
struct mount_exportnode {
	const char *dir;
	size_t ngroups;
	const char **groups;
};

struct mount_export_res {
	size_t n;
	struct mount_exportnode *list;
};

/* The MOUNT program, versions 1, 2 and 3, for rpc_register(). */
extern const struct rpc_program mount_program;

/* ---- wire codec (mount_xdr.c) ---- */

/*
 * Decode a dirpath: false if truncated, longer than MNTPATHLEN or holding a NUL.
 * @args is a struct mount_dirpath_args; the path is a view into the buffer.
 */
bool mount_dec_dirpath_args(struct xdr_cur *c, void *args);
/* Encode a dirpath (client side and tests). */
bool mount_enc_dirpath_args(struct xdr_out *o, const struct mount_dirpath_args *args);
/* Decoder for procedures without arguments; always true. */
/* Encoder for procedures without results; always true. */
/* Encode a struct mount_mnt3_res (mountres3). */
bool mount_enc_mnt3_res(struct xdr_out *o, const void *res);
/* Encode a struct mount_fhstatus (fhstatus of versions 1 and 2). */
bool mount_enc_fhstatus(struct xdr_out *o, const void *res);
/* Encode a struct mount_dump_res as a mountlist. */
bool mount_enc_dump_res(struct xdr_out *o, const void *res);
/* Encode a struct mount_export_res as exports. */
bool mount_enc_export_res(struct xdr_out *o, const void *res);

/*
 * Result decoders, for clients (tests, shoal-bench). False if malformed or truncated.
 * Handles and strings are copied: fh into @res, strings and lists into @a, which
 * owns them afterwards (NULL from arena_alloc also gives false).
 */
bool mount_dec_mnt3_res(struct xdr_cur *c, struct mount_mnt3_res *res);
bool mount_dec_dump_res(struct xdr_cur *c, struct arena *a, struct mount_dump_res *res);
bool mount_dec_export_res(struct xdr_cur *c, struct arena *a, struct mount_export_res *res);

/* ---- mount list (mount_proc.c) ---- */

/* Forget every recorded mount (tests; server shutdown). */
void mount_list_clear(void);

#endif
