/*
 * test_mount_proc.c - the MOUNT procedures (src/mount/mount_proc.c) end to end through
 * rpc_process_buffer(): MNT of exports and of directories inside them, refusals, the
 * mount list (DUMP, UMNT, UMNTALL), EXPORT in versions 1 and 3, and MNT of version 1.
 *
 * The vfs is a fake: a handle is the export id followed by the path inside the export,
 * directories are "", "/sub", "/sub/deeper", "/sub/nested" and "/deny" (which only uid 0
 * may look into), "/file" is a regular file, everything else is missing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <unistd.h>

#include "export/export.h"
#include "mount/mount.h"
#include "unit/test.h"

/* ---- fake vfs ---- */

struct vfs_export {
	int refs;
	uint32_t id;
};

struct vfs_node {
	char path[VFS_FH_MAX];
};

static int live_nodes;

int vfs_export_open(const char *path, uint32_t export_id, struct vfs_export **out)
{
	(void)path;
	*out = calloc(1, sizeof(**out));
	(*out)->refs = 1;
	(*out)->id = export_id;
	return 0;
}

void vfs_export_get(struct vfs_export *ve)
{
	ve->refs++;
}

void vfs_export_put(struct vfs_export *ve)
{
	if (--ve->refs == 0)
		free(ve);
}

int vfs_export_check(struct vfs_export *ve, const char *path)
{
	(void)ve;
	(void)path;
	return 0;
}

int vfs_export_sync(struct vfs_export *ve)
{
	(void)ve;
	return 0;
}

static void make_fh(uint32_t id, const char *path, struct vfs_fh *fh)
{
	size_t len = strlen(path);

	xdr_put_u32(fh->data, id);
	memcpy(fh->data + 4, path, len);
	fh->len = (uint8_t)(4 + len);
}

int vfs_export_root(struct vfs_export *ve, struct vfs_fh *out)
{
	make_fh(ve->id, "", out);
	return 0;
}

int vfs_node_get(struct vfs_export *ve, const uint8_t *fh, size_t len, bool nowait,
		 struct vfs_node **out)
{
	if (nowait) /* MOUNT has no retry in a pool: it must resolve whatever it takes */
		return -EINVAL;
	if (len < 4 || xdr_get_u32(fh) != ve->id)
		return -VFS_EBADHANDLE;
	*out = calloc(1, sizeof(**out));
	memcpy((*out)->path, fh + 4, len - 4);
	live_nodes++;
	return 0;
}

void vfs_node_put(struct vfs_node *node)
{
	free(node);
	live_nodes--;
}

int vfs_lookup(const struct vfs_ctx *ctx, struct vfs_node *dir, const char *name, bool nowait,
	       struct vfs_fh *fh, struct vfs_attr *attr, struct vfs_attr *dir_attr,
	       bool *dir_attr_valid)
{
	static const char *const dirs[] = {"/sub", "/sub/deeper", "/sub/nested", "/deny"};
	char path[VFS_FH_MAX + 300];

	(void)dir_attr;
	if (dir_attr_valid)
		*dir_attr_valid = false;
	if (nowait)
		return -EINVAL;
	if (strcmp(dir->path, "/file") == 0)
		return -ENOTDIR;
	if (strcmp(dir->path, "/deny") == 0 && ctx->cred.uid != 0)
		return -EACCES;
	snprintf(path, sizeof(path), "%s/%s", dir->path, name);
	if (strlen(path) > VFS_FH_MAX - 4)
		return -ENAMETOOLONG;
	memset(attr, 0, sizeof(*attr));
	attr->type = VFS_REG;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (strcmp(path, dirs[i]) == 0)
			attr->type = VFS_DIR;
	}
	if (attr->type != VFS_DIR && strcmp(path, "/file") != 0 && strcmp(path, "/deny/inner") != 0)
		return -ENOENT;
	if (strcmp(path, "/deny/inner") == 0)
		attr->type = VFS_DIR;
	make_fh(xdr_get_u32(fh->data), path, fh);
	return 0;
}

/* ---- helpers ---- */

static struct sockaddr_in client_a, client_other;

/*
 * Serve one MOUNT call from @peer (AUTH_SYS uid 0) with an optional dirpath argument.
 * Returns the accept_stat; *res is positioned at the results.
 */
