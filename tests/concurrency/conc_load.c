/*
 * conc_load.c - fsx-style concurrency check: many clients create, rename, remove, write,
 * truncate and read in the same few directories at once, each against a model of what
 * it owns, and checkpoints compare the whole server state with the union of the models.
 *
 *   conc_load HOST EXPORT CLIENTS SECONDS CHECKPOINT_MS SEED
 *
 * Client c (a thread with its own connection) owns the names "c<c>.<k>" in directories
 * d0..d2 and the region [c * REGION, (c + 1) * REGION) of the file "shared". Its model
 * holds, per name, the directory it is in (or none), its fileid, the handle it got and
 * its exact contents. After each operation the client checks what the reply implies
 * (CREATE GUARDED of a name the model says is free must succeed; RENAME and REMOVE of
 * a name it holds must succeed; READ and GETATTR through a held handle return the
 * model's bytes, size and fileid; READDIR lists each of its names exactly where the
 * model puts it and nowhere else; a handle of a removed file is STALE, never another
 * file). Every CHECKPOINT_MS all clients pause and the main thread checks the union:
 * each directory's READDIR holds exactly the names the models hold there (none lost,
 * none duplicated, right fileids), every held handle reads its file's model, and the
 * shared file holds every client's last writes (no lost update).
 * Ports come from SHOAL_NFS_PORT / SHOAL_MOUNT_PORT. Exit 0 only if nothing mismatched.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "lib/check.h"
#include "lib/nfsc.h"

#define NDIRS	   3
#define NNAMES	   8
#define MAXCLIENTS 32
#define FMAX	   32768 /* largest file a client makes */
#define MAXWRITE   8192
#define REGION	   8192 /* each client's part of "shared" */
#define NDEAD	   32

struct obj {
	int dir; /* -1: the name does not exist */
	uint64_t fileid;
	struct nfsc_fh fh;
	uint32_t size;
	uint8_t data[FMAX];
};

struct dead {
	struct nfsc_fh fh;
	uint64_t fileid;
};

struct client {
	int id;
	pthread_t tid;
	uint64_t rng;
	struct nfsc c;
	struct obj names[NNAMES];
	struct dead dead[NDEAD];
	int ndead;
	uint8_t region[REGION];
	uint64_t ops[8];
};

enum { OP_CREATE, OP_WRITE, OP_READ, OP_TRUNC, OP_RENAME, OP_REMOVE, OP_LOOK, OP_LIST };
static const char *op_names[] = {"create", "write",  "read",   "truncate",
				 "rename", "remove", "lookup", "readdir"};

static const char *host;
static int nfs_port, rpc_timeout = 30;
static struct nfsc_fh root, dirs[NDIRS], shared;
static uint64_t shared_fileid;
static struct client clients[MAXCLIENTS];
static int nclients;
static atomic_int pause_req, stop_req;
static pthread_barrier_t barrier;

static uint64_t rnd(struct client *cl)
{
	cl->rng = nfsc_mix(cl->rng);
	return cl->rng;
}

static void fill(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(nfsc_mix(seed + i) | 1); /* never 0: a hole is always visible */
}

static void name_of(int c, int k, char *out, size_t cap)
{
	snprintf(out, cap, "c%d.%d", c, k);
}

/* A connection whose reply never came cannot be trusted: that is a failure too. */
static bool rpc_ok(struct client *cl, const char *what, int st)
{
	if (st >= 0)
		return true;
	check_fail(what, "client %d: expected a reply got %s", cl->id, cl->c.err);
	return false;
}

