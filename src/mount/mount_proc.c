/*
 * mount_proc.c - MOUNT procedures (RFC 1813 appendix I) and the list of mounts.
 *
 * MNT resolves the requested directory inside the export that contains it, component
 * by component with vfs_lookup(), as the caller's squashed identity, so a client can
 * only mount what it could reach by LOOKUP. The mount list is advisory (RFC 1813 says
 * clients may not call UMNT); it only feeds DUMP, is bounded, and forgets the oldest
 * entry when full. The wire format lives in mount_xdr.c.
 *
 * Locks: mounts_lock protects mounts[] and nmounts; nothing else is called with it held.
 */
#include "mount/mount.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "export/export.h"
#include "vfs/vfs.h"

#define MOUNT_LIST_MAX 1024
#define MOUNT_HOSTLEN  64 /* an IPv6 address in text, with room to spare */

struct mount_entry {
	char *host;
	char *dir;
};

static pthread_mutex_t mounts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mount_entry mounts[MOUNT_LIST_MAX];
static size_t nmounts;

static void entry_free(struct mount_entry *m)
{
	free(m->host);
	free(m->dir);
}

static void mount_list_add(const char *host, const char *dir)
{
	struct mount_entry m;

	pthread_mutex_lock(&mounts_lock);
	for (size_t i = 0; i < nmounts; i++) {
		if (strcmp(mounts[i].host, host) == 0 && strcmp(mounts[i].dir, dir) == 0)
			goto out;
	}
	m.host = strdup(host);
	m.dir = strdup(dir);
	if (!m.host || !m.dir) {
		entry_free(&m);
		goto out;
	}
	if (nmounts == MOUNT_LIST_MAX) {
		entry_free(&mounts[0]);
		memmove(&mounts[0], &mounts[1], (MOUNT_LIST_MAX - 1) * sizeof(mounts[0]));
		nmounts--;
	}
	mounts[nmounts++] = m;
out:
	pthread_mutex_unlock(&mounts_lock);
}

/* Remove @host's entries for @dir, or all of @host's entries when @dir is NULL. */
static void mount_list_remove(const char *host, const char *dir)
{
	size_t k = 0;

	pthread_mutex_lock(&mounts_lock);
	for (size_t i = 0; i < nmounts; i++) {
		if (strcmp(mounts[i].host, host) == 0 && (!dir || strcmp(mounts[i].dir, dir) == 0))
			entry_free(&mounts[i]);
		else
			mounts[k++] = mounts[i];
	}
	nmounts = k;
	pthread_mutex_unlock(&mounts_lock);
}

void mount_list_clear(void)
{
	pthread_mutex_lock(&mounts_lock);
	for (size_t i = 0; i < nmounts; i++)
		entry_free(&mounts[i]);
	nmounts = 0;
	pthread_mutex_unlock(&mounts_lock);
}

