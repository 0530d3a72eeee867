/*
 * test_vfs_readdir.c - unit tests for src/vfs/vfs_readdir.c: paging through a large
 * directory that changes between pages, cookie verifiers, READDIRPLUS attributes, and
 * READDIRPLUS handles taken from the node cache's inode index (never across a mount),
 * and that index's mark.
 */
#include <fcntl.h>
#include <sys/mount.h>

#include "unit/vfs/vfs_fixture.h"
#include "vfs/vfs_internal.h"

#define NSTABLE	    1200
#define PAGE	    37
#define REUSE_FILES 8

struct page {
	unsigned want, got;
	uint64_t last_cookie;
	unsigned seen[NSTABLE]; /* times each stable entry was listed */
	unsigned dots;
	unsigned plus_ok;
	bool plus;
};

static bool take(void *arg, const struct vfs_dirent *ent)
{
	struct page *p = arg;
	unsigned i;

	if (p->got == p->want)
		return false;
	p->got++;
	p->last_cookie = ent->cookie;
	if (strcmp(ent->name, ".") == 0 || strcmp(ent->name, "..") == 0)
		p->dots++;
	else if (sscanf(ent->name, "s%u", &i) == 1 && i < NSTABLE)
		p->seen[i]++;
	if (p->plus && ent->have_plus && ent->attr.fileid == ent->fileid && ent->fh.len > 0)
		p->plus_ok++;
	return true;
}

static void touch(struct fx *f, char prefix, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "%c%u", prefix, i);
	fx_create(f, &fx_root_ctx, name);
}

static void test_paged_while_changing(void)
{
	static struct page p;
	uint8_t verf[8] = {0}, out[8], first[8];
	struct vfs_attr da;
	struct vfs_wcc wcc;
	uint64_t cookie = 0;
	char name[32];
	unsigned pages = 0, churn = 0;
	bool eof = false;
	struct fx f;

	fx_setup(&f);
	for (unsigned i = 0; i < NSTABLE; i++)
		touch(&f, 's', i);
	for (unsigned i = 0; i < 200; i++)
		touch(&f, 't', i);
	memset(&p, 0, sizeof(p));
	while (!eof && pages < 1000) {
		p.want = p.got + PAGE;
		CHECK_EQ(vfs_readdir(&fx_root_ctx, f.root, cookie, verf, false, take, &p, out, &eof,
				     &da),
			 0);
		if (pages == 0)
			memcpy(first, out, 8);
		CHECK_MEM(out, first, 8);
		memcpy(verf, out, 8);
		cookie = p.last_cookie;
		pages++;
		/* Between pages, entries come and go. */
		snprintf(name, sizeof(name), "t%u", churn);
		CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, name, &wcc), 0);
		touch(&f, 'n', churn++);
	}
	CHECK(eof);
	CHECK(pages > NSTABLE / PAGE);
	CHECK_EQ(p.dots, 2);
	for (unsigned i = 0; i < NSTABLE; i++)
		if (p.seen[i] != 1) {
			fprintf(stderr, "entry s%u seen %u times\n", i, p.seen[i]);
			CHECK_EQ(p.seen[i], 1);
			break;
		}
	fx_teardown(&f);
}

static void test_verifier_and_plus(void)
{
	static struct page p;
	uint8_t verf[8], bad[8], out[8];
	struct vfs_attr da;
	bool eof;
	struct fx f;

	fx_setup(&f);
	for (unsigned i = 0; i < 10; i++)
		touch(&f, 's', i);
	memset(&p, 0, sizeof(p));
	p.want = 1000;
	p.plus = true;
	CHECK_EQ(vfs_readdir(&fx_root_ctx, f.root, 0, NULL, true, take, &p, verf, &eof, &da), 0);
	CHECK(eof);
	CHECK_EQ(p.got, 12);
	CHECK_EQ(p.plus_ok, 12);
	memcpy(bad, verf, 8);
	bad[0] ^= 1;
	CHECK_EQ(vfs_readdir(&fx_root_ctx, f.root, p.last_cookie, bad, false, take, &p, out, &eof,
			     &da),
		 -VFS_EBADCOOKIE);
	/* The verifier survives a restart: it is derived from the directory's handle. */
	fx_close(&f);
	fx_open(&f);
	p.want = p.got = 0;
	CHECK_EQ(vfs_readdir(&fx_root_ctx, f.root, 0, verf, false, take, &p, out, &eof, &da), 0);
	CHECK_MEM(out, verf, 8);
	CHECK_EQ(vfs_readdir(&fx_user_ctx, f.root, 0, NULL, false, take, &p, out, &eof, &da), 0);
	fx_teardown(&f);
}

/* The handle READDIRPLUS gives for @name in the root ({0} if none). */
struct plus_find {
	const char *name;
	struct vfs_fh fh;
	uint64_t fileid;
};

static bool find_plus(void *arg, const struct vfs_dirent *ent)
{
	struct plus_find *pf = arg;

	if (strcmp(ent->name, pf->name) == 0 && ent->have_plus) {
		pf->fh = ent->fh;
		pf->fileid = ent->attr.fileid;
	}
	return true;
}

static struct plus_find plus_of(struct fx *f, const char *name)
{
	struct plus_find pf = {.name = name};
	uint8_t verf[8];
	struct vfs_attr da;
	bool eof;

