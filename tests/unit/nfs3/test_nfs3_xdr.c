/*
 * test_nfs3_xdr.c - unit tests for the NFSv3 wire codec in src/nfs3/nfs3_xdr.c.
 *
 * Arguments are built with the xdr_enc_* primitives (or written out byte by byte for
 * the golden tests), decoded, and checked field by field; every decoder is also fed
 * every truncation of its valid message. Results are encoded and parsed back with the
 * xdr_dec_* primitives, and every encoder is run out of space at every length.
 */
#include "unit/test.h"
#include "nfs3/nfs3.h"

#include <stdalign.h>

typedef bool (*dec_fn)(struct xdr_cur *c, void *args);
typedef bool (*enc_fn)(struct xdr_out *o, const void *res);

/* Room for any argument struct, zeroed before each decode as the rpc layer does. */
union any_args {
	struct nfs3_getattr_args getattr;
	struct nfs3_fhonly_args fhonly;
	struct nfs3_setattr_args setattr;
	struct nfs3_lookup_args lookup;
	struct nfs3_remove_args remove;
	struct nfs3_access_args access;
	struct nfs3_read_args read;
	struct nfs3_commit_args commit;
	struct nfs3_write_args write;
	struct nfs3_create_args create;
	struct nfs3_mkdir_args mkdir;
	struct nfs3_symlink_args symlink;
	struct nfs3_mknod_args mknod;
	struct nfs3_rename_args rename;
	struct nfs3_link_args link;
	struct nfs3_readdir_args readdir;
	struct nfs3_readdirplus_args readdirplus;
};

static alignas(16) uint8_t msg[8192];
static union any_args args;

/*
 * Decode @buf[0..len) into @args; first check that every shorter prefix is refused.
 * True if the whole message decodes and is consumed exactly.
 */
static bool decode_all(dec_fn dec, const uint8_t *buf, size_t len)
{
	struct xdr_cur c;
	bool ok = true;

	for (size_t n = 0; n < len; n++) {
		memset(&args, 0, sizeof(args));
		xdr_cur_init(&c, buf, n);
		if (dec(&c, &args)) {
			fprintf(stderr, "  decoder accepted a truncation to %zu of %zu bytes\n", n,
				len);
			ok = false;
		}
	}
	memset(&args, 0, sizeof(args));
	xdr_cur_init(&c, buf, len);
	if (!dec(&c, &args)) {
		fprintf(stderr, "  decoder refused the whole %zu-byte message\n", len);
		return false;
	}
	if (xdr_cur_left(&c) != 0) {
		fprintf(stderr, "  decoder left %zu bytes\n", xdr_cur_left(&c));
		ok = false;
	}
	return ok;
}

/* Decode @buf once, with word @off replaced by @v; the original word is restored. */
static bool decode_patched(dec_fn dec, uint8_t *buf, size_t len, size_t off, uint32_t v)
{
	uint32_t saved = xdr_get_u32(buf + off);
	struct xdr_cur c;
	bool ok;

	xdr_put_u32(buf + off, v);
	memset(&args, 0, sizeof(args));
	xdr_cur_init(&c, buf, len);
	ok = dec(&c, &args);
	xdr_put_u32(buf + off, saved);
	return ok;
}

/* ---- builders and checkers for the argument pieces ---- */

static void put_fh(struct xdr_out *o, uint32_t len, uint8_t seed)
{
	uint8_t b[NFS3_FHSIZE + 8];

	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed + i);
	CHECK(xdr_enc_opaque(o, b, len));
}

static bool fh_is(const struct nfs3_fh *fh, uint32_t len, uint8_t seed)
{
	if (fh->len != len)
		return false;
	for (uint32_t i = 0; i < len; i++)
		if (fh->data[i] != (uint8_t)(seed + i))
			return false;
	return true;
}

static bool view_is(struct xdr_view v, const char *s)
{
	return v.len == strlen(s) && memcmp(v.data, s, v.len) == 0;
}

static void put_diropargs(struct xdr_out *o, uint32_t fhlen, uint8_t seed, const char *name)
{
	put_fh(o, fhlen, seed);
	CHECK(xdr_enc_opaque(o, name, (uint32_t)strlen(name)));
}

/* Offsets of the discriminants in a sattr3 written by put_sattr_full(). */
struct sattr_offs {
	size_t set_mode, set_uid, set_gid, set_size, atime_how, mtime_how;
};

/* A sattr3 with everything set and both times SET_TO_CLIENT_TIME. */
static void put_sattr_full(struct xdr_out *o, struct sattr_offs *offs)
{
	struct sattr_offs unused;

	if (!offs)
		offs = &unused;
	offs->set_mode = o->len;
	CHECK(xdr_enc_bool(o, true) && xdr_enc_u32(o, 0644));
	offs->set_uid = o->len;
	CHECK(xdr_enc_bool(o, true) && xdr_enc_u32(o, 1000));
	offs->set_gid = o->len;
	CHECK(xdr_enc_bool(o, true) && xdr_enc_u32(o, 100));
	offs->set_size = o->len;
	CHECK(xdr_enc_bool(o, true) && xdr_enc_u64(o, 0x100000002ULL));
	offs->atime_how = o->len;
	CHECK(xdr_enc_u32(o, NFS3_SET_TO_CLIENT_TIME) && xdr_enc_u32(o, 11) && xdr_enc_u32(o, 12));
	offs->mtime_how = o->len;
	CHECK(xdr_enc_u32(o, NFS3_SET_TO_CLIENT_TIME) && xdr_enc_u32(o, 13) && xdr_enc_u32(o, 14));
}

static void check_sattr_full(const struct nfs3_sattr *s)
{
	CHECK(s->set_mode && s->set_uid && s->set_gid && s->set_size);
	CHECK_EQ(s->mode, 0644);
	CHECK_EQ(s->uid, 1000);
	CHECK_EQ(s->gid, 100);
	CHECK(s->size == 0x100000002ULL);
	CHECK_EQ(s->atime_how, NFS3_SET_TO_CLIENT_TIME);
	CHECK_EQ(s->atime.seconds, 11);
	CHECK_EQ(s->atime.nseconds, 12);
	CHECK_EQ(s->mtime_how, NFS3_SET_TO_CLIENT_TIME);
	CHECK_EQ(s->mtime.seconds, 13);
	CHECK_EQ(s->mtime.nseconds, 14);
}

