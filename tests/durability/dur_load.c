/*
 * dur_load.c - the crash-restart load: concurrent writers whose every stable byte is
 * journaled, and a verifier that finds any acknowledged byte the server lost.
 *
 *   dur_load run HOST EXPORT EXPORT_DIR JOURNAL WRITERS KILLS SEED
 *   dur_load verify JOURNAL EXPORT_DIR
 *
 * "run" creates one file per writer and starts a round: WRITERS threads, each on its own
 * connection, write runs of 1..4 blocks at random places with FILE_SYNC, DATA_SYNC, or
 * UNSTABLE followed by COMMIT; half the stable runs of two or more blocks go as two WRITE
 * calls in flight at once, split at a block, as a client splits a large write (the
 * server makes such parts stable together, as one group), acknowledged once both
 * replies say stable. Every block carries a header (file, block, generation)
 * and bytes derived from it, so any block read back is either zero, exactly one write we
 * issued, or corrupt. Before a WRITE is sent an "I" (issued) record goes to the journal;
 * when a reply makes it stable (FILE_SYNC/DATA_SYNC reply, or a COMMIT whose verifier
 * equals that of the writes it covers) an "A" (acknowledged) record is written and the
 * journal fdatasync'ed. The tool prints "round N writing" when the writers run; a driver
 * kills the server with -9, restarts it on the same ports and state dir, and writes a
 * line to our stdin. The writers see their connections break; the tool then checks,
 * through the handles it held before the crash and directly in EXPORT_DIR, that every
 * block holds a generation at least as new as the last acknowledged one and at most the
 * last issued one, and that the write verifier differs from every earlier instance's.
 * After KILLS restarts it prints the totals and exits 0 only if nothing was lost.
 * "verify" replays a journal and checks EXPORT_DIR alone (the server stopped).
 * Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT; calls wait SHOAL_RPC_TIMEOUT s.
 * DUR_STABLE_ONLY=1 leaves out UNSTABLE+COMMIT: every acknowledged byte then came from a
 * FILE_SYNC or DATA_SYNC reply (test_log_replay.sh needs that).
 * DUR_ONE_ROUND=1 (with KILLS 0) is for a driver that cuts the server's power instead
 * (tests/kernel/power.sh): after "round 1 stopped" the tool prints the totals and exits,
 * since no server comes back; `verify` then checks what the disk kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/check.h"
#include "lib/nfsc.h"

#define BLK	 4096
#define NBLK	 64 /* blocks per file */
#define MAXFILES 64
#define MAXRUN	 4 /* blocks per WRITE */
#define MAXBATCH 6 /* UNSTABLE writes before a COMMIT */
#define MAXVERF	 1024

struct dfile {
	char name[32];
	struct nfsc_fh fh;
	uint32_t acked[NBLK];  /* newest generation acknowledged as stable, 0 none */
	uint32_t issued[NBLK]; /* newest generation sent */
	uint32_t gen;	       /* last generation used (the file's only writer bumps it) */
};

struct totals {
	uint64_t checked_bytes; /* acknowledged bytes that were looked for */
	uint64_t lost_bytes;
	uint64_t corrupt_blocks;
};

static const char *host, *export_path, *export_dir;
static int nfs_port, mount_port, rpc_timeout = 30;
static struct dfile files[MAXFILES];
static int nfiles;
static int journal_fd = -1;
static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER; /* journal_fd appends */
static atomic_uint_fast64_t n_sync_writes, n_unstable_writes, n_commits, acked_bytes;
static uint8_t verfs[MAXVERF][8]; /* the write verifier of every server instance seen */
static int nverfs;

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The contents of block @b of file @f written with generation @gen (never all zero). */
static void pattern(uint8_t *out, int f, int b, uint32_t gen)
{
	uint64_t s = nfsc_mix(((uint64_t)f << 48) ^ ((uint64_t)b << 32) ^ gen);

	put32(out, (uint32_t)f);
	put32(out + 4, (uint32_t)b);
	put32(out + 8, gen);
	put32(out + 12, ~gen);
	for (int i = 16; i < BLK; i += 8) {
		s = nfsc_mix(s);
		memcpy(out + i, &s, 8);
	}
}

/*
 * Check one block read back (@len bytes, short = zeros beyond). A block holding an
 * acknowledged generation must hold that one or a newer one we issued; anything
 * else non-zero is corrupt. Adds to @t.
 */
