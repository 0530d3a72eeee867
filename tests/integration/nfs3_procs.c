/*
 * nfs3_procs.c - integration client: drives every NFSv3 and MOUNT procedure against a
 * running shoal-server through libnfs's raw async RPC API (a client we did not write).
 *
 * Subcommands (HOST is an address, PATH an export path, FH a handle in hex):
 *   procs HOST PATH              every procedure, its important result fields and error paths
 *   ro HOST PATH FILE            a read-only export: reads work, every change is NFS3ERR_ROFS
 *   mount HOST PATH              prints "MNT3_OK FH" or the mount status name
 *   fh HOST PATH [REL]           prints the handle of REL (LOOKUP per component, no symlinks)
 *   getattr|read|readlink HOST PATH FH   prints the status name (and data / text)
 *   lookup HOST PATH FH NAME     prints the status name and the handle found
 *   write-stable HOST PATH FILE N M  N stable blocks, then M unstable blocks and a COMMIT;
 *                                prints "acked K" and "verf V"
 *   verify HOST PATH FILE K      checks the first K blocks hold the pattern
 * PATH "-" skips the MNT call (the handle is given). Ports come from SHOAL_NFS_PORT and
 * SHOAL_MOUNT_PORT (defaults 2049, 20048); each call waits at most SHOAL_RPC_TIMEOUT
 * seconds (default 30). Check lines are "ok NAME" or "FAIL NAME: expected X got Y"; the
 * exit status is 1 if any check failed, 2 for bad usage or a broken connection.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/check.h"
#include "lib/nfsc.h"

#define BLOCK	     4096
#define BIG_ENTRIES  2000
#define MAX_INFLIGHT 64

/* ---- hooks: copy what lives behind pointers while the callback runs ---- */

/*
 * EXPORT and DUMP: c->got = 1 when the path in c->arg is listed. libnfs 4.0 lays list
 * nodes out at 4-byte alignment, so each node is copied before its fields are read
 * (UBSan rightly objects to the misaligned member access otherwise).
 */
static void hook_export(struct nfsc_call *c, void *data)
{
	exports p;

	memcpy(&p, data, sizeof(p));
	while (p) {
		struct exportnode e;

		memcpy(&e, p, sizeof(e));
		if (e.ex_dir && strcmp(e.ex_dir, c->arg) == 0)
			c->got = 1;
		p = e.ex_next;
	}
}

static void hook_dump(struct nfsc_call *c, void *data)
{
	mountlist p;

	memcpy(&p, data, sizeof(p));
	while (p) {
		struct mountbody m;

		memcpy(&m, p, sizeof(m));
		if (m.ml_directory && strcmp(m.ml_directory, c->arg) == 0)
			c->got = 1;
		p = m.ml_next;
	}
}

/* ---- check helpers ---- */

static bool expect(const char *name, int got, int want)
{
	if (got == want) {
		check_ok(name);
		return true;
	}
	check_fail(name, "expected %s got %s", nfsc_stname(want), nfsc_stname(got));
	return false;
}

static bool expect_true(const char *name, bool cond, const char *what)
{
	if (cond) {
		check_ok(name);
		return true;
	}
	check_fail(name, "expected %s", what);
	return false;
}

static void pattern(char *buf, size_t len, uint64_t block, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)((block * 131 + i * 7 + seed) & 0xff);
}

/* Mount @path (unless "-") on HOST's mount port; the root handle goes to *root. */
static void do_mount(const char *host, const char *path, struct nfsc_fh *root)
{
	struct nfsc mx = {0};
	int st;

	if (strcmp(path, "-") == 0)
		return;
	nfsc_connect_env(&mx, host, true);
	st = nfsc_mnt(&mx, path, root, NULL);
	nfsc_close(&mx);
	if (st != MNT3_OK)
		nfsc_die("MNT %s: expected MNT3_OK got %s", path, nfsc_mntname(st));
}

/* WRITE, with the reply's count, committed and verifier in *w (may be NULL). */
static int write3(struct nfsc *x, const struct nfsc_fh *f, uint64_t off, const void *data,
		  uint32_t len, stable_how how, WRITE3resok *w)
{
	WRITE3resok r;
	int st;

	memset(&r, 0, sizeof(r));
	st = nfsc_write(x, f, off, data, len, how, &r.count, &r.committed, (uint8_t *)r.verf);
	if (w)
		*w = r;
	return st;
}

/* ---- procs: the mount protocol ---- */

static void check_mount_procs(const char *host, const char *path, struct nfsc_fh *root)
{
	struct nfsc mx = {0};
	struct nfsc_call c;
	bool sys = false;
	int st;

	nfsc_connect_env(&mx, host, true);
	nfsc_call_init(&c, 0, NULL);
	expect_true("mount-null",
		    NFSC_RUN(&mx, &c, rpc_mount3_null_async(mx.rpc, nfsc_call_cb, &c)) == 0,
		    "a reply to MOUNT NULL");

	st = nfsc_mnt(&mx, path, root, &sys);
	if (st != MNT3_OK)
		nfsc_die("MNT %s: expected MNT3_OK got %s (%s)", path, nfsc_mntname(st), mx.err);
	check_ok("mount-mnt");
	expect_true("mount-mnt-handle", root->len > 0 && root->len <= 64,
		    "a handle of 1..64 bytes");
	expect_true("mount-mnt-authsys", sys, "AUTH_SYS (1) among the auth flavors");

	st = nfsc_mnt(&mx, "/no/such/export/path", &(struct nfsc_fh){0}, NULL);
	if (st == MNT3ERR_NOENT || st == MNT3ERR_ACCES)
		check_ok("mount-mnt-unexported");
	else
		check_fail("mount-mnt-unexported", "expected MNT3ERR_NOENT or MNT3ERR_ACCES got %s",
			   nfsc_mntname(st));

	nfsc_call_init(&c, 0, hook_export);
	c.arg = (void *)path;
	if (NFSC_RUN(&mx, &c, rpc_mount3_export_async(mx.rpc, nfsc_call_cb, &c)))
		check_fail("mount-export", "expected a reply got %s", mx.err);
	else
		expect_true("mount-export", c.got, "the export list to contain the path");

	nfsc_call_init(&c, 0, hook_dump);
	c.arg = (void *)path;
	if (NFSC_RUN(&mx, &c, rpc_mount3_dump_async(mx.rpc, nfsc_call_cb, &c)))
		check_fail("mount-dump", "expected a reply got %s", mx.err);
	else
		expect_true("mount-dump", c.got, "the mount list to contain the mounted path");

	nfsc_call_init(&c, 0, NULL);
	expect_true("mount-umnt",
		    NFSC_RUN(&mx, &c,
			     rpc_mount3_umnt_async(mx.rpc, nfsc_call_cb, (char *)path, &c)) == 0,
		    "a reply to UMNT");
	nfsc_call_init(&c, 0, hook_dump);
	c.arg = (void *)path;
	if (NFSC_RUN(&mx, &c, rpc_mount3_dump_async(mx.rpc, nfsc_call_cb, &c)))
		check_fail("mount-dump-after-umnt", "expected a reply got %s", mx.err);
	else
		expect_true("mount-dump-after-umnt", !c.got,
			    "the path gone from the mount list after UMNT");
	nfsc_close(&mx);
}

