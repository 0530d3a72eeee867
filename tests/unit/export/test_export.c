/*
 * test_export.c - unit tests for src/export/: the exports-file parser, client
 * matching, credential squashing, and opening/publishing tables across a reload.
 *
 * The vfs is replaced by the small fake below, so these tests touch no directory.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/siphash.h"
#include "export/export.h"
#include "unit/test.h"

/* ---- a fake vfs: exports are counted, "missing" paths do not exist ---- */

struct vfs_export {
	int refs;
	uint32_t id;
};

static int fake_opens, fake_live;

int vfs_export_open(const char *path, uint32_t export_id, struct vfs_export **out)
{
	if (strstr(path, "missing"))
		return -ENOENT;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->refs = 1;
	(*out)->id = export_id;
	fake_opens++;
	fake_live++;
	return 0;
}

void vfs_export_get(struct vfs_export *ve)
{
	ve->refs++;
}

void vfs_export_put(struct vfs_export *ve)
{
	if (--ve->refs == 0) {
		free(ve);
		fake_live--;
	}
}

int vfs_export_sync(struct vfs_export *ve)
{
	(void)ve;
	return 0;
}

/* ---- helpers ---- */

static char tmpname[64];

/* Write @text to a fresh temporary file whose name is in tmpname. */
static void write_file(const char *text)
{
	int fd;

	strcpy(tmpname, "/tmp/shoal-exports-XXXXXX");
	fd = mkstemp(tmpname);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
	close(fd);
}

static int parse_text(const char *text, struct export_table **t, char *err, size_t errlen)
{
	int rc;

	write_file(text);
	err[0] = '\0';
	rc = export_table_parse(tmpname, t, err, errlen);
	unlink(tmpname);
	return rc;
}

/* Parse @text with stderr (where the log goes) captured into @out; a parse error is
 * printed. */
static int parse_logged(const char *text, struct export_table **t, char *out, size_t outlen)
{
	char err[128];
	FILE *cap = tmpfile();
	int saved = dup(2), rc;
	size_t n = 0;

	CHECK(cap != NULL && saved >= 0);
	if (!cap || saved < 0)
		return -1;
	fflush(stderr);
	CHECK(dup2(fileno(cap), 2) == 2);
	rc = parse_text(text, t, err, sizeof(err));
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	if (rc != 0)
		fprintf(stderr, "parse error: %s\n", err);
	rewind(cap);
	n = fread(out, 1, outlen - 1, cap);
	out[n] = '\0';
	fclose(cap);
	return rc;
}

static struct sockaddr_storage v4(const char *ip, uint16_t port, socklen_t *len)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	CHECK(inet_pton(AF_INET, ip, &sin->sin_addr) == 1);
	*len = sizeof(*sin);
	return ss;
}

static struct sockaddr_storage v6(const char *ip, uint16_t port, socklen_t *len)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	CHECK(inet_pton(AF_INET6, ip, &sin6->sin6_addr) == 1);
	*len = sizeof(*sin6);
	return ss;
}

/* export_check for a textual address; returns its result, options in *o. */
static int check_ip(const struct export *e, const char *ip, uint16_t port, struct export_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len;

	ss = strchr(ip, ':') ? v6(ip, port, &len) : v4(ip, port, &len);
	memset(o, 0xa5, sizeof(*o));
	return export_check(e, (struct sockaddr *)&ss, len, o);
}

static const char good[] = "# Shoal test exports\n"
			   "\n"
			   "/srv/a   10.0.0.0/8(rw,no_root_squash,sync,no_subtree_check) \\\n"
			   "         192.168.1.0/255.255.255.0(ro,all_squash,anonuid=1000,"
			   "anongid=2000)   # trailing comment\n"
			   "   \t\n"
			   "\"/srv/with space/\" *(rw,secure,sec=sys,async,wdelay,no_wdelay,"
			   "subtree_check,hide,nohide,crossmnt,root_squash,no_all_squash,"
			   "insecure,secure)\n"
			   "/srv/b 2001:db8::/32(rw,fsid=77) ::1/128 localhost(rw)\n"
			   "/srv/c\n"
			   "/srv/d (rw)\n"
			   "/srv/e -rw,anonuid=5 10.1.2.3 10.9.9.9(ro)\n";

