/*
 * nfs3.h - NFS version 3 (RFC 1813): constants, and the argument and result structs
 * shared by the wire codec (nfs3_xdr.c) and the procedures (nfs3_proc.c).
 *
 * Structs are host-order and protocol-shaped; names follow the RFC so that a reader
 * can grep it. Decoded names, paths and WRITE data are views into the request buffer;
 * file handles are copied (at most 64 bytes).
 */
#ifndef SHOAL_NFS3_H
#define SHOAL_NFS3_H

#include <stdbool.h>
#include <stdint.h>

#include "xdr/xdr.h"

#define NFS3_PROGRAM	    100003
#define NFS3_VERSION	    3
#define NFS3_FHSIZE	    64
#define NFS3_COOKIEVERFSIZE 8
#define NFS3_CREATEVERFSIZE 8
#define NFS3_WRITEVERFSIZE  8
#define NFS3_MAXNAMLEN	    255
#define NFS3_MAXPATHLEN	    4096
#define NFS3_MAXDATA	    (1024 * 1024) /* our rtmax/wtmax */

enum nfs3_proc {
	NFS3PROC_NULL = 0,
	NFS3PROC_GETATTR = 1,
	NFS3PROC_SETATTR = 2,
	NFS3PROC_LOOKUP = 3,
	NFS3PROC_ACCESS = 4,
	NFS3PROC_READLINK = 5,
	NFS3PROC_READ = 6,
	NFS3PROC_WRITE = 7,
	NFS3PROC_CREATE = 8,
	NFS3PROC_MKDIR = 9,
	NFS3PROC_SYMLINK = 10,
	NFS3PROC_MKNOD = 11,
	NFS3PROC_REMOVE = 12,
	NFS3PROC_RMDIR = 13,
	NFS3PROC_RENAME = 14,
	NFS3PROC_LINK = 15,
	NFS3PROC_READDIR = 16,
	NFS3PROC_READDIRPLUS = 17,
	NFS3PROC_FSSTAT = 18,
	NFS3PROC_FSINFO = 19,
	NFS3PROC_PATHCONF = 20,
	NFS3PROC_COMMIT = 21,
	NFS3_NPROCS = 22,
};

enum nfsstat3 {
	NFS3_OK = 0,
	NFS3ERR_PERM = 1,
	NFS3ERR_NOENT = 2,
	NFS3ERR_IO = 5,
	NFS3ERR_NXIO = 6,
	NFS3ERR_ACCES = 13,
	NFS3ERR_EXIST = 17,
	NFS3ERR_XDEV = 18,
	NFS3ERR_NODEV = 19,
	NFS3ERR_NOTDIR = 20,
	NFS3ERR_ISDIR = 21,
	NFS3ERR_INVAL = 22,
	NFS3ERR_FBIG = 27,
	NFS3ERR_NOSPC = 28,
	NFS3ERR_ROFS = 30,
	NFS3ERR_MLINK = 31,
	NFS3ERR_NAMETOOLONG = 63,
	NFS3ERR_NOTEMPTY = 66,
	NFS3ERR_DQUOT = 69,
	NFS3ERR_STALE = 70,
	NFS3ERR_REMOTE = 71,
	NFS3ERR_BADHANDLE = 10001,
	NFS3ERR_NOT_SYNC = 10002,
	NFS3ERR_BAD_COOKIE = 10003,
	NFS3ERR_NOTSUPP = 10004,
	NFS3ERR_TOOSMALL = 10005,
	NFS3ERR_SERVERFAULT = 10006,
	NFS3ERR_BADTYPE = 10007,
	NFS3ERR_JUKEBOX = 10008,
};

enum ftype3 {
	NF3REG = 1,
	NF3DIR = 2,
	NF3BLK = 3,
	NF3CHR = 4,
	NF3LNK = 5,
	NF3SOCK = 6,
	NF3FIFO = 7
};
enum stable_how { NFS3_UNSTABLE = 0, NFS3_DATA_SYNC = 1, NFS3_FILE_SYNC = 2 };
enum createmode3 { NFS3_UNCHECKED = 0, NFS3_GUARDED = 1, NFS3_EXCLUSIVE = 2 };
enum time_how { NFS3_DONT_CHANGE = 0, NFS3_SET_TO_SERVER_TIME = 1, NFS3_SET_TO_CLIENT_TIME = 2 };

