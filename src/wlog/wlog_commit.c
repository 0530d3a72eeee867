/*
 * wlog_commit.c - appending to the stable-write log (group commit) and retiring records
 * (checkpoints).
 *
 * Group commit: appenders copy their record into the filling batch. A waiting appender
 * whose record is still there sends the batch, if fewer than WLOG_INFLIGHT batches are
 * being written: it takes a spare buffer for filling, writes the full one with a single
 * O_DSYNC write outside the lock, and wakes everybody. So at low load a record costs one
 * device write, the pieces of a large WRITE are written side by side, and under load,
 * with every slot busy, one device write serves the many records that queued.
 *
 * Checkpoints run on their own thread when a quarter of the log is in use, when the
 * oldest record is opts.interval_ms old, or when wlog_retire() asks. A checkpoint notes
 * which records are on disk, calls the sync function (every file write made before those
 * records were appended is then durable), and only then writes a superblock that moves
 * the tail past them. An appender that finds the log full waits for that.
 *
 * A failure (a batch or a checkpoint that could not be written) stops the log for good.
 * The checkpoint thread then sets it aside: the sync function makes every file durable
 * and the log file is deleted, so that no later start replays an old record over data
 * that callers make durable by fsync from then on. wlog_fallback() waits for that.
 */
#include "wlog/wlog_int.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/crc32c.h"
#include "core/log.h"

/* The error of a log that failed (sticky) or, failing that, of one being closed. */
static int stopped(const struct wlog *w)
{
	return w->err ? w->err : -ESHUTDOWN;
}

/* Stop the log for good with @err (lock held), and wake the thread to set it aside. */
static void fail_locked(struct wlog *w, int err, const char *what)
{
	if (w->err)
		return;
	w->err = err;
	log_error("stable-write log: %s failed (%s); stable writes fall back to fsync once "
		  "every file is synced and the log deleted",
		  what, strerror(-err));
	pthread_cond_signal(&w->cv_work);
}

/* Whether a batch can be sent now. */
static bool can_send(const struct wlog *w)
{
	return w->nflight < WLOG_INFLIGHT && w->nrec > 0;
}

/* Whether record @seq is still in the filling batch. */
static bool filling_holds(const struct wlog *w, uint64_t seq)
{
	return seq >= w->next_seq - w->nrec;
}

/* Write the filling batch. Called with the lock held and can_send(); drops the lock
 * while the device works. */
static void write_batch(struct wlog *w)
{
	uint8_t *b = w->filling;
	struct wlog_batch h = {.magic = WLOG_BT_MAGIC,
			       .lsn = w->head_lsn,
			       .first_seq = w->next_seq - w->nrec,
			       .epoch = w->epoch,
			       .nrec = w->nrec,
			       .len = w->fill};
	uint64_t padded = wlog_round_blk(w->fill);
	struct wlog_flight *f = &w->flight[(w->fhead + w->nflight) % WLOG_INFLIGHT];
	int err;

	*f = (struct wlog_flight){.end_lsn = h.lsn + padded, .end_seq = w->next_seq};
	w->nflight++;
	w->head_lsn += padded;
	/* a buffer is spare once written, so fewer than WLOG_INFLIGHT in flight leaves one */
	w->filling = w->spare[--w->nspare];
	w->fill = sizeof(struct wlog_batch);
	w->nrec = 0;
	pthread_mutex_unlock(&w->mu);

	memcpy(b, &h, sizeof(h));
	h.crc = crc32c(0, b, h.len);
	memcpy(b, &h, sizeof(h));
	memset(b + h.len, 0, padded - h.len);
	err = wlog_io(w, true, h.lsn, b, padded);

	pthread_mutex_lock(&w->mu);
	if (err)
		fail_locked(w, err, "write");
	f->done = true;
	w->spare[w->nspare++] = b;
	/* The durable mark passes every batch written with all those before it; after a
	 * failed write nothing is durable any more, and written batches are only counted out. */
	while (w->nflight && w->flight[w->fhead].done) {
		if (!w->err) {
			w->durable_lsn = w->flight[w->fhead].end_lsn;
			w->durable_seq = w->flight[w->fhead].end_seq;
		}
		w->fhead = (w->fhead + 1) % WLOG_INFLIGHT;
		w->nflight--;
	}
	pthread_cond_broadcast(&w->cv_done);
}

