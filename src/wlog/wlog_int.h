/*
 * wlog_int.h - the stable-write log's on-disk format and in-memory state, shared by
 * wlog.c (open, superblock, replay, close) and wlog_commit.c (group commit, checkpoint).
 *
 * On-disk integers are in host byte order: the log is never carried to another host.
 */
#ifndef SHOAL_WLOG_INT_H
#define SHOAL_WLOG_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "wlog/wlog.h"

#define WLOG_BLK      4096u
#define WLOG_SB_BYTES (2 * WLOG_BLK)		    /* two superblock slots, then the data area */
#define WLOG_BUF      (2u * 1024 * 1024 + WLOG_BLK) /* one batch, at most */
#define WLOG_SB_MAGIC 0x314c57414f4853ull	    /* "SHOAWL1" */
#define WLOG_BT_MAGIC 0x3154424c57414853ull	    /* "SHAWLBT1" */
#define WLOG_VERSION  2u
#define WLOG_INFLIGHT 4u		  /* batches being written at once */
#define WLOG_NBUF     (WLOG_INFLIGHT + 1) /* and the one filling */

struct wlog_sb {
	uint64_t magic;
	uint32_t version;
	uint32_t blk;
	uint64_t cap; /* bytes of the data area */
	uint64_t gen; /* the newer of the two valid slots wins */
	uint64_t tail_lsn;
	uint64_t tail_seq;
	uint64_t epoch; /* of the batches from the tail on: one per server start */
	uint32_t crc;	/* CRC-32C of this struct with crc = 0 */
	uint32_t pad;
};

struct wlog_batch {
	uint64_t magic;
	uint64_t lsn;
	uint64_t first_seq;
	uint64_t epoch; /* a batch of an earlier start, left after a torn one, is not ours */
	uint32_t nrec;
	uint32_t len; /* header + records, before the padding to WLOG_BLK */
	uint32_t crc; /* CRC-32C of the len bytes with crc = 0 */
	uint32_t pad;
};

struct wlog_rhdr {
	uint16_t type;
	uint16_t keylen;
	uint32_t len;
	uint64_t off;
	/* then the key, the data, and zeros up to a multiple of 8 bytes */
};

struct wlog {
	int fd;
	bool mark; /* writes need wlog_mark_sync() to be stable (wlog_flush.c) */
	uint64_t cap;
	struct wlog_opts opts;

	pthread_mutex_t mu;
	pthread_cond_t cv_done;	 /* a batch was written (or the log failed) */
	pthread_cond_t cv_space; /* a checkpoint freed space or retired records */
	pthread_cond_t cv_work;	 /* the checkpoint thread has something to do */

	/* Buffers: buf[0] has a spare block after it for superblock writes. */
	uint8_t *buf[WLOG_NBUF];
	uint8_t *spare[WLOG_NBUF]; /* those neither filling nor being written */
	unsigned nspare;

	/* Filling: the batch the appenders copy into. */
	uint8_t *filling;
	uint32_t fill; /* bytes in it, header included */
	uint32_t nrec; /* records in it */
	/* Of the next record: changed with the lock held, read without it by
	 * wlog_next_seq(), so that callers holding locks of their own never wait for the
	 * log's. */
	_Atomic uint64_t next_seq;
	uint64_t oldest_ns; /* when the oldest record not retired came */
	uint64_t epoch;	    /* of the batches this start writes */

	/* Writing: up to WLOG_INFLIGHT batches at once, each by the appender that sent it.
	 * flight[] holds them in log order; the durable mark moves only past a prefix of
	 * written ones, so a record is durable only when every record before it is. */
	struct wlog_flight {
		uint64_t end_lsn, end_seq;
		bool done;
	} flight[WLOG_INFLIGHT];
	unsigned fhead, nflight;
	uint64_t head_lsn;    /* where the next batch goes (reserved before it is written) */
	uint64_t durable_lsn; /* end of the last batch on disk with all before it */
	uint64_t durable_seq; /* records below it are on disk */
	int err;	      /* sticky: once the log failed, it stays failed */
	int fallback;	      /* after a failure: 1 set aside, <0 could not be, 0 not yet */

	/* Retiring. */
	uint64_t tail_lsn;    /* oldest batch still needed */
	uint64_t retired_seq; /* records below it are in durable files */
	uint64_t sb_gen, sb_epoch;
	uint64_t want_seq; /* wlog_retire() waits for records below this */
	bool stop, started;
	pthread_t thr;
	wlog_sync_fn sync;
	void *sync_arg;
	char *path; /* deleted once the log failed and every file is synced */
};

static inline uint64_t wlog_round_blk(uint64_t n)
{
	return (n + WLOG_BLK - 1) / WLOG_BLK * WLOG_BLK;
}

/* Bytes a record with a key of @keylen and @len data bytes takes in a batch. */
static inline uint32_t wlog_rec_bytes(uint32_t keylen, uint32_t len)
{
	return (uint32_t)((sizeof(struct wlog_rhdr) + keylen + len + 7) & ~7ull);
}

/* wlog.c: positional I/O of the data area, wrapping at its end. */
int wlog_io(struct wlog *w, bool write, uint64_t lsn, void *buf, uint64_t len);
/* wlog.c: write the superblock naming (tail_lsn, tail_seq, w->epoch) into the next slot. */
int wlog_write_sb(struct wlog *w, uint64_t tail_lsn, uint64_t tail_seq);

/* wlog_flush.c: after a write of the log, if w->mark, set the file's mtime to now and
 * fsync it, which flushes the disk's cache even where an O_DSYNC write would not.
 * 0 or -errno. */
int wlog_mark_sync(struct wlog *w);
/* wlog_commit.c: the checkpoint thread's body; wlog_checkpoint() runs one round. */
void *wlog_thread(void *arg);
int wlog_checkpoint(struct wlog *w);

#endif