/* ---- procs: files ---- */

static void check_create_setattr(struct nfsc *x, const struct nfsc_fh *dir)
{
	struct nfsc_fh f, f2, e1, e2;
	fattr3 a, b;
	sattr3 s;
	nfstime3 wrong = {1, 1};

	if (!expect("create-unchecked", nfsc_create(x, dir, "f", UNCHECKED, 0644, &f, NULL),
		    NFS3_OK))
		return;
	if (expect("create-getattr", nfsc_getattr(x, &f, &a), NFS3_OK)) {
		expect_true("create-attrs", a.type == NF3REG && a.size == 0 && a.nlink == 1,
			    "a regular file, size 0, nlink 1");
		if ((a.mode & 07777) == 0644)
			check_ok("create-mode");
		else
			check_fail("create-mode", "expected mode 0644 got 0%o", a.mode & 07777);
	}
	expect("create-guarded-exists", nfsc_create(x, dir, "f", GUARDED, 0644, NULL, NULL),
	       NFS3ERR_EXIST);
	if (expect("create-unchecked-again", nfsc_create(x, dir, "f", UNCHECKED, 0644, &f2, NULL),
		   NFS3_OK) &&
	    nfsc_getattr(x, &f2, &b) == NFS3_OK)
		expect_true("create-unchecked-same", b.fileid == a.fileid, "the same fileid");

	if (expect("create-exclusive",
		   nfsc_create_exclusive(x, dir, "x", (const uint8_t *)"verf0001", &e1), NFS3_OK) &&
	    expect("create-exclusive-retry",
		   nfsc_create_exclusive(x, dir, "x", (const uint8_t *)"verf0001", &e2), NFS3_OK)) {
		nfsc_getattr(x, &e1, &a);
		nfsc_getattr(x, &e2, &b);
		expect_true("create-exclusive-same", a.fileid == b.fileid,
			    "the retry to return the same file");
	}
	expect("create-exclusive-other",
	       nfsc_create_exclusive(x, dir, "x", (const uint8_t *)"verf0002", NULL),
	       NFS3ERR_EXIST);

	s = nfsc_sattr_mode(0600);
	s.size.set_it = 1;
	s.size.set_size3_u.size = 100;
	if (expect("setattr", nfsc_setattr(x, &f, &s, NULL), NFS3_OK) &&
	    nfsc_getattr(x, &f, &a) == NFS3_OK) {
		if (a.size == 100 && (a.mode & 07777) == 0600)
			check_ok("setattr-applied");
		else
			check_fail("setattr-applied",
				   "expected size 100 mode 0600 got size %" PRIu64 " mode 0%o",
				   (uint64_t)a.size, a.mode & 07777);
		s = nfsc_sattr_mode(0640);
		expect("setattr-guard-wrong", nfsc_setattr(x, &f, &s, &wrong), NFS3ERR_NOT_SYNC);
		expect("setattr-guard-right", nfsc_setattr(x, &f, &s, &a.ctime), NFS3_OK);
	}
	s = nfsc_sattr_mode(-1);
	s.size.set_it = 1;
	s.size.set_size3_u.size = 0;
	nfsc_setattr(x, &f, &s, NULL);
}

static void check_lookup_access(struct nfsc *x, const struct nfsc_fh *root,
				const struct nfsc_fh *dir)
{
	struct nfsc_call c;
	struct nfsc_fh f;
	fattr3 a, d, r;
	uint32_t got = 0;

	if (expect("lookup-hit", nfsc_lookup(x, dir, "f", &f, &a), NFS3_OK))
		expect_true("lookup-hit-type", a.type == NF3REG, "a regular file");
	LOOKUP3args la = {.what = {.dir = nfsc_fh3(dir), .name = "no-such-name"}};
	nfsc_call_init(&c, sizeof(LOOKUP3res), NULL);
	if (NFSC_RUN(x, &c, rpc_nfs3_lookup_async(x->rpc, nfsc_call_cb, &la, &c)))
		check_fail("lookup-miss", "expected a reply got %s", x->err);
	else if (expect("lookup-miss", (int)c.res.lookup.status, NFS3ERR_NOENT))
		expect_true("lookup-miss-dir-attrs",
			    c.res.lookup.LOOKUP3res_u.resfail.dir_attributes.attributes_follow,
			    "directory attributes with NOENT");
	if (nfsc_getattr(x, dir, &d) == NFS3_OK &&
	    expect("lookup-dot", nfsc_lookup(x, dir, ".", NULL, &a), NFS3_OK))
		expect_true("lookup-dot-same", a.fileid == d.fileid, "\".\" to be the directory");
	if (nfsc_getattr(x, root, &r) == NFS3_OK &&
	    expect("lookup-dotdot", nfsc_lookup(x, dir, "..", NULL, &a), NFS3_OK))
		expect_true("lookup-dotdot-parent", a.fileid == r.fileid,
			    "\"..\" to be the export root");
	if (expect("lookup-root-dotdot", nfsc_lookup(x, root, "..", NULL, &a), NFS3_OK))
		expect_true("lookup-root-dotdot-stays", a.fileid == r.fileid,
			    "\"..\" of the export root to be the root itself");

	if (expect("access", nfsc_access(x, &f, 0x3f, &got), NFS3_OK)) {
		uint32_t want = 0x1 | 0x4 | 0x8; /* READ MODIFY EXTEND for root on 0644 */

		if ((got & want) == want && !(got & ~0x3fu))
			check_ok("access-bits");
		else
			check_fail("access-bits", "expected READ|MODIFY|EXTEND (0x%x) got 0x%x",
				   want, got);
	}
}