static int call(const struct sockaddr_in *peer, uint32_t vers, uint32_t proc, const char *path,
		uint8_t *reply, size_t cap, struct xdr_cur *res)
{
	static uint8_t buf[2048];
	struct xdr_out o;
	uint32_t v, st;
	long n;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(xdr_enc_u32(&o, 77) && xdr_enc_u32(&o, RPC_CALL) && xdr_enc_u32(&o, 2) &&
	      xdr_enc_u32(&o, MOUNT_PROGRAM) && xdr_enc_u32(&o, vers) && xdr_enc_u32(&o, proc));
	/* AUTH_SYS: stamp, machine name, uid 0, gid 0, no groups */
	CHECK(xdr_enc_u32(&o, RPC_AUTH_SYS) && xdr_enc_u32(&o, 24) && xdr_enc_u32(&o, 1) &&
	      xdr_enc_opaque(&o, "host", 4) && xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0) &&
	      xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0) && xdr_enc_u32(&o, 0));
	if (path) {
		struct mount_dirpath_args a = {{(const uint8_t *)path, (uint32_t)strlen(path)}};

		CHECK(mount_enc_dirpath_args(&o, &a));
	}
	n = rpc_process_buffer(buf, o.len, (const struct sockaddr *)peer, sizeof(*peer), reply,
			       cap);
	CHECK(n > 0);
	if (n <= 0)
		return -1;
	xdr_cur_init(res, reply, (size_t)n);
	CHECK(xdr_dec_u32(res, &v) && v == 77);
	CHECK(xdr_dec_u32(res, &v) && v == RPC_REPLY);
	CHECK(xdr_dec_u32(res, &v) && v == RPC_MSG_ACCEPTED);
	CHECK(xdr_dec_u32(res, &v) && xdr_dec_u32(res, &v) && v == 0);
	if (!xdr_dec_u32(res, &st))
		return -1;
	return (int)st;
}

/* MNT version 3; returns the status, the handle's path part in @fhpath. */
static uint32_t mnt(const struct sockaddr_in *peer, const char *path, char *fhpath)
{
	struct mount_mnt3_res r;
	uint8_t reply[512];
	struct xdr_cur c;

	fhpath[0] = '\0';
	if (call(peer, 3, MOUNTPROC_MNT, path, reply, sizeof(reply), &c) != RPC_SUCCESS)
		return 0xffffffff;
	CHECK(mount_dec_mnt3_res(&c, &r));
	CHECK_EQ(xdr_cur_left(&c), 0);
	if (r.status == MNT3_OK) {
		CHECK(r.fh_len >= 4);
		CHECK_EQ(r.nflavors, 1);
		CHECK_EQ(r.flavors[0], RPC_AUTH_SYS);
		memcpy(fhpath, r.fh + 4, r.fh_len - 4);
		fhpath[r.fh_len - 4] = '\0';
	}
	return r.status;
}

static void dump(uint32_t vers, struct arena *a, struct mount_dump_res *d)
{
	uint8_t reply[4096];
	struct xdr_cur c;

	CHECK_EQ(call(&client_other, vers, MOUNTPROC_DUMP, NULL, reply, sizeof(reply), &c),
		 RPC_SUCCESS);
	CHECK(mount_dec_dump_res(&c, a, d));
}

static void setup(void)
{
	static const char text[] = "/e/a 192.0.2.0/24(rw,no_root_squash) *(ro)\n"
				   "/e/a/sub/nested 10.9.9.9(rw)\n"
				   "/e/b 10.0.0.1(rw) 10.0.0.2\n";
	char name[] = "/tmp/shoal-mount-XXXXXX", err[256];
	struct export_table *t = NULL;
	int fd = mkstemp(name);

	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	CHECK_EQ(export_table_parse(name, &t, err, sizeof(err)), 0);
	unlink(name);
	CHECK_EQ(export_table_open(t, NULL, err, sizeof(err)), 0);
	export_table_publish(t);

	client_a.sin_family = AF_INET;
	client_a.sin_port = htons(800);
	inet_pton(AF_INET, "192.0.2.5", &client_a.sin_addr);
	client_other = client_a;
	inet_pton(AF_INET, "198.51.100.1", &client_other.sin_addr);
	rpc_register(&mount_program);
	mount_list_clear();
}

