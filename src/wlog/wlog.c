/*
 * wlog.c - the stable-write log's file: creation, superblocks, replay, start and close.
 *
 * The file is opened O_DIRECT | O_DSYNC (O_DSYNC alone where O_DIRECT is refused), so
 * every write of it returns only once it is on stable storage (where that does not hold,
 * on ext4 without a journal, each write is followed by an fsync: wlog_flush.c). It is
 * preallocated when created, so writing into it never allocates: an O_DSYNC write then
 * needs no journal commit of the file system, only the device's write (that is the
 * whole point).
 * Superblocks alternate between two slots, so a torn superblock write leaves the other.
 */
#include "wlog/wlog_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/crc32c.h"
#include "core/fsflush.h"
#include "core/log.h"

#define MIN_CAP (4u * WLOG_BUF) /* room for a few batches between checkpoints */

int wlog_io(struct wlog *w, bool write, uint64_t lsn, void *buf, uint64_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		uint64_t pos = lsn % w->cap, n = w->cap - pos < len ? w->cap - pos : len;
		ssize_t r = write ? pwrite(w->fd, p, n, (off_t)(WLOG_SB_BYTES + pos))
				  : pread(w->fd, p, n, (off_t)(WLOG_SB_BYTES + pos));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO; /* the file is shorter than its superblock says */
		p += r;
		lsn += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return write ? wlog_mark_sync(w) : 0;
}

static uint32_t sb_crc(struct wlog_sb sb)
{
	sb.crc = 0;
	return crc32c(0, &sb, sizeof(sb));
}

int wlog_write_sb(struct wlog *w, uint64_t tail_lsn, uint64_t tail_seq)
{
	uint8_t *blk = w->buf[0] + WLOG_BUF; /* the spare block after buffer 0 */
	struct wlog_sb sb = {.magic = WLOG_SB_MAGIC,
			     .version = WLOG_VERSION,
			     .blk = WLOG_BLK,
			     .cap = w->cap,
			     .gen = w->sb_gen + 1,
			     .tail_lsn = tail_lsn,
			     .tail_seq = tail_seq,
			     .epoch = w->epoch};
	ssize_t r;

	sb.crc = sb_crc(sb);
	memset(blk, 0, WLOG_BLK);
	memcpy(blk, &sb, sizeof(sb));
	do
		r = pwrite(w->fd, blk, WLOG_BLK, (off_t)(sb.gen % 2 * WLOG_BLK));
	while (r < 0 && errno == EINTR);
	if (r != WLOG_BLK)
		return r < 0 ? -errno : -EIO;
	r = wlog_mark_sync(w);
	if (r)
		return (int)r;
	w->sb_gen = sb.gen;
	w->sb_epoch = sb.epoch;
	return 0;
}

/* The valid superblock with the highest generation; -ENOENT if neither slot holds one. */
static int read_sb(struct wlog *w, struct wlog_sb *out)
{
	uint8_t *blk = w->buf[0];
	bool found = false;

	if (pread(w->fd, blk, WLOG_SB_BYTES, 0) != (ssize_t)WLOG_SB_BYTES)
		return -EIO;
	for (unsigned i = 0; i < 2; i++) {
		struct wlog_sb sb;

		memcpy(&sb, blk + i * WLOG_BLK, sizeof(sb));
		if (sb.magic != WLOG_SB_MAGIC || sb.version != WLOG_VERSION || sb.blk != WLOG_BLK ||
		    sb.crc != sb_crc(sb) || sb.cap < MIN_CAP || sb.cap % WLOG_BLK)
			continue;
		if (!found || sb.gen > out->gen)
			*out = sb;
		found = true;
	}
	return found ? 0 : -ENOENT;
}

/* Refuse file systems whose contents do not outlive the machine's memory. */
static int check_fs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	if (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC)
		return -EXDEV;
	return 0;
}

/* Create the file: the superblocks and a data area whose blocks are all allocated. */
static int create_log(struct wlog *w, const char *path, uint64_t size)
{
	uint64_t cap = (size > WLOG_SB_BYTES ? size - WLOG_SB_BYTES : 0) / WLOG_BLK * WLOG_BLK;
	int err;

	if (cap < MIN_CAP)
		cap = MIN_CAP;
	w->cap = cap;
	err = posix_fallocate(w->fd, 0, (off_t)(WLOG_SB_BYTES + cap));
	if (err)
		return -err;
	/* Write the whole data area once: fallocate leaves extents "unwritten", and the
	 * first write into one would cost a journal commit, the cost the log avoids. */
	memset(w->buf[1], 0, WLOG_BUF);
	for (uint64_t lsn = 0; lsn < cap; lsn += WLOG_BUF) {
		uint64_t n = cap - lsn < WLOG_BUF ? cap - lsn : WLOG_BUF;

		err = wlog_io(w, true, lsn, w->buf[1], n);
		if (err)
			return err;
	}
	w->sb_gen = 0;
	w->epoch = 1;
	err = wlog_write_sb(w, 0, 1);
	if (!err && fsync(w->fd) < 0) /* the size and extents of the new file */
		err = -errno;
	if (!err)
		log_info("stable-write log %s created (%llu MiB)", path,
			 (unsigned long long)(cap >> 20));
	return err;
}