static void check_io(struct nfsc *x, const struct nfsc_fh *dir)
{
	static char out[3 * 8192], in[3 * 8192 + 100];
	WRITE3resok w[3];
	struct nfsc_fh f;
	uint8_t cverf[8];
	uint32_t count = 0;
	bool eof = false;
	fattr3 a;

	if (nfsc_lookup(x, dir, "f", &f, NULL) != NFS3_OK)
		return;
	pattern(out, sizeof(out), 0, 17);
	if (!expect("write-unstable", write3(x, &f, 0, out, 8192, UNSTABLE, &w[0]), NFS3_OK) ||
	    !expect("write-datasync", write3(x, &f, 8192, out + 8192, 8192, DATA_SYNC, &w[1]),
		    NFS3_OK) ||
	    !expect("write-filesync", write3(x, &f, 16384, out + 16384, 8192, FILE_SYNC, &w[2]),
		    NFS3_OK))
		return;
	expect_true("write-count", w[0].count == 8192 && w[1].count == 8192 && w[2].count == 8192,
		    "count 8192 for each write");
	expect_true("write-committed", w[1].committed >= DATA_SYNC && w[2].committed == FILE_SYNC,
		    "DATA_SYNC >= DATA_SYNC and FILE_SYNC == FILE_SYNC");
	expect_true("write-verf-stable",
		    !memcmp(w[0].verf, w[1].verf, 8) && !memcmp(w[1].verf, w[2].verf, 8),
		    "the same write verifier within a run");
	if (expect("commit", nfsc_commit(x, &f, cverf), NFS3_OK))
		expect_true("commit-verf", !memcmp(cverf, w[0].verf, 8),
			    "COMMIT's verifier equal to WRITE's");
	if (nfsc_getattr(x, &f, &a) == NFS3_OK)
		expect_true("write-size", a.size == sizeof(out), "size 24576 after the writes");

	if (expect("read", nfsc_read(x, &f, 0, sizeof(out), in, &count, &eof), NFS3_OK))
		expect_true("read-data", count == sizeof(out) && !memcmp(in, out, sizeof(out)),
			    "the 24576 bytes written");
	if (expect("read-across-eof", nfsc_read(x, &f, 24000, 4096, in, &count, &eof), NFS3_OK)) {
		if (count == 576 && eof && !memcmp(in, out + 24000, 576))
			check_ok("read-across-eof-result");
		else
			check_fail("read-across-eof-result",
				   "expected count 576 eof 1 got count %u eof %d", count, eof);
	}
	if (expect("read-past-eof", nfsc_read(x, &f, 100000, 10, in, &count, &eof), NFS3_OK)) {
		if (count == 0 && eof)
			check_ok("read-past-eof-result");
		else
			check_fail("read-past-eof-result",
				   "expected count 0 eof 1 got count %u eof %d", count, eof);
	}
}

static void check_special(struct nfsc *x, const struct nfsc_fh *dir)
{
	struct nfsc_call c;
	struct nfsc_fh sl, f, ln;
	char text[256];
	fattr3 a, b;

	if (expect("symlink", nfsc_symlink(x, dir, "sl", "some/target text", NULL), NFS3_OK) &&
	    expect("symlink-lookup", nfsc_lookup(x, dir, "sl", &sl, &a), NFS3_OK)) {
		expect_true("symlink-type", a.type == NF3LNK, "type NF3LNK");
		if (expect("readlink", nfsc_readlink(x, &sl, text, sizeof(text)), NFS3_OK)) {
			if (strcmp(text, "some/target text") == 0)
				check_ok("readlink-text");
			else
				check_fail("readlink-text",
					   "expected \"some/target text\" got \"%s\"", text);
		}
	}

	MKNOD3args ma;
	memset(&ma, 0, sizeof(ma));
	ma.where.dir = nfsc_fh3(dir);
	ma.where.name = "fifo";
	ma.what.type = NF3FIFO;
	ma.what.mknoddata3_u.pipe_attributes = nfsc_sattr_mode(0644);
	nfsc_call_init(&c, sizeof(MKNOD3res), nfsc_hook_newobj);
	if (NFSC_RUN(x, &c, rpc_nfs3_mknod_async(x->rpc, nfsc_call_cb, &ma, &c)))
		check_fail("mknod-fifo", "expected a reply got %s", x->err);
	else if (expect("mknod-fifo", (int)c.res.mknod.status, NFS3_OK) &&
		 nfsc_lookup(x, dir, "fifo", NULL, &a) == NFS3_OK)
		expect_true("mknod-fifo-type", a.type == NF3FIFO, "type NF3FIFO");
	ma.where.name = "reg";
	ma.what.type = NF3REG;
	nfsc_call_init(&c, sizeof(MKNOD3res), NULL);
	if (NFSC_RUN(x, &c, rpc_nfs3_mknod_async(x->rpc, nfsc_call_cb, &ma, &c)))
		check_fail("mknod-reg", "expected NFS3ERR_BADTYPE got %s", x->err);
	else
		expect("mknod-reg", (int)c.res.mknod.status, NFS3ERR_BADTYPE);

	if (nfsc_lookup(x, dir, "f", &f, &a) != NFS3_OK)
		return;
	if (expect("link", nfsc_link(x, &f, dir, "f.link"), NFS3_OK) &&
	    expect("link-lookup", nfsc_lookup(x, dir, "f.link", &ln, &b), NFS3_OK))
		expect_true("link-same", b.fileid == a.fileid && b.nlink == 2,
			    "the same fileid with nlink 2");
}