/* Read a whole object through @fh and compare with @len bytes of @want. */
static void check_content(struct nfsc *c, const char *what, const struct nfsc_fh *fh,
			  const uint8_t *want, uint32_t off, uint32_t len, const char *who)
{
	static _Thread_local uint8_t got[FMAX];
	uint32_t done = 0;

	while (done < len) {
		uint32_t n = 0;
		bool eof = false;
		int st = nfsc_read(c, fh, off + done, len - done, got + done, &n, &eof);

		if (st != NFS3_OK) {
			check_fail(what, "%s: READ at %u expected NFS3_OK got %s", who, off + done,
				   nfsc_stname(st));
			return;
		}
		if (n == 0)
			break;
		done += n;
	}
	if (done != len) {
		check_fail(what, "%s: expected %u bytes at %u got %u", who, len, off, done);
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		if (got[i] != want[i]) {
			check_fail(what, "%s: byte %u expected 0x%02x got 0x%02x", who, off + i,
				   want[i], got[i]);
			return;
		}
}

/* GETATTR through the held handle: the same object (fileid) of the model's size. */
static void check_attr(struct nfsc *c, const char *what, const struct obj *o, const char *who)
{
	fattr3 a;
	int st = nfsc_getattr(c, &o->fh, &a);

	if (st != NFS3_OK)
		check_fail(what, "%s: GETATTR expected NFS3_OK got %s", who, nfsc_stname(st));
	else if (a.fileid != o->fileid || a.size != o->size || a.type != NF3REG)
		check_fail(what,
			   "%s: expected fileid %" PRIu64 " size %u got fileid %" PRIu64
			   " size %" PRIu64 " type %d",
			   who, o->fileid, o->size, (uint64_t)a.fileid, (uint64_t)a.size, a.type);
}

/* A handle of a removed file must be STALE; it may never reach another object. */
static void check_dead(struct nfsc *c, const struct dead *d, const char *who)
{
	fattr3 a;
	int st = nfsc_getattr(c, &d->fh, &a);

	if (st == NFS3ERR_STALE)
		return;
	if (st == NFS3_OK && a.fileid == d->fileid && a.nlink == 0)
		return; /* still open on the server: the same, unlinked object */
	if (st == NFS3_OK)
		check_fail("dead-handle",
			   "%s: expected NFS3ERR_STALE got fileid %" PRIu64
			   " nlink %u (the file had fileid %" PRIu64 ")",
			   who, (uint64_t)a.fileid, a.nlink, d->fileid);
	else
		check_fail("dead-handle", "%s: expected NFS3ERR_STALE got %s", who,
			   nfsc_stname(st));
}

static void bury(struct client *cl, const struct obj *o)
{
	struct dead *d = &cl->dead[cl->ndead++ % NDEAD];

	d->fh = o->fh;
	d->fileid = o->fileid;
}

struct listing {
	int n;
	struct {
		char name[64];
		uint64_t fileid;
	} e[1024];
};

static void collect(void *arg, const char *name, uint64_t fileid)
{
	struct listing *l = arg;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return;
	if (l->n < (int)(sizeof(l->e) / sizeof(l->e[0]))) {
		snprintf(l->e[l->n].name, sizeof(l->e[0].name), "%s", name);
		l->e[l->n].fileid = fileid;
	}
	l->n++;
}

/* The client's own names in directory @d's listing agree with its model. */
static void check_own_listing(struct client *cl, int d, const struct listing *l)
{
	char prefix[16], who[64];

	snprintf(prefix, sizeof(prefix), "c%d.", cl->id);
	for (int k = 0; k < NNAMES; k++) {
		const struct obj *o = &cl->names[k];
		int seen = 0;
		char nm[32];

		name_of(cl->id, k, nm, sizeof(nm));
		for (int i = 0; i < l->n && i < 1024; i++) {
			if (strcmp(l->e[i].name, nm))
				continue;
			seen++;
			if (o->dir == d && l->e[i].fileid != o->fileid)
				check_fail("readdir-fileid",
					   "d%d/%s: expected fileid %" PRIu64 " got %" PRIu64, d,
					   nm, o->fileid, l->e[i].fileid);
		}
		snprintf(who, sizeof(who), "d%d/%s", d, nm);
		if (seen != (o->dir == d ? 1 : 0))
			check_fail("readdir-own", "%s: expected %d entries got %d", who,
				   o->dir == d, seen);
	}
}

static int pick_dir(struct client *cl)
{
	return (int)(rnd(cl) % NDIRS);
}

static void op_create(struct client *cl, int k, struct obj *o, const char *nm)
{
	fattr3 a;
	int d = pick_dir(cl);
	int st = nfsc_create(&cl->c, &dirs[d], nm, GUARDED, 0644, &o->fh, &a);

	if (!rpc_ok(cl, "create", st))
		return;
	if (st != NFS3_OK) {
		check_fail("create", "d%d/%s (free in the model): expected NFS3_OK got %s", d, nm,
			   nfsc_stname(st));
		return;
	}
	if (a.fileid == 0 && nfsc_getattr(&cl->c, &o->fh, &a) != NFS3_OK) {
		check_fail("create-getattr", "d%d/%s: expected attributes of the new file", d, nm);
		return;
	}
	(void)k;
	o->dir = d;
	o->fileid = a.fileid;
	o->size = 0;
}

static void op_write(struct client *cl, struct obj *o, const char *nm)
{
	static _Thread_local uint8_t buf[MAXWRITE];
	uint32_t len = 1 + (uint32_t)(rnd(cl) % MAXWRITE);
	uint32_t off = (uint32_t)(rnd(cl) % (FMAX - len + 1));
	stable_how how = rnd(cl) % 4 ? UNSTABLE : FILE_SYNC;
	uint32_t count = 0;
	int st;

	fill(buf, len, rnd(cl));
	st = nfsc_write(&cl->c, &o->fh, off, buf, len, how, &count, NULL, NULL);
	if (!rpc_ok(cl, "write", st))
		return;
	if (st != NFS3_OK || count != len) {
		check_fail("write", "%s: expected NFS3_OK count %u got %s count %u", nm, len,
			   nfsc_stname(st), count);
		return;
	}
	if (off > o->size)
		memset(o->data + o->size, 0, off - o->size);
	memcpy(o->data + off, buf, len);
	if (off + len > o->size)
		o->size = off + len;
}

static void op_trunc(struct client *cl, struct obj *o, const char *nm)
{
	uint32_t size = (uint32_t)(rnd(cl) % (FMAX + 1));
	sattr3 sa;
	int st;

	memset(&sa, 0, sizeof(sa));
	sa.size.set_it = 1;
	sa.size.set_size3_u.size = size;
	st = nfsc_setattr(&cl->c, &o->fh, &sa, NULL);
	if (!rpc_ok(cl, "truncate", st))
		return;
	if (st != NFS3_OK) {
		check_fail("truncate", "%s: expected NFS3_OK got %s", nm, nfsc_stname(st));
		return;
	}
	if (size > o->size)
		memset(o->data + o->size, 0, size - o->size);
	o->size = size;
}

static void op_rename(struct client *cl, int k, const char *nm)
{
	int k2 = (int)(rnd(cl) % NNAMES), d2 = pick_dir(cl);
	struct obj *o = &cl->names[k], *o2 = &cl->names[k2];
	char nm2[32];
	int st;

	if (k2 == k && d2 == o->dir)
		return;
	name_of(cl->id, k2, nm2, sizeof(nm2));
	st = nfsc_rename(&cl->c, &dirs[o->dir], nm, &dirs[d2], nm2);
	if (!rpc_ok(cl, "rename", st))
		return;
	if (st != NFS3_OK) {
		check_fail("rename", "d%d/%s -> d%d/%s: expected NFS3_OK got %s", o->dir, nm, d2,
			   nm2, nfsc_stname(st));
		return;
	}
	if (k2 == k) {
		o->dir = d2;
		return;
	}
	if (o2->dir >= 0) {
		/* The target name existed in o2->dir: if that is not d2, it still does. */
		if (o2->dir == d2) {
			bury(cl, o2);
		} else {
			/* Two objects now share a name in different dirs; remove the old one so
			 * that a name stays one object in the model. */
			st = nfsc_remove(&cl->c, &dirs[o2->dir], nm2);
			if (rpc_ok(cl, "rename-remove", st) && st != NFS3_OK)
				check_fail("rename-remove", "d%d/%s: expected NFS3_OK got %s",
					   o2->dir, nm2, nfsc_stname(st));
			bury(cl, o2);
		}
	}
	*o2 = *o;
	o2->dir = d2;
	o->dir = -1;
}

static void op_remove(struct client *cl, struct obj *o, const char *nm)
{
	int st = nfsc_remove(&cl->c, &dirs[o->dir], nm);

	if (!rpc_ok(cl, "remove", st))
		return;
	if (st != NFS3_OK) {
		check_fail("remove", "d%d/%s: expected NFS3_OK got %s", o->dir, nm,
			   nfsc_stname(st));
		return;
	}
	bury(cl, o);
	o->dir = -1;
}

static void op_lookup(struct client *cl, const struct obj *o, const char *nm)
{
	struct nfsc_fh fh;
	fattr3 a;
	int d = o->dir >= 0 ? o->dir : pick_dir(cl);
	int st = nfsc_lookup(&cl->c, &dirs[d], nm, &fh, &a);

	if (!rpc_ok(cl, "lookup", st))
		return;
	if (o->dir < 0) {
		if (st != NFS3ERR_NOENT)
			check_fail("lookup-absent", "d%d/%s: expected NFS3ERR_NOENT got %s", d, nm,
				   nfsc_stname(st));
		return;
	}
	if (st != NFS3_OK || a.fileid != o->fileid)
		check_fail("lookup",
			   "d%d/%s: expected NFS3_OK fileid %" PRIu64 " got %s fileid %" PRIu64, d,
			   nm, o->fileid, nfsc_stname(st), st == NFS3_OK ? (uint64_t)a.fileid : 0);
}

static void op_shared(struct client *cl)
{
	static _Thread_local uint8_t buf[REGION];
	uint32_t len = 1 + (uint32_t)(rnd(cl) % REGION);
	uint32_t off = (uint32_t)(rnd(cl) % (REGION - len + 1));
	uint32_t count = 0;
	int st;

	fill(buf, len, rnd(cl));
	st = nfsc_write(&cl->c, &shared, (uint64_t)cl->id * REGION + off, buf, len, UNSTABLE,
			&count, NULL, NULL);
	if (!rpc_ok(cl, "shared-write", st))
		return;
	if (st != NFS3_OK || count != len) {
		check_fail("shared-write", "client %d: expected NFS3_OK count %u got %s", cl->id,
			   len, nfsc_stname(st));
		return;
	}
	memcpy(cl->region + off, buf, len);
}

static void one_op(struct client *cl)
{
	int k = (int)(rnd(cl) % NNAMES);
	struct obj *o = &cl->names[k];
	uint64_t r = rnd(cl) % 100;
	char nm[32], who[64];

	name_of(cl->id, k, nm, sizeof(nm));
	snprintf(who, sizeof(who), "%s", nm);
	if (r < 8) {
		op_shared(cl);
		return;
	}
	if (r < 16) {
		struct listing *l = malloc(sizeof(*l));
		int d = pick_dir(cl);
		int st;

		if (!l)
			nfsc_die("out of memory");
		l->n = 0;
		st = nfsc_readdir(&cl->c, &dirs[d], collect, l);
		if (rpc_ok(cl, "readdir", st)) {
			if (st != NFS3_OK)
				check_fail("readdir", "d%d: expected NFS3_OK got %s", d,
					   nfsc_stname(st));
			else
				check_own_listing(cl, d, l);
		}
		free(l);
		cl->ops[OP_LIST]++;
		return;
	}
	if (r < 22) {
		op_lookup(cl, o, nm);
		cl->ops[OP_LOOK]++;
		return;
	}
	if (r < 26 && cl->ndead) {
		check_dead(&cl->c, &cl->dead[rnd(cl) % (cl->ndead < NDEAD ? cl->ndead : NDEAD)],
			   who);
		return;
	}
	if (o->dir < 0) {
		op_create(cl, k, o, nm);
		cl->ops[OP_CREATE]++;
	} else if (r < 50) {
		op_write(cl, o, nm);
		cl->ops[OP_WRITE]++;
	} else if (r < 65) {
		check_attr(&cl->c, "getattr", o, nm);
		check_content(&cl->c, "read", &o->fh, o->data, 0, o->size, nm);
		cl->ops[OP_READ]++;
	} else if (r < 72) {
		op_trunc(cl, o, nm);
		cl->ops[OP_TRUNC]++;
	} else if (r < 90) {
		op_rename(cl, k, nm);
		cl->ops[OP_RENAME]++;
	} else {
		op_remove(cl, o, nm);
		cl->ops[OP_REMOVE]++;
	}
}

static void *client_main(void *arg)
{
	struct client *cl = arg;

	if (nfsc_connect(&cl->c, host, nfs_port, rpc_timeout))
		nfsc_die("client %d: connect: %s", cl->id, cl->c.err);
	for (;;) {
		if (atomic_load(&pause_req)) {
			pthread_barrier_wait(&barrier); /* paused: main checks */
			pthread_barrier_wait(&barrier); /* resumed */
			if (atomic_load(&stop_req))
				break;
		}
		if (nfsc_broken(&cl->c))
			nfsc_die("client %d: connection lost: %s", cl->id, cl->c.err);
		one_op(cl);
	}
	nfsc_close(&cl->c);
	return NULL;
}

/* All clients paused: the server's state must equal the union of their models. */
static void checkpoint(struct nfsc *c)
{
	static struct listing l;
	static uint8_t region[REGION];

	for (int d = 0; d < NDIRS; d++) {
		int want = 0;

		l.n = 0;
		int st = nfsc_readdir(c, &dirs[d], collect, &l);

		if (st != NFS3_OK) {
			check_fail("checkpoint-readdir", "d%d: expected NFS3_OK got %s", d,
				   nfsc_stname(st));
			continue;
		}
		for (int i = 0; i < nclients; i++) {
			check_own_listing(&clients[i], d, &l);
			for (int k = 0; k < NNAMES; k++)
				want += clients[i].names[k].dir == d;
		}
		if (l.n != want)
			check_fail("checkpoint-entries",
				   "d%d: expected %d entries got %d (lost, "
				   "duplicated or foreign entries)",
				   d, want, l.n);
	}
	for (int i = 0; i < nclients; i++) {
		struct client *cl = &clients[i];

		for (int k = 0; k < NNAMES; k++) {
			const struct obj *o = &cl->names[k];
			char nm[32];

			if (o->dir < 0)
				continue;
			name_of(i, k, nm, sizeof(nm));
			check_attr(c, "checkpoint-getattr", o, nm);
			check_content(c, "checkpoint-content", &o->fh, o->data, 0, o->size, nm);
		}
		for (int j = 0; j < cl->ndead && j < NDEAD; j++)
			check_dead(c, &cl->dead[j], "checkpoint");
		memcpy(region, cl->region, REGION);
		check_content(c, "checkpoint-shared", &shared, region, (uint32_t)i * REGION, REGION,
			      "shared");
	}
}

static long now_ms(void)
{
	return (long)mono_ms();
}

static void setup(const char *export, uint64_t seed)
{
	struct nfsc c;
	static uint8_t zero[REGION * MAXCLIENTS];
	fattr3 a;
	int st;

	if (nfsc_connect(&c, host, nfsc_env().mount_port, rpc_timeout))
		nfsc_die("connect to the mount port: %s", c.err);
	st = nfsc_mnt(&c, export, &root, NULL);
	nfsc_close(&c);
	if (st != MNT3_OK)
		nfsc_die("MNT %s: expected MNT3_OK got %s", export, nfsc_mntname(st));
	if (nfsc_connect(&c, host, nfs_port, rpc_timeout))
		nfsc_die("connect: %s", c.err);
	for (int d = 0; d < NDIRS; d++) {
		char nm[16];

		snprintf(nm, sizeof(nm), "d%d", d);
		st = nfsc_mkdir(&c, &root, nm, 0755, &dirs[d]);
		if (st != NFS3_OK)
			nfsc_die("MKDIR %s: expected NFS3_OK got %s", nm, nfsc_stname(st));
	}
	st = nfsc_create(&c, &root, "shared", GUARDED, 0644, &shared, &a);
	if (st != NFS3_OK)
		nfsc_die("CREATE shared: expected NFS3_OK got %s", nfsc_stname(st));
	shared_fileid = a.fileid;
	/* The shared file starts as zeros over every region, so the model starts at zero. */
	st = nfsc_write(&c, &shared, 0, zero, (uint32_t)(nclients * REGION), FILE_SYNC, NULL, NULL,
			NULL);
	if (st != NFS3_OK)
		nfsc_die("WRITE shared: expected NFS3_OK got %s", nfsc_stname(st));
	nfsc_close(&c);
	for (int i = 0; i < nclients; i++) {
		clients[i].id = i;
		clients[i].rng = nfsc_mix(seed ^ (uint64_t)(i + 1) << 32);
		for (int k = 0; k < NNAMES; k++)
			clients[i].names[k].dir = -1;
	}
}

int main(int argc, char **argv)
{
	long end, next;
	int seconds, every, checkpoints = 0;
	uint64_t seed, total = 0, per[8] = {0};
	struct nfsc c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 7) {
		fprintf(stderr,
			"usage: conc_load HOST EXPORT CLIENTS SECONDS CHECKPOINT_MS SEED\n");
		return 2;
	}
	host = argv[1];
	nclients = atoi(argv[3]);
	seconds = atoi(argv[4]);
	every = atoi(argv[5]);
	seed = strtoull(argv[6], NULL, 0);
	if (nclients < 1 || nclients > MAXCLIENTS || seconds < 1 || every < 10)
		nfsc_die("bad CLIENTS, SECONDS or CHECKPOINT_MS");
	nfs_port = nfsc_env().nfs_port;
	rpc_timeout = nfsc_env().timeout_s;
	setup(argv[2], seed);
	if (nfsc_connect(&c, host, nfs_port, rpc_timeout))
		nfsc_die("connect: %s", c.err);
	pthread_barrier_init(&barrier, NULL, (unsigned)nclients + 1);
	for (int i = 0; i < nclients; i++)
		if (pthread_create(&clients[i].tid, NULL, client_main, &clients[i]))
			nfsc_die("pthread_create");
	end = now_ms() + seconds * 1000L;
	for (next = now_ms() + every;; next += every) {
		bool last;

		/* The interval is the experiment's pacing, not a synchronisation. */
		while (now_ms() < next && now_ms() < end)
			usleep(10000);
		last = now_ms() >= end;
		atomic_store(&stop_req, last);
		atomic_store(&pause_req, 1);
		pthread_barrier_wait(&barrier);
		atomic_store(&pause_req, 0);
		checkpoint(&c);
		checkpoints++;
		pthread_barrier_wait(&barrier);
		if (last)
			break;
	}
	for (int i = 0; i < nclients; i++) {
		pthread_join(clients[i].tid, NULL);
		for (int o = 0; o < 8; o++) {
			per[o] += clients[i].ops[o];
			total += clients[i].ops[o];
		}
	}
	nfsc_close(&c);
	printf("ops:");
	for (int o = 0; o < 8; o++)
		printf(" %s %" PRIu64, op_names[o], per[o]);
	printf("\n");
	printf("concurrency: %d clients, %" PRIu64 " ops in %d s, %d checkpoints, %d mismatches "
	       "(seed %" PRIu64 ")\n",
	       nclients, total, seconds, checkpoints, check_failures(), seed);
	return check_failures() ? 1 : 0;
}
