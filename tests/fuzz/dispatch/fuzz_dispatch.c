/*
 * fuzz_dispatch.c - fuzz the whole dispatch path: one RPC call message (no record
 * mark) through rpc_process_buffer() with the real portmap, MOUNT and NFSv3 programs
 * registered over a real export, from 127.0.0.1 port 700.
 *
 * The export lives in a fresh directory under /tmp, created in LLVMFuzzerInitialize()
 * with its own state directory (a new handle key). When we can (as root), that
 * directory is a private tmpfs in a mount namespace of our own: mounted nodev, nosuid
 * and noexec, so a MKNOD'd device node is inert, and capped at FUZZ_FS_BYTES and
 * FUZZ_FS_INODES, so WRITEs cannot fill the disk; it disappears with the process.
 * As root without a namespace we refuse to run. Every WIPE_EVERY inputs the export is
 * emptied and refilled with the same small tree (so a long run does not fill the
 * tmpfs with what it created); the cost is that a crash that depends on files left
 * behind by earlier inputs may need the same run to reproduce, never a single replay.
 *
 * File handles: a handle depends on the key and on inode numbers, so the handles in a
 * captured call mean nothing here. Seeds therefore carry placeholders, substituted
 * before the call is dispatched (fuzz_subst()): wherever a 4-byte-aligned XDR opaque
 * starts with "SHOALFH:", the rest of it is a path inside the export ("" for the root,
 * "dir/file2") and it is replaced by that object's live handle; "SHOALDP:" + rest is
 * replaced by the export's absolute path + rest (MOUNT dirpaths). make-corpus.sh
 * writes them.
 */
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export.h"
#include "fuzz/fuzz.h"
#include "mount/mount.h"
#include "nfs3/nfs3.h"
#include "portmap/portmap.h"

#define WIPE_EVERY     2000
#define FUZZ_FS_BYTES  "64m"
#define FUZZ_FS_INODES "20000"
#define REPLY_CAP      (NFS3_MAXDATA + 64 * 1024)
#define PH_FH	       "SHOALFH:"
#define PH_DIRPATH     "SHOALDP:"
#define PH_LEN	       8

static char base[64], export_dir[96], state_dir[96];
static bool own_mount;
static struct vfs_export *vx;
static uint8_t *reply;
static unsigned long ninputs;