/* A sattr3 that sets nothing but atime (to server time). */
static void put_sattr_min(struct xdr_out *o)
{
	CHECK(xdr_enc_bool(o, false) && xdr_enc_bool(o, false) && xdr_enc_bool(o, false));
	CHECK(xdr_enc_bool(o, false));
	CHECK(xdr_enc_u32(o, NFS3_SET_TO_SERVER_TIME) && xdr_enc_u32(o, NFS3_DONT_CHANGE));
}

static void check_sattr_min(const struct nfs3_sattr *s)
{
	CHECK(!s->set_mode && !s->set_uid && !s->set_gid && !s->set_size);
	CHECK_EQ(s->atime_how, NFS3_SET_TO_SERVER_TIME);
	CHECK_EQ(s->mtime_how, NFS3_DONT_CHANGE);
}

/* ---- golden bytes ---- */

static void test_golden_getattr_args(void)
{
	static const uint8_t golden[] = {
		0x00, 0x00, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	struct nfs3_getattr_args a = {.fh = {.len = 8, .data = {1, 2, 3, 4, 5, 6, 7, 8}}};
	uint8_t buf[64];
	struct xdr_out o;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(nfs3_enc_getattr_args(&o, &a));
	CHECK_EQ(o.len, sizeof(golden));
	CHECK_MEM(buf, golden, sizeof(golden));
	CHECK(decode_all(nfs3_dec_getattr_args, golden, sizeof(golden)));
	CHECK(fh_is(&args.getattr.fh, 8, 1));
	/* FSSTAT, FSINFO and PATHCONF decode into their own struct with the same decoder. */
	CHECK(fh_is(&args.fhonly.fh, 8, 1));
}

static void test_golden_lookup_args(void)
{
	static const uint8_t golden[] = {
		0x00, 0x00, 0x00, 0x05, 0xaa, 0xab, 0xac, 0xad, 0xae, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 'f',  'o',	'o',  0x00,
	};
	uint8_t buf[sizeof(golden)];

	CHECK(decode_all(nfs3_dec_lookup_args, golden, sizeof(golden)));
	CHECK(fh_is(&args.lookup.what.dir, 5, 0xaa));
	CHECK(view_is(args.lookup.what.name, "foo"));
	CHECK(args.lookup.what.name.data == golden + 16); /* a view, not a copy */
	/* REMOVE and RMDIR share the decoder and the shape. */
	CHECK(view_is(args.remove.object.name, "foo"));
	/* A NUL inside the name is malformed. */
	memcpy(buf, golden, sizeof(buf));
	buf[17] = 0;
	CHECK(!decode_patched(nfs3_dec_lookup_args, buf, sizeof(buf), 0, 5));
}

static const struct nfs3_fattr sample_fattr = {
	.type = NF3REG,
	.mode = 0644,
	.nlink = 2,
	.uid = 1000,
	.gid = 100,
	.size = 0x100000002ULL,
	.used = 4096,
	.rdev1 = 3,
	.rdev2 = 4,
	.fsid = 0x1122334455667788ULL,
	.fileid = 0x99,
	.atime = {0x5f000000, 1},
	.mtime = {0x5f000001, 2},
	.ctime = {0x5f000002, 3},
};

static bool fattr_eq(const struct nfs3_fattr *a, const struct nfs3_fattr *b)
{
	return a->type == b->type && a->mode == b->mode && a->nlink == b->nlink &&
	       a->uid == b->uid && a->gid == b->gid && a->size == b->size && a->used == b->used &&
	       a->rdev1 == b->rdev1 && a->rdev2 == b->rdev2 && a->fsid == b->fsid &&
	       a->fileid == b->fileid && a->atime.seconds == b->atime.seconds &&
	       a->atime.nseconds == b->atime.nseconds && a->mtime.seconds == b->mtime.seconds &&
	       a->mtime.nseconds == b->mtime.nseconds && a->ctime.seconds == b->ctime.seconds &&
	       a->ctime.nseconds == b->ctime.nseconds;
}

static void test_golden_getattr_res(void)
{
	static const uint8_t golden[] = {
		0x00, 0x00, 0x00, 0x00,				/* NFS3_OK */
		0x00, 0x00, 0x00, 0x01,				/* NF3REG */
		0x00, 0x00, 0x01, 0xa4,				/* mode 0644 */
		0x00, 0x00, 0x00, 0x02,				/* nlink */
		0x00, 0x00, 0x03, 0xe8,				/* uid */
		0x00, 0x00, 0x00, 0x64,				/* gid */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, /* size */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* used */
		0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, /* rdev */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* fsid */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x99, /* fileid */
		0x5f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* atime */
		0x5f, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, /* mtime */
		0x5f, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, /* ctime */
	};
	struct nfs3_getattr_res res = {.status = NFS3_OK, .attr = sample_fattr}, back;
	uint8_t buf[128];
	struct xdr_out o;
	struct xdr_cur c;

	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(nfs3_enc_getattr_res(&o, &res));
	CHECK_EQ(o.len, sizeof(golden));
	CHECK_MEM(buf, golden, sizeof(golden));
	/* fattr3 alone is the same bytes without the status. */
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(nfs3_enc_fattr(&o, &sample_fattr));
	CHECK_EQ(o.len, 84);
	CHECK_MEM(buf, golden + 4, 84);
	/* The client's decoder reads it back, and refuses every truncation. */
	memset(&back, 0, sizeof(back));
	xdr_cur_init(&c, golden, sizeof(golden));
	CHECK(nfs3_dec_getattr_res(&c, &back));
	CHECK_EQ(back.status, NFS3_OK);
	CHECK(fattr_eq(&back.attr, &sample_fattr));
	CHECK_EQ(xdr_cur_left(&c), 0);
	for (size_t n = 0; n < sizeof(golden); n++) {
		xdr_cur_init(&c, golden, n);
		CHECK(!nfs3_dec_getattr_res(&c, &back));
	}
	/* resfail carries nothing but the status. */
	res.status = NFS3ERR_STALE;
	xdr_out_init(&o, buf, sizeof(buf));
	CHECK(nfs3_enc_getattr_res(&o, &res));
	CHECK_EQ(o.len, 4);
	CHECK_EQ(xdr_get_u32(buf), NFS3ERR_STALE);
	xdr_cur_init(&c, buf, o.len);
	CHECK(nfs3_dec_getattr_res(&c, &back));
	CHECK_EQ(back.status, NFS3ERR_STALE);
}

/* ---- argument decoders ---- */

static void test_fh_limits(void)
{
	struct nfs3_fh fh;
	struct xdr_out o;
	struct xdr_cur c;
	uint8_t big[NFS3_FHSIZE + 4] = {0};

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, NFS3_FHSIZE, 7);
	CHECK(decode_all(nfs3_dec_getattr_args, msg, o.len));
	CHECK(fh_is(&args.getattr.fh, NFS3_FHSIZE, 7));

	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(xdr_enc_opaque(&o, big, NFS3_FHSIZE + 1));
	xdr_cur_init(&c, msg, o.len);
	CHECK(!nfs3_dec_fh(&c, &fh));

	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(xdr_enc_opaque(&o, big, 0));
	xdr_cur_init(&c, msg, o.len);
	CHECK(!nfs3_dec_fh(&c, &fh));

	/* An odd-length handle needs its padding too. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 5, 1);
	CHECK_EQ(o.len, 12);
	CHECK(decode_all(nfs3_dec_getattr_args, msg, o.len));

	/* The encoder refuses a handle that cannot be valid. */
	fh.len = NFS3_FHSIZE + 1;
	xdr_out_init(&o, msg, sizeof(msg));
	CHECK(!nfs3_enc_fh(&o, &fh));
}