#define NFS3_ACCESS_READ    0x0001
#define NFS3_ACCESS_LOOKUP  0x0002
#define NFS3_ACCESS_MODIFY  0x0004
#define NFS3_ACCESS_EXTEND  0x0008
#define NFS3_ACCESS_DELETE  0x0010
#define NFS3_ACCESS_EXECUTE 0x0020

#define NFS3_FSF_LINK	     0x0001
#define NFS3_FSF_SYMLINK     0x0002
#define NFS3_FSF_HOMOGENEOUS 0x0008
#define NFS3_FSF_CANSETTIME  0x0010

/* ---- basic types ---- */

struct nfs3_fh {
	uint32_t len;
	uint8_t data[NFS3_FHSIZE];
};

struct nfs3_time {
	uint32_t seconds;
	uint32_t nseconds;
};

struct nfs3_fattr {
	uint32_t type; /* enum ftype3 */
	uint32_t mode;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint64_t used;
	uint32_t rdev1, rdev2; /* specdata3 */
	uint64_t fsid;
	uint64_t fileid;
	struct nfs3_time atime, mtime, ctime;
};

struct nfs3_post_op_attr {
	bool present;
	struct nfs3_fattr attr;
};

struct nfs3_wcc_attr {
	uint64_t size;
	struct nfs3_time mtime, ctime;
};

struct nfs3_wcc_data {
	bool pre_present;
	struct nfs3_wcc_attr pre;
	struct nfs3_post_op_attr post;
};

struct nfs3_post_op_fh {
	bool present;
	struct nfs3_fh fh;
};

struct nfs3_sattr {
	bool set_mode, set_uid, set_gid, set_size;
	uint32_t mode, uid, gid;
	uint64_t size;
	uint32_t atime_how, mtime_how; /* enum time_how */
	struct nfs3_time atime, mtime;
};

struct nfs3_diropargs {
	struct nfs3_fh dir;
	struct xdr_view name;
};

/* ---- per-procedure arguments and results (RFC 1813 section 3.3) ---- */

struct nfs3_getattr_args {
	struct nfs3_fh fh;
};
struct nfs3_getattr_res {
	uint32_t status;
	struct nfs3_fattr attr;
};

struct nfs3_setattr_args {
	struct nfs3_fh fh;
	struct nfs3_sattr attr;
	bool guard_check;
	struct nfs3_time guard_ctime;
};
struct nfs3_setattr_res {
	uint32_t status;
	struct nfs3_wcc_data wcc;
};

struct nfs3_lookup_args {
	struct nfs3_diropargs what;
};
struct nfs3_lookup_res {
	uint32_t status;
	struct nfs3_fh fh;		   /* resok only */
	struct nfs3_post_op_attr obj_attr; /* resok only */
	struct nfs3_post_op_attr dir_attr; /* both arms */
};

struct nfs3_access_args {
	struct nfs3_fh fh;
	uint32_t access;
};
struct nfs3_access_res {
	uint32_t status;
	struct nfs3_post_op_attr obj_attr;
	uint32_t access;
};

struct nfs3_readlink_args {
	struct nfs3_fh fh;
};
struct nfs3_readlink_res {
	uint32_t status;
	struct nfs3_post_op_attr attr;
	struct xdr_view path; /* arena-backed */
};

struct nfs3_read_args {
	struct nfs3_fh fh;
	uint64_t offset;
	uint32_t count;
};
struct nfs3_read_res {
	uint32_t status;
	struct nfs3_post_op_attr attr;
	uint32_t count;
	bool eof;
	struct xdr_view data; /* arena-backed, sent by reference */
};

struct nfs3_write_args {
	struct nfs3_fh fh;
	uint64_t offset;
	uint32_t count;
	uint32_t stable;      /* enum stable_how */
	struct xdr_view data; /* view into the request */
};
struct nfs3_write_res {
	uint32_t status;
	struct nfs3_wcc_data wcc;
	uint32_t count;
	uint32_t committed;
	uint8_t verf[NFS3_WRITEVERFSIZE];
};

