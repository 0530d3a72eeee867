/*
 * engine_op.c - one load process's operations: choosing an operation from the mix and
 * its file from the fileset, sending its RPCs, and completing it when the replies are
 * in. A READ or WRITE larger than the transfer size is one logical operation made of
 * several RPCs, at most cfg.biod of them in flight (docs/sfs-workload.md 1.2, 1.7).
 *
 * Choices that follow the workload document: READ at a random block-aligned offset
 * such that the transfer fits in the file (1.3 [C]); WRITE appends in append_pct of
 * cases and otherwise overwrites at a random block-aligned offset; appends stop while
 * the working set is above 110 % of its planned bytes (our mechanism for the 100-110 %
 * band [U]); a share of LOOKUPs asks for names that do not exist (35 % [U]), whose
 * NFS3ERR_NOENT is the expected answer; GETATTR, ACCESS and SETATTR use the non-I/O
 * files, READ and WRITE the working set of I/O files (1.4 [C]).
 */
#include "engine_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nfs3/nfs3_client.h"

#define READDIR_COUNT	   8192	 /* [U] SFS reads up to 128 entries; our dirs hold ~30 */
#define READDIRPLUS_MAXCNT 32768 /* [U] */
#define READ_TRIES	   8	 /* random picks to find a file the READ fits in */

int bench_name(char *buf, size_t len, const char *prefix, uint32_t n)
{
	return snprintf(buf, len, "%s.%05u", prefix, n);
}

/* Begin an RPC of slot @s; the XID's low bits name the slot. */
static void call_begin(struct bench_proc *p, const struct bench_slot *s, uint32_t proc,
		       struct xdr_out *o)
{
	uint32_t idx = (uint32_t)(s - p->slots);

	p->conn.next_xid = p->xseq++ << SLOT_BITS | idx;
	bench_conn_call_begin(&p->conn, o, proc);
}

static void call_end(struct bench_proc *p, struct bench_slot *s, struct xdr_out *o, bool enc_ok)
{
	if (enc_ok && bench_conn_call_end(&p->conn, o)) {
		s->outstanding++;
		return;
	}
	s->failed = true;
	s->fail_status = BENCH_ST_ENCODE;
}

/* Send READ or WRITE chunks until biod are in flight or the transfer is all asked for. */
static void send_chunks(struct bench_proc *p, struct bench_slot *s)
{
	const struct bench_cfg *cfg = &p->thr->eng->cfg;

	while (!s->failed && s->outstanding < cfg->biod && s->off < s->end) {
		uint32_t n = s->end - s->off < cfg->xfer ? (uint32_t)(s->end - s->off) : cfg->xfer;
		struct xdr_out o;
		bool ok;

		if (s->op == NFS3PROC_READ) {
			struct nfs3_read_args a = {.offset = s->off, .count = n};

			a.fh = s->f->fh;
			call_begin(p, s, NFS3PROC_READ, &o);
			ok = nfs3_enc_read_args(&o, &a);
		} else {
			struct nfs3_write_args a = {
				.offset = s->off, .count = n, .stable = cfg->stable};

			a.fh = s->f->fh;
			a.data.data = p->thr->eng->wdata;
			a.data.len = n;
			call_begin(p, s, NFS3PROC_WRITE, &o);
			ok = nfs3_enc_write_args(&o, &a);
		}
		call_end(p, s, &o, ok);
		s->off += n;
	}
}

/* Random block-aligned offset at which @n bytes fit in @size bytes (0 if they do not). */
static uint64_t fit_offset(struct bench_proc *p, uint64_t size, uint64_t n, uint32_t block)
{
	if (size <= n)
		return 0;
	return bench_rand_below(&p->rng, (size - n) / block + 1) * block;
}

static void setup_read(struct bench_proc *p, struct bench_slot *s, const struct bench_cfg *cfg)
{
	uint32_t n = bench_xfer_pick(&bench_read_sizes, cfg->plan.unit, bench_rand(&p->rng),
				     bench_rand(&p->rng));
	struct bench_file *f = NULL;

	for (int i = 0; i < READ_TRIES; i++) {
		struct bench_file *c = &p->io[bench_rand_below(&p->rng, p->nws)];

		if (!f || c->size > f->size)
			f = c;
		if (f->size >= n)
			break;
	}
	s->f = f;
	s->off = fit_offset(p, f->size, n, cfg->plan.unit);
	s->end = s->off + (f->size < n ? (f->size ? f->size : 1) : n);
	send_chunks(p, s);
}