static void test_setattr_args(void)
{
	struct sattr_offs so;
	struct xdr_out o;
	size_t guard, base;

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 8, 0x10);
	put_sattr_full(&o, &so);
	guard = o.len;
	CHECK(xdr_enc_bool(&o, true) && xdr_enc_u32(&o, 77) && xdr_enc_u32(&o, 88));
	CHECK(decode_all(nfs3_dec_setattr_args, msg, o.len));
	CHECK(fh_is(&args.setattr.fh, 8, 0x10));
	check_sattr_full(&args.setattr.attr);
	CHECK(args.setattr.guard_check);
	CHECK_EQ(args.setattr.guard_ctime.seconds, 77);
	CHECK_EQ(args.setattr.guard_ctime.nseconds, 88);

	/* Every discriminant accepts only its enum. */
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, so.set_mode, 2));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, so.set_uid, 2));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, so.set_gid, 0xffffffff));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, so.set_size, 2));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, so.atime_how, 3));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, so.mtime_how, 3));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, guard, 2));
	CHECK(decode_patched(nfs3_dec_setattr_args, msg, o.len, guard, 1));

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 3, 0x20);
	base = o.len;
	put_sattr_min(&o);
	CHECK(xdr_enc_bool(&o, false));
	CHECK(decode_all(nfs3_dec_setattr_args, msg, o.len));
	CHECK(fh_is(&args.setattr.fh, 3, 0x20));
	check_sattr_min(&args.setattr.attr);
	CHECK(!args.setattr.guard_check);
	/* Here a bad time_how would not be caught by what follows it. */
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, base + 16, 3));
	CHECK(!decode_patched(nfs3_dec_setattr_args, msg, o.len, base + 20, 3));
}

static void test_lookup_long_name(void)
{
	char name[NFS3_MAXNAMLEN + 46];
	struct xdr_out o;

	/* Longer than NFS3_MAXNAMLEN: decodes, so the procedure can say NAMETOOLONG. */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 16, 0x30, name);
	CHECK(decode_all(nfs3_dec_lookup_args, msg, o.len));
	CHECK(fh_is(&args.lookup.what.dir, 16, 0x30));
	CHECK(view_is(args.lookup.what.name, name));
	/* Longer than NFS3_MAXPATHLEN is malformed. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 16, 0x30);
	CHECK(xdr_enc_u32(&o, NFS3_MAXPATHLEN + 1));
	CHECK(!decode_patched(nfs3_dec_lookup_args, msg, sizeof(msg), 0, 16));
}

static void test_access_args(void)
{
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 12, 0x40);
	CHECK(xdr_enc_u32(&o, NFS3_ACCESS_READ | NFS3_ACCESS_EXECUTE));
	CHECK(decode_all(nfs3_dec_access_args, msg, o.len));
	CHECK(fh_is(&args.access.fh, 12, 0x40));
	CHECK_EQ(args.access.access, NFS3_ACCESS_READ | NFS3_ACCESS_EXECUTE);
}

static void test_read_commit_args(void)
{
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 20, 0x50);
	CHECK(xdr_enc_u64(&o, 0x123456789aULL) && xdr_enc_u32(&o, 65536));
	CHECK(decode_all(nfs3_dec_read_args, msg, o.len));
	CHECK(fh_is(&args.read.fh, 20, 0x50));
	CHECK(args.read.offset == 0x123456789aULL);
	CHECK_EQ(args.read.count, 65536);
	/* COMMIT uses the same decoder on its own struct. */
	CHECK(fh_is(&args.commit.fh, 20, 0x50));
	CHECK(args.commit.offset == 0x123456789aULL);
	CHECK_EQ(args.commit.count, 65536);
}