static void check_block(const char *where, int f, int b, const uint8_t *data, size_t len,
			struct totals *t)
{
	const struct dfile *df = &files[f];
	uint8_t want[BLK], got[BLK];
	uint32_t gen;
	bool zero = true;

	memset(got, 0, sizeof(got));
	memcpy(got, data, len < BLK ? len : BLK);
	for (int i = 0; i < BLK && zero; i++)
		zero = got[i] == 0;
	if (df->acked[b])
		t->checked_bytes += BLK;
	if (zero) {
		if (df->acked[b]) {
			t->lost_bytes += BLK;
			check_fail(where, "%s block %d: expected generation >= %u got zeros",
				   df->name, b, df->acked[b]);
		}
		return;
	}
	gen = get32(got + 8);
	pattern(want, f, b, gen);
	if (memcmp(want, got, BLK) != 0 || gen > df->issued[b]) {
		t->corrupt_blocks++;
		if (df->acked[b])
			t->lost_bytes += BLK;
		check_fail(where,
			   "%s block %d: expected a block we wrote (generation %u..%u) got %s",
			   df->name, b, df->acked[b], df->issued[b],
			   memcmp(want, got, BLK) ? "bytes we never wrote"
						  : "a generation never sent");
		return;
	}
	if (gen < df->acked[b]) {
		t->lost_bytes += BLK;
		check_fail(where, "%s block %d: expected generation >= %u (acknowledged) got %u",
			   df->name, b, df->acked[b], gen);
	}
}

static void check_file_bytes(const char *where, int f, const uint8_t *buf, size_t size,
			     struct totals *t)
{
	for (int b = 0; b < NBLK; b++) {
		size_t off = (size_t)b * BLK;
		size_t len = off >= size ? 0 : size - off < BLK ? size - off : BLK;

		check_block(where, f, b, buf + off, len, t);
	}
	if (size > (size_t)NBLK * BLK)
		check_fail(where, "%s: expected at most %d bytes got %zu", files[f].name,
			   NBLK * BLK, size);
}

/* Read file @f from the export directory itself, bypassing the server. */
static void check_file_direct(int f, struct totals *t)
{
	static uint8_t buf[NBLK * BLK + 1];
	char path[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", export_dir, files[f].name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		check_fail("direct-open", "%s: expected to open it got %s", path, strerror(errno));
		/* A file that is gone lost every byte acknowledged in it. */
		for (int b = 0; b < NBLK; b++)
			if (files[f].acked[b]) {
				t->checked_bytes += BLK;
				t->lost_bytes += BLK;
			}
		return;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0) {
		check_fail("direct-read", "%s: %s", path, strerror(errno));
		return;
	}
	check_file_bytes("direct", f, buf, (size_t)n, t);
}

static void journal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void journal(const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&journal_lock);
	if (write(journal_fd, line, (size_t)n) != n)
		nfsc_die("journal write: %s", strerror(errno));
	/* An acknowledgement is on disk before we rely on it. */
	if (line[0] == 'A' && fdatasync(journal_fd) != 0)
		nfsc_die("journal fdatasync: %s", strerror(errno));
	pthread_mutex_unlock(&journal_lock);
}

static int nfs_connect(struct nfsc *c, int port)
{
	return nfsc_connect(c, host, port, rpc_timeout);
}

struct pending {
	int b, n;
	uint32_t gen;
	uint8_t verf[8];
};

struct writer {
	int f;
	uint64_t rng;
	uint8_t verf[8]; /* this instance's verifier, from the first reply */
	bool have_verf;
	pthread_t tid;
};

static uint64_t rnd(uint64_t *s)
{
	*s = nfsc_mix(*s);
	return *s;
}

static void ack(struct dfile *df, const struct pending *p)
{
	journal("A %d %d %d %u\n", (int)(df - files), p->b, p->n, p->gen);
	for (int i = 0; i < p->n; i++)
		if (df->acked[p->b + i] < p->gen)
			df->acked[p->b + i] = p->gen;
	atomic_fetch_add(&acked_bytes, (uint64_t)p->n * BLK);
}

static void note_verf(struct writer *w, const uint8_t verf[8])
{
	if (!w->have_verf) {
		memcpy(w->verf, verf, 8);
		w->have_verf = true;
	} else if (memcmp(w->verf, verf, 8) != 0) {
		check_fail("verf-constant", "%s: expected one write verifier per server instance",
			   files[w->f].name);
	}
}