static void check_namespace(struct nfsc *x, const struct nfsc_fh *dir)
{
	struct nfsc_fh d2, xf;
	fattr3 a, b;
	char longname[300];

	expect("rename-within", nfsc_rename(x, dir, "f.link", dir, "g"), NFS3_OK);
	expect("rename-within-old-gone", nfsc_lookup(x, dir, "f.link", NULL, NULL), NFS3ERR_NOENT);
	expect("rename-within-new", nfsc_lookup(x, dir, "g", NULL, NULL), NFS3_OK);
	if (expect("mkdir", nfsc_mkdir(x, dir, "d2", 0755, &d2), NFS3_OK)) {
		if (nfsc_getattr(x, &d2, &a) == NFS3_OK)
			expect_true("mkdir-type", a.type == NF3DIR, "type NF3DIR");
		expect("mkdir-exists", nfsc_mkdir(x, dir, "d2", 0755, NULL), NFS3ERR_EXIST);
		expect("rename-across", nfsc_rename(x, dir, "g", &d2, "g"), NFS3_OK);
		expect("rename-across-new", nfsc_lookup(x, &d2, "g", NULL, NULL), NFS3_OK);
		expect("rename-across-old-gone", nfsc_lookup(x, dir, "g", NULL, NULL),
		       NFS3ERR_NOENT);
	}
	if (nfsc_create(x, dir, "h", UNCHECKED, 0644, NULL, NULL) == NFS3_OK &&
	    nfsc_lookup(x, dir, "x", &xf, &a) == NFS3_OK &&
	    expect("rename-over", nfsc_rename(x, dir, "x", dir, "h"), NFS3_OK) &&
	    nfsc_lookup(x, dir, "h", NULL, &b) == NFS3_OK)
		expect_true("rename-over-replaced", a.fileid == b.fileid,
			    "the target to be the renamed file");

	expect("remove-missing", nfsc_remove(x, dir, "no-such-name"), NFS3ERR_NOENT);
	expect("rmdir-notempty", nfsc_rmdir(x, dir, "d2"), NFS3ERR_NOTEMPTY);
	expect("remove", nfsc_remove(x, &d2, "g"), NFS3_OK);
	expect("remove-gone", nfsc_lookup(x, &d2, "g", NULL, NULL), NFS3ERR_NOENT);
	expect("rmdir", nfsc_rmdir(x, dir, "d2"), NFS3_OK);

	memset(longname, 'n', 256);
	longname[256] = 0;
	expect("create-nametoolong", nfsc_create(x, dir, longname, UNCHECKED, 0644, NULL, NULL),
	       NFS3ERR_NAMETOOLONG);
	expect("lookup-nametoolong", nfsc_lookup(x, dir, longname, NULL, NULL),
	       NFS3ERR_NAMETOOLONG);
	expect("mkdir-nametoolong", nfsc_mkdir(x, dir, longname, 0755, NULL), NFS3ERR_NAMETOOLONG);
	longname[255] = 0;
	if (expect("create-name255", nfsc_create(x, dir, longname, UNCHECKED, 0644, NULL, NULL),
		   NFS3_OK))
		nfsc_remove(x, dir, longname);
}

/* ---- READDIR / READDIRPLUS over a big directory ---- */

struct listing {
	unsigned char *seen; /* per name e<N>, N < n */
	int n;
	int dups, strays, entries, missing_attrs, fresh;
	char stray[64];
	/* The last e<N> name of the last page; empty if it had none (on XFS, which puts
	 * new names at the end, the last pages may hold only names made while listing). */
	char last_name[32];
	uint64_t last_cookie;
	char verf[NFS3_COOKIEVERFSIZE];
	bool eof;
	int count; /* entries in the last page */
};

static void note_name(struct listing *l, const char *name)
{
	int i;

	l->entries++;
	l->count++;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return;
	if (name[0] == 'n') {
		l->fresh++; /* created during the listing: may or may not be listed */
		return;
	}
	if (sscanf(name, "e%d", &i) != 1 || i < 0 || i >= l->n) {
		l->strays++;
		snprintf(l->stray, sizeof(l->stray), "%s", name);
		return;
	}
	snprintf(l->last_name, sizeof(l->last_name), "%s", name);
	if (l->seen[i]++)
		l->dups++;
}

/* A page's reply has come: what the listing says of the last page starts again. */
static void page_start(struct listing *l)
{
	l->count = 0;
	l->last_name[0] = '\0';
}

static void hook_readdir(struct nfsc_call *c, void *data)
{
	READDIR3res *r = data;
	struct listing *l = c->arg;

	page_start(l);
	if (r->status != NFS3_OK)
		return;
	memcpy(l->verf, r->READDIR3res_u.resok.cookieverf, NFS3_COOKIEVERFSIZE);
	for (entry3 *p = r->READDIR3res_u.resok.reply.entries; p;) {
		entry3 e; /* copied: libnfs list nodes may be misaligned, see hook_export */

		memcpy(&e, p, sizeof(e));
		note_name(l, e.name);
		l->last_cookie = e.cookie;
		p = e.nextentry;
	}
	l->eof = r->READDIR3res_u.resok.reply.eof;
}

static void hook_readdirplus(struct nfsc_call *c, void *data)
{
	READDIRPLUS3res *r = data;
	struct listing *l = c->arg;

	page_start(l);
	if (r->status != NFS3_OK)
		return;
	memcpy(l->verf, r->READDIRPLUS3res_u.resok.cookieverf, NFS3_COOKIEVERFSIZE);
	for (entryplus3 *p = r->READDIRPLUS3res_u.resok.reply.entries; p;) {
		entryplus3 e; /* copied: libnfs list nodes may be misaligned */

		memcpy(&e, p, sizeof(e));
		note_name(l, e.name);
		l->last_cookie = e.cookie;
		if (strcmp(e.name, ".") && strcmp(e.name, "..") &&
		    (!e.name_attributes.attributes_follow || !e.name_handle.handle_follows ||
		     e.name_attributes.post_op_attr_u.attributes.fileid != e.fileid))
			l->missing_attrs++;
		p = e.nextentry;
	}
	l->eof = r->READDIRPLUS3res_u.resok.reply.eof;
}

/* One page; returns the status. */
static int readdir_page(struct nfsc *x, const struct nfsc_fh *dir, bool plus, uint64_t cookie,
			const char *verf, struct listing *l)
{
	struct nfsc_call c;
	int rc;

	if (plus) {
		READDIRPLUS3args a = {
			.dir = nfsc_fh3(dir), .cookie = cookie, .dircount = 512, .maxcount = 4096};
		memcpy(a.cookieverf, verf, NFS3_COOKIEVERFSIZE);
		nfsc_call_init(&c, sizeof(READDIRPLUS3res), hook_readdirplus);
		c.arg = l;
		rc = NFSC_RUN(x, &c, rpc_nfs3_readdirplus_async(x->rpc, nfsc_call_cb, &a, &c));
	} else {
		READDIR3args a = {.dir = nfsc_fh3(dir), .cookie = cookie, .count = 1024};
		memcpy(a.cookieverf, verf, NFS3_COOKIEVERFSIZE);
		nfsc_call_init(&c, sizeof(READDIR3res), hook_readdir);
		c.arg = l;
		rc = NFSC_RUN(x, &c, rpc_nfs3_readdir_async(x->rpc, nfsc_call_cb, &a, &c));
	}
	if (rc) {
		check_fail(plus ? "readdirplus-page" : "readdir-page", "expected a reply got %s",
			   x->err);
		return -1;
	}
	return (int)(plus ? c.res.readdirplus.status : c.res.readdir.status);
}