static void test_write_args(void)
{
	static const char data[] = "hello, world";
	struct xdr_out o;
	size_t stable, count;

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 8, 0x60);
	CHECK(xdr_enc_u64(&o, 4096));
	count = o.len;
	CHECK(xdr_enc_u32(&o, 12));
	stable = o.len;
	CHECK(xdr_enc_u32(&o, NFS3_FILE_SYNC));
	CHECK(xdr_enc_opaque(&o, data, 12));
	CHECK(decode_all(nfs3_dec_write_args, msg, o.len));
	CHECK(fh_is(&args.write.fh, 8, 0x60));
	CHECK(args.write.offset == 4096);
	CHECK_EQ(args.write.count, 12);
	CHECK_EQ(args.write.stable, NFS3_FILE_SYNC);
	CHECK(view_is(args.write.data, data));
	CHECK(args.write.data.data == msg + stable + 8); /* viewed in place */

	CHECK(decode_patched(nfs3_dec_write_args, msg, o.len, stable, NFS3_UNSTABLE));
	CHECK(!decode_patched(nfs3_dec_write_args, msg, o.len, stable, 3));
	/* count must match the data's length. */
	CHECK(!decode_patched(nfs3_dec_write_args, msg, o.len, count, 11));

	/* More than NFS3_MAXDATA bytes of data is malformed. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 8, 0x60);
	CHECK(xdr_enc_u64(&o, 0) && xdr_enc_u32(&o, NFS3_MAXDATA + 1));
	CHECK(xdr_enc_u32(&o, NFS3_UNSTABLE) && xdr_enc_u32(&o, NFS3_MAXDATA + 1));
	CHECK(!decode_patched(nfs3_dec_write_args, msg, sizeof(msg), 0, 8));
}

static void test_create_args(void)
{
	static const uint8_t verf[NFS3_CREATEVERFSIZE] = {9, 8, 7, 6, 5, 4, 3, 2};
	struct sattr_offs so;
	struct xdr_out o;
	size_t mode;

	/* UNCHECKED and GUARDED carry a sattr3. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 8, 0x70, "new.txt");
	mode = o.len;
	CHECK(xdr_enc_u32(&o, NFS3_GUARDED));
	put_sattr_full(&o, &so);
	CHECK(decode_all(nfs3_dec_create_args, msg, o.len));
	CHECK(fh_is(&args.create.where.dir, 8, 0x70));
	CHECK(view_is(args.create.where.name, "new.txt"));
	CHECK_EQ(args.create.mode, NFS3_GUARDED);
	check_sattr_full(&args.create.attr);
	CHECK(decode_patched(nfs3_dec_create_args, msg, o.len, mode, NFS3_UNCHECKED));
	CHECK_EQ(args.create.mode, NFS3_UNCHECKED);
	CHECK(!decode_patched(nfs3_dec_create_args, msg, o.len, mode, 3));
	CHECK(!decode_patched(nfs3_dec_create_args, msg, o.len, so.mtime_how, 7));

	/* EXCLUSIVE carries a createverf3. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 8, 0x70, "x");
	CHECK(xdr_enc_u32(&o, NFS3_EXCLUSIVE));
	CHECK(xdr_enc_fixed(&o, verf, sizeof(verf)));
	CHECK(decode_all(nfs3_dec_create_args, msg, o.len));
	CHECK(view_is(args.create.where.name, "x"));
	CHECK_EQ(args.create.mode, NFS3_EXCLUSIVE);
	CHECK_MEM(args.create.verf, verf, sizeof(verf));
}

static void test_mkdir_symlink_args(void)
{
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 10, 0x80, "subdir");
	put_sattr_min(&o);
	CHECK(decode_all(nfs3_dec_mkdir_args, msg, o.len));
	CHECK(fh_is(&args.mkdir.where.dir, 10, 0x80));
	CHECK(view_is(args.mkdir.where.name, "subdir"));
	check_sattr_min(&args.mkdir.attr);

	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 10, 0x80, "link");
	put_sattr_full(&o, NULL);
	CHECK(xdr_enc_opaque(&o, "../target/file", 14));
	CHECK(decode_all(nfs3_dec_symlink_args, msg, o.len));
	CHECK(fh_is(&args.symlink.where.dir, 10, 0x80));
	CHECK(view_is(args.symlink.where.name, "link"));
	check_sattr_full(&args.symlink.attr);
	CHECK(view_is(args.symlink.path, "../target/file"));
}

static void test_mknod_args(void)
{
	struct xdr_out o;
	size_t type;

	/* CHR and BLK: devicedata3. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 8, 0x90, "null");
	type = o.len;
	CHECK(xdr_enc_u32(&o, NF3CHR));
	put_sattr_full(&o, NULL);
	CHECK(xdr_enc_u32(&o, 1) && xdr_enc_u32(&o, 3));
	CHECK(decode_all(nfs3_dec_mknod_args, msg, o.len));
	CHECK(fh_is(&args.mknod.where.dir, 8, 0x90));
	CHECK(view_is(args.mknod.where.name, "null"));
	CHECK_EQ(args.mknod.type, NF3CHR);
	check_sattr_full(&args.mknod.attr);
	CHECK_EQ(args.mknod.rdev1, 1);
	CHECK_EQ(args.mknod.rdev2, 3);
	CHECK(decode_patched(nfs3_dec_mknod_args, msg, o.len, type, NF3BLK));
	CHECK_EQ(args.mknod.type, NF3BLK);
	CHECK(!decode_patched(nfs3_dec_mknod_args, msg, o.len, type, 0));
	CHECK(!decode_patched(nfs3_dec_mknod_args, msg, o.len, type, 8));

	/* SOCK and FIFO: a sattr3. */
	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 8, 0x90, "fifo");
	type = o.len;
	CHECK(xdr_enc_u32(&o, NF3FIFO));
	put_sattr_min(&o);
	CHECK(decode_all(nfs3_dec_mknod_args, msg, o.len));
	CHECK_EQ(args.mknod.type, NF3FIFO);
	check_sattr_min(&args.mknod.attr);
	CHECK(decode_patched(nfs3_dec_mknod_args, msg, o.len, type, NF3SOCK));
	CHECK_EQ(args.mknod.type, NF3SOCK);

	/* REG, DIR, LNK: nothing follows; the procedure answers NFS3ERR_BADTYPE. */
	for (uint32_t t = NF3REG; t <= NF3LNK; t++) {
		if (t == NF3BLK || t == NF3CHR)
			continue;
		xdr_out_init(&o, msg, sizeof(msg));
		put_diropargs(&o, 8, 0x90, "reg");
		CHECK(xdr_enc_u32(&o, t));
		CHECK(decode_all(nfs3_dec_mknod_args, msg, o.len));
		CHECK_EQ(args.mknod.type, t);
	}
}