/* Wait (lock held) until record @seq is on stable storage, sending the filling batch
 * while it holds the record and a slot is free. 0, or the log's error. */
static int wait_durable(struct wlog *w, uint64_t seq)
{
	while (w->durable_seq <= seq && !w->err) {
		if (filling_holds(w, seq) && can_send(w))
			write_batch(w);
		else
			pthread_cond_wait(&w->cv_done, &w->mu);
	}
	return w->durable_seq > seq ? 0 : stopped(w);
}

/* Whether the log is full enough to call for a checkpoint now. */
static bool crowded(const struct wlog *w)
{
	return w->head_lsn - w->tail_lsn + w->fill >= w->cap / 4;
}

int wlog_append(struct wlog *w, struct wlog_rec *r, bool wait)
{
	uint32_t need = wlog_rec_bytes(r->keylen, r->len);
	struct wlog_rhdr rh = {.type = r->type, .keylen = r->keylen, .len = r->len, .off = r->off};
	uint8_t *p;
	int err;

	if (r->keylen > WLOG_KEY_MAX || r->len > WLOG_DATA_MAX)
		return -EMSGSIZE;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (w->err || w->stop)
			goto out_err;
		if (w->fill + need > WLOG_BUF) { /* the filling batch is full: send it */
			if (can_send(w))
				write_batch(w);
			else
				pthread_cond_wait(&w->cv_done, &w->mu);
			continue;
		}
		if (w->head_lsn + wlog_round_blk(w->fill + need) - w->tail_lsn > w->cap) {
			pthread_cond_signal(&w->cv_work); /* full: wait for a checkpoint */
			pthread_cond_wait(&w->cv_space, &w->mu);
			continue;
		}
		break;
	}
	p = w->filling + w->fill;
	memcpy(p, &rh, sizeof(rh));
	memcpy(p + sizeof(rh), r->key, r->keylen);
	if (r->len)
		memcpy(p + sizeof(rh) + r->keylen, r->data, r->len);
	memset(p + sizeof(rh) + r->keylen + r->len, 0, need - (sizeof(rh) + r->keylen + r->len));
	w->fill += need;
	w->nrec++;
	r->seq = w->next_seq++;
	if (w->retired_seq == r->seq)
		w->oldest_ns = mono_ns(); /* the first record not retired */
	if (crowded(w))
		pthread_cond_signal(&w->cv_work);
	err = wait ? wait_durable(w, r->seq) : 0;
	pthread_mutex_unlock(&w->mu);
	return err;
out_err:
	err = stopped(w);
	pthread_mutex_unlock(&w->mu);
	return err;
}

int wlog_wait(struct wlog *w, uint64_t seq)
{
	int err;

	pthread_mutex_lock(&w->mu);
	err = wait_durable(w, seq);
	pthread_mutex_unlock(&w->mu);
	return err;
}

uint64_t wlog_next_seq(struct wlog *w)
{
	return atomic_load(&w->next_seq);
}

int wlog_retire(struct wlog *w, uint64_t seq)
{
	int err = 0;

	pthread_mutex_lock(&w->mu);
	while (w->retired_seq <= seq && !w->err && !w->stop) {
		if (w->want_seq <= seq)
			w->want_seq = seq + 1;
		pthread_cond_signal(&w->cv_work);
		pthread_cond_wait(&w->cv_space, &w->mu);
	}
	if (w->retired_seq <= seq)
		err = stopped(w);
	pthread_mutex_unlock(&w->mu);
	return err;
}