static void test_mnt(void)
{
	char fh[128];

	setup();
	CHECK_EQ(mnt(&client_a, "/e/a", fh), MNT3_OK);
	CHECK(strcmp(fh, "") == 0);
	CHECK_EQ(mnt(&client_a, "/e/a/", fh), MNT3_OK);
	CHECK_EQ(mnt(&client_a, "/e/a/sub/deeper", fh), MNT3_OK);
	CHECK(strcmp(fh, "/sub/deeper") == 0);
	CHECK_EQ(mnt(&client_a, "//e/a//sub/./deeper/", fh), MNT3_OK);
	CHECK(strcmp(fh, "/sub/deeper") == 0);
	CHECK_EQ(mnt(&client_a, "/e/a/file", fh), MNT3ERR_NOTDIR);
	CHECK_EQ(mnt(&client_a, "/e/a/file/x", fh), MNT3ERR_NOTDIR);
	CHECK_EQ(mnt(&client_a, "/e/a/missing", fh), MNT3ERR_NOENT);
	CHECK_EQ(mnt(&client_a, "/e/ab", fh), MNT3ERR_NOENT); /* not a component prefix */
	CHECK_EQ(mnt(&client_a, "/nowhere", fh), MNT3ERR_NOENT);
	CHECK_EQ(mnt(&client_a, "relative", fh), MNT3ERR_INVAL);
	CHECK_EQ(mnt(&client_a, "/e/a/../b", fh), MNT3ERR_INVAL);
	/* squashing applies while resolving: root maps to nobody for "*" */
	CHECK_EQ(mnt(&client_a, "/e/a/deny/inner", fh), MNT3_OK);
	CHECK_EQ(mnt(&client_other, "/e/a/deny/inner", fh), MNT3ERR_ACCES);
	CHECK_EQ(mnt(&client_other, "/e/a/sub", fh), MNT3_OK);
	/* the client is not in /e/b's list */
	CHECK_EQ(mnt(&client_a, "/e/b", fh), MNT3ERR_ACCES);
	/* the nested export refuses, the enclosing one admits */
	CHECK_EQ(mnt(&client_a, "/e/a/sub/nested", fh), MNT3_OK);
	CHECK(strcmp(fh, "/sub/nested") == 0);
	CHECK_EQ(live_nodes, 0);
}

static void test_mnt_limits_and_v1(void)
{
	static char longpath[1030];
	uint8_t reply[256];
	struct xdr_cur c;
	uint32_t st;

	setup();
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[1025] = '\0';
	CHECK_EQ(call(&client_a, 3, MOUNTPROC_MNT, longpath, reply, sizeof(reply), &c),
		 RPC_GARBAGE_ARGS);
	longpath[1024] = '\0';
	CHECK_EQ(call(&client_a, 3, MOUNTPROC_MNT, longpath, reply, sizeof(reply), &c),
		 RPC_SUCCESS);
	CHECK(xdr_dec_u32(&c, &st) && st == MNT3ERR_NAMETOOLONG);
	CHECK_EQ(call(&client_a, 3, MOUNTPROC_MNT, NULL, reply, sizeof(reply), &c),
		 RPC_GARBAGE_ARGS);
	CHECK_EQ(call(&client_a, 3, MOUNTPROC_EXPORTALL, NULL, reply, sizeof(reply), &c),
		 RPC_PROC_UNAVAIL);

	/* version 1: MNT refused with EACCES, nothing else in the reply */
	CHECK_EQ(call(&client_a, 1, MOUNTPROC_MNT, "/e/a", reply, sizeof(reply), &c), RPC_SUCCESS);
	CHECK(xdr_dec_u32(&c, &st) && st == 13);
	CHECK_EQ(xdr_cur_left(&c), 0);
	CHECK_EQ(call(&client_a, 1, MOUNTPROC_NULL, NULL, reply, sizeof(reply), &c), RPC_SUCCESS);
	CHECK_EQ(xdr_cur_left(&c), 0);

	/* no table published: a server fault, not a crash */
	export_table_publish(NULL);
	CHECK_EQ(call(&client_a, 3, MOUNTPROC_MNT, "/e/a", reply, sizeof(reply), &c), RPC_SUCCESS);
	CHECK(xdr_dec_u32(&c, &st) && st == MNT3ERR_SERVERFAULT);
	CHECK_EQ(call(&client_a, 3, MOUNTPROC_EXPORT, NULL, reply, sizeof(reply), &c), RPC_SUCCESS);
	CHECK(xdr_dec_u32(&c, &st) && st == 0); /* empty list */
}