/* A NUL-terminated arena copy of @len bytes at @s; NULL when out of memory. */
static char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *d = arena_alloc(a, len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/*
 * Canonical form of a dirpath in the arena: absolute, no empty or "." components, no
 * trailing slash. Returns NULL with *status set if it is not absolute, contains ".."
 * (refused rather than resolved, so that the export is chosen by what is really
 * mounted) or a component longer than a name may be.
 */
static char *normalize(struct arena *a, const struct xdr_view *v, uint32_t *status)
{
	char *out = arena_alloc(a, (size_t)v->len + 2);
	size_t o = 0, i = 0;

	*status = MNT3ERR_SERVERFAULT;
	if (!out)
		return NULL;
	*status = MNT3ERR_INVAL;
	if (v->len == 0 || v->data[0] != '/')
		return NULL;
	while (i < v->len) {
		size_t start, len;

		while (i < v->len && v->data[i] == '/')
			i++;
		start = i;
		while (i < v->len && v->data[i] != '/')
			i++;
		len = i - start;
		if (len == 0 || (len == 1 && v->data[start] == '.'))
			continue;
		if (len == 2 && v->data[start] == '.' && v->data[start + 1] == '.')
			return NULL;
		if (len > 255) {
			*status = MNT3ERR_NAMETOOLONG;
			return NULL;
		}
		out[o++] = '/';
		memcpy(out + o, v->data + start, len);
		o += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	*status = MNT3_OK;
	return out;
}

/* Length of @e's path if it contains @path (at a component boundary), else -1. */
static long export_prefix(const struct export *e, const char *path)
{
	size_t len = strlen(e->path);

	if (strcmp(e->path, "/") == 0)
		return 0;
	if (strncmp(path, e->path, len) != 0 || (path[len] != '\0' && path[len] != '/'))
		return -1;
	return (long)len;
}

static uint32_t mnt3_status(int err)
{
	static const struct {
		int err;
		uint32_t st;
	} map[] = {
		{0, MNT3_OK},
		{-EPERM, MNT3ERR_PERM},
		{-ENOENT, MNT3ERR_NOENT},
		{-EACCES, MNT3ERR_ACCES},
		{-ENOTDIR, MNT3ERR_NOTDIR},
		{-EINVAL, MNT3ERR_INVAL},
		{-ENAMETOOLONG, MNT3ERR_NAMETOOLONG},
		{-ESTALE, MNT3ERR_NOENT},
		{-ELOOP, MNT3ERR_NOENT},
		{-ENOMEM, MNT3ERR_SERVERFAULT},
		{-VFS_EBADHANDLE, MNT3ERR_SERVERFAULT},
		{-VFS_ENOTSUPP, MNT3ERR_NOTSUPP},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].err == err)
			return map[i].st;
	}
	log_warn("mount: unexpected error %d (%s), answered MNT3ERR_IO", err, strerror(-err));
	return MNT3ERR_IO;
}

/* Walk from the root of @e down @rest ("/a/b" or ""), ending on a directory. */
static int resolve(const struct export *e, const struct vfs_ctx *ctx, const char *rest,
		   struct vfs_fh *fh)
{
	struct vfs_attr attr = {.type = VFS_DIR};
	int err;

	if (!e->vx)
		return -ENOMEM; /* table not opened: a server bug, answered SERVERFAULT */
	/* An export directory removed or replaced since it was opened: a clean NOENT. */
	err = vfs_export_check(e->vx, e->path);
	if (!err)
		err = vfs_export_root(e->vx, fh);
	while (!err && *rest) {
		char name[256];
		const char *end = strchr(rest + 1, '/');
		size_t len = end ? (size_t)(end - rest - 1) : strlen(rest + 1);
		struct vfs_attr dattr;
		struct vfs_node *node;
		bool dvalid;

		memcpy(name, rest + 1, len); /* normalize() bounded len by 255 */
		name[len] = '\0';
		rest += len + 1;
		err = vfs_node_get(e->vx, fh->data, fh->len, false, &node);
		if (err)
			break;
		err = vfs_lookup(ctx, node, name, false, fh, &attr, &dattr, &dvalid);
		vfs_node_put(node);
	}
	if (!err && attr.type != VFS_DIR)
		err = -ENOTDIR;
	return err;
}

static void mount_null(struct rpc_req *req, const void *args, void *res)
{
	(void)req;
	(void)args;
	(void)res;
}

static void mount_mnt3(struct rpc_req *req, const void *argp, void *resp)
{
	const struct mount_dirpath_args *args = argp;
	struct mount_mnt3_res *res = resp;
	const struct export *best = NULL;
	struct export_table *t;
	struct export_opts opts, best_opts;
	struct vfs_ctx ctx;
	struct vfs_fh fh;
	bool denied = false;
	long best_len = -1;
	char host[MOUNT_HOSTLEN];
	char *path;
	int err;

	path = normalize(&req->arena, &args->path, &res->status);
	if (!path)
		return;
	t = export_table_get();
	if (!t) {
		res->status = MNT3ERR_SERVERFAULT;
		return;
	}
	/* the innermost export that contains the path and admits this client */
	for (size_t i = 0; i < export_table_count(t); i++) {
		const struct export *e = export_table_at(t, i);
		long len = export_prefix(e, path);

		if (len <= best_len)
			continue;
		if (export_check(e, (const struct sockaddr *)&req->peer, req->peer_len, &opts)) {
			denied = true;
			continue;
		}
		best = e;
		best_len = len;
		best_opts = opts;
	}
	if (!best) {
		res->status = denied ? MNT3ERR_ACCES : MNT3ERR_NOENT;
		goto out;
	}
	export_map_cred(&best_opts, &req->cred, &ctx);
	err = resolve(best, &ctx, path + best_len, &fh);
	res->status = mnt3_status(err);
	if (err)
		goto out;
	res->fh_len = fh.len;
	memcpy(res->fh, fh.data, fh.len);
	res->nflavors = 1;
	res->flavors[0] = RPC_AUTH_SYS;
	mount_list_add(rpc_peer_str(req, host, sizeof(host)), path);
out:
	export_table_put(t);
}

