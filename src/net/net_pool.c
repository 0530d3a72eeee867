/*
 * net_pool.c - a blocking pool: threads that run procedures which may block (fsync,
 * uncached I/O) so that the event loops keep serving cheap calls. The server has one
 * pool per enum rpc_pool, so that reads never queue behind flushes.
 *
 * A job is a request; the thread that ran it also encodes its reply and, when nothing is
 * queued on the connection before it, writes it to the socket itself: the loop is not
 * woken to send it. The request then goes back to its owning loop on a lock-free
 * completion stack; the loop's eventfd is written only when the loop must act (see
 * net_complete()), once per burst. Pool threads are batch threads: waking one does not
 * take the CPU from an event loop. A loop queues the calls of one read first and wakes
 * threads for them after (net_pool_wake()). A thread that takes a call whose procedure
 * gathers (stable WRITEs of one file) takes the queued calls it gathers too and runs
 * them as one group, which then shares one sync.
 */
#include "net/net_int.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

/*
 * Hand @r back to its loop. The loop is woken only when it has something to do at once:
 * a reply to send (r->sent false), a paused connection that may resume, a closed one
 * that may now be freed, a stop; and then
 * once per batch of such pushes. Otherwise it takes @r when it next wakes or before it
 * sleeps (see loop_completions()). @r is the loop's again once pushed: not touched after.
 */
static void net_complete(struct net_req *r)
{
	struct net_loop *l = r->loop;
	struct net_req *old = atomic_load_explicit(&l->done, memory_order_relaxed);
	bool sent = r->sent;
	uint64_t one = 1;

	do {
		r->next = old;
	} while (!atomic_compare_exchange_weak(&l->done, &old, r));
	if ((!sent || atomic_load(&l->npaused) || atomic_load(&l->nclosing) ||
	     atomic_load(&l->stop_req)) &&
	    !atomic_exchange(&l->done_woken, true) && write(l->evfd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN)
		abort(); /* an eventfd write fails only if the fd is gone: our bug */
}

/* The most calls a pool thread runs as one group (rpc_proc.gathers), and how far into
 * its queue it looks for them. */
#define POOL_GROUP_MAX	16
#define POOL_GROUP_SCAN 64

/*
 * Move from @p's queue (locked) into @grp[n..) the calls that may run in one group with
 * @grp[0]: those among the first POOL_GROUP_SCAN queued, in their order. Returns the
 * group's new size.
 */
static unsigned pool_gather(struct net_pool *p, struct net_req **grp, unsigned n)
{
	struct net_req *prev = NULL, *q = p->head, *next;

	for (unsigned seen = 0; q && n < POOL_GROUP_MAX && seen < POOL_GROUP_SCAN;
	     seen++, q = next) {
		next = q->next;
		if (!rpc_call_gathers(&grp[0]->req, &q->req)) {
			prev = q;
			continue;
		}
		if (prev)
			prev->next = next;
		else
			p->head = next;
		if (p->tail == q)
			p->tail = prev;
		grp[n++] = q;
	}
	return n;
}

/* Answer @r, run: its reply to the socket if it can go now, @r back to its loop. */
static void pool_finish(struct net_req *r)
{
	rpc_call_end(&r->req);
	net_req_reply_direct(r);
	net_complete(r);
}

/* Run @grp[from..to) as members of a group, their requests into @reqs. */
static void run_gathered(struct net_req **grp, struct rpc_req **reqs, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++) {
		grp[i]->req.may_block = true;
		reqs[i] = &grp[i]->req;
		rpc_call_run_gathered(reqs[i]);
	}
}

/*
 * Run @grp[0..n), calls that gather, as one group. The calls that came to gather with
 * them while they ran (the rest of a client's large write, sent a moment after its
 * first part) join before their shared step.
 */
static void pool_run_group(struct net_pool *p, struct net_req **grp, unsigned n)
{
	struct rpc_req *reqs[POOL_GROUP_MAX];
	unsigned first = n;

	run_gathered(grp, reqs, 0, n);
	pthread_mutex_lock(&p->lock);
	n = pool_gather(p, grp, n);
	pthread_mutex_unlock(&p->lock);
	run_gathered(grp, reqs, first, n);
	atomic_fetch_add_explicit(&p->grouped, n - 1, memory_order_relaxed);
	rpc_call_end_group(reqs, n);
	for (unsigned i = 0; i < n; i++)
		pool_finish(grp[i]);
}