static void setup_write(struct bench_proc *p, struct bench_slot *s, const struct bench_cfg *cfg)
{
	uint32_t n = bench_xfer_pick(&bench_write_sizes, cfg->plan.unit, bench_rand(&p->rng),
				     bench_rand(&p->rng));
	struct bench_file *f = &p->io[bench_rand_below(&p->rng, p->nws)];
	bool append = (double)bench_rand_below(&p->rng, 10000) < cfg->append_pct * 100 &&
		      p->ws_now * 10 < p->ws_base * 11;

	s->f = f;
	s->off = append ? f->size : fit_offset(p, f->size, n, cfg->plan.unit);
	s->end = s->off + n;
	if (s->end > f->size) {
		p->ws_now += s->end - f->size;
		f->size = s->end;
	}
	send_chunks(p, s);
}

static void setup_lookup(struct bench_proc *p, struct bench_slot *s, const struct bench_cfg *cfg,
			 struct xdr_out *o)
{
	char name[NAME_MAX_LEN];
	const struct nfs3_fh *dir;
	int len;

	if ((double)bench_rand_below(&p->rng, 10000) < cfg->fail_lookup_pct * 100) {
		dir = &p->dirs[bench_rand_below(&p->rng, p->ndirs)];
		len = bench_name(name, sizeof(name), "nx_ent",
				 (uint32_t)bench_rand(&p->rng) % 100000);
		s->expect_noent = true;
	} else {
		uint64_t i = bench_rand_below(&p->rng, (uint64_t)p->nio + p->nnonio);
		const struct bench_file *f = i < p->nio ? &p->io[i] : &p->nonio[i - p->nio];

		dir = &p->dirs[f->dir];
		len = bench_name(name, sizeof(name), f->nonio ? "nonio" : "file_en", f->name);
	}
	call_begin(p, s, NFS3PROC_LOOKUP, o);
	call_end(p, s, o, nfs3_enc_diropargs(o, dir, name, (uint32_t)len));
}

static void setup_meta(struct bench_proc *p, struct bench_slot *s, const struct bench_cfg *cfg)
{
	const struct bench_file *nf = &p->nonio[bench_rand_below(&p->rng, p->nnonio)];
	char name[NAME_MAX_LEN];
	struct xdr_out o;
	bool ok = false;
	int len;

	switch (s->op) {
	case NFS3PROC_GETATTR:
	case NFS3PROC_FSSTAT:
	case NFS3PROC_FSINFO:
	case NFS3PROC_PATHCONF:
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_fh_args(&o, s->op == NFS3PROC_GETATTR ? &nf->fh : &p->target->root);
		break;
	case NFS3PROC_ACCESS: {
		struct nfs3_access_args a = {.access = 0x3f};

		a.fh = nf->fh;
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_access_args(&o, &a);
		break;
	}
	case NFS3PROC_SETATTR: {
		struct nfs3_setattr_args a = {.attr = {.set_mode = true}};

		a.fh = nf->fh;
		a.attr.mode = 0600 | (uint32_t)(bench_rand(&p->rng) & 044);
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_setattr_args(&o, &a);
		break;
	}
	case NFS3PROC_LOOKUP:
		setup_lookup(p, s, cfg, &o);
		return;
	case NFS3PROC_READLINK:
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_fh_args(&o, &p->links[bench_rand_below(&p->rng, p->nlinks)]);
		break;
	case NFS3PROC_CREATE: {
		struct nfs3_create_args a = {.mode = NFS3_UNCHECKED,
					     .attr = {.set_mode = true, .mode = 0644}};

		s->name = p->next_name++;
		len = bench_name(name, sizeof(name), "cr", s->name);
		a.where.dir = p->scratch;
		a.where.name = (struct xdr_view){(const uint8_t *)name, (uint32_t)len};
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_create_args(&o, &a);
		break;
	}
	case NFS3PROC_REMOVE:
		s->name = p->rmq[p->rmq_head];
		p->rmq_head = (p->rmq_head + 1) % p->rmq_cap;
		p->rmq_len--;
		len = bench_name(name, sizeof(name), "cr", s->name);
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_diropargs(&o, &p->scratch, name, (uint32_t)len);
		break;
	case NFS3PROC_READDIR: {
		struct nfs3_readdir_args a = {.count = READDIR_COUNT};

		a.dir = p->dirs[bench_rand_below(&p->rng, p->ndirs)];
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_readdir_args(&o, &a);
		break;
	}
	case NFS3PROC_READDIRPLUS: {
		struct nfs3_readdirplus_args a = {.dircount = READDIR_COUNT,
						  .maxcount = READDIRPLUS_MAXCNT};

		a.dir = p->dirs[bench_rand_below(&p->rng, p->ndirs)];
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_readdirplus_args(&o, &a);
		break;
	}
	case NFS3PROC_COMMIT: {
		struct nfs3_read_args a = {0};

		a.fh = p->io[bench_rand_below(&p->rng, p->nws)].fh;
		call_begin(p, s, s->op, &o);
		ok = nfs3_enc_read_args(&o, &a);
		break;
	}
	default: /* NULL: bench_mix_init() refuses every procedure not handled above */
		call_begin(p, s, NFS3PROC_NULL, &o);
		ok = true;
		break;
	}
	call_end(p, s, &o, ok);
}

