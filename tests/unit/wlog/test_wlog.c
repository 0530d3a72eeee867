/*
 * test_wlog.c - the stable-write log: what a crash leaves is replayed, in order, and
 * nothing else.
 *
 * A "crash" is a child process that appends and then _exit()s without closing the log;
 * the parent then opens the same file and replays it. Covered: records that were waited
 * for come back with their bytes; records retired by a checkpoint do not; a record
 * appended without waiting comes back ahead of a later waited one; records appended
 * without waiting and then waited for once share one batch; a torn batch ends
 * the replay; the circular area wraps many times; concurrent appenders share batches and
 * lose nothing; a clean close leaves nothing; tmpfs is refused; a log that fails is set
 * aside (files synced, log deleted) before wlog_fallback() lets callers fsync, and one
 * that cannot be set aside is kept and reported. Files live in a
 * test_disk_dir() directory (on disk, as O_DIRECT needs).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit/test.h"
#include "wlog/wlog_int.h"

#define MIB (1024 * 1024)

static char dir[64], path[128];
static int syncs;
static int sync_result; /* what the sync function returns */

static int count_sync(void *arg)
{
	(void)arg;
	syncs++;
	return sync_result;
}

static void setup(void)
{
	test_disk_dir(dir, sizeof(dir), "shoal-wlog");
	snprintf(path, sizeof(path), "%s/stable.log", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static int refuse(void *arg, const struct wlog_rec *r)
{
	(void)arg;
	(void)r;
	return -EEXIST;
}

/* A log opened, replayed (nothing expected) and started. */
static struct wlog *open_started(void)
{
	struct wlog_opts o = {.size = 16 * MIB, .interval_ms = 3600 * 1000};
	struct wlog *w = NULL;
	uint64_t n = 0;

	if (wlog_open(path, &o, &w) || wlog_replay(w, refuse, NULL, &n) ||
	    wlog_start(w, count_sync, NULL)) {
		fprintf(stderr, "cannot open %s\n", path);
		_exit(99);
	}
	return w;
}

/* Bytes a batch holding one record with a key of @keylen and @len data bytes takes. */
static uint64_t batch_span(uint32_t keylen, uint32_t len)
{
	return wlog_round_blk(sizeof(struct wlog_batch) + wlog_rec_bytes(keylen, len));
}

/* Fill @buf with bytes that depend on @tag. */
static void pattern(uint8_t *buf, size_t len, unsigned tag)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 31 + tag * 7 + (i >> 9));
}

static int append(struct wlog *w, uint16_t type, unsigned tag, uint64_t off, uint32_t len,
		  bool wait, uint64_t *seq)
{
	uint8_t *data = malloc(len ? len : 1); /* appenders may run on several threads */
	char key[16];
	struct wlog_rec r = {.type = type, .off = off, .len = len, .data = data};
	int err;

	if (!data)
		return -ENOMEM;

	snprintf(key, sizeof(key), "file-%u", tag);
	r.key = (const uint8_t *)key;
	r.keylen = (uint16_t)strlen(key);
	pattern(data, len, tag);
	err = wlog_append(w, &r, wait);
	free(data);
	if (seq)
		*seq = r.seq;
	return err;
}

/* What replay handed over: tags (from the key), types, offsets, and a data check. */
struct seen {
	unsigned n;
	unsigned tag[4096];
	uint16_t type[4096];
	uint64_t off[4096], seq[4096];
	bool data_ok;
};

static int collect(void *arg, const struct wlog_rec *r)
{
	struct seen *s = arg;
	static uint8_t want[WLOG_DATA_MAX];
	char key[16];
	unsigned tag = 0;

	if (s->n >= 4096 || r->keylen < 6 || r->keylen > 15)
		return -E2BIG;
	memcpy(key, r->key, r->keylen); /* keys are bytes, not strings */
	key[r->keylen] = '\0';
	sscanf(key + 5, "%u", &tag);
	pattern(want, r->len, tag);
	if (memcmp(want, r->data, r->len) != 0)
		s->data_ok = false;
	s->tag[s->n] = tag;
	s->type[s->n] = r->type;
	s->off[s->n] = r->off;
	s->seq[s->n] = r->seq;
	s->n++;
	return 0;
}

/* Open the crashed log and replay it into @s. */
static int replay(struct seen *s)
{
	struct wlog_opts o = {.size = 16 * MIB, .interval_ms = 1000};
	struct wlog *w = NULL;
	uint64_t n = 0;
	int err;

	memset(s, 0, sizeof(*s));
	s->data_ok = true;
	err = wlog_open(path, &o, &w);
	if (err)
		return err;
	err = wlog_replay(w, collect, s, &n);
	CHECK_EQ(n, s->n);
	if (!err)
		err = wlog_start(w, count_sync, NULL); /* retires what was replayed */
	wlog_close(w);
	return err;
}