/*
 * List @dir, whose names are e<0..n-1>, page by page with READDIR or READDIRPLUS.
 * With @gone (n flags: names removed by an earlier listing, not expected any more),
 * between every two pages one new name is created and one name already listed is
 * removed (and flagged in @gone): the cookies and the verifier must stay valid while
 * the directory changes, so every e<N> still there must be seen exactly once.
 */
static void list_dir(struct nfsc *x, const struct nfsc_fh *dir, bool plus, int n,
		     unsigned char *gone)
{
	bool mutate = gone != NULL;
	const char *name = plus ? "readdirplus" : "readdir";
	char label[64], verf[NFS3_COOKIEVERFSIZE] = {0}, fresh[32];
	struct listing *l = calloc(1, sizeof(*l));
	uint64_t cookie = 0, mid_cookie = 0;
	int pages = 0, st = NFS3_OK, missing = 0, max_pages = n / 4 + 100, idx;
	unsigned char *was_gone = gone ? malloc((size_t)n) : NULL;

	l->n = n;
	l->seen = calloc((size_t)n, 1);
	if (!l->seen || (gone && !was_gone))
		nfsc_die("out of memory");
	if (gone)
		memcpy(was_gone, gone, (size_t)n);
	while (!l->eof && pages < max_pages) {
		st = readdir_page(x, dir, plus, cookie, verf, l);
		if (st != NFS3_OK)
			break;
		pages++;
		if (l->count == 0 && !l->eof) {
			check_fail(name, "expected entries or eof got an empty page");
			st = -2;
			break;
		}
		if (pages == 1)
			memcpy(verf, l->verf, sizeof(verf));
		else if (pages == 3)
			mid_cookie = l->last_cookie;
		else if (memcmp(verf, l->verf, sizeof(verf)) != 0) {
			check_fail(name, "expected the same cookie verifier on page %d", pages);
			st = -2;
			break;
		}
		cookie = l->last_cookie;
		if (mutate && !l->eof) {
			snprintf(fresh, sizeof(fresh), "n%s%d", plus ? "p" : "", pages);
			if (nfsc_create(x, dir, fresh, UNCHECKED, 0644, NULL, NULL) != NFS3_OK ||
			    (l->last_name[0] && nfsc_remove(x, dir, l->last_name) != NFS3_OK)) {
				check_fail(name,
					   "expected to create %s and remove %s between pages",
					   fresh, l->last_name);
				st = -2;
				break;
			}
			if (l->last_name[0] && sscanf(l->last_name, "e%d", &idx) == 1)
				gone[idx] = 1;
		}
	}
	snprintf(label, sizeof(label), "%s-pages", name);
	if (st != -2 && expect(label, st, NFS3_OK)) {
		for (int i = 0; i < n; i++)
			missing += !l->seen[i] && !(was_gone && was_gone[i]);
		snprintf(label, sizeof(label), "%s-every-name-once", name);
		if (!missing && !l->dups && !l->strays && pages > 2)
			printf("ok %s: %d names in %d pages%s\n", label, n, pages,
			       mutate ? ", the directory changing between pages" : "");
		else
			check_fail(
				label,
				"expected %d names each once in several pages got %d missing, %d "
				"duplicates, %d strays (%s) in %d pages",
				n, missing, l->dups, l->strays, l->stray, pages);
	}
	if (plus) {
		snprintf(label, sizeof(label), "%s-attrs-handles", name);
		if (!l->missing_attrs)
			check_ok(label);
		else
			check_fail(label,
				   "expected attributes and a handle per entry got %d without",
				   l->missing_attrs);
	}
	if (mid_cookie) {
		verf[0] ^= 0x5a;
		verf[7] ^= 0xa5;
		snprintf(label, sizeof(label), "%s-bad-cookieverf", name);
		expect(label, readdir_page(x, dir, plus, mid_cookie, verf, l), NFS3ERR_BAD_COOKIE);
	}
	free(was_gone);
	free(l->seen);
	free(l);
}

/* Create (or remove) e0000..e1999 with up to MAX_INFLIGHT calls in flight. */
static int populate(struct nfsc *x, const struct nfsc_fh *dir, bool remove)
{
	static struct nfsc_call calls[MAX_INFLIGHT];
	static char names[MAX_INFLIGHT][16];
	int bad = 0;

	for (int base = 0; base < BIG_ENTRIES; base += MAX_INFLIGHT) {
		struct nfsc_call *cs[MAX_INFLIGHT];
		int n = BIG_ENTRIES - base < MAX_INFLIGHT ? BIG_ENTRIES - base : MAX_INFLIGHT;

		if (nfsc_broken(x)) /* its context is gone: nothing to send on */
			return -1;

		for (int i = 0; i < n; i++) {
			int rc;

			snprintf(names[i], sizeof(names[i]), "e%04d", base + i);
			cs[i] = &calls[i];
			if (remove) {
				REMOVE3args a = {
					.object = {.dir = nfsc_fh3(dir), .name = names[i]}};
				nfsc_call_init(cs[i], sizeof(REMOVE3res), NULL);
				rc = rpc_nfs3_remove_async(x->rpc, nfsc_call_cb, &a, cs[i]);
			} else {
				CREATE3args a;
				memset(&a, 0, sizeof(a));
				a.where.dir = nfsc_fh3(dir);
				a.where.name = names[i];
				a.how.mode = GUARDED;
				nfsc_call_init(cs[i], sizeof(CREATE3res), NULL);
				rc = rpc_nfs3_create_async(x->rpc, nfsc_call_cb, &a, cs[i]);
			}
			if (rc)
				nfsc_die("could not send: %s", rpc_get_error(x->rpc));
		}
		if (nfsc_wait(x, cs, (size_t)n))
			return -1;
		for (int i = 0; i < n; i++)
			bad += (remove ? cs[i]->res.remove.status : cs[i]->res.create.status) !=
			       NFS3_OK;
	}
	return bad;
}