static void test_rename_link_args(void)
{
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	put_diropargs(&o, 8, 0xa0, "from");
	put_diropargs(&o, 9, 0xb0, "to.name");
	CHECK(decode_all(nfs3_dec_rename_args, msg, o.len));
	CHECK(fh_is(&args.rename.from.dir, 8, 0xa0));
	CHECK(view_is(args.rename.from.name, "from"));
	CHECK(fh_is(&args.rename.to.dir, 9, 0xb0));
	CHECK(view_is(args.rename.to.name, "to.name"));

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 32, 0xc0);
	put_diropargs(&o, 28, 0xd0, "hard");
	CHECK(decode_all(nfs3_dec_link_args, msg, o.len));
	CHECK(fh_is(&args.link.file, 32, 0xc0));
	CHECK(fh_is(&args.link.link.dir, 28, 0xd0));
	CHECK(view_is(args.link.link.name, "hard"));
}

static void test_readdir_args(void)
{
	static const uint8_t verf[NFS3_COOKIEVERFSIZE] = {1, 1, 2, 3, 5, 8, 13, 21};
	struct xdr_out o;

	xdr_out_init(&o, msg, sizeof(msg));
	put_fh(&o, 8, 0xe0);
	CHECK(xdr_enc_u64(&o, 0xfedcba9876543210ULL));
	CHECK(xdr_enc_fixed(&o, verf, sizeof(verf)));
	CHECK(xdr_enc_u32(&o, 8192));
	CHECK(decode_all(nfs3_dec_readdir_args, msg, o.len));
	CHECK(fh_is(&args.readdir.dir, 8, 0xe0));
	CHECK(args.readdir.cookie == 0xfedcba9876543210ULL);
	CHECK_MEM(args.readdir.cookieverf, verf, sizeof(verf));
	CHECK_EQ(args.readdir.count, 8192);

	CHECK(xdr_enc_u32(&o, 32768));
	CHECK(decode_all(nfs3_dec_readdirplus_args, msg, o.len));
	CHECK(fh_is(&args.readdirplus.dir, 8, 0xe0));
	CHECK(args.readdirplus.cookie == 0xfedcba9876543210ULL);
	CHECK_MEM(args.readdirplus.cookieverf, verf, sizeof(verf));
	CHECK_EQ(args.readdirplus.dircount, 8192);
	CHECK_EQ(args.readdirplus.maxcount, 32768);
}

static void test_void(void)
{
	struct xdr_cur c;
	struct xdr_out o;

	xdr_cur_init(&c, msg, 0);
	CHECK(xdr_dec_void(&c, &args));
	xdr_out_init(&o, msg, 0);
	CHECK(xdr_enc_void(&o, NULL));
	CHECK_EQ(o.len, 0);
}

/* ---- result encoders ---- */

/* Parse a fattr3 with the xdr primitives, independently of the codec. */
static bool parse_fattr(struct xdr_cur *c, struct nfs3_fattr *a)
{
	return xdr_dec_u32(c, &a->type) && xdr_dec_u32(c, &a->mode) && xdr_dec_u32(c, &a->nlink) &&
	       xdr_dec_u32(c, &a->uid) && xdr_dec_u32(c, &a->gid) && xdr_dec_u64(c, &a->size) &&
	       xdr_dec_u64(c, &a->used) && xdr_dec_u32(c, &a->rdev1) && xdr_dec_u32(c, &a->rdev2) &&
	       xdr_dec_u64(c, &a->fsid) && xdr_dec_u64(c, &a->fileid) &&
	       xdr_dec_u32(c, &a->atime.seconds) && xdr_dec_u32(c, &a->atime.nseconds) &&
	       xdr_dec_u32(c, &a->mtime.seconds) && xdr_dec_u32(c, &a->mtime.nseconds) &&
	       xdr_dec_u32(c, &a->ctime.seconds) && xdr_dec_u32(c, &a->ctime.nseconds);
}

/* Parse a post_op_attr and check it against @want (NULL: absent). */
static bool parse_post_op_attr(struct xdr_cur *c, const struct nfs3_fattr *want)
{
	struct nfs3_fattr a;
	bool present;

	if (!xdr_dec_bool(c, &present) || present != (want != NULL))
		return false;
	return !present || (parse_fattr(c, &a) && fattr_eq(&a, want));
}

/* Parse a wcc_data and check it against @w. */
static bool parse_wcc(struct xdr_cur *c, const struct nfs3_wcc_data *w)
{
	uint64_t size;
	uint32_t t[4];
	bool pre;

	if (!xdr_dec_bool(c, &pre) || pre != w->pre_present)
		return false;
	if (pre && !(xdr_dec_u64(c, &size) && xdr_dec_u32(c, &t[0]) && xdr_dec_u32(c, &t[1]) &&
		     xdr_dec_u32(c, &t[2]) && xdr_dec_u32(c, &t[3])))
		return false;
	if (pre &&
	    (size != w->pre.size || t[0] != w->pre.mtime.seconds || t[1] != w->pre.mtime.nseconds ||
	     t[2] != w->pre.ctime.seconds || t[3] != w->pre.ctime.nseconds))
		return false;
	return parse_post_op_attr(c, w->post.present ? &w->post.attr : NULL);
}

static bool parse_fh(struct xdr_cur *c, const struct nfs3_fh *want)
{
	struct xdr_view v;

	return xdr_dec_opaque(c, NFS3_FHSIZE, &v) && v.len == want->len &&
	       memcmp(v.data, want->data, v.len) == 0;
}