struct nfs3_create_args {
	struct nfs3_diropargs where;
	uint32_t mode;			   /* enum createmode3 */
	struct nfs3_sattr attr;		   /* UNCHECKED, GUARDED */
	uint8_t verf[NFS3_CREATEVERFSIZE]; /* EXCLUSIVE */
};

/* CREATE, MKDIR, SYMLINK and MKNOD share one result shape (diropres3). */
struct nfs3_diropres {
	uint32_t status;
	struct nfs3_post_op_fh obj;
	struct nfs3_post_op_attr obj_attr;
	struct nfs3_wcc_data dir_wcc; /* both arms */
};

struct nfs3_mkdir_args {
	struct nfs3_diropargs where;
	struct nfs3_sattr attr;
};

struct nfs3_symlink_args {
	struct nfs3_diropargs where;
	struct nfs3_sattr attr;
	struct xdr_view path;
};

struct nfs3_mknod_args {
	struct nfs3_diropargs where;
	uint32_t type;		/* enum ftype3 */
	struct nfs3_sattr attr; /* CHR, BLK, SOCK, FIFO */
	uint32_t rdev1, rdev2;	/* CHR, BLK */
};

/* REMOVE and RMDIR */
struct nfs3_remove_args {
	struct nfs3_diropargs object;
};
struct nfs3_wccstat_res {
	uint32_t status;
	struct nfs3_wcc_data wcc;
};

struct nfs3_rename_args {
	struct nfs3_diropargs from, to;
};
struct nfs3_rename_res {
	uint32_t status;
	struct nfs3_wcc_data fromdir_wcc, todir_wcc;
};

struct nfs3_link_args {
	struct nfs3_fh file;
	struct nfs3_diropargs link;
};
struct nfs3_link_res {
	uint32_t status;
	struct nfs3_post_op_attr file_attr;
	struct nfs3_wcc_data linkdir_wcc;
};

struct nfs3_readdir_args {
	struct nfs3_fh dir;
	uint64_t cookie;
	uint8_t cookieverf[NFS3_COOKIEVERFSIZE];
	uint32_t count;
};
struct nfs3_readdirplus_args {
	struct nfs3_fh dir;
	uint64_t cookie;
	uint8_t cookieverf[NFS3_COOKIEVERFSIZE];
	uint32_t dircount;
	uint32_t maxcount;
};

/* One entry of READDIR or READDIRPLUS; the plus fields are encoded only for the latter. */
struct nfs3_entry {
	uint64_t fileid;
	struct xdr_view name; /* arena-backed */
	uint64_t cookie;
	struct nfs3_post_op_attr attr; /* READDIRPLUS */
	struct nfs3_post_op_fh fh;     /* READDIRPLUS */
};

/* READDIR and READDIRPLUS results; @plus selects the entry encoding. */
struct nfs3_readdir_res {
	uint32_t status;
	bool plus;
	struct nfs3_post_op_attr dir_attr; /* both arms */
	uint8_t cookieverf[NFS3_COOKIEVERFSIZE];
	uint32_t nentries;
	struct nfs3_entry *entries; /* arena-backed array */
	bool eof;
};

struct nfs3_fsstat_res {
	uint32_t status;
	struct nfs3_post_op_attr obj_attr; /* both arms */
	uint64_t tbytes, fbytes, abytes, tfiles, ffiles, afiles;
	uint32_t invarsec;
};

struct nfs3_fsinfo_res {
	uint32_t status;
	struct nfs3_post_op_attr obj_attr;
	uint32_t rtmax, rtpref, rtmult, wtmax, wtpref, wtmult, dtpref;
	uint64_t maxfilesize;
	struct nfs3_time time_delta;
	uint32_t properties;
};

struct nfs3_pathconf_res {
	uint32_t status;
	struct nfs3_post_op_attr obj_attr;
	uint32_t linkmax, name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};