/* Versions 1 and 2: a 32-byte handle cannot hold ours; refuse like "permission denied". */
static void mount_mnt1(struct rpc_req *req, const void *args, void *resp)
{
	struct mount_fhstatus *res = resp;

	(void)req;
	(void)args;
	res->status = MNT3ERR_ACCES; /* EACCES, the same number in fhstatus */
}

static void mount_dump(struct rpc_req *req, const void *args, void *resp)
{
	struct mount_dump_res *res = resp;

	(void)args;
	pthread_mutex_lock(&mounts_lock);
	res->list = arena_zalloc(&req->arena, (nmounts ? nmounts : 1) * sizeof(*res->list));
	for (size_t i = 0; res->list && i < nmounts; i++) {
		struct mount_body *b = &res->list[res->n];

		b->hostname = arena_strndup(&req->arena, mounts[i].host, strlen(mounts[i].host));
		b->directory = arena_strndup(&req->arena, mounts[i].dir, strlen(mounts[i].dir));
		if (!b->hostname || !b->directory)
			break; /* out of memory: send what fits */
		res->n++;
	}
	pthread_mutex_unlock(&mounts_lock);
}

static void mount_umnt(struct rpc_req *req, const void *argp, void *res)
{
	const struct mount_dirpath_args *args = argp;
	char host[MOUNT_HOSTLEN];
	uint32_t status;
	char *path;

	(void)res;
	path = normalize(&req->arena, &args->path, &status);
	if (!path)
		path = arena_strndup(&req->arena, (const char *)args->path.data, args->path.len);
	if (path)
		mount_list_remove(rpc_peer_str(req, host, sizeof(host)), path);
}

static void mount_umntall(struct rpc_req *req, const void *args, void *res)
{
	char host[MOUNT_HOSTLEN];

	(void)args;
	(void)res;
	mount_list_remove(rpc_peer_str(req, host, sizeof(host)), NULL);
}

/* Fill @en from @e, copying into the arena (the table is released before encoding). */
static bool export_node(struct arena *a, const struct export *e, struct mount_exportnode *en)
{
	const char *p = e->clients_text;
	size_t n = 0;

	en->dir = arena_strndup(a, e->path, strlen(e->path));
	for (const char *q = p; *q; q++)
		n += (q == p || q[-1] == ' ') && *q != ' ';
	en->groups = arena_zalloc(a, (n ? n : 1) * sizeof(*en->groups));
	if (!en->dir || !en->groups)
		return false;
	while (*p) {
		size_t len;

		p += strspn(p, " ");
		len = strcspn(p, " ");
		if (!len)
			break;
		en->groups[en->ngroups] = arena_strndup(a, p, len);
		if (!en->groups[en->ngroups])
			return false;
		en->ngroups++;
		p += len;
	}
	return true;
}

static void mount_export(struct rpc_req *req, const void *args, void *resp)
{
	struct mount_export_res *res = resp;
	struct export_table *t = export_table_get();
	size_t n;

	(void)args;
	if (!t)
		return;
	n = export_table_count(t);
	res->list = arena_zalloc(&req->arena, (n ? n : 1) * sizeof(*res->list));
	for (size_t i = 0; res->list && i < n; i++) {
		if (!export_node(&req->arena, export_table_at(t, i), &res->list[res->n]))
			break; /* out of memory: send what fits */
		res->n++;
	}
	export_table_put(t);
}

