/*
 * cachedisk.h - a disk with a volatile write cache, for the power-loss test.
 *
 * The virtual disk of tests/kernel/power.sh used to be a plain image file: everything the
 * guest wrote reached the host's page cache at once and survived the power cut, flushed or
 * not, so a server that forgot a cache flush still passed. A cachedisk holds every write
 * since the last flush in memory, as a disk's volatile cache does: reads see it, a flush
 * writes it to the image, and when the power goes (cdisk_cut) each 4 KiB piece of it
 * reaches the image or not by a seeded coin, in the order written, as a real disk may
 * have written back any part of its cache before it lost power. It is served to qemu over
 * NBD (cachedisk_nbd.c, cachedisk_main.c).
 */
#ifndef SHOAL_CACHEDISK_H
#define SHOAL_CACHEDISK_H

#include <stdint.h>

/* Atomic unit of a write at the cut: a piece never reaches the image in part. */
#define CDISK_PIECE 4096u

/* What a cachedisk did, for its report line. */
struct cdisk_stats {
	uint64_t writes;       /* write requests taken into the cache */
	uint64_t flushes;      /* flush requests */
	uint64_t written_back; /* writes the cache wrote back on its own, being full */
	uint64_t cut_writes;   /* writes still unflushed when the power went */
	uint64_t cut_bytes;    /* their bytes */
	uint64_t cut_kept;     /* pieces of them that reached the image anyway */
	uint64_t cut_dropped;  /* pieces that were lost */
};

struct cdisk;

/*
 * cdisk_open - a cachedisk in front of the image file @path (opened read-write; its size
 * is the disk's). @seed chooses what a cut keeps; @keep_pct (0..100) is the chance of
 * each piece to be kept; @cache_max the bytes the cache holds before it writes the oldest
 * writes back on its own. NULL with errno set on failure.
 */
struct cdisk *cdisk_open(const char *path, uint64_t seed, unsigned keep_pct, uint64_t cache_max);

/* cdisk_size - the disk's size in bytes. */
uint64_t cdisk_size(const struct cdisk *d);

/*
 * cdisk_read - @len bytes at @off into @buf: the image overlaid with the cached writes,
 * newest last. 0, or -errno (-EINVAL when the range is not inside the disk).
 */
int cdisk_read(struct cdisk *d, void *buf, uint64_t off, uint32_t len);

/* cdisk_write - cache a copy of @len bytes of @buf for @off. 0, or -errno. */
int cdisk_write(struct cdisk *d, const void *buf, uint64_t off, uint32_t len);

/* cdisk_flush - write every cached write to the image, oldest first. 0, or -errno. */
int cdisk_flush(struct cdisk *d);

/*
 * cdisk_cut - the power goes: each piece of each cached write reaches the image by the
 * seeded coin, oldest first; the cache is empty afterwards. 0, or -errno.
 */
int cdisk_cut(struct cdisk *d);

/* cdisk_stats - what @d did so far. */
const struct cdisk_stats *cdisk_stats(const struct cdisk *d);

/* cdisk_close - free @d and close its image (cached writes are lost: cut first). */
void cdisk_close(struct cdisk *d);

/*
 * cdisk_nbd_serve - serve @d to one NBD client on the connected socket @fd (fixed
 * newstyle handshake, NBD_OPT_GO or NBD_OPT_EXPORT_NAME, simple replies; READ, WRITE,
 * FLUSH and DISC) until the client leaves. 0 after NBD_CMD_DISC or the end of the
 * connection, -1 after a protocol violation or an I/O error on the image (the connection
 * is then not usable). Does not close @fd.
 */
int cdisk_nbd_serve(struct cdisk *d, int fd);

#endif