static void check_readdir(struct nfsc *x, const struct nfsc_fh *dir)
{
	struct nfsc_fh big;

	if (!expect("mkdir-big", nfsc_mkdir(x, dir, "big", 0755, &big), NFS3_OK))
		return;
	if (populate(x, &big, false)) {
		check_fail("create-2000", "expected %d GUARDED creates to succeed", BIG_ENTRIES);
		return;
	}
	check_ok("create-2000");
	list_dir(x, &big, false, BIG_ENTRIES, NULL);
	list_dir(x, &big, true, BIG_ENTRIES, NULL);
	expect_true("remove-2000", populate(x, &big, true) == 0, "every REMOVE to succeed");
	expect("rmdir-big", nfsc_rmdir(x, dir, "big"), NFS3_OK);
}

/* ---- file-system information ---- */

static void check_fsinfo(struct nfsc *x, const struct nfsc_fh *root)
{
	struct nfsc_call c;

	FSSTAT3args sa = {.fsroot = nfsc_fh3(root)};
	nfsc_call_init(&c, sizeof(FSSTAT3res), NULL);
	if (NFSC_RUN(x, &c, rpc_nfs3_fsstat_async(x->rpc, nfsc_call_cb, &sa, &c)))
		check_fail("fsstat", "expected a reply got %s", x->err);
	else if (expect("fsstat", (int)c.res.fsstat.status, NFS3_OK)) {
		FSSTAT3resok *r = &c.res.fsstat.FSSTAT3res_u.resok;

		if (r->tbytes > 0 && r->fbytes <= r->tbytes && r->abytes <= r->fbytes &&
		    r->ffiles <= r->tfiles && r->afiles <= r->ffiles)
			check_ok("fsstat-fields");
		else
			check_fail("fsstat-fields",
				   "expected 0 < tbytes >= fbytes >= abytes, tfiles >= ffiles >= "
				   "afiles "
				   "got %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
				   " %" PRIu64,
				   (uint64_t)r->tbytes, (uint64_t)r->fbytes, (uint64_t)r->abytes,
				   (uint64_t)r->tfiles, (uint64_t)r->ffiles, (uint64_t)r->afiles);
	}

	FSINFO3args ia = {.fsroot = nfsc_fh3(root)};
	nfsc_call_init(&c, sizeof(FSINFO3res), NULL);
	if (NFSC_RUN(x, &c, rpc_nfs3_fsinfo_async(x->rpc, nfsc_call_cb, &ia, &c)))
		check_fail("fsinfo", "expected a reply got %s", x->err);
	else if (expect("fsinfo", (int)c.res.fsinfo.status, NFS3_OK)) {
		FSINFO3resok *r = &c.res.fsinfo.FSINFO3res_u.resok;

		if (r->rtmax >= 8192 && r->wtmax >= 8192 && r->rtpref && r->rtpref <= r->rtmax &&
		    r->wtpref && r->wtpref <= r->wtmax && r->dtpref && r->maxfilesize > 0 &&
		    (r->properties & (FSF3_LINK | FSF3_SYMLINK)) == (FSF3_LINK | FSF3_SYMLINK))
			check_ok("fsinfo-fields");
		else
			check_fail(
				"fsinfo-fields",
				"expected rtmax/wtmax >= 8192, prefs within max, dtpref, "
				"maxfilesize, "
				"LINK|SYMLINK got rtmax %u rtpref %u wtmax %u wtpref %u dtpref %u "
				"props 0x%x",
				r->rtmax, r->rtpref, r->wtmax, r->wtpref, r->dtpref, r->properties);
	}

	PATHCONF3args pa = {.object = nfsc_fh3(root)};
	nfsc_call_init(&c, sizeof(PATHCONF3res), NULL);
	if (NFSC_RUN(x, &c, rpc_nfs3_pathconf_async(x->rpc, nfsc_call_cb, &pa, &c)))
		check_fail("pathconf", "expected a reply got %s", x->err);
	else if (expect("pathconf", (int)c.res.pathconf.status, NFS3_OK)) {
		PATHCONF3resok *r = &c.res.pathconf.PATHCONF3res_u.resok;

		if (r->name_max == 255 && r->no_trunc && r->linkmax >= 1)
			check_ok("pathconf-fields");
		else
			check_fail("pathconf-fields",
				   "expected name_max 255, no_trunc, linkmax >= 1 got %u %u %u",
				   r->name_max, r->no_trunc, r->linkmax);
	}
}

/* ---- bad handles ---- */

/* @host: where to connect again if the empty handle drew an RPC error. */
static void check_bad_handles(struct nfsc *x, const char *host, const struct nfsc_fh *root,
			      const struct nfsc_fh *dir)
{
	struct nfsc_fh bad, f;
	int st;

	for (uint32_t i = 0; i<root->len; i += root->len> 8 ? root->len / 4 : 1) {
		char name[48];

		bad = *root;
		bad.data[i] ^= 0x01;
		snprintf(name, sizeof(name), "flipped-byte-%u", i);
		expect(name, nfsc_getattr(x, &bad, NULL), NFS3ERR_BADHANDLE);
	}
	bad = *root;
	bad.data[root->len - 1] ^= 0x80;
	expect("flipped-last-byte", nfsc_getattr(x, &bad, NULL), NFS3ERR_BADHANDLE);

	bad.len = 0;
	st = nfsc_getattr(x, &bad, NULL);
	if (st == -1 || st == NFS3ERR_BADHANDLE)
		check_ok("empty-handle");
	else
		check_fail("empty-handle", "expected an RPC error or NFS3ERR_BADHANDLE got %s",
			   nfsc_stname(st));
	if (nfsc_broken(x)) { /* nfsc gives up a connection after an RPC error: a new one */
		nfsc_close(x);
		nfsc_connect_env(x, host, false);
	}

	if (nfsc_create(x, dir, "stale", UNCHECKED, 0644, &f, NULL) == NFS3_OK &&
	    expect("stale-remove", nfsc_remove(x, dir, "stale"), NFS3_OK))
		expect("stale-handle", nfsc_getattr(x, &f, NULL), NFS3ERR_STALE);
}