int wlog_checkpoint(struct wlog *w)
{
	uint64_t lsn, seq, upto;
	int err;

	pthread_mutex_lock(&w->mu);
	/* records appended without waiting go out now; wait for every batch sent */
	while (w->nrec && !w->err) {
		if (can_send(w))
			write_batch(w);
		else
			pthread_cond_wait(&w->cv_done, &w->mu);
	}
	upto = w->head_lsn;
	while (w->durable_lsn < upto && !w->err)
		pthread_cond_wait(&w->cv_done, &w->mu);
	err = w->err;
	lsn = w->durable_lsn;
	seq = w->durable_seq;
	pthread_mutex_unlock(&w->mu);
	if (err)
		return err;
	if (seq == w->retired_seq && lsn == w->tail_lsn && w->sb_epoch == w->epoch)
		return 0;
	/* Every record below seq was appended after its file write: sync covers them. */
	err = w->sync ? w->sync(w->sync_arg) : 0;
	if (!err)
		err = wlog_write_sb(w, lsn, seq);
	pthread_mutex_lock(&w->mu);
	if (err) {
		fail_locked(w, err, "checkpoint");
	} else {
		w->tail_lsn = lsn;
		w->retired_seq = seq;
		if (w->next_seq > seq)
			w->oldest_ns = mono_ns(); /* approximately: records came since */
	}
	pthread_cond_broadcast(&w->cv_space);
	pthread_cond_broadcast(&w->cv_done);
	pthread_mutex_unlock(&w->mu);
	return err;
}

/* Whether the checkpoint thread should run a round now; else how long it may sleep. */
static bool due(const struct wlog *w, uint64_t now, uint64_t *sleep_ns)
{
	uint64_t ival = (uint64_t)w->opts.interval_ms * 1000000u;

	*sleep_ns = ival ? ival : 1000000000u;
	if (w->next_seq == w->retired_seq)
		return false;
	if (crowded(w) || w->want_seq > w->retired_seq || now - w->oldest_ns >= ival)
		return true;
	*sleep_ns = w->oldest_ns + ival - now;
	return false;
}

/* fsync the directory that holds @path: its deletion is then durable. */
static int sync_parent(const char *path)
{
	char copy[PATH_MAX];
	int fd, err = 0;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The log failed: sync every file, then delete the log (see the top of this file). */
static void set_aside(struct wlog *w)
{
	int err = w->sync ? w->sync(w->sync_arg) : 0;

	if (!err && unlink(w->path) < 0 && errno != ENOENT)
		err = -errno;
	if (!err)
		err = sync_parent(w->path);
	if (err)
		log_error("stable-write log %s: cannot set the failed log aside (%s); stable "
			  "writes and COMMITs fail from now on",
			  w->path, strerror(-err));
	else
		log_warn("stable-write log %s: deleted after its failure, every file synced; "
			 "stable writes fsync from now on",
			 w->path);
	pthread_mutex_lock(&w->mu);
	w->fallback = err ? err : 1;
	pthread_cond_broadcast(&w->cv_done);
	pthread_mutex_unlock(&w->mu);
}

int wlog_fallback(struct wlog *w)
{
	int r;

	pthread_mutex_lock(&w->mu);
	while (w->err && !w->fallback && w->started)
		pthread_cond_wait(&w->cv_done, &w->mu);
	r = !w->err || w->fallback > 0 ? 0 : w->fallback ? w->fallback : w->err;
	pthread_mutex_unlock(&w->mu);
	return r;
}

void *wlog_thread(void *arg)
{
	struct wlog *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->stop && !w->err) {
		uint64_t sleep_ns;
		struct timespec ts;

		if (due(w, mono_ns(), &sleep_ns)) {
			pthread_mutex_unlock(&w->mu);
			wlog_checkpoint(w);
			pthread_mutex_lock(&w->mu);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)(sleep_ns / 1000000000u);
		ts.tv_nsec += (long)(sleep_ns % 1000000000u);
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->cv_work, &w->mu, &ts);
	}
	pthread_cond_broadcast(&w->cv_space);
	pthread_mutex_unlock(&w->mu);
	if (w->err) /* only this thread decides w->fallback, and it has not yet */
		set_aside(w);
	return NULL;
}