/* Send one WRITE of a run of blocks; -1 when the connection broke, 1 on another error. */
static int write_run(struct nfsc *c, struct writer *w, stable_how how, struct pending *p)
{
	struct dfile *df = &files[w->f];
	static _Thread_local uint8_t buf[MAXRUN * BLK];
	stable_how committed = UNSTABLE;
	uint32_t count = 0;
	int st;

	p->n = 1 + (int)(rnd(&w->rng) % MAXRUN);
	p->b = (int)(rnd(&w->rng) % (NBLK - p->n + 1));
	p->gen = ++df->gen;
	for (int i = 0; i < p->n; i++) {
		pattern(buf + (size_t)i * BLK, w->f, p->b + i, p->gen);
		df->issued[p->b + i] = p->gen;
	}
	journal("I %d %d %d %u\n", w->f, p->b, p->n, p->gen);
	if (how != UNSTABLE && p->n > 1 && rnd(&w->rng) % 2)
		st = nfsc_write_split(c, &df->fh, (uint64_t)p->b * BLK, buf, (uint32_t)p->n * BLK,
				      (uint32_t)(p->n / 2) * BLK, how, &count, &committed, p->verf);
	else
		st = nfsc_write(c, &df->fh, (uint64_t)p->b * BLK, buf, (uint32_t)p->n * BLK, how,
				&count, &committed, p->verf);
	if (st < 0)
		return -1;
	if (st != NFS3_OK) {
		check_fail("write", "%s: expected NFS3_OK got %s", df->name, nfsc_stname(st));
		return 1;
	}
	note_verf(w, p->verf);
	if (count != (uint32_t)p->n * BLK) {
		check_fail("write-count", "%s: expected %d bytes written got %u", df->name,
			   p->n * BLK, count);
		return 1;
	}
	if (how != UNSTABLE) {
		if (committed < how) {
			check_fail("write-committed", "%s: asked stable %d got committed %d",
				   df->name, how, committed);
			return 1;
		}
		atomic_fetch_add(&n_sync_writes, 1);
		ack(df, p);
	} else {
		atomic_fetch_add(&n_unstable_writes, 1);
		if (committed != UNSTABLE)
			ack(df, p); /* the server chose to make it stable at once */
	}
	return 0;
}

static bool stable_only; /* DUR_STABLE_ONLY=1 */
static bool one_round;	 /* DUR_ONE_ROUND=1 */

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct nfsc c;

	if (nfs_connect(&c, nfs_port)) {
		check_fail("writer-connect", "%s", c.err);
		return NULL;
	}
	for (;;) {
		uint64_t r = rnd(&w->rng) % (stable_only ? 2 : 3);
		struct pending batch[MAXBATCH];
		uint8_t verf[8];
		int n, st;

		if (r < 2) {
			st = write_run(&c, w, r == 0 ? FILE_SYNC : DATA_SYNC, &batch[0]);
			if (st)
				break;
			continue;
		}
		n = 1 + (int)(rnd(&w->rng) % MAXBATCH);
		for (int i = 0; i < n; i++)
			if (write_run(&c, w, UNSTABLE, &batch[i]))
				goto out;
		st = nfsc_commit(&c, &files[w->f].fh, verf);
		if (st < 0)
			break;
		if (st != NFS3_OK) {
			check_fail("commit", "%s: expected NFS3_OK got %s", files[w->f].name,
				   nfsc_stname(st));
			break;
		}
		atomic_fetch_add(&n_commits, 1);
		note_verf(w, verf);
		/* Only writes whose verifier the COMMIT's matches are covered by it. */
		for (int i = 0; i < n; i++)
			if (memcmp(batch[i].verf, verf, 8) == 0)
				ack(&files[w->f], &batch[i]);
	}
out:
	nfsc_close(&c);
	return NULL;
}

static void do_mount(struct nfsc_fh *root)
{
	struct nfsc mc;
	int st;

	if (nfs_connect(&mc, mount_port))
		nfsc_die("connect to mount port %d: %s", mount_port, mc.err);
	st = nfsc_mnt(&mc, export_path, root, NULL);
	nfsc_close(&mc);
	if (st != MNT3_OK)
		nfsc_die("MNT %s: expected MNT3_OK got %s", export_path, nfsc_mntname(st));
}