/* Run @fn in a child that then dies without closing anything. */
static void crash_after(void (*fn)(void))
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		fn();
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Three waited records, each its own batch: 4 KiB, 32 KiB and 7 bytes. */
static int append_three(struct wlog *w)
{
	return append(w, WLOG_WRITE, 1, 0, 4096, true, NULL) ||
	       append(w, WLOG_WRITE, 2, 8192, 32768, true, NULL) ||
	       append(w, WLOG_WRITE, 3, 100, 7, true, NULL);
}

static void writes_three(void)
{
	if (append_three(open_started()))
		_exit(1);
}

static void test_waited_records_come_back(void)
{
	struct seen s;

	setup();
	crash_after(writes_three);
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 3);
	CHECK(s.data_ok);
	CHECK_EQ(s.tag[0], 1);
	CHECK_EQ(s.tag[2], 3);
	CHECK_EQ(s.off[1], 8192);
	CHECK_EQ(s.off[2], 100);
	CHECK(s.seq[1] == s.seq[0] + 1 && s.seq[2] == s.seq[1] + 1);
	/* the replay was retired: a second one finds nothing */
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 0);
	teardown();
}

static void retire_first(void)
{
	struct wlog *w = open_started();
	uint64_t seq;

	if (append(w, WLOG_WRITE, 1, 0, 4096, true, &seq) || wlog_retire(w, seq) || syncs < 1 ||
	    append(w, WLOG_WRITE, 2, 0, 512, true, NULL))
		_exit(1);
}

/* writes_three(), then a fourth record as long as the third. */
static void writes_four(void)
{
	struct wlog *w = open_started();

	if (append_three(w) || append(w, WLOG_WRITE, 4, 200, 7, true, NULL))
		_exit(1);
}

static void test_retired_records_do_not(void)
{
	struct seen s;

	setup();
	crash_after(retire_first);
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.tag[0], 2);
	CHECK(s.data_ok);
	teardown();
}

static void unwaited_then_waited(void)
{
	struct wlog *w = open_started();

	if (append(w, WLOG_TRUNCATE, 5, 123, 0, false, NULL) ||
	    append(w, WLOG_WRITE, 6, 0, 100, true, NULL))
		_exit(1);
}

static void test_unwaited_record_is_ordered(void)
{
	struct seen s;

	setup();
	crash_after(unwaited_then_waited);
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.type[0], WLOG_TRUNCATE);
	CHECK_EQ(s.off[0], 123);
	CHECK_EQ(s.type[1], WLOG_WRITE);
	teardown();
}

/* Three records appended without waiting, then one wait for the last: a group of
 * stable WRITEs does so, and the three must go out as one batch, all on disk when the
 * wait returns. */
static void three_then_wait(void)
{
	struct wlog *w = open_started();
	uint64_t before = w->head_lsn, seq[3];

	if (append(w, WLOG_WRITE, 7, 0, 32768, false, &seq[0]) ||
	    append(w, WLOG_WRITE, 7, 32768, 32768, false, &seq[1]) ||
	    append(w, WLOG_WRITE, 8, 0, 512, false, &seq[2]) || wlog_wait(w, seq[2]) ||
	    w->durable_seq <= seq[2])
		_exit(1);
	if (w->head_lsn - before !=
	    wlog_round_blk(sizeof(struct wlog_batch) + 2 * wlog_rec_bytes(6, 32768) +
			   wlog_rec_bytes(6, 512)))
		_exit(2);			     /* not one batch */
	if (wlog_wait(w, seq[0]) || wlog_wait(w, 0)) /* on disk already: at once */
		_exit(3);
}

static void test_unwaited_records_share_the_wait(void)
{
	struct seen s;

	setup();
	crash_after(three_then_wait);
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 3);
	CHECK(s.data_ok);
	CHECK_EQ(s.off[1], 32768);
	CHECK_EQ(s.tag[2], 8);
	teardown();
}

/* Flip a byte in the header of the third batch that writes_three() left. */
static void tear_third_batch(void)
{
	struct wlog_sb sb[2];
	uint8_t byte;
	int fd = open(path, O_RDWR);

	CHECK(fd >= 0);
	CHECK(pread(fd, &sb[0], sizeof(sb[0]), 0) == (ssize_t)sizeof(sb[0]));
	CHECK(pread(fd, &sb[1], sizeof(sb[1]), WLOG_BLK) == (ssize_t)sizeof(sb[1]));
	{
		const struct wlog_sb *cur = sb[1].gen > sb[0].gen ? &sb[1] : &sb[0];
		uint64_t lsn = cur->tail_lsn + batch_span(6, 4096) + batch_span(6, 32768);
		off_t at = WLOG_SB_BYTES + (off_t)(lsn % cur->cap) + 20;

		CHECK(pread(fd, &byte, 1, at) == 1);
		byte ^= 0x40;
		CHECK(pwrite(fd, &byte, 1, at) == 1);
	}
	close(fd);
}