static const struct nfs3_wcc_data sample_wcc = {
	.pre_present = true,
	.pre = {.size = 12345, .mtime = {100, 200}, .ctime = {300, 400}},
	.post = {.present = true, .attr = {.type = NF3DIR, .mode = 0755, .fileid = 2}},
};

/*
 * Encode @res into a buffer of exactly @want bytes: it must fit, and fail cleanly in
 * every smaller buffer (each heap-allocated to size so that ASan sees any overrun).
 */
static bool encode_exact(enc_fn enc, const void *res, size_t want, struct xdr_out *o)
{
	bool ok = true;

	for (size_t cap = 0; cap < want; cap++) {
		uint8_t *b = malloc(cap ? cap : 1);
		struct xdr_out t;

		xdr_out_init(&t, b, cap);
		if (enc(&t, res)) {
			fprintf(stderr, "  encoder fit %zu bytes into %zu\n", want, cap);
			ok = false;
		}
		free(b);
	}
	xdr_out_init(o, msg, want);
	if (!enc(o, res)) {
		fprintf(stderr, "  encoder did not fit into %zu bytes\n", want);
		return false;
	}
	return ok && o->len == want;
}

static void test_wcc_results(void)
{
	struct nfs3_wccstat_res ws = {.status = NFS3ERR_NOTEMPTY, .wcc = sample_wcc};
	struct nfs3_rename_res rr = {.status = NFS3_OK, .fromdir_wcc = sample_wcc};
	struct nfs3_link_res lr = {.status = NFS3ERR_EXIST, .linkdir_wcc = sample_wcc};
	struct xdr_out o;
	struct xdr_cur c;
	uint32_t st;

	/* wcc_data with both parts present: 4 + 24 + 4 + 84. */
	CHECK(encode_exact(nfs3_enc_wccstat_res, &ws, 4 + 116, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &st) && st == NFS3ERR_NOTEMPTY);
	CHECK(parse_wcc(&c, &sample_wcc));

	CHECK(encode_exact(nfs3_enc_rename_res, &rr, 4 + 116 + 8, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &st) && st == NFS3_OK);
	CHECK(parse_wcc(&c, &sample_wcc));
	CHECK(parse_wcc(&c, &rr.todir_wcc));

	lr.file_attr.present = true;
	lr.file_attr.attr = sample_fattr;
	CHECK(encode_exact(nfs3_enc_link_res, &lr, 4 + 88 + 116, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &st) && st == NFS3ERR_EXIST);
	CHECK(parse_post_op_attr(&c, &sample_fattr));
	CHECK(parse_wcc(&c, &sample_wcc));
}

static void test_lookup_res(void)
{
	struct nfs3_lookup_res r = {
		.status = NFS3_OK,
		.fh = {.len = 6, .data = {1, 2, 3, 4, 5, 6}},
		.obj_attr = {.present = true, .attr = sample_fattr},
		.dir_attr = {.present = true, .attr = sample_fattr},
	};
	struct xdr_out o;
	struct xdr_cur c;
	uint32_t st;

	r.dir_attr.attr.type = NF3DIR;
	CHECK(encode_exact(nfs3_enc_lookup_res, &r, 4 + 12 + 88 + 88, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &st) && st == NFS3_OK);
	CHECK(parse_fh(&c, &r.fh));
	CHECK(parse_post_op_attr(&c, &sample_fattr));
	CHECK(parse_post_op_attr(&c, &r.dir_attr.attr));
	/* resfail: the directory's attributes only. */
	r.status = NFS3ERR_NOENT;
	CHECK(encode_exact(nfs3_enc_lookup_res, &r, 4 + 88, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &st) && st == NFS3ERR_NOENT);
	CHECK(parse_post_op_attr(&c, &r.dir_attr.attr));
	r.dir_attr.present = false;
	CHECK(encode_exact(nfs3_enc_lookup_res, &r, 8, &o));
}

static void test_access_readlink_res(void)
{
	struct nfs3_access_res ar = {.status = NFS3_OK, .access = 0x1f};
	struct nfs3_readlink_res rl = {.status = NFS3_OK, .path = {(const uint8_t *)"a/b", 3}};
	struct xdr_out o;
	struct xdr_cur c;
	struct xdr_view v;
	uint32_t u;

	CHECK(encode_exact(nfs3_enc_access_res, &ar, 12, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, NULL));
	CHECK(xdr_dec_u32(&c, &u) && u == 0x1f);
	ar.status = NFS3ERR_STALE;
	CHECK(encode_exact(nfs3_enc_access_res, &ar, 8, &o));

	rl.attr.present = true;
	rl.attr.attr = sample_fattr;
	CHECK(encode_exact(nfs3_enc_readlink_res, &rl, 4 + 88 + 8, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, &sample_fattr));
	CHECK(xdr_dec_string(&c, NFS3_MAXPATHLEN, &v) && view_is(v, "a/b"));
	rl.status = NFS3ERR_INVAL;
	CHECK(encode_exact(nfs3_enc_readlink_res, &rl, 4 + 88, &o));
}

static void test_read_res_by_reference(void)
{
	static uint8_t data[1001];
	struct nfs3_read_res r = {.status = NFS3_OK, .count = sizeof(data), .eof = true};
	uint8_t flat[sizeof(data) + 256];
	struct xdr_out o;
	struct xdr_cur c;
	struct xdr_view v;
	uint32_t u;
	bool eof;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	r.data.data = data;
	r.data.len = sizeof(data);
	r.attr.present = true;
	r.attr.attr = sample_fattr;
	/* Inline: status, post_op_attr, count, eof, length word, 3 bytes of padding. */
	CHECK(encode_exact(nfs3_enc_read_res, &r, 4 + 88 + 4 + 4 + 4 + 3, &o));
	CHECK_EQ(o.nseg, 1);
	CHECK(o.seg[0].ptr == data);
	CHECK_EQ(o.seg[0].len, sizeof(data));
	CHECK_EQ(o.seg[0].at, 4 + 88 + 4 + 4 + 4);
	CHECK_EQ(xdr_out_total(&o), o.len + sizeof(data));
	xdr_out_flatten(&o, flat);
	xdr_cur_init(&c, flat, xdr_out_total(&o));
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, &sample_fattr));
	CHECK(xdr_dec_u32(&c, &u) && u == sizeof(data));
	CHECK(xdr_dec_bool(&c, &eof) && eof);
	CHECK(xdr_dec_opaque(&c, NFS3_MAXDATA, &v) && v.len == sizeof(data));
	CHECK(v.len == sizeof(data) && memcmp(v.data, data, sizeof(data)) == 0);
	CHECK_EQ(xdr_cur_left(&c), 0);
	/* resfail: file_attributes only. */
	r.status = NFS3ERR_IO;
	CHECK(encode_exact(nfs3_enc_read_res, &r, 4 + 88, &o));
	CHECK_EQ(o.nseg, 0);
}