/* Verify every file through NFS with the handles held from before the restart. */
static void verify_nfs(struct nfsc *c, struct totals *t)
{
	static uint8_t buf[NBLK * BLK];

	for (int f = 0; f < nfiles; f++) {
		fattr3 a;
		size_t size;
		int st = nfsc_getattr(c, &files[f].fh, &a);

		if (st != NFS3_OK) {
			check_fail("handle-after-restart", "%s: expected GETATTR NFS3_OK got %s",
				   files[f].name, nfsc_stname(st));
			continue;
		}
		size = a.size > sizeof(buf) ? sizeof(buf) : (size_t)a.size;
		memset(buf, 0, sizeof(buf));
		for (size_t off = 0; off < size;) {
			uint32_t want = size - off > 65536 ? 65536 : (uint32_t)(size - off);
			uint32_t got = 0;
			bool eof = false;

			st = nfsc_read(c, &files[f].fh, off, want, buf + off, &got, &eof);
			if (st != NFS3_OK) {
				check_fail("read-after-restart",
					   "%s at %zu: expected NFS3_OK got %s", files[f].name, off,
					   nfsc_stname(st));
				break;
			}
			if (got == 0)
				break;
			off += got;
		}
		check_file_bytes("nfs", f, buf, size, t);
	}
}

/* The verifier of the new instance (from a COMMIT) must be one never seen before. */
static void check_new_verf(struct nfsc *c)
{
	uint8_t v[8];
	int st = nfsc_commit(c, &files[0].fh, v);

	if (st != NFS3_OK) {
		check_fail("verf-new", "COMMIT: expected NFS3_OK got %s", nfsc_stname(st));
		return;
	}
	for (int i = 0; i < nverfs; i++)
		if (memcmp(verfs[i], v, 8) == 0) {
			check_fail("verf-new",
				   "expected a new write verifier after restart %d, got "
				   "that of instance %d",
				   nverfs, i);
			return;
		}
	if (nverfs < MAXVERF)
		memcpy(verfs[nverfs++], v, 8);
}

/* Wait for a line on stdin (the driver's "restarted"), at most @secs seconds. */
static bool wait_go(int secs)
{
	struct pollfd p = {.fd = 0, .events = POLLIN};
	char line[64];

	if (poll(&p, 1, secs * 1000) <= 0)
		return false;
	return fgets(line, sizeof(line), stdin) != NULL;
}

static int cmd_run(char **argv)
{
	int nwriters = atoi(argv[4]), kills = atoi(argv[5]);
	uint64_t seed = strtoull(argv[6], NULL, 0);
	struct writer ws[MAXFILES];
	struct totals all = {0};
	struct nfsc_fh root, root2;
	struct nfsc c;

	host = argv[0];
	export_path = argv[1];
	export_dir = argv[2];
	if (nwriters < 1 || nwriters > MAXFILES || kills < 0)
		nfsc_die("bad WRITERS or KILLS");
	journal_fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (journal_fd < 0)
		nfsc_die("journal %s: %s", argv[3], strerror(errno));
	do_mount(&root);
	if (nfs_connect(&c, nfs_port))
		nfsc_die("connect to nfs port %d: %s", nfs_port, c.err);
	nfiles = nwriters;
	for (int f = 0; f < nfiles; f++) {
		int st;

		snprintf(files[f].name, sizeof(files[f].name), "dur.%d", f);
		st = nfsc_create(&c, &root, files[f].name, GUARDED, 0644, &files[f].fh, NULL);
		if (st != NFS3_OK)
			nfsc_die("CREATE %s: expected NFS3_OK got %s", files[f].name,
				 nfsc_stname(st));
		journal("F %d %s\n", f, files[f].name);
	}
	check_new_verf(&c);
	nfsc_close(&c);
	for (int round = 1;; round++) {
		struct totals t = {0};

		for (int i = 0; i < nwriters; i++) {
			ws[i] = (struct writer){.f = i,
						.rng = seed ^ nfsc_mix((uint64_t)round << 8 | i)};
			if (pthread_create(&ws[i].tid, NULL, writer_main, &ws[i]))
				nfsc_die("pthread_create");
		}
		if (round > kills) {
			/* The last round ends by a clean stop, so there is nothing to wait for:
			 * the writers run until the driver stops the server (SIGTERM). */
			printf("round %d writing (final)\n", round);
		} else {
			printf("round %d writing\n", round);
		}
		fflush(stdout);
		for (int i = 0; i < nwriters; i++)
			pthread_join(ws[i].tid, NULL);
		printf("round %d stopped\n", round);
		fflush(stdout);
		if (one_round)
			break; /* the power was cut: no server comes back to verify through */
		if (!wait_go(rpc_timeout * 2))
			nfsc_die("expected a line on stdin after the server restarted");
		/* Same mount root across the restart, and the old handles still work. */
		do_mount(&root2);
		if (root2.len != root.len || memcmp(root2.data, root.data, root.len))
			check_fail("root-handle", "expected the same root handle after restart %d",
				   round);
		if (nfs_connect(&c, nfs_port))
			nfsc_die("reconnect to nfs port %d: %s", nfs_port, c.err);
		verify_nfs(&c, &t);
		for (int f = 0; f < nfiles; f++)
			check_file_direct(f, &t);
		check_new_verf(&c);
		nfsc_close(&c);
		printf("round %d verified: %" PRIu64 " stable bytes checked (twice), %" PRIu64
		       " lost, %" PRIu64 " corrupt blocks\n",
		       round, t.checked_bytes / 2, t.lost_bytes, t.corrupt_blocks);
		all.checked_bytes += t.checked_bytes / 2;
		all.lost_bytes += t.lost_bytes;
		all.corrupt_blocks += t.corrupt_blocks;
		if (round > kills)
			break;
	}
	printf("writes %" PRIuFAST64 " stable, %" PRIuFAST64 " unstable, %" PRIuFAST64
	       " commits; %" PRIuFAST64 " bytes acknowledged as stable\n",
	       n_sync_writes, n_unstable_writes, n_commits, acked_bytes);
	if (one_round) {
		close(journal_fd);
		return check_failures() ? 1 : 0;
	}
	printf("verifiers %d distinct\n", nverfs);
	printf("crash-restart: %d kills, %" PRIu64 " bytes lost (%" PRIu64
	       " stable bytes checked after restarts, %" PRIu64 " corrupt blocks, seed %" PRIu64
	       ")\n",
	       kills, all.lost_bytes, all.checked_bytes, all.corrupt_blocks, seed);
	close(journal_fd);
	return check_failures() || all.lost_bytes ? 1 : 0;
}

