/*
 * cachedisk.c - the volatile write cache of a cachedisk (cachedisk.h): the writes since
 * the last flush, kept in order, overlaid on reads, written to the image by a flush, and
 * kept or lost piece by piece when the power is cut.
 */
#include "cachedisk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cdisk_write {
	uint64_t off;
	uint32_t len;
	uint8_t *data;
};

struct cdisk {
	int fd;
	uint64_t size;
	uint64_t rng;
	unsigned keep_pct;
	uint64_t cache_max;
	uint64_t cached;       /* bytes in w[] */
	struct cdisk_write *w; /* oldest first */
	size_t n, cap;
	struct cdisk_stats st;
};

struct cdisk *cdisk_open(const char *path, uint64_t seed, unsigned keep_pct, uint64_t cache_max)
{
	struct cdisk *d;
	struct stat sb;

	if (keep_pct > 100) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0 || fstat(d->fd, &sb) != 0) {
		int e = errno;

		if (d->fd >= 0)
			close(d->fd);
		free(d);
		errno = e;
		return NULL;
	}
	d->size = (uint64_t)sb.st_size;
	d->rng = seed ^ 0x9e3779b97f4a7c15ull;
	d->keep_pct = keep_pct;
	d->cache_max = cache_max;
	return d;
}

uint64_t cdisk_size(const struct cdisk *d)
{
	return d->size;
}

const struct cdisk_stats *cdisk_stats(const struct cdisk *d)
{
	return &d->st;
}

static int in_range(const struct cdisk *d, uint64_t off, uint32_t len)
{
	return off <= d->size && len <= d->size - off;
}

static int image_write(struct cdisk *d, const uint8_t *p, uint64_t off, uint32_t len)
{
	while (len > 0) {
		ssize_t n = pwrite(d->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (uint32_t)n;
	}
	return 0;
}

int cdisk_read(struct cdisk *d, void *buf, uint64_t off, uint32_t len)
{
	uint8_t *p = buf;
	uint32_t got = 0;

	if (!in_range(d, off, len))
		return -EINVAL;
	while (got < len) {
		ssize_t n = pread(d->fd, p + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) { /* cannot happen inside the size, unless the image shrank */
			memset(p + got, 0, len - got);
			break;
		}
		got += (uint32_t)n;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct cdisk_write *w = &d->w[i];
		uint64_t lo = w->off > off ? w->off : off;
		uint64_t hi = w->off + w->len < off + len ? w->off + w->len : off + len;

		if (lo < hi)
			memcpy(p + (lo - off), w->data + (lo - w->off), hi - lo);
	}
	return 0;
}

/* Write the oldest @k cached writes to the image and drop them from the cache. */
static int write_back(struct cdisk *d, size_t k)
{
	int rc = 0;

	for (size_t i = 0; i < k; i++) {
		if (rc == 0)
			rc = image_write(d, d->w[i].data, d->w[i].off, d->w[i].len);
		d->cached -= d->w[i].len;
		free(d->w[i].data);
	}
	memmove(d->w, d->w + k, (d->n - k) * sizeof(*d->w));
	d->n -= k;
	return rc;
}

int cdisk_write(struct cdisk *d, const void *buf, uint64_t off, uint32_t len)
{
	struct cdisk_write *w;

	if (!in_range(d, off, len))
		return -ENOSPC;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;

		w = realloc(d->w, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		d->w = w;
		d->cap = cap;
	}
	w = &d->w[d->n];
	w->data = malloc(len ? len : 1);
	if (!w->data)
		return -ENOMEM;
	memcpy(w->data, buf, len);
	w->off = off;
	w->len = len;
	d->n++;
	d->cached += len;
	d->st.writes++;
	if (d->cached > d->cache_max) {
		/* Full: the disk writes back its oldest writes, as a real one would. */
		size_t k = 0;
		uint64_t freed = 0;

		while (k < d->n && d->cached - freed > d->cache_max / 2)
			freed += d->w[k++].len;
		d->st.written_back += k;
		return write_back(d, k);
	}
	return 0;
}

int cdisk_flush(struct cdisk *d)
{
	d->st.flushes++;
	return write_back(d, d->n);
}

/* splitmix64: the seeded coin of the cut. */
static uint64_t next_rand(struct cdisk *d)
{
	uint64_t z = (d->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int cdisk_cut(struct cdisk *d)
{
	int rc = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct cdisk_write *w = &d->w[i];
		uint64_t pos = w->off, end = w->off + w->len;

		d->st.cut_writes++;
		d->st.cut_bytes += w->len;
		while (pos < end) {
			/* A piece ends at the next CDISK_PIECE boundary of the disk. */
			uint64_t stop = (pos / CDISK_PIECE + 1) * CDISK_PIECE;

			if (stop > end)
				stop = end;
			if (next_rand(d) % 100 < d->keep_pct) {
				d->st.cut_kept++;
				if (rc == 0)
					rc = image_write(d, w->data + (pos - w->off), pos,
							 (uint32_t)(stop - pos));
			} else {
				d->st.cut_dropped++;
			}
			pos = stop;
		}
	}
	for (size_t i = 0; i < d->n; i++)
		free(d->w[i].data);
	d->n = 0;
	d->cached = 0;
	return rc;
}

void cdisk_close(struct cdisk *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->w[i].data);
	free(d->w);
	close(d->fd);
	free(d);
}
