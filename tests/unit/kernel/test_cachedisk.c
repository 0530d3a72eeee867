/*
 * test_cachedisk.c - the power-loss test's disk (tests/kernel/cachedisk.h): what a cut
 * keeps of flushed and unflushed writes, reads that see the cache, a full cache writing
 * back, and the NBD server against a hand-written client on a socket pair (handshake,
 * READ/WRITE/FLUSH, errors, and protocol violations that end the session).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../test.h"
#include "../../kernel/cachedisk.h"
#include "../../kernel/nbd_bytes.h"

#define DISK_SIZE (1024 * 1024)

/* A fresh zeroed image of DISK_SIZE bytes; its path in @path (unlink when done). */
static int make_image(char path[32])
{
	int fd;

	strcpy(path, "/tmp/cdisk-test.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, DISK_SIZE) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void fill(uint8_t *p, size_t n, uint8_t v)
{
	memset(p, v, n);
}

/* 1 when @n bytes of the image at @off all equal @v. */
static int image_is(int fd, uint64_t off, size_t n, uint8_t v)
{
	uint8_t *b = malloc(n);
	int ok = b && pread(fd, b, n, (off_t)off) == (ssize_t)n;

	for (size_t i = 0; ok && i < n; i++)
		ok = b[i] == v;
	free(b);
	return ok;
}

static void test_cut_keeps_flushed_loses_unflushed(void)
{
	static uint8_t a[8192], b[8192], r[8192];
	char path[32];
	int fd = make_image(path);
	struct cdisk *d = cdisk_open(path, 7, 0, 1 << 20);

	CHECK(fd >= 0 && d != NULL);
	if (!d)
		return;
	fill(a, sizeof(a), 0xaa);
	fill(b, sizeof(b), 0xbb);
	CHECK_EQ(cdisk_write(d, a, 4096, sizeof(a)), 0);
	CHECK(image_is(fd, 4096, sizeof(a), 0)); /* cached, not on the image yet */
	CHECK_EQ(cdisk_flush(d), 0);
	CHECK(image_is(fd, 4096, sizeof(a), 0xaa));
	CHECK_EQ(cdisk_write(d, b, 8192, sizeof(b)), 0);
	CHECK_EQ(cdisk_read(d, r, 4096, sizeof(r)), 0); /* reads see the cache */
	CHECK(r[0] == 0xaa && r[4095] == 0xaa && r[4096] == 0xbb && r[8191] == 0xbb);
	CHECK_EQ(cdisk_cut(d), 0);
	CHECK(image_is(fd, 4096, 4096, 0xaa));
	CHECK(image_is(fd, 8192, 4096, 0xaa)); /* the unflushed overwrite was lost */
	CHECK(image_is(fd, 12288, 4096, 0));
	CHECK_EQ(cdisk_stats(d)->cut_writes, 1);
	CHECK_EQ(cdisk_stats(d)->cut_kept, 0);
	CHECK_EQ(cdisk_stats(d)->cut_dropped, 2);
	CHECK_EQ(cdisk_read(d, r, 8192, 4096), 0); /* the cache is empty after the cut */
	CHECK(r[0] == 0xaa);
	cdisk_close(d);
	close(fd);
	unlink(path);
}

static void test_cut_keep_all_in_order(void)
{
	static uint8_t a[4096], b[4096];
	char path[32];
	int fd = make_image(path);
	struct cdisk *d = cdisk_open(path, 7, 100, 1 << 20);

	CHECK(fd >= 0 && d != NULL);
	if (!d)
		return;
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	CHECK_EQ(cdisk_write(d, a, 0, sizeof(a)), 0);
	CHECK_EQ(cdisk_write(d, b, 0, sizeof(b)), 0);
	CHECK_EQ(cdisk_cut(d), 0);
	CHECK(image_is(fd, 0, 4096, 2)); /* both kept: the newer one last */
	CHECK_EQ(cdisk_stats(d)->cut_kept, 2);
	cdisk_close(d);
	close(fd);
	unlink(path);
}

/* Pieces end at the disk's 4 KiB boundaries; a seeded cut keeps some and loses others,
 * the same ones for the same seed. */
static void test_cut_pieces_seeded(void)
{
	static uint8_t big[64 * 4096], odd[6000];
	uint64_t kept[2] = {0, 0};

	fill(big, sizeof(big), 0x5a);
	fill(odd, sizeof(odd), 0x77);
	for (int run = 0; run < 2; run++) {
		char path[32];
		int fd = make_image(path);
		struct cdisk *d = cdisk_open(path, 42, 50, 1 << 20);
		unsigned on_image = 0;

		CHECK(fd >= 0 && d != NULL);
		if (!d)
			return;
		CHECK_EQ(cdisk_write(d, big, 0, sizeof(big)), 0);
		CHECK_EQ(cdisk_write(d, odd, 300000 + 1000, sizeof(odd)), 0);
		CHECK_EQ(cdisk_cut(d), 0);
		CHECK_EQ(cdisk_stats(d)->cut_kept + cdisk_stats(d)->cut_dropped, 64 + 2);
		for (unsigned i = 0; i < 64; i++) {
			int is_new = image_is(fd, i * 4096ull, 4096, 0x5a);

			CHECK(is_new || image_is(fd, i * 4096ull, 4096, 0)); /* never in part */
			on_image += (unsigned)is_new;
		}
		CHECK(on_image > 0 && on_image < 64);
		kept[run] = cdisk_stats(d)->cut_kept;
		cdisk_close(d);
		close(fd);
		unlink(path);
	}
	CHECK_EQ(kept[0], kept[1]);
}

static void test_full_cache_writes_back_oldest(void)
{
	static uint8_t b[4096];
	char path[32];
	int fd = make_image(path);
	struct cdisk *d = cdisk_open(path, 1, 0, 16384);

	CHECK(fd >= 0 && d != NULL);
	if (!d)
		return;
	for (unsigned i = 0; i < 5; i++) {
		fill(b, sizeof(b), (uint8_t)(i + 1));
		CHECK_EQ(cdisk_write(d, b, i * 4096ull, sizeof(b)), 0);
	}
	/* The fifth write made 20 KiB of 16: the oldest went back until 8 KiB were left. */
	CHECK_EQ(cdisk_stats(d)->written_back, 3);
	CHECK(image_is(fd, 0, 4096, 1) && image_is(fd, 8192, 4096, 3));
	CHECK(image_is(fd, 12288, 4096, 0));
	CHECK_EQ(cdisk_cut(d), 0);
	CHECK(image_is(fd, 16384, 4096, 0));
	CHECK_EQ(cdisk_write(d, b, DISK_SIZE - 100, 200), -ENOSPC);
	CHECK_EQ(cdisk_read(d, b, DISK_SIZE, 1), -EINVAL);
	cdisk_close(d);
	close(fd);
	unlink(path);
}

/* --- the NBD server, against a client written here from the protocol document --- */

struct session {
	struct cdisk *d;
	int fd;
	int rc;
};

static void *serve(void *arg)
{
	struct session *s = arg;

	s->rc = cdisk_nbd_serve(s->d, s->fd);
	return NULL;
}

static int xfer(int fd, void *p, size_t n, int out)
{
	uint8_t *b = p;

	while (n > 0) {
		ssize_t k = out ? write(fd, b, n) : read(fd, b, n);

		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Start a server thread on a socket pair over a fresh image; the client's end in *cfd. */
static int session_start(struct session *s, pthread_t *t, char path[32], int *img, int *cfd)
{
	int sv[2];

	*img = make_image(path);
	s->d = cdisk_open(path, 3, 0, 1 << 20);
	if (*img < 0 || !s->d || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -1;
	s->fd = sv[0];
	*cfd = sv[1];
	return pthread_create(t, NULL, serve, s);
}

/* After the server thread returned: free the session, the image and the client's end. */
static void session_free(struct session *s, const char *path, int img, int cfd)
{
	close(cfd);
	close(s->fd);
	cdisk_close(s->d);
	close(img);
	unlink(path);
}

/* The greeting, the client's flags and one option header (with @len bytes of @data). */
static int hello_and_option(int fd, uint32_t opt, const void *data, uint32_t len)
{
	uint8_t g[18], h[16], f[4];

	if (xfer(fd, g, sizeof(g), 0) || get64(g) != 0x4e42444d41474943ull ||
	    get64(g + 8) != 0x49484156454f5054ull)
		return -1;
	put32(f, 3); /* FIXED_NEWSTYLE | NO_ZEROES */
	put64(h, 0x49484156454f5054ull);
	put32(h + 8, opt);
	put32(h + 12, len);
	if (xfer(fd, f, 4, 1) || xfer(fd, h, sizeof(h), 1))
		return -1;
	return len ? xfer(fd, (void *)data, len, 1) : 0;
}

/* One option reply's header; its type in *type, its data (up to @max) in @data. */
static int option_reply(int fd, uint32_t *type, uint8_t *data, uint32_t max, uint32_t *len)
{
	uint8_t h[20];

	if (xfer(fd, h, sizeof(h), 0) || get64(h) != 0x0003e889045565a9ull)
		return -1;
	*type = get32(h + 12);
	*len = get32(h + 16);
	return *len <= max ? xfer(fd, data, *len, 0) : -1;
}

/* A request; 0 with the reply's error in *err (and @rlen bytes of data into @rdata). */
static int request(int fd, uint16_t type, uint64_t off, uint32_t len, const void *wdata,
		   void *rdata, uint32_t rlen, uint32_t *err)
{
	uint8_t q[28], r[16];

	put32(q, 0x25609513u);
	q[4] = 0;
	q[5] = 0;
	q[6] = (uint8_t)(type >> 8);
	q[7] = (uint8_t)type;
	put64(q + 8, 0x1122334455667788ull + type);
	put64(q + 16, off);
	put32(q + 24, len);
	if (xfer(fd, q, sizeof(q), 1) || (wdata && xfer(fd, (void *)wdata, len, 1)))
		return -1;
	if (xfer(fd, r, sizeof(r), 0) || get32(r) != 0x67446698u ||
	    get64(r + 8) != 0x1122334455667788ull + type)
		return -1;
	*err = get32(r + 4);
	return *err == 0 && rlen ? xfer(fd, rdata, rlen, 0) : 0;
}

static void test_nbd_go_write_flush_read(void)
{
	static uint8_t a[8192], r[8192];
	uint8_t go[4 + 4 + 2 + 2], info[64];
	struct session s;
	pthread_t t;
	char path[32];
	int img, fd;
	uint32_t type, len, err = 99;

	CHECK_EQ(session_start(&s, &t, path, &img, &fd), 0);
	put32(go, 4);
	memcpy(go + 4, "disk", 4);
	go[8] = 0;
	go[9] = 1; /* one info request: NBD_INFO_BLOCK_SIZE, answered or not */
	go[10] = 0;
	go[11] = 3;
	/* An option the server does not offer first: refused, the session goes on. */
	CHECK_EQ(hello_and_option(fd, 8 /* STRUCTURED_REPLY */, NULL, 0), 0);
	CHECK_EQ(option_reply(fd, &type, info, sizeof(info), &len), 0);
	CHECK_EQ(type, 0x80000001u);
	{
		uint8_t h[16];

		put64(h, 0x49484156454f5054ull);
		put32(h + 8, 7); /* GO */
		put32(h + 12, sizeof(go));
		CHECK_EQ(xfer(fd, h, sizeof(h), 1), 0);
		CHECK_EQ(xfer(fd, go, sizeof(go), 1), 0);
	}
	CHECK_EQ(option_reply(fd, &type, info, sizeof(info), &len), 0);
	CHECK_EQ(type, 3); /* INFO */
	CHECK_EQ(len, 12);
	CHECK_EQ(get64(info + 2), DISK_SIZE);
	CHECK_EQ(info[11], 1 | 4); /* HAS_FLAGS | SEND_FLUSH */
	CHECK_EQ(option_reply(fd, &type, info, sizeof(info), &len), 0);
	CHECK_EQ(type, 1); /* ACK */

	fill(a, sizeof(a), 0x3c);
	CHECK_EQ(request(fd, 1, 0, 4096, a, NULL, 0, &err), 0); /* WRITE, then FLUSH */
	CHECK_EQ(err, 0);
	CHECK_EQ(request(fd, 3, 0, 0, NULL, NULL, 0, &err), 0);
	CHECK_EQ(err, 0);
	fill(a, sizeof(a), 0x4d);
	CHECK_EQ(request(fd, 1, 4096, 4096, a, NULL, 0, &err), 0); /* unflushed */
	CHECK_EQ(request(fd, 0, 0, 8192, NULL, r, sizeof(r), &err), 0);
	CHECK_EQ(err, 0);
	CHECK(r[0] == 0x3c && r[4096] == 0x4d);
	CHECK_EQ(request(fd, 0, DISK_SIZE - 1, 2, NULL, r, 2, &err), 0); /* past the end */
	CHECK_EQ(err, 22);
	CHECK_EQ(request(fd, 4 /* TRIM: not offered */, 0, 4096, NULL, NULL, 0, &err), 0);
	CHECK_EQ(err, 22);
	shutdown(fd, SHUT_RDWR); /* the client vanishes: the power cut */
	pthread_join(t, NULL);
	CHECK_EQ(s.rc, 0);
	CHECK_EQ(cdisk_stats(s.d)->flushes, 1);
	CHECK_EQ(cdisk_cut(s.d), 0); /* keep 0: only the flushed write is on the image */
	CHECK(image_is(img, 0, 4096, 0x3c));
	CHECK(image_is(img, 4096, 4096, 0));
	session_free(&s, path, img, fd);
}

static void test_nbd_export_name_and_disc(void)
{
	static uint8_t a[4096];
	uint8_t r[10];
	struct session s;
	pthread_t t;
	char path[32];
	int img, fd;
	uint32_t err = 99;

	CHECK_EQ(session_start(&s, &t, path, &img, &fd), 0);
	CHECK_EQ(hello_and_option(fd, 1 /* EXPORT_NAME */, "x", 1), 0);
	CHECK_EQ(xfer(fd, r, sizeof(r), 0), 0); /* NO_ZEROES: size and flags only */
	CHECK_EQ(get64(r), DISK_SIZE);
	fill(a, sizeof(a), 9);
	CHECK_EQ(request(fd, 1, 0, 4096, a, NULL, 0, &err), 0);
	CHECK_EQ(err, 0);
	{
		uint8_t q[28] = {0};

		put32(q, 0x25609513u);
		q[7] = 2; /* DISC: no reply */
		CHECK_EQ(xfer(fd, q, sizeof(q), 1), 0);
	}
	pthread_join(t, NULL);
	CHECK_EQ(s.rc, 0);
	CHECK_EQ(cdisk_stats(s.d)->writes, 1);
	CHECK_EQ(cdisk_cut(s.d), 0); /* keep 0: the unflushed write is lost */
	CHECK(image_is(img, 0, 4096, 0));
	session_free(&s, path, img, fd);
}

/* A request with a bad magic or an oversized length ends the session as a violation. */
static void test_nbd_violations(void)
{
	for (int bad = 0; bad < 2; bad++) {
		uint8_t r[10], q[28] = {0};
		struct session s;
		pthread_t t;
		char path[32];
		int img, fd;

		CHECK_EQ(session_start(&s, &t, path, &img, &fd), 0);
		CHECK_EQ(hello_and_option(fd, 1, NULL, 0), 0);
		CHECK_EQ(xfer(fd, r, sizeof(r), 0), 0);
		put32(q, bad ? 0x25609513u : 0x12345678u);
		q[7] = 1;			      /* WRITE */
		put32(q + 24, bad ? 0x7fffffffu : 4); /* oversized when the magic is good */
		CHECK_EQ(xfer(fd, q, sizeof(q), 1), 0);
		pthread_join(t, NULL);
		CHECK_EQ(s.rc, -1);
		CHECK_EQ(cdisk_stats(s.d)->writes, 0);
		session_free(&s, path, img, fd);
	}
}

TESTS(test_cut_keeps_flushed_loses_unflushed, test_cut_keep_all_in_order, test_cut_pieces_seeded,
      test_full_cache_writes_back_oldest, test_nbd_go_write_flush_read,
      test_nbd_export_name_and_disc, test_nbd_violations);