static void test_parse_good_file(void)
{
	struct export_table *t = NULL;
	const struct export *e;
	struct export_opts o;
	char log[1024];
	uint8_t key[16] = {0};

	CHECK_EQ(parse_logged(good, &t, log, sizeof(log)), 0);
	CHECK(strstr(log, ":6: subtree_check is not supported") != NULL);
	if (!t)
		return; /* parse_logged printed the error */
	CHECK_EQ(export_table_count(t), 6);

	e = export_table_at(t, 0);
	CHECK(strcmp(e->path, "/srv/a") == 0);
	CHECK(strcmp(e->clients_text, "10.0.0.0/8 192.168.1.0/255.255.255.0") == 0);
	CHECK_EQ(e->nclients, 2);
	CHECK_EQ(e->id, (uint32_t)siphash24(key, "/srv/a", 6));
	CHECK_EQ(check_ip(e, "10.200.3.4", 2049, &o), 0);
	CHECK(!o.ro && !o.root_squash && !o.all_squash && !o.secure);
	CHECK_EQ(o.anonuid, 65534);
	CHECK_EQ(check_ip(e, "192.168.1.77", 2049, &o), 0);
	CHECK(o.ro && o.root_squash && o.all_squash);
	CHECK_EQ(o.anonuid, 1000);
	CHECK_EQ(o.anongid, 2000);
	CHECK_EQ(check_ip(e, "192.168.2.1", 2049, &o), -EACCES);
	CHECK_EQ(check_ip(e, "11.0.0.1", 2049, &o), -EACCES);

	e = export_table_at(t, 1);
	CHECK(strcmp(e->path, "/srv/with space") == 0);
	CHECK(strcmp(e->clients_text, "*") == 0);
	CHECK_EQ(check_ip(e, "203.0.113.9", 1023, &o), 0);
	CHECK(!o.ro && o.root_squash && o.secure);
	CHECK_EQ(check_ip(e, "203.0.113.9", 1024, &o), -EACCES); /* secure */
	CHECK(export_by_path(t, "/srv/with space/") == e);

	e = export_table_at(t, 2);
	CHECK_EQ(e->id, 77);
	CHECK(export_by_id(t, 77) == e);
	CHECK(strcmp(e->clients_text, "2001:db8::/32 ::1/128 localhost") == 0);
	CHECK_EQ(check_ip(e, "2001:db8:1::5", 700, &o), 0);
	CHECK(!o.ro);
	CHECK_EQ(check_ip(e, "::1", 700, &o), 0);
	CHECK(o.ro); /* the default for a client without options */
	CHECK_EQ(check_ip(e, "127.0.0.1", 700, &o), 0); /* localhost, resolved */
	CHECK(!o.ro);
	CHECK_EQ(check_ip(e, "::ffff:127.0.0.1", 700, &o), 0); /* v4-mapped */
	CHECK(!o.ro);
	CHECK_EQ(check_ip(e, "2001:db9::1", 700, &o), -EACCES);

	e = export_table_at(t, 3); /* no client: everyone, defaults */
	CHECK(strcmp(e->clients_text, "*") == 0);
	CHECK_EQ(check_ip(e, "198.51.100.1", 5000, &o), 0);
	CHECK(o.ro && o.root_squash && !o.all_squash && !o.secure);
	CHECK_EQ(o.anonuid, 65534);
	CHECK_EQ(o.anongid, 65534);

	e = export_table_at(t, 4); /* bare "(rw)" */
	CHECK(strcmp(e->clients_text, "*") == 0);
	CHECK_EQ(check_ip(e, "::2", 5000, &o), 0);
	CHECK(!o.ro);

	e = export_table_at(t, 5); /* "-rw,anonuid=5" line defaults */
	CHECK_EQ(check_ip(e, "10.1.2.3", 5000, &o), 0);
	CHECK(!o.ro);
	CHECK_EQ(o.anonuid, 5);
	CHECK_EQ(check_ip(e, "10.9.9.9", 5000, &o), 0);
	CHECK(o.ro);
	CHECK_EQ(o.anonuid, 5);
	CHECK_EQ(check_ip(e, "10.1.2.4", 5000, &o), -EACCES);

	CHECK(export_by_path(t, "/srv/zz") == NULL);
	CHECK(export_by_path(t, "/srv") == NULL);
	CHECK(export_by_path(t, "/srv/c/") == export_table_at(t, 3));
	CHECK(export_table_at(t, 6) == NULL);
	export_table_put(t);
}

