/*
 * test_mount_xdr.c - unit tests for the MOUNT wire codec (src/mount/mount_xdr.c):
 * golden bytes, round trips, limits, and truncation at every offset.
 */
#include "mount/mount.h"
#include "unit/test.h"

static void test_dirpath(void)
{
	static const uint8_t golden[12] = {0, 0, 0, 5, '/', 's', 'r', 'v', '/', 0, 0, 0};
	struct mount_dirpath_args a = {{(const uint8_t *)"/srv/", 5}}, d;
	static uint8_t big[4 + 1028];
	uint8_t buf[16];
	struct xdr_out o;
	struct xdr_cur c;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_dirpath_args(&o, &a));
	CHECK_EQ(o.len, 12);
	CHECK_MEM(buf, golden, 12);
	xdr_cur_init(&c, buf, o.len);
	CHECK(mount_dec_dirpath_args(&c, &d));
	CHECK_EQ(d.path.len, 5);
	CHECK_MEM(d.path.data, "/srv/", 5);
	for (size_t cut = 0; cut < o.len; cut++) {
		xdr_cur_init(&c, buf, cut);
		CHECK(!mount_dec_dirpath_args(&c, &d));
	}
	/* MNTPATHLEN: 1024 is fine, 1025 is not */
	memset(big, '/', sizeof(big));
	xdr_put_u32(big, 1024);
	xdr_cur_init(&c, big, 4 + 1024);
	CHECK(mount_dec_dirpath_args(&c, &d));
	xdr_put_u32(big, 1025);
	xdr_cur_init(&c, big, sizeof(big));
	CHECK(!mount_dec_dirpath_args(&c, &d));
	/* embedded NUL */
	memcpy(buf, golden, 12);
	buf[6] = 0;
	xdr_cur_init(&c, buf, 12);
	CHECK(!mount_dec_dirpath_args(&c, &d));
}

static void test_mnt3_res(void)
{
	struct mount_mnt3_res r = {.status = MNT3_OK,
				   .fh_len = 6,
				   .fh = {1, 2, 3, 4, 5, 6},
				   .nflavors = 1,
				   .flavors = {RPC_AUTH_SYS}},
			      d;
	static const uint8_t golden[24] = {0, 0, 0, 0, 0, 0, 0, 6, 1, 2, 3, 4,
					   5, 6, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1};
	uint8_t buf[128];
	struct xdr_out o;
	struct xdr_cur c;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_mnt3_res(&o, &r));
	CHECK_EQ(o.len, 24);
	CHECK_MEM(buf, golden, 24);
	xdr_cur_init(&c, buf, o.len);
	CHECK(mount_dec_mnt3_res(&c, &d));
	CHECK_EQ(d.fh_len, 6);
	CHECK_MEM(d.fh, r.fh, 6);
	CHECK_EQ(d.nflavors, 1);
	CHECK_EQ(d.flavors[0], 1);
	for (size_t cut = 0; cut < o.len; cut++) {
		xdr_cur_init(&c, buf, cut);
		CHECK(!mount_dec_mnt3_res(&c, &d));
	}
	for (size_t cap = 0; cap < 24; cap += 4) {
		xdr_out_init(&o, buf, cap);
		CHECK(!mount_enc_mnt3_res(&o, &r));
	}
	r.status = MNT3ERR_ACCES; /* failure carries only the status */
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_mnt3_res(&o, &r));
	CHECK_EQ(o.len, 4);
	CHECK_EQ(xdr_get_u32(buf), 13);
}

static void test_fhstatus(void)
{
	struct mount_fhstatus r = {.status = 13};
	uint8_t buf[64];
	struct xdr_out o;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_fhstatus(&o, &r));
	CHECK_EQ(o.len, 4);
	r.status = 0;
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_fhstatus(&o, &r));
	CHECK_EQ(o.len, 4 + FHSIZE);
}

static void test_dump_res(void)
{
	struct mount_body b[2] = {{"10.0.0.1", "/srv/a"}, {"::1", "/srv/with space"}};
	struct mount_dump_res r = {2, b}, d;
	uint8_t buf[256];
	struct xdr_out o;
	struct xdr_cur c;
	struct arena a;

	arena_init(&a, 1024);
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_dump_res(&o, &r));
	CHECK_EQ(o.len, 4 + 12 + 12 + 4 + 8 + 20 + 4);
	xdr_cur_init(&c, buf, o.len);
	CHECK(mount_dec_dump_res(&c, &a, &d));
	CHECK_EQ(d.n, 2);
	CHECK(strcmp(d.list[1].hostname, "::1") == 0);
	CHECK(strcmp(d.list[1].directory, "/srv/with space") == 0);
	for (size_t cut = 0; cut < o.len; cut++) {
		xdr_cur_init(&c, buf, cut);
		CHECK(!mount_dec_dump_res(&c, &a, &d));
	}
	r.n = 0;
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_dump_res(&o, &r));
	CHECK_EQ(o.len, 4);
	arena_fini(&a);
}

static void test_export_res(void)
{
	const char *g1[] = {"10.0.0.0/8", "host.example.org"};
	struct mount_exportnode en[3] = {{"/srv/a", 2, g1}, {"/srv/b", 0, NULL}, {"/c", 1, g1 + 1}};
	struct mount_export_res r = {3, en}, d;
	uint8_t buf[256];
	struct xdr_out o;
	struct xdr_cur c;
	struct arena a;

	arena_init(&a, 1024);
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(mount_enc_export_res(&o, &r));
	xdr_cur_init(&c, buf, o.len);
	CHECK(mount_dec_export_res(&c, &a, &d));
	CHECK_EQ(xdr_cur_left(&c), 0);
	CHECK_EQ(d.n, 3);
	CHECK(strcmp(d.list[0].dir, "/srv/a") == 0);
	CHECK_EQ(d.list[0].ngroups, 2);
	CHECK(strcmp(d.list[0].groups[1], "host.example.org") == 0);
	CHECK_EQ(d.list[1].ngroups, 0);
	CHECK_EQ(d.list[2].ngroups, 1);
	for (size_t cut = 0; cut < o.len; cut++) {
		xdr_cur_init(&c, buf, cut);
		CHECK(!mount_dec_export_res(&c, &a, &d));
	}
	for (size_t cap = 0; cap < o.len; cap += 4) {
		struct xdr_out small;

		xdr_out_init(&small, buf, cap);
		CHECK(!mount_enc_export_res(&small, &r));
	}
	arena_fini(&a);
}

TESTS(test_dirpath, test_mnt3_res, test_fhstatus, test_dump_res, test_export_res);