struct nfs3_commit_args {
	struct nfs3_fh fh;
	uint64_t offset;
	uint32_t count;
};
struct nfs3_commit_res {
	uint32_t status;
	struct nfs3_wcc_data wcc;
	uint8_t verf[NFS3_WRITEVERFSIZE];
};

/* FSSTAT, FSINFO and PATHCONF take only a handle. */
struct nfs3_fhonly_args {
	struct nfs3_fh fh;
};

/* ---- codec entry points (nfs3_xdr.c) ---- */

bool nfs3_dec_fh(struct xdr_cur *c, struct nfs3_fh *fh);
bool nfs3_enc_fh(struct xdr_out *o, const struct nfs3_fh *fh);
bool nfs3_enc_fattr(struct xdr_out *o, const struct nfs3_fattr *a);

bool nfs3_dec_getattr_args(struct xdr_cur *c, void *args); /* also FSSTAT/FSINFO/PATHCONF */
bool nfs3_dec_setattr_args(struct xdr_cur *c, void *args);
bool nfs3_dec_lookup_args(struct xdr_cur *c, void *args); /* also REMOVE/RMDIR */
bool nfs3_dec_access_args(struct xdr_cur *c, void *args);
bool nfs3_dec_read_args(struct xdr_cur *c, void *args); /* also COMMIT */
bool nfs3_dec_write_args(struct xdr_cur *c, void *args);
bool nfs3_dec_create_args(struct xdr_cur *c, void *args);
bool nfs3_dec_mkdir_args(struct xdr_cur *c, void *args);
bool nfs3_dec_symlink_args(struct xdr_cur *c, void *args);
bool nfs3_dec_mknod_args(struct xdr_cur *c, void *args);
bool nfs3_dec_rename_args(struct xdr_cur *c, void *args);
bool nfs3_dec_link_args(struct xdr_cur *c, void *args);
bool nfs3_dec_readdir_args(struct xdr_cur *c, void *args);
bool nfs3_dec_readdirplus_args(struct xdr_cur *c, void *args);

bool nfs3_enc_getattr_res(struct xdr_out *o, const void *res);
bool nfs3_enc_wccstat_res(struct xdr_out *o, const void *res); /* SETATTR, REMOVE, RMDIR */
bool nfs3_enc_lookup_res(struct xdr_out *o, const void *res);
bool nfs3_enc_access_res(struct xdr_out *o, const void *res);
bool nfs3_enc_readlink_res(struct xdr_out *o, const void *res);
bool nfs3_enc_read_res(struct xdr_out *o, const void *res);
bool nfs3_enc_write_res(struct xdr_out *o, const void *res);
bool nfs3_enc_diropres(struct xdr_out *o, const void *res); /* CREATE/MKDIR/SYMLINK/MKNOD */
bool nfs3_enc_rename_res(struct xdr_out *o, const void *res);
bool nfs3_enc_link_res(struct xdr_out *o, const void *res);
bool nfs3_enc_readdir_res(struct xdr_out *o, const void *res); /* both READDIRs */
bool nfs3_enc_fsstat_res(struct xdr_out *o, const void *res);
bool nfs3_enc_fsinfo_res(struct xdr_out *o, const void *res);
bool nfs3_enc_pathconf_res(struct xdr_out *o, const void *res);
bool nfs3_enc_commit_res(struct xdr_out *o, const void *res);

/*
 * Encoded size of one READDIR(PLUS) entry, for the procedures to stay within the
 * client's count/dircount/maxcount (RFC 1813 sections 3.3.16 and 3.3.17).
 */
uint32_t nfs3_entry_size(const struct nfs3_entry *e, bool plus);

/* The client's side (shoal-bench and tests encode arguments and decode results). */
bool nfs3_enc_getattr_args(struct xdr_out *o, const struct nfs3_getattr_args *a);
bool nfs3_dec_getattr_res(struct xdr_cur *c, struct nfs3_getattr_res *r);

/* ---- procedures (nfs3_proc.c) ---- */

struct rpc_program;
extern const struct rpc_program nfs3_program;

/* errno (0 or negative, including VFS_E*) to nfsstat3: the one table (nfs3_status.c). */
enum nfsstat3 nfs3_status(int err);

#endif