static int accept_all(void *arg, const struct wlog_rec *r)
{
	(void)arg;
	(void)r;
	return 0;
}

/* Replays what the torn log holds (two records), then writes one record where the
 * third batch was, as long as it was, and dies. */
static void restart_and_rewrite(void)
{
	struct wlog_opts o = {.size = 16 * MIB, .interval_ms = 3600 * 1000};
	struct wlog *w = NULL;
	uint64_t n = 0;

	if (wlog_open(path, &o, &w) || wlog_replay(w, accept_all, NULL, &n) || n != 2 ||
	    wlog_start(w, count_sync, NULL))
		_exit(1);
	if (append(w, WLOG_WRITE, 7, 0, 7, true, NULL))
		_exit(2);
}

static void test_batch_of_earlier_start_ignored(void)
{
	struct seen s;

	setup();
	crash_after(writes_four);
	tear_third_batch();
	crash_after(restart_and_rewrite);
	/* The fourth batch of the first start still lies right after the new record,
	 * where the log goes on, with the next position and sequence number: only its
	 * epoch tells it from a batch of this start. */
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.tag[0], 7);
	teardown();
}

static void test_torn_batch_ends_replay(void)
{
	struct seen s;

	setup();
	crash_after(writes_three);
	tear_third_batch();
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.tag[1], 2);
	teardown();
}

/* Over 20 laps of the 8 MiB area with a checkpoint every 40 records; the last 25 stay. */
static void many_laps(void)
{
	struct wlog *w = open_started();
	uint64_t seq;

	for (unsigned i = 0; i < 6025; i++) {
		if (append(w, WLOG_WRITE, i % 1000, i, 30000, true, &seq))
			_exit(1);
		if (i % 40 == 39 && i < 6000 && wlog_retire(w, seq))
			_exit(2);
	}
}

static void test_wraps_around(void)
{
	struct seen s;

	setup();
	crash_after(many_laps);
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 25);
	CHECK(s.data_ok);
	for (unsigned i = 0; i < s.n && i < 25; i++)
		CHECK_EQ(s.off[i], 6000 + i);
	teardown();
}

struct appender {
	struct wlog *w;
	unsigned tag;
};

static void *append_many(void *arg)
{
	struct appender *a = arg;

	for (unsigned i = 0; i < 200; i++)
		if (append(a->w, WLOG_WRITE, a->tag, i, 1000 + i, true, NULL))
			_exit(3);
	return NULL;
}

static void concurrent(void)
{
	struct wlog *w = open_started();
	struct appender a[4];
	pthread_t t[4];

	for (unsigned i = 0; i < 4; i++) {
		a[i] = (struct appender){.w = w, .tag = 10 + i};
		pthread_create(&t[i], NULL, append_many, &a[i]);
	}
	for (unsigned i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static void test_concurrent_appenders(void)
{
	struct seen s;
	unsigned per[4] = {0};
	uint64_t next_off[4] = {0};
	bool ordered = true;

	setup();
	crash_after(concurrent);
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 800);
	CHECK(s.data_ok);
	for (unsigned i = 0; i < s.n; i++) {
		unsigned k = s.tag[i] - 10;

		if (k >= 4)
			continue;
		/* each thread's records come back in the order it appended them */
		if (s.off[i] != next_off[k])
			ordered = false;
		next_off[k]++;
		per[k]++;
		if (i && s.seq[i] != s.seq[i - 1] + 1)
			ordered = false;
	}
	CHECK(ordered);
	for (unsigned k = 0; k < 4; k++)
		CHECK_EQ(per[k], 200);
	teardown();
}

static void test_clean_close_leaves_nothing(void)
{
	struct wlog *w;
	struct seen s;
	int before;

	setup();
	w = open_started();
	CHECK_EQ(append(w, WLOG_WRITE, 1, 0, 4096, true, NULL), 0);
	before = syncs;
	wlog_close(w);
	CHECK(syncs > before); /* closing synced the files before retiring the record */
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 0);
	teardown();
}

static void test_oversized_record_refused(void)
{
	struct wlog *w;

	setup();
	w = open_started();
	CHECK_EQ(append(w, WLOG_WRITE, 1, 0, WLOG_DATA_MAX + 1, true, NULL), -EMSGSIZE);
	wlog_close(w);
	teardown();
}

