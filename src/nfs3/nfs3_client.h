/*
 * nfs3_client.h - the client's side of the NFSv3 wire format (RFC 1813 section 3.3):
 * encoders for procedure arguments and decoders for results, for shoal-bench and tests.
 *
 * The server's side lives in nfs3_xdr.c; both share the structs of nfs3.h. Encoders
 * report only "out of space". Decoders return false on short or malformed replies and
 * never allocate: handles are copied into the result struct, names and data are views
 * into the reply buffer.
 */
#ifndef SHOAL_NFS3_CLIENT_H
#define SHOAL_NFS3_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs3/nfs3.h"
#include "xdr/xdr.h"

/* ---- arguments ---- */

/* An fhonly argument: GETATTR, READLINK, FSSTAT, FSINFO, PATHCONF. */
bool nfs3_enc_fh_args(struct xdr_out *o, const struct nfs3_fh *fh);
/* diropargs3 with a name of @len bytes: LOOKUP, REMOVE, RMDIR. */
bool nfs3_enc_diropargs(struct xdr_out *o, const struct nfs3_fh *dir, const char *name,
			uint32_t len);
/* sattr3: each member switched on its set_* flag or time_how. */
bool nfs3_enc_sattr(struct xdr_out *o, const struct nfs3_sattr *s);
/* SETATTR3args, without a ctime guard when @a->guard_check is false. */
bool nfs3_enc_setattr_args(struct xdr_out *o, const struct nfs3_setattr_args *a);
bool nfs3_enc_access_args(struct xdr_out *o, const struct nfs3_access_args *a);
/* READ3args; also COMMIT3args, which has the same shape. */
bool nfs3_enc_read_args(struct xdr_out *o, const struct nfs3_read_args *a);
/*
 * WRITE3args. The data (a->data, a->count bytes) is attached by reference, as a
 * segment of @o (xdr_out_iov()), so it is not copied and must stay valid until the
 * message is sent; it is copied only when @o has no segment left.
 */
bool nfs3_enc_write_args(struct xdr_out *o, const struct nfs3_write_args *a);
/* CREATE3args for UNCHECKED and GUARDED (sattr3) or EXCLUSIVE (verifier). */
bool nfs3_enc_create_args(struct xdr_out *o, const struct nfs3_create_args *a);
bool nfs3_enc_mkdir_args(struct xdr_out *o, const struct nfs3_mkdir_args *a);
bool nfs3_enc_symlink_args(struct xdr_out *o, const struct nfs3_symlink_args *a);
bool nfs3_enc_readdir_args(struct xdr_out *o, const struct nfs3_readdir_args *a);
bool nfs3_enc_readdirplus_args(struct xdr_out *o, const struct nfs3_readdirplus_args *a);

/* ---- results ---- */

/* post_op_attr and wcc_data, as every result carries them. */
bool nfs3_dec_post_op_attr(struct xdr_cur *c, struct nfs3_post_op_attr *pa);
bool nfs3_dec_wcc_data(struct xdr_cur *c, struct nfs3_wcc_data *w);
/* LOOKUP3res: fh and obj_attr only when status is NFS3_OK; dir_attr in both arms. */
bool nfs3_dec_lookup_res(struct xdr_cur *c, struct nfs3_lookup_res *r);
/* diropres3 (CREATE, MKDIR, SYMLINK, MKNOD). */
bool nfs3_dec_diropres(struct xdr_cur *c, struct nfs3_diropres *r);
/* READ3res; r->data is a view into the reply buffer. */
bool nfs3_dec_read_res(struct xdr_cur *c, struct nfs3_read_res *r);
bool nfs3_dec_write_res(struct xdr_cur *c, struct nfs3_write_res *r);
/* SETATTR3res, REMOVE3res, RMDIR3res. */
bool nfs3_dec_wccstat_res(struct xdr_cur *c, struct nfs3_wccstat_res *r);
bool nfs3_dec_fsinfo_res(struct xdr_cur *c, struct nfs3_fsinfo_res *r);

#endif