static void cleanup_dir(struct nfsc *x, const struct nfsc_fh *root, const char *name,
			const struct nfsc_fh *dir)
{
	static const char *const names[] = {"f", "x", "h", "sl", "fifo", "g", "f.link"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		nfsc_remove(x, dir, names[i]);
	expect("rmdir-workdir", nfsc_rmdir(x, root, name), NFS3_OK);
}

static int cmd_procs(const char *host, const char *path)
{
	struct nfsc x = {0};
	struct nfsc_fh root, dir;
	fattr3 a;
	struct nfsc_call c;
	char name[64];

	check_mount_procs(host, path, &root);
	nfsc_connect_env(&x, host, false);
	nfsc_call_init(&c, 0, NULL);
	expect_true("null", NFSC_RUN(&x, &c, rpc_nfs3_null_async(x.rpc, nfsc_call_cb, &c)) == 0,
		    "a reply to NFS NULL");
	if (expect("getattr-root", nfsc_getattr(&x, &root, &a), NFS3_OK))
		expect_true("getattr-root-type", a.type == NF3DIR, "the root to be NF3DIR");

	snprintf(name, sizeof(name), "procs.%d", (int)getpid());
	if (!expect("mkdir-workdir", nfsc_mkdir(&x, &root, name, 0755, &dir), NFS3_OK))
		nfsc_die("cannot continue without a work directory");
	check_create_setattr(&x, &dir);
	check_lookup_access(&x, &root, &dir);
	check_io(&x, &dir);
	check_special(&x, &dir);
	check_namespace(&x, &dir);
	check_readdir(&x, &dir);
	check_fsinfo(&x, &root);
	check_bad_handles(&x, host, &root, &dir);
	cleanup_dir(&x, &root, name, &dir);
	nfsc_close(&x);
	return check_summary();
}

/* ro HOST PATH FILE: FILE exists in the export root and is readable. */
static int cmd_ro(const char *host, const char *path, const char *file)
{
	struct nfsc x = {0};
	struct nfsc_fh root, f;
	uint32_t granted = 0;
	char buf[64];
	sattr3 s = nfsc_sattr_mode(0600);

	do_mount(host, path, &root);
	nfsc_connect_env(&x, host, false);
	expect("ro-getattr", nfsc_getattr(&x, &root, NULL), NFS3_OK);
	if (expect("ro-lookup", nfsc_lookup(&x, &root, file, &f, NULL), NFS3_OK)) {
		expect("ro-read", nfsc_read(&x, &f, 0, sizeof(buf), buf, NULL, NULL), NFS3_OK);
		expect("ro-write", write3(&x, &f, 0, "zz", 2, FILE_SYNC, NULL), NFS3ERR_ROFS);
		expect("ro-setattr", nfsc_setattr(&x, &f, &s, NULL), NFS3ERR_ROFS);
		if (expect("ro-access", nfsc_access(&x, &f, 0x3f, &granted), NFS3_OK))
			expect_true("ro-access-bits", !(granted & (0x4 | 0x8 | 0x10)),
				    "no MODIFY, EXTEND or DELETE on a read-only export");
	}
	expect("ro-create", nfsc_create(&x, &root, "new", UNCHECKED, 0644, NULL, NULL),
	       NFS3ERR_ROFS);
	expect("ro-mkdir", nfsc_mkdir(&x, &root, "newdir", 0755, NULL), NFS3ERR_ROFS);
	expect("ro-remove", nfsc_remove(&x, &root, file), NFS3ERR_ROFS);
	expect("ro-rename", nfsc_rename(&x, &root, file, &root, "renamed"), NFS3ERR_ROFS);
	expect("ro-file-kept", nfsc_lookup(&x, &root, file, NULL, NULL), NFS3_OK);
	nfsc_close(&x);
	return check_summary();
}

/*
 * bigdir HOST PATH DIR N: DIR (in the export at PATH) holds e<0..N-1>; list it with
 * READDIR and then READDIRPLUS while it changes between pages (see list_dir()).
 */
static int cmd_bigdir(const char *host, const char *path, const char *dirname, int n)
{
	struct nfsc x = {0};
	struct nfsc_fh root, dir;

	if (n <= 0) {
		fprintf(stderr, "nfs3_procs bigdir: N must be a positive number of names\n");
		return 2;
	}
	do_mount(host, path, &root);
	nfsc_connect_env(&x, host, false);
	unsigned char *gone = calloc((size_t)n, 1);

	if (!gone)
		nfsc_die("out of memory");
	if (expect("bigdir-lookup", nfsc_lookup(&x, &root, dirname, &dir, NULL), NFS3_OK)) {
		list_dir(&x, &dir, false, n, gone);
		list_dir(&x, &dir, true, n, gone);
	}
	free(gone);
	nfsc_close(&x);
	return check_summary();
}

/* ---- small commands for shell tests ---- */

static void fh_print(const char *label, const struct nfsc_fh *f)
{
	char hex[2 * NFSC_FHMAX + 1];

	nfsc_fh_hex(f, hex);
	printf("%s %s\n", label, hex);
}

static int cmd_mount(const char *host, const char *path)
{
	struct nfsc mx = {0};
	struct nfsc_fh root;
	int st;

	nfsc_connect_env(&mx, host, true);
	st = nfsc_mnt(&mx, path, &root, NULL);
	nfsc_close(&mx);
	if (st == MNT3_OK)
		fh_print("MNT3_OK", &root);
	else
		printf("%s\n", nfsc_mntname(st));
	return st < 0 ? 2 : 0;
}

/* Walk @rel from @root by LOOKUP; returns the status of the last step. */
static int walk(struct nfsc *x, const struct nfsc_fh *root, const char *rel, struct nfsc_fh *out)
{
	char *copy = strdup(rel), *save = NULL;
	int st = NFS3_OK;

	*out = *root;
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		st = nfsc_lookup(x, out, p, out, NULL);
		if (st != NFS3_OK)
			break;
	}
	free(copy);
	return st;
}

