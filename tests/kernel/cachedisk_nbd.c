/*
 * cachedisk_nbd.c - a cachedisk served over the NBD protocol (the NetworkBlockDevice
 * project's doc/proto.md): the fixed newstyle handshake, NBD_OPT_GO (or the older
 * NBD_OPT_EXPORT_NAME) for the one export, then READ, WRITE, FLUSH and DISC with simple
 * replies, one request at a time. qemu's NBD client is the peer (tests/kernel/power.sh).
 *
 * The transmission flags offer FLUSH and nothing else: no FUA, TRIM or WRITE_ZEROES, so
 * the guest's flushes all arrive as NBD_CMD_FLUSH and every other change as a write.
 */
#include "cachedisk.h"
#include "nbd_bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NBD_MAGIC	  0x4e42444d41474943ull /* "NBDMAGIC" */
#define NBD_OPTS_MAGIC	  0x49484156454f5054ull /* "IHAVEOPT" */
#define NBD_REP_MAGIC	  0x0003e889045565a9ull
#define NBD_REQUEST_MAGIC 0x25609513u
#define NBD_SIMPLE_MAGIC  0x67446698u

#define NBD_FLAG_FIXED_NEWSTYLE 1u
#define NBD_FLAG_NO_ZEROES	2u
#define NBD_FLAG_HAS_FLAGS	1u
#define NBD_FLAG_SEND_FLUSH	4u

#define NBD_OPT_EXPORT_NAME 1u
#define NBD_OPT_ABORT	    2u
#define NBD_OPT_GO	    7u

#define NBD_REP_ACK	    1u
#define NBD_REP_INFO	    3u
#define NBD_REP_ERR_UNSUP   0x80000001u
#define NBD_REP_ERR_INVALID 0x80000003u
#define NBD_INFO_EXPORT	    0u

#define NBD_CMD_READ  0u
#define NBD_CMD_WRITE 1u
#define NBD_CMD_DISC  2u
#define NBD_CMD_FLUSH 3u

#define NBD_CMD_FLAG_FUA 1u

/* The NBD error numbers (fixed by the protocol, whatever the host's errno values). */
#define NBD_EIO	   5u
#define NBD_ENOMEM 12u
#define NBD_EINVAL 22u
#define NBD_ENOSPC 28u

/* Longest option and request payloads taken; qemu sends at most 32 MiB per request. */
#define OPT_MAX (64u * 1024)
#define REQ_MAX (32u * 1024 * 1024)

#define TX_FLAGS (NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH)

/*
 * All of @len bytes from @fd: 0, or 1 when the client is gone (the end of the connection
 * or a reset, anywhere: a power cut may come in the middle of a request, which then
 * never reached the disk).
 */
static int read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		got += (size_t)n;
	}
	return 0;
}

/* All of @len bytes to @fd: 0, or 1 when the client is gone. */
static int write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* An option reply: header, then @len bytes of @data. 0, or 1 when the client is gone. */
static int opt_reply(int fd, uint32_t opt, uint32_t type, const void *data, uint32_t len)
{
	uint8_t h[20];

	put64(h, NBD_REP_MAGIC);
	put32(h + 8, opt);
	put32(h + 12, type);
	put32(h + 16, len);
	if (write_full(fd, h, sizeof(h)))
		return 1;
	return len ? write_full(fd, data, len) : 0;
}

/*
 * NBD_OPT_GO's data: name length, name, count of info requests, the requests. Any name
 * is the one export; the info requests are answered by NBD_INFO_EXPORT alone, which the
 * protocol allows. 1 when the data is well formed.
 */
static int go_data_valid(const uint8_t *data, uint32_t len)
{
	uint32_t name_len;

	if (len < 6)
		return 0;
	name_len = get32(data);
	if (name_len > len - 6)
		return 0;
	return len == 6 + name_len + 2u * get16(data + 4 + name_len);
}

/* The answer to NBD_OPT_GO: 0 when transmission begins, 1 gone, 2 refused (go on). */
static int opt_go(struct cdisk *d, int fd, const uint8_t *data, uint32_t len)
{
	uint8_t info[12];

	if (!go_data_valid(data, len))
		return opt_reply(fd, NBD_OPT_GO, NBD_REP_ERR_INVALID, NULL, 0) ? 1 : 2;
	put16(info, NBD_INFO_EXPORT);
	put64(info + 2, cdisk_size(d));
	put16(info + 10, TX_FLAGS);
	if (opt_reply(fd, NBD_OPT_GO, NBD_REP_INFO, info, sizeof(info)) ||
	    opt_reply(fd, NBD_OPT_GO, NBD_REP_ACK, NULL, 0))
		return 1;
	return 0;
}

/*
 * The handshake, up to the transmission phase. 0 when it begins, 1 when the client left
 * (NBD_OPT_ABORT, the end of the connection), -1 on a violation of the protocol.
 */