static int open_dsync(const char *path, bool *created)
{
	int fd = open(path, O_RDWR | O_CLOEXEC | O_DIRECT | O_DSYNC);

	*created = false;
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CLOEXEC | O_DIRECT | O_DSYNC | O_CREAT | O_EXCL, 0600);
		*created = fd >= 0;
	}
	if (fd < 0 && errno == EINVAL) { /* no O_DIRECT here: O_DSYNC alone still syncs */
		fd = open(path, O_RDWR | O_CLOEXEC | O_DSYNC | O_CREAT, 0600);
		*created = fd >= 0;
		if (fd >= 0) {
			struct stat st;

			*created = fstat(fd, &st) == 0 && st.st_size == 0;
		}
	}
	return fd < 0 ? -errno : fd;
}

/*
 * Open (or create) the log file O_DIRECT | O_DSYNC, O_DSYNC alone where O_DIRECT is
 * refused. Where the O_DSYNC writes would not reach stable storage (fs_flush_needs_mark()),
 * open it again without O_DSYNC and set w->mark: each write is then followed by its
 * own sync.
 */
static int open_file(struct wlog *w, const char *path, bool *created)
{
	int fd = open_dsync(path, created);
	int flags, again;

	if (fd < 0 || !fs_flush_needs_mark(fd))
		return fd;
	flags = fcntl(fd, F_GETFL);
	again = flags < 0 ? -1 : open(path, (flags & (O_RDWR | O_DIRECT)) | O_CLOEXEC);
	if (again < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	w->mark = true;
	log_info("stable-write log %s: on ext4 without a journal, each write of the log is "
		 "followed by an fsync of its own",
		 path);
	return again;
}

int wlog_open(const char *path, const struct wlog_opts *o, struct wlog **out)
{
	struct wlog *w = calloc(1, sizeof(*w));
	struct wlog_sb sb = {0};
	bool created;
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	atomic_init(&w->next_seq, 0);
	w->opts = *o;
	w->fd = -1;
	w->path = strdup(path);
	if (!w->path) {
		free(w);
		return -ENOMEM;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_done, NULL);
	pthread_cond_init(&w->cv_space, NULL);
	pthread_cond_init(&w->cv_work, NULL);
	/* buffer 0 has one spare block after it, for superblock writes */
	for (unsigned i = 0; i < WLOG_NBUF; i++)
		if (posix_memalign((void **)&w->buf[i], WLOG_BLK, WLOG_BUF + (i ? 0 : WLOG_BLK))) {
			err = -ENOMEM;
			goto fail;
		}
	err = open_file(w, path, &created);
	if (err < 0)
		goto fail;
	w->fd = err;
	err = check_fs(w->fd);
	if (err)
		goto fail;
	if (created) {
		err = create_log(w, path, o->size);
		if (err) {
			unlink(path); /* half-made: make it again next time */
			goto fail;
		}
	}
	err = read_sb(w, &sb);
	if (err) {
		log_error("stable-write log %s: no valid superblock; move it away only if "
			  "its writes are known to be in the files",
			  path);
		goto fail;
	}
	w->cap = sb.cap;
	w->sb_gen = sb.gen;
	w->epoch = w->sb_epoch = sb.epoch;
	w->tail_lsn = w->head_lsn = w->durable_lsn = sb.tail_lsn;
	w->retired_seq = w->durable_seq = sb.tail_seq;
	atomic_store(&w->next_seq, sb.tail_seq);
	w->fill = sizeof(struct wlog_batch);
	w->filling = w->buf[0];
	for (unsigned i = 1; i < WLOG_NBUF; i++)
		w->spare[w->nspare++] = w->buf[i];
	*out = w;
	return 0;
fail:
	wlog_close(w);
	return err;
}

/* Check batch @b read at @lsn, expected to start with record @seq and to be of @epoch.
 * Its length, or 0. */
static uint32_t batch_ok(const uint8_t *b, uint64_t lsn, uint64_t seq, uint64_t epoch)
{
	struct wlog_batch h;

	memcpy(&h, b, sizeof(h));
	if (h.magic != WLOG_BT_MAGIC || h.lsn != lsn || h.first_seq != seq || h.epoch != epoch ||
	    h.len < sizeof(h) || h.len > WLOG_BUF || h.nrec == 0)
		return 0;
	return h.len;
}

/* Apply the records of the checksummed batch @b; -EIO if they overrun it. */
static int apply_batch(const uint8_t *b, uint32_t len, wlog_apply_fn apply, void *arg,
		       uint64_t *napplied)
{
	struct wlog_batch h;
	uint32_t at = sizeof(h);
	int err;

	memcpy(&h, b, sizeof(h));
	for (uint32_t i = 0; i < h.nrec; i++) {
		struct wlog_rhdr rh;
		struct wlog_rec r;
		uint64_t end;

		if (len - at < sizeof(rh))
			return -EIO;
		memcpy(&rh, b + at, sizeof(rh));
		end = (uint64_t)at + sizeof(rh) + rh.keylen + rh.len;
		if (end > len || rh.keylen > WLOG_KEY_MAX || rh.len > WLOG_DATA_MAX)
			return -EIO;
		r = (struct wlog_rec){.type = rh.type,
				      .keylen = rh.keylen,
				      .len = rh.len,
				      .off = rh.off,
				      .seq = h.first_seq + i,
				      .key = b + at + sizeof(rh),
				      .data = b + at + sizeof(rh) + rh.keylen};
		err = apply(arg, &r);
		if (err)
			return err;
		(*napplied)++;
		at = (uint32_t)((end + 7) & ~7ull);
	}
	return 0;
}

int wlog_replay(struct wlog *w, wlog_apply_fn apply, void *arg, uint64_t *napplied)
{
	uint64_t lsn = w->tail_lsn, seq = w->retired_seq;
	uint8_t *b = w->buf[1];
	int err;

	*napplied = 0;
	for (;;) {
		struct wlog_batch h;
		uint32_t len, crc;

		err = wlog_io(w, false, lsn, b, WLOG_BLK);
		if (err)
			return err;
		len = batch_ok(b, lsn, seq, w->sb_epoch);
		if (!len)
			break;
		if (len > WLOG_BLK) {
			err = wlog_io(w, false, lsn + WLOG_BLK, b + WLOG_BLK,
				      wlog_round_blk(len) - WLOG_BLK);
			if (err)
				return err;
		}
		memcpy(&h, b, sizeof(h));
		crc = h.crc;
		h.crc = 0;
		memcpy(b, &h, sizeof(h));
		if (crc32c(0, b, len) != crc)
			break; /* torn: its writers never got an answer */
		err = apply_batch(b, len, apply, arg, napplied);
		if (err)
			return err;
		lsn += wlog_round_blk(len);
		seq += h.nrec;
	}
	w->head_lsn = w->durable_lsn = lsn;
	w->durable_seq = seq;
	atomic_store(&w->next_seq, seq);
	return 0;
}

int wlog_start(struct wlog *w, wlog_sync_fn sync, void *arg)
{
	int err;

	w->sync = sync;
	w->sync_arg = arg;
	/* Batches of this start carry a new epoch; the checkpoint records it. */
	w->epoch = w->sb_epoch + 1;
	err = wlog_checkpoint(w);
	if (err)
		return err;
	err = -pthread_create(&w->thr, NULL, wlog_thread, w);
	if (!err) {
		w->started = true;
		pthread_setname_np(w->thr, "shoal-wlog");
	}
	return err;
}

void wlog_close(struct wlog *w)
{
	if (!w)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_signal(&w->cv_work);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thr, NULL);
		pthread_mutex_lock(&w->mu);
		w->started = false; /* no thread will set a failed log aside now */
		pthread_cond_broadcast(&w->cv_done);
		pthread_mutex_unlock(&w->mu);
		if (!w->err && wlog_checkpoint(w))
			log_error("stable-write log: final checkpoint failed; the next start "
				  "replays it");
	}
	if (w->fd >= 0)
		close(w->fd);
	for (unsigned i = 0; i < WLOG_NBUF; i++)
		free(w->buf[i]);
	pthread_cond_destroy(&w->cv_work);
	pthread_cond_destroy(&w->cv_space);
	pthread_cond_destroy(&w->cv_done);
	pthread_mutex_destroy(&w->mu);
	free(w->path);
	free(w);
}
