/*
 * nfsc.h - a small synchronous NFSv3/MOUNT client over libnfs's raw async API (a client
 * we did not write), shared by the test tools: integration, durability, concurrency and
 * access. One struct nfsc per connection; use one per thread.
 *
 * Every call returns the protocol status (nfsstat3 / mountstat3, >= 0) or -1 when no
 * reply was decoded (connection broken, timeout, an RPC-level error, a reply that
 * contradicts itself); after -1 the connection is unusable (nfsc_broken() is true), the
 * reason is in c->err, and the caller reconnects with a fresh nfsc_connect().
 *
 * Below the per-procedure calls, the raw layer (struct nfsc_call) serves what they do
 * not cover: other procedures or arguments, and several calls in flight at once.
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

/* MNT; *authsys (may be NULL) tells whether AUTH_SYS is among the reply's flavors. */
int nfsc_mnt(struct nfsc *c, const char *path, struct nfsc_fh *root, bool *authsys);
int nfsc_getattr(struct nfsc *c, const struct nfsc_fh *fh, fattr3 *attr);
/* SETATTR, guarded by the object's ctime when @guard is not NULL. */
int nfsc_setattr(struct nfsc *c, const struct nfsc_fh *fh, const sattr3 *sa, const nfstime3 *guard);
/* @attr (may be NULL) is filled when the reply carries object attributes. */
int nfsc_lookup(struct nfsc *c, const struct nfsc_fh *dir, const char *name, struct nfsc_fh *out,
		fattr3 *attr);
int nfsc_access(struct nfsc *c, const struct nfsc_fh *fh, uint32_t want, uint32_t *granted);
int nfsc_readlink(struct nfsc *c, const struct nfsc_fh *fh, char *buf, size_t cap);
/* READ into @buf (@len bytes); *count (and *eof, may be NULL) from the reply. A reply
 * whose data length is not its count is a broken server: -1. */
int nfsc_read(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, uint32_t len, void *buf,
	      uint32_t *count, bool *eof);
/* WRITE; *count, *committed and the 8-byte @verf from the reply (each may be NULL). */
int nfsc_write(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, const void *data,
	       uint32_t len, stable_how how, uint32_t *count, stable_how *committed,
	       uint8_t verf[8]);
/* WRITE of @len bytes sent as two calls in flight at once, of @first bytes and of the
 * rest, as a client splits a large write; waits for both replies. The first status that
 * is not NFS3_OK (or -1), else NFS3_OK with *count the bytes both wrote, *committed the
 * less stable of their answers and @verf the second reply's verifier. */
int nfsc_write_split(struct nfsc *c, const struct nfsc_fh *fh, uint64_t off, const void *data,
		     uint32_t len, uint32_t first, stable_how how, uint32_t *count,
		     stable_how *committed, uint8_t verf[8]);
int nfsc_commit(struct nfsc *c, const struct nfsc_fh *fh, uint8_t verf[8]);
/* CREATE with mode @mode (UNCHECKED/GUARDED); *out from the reply or a LOOKUP. */
int nfsc_create(struct nfsc *c, const struct nfsc_fh *dir, const char *name, createmode3 how,
		uint32_t mode, struct nfsc_fh *out, fattr3 *attr);
/* Attributes that set the mode to @mode, or nothing when @mode < 0. */
sattr3 nfsc_sattr_mode(int mode);
/* EXCLUSIVE CREATE with the 8-byte @verf; *out from the reply or a LOOKUP. */
int nfsc_create_exclusive(struct nfsc *c, const struct nfsc_fh *dir, const char *name,
			  const uint8_t verf[8], struct nfsc_fh *out);
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

/* ---- the raw layer ---- */

struct nfsc_call;
/* Runs inside the libnfs callback, while the pointers in @res are still valid. */
typedef void (*nfsc_hook)(struct nfsc_call *k, void *res);

/* One outstanding call. The result is copied shallowly into @res; anything behind its
 * pointers must be copied out by @hook. */
struct nfsc_call {
	bool done;
	int status; /* RPC_STATUS_* */
	size_t res_size;
	nfsc_hook hook;
	struct nfsc_fh fh; /* a handle copied by the hook */
	void *buf;	   /* READ / READLINK destination */
	size_t cap;
	size_t got;
	void *arg; /* the caller's, for its own hooks */
	union {
		GETATTR3res getattr;
		SETATTR3res setattr;
		LOOKUP3res lookup;
		ACCESS3res access;
		READLINK3res readlink;
		READ3res read;
		WRITE3res write;
		CREATE3res create;
		MKDIR3res mkdir;
		SYMLINK3res symlink;
		MKNOD3res mknod;
		REMOVE3res remove;
		RMDIR3res rmdir;
		RENAME3res rename;
		LINK3res link;
		READDIR3res readdir;
		READDIRPLUS3res readdirplus;
		FSSTAT3res fsstat;
		FSINFO3res fsinfo;
		PATHCONF3res pathconf;
		COMMIT3res commit;
		mountres3 mnt;
	} res;
};

/* Prepare @k for a call whose result is @res_size bytes (0: nothing to keep). */
void nfsc_call_init(struct nfsc_call *k, size_t res_size, nfsc_hook hook);
/* The libnfs callback to pass with @k as its private data. */
void nfsc_call_cb(struct rpc_context *rpc, int status, void *data, void *priv);
/* Wait for @k, sent by an *_async function that returned @rc: 0 when a reply was
 * decoded, else -1 (the connection is broken). */
int nfsc_run(struct nfsc *c, struct nfsc_call *k, int rc);
/* Send with @async_call (an *_async call naming c->rpc and @k) and wait, as nfsc_run();
 * on a broken connection, whose context is gone, -1 without sending. */
#define NFSC_RUN(c, k, async_call) (nfsc_broken(c) ? -1 : nfsc_run((c), (k), (async_call)))
/* Wait until every call in @ks has its reply: 0, or -1 (the connection is broken). */
int nfsc_wait(struct nfsc *c, struct nfsc_call *const *ks, size_t n);
nfs_fh3 nfsc_fh3(const struct nfsc_fh *fh);
/* Copy a handle from a reply (truncated to NFSC_FHMAX). */
void nfsc_fh_set(struct nfsc_fh *fh, u_int len, const char *data);
/* Copies the new object's handle (CREATE, MKDIR, SYMLINK, MKNOD) into k->fh. */
void nfsc_hook_newobj(struct nfsc_call *k, void *res);

/* Where the tools find the server: SHOAL_NFS_PORT, SHOAL_MOUNT_PORT and
 * SHOAL_RPC_TIMEOUT (seconds) from the environment, else 2049, 20048 and 30. */
struct nfsc_env {
	int nfs_port;
	int mount_port;
	int timeout_s;
};
struct nfsc_env nfsc_env(void);

/* Connect to @host's NFS (@mount false) or MOUNT port from nfsc_env(), or die. */
void nfsc_connect_env(struct nfsc *c, const char *host, bool mount);
/* Print "FAIL fatal: ..." and exit with status 2: the tool itself could not go on. */
__attribute__((format(printf, 1, 2), noreturn)) void nfsc_die(const char *fmt, ...);
/* A 64-bit mixing function (splitmix64's finalizer): deterministic patterns and RNGs. */
uint64_t nfsc_mix(uint64_t x);

#endif