	CHECK_EQ(vfs_readdir(&fx_root_ctx, f->root, 0, NULL, true, find_plus, &pf, verf, &eof, &da),
		 0);
	CHECK(eof);
	return pf;
}

static bool same_fh(const struct vfs_fh *a, const struct vfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* The handle LOOKUP gives for @name in the root. */
static struct vfs_fh lookup_of(struct fx *f, const char *name)
{
	struct vfs_fh fh = {0};
	struct vfs_attr a, da;
	bool da_ok;

	CHECK_EQ(vfs_lookup(&fx_root_ctx, f->root, name, false, &fh, &a, &da, &da_ok), 0);
	return fh;
}

/* Make regular file @name in the export's root without the server (after unlinking
 * the one there, with @replace). */
static void make_behind(struct fx *f, const char *name, bool replace)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->exp, name);
	if (replace)
		CHECK_EQ(unlink(path), 0);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
}

/*
 * READDIRPLUS takes an entry's handle from the node cache's inode index when the object
 * is cached: it must be that object's handle, also after the name was removed and made
 * again (a new inode, often with the old number) through the server or behind its back.
 */
static void test_plus_handles_from_cache(void)
{
	struct vfs_fh old, now;
	struct plus_find pf;
	struct vfs_wcc wcc;
	struct fx f;

	fx_setup(&f);
	old = fx_create(&f, &fx_root_ctx, "a");
	pf = plus_of(&f, "a");
	CHECK(same_fh(&pf.fh, &old));
	/* Removed and created again through the server: the new file's handle. */
	CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, "a", &wcc), 0);
	now = fx_create(&f, &fx_root_ctx, "a");
	CHECK(!same_fh(&now, &old));
	pf = plus_of(&f, "a");
	CHECK(same_fh(&pf.fh, &now));
	/* Files made after a removal take its inode number (ext4 gives out the lowest free
	 * one). Made behind the server's back, so that no node of theirs is cached, each
	 * must be listed with the handle LOOKUP then gives, never the removed file's. */
	CHECK_EQ(vfs_remove(&fx_root_ctx, f.root, "a", &wcc), 0);
	for (unsigned i = 0; i < REUSE_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "b%u", i);
		make_behind(&f, name, false);
		pf = plus_of(&f, name);
		now = lookup_of(&f, name);
		CHECK(same_fh(&pf.fh, &now));
	}
	/* Behind the server's back, its node still cached: not the cached node's handle. */
	old = fx_create(&f, &fx_root_ctx, "a");
	make_behind(&f, "a", true);
	pf = plus_of(&f, "a");
	now = lookup_of(&f, "a");
	CHECK(!same_fh(&now, &old));
	CHECK(same_fh(&pf.fh, &now));
	/* ...and once LOOKUP cached the new one, from the index: still the same handle. */
	pf = plus_of(&f, "a");
	CHECK(same_fh(&pf.fh, &now));
	fx_teardown(&f);
}

/* The inode index answers for nodes cached before the mark, on the export's device. */
static void test_ino_index_mark(void)
{
	uint64_t before, after;
	struct vfs_fh fh, got;
	char path[160];
	struct stat st;
	struct fx f;

	fx_setup(&f);
	before = vfs_cache_ino_mark(f.ve);
	fh = fx_create(&f, &fx_root_ctx, "c");
	after = vfs_cache_ino_mark(f.ve);
	CHECK(after > before);
	snprintf(path, sizeof(path), "%s/c", f.exp);
	CHECK_EQ(stat(path, &st), 0);
	CHECK(vfs_cache_fh_by_ino(f.ve, st.st_dev, st.st_ino, after, &got));
	CHECK(same_fh(&got, &fh));
	/* came after the mark: its number might have been reused after a stat taken then */
	CHECK(!vfs_cache_fh_by_ino(f.ve, st.st_dev, st.st_ino, before, &got));
	CHECK(!vfs_cache_fh_by_ino(f.ve, st.st_dev + 1, st.st_ino, after, &got));
	CHECK(!vfs_cache_fh_by_ino(f.ve, st.st_dev, st.st_ino + 1000000, after, &got));
	fx_teardown(&f);
}

/*
 * A bind mount inside the export (of a directory of the export, whose node is cached)
 * is listed without a handle, as LOOKUP refuses to cross it, not with the handle of
 * the directory mounted there. In a mount namespace of the test's own (root needed).
 */
static void test_plus_not_across_mounts(void)
{
	char in[160], bm[160];
	struct plus_find pf;
	struct vfs_fh fh;
	struct fx f;

	fx_setup_mounts(&f, in, bm, sizeof(in));
	fh = lookup_of(&f, "in"); /* its node is cached now */
	CHECK_EQ(mount(in, bm, NULL, MS_BIND, NULL), 0);
	pf = plus_of(&f, "bm");
	CHECK_EQ(pf.fh.len, 0);
	pf = plus_of(&f, "in");
	CHECK(same_fh(&pf.fh, &fh));
	CHECK_EQ(umount(bm), 0);
	fx_teardown(&f);
}

TESTS(test_paged_while_changing, test_verifier_and_plus, test_plus_handles_from_cache,
      test_ino_index_mark, test_plus_not_across_mounts);