static void test_parse_bad_lines(void)
{
	static const struct {
		const char *text;
		const char *want; /* after "FILE:" */
	} cases[] = {
		{"/a *(rw)\n\nrelative *(rw)\n", "3: path 'relative' is not absolute"},
		{"/a *(bogus)\n", "1: unknown option 'bogus'"},
		{"/a *(rw,frob=1)\n", "1: unknown option 'frob=1'"},
		{"# c\n/a *(anonuid=12x)\n", "2: bad number in anonuid=12x"},
		{"/a *(anongid=-1)\n", "1: bad number in anongid=-1"},
		{"/a *(anonuid=4294967296)\n", "1: bad number"},
		{"/a *(sec=krb5)\n", "1: sec=krb5: only sec=sys is supported"},
		{"/a *(fsid=root)\n", "1: fsid=root: only a number"},
		{"/a *(rw,,ro)\n", "1: empty option"},
		{"/a 10.0.0.0/33\n", "1: bad address or network '10.0.0.0/33'"},
		{"/a 10.0.0.0/255.0.255.0\n", "1: bad address or network"},
		{"/a 300.1.1.1\n", "1: cannot resolve host"},
		{"/a ::1/129\n", "1: bad address or network"},
		{"/a 1.2.3.4/\n", "1: bad address or network"},
		{"/a\n/b\n/a/ *\n", "3: /a is exported twice (first on line 1)"},
		{"/a *.example.org(rw)\n", "1: wildcard host names are not supported"},
		{"/a @trusted(rw)\n", "1: netgroups are not supported"},
		{"/a host!name\n", "1: bad client 'host!name'"},
		{"/a *(rw\n", "1: bad option list"},
		{"/a *(rw)x\n", "1: bad option list"},
		{"\"/a *(rw)\n", "1: missing closing quote"},
		{"/x \\\n *(rw)\n/a *(rw) \\\n  10.0.0.1(nope)\n", "3: unknown option 'nope'"},
		{"/a *(fsid=1) 10.0.0.1(fsid=2)\n", "1: conflicting fsid=2"},
		{"/a *(fsid=9)\n/b *(fsid=9)\n", "2: export id 9 of /b collides with /a (line 1)"},
		{"/a no-such-host.invalid\n", "1: cannot resolve host 'no-such-host.invalid'"},
	};
	char err[256], want[320];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct export_table *t = (struct export_table *)&err; /* must be reset */

		CHECK_EQ(parse_text(cases[i].text, &t, err, sizeof(err)), -EINVAL);
		CHECK(t == NULL);
		snprintf(want, sizeof(want), "%s:%s", tmpname, cases[i].want);
		if (strncmp(err, want, strlen(want)) != 0) {
			fprintf(stderr, "case %zu: got \"%s\", want prefix \"%s\"\n", i, err, want);
			CHECK(0);
		}
	}
}

static void test_parse_missing_file(void)
{
	struct export_table *t;
	char err[128];

	CHECK_EQ(export_table_parse("/nonexistent/exports", &t, err, sizeof(err)), -ENOENT);
	CHECK(t == NULL);
	CHECK(strstr(err, "/nonexistent/exports: ") == err);
}