static void test_write_commit_res(void)
{
	struct nfs3_write_res w = {
		.status = NFS3_OK,
		.wcc = sample_wcc,
		.count = 4096,
		.committed = NFS3_DATA_SYNC,
		.verf = {1, 2, 3, 4, 5, 6, 7, 8},
	};
	struct nfs3_commit_res cr = {.status = NFS3_OK, .verf = {8, 7, 6, 5, 4, 3, 2, 1}};
	const uint8_t *p;
	struct xdr_out o;
	struct xdr_cur c;
	uint32_t u;

	CHECK(encode_exact(nfs3_enc_write_res, &w, 4 + 116 + 4 + 4 + 8, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_wcc(&c, &sample_wcc));
	CHECK(xdr_dec_u32(&c, &u) && u == 4096);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_DATA_SYNC);
	CHECK(xdr_dec_fixed(&c, 8, &p) && memcmp(p, w.verf, 8) == 0);
	w.status = NFS3ERR_NOSPC;
	CHECK(encode_exact(nfs3_enc_write_res, &w, 4 + 116, &o));

	CHECK(encode_exact(nfs3_enc_commit_res, &cr, 4 + 8 + 8, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_wcc(&c, &cr.wcc));
	CHECK(xdr_dec_fixed(&c, 8, &p) && memcmp(p, cr.verf, 8) == 0);
	cr.status = NFS3ERR_IO;
	CHECK(encode_exact(nfs3_enc_commit_res, &cr, 4 + 8, &o));
}

static void test_diropres(void)
{
	struct nfs3_diropres r = {
		.status = NFS3_OK,
		.obj = {.present = true, .fh = {.len = 5, .data = {9, 9, 9, 9, 9}}},
		.obj_attr = {.present = true, .attr = sample_fattr},
		.dir_wcc = sample_wcc,
	};
	struct xdr_out o;
	struct xdr_cur c;
	uint32_t u;
	bool b;

	CHECK(encode_exact(nfs3_enc_diropres, &r, 4 + 4 + 12 + 88 + 116, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(xdr_dec_bool(&c, &b) && b);
	CHECK(parse_fh(&c, &r.obj.fh));
	CHECK(parse_post_op_attr(&c, &sample_fattr));
	CHECK(parse_wcc(&c, &sample_wcc));
	CHECK_EQ(xdr_cur_left(&c), 0);
	/* resfail: dir_wcc only. */
	r.status = NFS3ERR_EXIST;
	CHECK(encode_exact(nfs3_enc_diropres, &r, 4 + 116, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3ERR_EXIST);
	CHECK(parse_wcc(&c, &sample_wcc));
}

static void test_fs_results(void)
{
	struct nfs3_fsstat_res fs = {.status = NFS3_OK,
				     .tbytes = 1,
				     .fbytes = 2,
				     .abytes = 3,
				     .tfiles = 4,
				     .ffiles = 5,
				     .afiles = 6,
				     .invarsec = 7};
	struct nfs3_fsinfo_res fi = {.status = NFS3_OK,
				     .rtmax = 1,
				     .rtpref = 2,
				     .rtmult = 3,
				     .wtmax = 4,
				     .wtpref = 5,
				     .wtmult = 6,
				     .dtpref = 7,
				     .maxfilesize = 0x7fffffffffffffffULL,
				     .time_delta = {0, 1},
				     .properties = NFS3_FSF_LINK};
	struct nfs3_pathconf_res pc = {.status = NFS3_OK,
				       .linkmax = 32000,
				       .name_max = 255,
				       .no_trunc = true,
				       .case_preserving = true};
	struct xdr_out o;
	struct xdr_cur c;
	uint64_t q;
	uint32_t u;
	bool b;

	CHECK(encode_exact(nfs3_enc_fsstat_res, &fs, 4 + 4 + 48 + 4, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, NULL));
	for (uint64_t i = 1; i <= 6; i++)
		CHECK(xdr_dec_u64(&c, &q) && q == i);
	CHECK(xdr_dec_u32(&c, &u) && u == 7);
	fs.status = NFS3ERR_IO;
	CHECK(encode_exact(nfs3_enc_fsstat_res, &fs, 8, &o));

	CHECK(encode_exact(nfs3_enc_fsinfo_res, &fi, 4 + 4 + 28 + 8 + 8 + 4, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, NULL));
	for (uint32_t i = 1; i <= 7; i++)
		CHECK(xdr_dec_u32(&c, &u) && u == i);
	CHECK(xdr_dec_u64(&c, &q) && q == 0x7fffffffffffffffULL);
	CHECK(xdr_dec_u32(&c, &u) && u == 0);
	CHECK(xdr_dec_u32(&c, &u) && u == 1);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_FSF_LINK);
	fi.status = NFS3ERR_STALE;
	CHECK(encode_exact(nfs3_enc_fsinfo_res, &fi, 8, &o));

	CHECK(encode_exact(nfs3_enc_pathconf_res, &pc, 4 + 4 + 8 + 16, &o));
	xdr_cur_init(&c, msg, o.len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, NULL));
	CHECK(xdr_dec_u32(&c, &u) && u == 32000);
	CHECK(xdr_dec_u32(&c, &u) && u == 255);
	CHECK(xdr_dec_bool(&c, &b) && b);
	CHECK(xdr_dec_bool(&c, &b) && !b);
	CHECK(xdr_dec_bool(&c, &b) && !b);
	CHECK(xdr_dec_bool(&c, &b) && b);
	pc.status = NFS3ERR_STALE;
	CHECK(encode_exact(nfs3_enc_pathconf_res, &pc, 8, &o));
}

/*
 * Parse a READDIR(PLUS) reply produced from @r and check every entry, that each one
 * takes exactly nfs3_entry_size() bytes, and the final FALSE and eof.
 */
static void check_readdir_reply(const struct nfs3_readdir_res *r, size_t len)
{
	const uint8_t *verf;
	struct xdr_cur c;
	uint32_t u, i = 0;
	bool follows, eof;

	xdr_cur_init(&c, msg, len);
	CHECK(xdr_dec_u32(&c, &u) && u == NFS3_OK);
	CHECK(parse_post_op_attr(&c, r->dir_attr.present ? &r->dir_attr.attr : NULL));
	CHECK(xdr_dec_fixed(&c, NFS3_COOKIEVERFSIZE, &verf));
	CHECK_MEM(verf, r->cookieverf, NFS3_COOKIEVERFSIZE);
	for (;;) {
		const uint8_t *start = c.p;
		const struct nfs3_entry *e = &r->entries[i];
		struct xdr_view name;
		uint64_t q;

		if (!xdr_dec_bool(&c, &follows)) {
			CHECK(false);
			return;
		}
		if (!follows)
			break;
		CHECK(i < r->nentries);
		if (i >= r->nentries)
			return;
		CHECK(xdr_dec_u64(&c, &q) && q == e->fileid);
		CHECK(xdr_dec_string(&c, NFS3_MAXNAMLEN, &name) && name.len == e->name.len &&
		      memcmp(name.data, e->name.data, name.len) == 0);
		CHECK(xdr_dec_u64(&c, &q) && q == e->cookie);
		if (r->plus) {
			CHECK(parse_post_op_attr(&c, e->attr.present ? &e->attr.attr : NULL));
			CHECK(xdr_dec_bool(&c, &follows) && follows == e->fh.present);
			if (e->fh.present)
				CHECK(parse_fh(&c, &e->fh.fh));
		}
		CHECK_EQ(c.p - start, nfs3_entry_size(e, r->plus));
		i++;
	}
	CHECK_EQ(i, r->nentries);
	CHECK(xdr_dec_bool(&c, &eof) && eof == r->eof);
	CHECK_EQ(xdr_cur_left(&c), 0);
}

static void test_readdir_res(void)
{
	struct nfs3_entry e[4] = {
		{.fileid = 2, .name = {(const uint8_t *)".", 1}, .cookie = 1},
		{.fileid = 1, .name = {(const uint8_t *)"..", 2}, .cookie = 2},
		{.fileid = 77, .name = {(const uint8_t *)"four", 4}, .cookie = 3},
		{.fileid = 78, .name = {(const uint8_t *)"seven.c", 7}, .cookie = 0xffffffff01ULL},
	};
	struct nfs3_readdir_res r = {
		.status = NFS3_OK,
		.dir_attr = {.present = true, .attr = sample_fattr},
		.cookieverf = {1, 2, 3, 4, 5, 6, 7, 8},
		.nentries = 4,
		.entries = e,
		.eof = true,
	};
	size_t want = 4 + 88 + 8 + 4 + 4;
	struct xdr_out o;

	e[0].attr.present = true;
	e[0].attr.attr = sample_fattr;
	e[0].fh.present = true;
	e[0].fh.fh.len = 7;
	e[1].fh.present = true;
	e[1].fh.fh.len = NFS3_FHSIZE;
	e[3].attr.present = true;
	e[3].attr.attr = sample_fattr;

	/* READDIR: entry3, which ignores the plus fields. */
	for (unsigned i = 0; i < 4; i++)
		want += nfs3_entry_size(&e[i], false);
	CHECK_EQ(nfs3_entry_size(&e[0], false), 4 + 8 + 8 + 8);
	CHECK_EQ(nfs3_entry_size(&e[2], false), 4 + 8 + 8 + 8);
	CHECK_EQ(nfs3_entry_size(&e[3], false), 4 + 8 + 12 + 8);
	CHECK(encode_exact(nfs3_enc_readdir_res, &r, want, &o));
	check_readdir_reply(&r, o.len);

	/* READDIRPLUS: entryplus3. */
	r.plus = true;
	r.eof = false;
	want = 4 + 88 + 8 + 4 + 4;
	for (unsigned i = 0; i < 4; i++)
		want += nfs3_entry_size(&e[i], true);
	CHECK_EQ(nfs3_entry_size(&e[0], true), 28 + 4 + 84 + 4 + 4 + 8);
	CHECK_EQ(nfs3_entry_size(&e[2], true), 28 + 4 + 4);
	CHECK(encode_exact(nfs3_enc_readdir_res, &r, want, &o));
	check_readdir_reply(&r, o.len);

	/* An empty directory listing. */
	r.nentries = 0;
	r.eof = true;
	CHECK(encode_exact(nfs3_enc_readdir_res, &r, 4 + 88 + 8 + 4 + 4, &o));
	check_readdir_reply(&r, o.len);

	/* resfail: dir_attributes only. */
	r.status = NFS3ERR_BAD_COOKIE;
	CHECK(encode_exact(nfs3_enc_readdir_res, &r, 4 + 88, &o));
}

TESTS(test_golden_getattr_args, test_golden_lookup_args, test_golden_getattr_res, test_fh_limits,
      test_setattr_args, test_lookup_long_name, test_access_args, test_read_commit_args,
      test_write_args, test_create_args, test_mkdir_symlink_args, test_mknod_args,
      test_rename_link_args, test_readdir_args, test_void, test_wcc_results, test_lookup_res,
      test_access_readlink_res, test_read_res_by_reference, test_write_commit_res, test_diropres,
      test_fs_results, test_readdir_res);