#define PROC(nm, dec, fn, enc, args_t, res_t)                                                      \
	{                                                                                          \
		.name = nm, .decode = dec, .run = fn, .encode = enc, .args_size = args_t,          \
		.res_size = res_t, .drc = RPC_DRC_NONE,                                            \
	}
/* MNT walks the path a name at a time, which may read directories from the disk: in the
 * pool that never waits for a flush, not on an event loop. */
#define MNT_PROC(fn, enc, res_t)                                                                   \
	{                                                                                          \
		.name = "MNT", .decode = mount_dec_dirpath_args, .run = fn, .encode = enc,         \
		.args_size = DIRPATH, .res_size = res_t, .drc = RPC_DRC_NONE, .blocking = true,    \
		.pool = RPC_POOL_READ,                                                             \
	}

#define DIRPATH sizeof(struct mount_dirpath_args)

static const struct rpc_proc mount_procs3[MOUNT_NPROCS3] = {
	[MOUNTPROC_NULL] = PROC("NULL", xdr_dec_void, mount_null, xdr_enc_void, 0, 0),
	[MOUNTPROC_MNT] = MNT_PROC(mount_mnt3, mount_enc_mnt3_res, sizeof(struct mount_mnt3_res)),
	[MOUNTPROC_DUMP] = PROC("DUMP", xdr_dec_void, mount_dump, mount_enc_dump_res, 0,
				sizeof(struct mount_dump_res)),
	[MOUNTPROC_UMNT] =
		PROC("UMNT", mount_dec_dirpath_args, mount_umnt, xdr_enc_void, DIRPATH, 0),
	[MOUNTPROC_UMNTALL] = PROC("UMNTALL", xdr_dec_void, mount_umntall, xdr_enc_void, 0, 0),
	[MOUNTPROC_EXPORT] = PROC("EXPORT", xdr_dec_void, mount_export, mount_enc_export_res, 0,
				  sizeof(struct mount_export_res)),
};

/* Versions 1 and 2 (RFC 1094 appendix A); version 2's PATHCONF (7) is not offered. */
static const struct rpc_proc mount_procs1[MOUNT_NPROCS1] = {
	[MOUNTPROC_NULL] = PROC("NULL", xdr_dec_void, mount_null, xdr_enc_void, 0, 0),
	[MOUNTPROC_MNT] = MNT_PROC(mount_mnt1, mount_enc_fhstatus, sizeof(struct mount_fhstatus)),
	[MOUNTPROC_DUMP] = PROC("DUMP", xdr_dec_void, mount_dump, mount_enc_dump_res, 0,
				sizeof(struct mount_dump_res)),
	[MOUNTPROC_UMNT] =
		PROC("UMNT", mount_dec_dirpath_args, mount_umnt, xdr_enc_void, DIRPATH, 0),
	[MOUNTPROC_UMNTALL] = PROC("UMNTALL", xdr_dec_void, mount_umntall, xdr_enc_void, 0, 0),
	[MOUNTPROC_EXPORT] = PROC("EXPORT", xdr_dec_void, mount_export, mount_enc_export_res, 0,
				  sizeof(struct mount_export_res)),
	[MOUNTPROC_EXPORTALL] = PROC("EXPORTALL", xdr_dec_void, mount_export, mount_enc_export_res,
				     0, sizeof(struct mount_export_res)),
};

static const struct rpc_version mount_versions[] = {
	{.vers = 1, .nprocs = MOUNT_NPROCS1, .procs = mount_procs1},
	{.vers = 2, .nprocs = MOUNT_NPROCS1, .procs = mount_procs1},
	{.vers = 3, .nprocs = MOUNT_NPROCS3, .procs = mount_procs3},
};

const struct rpc_program mount_program = {
	.name = "mount",
	.prog = MOUNT_PROGRAM,
	.nvers = sizeof(mount_versions) / sizeof(mount_versions[0]),
	.versions = mount_versions,
};