/* Make every later write of the log fail, as a failing disk would (EBADF here). */
static void break_log(struct wlog *w)
{
	int ro = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(ro >= 0);
	CHECK(dup2(ro, w->fd) == w->fd);
	close(ro);
}

/* A failed log is set aside: files synced, log deleted, so nothing old comes back over
 * what the caller fsyncs from then on. */
static void test_failed_log_is_set_aside(void)
{
	struct wlog *w;
	struct seen s;
	struct stat st;
	int before;

	setup();
	w = open_started();
	CHECK_EQ(append(w, WLOG_WRITE, 1, 0, 4096, true, NULL), 0);
	break_log(w);
	before = syncs;
	CHECK(append(w, WLOG_WRITE, 2, 0, 4096, true, NULL) < 0);
	CHECK_EQ(wlog_fallback(w), 0);
	CHECK(syncs > before);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	CHECK(append(w, WLOG_WRITE, 3, 0, 4096, true, NULL) < 0); /* failed for good */
	CHECK_EQ(wlog_fallback(w), 0);
	wlog_close(w);
	CHECK_EQ(replay(&s), 0); /* the next start makes a new, empty log */
	CHECK_EQ(s.n, 0);
	teardown();
}

/* A failed log whose files cannot be synced stays, and the caller is told not to say
 * anything is stable; the next start replays what it holds. */
static void test_failed_log_not_set_aside(void)
{
	struct wlog *w;
	struct seen s;
	struct stat st;

	setup();
	w = open_started();
	CHECK_EQ(append(w, WLOG_WRITE, 1, 0, 4096, true, NULL), 0);
	break_log(w);
	sync_result = -EIO;
	CHECK(append(w, WLOG_WRITE, 2, 0, 4096, true, NULL) < 0);
	CHECK_EQ(wlog_fallback(w), -EIO);
	CHECK_EQ(stat(path, &st), 0);
	wlog_close(w);
	sync_result = 0;
	CHECK_EQ(replay(&s), 0);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.tag[0], 1);
	teardown();
}

static void test_tmpfs_refused(void)
{
	struct wlog_opts o = {.size = 16 * MIB, .interval_ms = 1000};
	struct wlog *w = NULL;
	struct stat st;

	if (stat("/dev/shm", &st) != 0) {
		fprintf(stderr, "no /dev/shm: tmpfs refusal not checked\n");
		CHECK(0);
		return;
	}
	CHECK_EQ(wlog_open("/dev/shm/shoal-wlog-test.log", &o, &w), -EXDEV);
	CHECK(w == NULL);
	unlink("/dev/shm/shoal-wlog-test.log");
}

/* This binary's futimens(3) and fsync(2) count their calls (appenders may run on
 * several threads), then do their work. */
static atomic_int futimens_calls, fsync_calls;

int futimens(int fd, const struct timespec times[2])
{
	futimens_calls++;
	return (int)syscall(SYS_utimensat, fd, NULL, times, 0);
}

int fsync(int fd)
{
	fsync_calls++;
	return (int)syscall(SYS_fsync, fd);
}

/* Where O_DSYNC writes would not flush (w->mark), every write of the log is followed by
 * an mtime update and an fsync; elsewhere by neither. */
static void test_marked_log_syncs_each_write(void)
{
	struct wlog *w;
	uint64_t seq;

	setup();
	w = open_started();
	w->mark = false;
	atomic_store(&futimens_calls, 0);
	atomic_store(&fsync_calls, 0);
	CHECK_EQ(append(w, WLOG_WRITE, 1, 0, 4096, true, &seq), 0);
	CHECK_EQ(futimens_calls, 0);
	CHECK_EQ(fsync_calls, 0);
	w->mark = true;
	CHECK_EQ(append(w, WLOG_WRITE, 2, 0, 4096, true, &seq), 0);
	CHECK(futimens_calls >= 1);
	CHECK_EQ(fsync_calls, futimens_calls);
	atomic_store(&futimens_calls, 0);
	CHECK_EQ(wlog_write_sb(w, w->tail_lsn, w->retired_seq), 0); /* superblocks too */
	CHECK_EQ(futimens_calls, 1);
	wlog_close(w);
	teardown();
}

TESTS(test_failed_log_is_set_aside, test_failed_log_not_set_aside, test_waited_records_come_back,
      test_retired_records_do_not, test_unwaited_record_is_ordered,
      test_unwaited_records_share_the_wait, test_torn_batch_ends_replay,
      test_batch_of_earlier_start_ignored, test_wraps_around, test_concurrent_appenders,
      test_clean_close_leaves_nothing, test_oversized_record_refused, test_tmpfs_refused,
      test_marked_log_syncs_each_write)