/* Record a finished logical operation and free its slot. */
static void complete(struct bench_proc *p, struct bench_slot *s, uint64_t now)
{
	struct bench_thread *t = p->thr;

	if (s->op == NFS3PROC_CREATE && !s->failed && p->rmq_len < p->rmq_cap) {
		p->rmq[(p->rmq_head + p->rmq_len) % p->rmq_cap] = s->name;
		p->rmq_len++;
	}
	if (s->failed) {
		t->errs.n[s->op]++;
		t->errs.last[s->op] = s->fail_status;
	}
	if (t->point >= 0) {
		struct bench_acc *a = &t->acc[s->op];

		a->phys += s->phys;
		if (s->failed)
			a->errors++;
		else
			bench_hist_record(&a->h, (now - s->t_start) / 1000);
		a->ok += !s->failed;
	}
	s->busy = false;
	p->freestk[p->nfree++] = (uint8_t)(s - p->slots);
	p->nbusy--;
}

static void start_op(struct bench_proc *p, uint64_t now)
{
	const struct bench_cfg *cfg = &p->thr->eng->cfg;
	struct bench_slot *s = &p->slots[p->freestk[--p->nfree]];
	uint32_t op;

	op = bench_mix_pick_pool(&cfg->mix, &p->rng, p->rmq_len, p->rmq_cap);
	memset(s, 0, sizeof(*s));
	s->busy = true;
	s->op = op;
	s->t_start = now;
	p->fresh[p->nfresh++] = (uint8_t)(s - p->slots);
	p->nbusy++;
	if (p->thr->point >= 0)
		p->thr->acc[op].issued++;
	if (op == NFS3PROC_READ)
		setup_read(p, s, cfg);
	else if (op == NFS3PROC_WRITE)
		setup_write(p, s, cfg);
	else
		setup_meta(p, s, cfg);
	if (s->outstanding == 0)
		complete(p, s, now); /* nothing could be sent */
}

bool bench_proc_due(const struct bench_proc *p, uint64_t now)
{
	return !p->dead && p->rate > 0 && p->nbusy < p->thr->eng->cfg.in_flight &&
	       bench_pace_next_ns(&p->pace) <= now;
}

void bench_proc_issue(struct bench_proc *p, uint64_t now)
{
	const struct bench_cfg *cfg = &p->thr->eng->cfg;
	uint64_t due;

	if (p->dead || p->rate <= 0 || p->nbusy >= cfg->in_flight)
		return;
	/* a server slower than asked leaves at most in_flight operations overdue */
	if (bench_pace_next_ns(&p->pace) <= now)
		bench_pace_cap_debt(&p->pace, now, cfg->in_flight);
	due = bench_pace_due(&p->pace, now + bench_send_window(cfg->ahead_ns, cfg->send_batch,
							       p->rate * p->thr->nprocs));
	while (due > 0 && p->nbusy < cfg->in_flight) {
		start_op(p, now);
		p->pace.issued++;
		due--;
	}
}

void bench_proc_sent(struct bench_proc *p, uint64_t now)
{
	for (uint32_t i = 0; i < p->nfresh; i++) {
		struct bench_slot *s = &p->slots[p->fresh[i]];

		if (s->busy && s->t_start < now)
			s->t_start = now;
	}
	p->nfresh = 0;
}

void bench_proc_reply(struct bench_proc *p, const struct bench_reply *r, uint64_t now)
{
	struct bench_slot *s = &p->slots[r->xid & (MAX_SLOTS - 1)];
	struct xdr_cur c = r->res;
	uint32_t st;

	if (!s->busy || s->outstanding == 0)
		return; /* not a call of ours in flight: ignore */
	s->outstanding--;
	s->phys++;
	if (!r->ok) {
		s->failed = true;
		s->fail_status = BENCH_ST_RPC + r->rpc_err;
	} else if (s->op == NFS3PROC_NULL) {
		/* NULL's result is void: no status to read */
	} else if (!xdr_dec_u32(&c, &st)) {
		s->failed = true;
		s->fail_status = BENCH_ST_SHORT;
	} else if (st != NFS3_OK && !(st == NFS3ERR_NOENT && s->expect_noent)) {
		s->failed = true;
		s->fail_status = st;
	}
	if ((s->op == NFS3PROC_READ || s->op == NFS3PROC_WRITE) && !s->failed)
		send_chunks(p, s);
	if (s->outstanding == 0)
		complete(p, s, now);
}

void bench_proc_kill(struct bench_proc *p, uint64_t now)
{
	for (uint32_t i = 0; i < MAX_SLOTS; i++) {
		struct bench_slot *s = &p->slots[i];

		if (!s->busy)
			continue;
		s->outstanding = 0;
		s->failed = true;
		s->fail_status = BENCH_ST_LOST;
		complete(p, s, now);
	}
	p->dead = true;
}