static int cmd_small(const char *cmd, const char *host, const char *path, const char *a1,
		     const char *a2)
{
	struct nfsc x = {0};
	struct nfsc_fh root = {0}, f, out;
	static char buf[65536];
	uint32_t count = 0;
	bool eof = false;
	int st;

	do_mount(host, path, &root);
	nfsc_connect_env(&x, host, false);
	if (!strcmp(cmd, "fh")) {
		st = walk(&x, &root, a1 ? a1 : "", &out);
		if (st == NFS3_OK)
			fh_print("fh", &out);
		else
			printf("%s\n", nfsc_stname(st));
		nfsc_close(&x);
		return st == NFS3_OK ? 0 : 1;
	}
	if (!a1 || !nfsc_fh_parse(a1, &f))
		nfsc_die("bad handle \"%s\"", a1 ? a1 : "");
	if (!strcmp(cmd, "getattr")) {
		fattr3 a;

		st = nfsc_getattr(&x, &f, &a);
		printf("%s\n", nfsc_stname(st));
		if (st == NFS3_OK)
			printf("type %d size %" PRIu64 " fileid %" PRIu64 "\n", a.type,
			       (uint64_t)a.size, (uint64_t)a.fileid);
	} else if (!strcmp(cmd, "read")) {
		st = nfsc_read(&x, &f, 0, sizeof(buf) - 1, buf, &count, &eof);
		printf("%s\n", nfsc_stname(st));
		if (st == NFS3_OK) {
			buf[count] = 0;
			printf("count %u eof %d\ndata %s\n", count, eof, buf);
		}
	} else if (!strcmp(cmd, "readlink")) {
		st = nfsc_readlink(&x, &f, buf, sizeof(buf));
		printf("%s\n", nfsc_stname(st));
		if (st == NFS3_OK)
			printf("text %s\n", buf);
	} else if (!strcmp(cmd, "lookup") && a2) {
		fattr3 a;

		st = nfsc_lookup(&x, &f, a2, &out, &a);
		printf("%s\n", nfsc_stname(st));
		if (st == NFS3_OK) {
			fh_print("fh", &out);
			printf("type %d fileid %" PRIu64 "\n", a.type, (uint64_t)a.fileid);
		}
	} else {
		nfsc_die("unknown command %s", cmd);
	}
	nfsc_close(&x);
	return st < 0 ? 2 : 0;
}

/* write-stable: N stable blocks (FILE_SYNC and DATA_SYNC alternately), then M unstable
 * blocks and a COMMIT. Only what a stable reply or the COMMIT covered counts as acked. */
static int cmd_write_stable(const char *host, const char *path, const char *file, int n, int m)
{
	struct nfsc x = {0};
	struct nfsc_fh root, f;
	char block[BLOCK];
	uint8_t verf[8], first[8];
	WRITE3resok w;
	int acked = 0, st;

	do_mount(host, path, &root);
	nfsc_connect_env(&x, host, false);
	st = nfsc_create(&x, &root, file, UNCHECKED, 0644, &f, NULL);
	if (st != NFS3_OK)
		nfsc_die("CREATE %s: expected NFS3_OK got %s", file, nfsc_stname(st));
	for (int i = 0; i < n + m; i++) {
		stable_how how = i >= n ? UNSTABLE : i % 2 ? DATA_SYNC : FILE_SYNC;

		pattern(block, sizeof(block), (uint64_t)i, 99);
		st = write3(&x, &f, (uint64_t)i * BLOCK, block, BLOCK, how, &w);
		if (st != NFS3_OK || w.count != BLOCK)
			nfsc_die("WRITE block %d: expected NFS3_OK count %d got %s count %u", i,
				 BLOCK, nfsc_stname(st), st == NFS3_OK ? w.count : 0);
		if (how != UNSTABLE && w.committed < how)
			nfsc_die("WRITE block %d: expected committed >= %d got %d", i, how,
				 w.committed);
		if (i == 0)
			memcpy(first, w.verf, 8);
		else if (memcmp(first, w.verf, 8))
			nfsc_die("WRITE block %d: the write verifier changed within a run", i);
		if (how != UNSTABLE)
			acked++;
	}
	if (m > 0) {
		st = nfsc_commit(&x, &f, verf);
		if (st != NFS3_OK)
			nfsc_die("COMMIT: expected NFS3_OK got %s", nfsc_stname(st));
		if (memcmp(first, verf, 8))
			nfsc_die("COMMIT: verifier differs from the writes'");
		acked += m;
	}
	nfsc_close(&x);
	printf("acked %d\nverf ", acked);
	for (int i = 0; i < 8; i++)
		printf("%02x", first[i]);
	printf("\n");
	return 0;
}

static int cmd_verify(const char *host, const char *path, const char *file, int k)
{
	struct nfsc x = {0};
	struct nfsc_fh root, f;
	char want[BLOCK], got[BLOCK];
	uint32_t count;
	int bad = 0, st;

	do_mount(host, path, &root);
	nfsc_connect_env(&x, host, false);
	st = nfsc_lookup(&x, &root, file, &f, NULL);
	if (st != NFS3_OK)
		nfsc_die("LOOKUP %s: expected NFS3_OK got %s", file, nfsc_stname(st));
	for (int i = 0; i < k; i++) {
		pattern(want, sizeof(want), (uint64_t)i, 99);
		count = 0;
		st = nfsc_read(&x, &f, (uint64_t)i * BLOCK, BLOCK, got, &count, NULL);
		if (st != NFS3_OK || count != BLOCK || memcmp(want, got, BLOCK)) {
			if (bad++ < 5)
				check_fail("verify-block",
					   "expected block %d (%d bytes of pattern) got %s count "
					   "%u %s",
					   i, BLOCK, nfsc_stname(st), count,
					   st == NFS3_OK && count == BLOCK ? "wrong bytes" : "");
		}
	}
	nfsc_close(&x);
	if (!bad)
		printf("ok verify %d blocks\n", k);
	return bad ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: nfs3_procs procs|ro|mount|fh|getattr|read|readlink|lookup|"
			"write-stable|verify|bigdir HOST PATH [ARGS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *cmd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		usage();
	cmd = argv[1];
	if (!strcmp(cmd, "procs"))
		return cmd_procs(argv[2], argv[3]);
	if (!strcmp(cmd, "ro") && argc == 5)
		return cmd_ro(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "mount"))
		return cmd_mount(argv[2], argv[3]);
	if (!strcmp(cmd, "write-stable") && argc == 7)
		return cmd_write_stable(argv[2], argv[3], argv[4], atoi(argv[5]), atoi(argv[6]));
	if (!strcmp(cmd, "bigdir") && argc == 6)
		return cmd_bigdir(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (!strcmp(cmd, "verify") && argc == 6)
		return cmd_verify(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (!strcmp(cmd, "fh") || !strcmp(cmd, "getattr") || !strcmp(cmd, "read") ||
	    !strcmp(cmd, "readlink") || !strcmp(cmd, "lookup"))
		return cmd_small(cmd, argv[2], argv[3], argc > 4 ? argv[4] : NULL,
				 argc > 5 ? argv[5] : NULL);
	usage();
}