/* subtree_check is accepted, but a user who asks for it is told it does not hold. */
static void test_subtree_check_warns(void)
{
	struct export_table *t = NULL;
	char log[1024];

	CHECK_EQ(parse_logged("/srv/a *(rw,no_subtree_check)\n", &t, log, sizeof(log)), 0);
	CHECK(strstr(log, "subtree_check") == NULL);
	export_table_put(t);
	t = NULL;
	CHECK_EQ(parse_logged("/srv/a *(rw)\n/srv/b *(ro,subtree_check)\n", &t, log, sizeof(log)),
		 0);
	CHECK(strstr(log, ":2: subtree_check is not supported") != NULL);
	CHECK_EQ(export_table_count(t), 2);
	export_table_put(t);
}

static void test_match_order_and_family(void)
{
	struct export_table *t;
	const struct export *e;
	struct export_opts o;
	char err[256];

	CHECK_EQ(parse_text("/m 10.1.0.0/16(rw) 10.0.0.0/8(ro,secure) ::ffff:172.16.0.0/108(rw) "
			    "fe80::/10(rw,all_squash) *(ro,all_squash)\n",
			    &t, err, sizeof(err)),
		 0);
	if (!t)
		return;
	e = export_table_at(t, 0);
	CHECK_EQ(check_ip(e, "10.1.9.9", 40000, &o), 0); /* first match wins */
	CHECK(!o.ro && !o.secure);
	CHECK_EQ(check_ip(e, "10.2.9.9", 40000, &o), -EACCES); /* matched, insecure port */
	CHECK_EQ(check_ip(e, "10.2.9.9", 800, &o), 0);
	CHECK(o.ro);
	CHECK_EQ(check_ip(e, "::ffff:10.2.9.9", 800, &o), 0);
	CHECK_EQ(check_ip(e, "172.16.200.1", 9, &o), 0); /* spec written v4-mapped */
	CHECK(!o.ro && !o.all_squash);
	CHECK_EQ(check_ip(e, "172.32.0.1", 9, &o), 0); /* falls to "*" */
	CHECK(o.ro && o.all_squash);
	CHECK_EQ(check_ip(e, "fe80::1", 9, &o), 0);
	CHECK(!o.ro && o.all_squash);
	{
		struct sockaddr_storage ss = {0};

		ss.ss_family = AF_UNIX;
		CHECK_EQ(export_check(e, (struct sockaddr *)&ss, sizeof(ss), &o), -EACCES);
	}
	export_table_put(t);
}

static void test_map_cred(void)
{
	struct export_opts o = {.ro = true, .root_squash = true, .anonuid = 99, .anongid = 98};
	struct rpc_cred root = {
		.flavor = RPC_AUTH_SYS, .uid = 0, .gid = 0, .ngids = 3, .gids = {5, 0, 7}};
	struct rpc_cred user = {
		.flavor = RPC_AUTH_SYS, .uid = 1000, .gid = 100, .ngids = 2, .gids = {0, 100}};
	struct rpc_cred none = {.flavor = RPC_AUTH_NONE, .uid = 65534, .gid = 65534};
	struct vfs_ctx ctx;

	export_map_cred(&o, &root, &ctx);
	CHECK(ctx.readonly);
	CHECK_EQ(ctx.cred.uid, 99);
	CHECK_EQ(ctx.cred.gid, 98);
	CHECK_EQ(ctx.cred.ngroups, 3);
	CHECK_EQ(ctx.cred.groups[0], 5);
	CHECK_EQ(ctx.cred.groups[1], 98);
	CHECK_EQ(ctx.cred.groups[2], 7);

	export_map_cred(&o, &user, &ctx); /* gid 0 in the list is squashed for anyone */
	CHECK_EQ(ctx.cred.uid, 1000);
	CHECK_EQ(ctx.cred.gid, 100);
	CHECK_EQ(ctx.cred.groups[0], 98);

	o.root_squash = false;
	o.ro = false;
	export_map_cred(&o, &root, &ctx);
	CHECK(!ctx.readonly);
	CHECK_EQ(ctx.cred.uid, 0);
	CHECK_EQ(ctx.cred.gid, 0);
	CHECK_EQ(ctx.cred.groups[1], 0);

	export_map_cred(&o, &none, &ctx); /* AUTH_NONE is always anonymous */
	CHECK_EQ(ctx.cred.uid, 99);
	CHECK_EQ(ctx.cred.gid, 98);
	CHECK_EQ(ctx.cred.ngroups, 0);

	o.all_squash = true;
	export_map_cred(&o, &user, &ctx);
	CHECK_EQ(ctx.cred.uid, 99);
	CHECK_EQ(ctx.cred.gid, 98);
	CHECK_EQ(ctx.cred.ngroups, 0);
}

