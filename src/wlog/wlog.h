/*
 * wlog.h - the stable-write log: how a stable WRITE becomes durable without an fsync
 * of the file it changes.
 *
 * A stable WRITE is written to the file's page cache and appended, as a record, to this
 * log: a preallocated file written with O_DIRECT | O_DSYNC, so a record is on stable
 * storage when its batch's write returns (one device write, no journal commit of the
 * file system). Records arriving together share a batch (group commit). A checkpoint
 * later makes the files themselves durable (the caller's sync function: syncfs of every
 * export) and then retires every record written before it. After a crash, replay applies
 * the records that were not retired, in order, before the server serves again.
 *
 * The log knows nothing of NFS: a record is a type, an opaque key (the file handle), an
 * offset and bytes. Thread-safe; appends block (call them off the event loops).
 *
 * On disk: two 4 KiB superblock slots (the newer valid one names the oldest record still
 * needed), then a circular data area of batches, each a header with a CRC-32C, records
 * and padding to 4 KiB. Positions (LSN) grow for the life of the log, so a batch left
 * from an earlier lap never passes for the next one.
 */
#ifndef SHOAL_WLOG_H
#define SHOAL_WLOG_H

#include <stdbool.h>
#include <stdint.h>

#define WLOG_KEY_MAX  128
#define WLOG_DATA_MAX (1024 * 1024) /* largest payload of one record */

enum wlog_type {
	WLOG_WRITE = 1,	   /* write data at off */
	WLOG_TRUNCATE = 2, /* set the size to off */
};

struct wlog_rec {
	uint16_t type;
	uint16_t keylen;
	uint32_t len; /* bytes at data (WLOG_WRITE) */
	uint64_t off;
	uint64_t seq; /* filled by wlog_append() and by replay */
	const uint8_t *key;
	const uint8_t *data;
};

/* Replay: apply @r; 0 to go on, negative errno to stop the replay with that error. */
typedef int (*wlog_apply_fn)(void *arg, const struct wlog_rec *r);
/* Checkpoint: make every file write done so far durable. 0 or a negative errno. */
typedef int (*wlog_sync_fn)(void *arg);

struct wlog_opts {
	uint64_t size;	      /* bytes of a new log file (an existing one keeps its size) */
	unsigned interval_ms; /* retire records at the latest this long after they came */
};

struct wlog;

/*
 * Open the log at @path, creating and preallocating it if missing. Refuses (-EXDEV) a
 * file system that does not survive a reboot (tmpfs, ramfs). Nothing is replayed or
 * started yet: call wlog_replay(), then wlog_start().
 */
int wlog_open(const char *path, const struct wlog_opts *o, struct wlog **out);
/*
 * Apply, in order, every record not retired by a checkpoint; *napplied counts them.
 * Stops at the first batch that is incomplete or fails its checksum: its writers were
 * never answered. Returns 0, or the first error of @apply, or -EIO for a log that is
 * damaged inside a batch whose checksum holds.
 */
int wlog_replay(struct wlog *w, wlog_apply_fn apply, void *arg, uint64_t *napplied);
/*
 * Checkpoint what replay applied (@sync first), then start the thread that retires
 * records in the background. 0 or a negative errno (the log is then not usable).
 */
int wlog_start(struct wlog *w, wlog_sync_fn sync, void *arg);
/*
 * Append @r (r->seq is set). With @wait, returns once the record is on stable storage;
 * without, it is written with the next batch and in order with every later record.
 * Returns 0, -EMSGSIZE for a record too big for the log, or the error that stopped the
 * log (then and from then on the caller must make its data durable by itself, once
 * wlog_fallback() allows it).
 */
int wlog_append(struct wlog *w, struct wlog_rec *r, bool wait);
/* Return once every record up to @seq is on stable storage, sending the batch that holds
 * it if nobody has: records appended without waiting then share that one device write
 * (a group of stable WRITEs does so). 0, or the error that stopped the log, as for
 * wlog_append(). */
int wlog_wait(struct wlog *w, uint64_t seq);
/* Return once every record up to @seq is retired: its file data is durable. 0, or the
 * log's error (see wlog_fallback()), or -ESHUTDOWN while it closes. */
int wlog_retire(struct wlog *w, uint64_t seq);
/*
 * After the log failed, its records must never be replayed over data made durable
 * later by other means (an fsync). So the checkpoint thread, once the log fails, syncs
 * every file (the sync function) and deletes the log file. This waits for that and
 * returns 0 when it was done, or when the log has not failed: the caller may then
 * fsync and say its data is stable. Otherwise the negative errno that kept the log
 * from being set aside: the caller must then not acknowledge anything as stable.
 */
int wlog_fallback(struct wlog *w);
/* The sequence number the next record will get. */
uint64_t wlog_next_seq(struct wlog *w);
/* Retire everything (unless the log failed), stop the thread, close, free. */
void wlog_close(struct wlog *w);

#endif