/* ---- the temporary export ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0 && remove(path))
		return -1;
	return 0;
}

static void wipe_dir(const char *dir)
{
	chmod(dir, 0777);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void put_file(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", export_dir, rel);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

/* The tree every seed expects: make-corpus.sh captures against the same one. */
static void populate(void)
{
	char p[256];

	put_file("file", "hello, shoal\n");
	put_file("big", "0123456789abcdef0123456789abcdef\n");
	snprintf(p, sizeof(p), "%s/dir", export_dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dir/sub", export_dir);
	mkdir(p, 0755);
	put_file("dir/file2", "two\n");
	snprintf(p, sizeof(p), "%s/link", export_dir);
	if (symlink("file", p))
		abort();
}

static void cleanup(void)
{
	vfs_thread_reset_identity();
	if (own_mount) {
		umount2(base, MNT_DETACH);
	} else {
		wipe_dir(export_dir);
		rmdir(export_dir);
		wipe_dir(state_dir);
		rmdir(state_dir);
	}
	rmdir(base);
}

/* A private, capped, nodev tmpfs on @base; false if this process may not make one. */
static bool isolate(void)
{
	if (unshare(CLONE_NEWNS))
		return false;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return false;
	return mount("shoal-fuzz", base, "tmpfs", MS_NODEV | MS_NOSUID | MS_NOEXEC,
		     "mode=0755,size=" FUZZ_FS_BYTES ",nr_inodes=" FUZZ_FS_INODES) == 0;
}

static void must(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "fuzz_dispatch: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct export_table *t;
	char err[512] = "";
	static const uint32_t protos[] = {IPPROTO_TCP, IPPROTO_UDP};

	(void)argc;
	(void)argv;
	log_threshold = LOG_LVL_ERROR;
	snprintf(base, sizeof(base), "/tmp/shoal-fuzz-dispatch.XXXXXX");
	if (!mkdtemp(base))
		must(errno, "mkdtemp");
	own_mount = isolate();
	if (!own_mount && geteuid() == 0) {
		fprintf(stderr, "fuzz_dispatch: as root, refusing to run without a private "
				"nodev tmpfs (unshare(CLONE_NEWNS) failed)\n");
		rmdir(base);
		abort();
	}
	atexit(cleanup);
	snprintf(export_dir, sizeof(export_dir), "%s/export", base);
	snprintf(state_dir, sizeof(state_dir), "%s/state", base);
	must(mkdir(export_dir, 0755) ? errno : 0, "mkdir export");
	must(mkdir(state_dir, 0700) ? errno : 0, "mkdir state");
	populate();
	must(vfs_init(state_dir), "vfs_init");
	must(export_table_single(export_dir, &t, err, sizeof(err)), err);
	must(export_table_open(t, NULL, err, sizeof(err)), err);
	vx = export_table_at(t, 0)->vx;
	export_table_publish(t);
	must(rpc_register(&portmap_program), "register portmap");
	must(rpc_register(&mount_program), "register mount");
	must(rpc_register(&nfs3_program), "register nfs3");
	for (unsigned i = 0; i < 2; i++) {
		pmap_registry_set(PMAP_PROGRAM, 2, protos[i], 111);
		pmap_registry_set(NFS3_PROGRAM, 3, protos[i], 2049);
		pmap_registry_set(MOUNT_PROGRAM, 1, protos[i], 20048);
		pmap_registry_set(MOUNT_PROGRAM, 3, protos[i], 20048);
	}
	reply = malloc(REPLY_CAP);
	if (!reply)
		abort();
	return 0;
}

/* ---- placeholders ---- */

/*
 * The live handle of @path (relative to the export, '/'-separated). A path that no
 * longer exists (the seed's client created it) gives its deepest existing ancestor,
 * so that the call still reaches the procedure. False only without a root handle.
 */
static bool resolve(const uint8_t *path, size_t len, struct vfs_fh *fh)
{
	struct vfs_ctx ctx = {.cred = {.uid = 0, .gid = 0}};
	size_t i = 0;

	if (vfs_export_root(vx, fh))
		return false;
	while (i < len) {
		char name[NFS3_MAXNAMLEN + 1];
		struct vfs_node *dir;
		struct vfs_attr attr;
		struct vfs_fh next;
		size_t n = 0;
		int rc;

		while (i < len && path[i] != '/' && n < NFS3_MAXNAMLEN)
			name[n++] = (char)path[i++];
		name[n] = 0;
		i++; /* the '/' */
		if (n == 0 || memchr(name, 0, n))
			continue;
		if (vfs_node_get(vx, fh->data, fh->len, false, &dir))
			return true;
		rc = vfs_lookup(&ctx, dir, name, false, &next, &attr, NULL, NULL);
		vfs_node_put(dir);
		if (rc)
			return true;
		*fh = next;
	}
	return true;
}

/* Append the XDR opaque @p[0..n) to @out at *@o (room checked by the caller). */
static void put_opaque(uint8_t *out, size_t *o, const void *p, size_t n)
{
	xdr_put_u32(out + *o, (uint32_t)n);
	memcpy(out + *o + 4, p, n);
	memset(out + *o + 4 + n, 0, xdr_pad((uint32_t)n));
	*o += 4 + n + xdr_pad((uint32_t)n);
}

/*
 * Copy @in to a new buffer with every placeholder replaced (see the top of the file).
 * Returns the buffer (free() it) with its length in *outlen.
 */
static uint8_t *fuzz_subst(const uint8_t *in, size_t len, size_t *outlen)
{
	size_t elen = strlen(export_dir), i = 0, o = 0;
	/* a placeholder is at least 4 + 8 bytes and grows by at most max(64, elen) */
	size_t cap = len + (len / 12 + 1) * (elen + VFS_FH_MAX + 8);
	uint8_t *out = malloc(cap);

	if (!out)
		abort();
	while (i + 4 + PH_LEN <= len) {
		uint32_t n = xdr_get_u32(in + i);
		const uint8_t *body = in + i + 4;
		struct vfs_fh fh;
		char dp[MNTPATHLEN + 1];

		if (n < PH_LEN || n > len - i - 4 ||
		    (memcmp(body, PH_FH, PH_LEN) && memcmp(body, PH_DIRPATH, PH_LEN))) {
			memcpy(out + o, in + i, 4);
			o += 4;
			i += 4;
			continue;
		}
		if (memcmp(body, PH_FH, PH_LEN) == 0 && resolve(body + PH_LEN, n - PH_LEN, &fh)) {
			put_opaque(out, &o, fh.data, fh.len);
		} else if (memcmp(body, PH_DIRPATH, PH_LEN) == 0 &&
			   elen + n - PH_LEN < sizeof(dp)) {
			memcpy(dp, export_dir, elen);
			memcpy(dp + elen, body + PH_LEN, n - PH_LEN);
			put_opaque(out, &o, dp, elen + n - PH_LEN);
		} else {
			put_opaque(out, &o, body, n);
		}
		i += 4 + n + xdr_pad(n);
		if (i > len)
			i = len; /* the padding was cut off; so be it */
	}
	memcpy(out + o, in + i, len - i);
	*outlen = o + len - i;
	return out;
}

/* ---- one input ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(700)};
	uint8_t *call;
	size_t len;
	long n;

	if (++ninputs % WIPE_EVERY == 0) {
		vfs_thread_reset_identity();
		wipe_dir(export_dir);
		chmod(export_dir, 0755);
		populate();
		mount_list_clear();
	}
	peer.sin_addr.s_addr = htonl(0x7f000001);
	call = fuzz_subst(data, size, &len);
	n = rpc_process_buffer(call, len, (const struct sockaddr *)&peer, sizeof(peer), reply,
			       REPLY_CAP);
	if (n < 0 && n != -ENOSPC)
		abort();
	/* A reply answers this call: same xid, message type REPLY (RFC 5531 section 9). */
	if (n > 0 && (n < 12 || len < 4 || memcmp(reply, call, 4) || xdr_get_u32(reply + 4) != 1))
		abort();
	free(call);
	/* Act as root again, so that libFuzzer can write its corpus and artifacts. */
	vfs_thread_reset_identity();
	return 0;
}
