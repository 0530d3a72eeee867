/*
 * nfsc.h - a small synchronous NFSv3/MOUNT client over libnfs's raw async API, shared by
 * the durability, concurrency and access tests (one struct nfsc per connection; use one
 * per thread).
 *
 * Every call returns the protocol status (nfsstat3 / mountstat3, >= 0) or -1 when no
 * reply was decoded (connection broken, timeout); after -1 the connection is unusable
 * (nfsc_broken() is true) and the caller reconnects with a fresh nfsc_connect().
 */
#ifndef SHOAL_TESTS_NFSC_H
#define SHOAL_TESTS_NFSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#define NFSC_FHMAX 128

struct nfsc_fh {
	uint32_t len;
	uint8_t data[NFSC_FHMAX];
};

struct nfsc {
	struct rpc_context *rpc;
	int timeout_ms;
	bool broken;
	char err[256];
};

/* Identity for the calls: AUTH_SYS with uid/gid (the default is uid 0, gid 0). */
enum nfsc_auth { NFSC_AUTH_SYS = 0, NFSC_AUTH_NONE = 1 };

/*
 * Connect to @host:@port. @timeout_s bounds every later call. Returns 0, or -1 with
 * the reason in c->err (c->rpc is then NULL).
 */
int nfsc_connect(struct nfsc *c, const char *host, int port, int timeout_s);
/* Use @auth with @uid/@gid (ignored for AUTH_NONE) for the calls that follow. */
void nfsc_set_auth(struct nfsc *c, enum nfsc_auth auth, uint32_t uid, uint32_t gid);
void nfsc_close(struct nfsc *c);
bool nfsc_broken(const struct nfsc *c);

/* The name of an nfsstat3 (or "RPC-error" for -1); a static buffer for unknown ones. */
const char *nfsc_stname(int st);
const char *nfsc_mntname(int st);
/* Handle as hex into @out (at least 2 * NFSC_FHMAX + 1 bytes); parse it back. */
void nfsc_fh_hex(const struct nfsc_fh *fh, char *out);
bool nfsc_fh_parse(const char *hex, struct nfsc_fh *fh);

int nfsc_mnt(struct nfsc *c, const char *path, struct nfsc_fh *root);
int nfsc_getattr(struct nfsc *c, const struct nfsc_fh *fh, fattr3 *attr);
int nfsc_setattr(struct nfsc *c, const struct nfsc_fh *fh, const sattr3 *sa);
/* @attr (may be NULL) is filled when the reply carries object attributes. */
int nfsc_lookup(struct nfsc *c, const struct nfsc_fh *dir, const char *name, struct nfsc_fh *out,
		fattr3 *attr);
int nfsc_access(struct nfsc *c, const struct nfsc_fh *fh, uint32_t want, uint32_t *granted);
int nfsc_readlink(struct nfsc *c, const struct nfsc_fh *fh, char *buf, size_t cap);
/* READ into @buf (@len bytes); *count (and *eof, may be NULL) from the reply. */
int nfsc_read(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, uint32_t len, void *buf,
	      uint32_t *count, bool *eof);
/* WRITE; *count, *committed and the 8-byte @verf from the reply (each may be NULL). */
int nfsc_write(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, const void *data,
	       uint32_t len, stable_how how, uint32_t *count, stable_how *committed,
	       uint8_t verf[8]);
int nfsc_commit(struct nfsc *c, const struct nfsc_fh *fh, uint8_t verf[8]);
/* CREATE with mode @mode (UNCHECKED/GUARDED); *out from the reply or a LOOKUP. */
int nfsc_create(struct nfsc *c, const struct nfsc_fh *dir, const char *name, createmode3 how,
		uint32_t mode, struct nfsc_fh *out, fattr3 *attr);
int nfsc_mkdir(struct nfsc *c, const struct nfsc_fh *dir, const char *name, uint32_t mode,
	       struct nfsc_fh *out);
int nfsc_symlink(struct nfsc *c, const struct nfsc_fh *dir, const char *name, const char *target,
		 struct nfsc_fh *out);
int nfsc_remove(struct nfsc *c, const struct nfsc_fh *dir, const char *name);
int nfsc_rmdir(struct nfsc *c, const struct nfsc_fh *dir, const char *name);
int nfsc_rename(struct nfsc *c, const struct nfsc_fh *fdir, const char *fname,
		const struct nfsc_fh *tdir, const char *tname);
int nfsc_link(struct nfsc *c, const struct nfsc_fh *fh, const struct nfsc_fh *dir,
	      const char *name);

/* Called once per entry of a READDIR listing (".", ".." included). */
typedef void (*nfsc_dirent_fn)(void *arg, const char *name, uint64_t fileid);
/* The whole listing of @dir, following cookies until eof. */
int nfsc_readdir(struct nfsc *c, const struct nfsc_fh *dir, nfsc_dirent_fn fn, void *arg);

/* Where the tools find the server: SHOAL_NFS_PORT, SHOAL_MOUNT_PORT and
 * SHOAL_RPC_TIMEOUT (seconds) from the environment, else 2049, 20048 and 30. */
struct nfsc_env {
	int nfs_port;
	int mount_port;
	int timeout_s;
};
struct nfsc_env nfsc_env(void);

/* Print "FAIL fatal: ..." and exit with status 2: the tool itself could not go on. */
__attribute__((format(printf, 1, 2), noreturn)) void nfsc_die(const char *fmt, ...);
/* A 64-bit mixing function (splitmix64's finalizer): deterministic patterns and RNGs. */
uint64_t nfsc_mix(uint64_t x);

#endif
