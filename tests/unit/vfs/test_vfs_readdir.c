/*
 * test_vfs_readdir.c - unit tests for src/vfs/vfs_readdir.c: paging through a large
 * directory that changes between pages, cookie verifiers, READDIRPLUS attributes.
 */
#include "unit/vfs/vfs_fixture.h"

#define NSTABLE 1200
#define PAGE	37

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

TESTS(test_paged_while_changing, test_verifier_and_plus);