static void test_single(void)
{
	struct export_table *t;
	const struct export *e;
	struct export_opts o;
	char err[128];

	CHECK_EQ(export_table_single("/srv/quick/", &t, err, sizeof(err)), 0);
	CHECK_EQ(export_table_count(t), 1);
	e = export_table_at(t, 0);
	CHECK(strcmp(e->path, "/srv/quick") == 0);
	CHECK(strcmp(e->clients_text, "*") == 0);
	CHECK_EQ(check_ip(e, "198.51.100.3", 60000, &o), 0);
	CHECK(!o.ro && !o.root_squash && !o.all_squash && !o.secure);
	export_table_put(t);

	CHECK_EQ(export_table_single("no/such/relative/dir", &t, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "no/such/relative/dir: ") == err);
}

static void test_open_publish_reload(void)
{
	struct export_table *t1, *t2, *t3, *held, *cur;
	char err[256];

	CHECK(export_table_get() == NULL);
	CHECK_EQ(parse_text("/e/one *\n/e/two *\n", &t1, err, sizeof(err)), 0);
	fake_opens = 0;
	CHECK_EQ(export_table_open(t1, NULL, err, sizeof(err)), 0);
	CHECK_EQ(fake_opens, 2);
	CHECK_EQ(fake_live, 2);
	CHECK(export_table_at(t1, 0)->vx != NULL);
	export_table_publish(t1);

	held = export_table_get(); /* a request in flight */
	CHECK(held == t1);

	/* reload: /e/one stays, /e/two changes its id, /e/three is new */
	CHECK_EQ(parse_text("/e/one *(rw)\n/e/two *(fsid=5)\n/e/three *\n", &t2, err, sizeof(err)),
		 0);
	CHECK_EQ(export_table_open(t2, held, err, sizeof(err)), 0);
	CHECK_EQ(fake_opens, 4); /* one reused, two opened */
	CHECK(export_table_at(t2, 0)->vx == export_table_at(t1, 0)->vx);
	CHECK(export_table_at(t2, 1)->vx != export_table_at(t1, 1)->vx);
	CHECK_EQ(fake_live, 4);
	cur = export_table_get();
	export_table_publish(t2);
	CHECK(export_table_get() == t2);
	export_table_put(t2);
	/* the old table survives until its readers are done */
	CHECK(strcmp(export_table_at(held, 1)->path, "/e/two") == 0);
	export_table_put(cur);
	CHECK_EQ(fake_live, 4);
	export_table_put(held); /* last reference: t1 freed, its unique vx put */
	CHECK_EQ(fake_live, 3);

	/* a missing directory fails the open and leaves nothing open */
	CHECK_EQ(parse_text("/e/one *\n/e/missing *\n", &t3, err, sizeof(err)), 0);
	CHECK_EQ(export_table_open(t3, t2, err, sizeof(err)), -ENOENT);
	CHECK(strcmp(err, "/e/missing: No such file or directory") == 0);
	CHECK(export_table_at(t3, 0)->vx == NULL);
	export_table_put(t3);
	CHECK_EQ(fake_live, 3);

	export_table_publish(NULL);
	CHECK(export_table_get() == NULL);
	CHECK_EQ(fake_live, 0);
}

TESTS(test_parse_good_file, test_parse_bad_lines, test_parse_missing_file, test_subtree_check_warns,
      test_match_order_and_family, test_map_cred, test_single, test_open_publish_reload);