static int handshake(struct cdisk *d, int fd)
{
	uint8_t hello[18], opt[16], r[10 + 124] = {0};
	uint32_t cflags;

	put64(hello, NBD_MAGIC);
	put64(hello + 8, NBD_OPTS_MAGIC);
	put16(hello + 16, NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES);
	if (write_full(fd, hello, sizeof(hello)) || read_full(fd, opt, 4))
		return 1;
	cflags = get32(opt);
	if (!(cflags & NBD_FLAG_FIXED_NEWSTYLE) ||
	    (cflags & ~(NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES)))
		return -1;
	for (;;) {
		uint32_t code, len;
		uint8_t *data;
		int rc;

		if (read_full(fd, opt, sizeof(opt)))
			return 1;
		code = get32(opt + 8);
		len = get32(opt + 12);
		if (get64(opt) != NBD_OPTS_MAGIC || len > OPT_MAX)
			return -1;
		data = malloc(len ? len : 1);
		if (!data)
			return -1;
		rc = read_full(fd, data, len);
		if (rc == 0 && code == NBD_OPT_GO)
			rc = opt_go(d, fd, data, len);
		free(data);
		if (rc != 2 && (rc || code == NBD_OPT_GO))
			return rc;
		if (code == NBD_OPT_EXPORT_NAME) {
			/* No option reply: the size and flags, then (without NO_ZEROES) 124 zeroes.
			 */
			put64(r, cdisk_size(d));
			put16(r + 8, TX_FLAGS);
			return write_full(fd, r, (cflags & NBD_FLAG_NO_ZEROES) ? 10 : sizeof(r));
		}
		if (code == NBD_OPT_ABORT) {
			opt_reply(fd, code, NBD_REP_ACK, NULL, 0);
			return 1;
		}
		/* Structured replies, meta contexts, TLS, lists: not offered. */
		if (code != NBD_OPT_GO && opt_reply(fd, code, NBD_REP_ERR_UNSUP, NULL, 0))
			return 1;
	}
}

/* A simple reply: 0, or 1 when the client is gone. */
static int simple_reply(int fd, uint32_t error, uint64_t cookie, const void *data, uint32_t len)
{
	uint8_t h[16];

	put32(h, NBD_SIMPLE_MAGIC);
	put32(h + 4, error);
	put64(h + 8, cookie);
	if (write_full(fd, h, sizeof(h)))
		return 1;
	return len ? write_full(fd, data, len) : 0;
}

static uint32_t nbd_errno(int rc)
{
	switch (rc) {
	case -ENOMEM:
		return NBD_ENOMEM;
	case -EINVAL:
		return NBD_EINVAL;
	case -ENOSPC:
		return NBD_ENOSPC;
	default:
		return NBD_EIO;
	}
}

/*
 * One request whose header is @req (its write payload still on @fd): 0 served, 1 the
 * client is gone, -1 a violation or a failed image (the disk can no longer be trusted).
 * @buf is the request buffer, grown as needed.
 */
static int serve_one(struct cdisk *d, int fd, const uint8_t *req, uint8_t **buf)
{
	uint16_t flags = get16(req + 4), type = get16(req + 6);
	uint64_t cookie = get64(req + 8), off = get64(req + 16);
	uint32_t len = get32(req + 24);
	int rc;

	if (get32(req) != NBD_REQUEST_MAGIC || len > REQ_MAX)
		return -1;
	switch (type) {
	case NBD_CMD_DISC:
		return 1;
	case NBD_CMD_FLUSH:
		rc = cdisk_flush(d);
		break;
	case NBD_CMD_READ:
	case NBD_CMD_WRITE:
		free(*buf);
		*buf = malloc(len ? len : 1);
		if (!*buf)
			return -1;
		if (type == NBD_CMD_READ) {
			rc = cdisk_read(d, *buf, off, len);
			if (simple_reply(fd, rc ? nbd_errno(rc) : 0, cookie, *buf, rc ? 0 : len))
				return 1;
			return rc == -EIO ? -1 : 0;
		}
		if (read_full(fd, *buf, len))
			return 1; /* a write cut short never reached the disk */
		rc = cdisk_write(d, *buf, off, len);
		if (rc == 0 && (flags & NBD_CMD_FLAG_FUA))
			rc = cdisk_flush(d); /* FUA is not offered; stronger than asked if used */
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (simple_reply(fd, rc ? nbd_errno(rc) : 0, cookie, NULL, 0))
		return 1;
	return rc && nbd_errno(rc) == NBD_EIO ? -1 : 0;
}

int cdisk_nbd_serve(struct cdisk *d, int fd)
{
	uint8_t req[28], *buf = NULL;
	int rc = handshake(d, fd);

	while (rc == 0) {
		if (read_full(fd, req, sizeof(req)))
			rc = 1; /* the client is gone: the power cut */
		else
			rc = serve_one(d, fd, req, &buf);
	}
	free(buf);
	return rc > 0 ? 0 : -1;
}