static void test_dump_umnt(void)
{
	struct mount_dump_res d;
	uint8_t reply[256];
	struct xdr_cur c;
	struct arena a;
	char fh[128];

	setup();
	arena_init(&a, 8192);
	CHECK_EQ(mnt(&client_a, "/e/a", fh), MNT3_OK);
	CHECK_EQ(mnt(&client_a, "/e/a/", fh), MNT3_OK); /* same mount, listed once */
	CHECK_EQ(mnt(&client_a, "/e/a/sub", fh), MNT3_OK);
	CHECK_EQ(mnt(&client_other, "/e/a/sub", fh), MNT3_OK);
	CHECK_EQ(mnt(&client_other, "/e/b", fh), MNT3ERR_ACCES); /* not recorded */
	dump(1, &a, &d);
	CHECK_EQ(d.n, 3);
	CHECK(d.n == 3 && strcmp(d.list[0].hostname, "192.0.2.5") == 0);
	CHECK(d.n == 3 && strcmp(d.list[0].directory, "/e/a") == 0);
	CHECK(d.n == 3 && strcmp(d.list[2].hostname, "198.51.100.1") == 0);

	CHECK_EQ(call(&client_a, 3, MOUNTPROC_UMNT, "/e/a/", reply, sizeof(reply), &c),
		 RPC_SUCCESS);
	CHECK_EQ(xdr_cur_left(&c), 0);
	dump(3, &a, &d);
	CHECK_EQ(d.n, 2);
	CHECK(d.n == 2 && strcmp(d.list[0].directory, "/e/a/sub") == 0);
	CHECK_EQ(call(&client_a, 1, MOUNTPROC_UMNTALL, NULL, reply, sizeof(reply), &c),
		 RPC_SUCCESS);
	dump(3, &a, &d);
	CHECK_EQ(d.n, 1);
	CHECK(d.n == 1 && strcmp(d.list[0].hostname, "198.51.100.1") == 0);
	mount_list_clear();
	dump(1, &a, &d);
	CHECK_EQ(d.n, 0);
	arena_fini(&a);
}

static void test_export_list(void)
{
	struct mount_export_res r;
	uint8_t reply[2048];
	struct xdr_cur c;
	struct arena a;

	setup();
	arena_init(&a, 8192);
	for (uint32_t vers = 1; vers <= 3; vers++) {
		CHECK_EQ(
			call(&client_other, vers, MOUNTPROC_EXPORT, NULL, reply, sizeof(reply), &c),
			RPC_SUCCESS);
		CHECK(mount_dec_export_res(&c, &a, &r));
		CHECK_EQ(xdr_cur_left(&c), 0);
		CHECK_EQ(r.n, 3);
		if (r.n != 3)
			continue;
		CHECK(strcmp(r.list[0].dir, "/e/a") == 0);
		CHECK_EQ(r.list[0].ngroups, 2);
		CHECK(strcmp(r.list[0].groups[0], "192.0.2.0/24") == 0);
		CHECK(strcmp(r.list[0].groups[1], "*") == 0);
		CHECK(strcmp(r.list[1].dir, "/e/a/sub/nested") == 0);
		CHECK(strcmp(r.list[2].groups[1], "10.0.0.2") == 0);
	}
	CHECK_EQ(call(&client_other, 1, MOUNTPROC_EXPORTALL, NULL, reply, sizeof(reply), &c),
		 RPC_SUCCESS);
	CHECK(mount_dec_export_res(&c, &a, &r));
	CHECK_EQ(r.n, 3);
	arena_fini(&a);
	export_table_publish(NULL);
	mount_list_clear();
}

TESTS(test_mnt, test_mnt_limits_and_v1, test_dump_umnt, test_export_list);
