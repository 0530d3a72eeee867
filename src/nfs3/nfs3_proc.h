/*
 * nfs3_proc.h - private to the NFSv3 procedures (nfs3_proc.c, nfs3_proc_dir.c,
 * nfs3_proc_write.c).
 *
 * The helpers every procedure shares: resolving a file handle to an export and a vfs
 * node for the caller, checking names, and converting between the vfs's structs and
 * the protocol's. Nothing outside src/nfs3/nfs3_proc*.c includes this file.
 */
#ifndef SHOAL_NFS3_PROC_H
#define SHOAL_NFS3_PROC_H

#include "export/export.h"
#include "nfs3/nfs3.h"
#include "rpc/rpc.h"
#include "vfs/vfs.h"

/*
 * Largest READDIR/READDIRPLUS result we build, whatever count/maxcount the client
 * offers (the RFC lets the server return less). Entries are encoded inline, and the
 * net layer's inline reply buffer is 64 KiB (NET_REPLY_BUF): keep 512 bytes of it for
 * the record mark and the RPC reply header with the largest verifier (400 bytes).
 */
#define NFS3_DIR_MAXREPLY (65536u - 512u)

/*
 * A handle resolved for one call: the export table reference it was found in (kept
 * until the call ends, so a reload cannot free the export under us), the export, the
 * caller's identity after squashing, and the node.
 */
struct nfs3_obj {
	struct export_table *tab;
	const struct export *exp;
	struct vfs_ctx ctx;
	struct vfs_node *node;
};

/*
 * nfs3_obj_get - resolve @fh for the caller of @req. Returns 0 with o->tab and
 * o->node referenced (release both with nfs3_obj_put()), or a negative errno with
 * nothing held: -VFS_EBADHANDLE (not our handle), -ESTALE (export gone or object
 * gone), -EACCES (the export refuses this client), or another vfs error. On an event
 * loop (!req->may_block), a handle not in the node cache may be refused (vfs_node_get()
 * with nowait): -EAGAIN, with req->retry_blocking set so the call runs again in its pool.
 */
int nfs3_obj_get(struct rpc_req *req, const struct nfs3_fh *fh, struct nfs3_obj *o);
/*
 * nfs3_obj_get_other - resolve a second handle (RENAME's target directory, LINK's
 * directory) in the export of @o, which must be resolved; for calls that may block.
 * Returns 0 with *out referenced (release with vfs_node_put()), -EXDEV if @fh belongs
 * to another export, -ESTALE if its export does not exist, or another vfs_node_get()
 * error.
 */
int nfs3_obj_get_other(const struct nfs3_obj *o, const struct nfs3_fh *fh, struct vfs_node **out);
/* nfs3_obj_put - release what nfs3_obj_get() took; safe after a failed get. */
void nfs3_obj_put(struct nfs3_obj *o);

/* What a procedure does with a name, which decides how "." and ".." are treated. */
enum nfs3_name_use {
	NFS3_NAME_LOOKUP, /* LOOKUP: "." and ".." are fine, the vfs resolves them */
	NFS3_NAME_NEW,	  /* CREATE, MKDIR, SYMLINK, MKNOD, LINK, RENAME to */
	NFS3_NAME_OLD,	  /* REMOVE, RMDIR, RENAME from */
};

/*
 * nfs3_name - check a decoded file name and copy it, NUL-terminated, into @req's
 * arena. Returns 0 with *out valid until the request ends, or -EACCES (empty, or
 * contains '/' or NUL; "." or ".." for NFS3_NAME_OLD), -ENAMETOOLONG (over
 * NFS3_MAXNAMLEN), -EEXIST ("." or ".." for NFS3_NAME_NEW), -ENOMEM.
 */
int nfs3_name(struct rpc_req *req, const struct xdr_view *v, enum nfs3_name_use use,
	      const char **out);

/* Copy vfs attributes into a fattr3 (the ftype3 and vfs_type numbers are equal). */
void nfs3_fattr_from_vfs(struct nfs3_fattr *out, const struct vfs_attr *a);
/* Fill a post_op_attr that is present with @a. */
void nfs3_post_op_set(struct nfs3_post_op_attr *p, const struct vfs_attr *a);
/* Fill @p from vfs_getattr(@node); left absent if @node is NULL or getattr fails. */
void nfs3_post_op_fetch(struct vfs_node *node, struct nfs3_post_op_attr *p);
/*
 * Convert weak cache consistency data. If the vfs could not give post-op attributes
 * and @node is not NULL, they are fetched from @node (failure arms carry them too).
 */
void nfs3_wcc_from_vfs(struct nfs3_wcc_data *out, const struct vfs_wcc *w, struct vfs_node *node);
/* Convert a sattr3; -EINVAL for a time with nseconds >= 10^9 or an unknown time_how. */
int nfs3_sattr_to_vfs(struct vfs_sattr *out, const struct nfs3_sattr *in);
/* Copy a handle minted by the vfs into its wire form. */
void nfs3_fh_from_vfs(struct nfs3_fh *out, const struct vfs_fh *fh);

/*
 * The status of a failed READ or WRITE of an object whose post-op attributes are @p:
 * NFS3ERR_ISDIR for a directory and NFS3ERR_INVAL for a symlink, as knfsd's
 * nfsd_mode_check() answers (a symlink opened with O_NOFOLLOW gives ELOOP, which
 * nfs3_status() maps for the directory case); @st otherwise.
 */
enum nfsstat3 nfs3_rw_status(const struct nfs3_post_op_attr *p, enum nfsstat3 st);

/* WRITE's result, and what a WRITE run in a group (rpc_req.gathered) keeps for the
 * group's sync: its file, held until then. */
struct nfs3_write_out {
	struct nfs3_write_res res; /* first: what nfs3_enc_write_res() encodes */
	struct nfs3_obj o;
	bool synced;
};

/* WRITE and COMMIT, and WRITE's policy for the table (nfs3_proc_write.c). */
void nfs3_write(struct rpc_req *req, const void *argp, void *resp);
void nfs3_commit(struct rpc_req *req, const void *argp, void *resp);
bool nfs3_write_blocks(const void *argp);
enum rpc_pool nfs3_write_pool(const void *argp);
bool nfs3_write_gathers(const void *argp, const void *otherp);
void nfs3_write_gather_end(struct rpc_req *const *reqs, unsigned n);

/* Procedures defined in nfs3_proc_dir.c and listed in the table of nfs3_proc.c. */
void nfs3_create(struct rpc_req *req, const void *argp, void *resp);
void nfs3_mkdir(struct rpc_req *req, const void *argp, void *resp);
void nfs3_symlink(struct rpc_req *req, const void *argp, void *resp);
void nfs3_mknod(struct rpc_req *req, const void *argp, void *resp);
void nfs3_remove(struct rpc_req *req, const void *argp, void *resp);
void nfs3_rmdir(struct rpc_req *req, const void *argp, void *resp);
void nfs3_rename(struct rpc_req *req, const void *argp, void *resp);
void nfs3_link(struct rpc_req *req, const void *argp, void *resp);
void nfs3_readdir(struct rpc_req *req, const void *argp, void *resp);
void nfs3_readdirplus(struct rpc_req *req, const void *argp, void *resp);

#endif