/* Replay the journal into files[], then check EXPORT_DIR. */
static int cmd_verify(const char *jpath, const char *dir)
{
	FILE *j = fopen(jpath, "r");
	struct totals t = {0};
	char line[256];

	if (!j)
		nfsc_die("journal %s: %s", jpath, strerror(errno));
	export_dir = dir;
	while (fgets(line, sizeof(line), j)) {
		int f, b, n;
		unsigned gen;
		char name[32];

		if (sscanf(line, "F %d %31s", &f, name) == 2 && f >= 0 && f < MAXFILES) {
			snprintf(files[f].name, sizeof(files[f].name), "%s", name);
			nfiles = f + 1 > nfiles ? f + 1 : nfiles;
		} else if (sscanf(line, "I %d %d %d %u", &f, &b, &n, &gen) == 4 && f >= 0 &&
			   f < nfiles && b >= 0 && n > 0 && b + n <= NBLK) {
			for (int i = 0; i < n; i++)
				if (files[f].issued[b + i] < gen)
					files[f].issued[b + i] = gen;
		} else if (sscanf(line, "A %d %d %d %u", &f, &b, &n, &gen) == 4 && f >= 0 &&
			   f < nfiles && b >= 0 && n > 0 && b + n <= NBLK) {
			for (int i = 0; i < n; i++)
				if (files[f].acked[b + i] < gen)
					files[f].acked[b + i] = gen;
		} else {
			nfsc_die("journal %s: bad line '%s'", jpath, line);
		}
	}
	fclose(j);
	for (int f = 0; f < nfiles; f++)
		check_file_direct(f, &t);
	printf("journal verify: %d files, %" PRIu64 " stable bytes checked, %" PRIu64
	       " lost, %" PRIu64 " corrupt blocks\n",
	       nfiles, t.checked_bytes, t.lost_bytes, t.corrupt_blocks);
	return check_failures() || t.lost_bytes ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nfsc_env env;
	const char *p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	env = nfsc_env();
	nfs_port = env.nfs_port;
	mount_port = env.mount_port;
	rpc_timeout = env.timeout_s;
	p = getenv("DUR_STABLE_ONLY");
	stable_only = p && strcmp(p, "1") == 0;
	p = getenv("DUR_ONE_ROUND");
	one_round = p && strcmp(p, "1") == 0;
	if (argc == 9 && strcmp(argv[1], "run") == 0)
		return cmd_run(argv + 2);
	if (argc == 4 && strcmp(argv[1], "verify") == 0)
		return cmd_verify(argv[2], argv[3]);
	fprintf(stderr, "usage: dur_load run HOST EXPORT EXPORT_DIR JOURNAL WRITERS KILLS SEED\n"
			"       dur_load verify JOURNAL EXPORT_DIR\n");
	return 2;
}