/*
 * A pool thread is a batch thread (SCHED_BATCH): its wake-ups (a job queued, its I/O
 * done) do not preempt the thread that is running, often an event loop with replies to
 * send and calls to read, which would otherwise wait for the CPU while the pool thread
 * starts an fsync. Its share of the CPU is unchanged; what it waits for is only the
 * running thread's next sleep or the end of its time slice.
 */
static void pool_thread_batch(void)
{
	struct sched_param sp = {.sched_priority = 0};
	int err = pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);

	if (err)
		log_debug("net: pool thread stays SCHED_OTHER: %s", strerror(err));
}

static void *net_pool_main(void *arg)
{
	struct net_pool *p = arg;
	struct net_req *r, *grp[POOL_GROUP_MAX];
	bool group = false, woken = false;
	unsigned n = 0;

	pool_thread_batch();
	for (;;) {
		bool stop;

		pthread_mutex_lock(&p->lock);
		r = p->head;
		if (r) {
			p->head = r->next;
			if (!p->head)
				p->tail = NULL;
			grp[0] = r;
			group = rpc_call_gathering(&r->req);
			n = group ? pool_gather(p, grp, 1) : 1;
		}
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (!r && stop)
			return NULL; /* stopping and the queue is empty */
		if (!r) {
			/* A post left by a wake-up whose call another thread took only sends
			 * this one round the loop again. */
			if (woken)
				atomic_fetch_add_explicit(&p->empty_wakes, 1, memory_order_relaxed);
			sem_wait(&p->wake);
			woken = true;
			continue;
		}
		woken = false;
		if (group) {
			pool_run_group(p, grp, n);
			continue;
		}
		r->req.may_block = true;
		rpc_call_run(&r->req);
		pool_finish(r);
	}
}

int net_pool_start(struct net_pool *p, unsigned n, const char *prefix)
{
	char name[16];
	int err;

	p->thr = calloc(n, sizeof(*p->thr));
	if (!p->thr)
		return -ENOMEM;
	p->nthr = n;
	for (p->started = 0; p->started < n; p->started++) {
		err = pthread_create(&p->thr[p->started], NULL, net_pool_main, p);
		if (err)
			return -err;
		snprintf(name, sizeof(name), "%s%u", prefix, p->started);
		pthread_setname_np(p->thr[p->started], name); /* a name only: failure is harmless */
	}
	return 0;
}

/*
 * A call that gathers with the one queued last (the next part of a client's large
 * stable write, read with it) needs no wake-up of its own: the thread that takes that
 * one takes it too, and a woken thread would find nothing left. It cannot be stranded:
 * the call before it is still queued, so some thread has yet to look at the queue (one
 * woken for it, or one still running, which looks again before it sleeps), and that
 * thread looks after this call is queued, and then again after its group has run.
 */
bool net_pool_submit(struct net_pool *p, struct net_req *r)
{
	bool wake;

	r->next = NULL;
	pthread_mutex_lock(&p->lock);
	wake = !p->tail || !rpc_call_gathering(&r->req) ||
	       !rpc_call_gathers(&p->tail->req, &r->req);
	if (p->tail)
		p->tail->next = r;
	else
		p->head = r;
	p->tail = r;
	pthread_mutex_unlock(&p->lock);
	return wake;
}

/* Not under the lock: a thread woken under it would first wait for it. A post finds a
 * thread asleep (one futex call) or none, and then costs nothing; a thread that comes
 * to wait later takes it and looks at the queue again. */
void net_pool_wake(struct net_pool *p, unsigned n)
{
	if (n > p->nthr)
		n = p->nthr;
	while (n--)
		sem_post(&p->wake);
}

void net_pool_stop(struct net_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->started; i++)
		sem_post(&p->wake);
	for (unsigned i = 0; i < p->started; i++)
		pthread_join(p->thr[i], NULL);
	p->started = 0;
	free(p->thr);
	p->thr = NULL;
}
