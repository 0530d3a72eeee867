/*
 * net_loop.c - one event loop per worker thread: TCP connections with RFC 5531
 * record marking, UDP datagrams, reply batching and back-pressure.
 *
 * Receive: one recv() per readiness into the connection's 64 KiB buffer, then every
 * complete record in it is copied into a pooled request (small calls need no malloc);
 * the rest of a large fragment is received straight into the request's big buffer.
 * Calls for a blocking pool are queued as they come, and its threads woken once the
 * read that brought them has been served (loop_start_pools()).
 * Send: replies are queued on the connection and, once the event that produced them has
 * been handled, every dirty connection is flushed with one sendmsg() that carries as
 * many queued replies as fit; what the socket does not take waits for EPOLLOUT. A
 * reply of the blocking pool is written by the pool thread itself when nothing is
 * queued before it (net_req_reply_direct()), so that the loop is not woken to send it.
 * Back-pressure: with NET_MAX_INFLIGHT calls in progress, NET_MAX_QUEUED reply bytes
 * queued or NET_MAX_BLOCKING calls in the blocking pool (whose replies, up to a record
 * each, are not counted yet), a connection stops reading until it drains; one whose
 * record needs a large buffer when the server's budget of them, or its client address's
 * share of it, is spent (net_mem.c) stops reading until one is given back.
 * Placement: a connection lives on the loop with the fewest when it is accepted; the
 * accepting loop hands it over on that loop's wake-up stack (like the pool's
 * completions), so busy clients do not pile up on one loop.
 * Limits: past the server's connection limit, or its limit per client address
 * (net_peers.c), an accepted connection is closed at once. A call that announces a
 * large reply (a READ) waits, decoded but not started, until the memory budget (and its
 * address's share) has room for it (req_dispatch(), net_mem.c). A sweep closes
 * connections whose record in progress has stalled or whose replies are not taken (the
 * record timeout) and those with nothing in progress that have sent nothing for the
 * idle timeout (loop_sweep()).
 */
#include "net/net_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"

#define NET_FLUSH_IOV 256
/* A loop warns of a client refused over its connection limit at most this often. */
#define NET_PEER_WARN_MS 10000

/* ---- requests ---- */

static struct net_req *req_get(struct net_loop *l)
{
	struct net_req *r = l->free;

	if (r) {
		l->free = r->next;
		l->nfree--;
	} else {
		r = malloc(sizeof(*r));
		if (!r)
			return NULL;
		r->req.priv = &r->rp;
		arena_init(&r->req.arena, 64 * 1024);
		r->rbuf = r->small;
		r->rcap = NET_REQ_RBUF;
		r->big_given = false;
		r->loop = l;
	}
	r->rlen = 0;
	r->sent = false;
	r->reply_res = 0;
	r->conn = NULL;
	r->udp_fd = -1;
	r->next = NULL;
	l->inflight++;
	return r;
}

/* The account of call memory of @r's client address: its connection's (NULL for UDP).
 * A request holds its connection until it has given back all it took. */
static struct net_acct *req_acct(const struct net_req *r)
{
	return r->conn ? r->conn->acct : NULL;
}

enum grow { GROW_OK, GROW_WAIT, GROW_NOMEM };

/* Make room for a record of @need bytes, keeping what was received. GROW_WAIT: the
 * server's budget of large buffers is spent. */
static enum grow req_grow(struct net_loop *l, struct net_req *r, size_t need)
{
	uint8_t *big;

	if (need <= r->rcap)
		return GROW_OK;
	if (!net_mem_take(l->srv, req_acct(r), NET_MAX_RECORD))
		return GROW_WAIT;
	big = l->nbig ? l->bigs[--l->nbig] : malloc(NET_MAX_RECORD);
	if (!big) {
		net_mem_give(l->srv, req_acct(r), NET_MAX_RECORD);
		return GROW_NOMEM;
	}
	memcpy(big, r->rbuf, r->rlen);
	r->rbuf = big;
	r->rcap = NET_MAX_RECORD;
	return GROW_OK;
}

static void conn_put(struct net_conn *c)
{
	if (--c->refs == 0) { /* freed by loop_reap(), after the batch of events */
		c->dead_next = c->loop->dead;
		c->loop->dead = c;
	}
}

/*
 * Free the connections whose last reference went in this batch of events. Only now is a
 * connection no longer counted against its address's and the server's limits (not when
 * its socket closed): calls of a closed connection still running in a pool hold memory
 * in its address's account, and a client that closes and reconnects must find that
 * account, not a fresh one with the whole share free, or cycling connections would let
 * it take the server's whole budget (and, from many addresses, more connections' worth
 * of memory than the server allows connections).
 */
static void loop_reap(struct net_loop *l)
{
	struct net_conn *c;

	while ((c = l->dead)) {
		l->dead = c->dead_next;
		atomic_fetch_sub(&l->nclosing, 1);
		net_peers_give(&l->srv->peers, &c->peer);
		atomic_fetch_sub(&l->srv->nconns, 1);
		net_acct_put(c->acct); /* its requests, which gave back what it took, are gone */
		pthread_mutex_destroy(&c->tx_lock);
		free(c);
	}
}

/*
 * Give @r's large receive buffer, if any, back to the server's budget (not yet the
 * buffer itself, which belongs to the loop): once per buffer, from any thread. The
 * call's bytes are no longer needed once its reply is encoded (replies reference the
 * arena, never the call), so replies waiting for a slow reader do not each pin a
 * record-sized buffer.
 */
static void req_give_budget(struct net_req *r)
{
	if (r->rbuf != r->small && !r->big_given) {
		r->big_given = true;
		net_mem_give(r->loop->srv, req_acct(r), NET_MAX_RECORD);
	}
}

static void req_drop_call(struct net_req *r)
{
	struct net_loop *l = r->loop;

	if (r->rbuf == r->small)
		return;
	req_give_budget(r);
	r->big_given = false;
	if (l->nbig < NET_BIG_KEEP)
		l->bigs[l->nbig++] = r->rbuf;
	else
		free(r->rbuf);
	r->rbuf = r->small;
	r->rcap = NET_REQ_RBUF;
}

/* The request is done: back to the free list, dropping its connection reference. */
static void req_release(struct net_req *r)
{
	struct net_loop *l = r->loop;
	struct net_conn *c = r->conn;

	arena_reset(&r->req.arena);
	req_drop_call(r);
	if (r->reply_res) { /* its reply is sent (or dropped): the memory is free */
		net_mem_give(l->srv, req_acct(r), r->reply_res);
		r->reply_res = 0;
	}
	l->inflight--;
	if (c) {
		r->conn = NULL;
		c->inflight--;
		conn_put(c);
	} else if (r->udp_fd >= 0) {
		l->udp_inflight--;
	}
	if (l->nfree < NET_POOL_KEEP) {
		r->next = l->free;
		l->free = r;
		l->nfree++;
	} else {
		arena_fini(&r->req.arena);
		free(r);
	}
}

static void net_norm_peer(struct sockaddr_storage *ss, socklen_t *len)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	struct sockaddr_in sin;

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = s6->sin6_port;
	memcpy(&sin.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memcpy(ss, &sin, sizeof(sin));
	*len = sizeof(sin);
}

/* ---- UDP ---- */

/* Room for one IP_PKTINFO or IPV6_PKTINFO control message. */
union udp_ctl {
	char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	struct cmsghdr align;
};

/* Keep the destination address of a received datagram (its control messages). */
static void udp_note_dst(struct net_req *r, struct msghdr *msg)
{
	r->udp_dst = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			memcpy(&r->udp_dst_info.pi4, CMSG_DATA(c), sizeof(r->udp_dst_info.pi4));
			r->udp_dst = 4;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			memcpy(&r->udp_dst_info.pi6, CMSG_DATA(c), sizeof(r->udp_dst_info.pi6));
			r->udp_dst = 6;
		}
	}
}

/*
 * Answer from the address the call was sent to: on a host with several addresses the
 * kernel would otherwise pick a source by route, and a client that checks where its
 * reply came from (any connected UDP socket does) would never see it. The outgoing
 * interface is left to routing, except for an IPv6 link-local address, which needs it.
 */
static void udp_set_src(const struct net_req *r, struct msghdr *msg, union udp_ctl *ctl)
{
	struct in_pktinfo pi4 = {.ipi_spec_dst = r->udp_dst_info.pi4.ipi_addr};
	struct in6_pktinfo pi6 = {.ipi6_addr = r->udp_dst_info.pi6.ipi6_addr};
	bool v4 = r->udp_dst == 4;
	size_t len = v4 ? sizeof(pi4) : sizeof(pi6);
	struct cmsghdr *c;

	if (!v4 && IN6_IS_ADDR_LINKLOCAL(&pi6.ipi6_addr))
		pi6.ipi6_ifindex = r->udp_dst_info.pi6.ipi6_ifindex;
	memset(ctl, 0, sizeof(*ctl));
	msg->msg_control = ctl->buf;
	msg->msg_controllen = CMSG_SPACE(len);
	c = CMSG_FIRSTHDR(msg);
	c->cmsg_level = v4 ? IPPROTO_IP : IPPROTO_IPV6;
	c->cmsg_type = v4 ? IP_PKTINFO : IPV6_PKTINFO;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), v4 ? (const void *)&pi4 : (const void *)&pi6, len);
}

static void udp_send(struct net_req *r)
{
	const struct xdr_out *o = &r->rp.out;
	struct sockaddr_storage to;
	union udp_ctl ctl;
	struct msghdr msg;
	socklen_t tolen = r->req.peer_len;

	if (xdr_out_total(o) > 65507) {
		log_debug("net: UDP reply of %zu bytes dropped", xdr_out_total(o));
		return;
	}
	memcpy(&to, &r->req.peer, tolen);
	if (to.ss_family == AF_INET && r->udp_v6) {
		/* The socket is dual-stack: answer the v4-mapped address. */
		struct sockaddr_in6 s6;

		memset(&s6, 0, sizeof(s6));
		s6.sin6_family = AF_INET6;
		s6.sin6_port = ((struct sockaddr_in *)&to)->sin_port;
		s6.sin6_addr.s6_addr[10] = 0xff;
		s6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6.sin6_addr.s6_addr[12], &((struct sockaddr_in *)&to)->sin_addr, 4);
		memcpy(&to, &s6, sizeof(s6));
		tolen = sizeof(s6);
	}
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = &to;
	msg.msg_namelen = tolen;
	msg.msg_iov = r->iov;
	msg.msg_iovlen = xdr_out_iov(o, r->iov, NET_REPLY_IOV);
	if (r->udp_dst)
		udp_set_src(r, &msg, &ctl);
	if (sendmsg(r->udp_fd, &msg, MSG_DONTWAIT) >= 0)
		return;
	/* A call sent to a broadcast or multicast address cannot be answered from it. */
	if (r->udp_dst && errno == EINVAL) {
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
		if (sendmsg(r->udp_fd, &msg, MSG_DONTWAIT) >= 0)
			return;
	}
	log_debug("net: UDP sendmsg: %s", strerror(errno));
}

/* How often a loop with connections but no record in progress sweeps for idle ones. */
static uint64_t idle_sweep_ms(const struct net_loop *l)
{
	uint64_t every = l->srv->opts.idle_timeout_ms / 8;

	return every > NET_SWEEP_MS ? every : NET_SWEEP_MS;
}

/* Make sure a sweep comes within @ms. */
static void sweep_within(struct net_loop *l, uint64_t ms)
{
	if (l->next_sweep_ms > l->now_ms + ms)
		l->next_sweep_ms = l->now_ms + ms;
}

/* ---- TCP connections ---- */

static void conn_set_events(struct net_conn *c, bool want_out)
{
	uint32_t ev = (c->paused ? 0 : EPOLLIN) | (want_out ? EPOLLOUT : 0);
	struct epoll_event e = {.events = ev, .data.ptr = &c->ev};

	if (c->closed || ev == c->events)
		return;
	if (epoll_ctl(c->loop->epfd, EPOLL_CTL_MOD, c->fd, &e) == 0)
		c->events = ev;
}

static void conn_pause(struct net_conn *c)
{
	if (!c->paused) {
		c->paused = true;
		atomic_fetch_add(&c->loop->npaused, 1); /* see loop_completions() */
	}
	conn_set_events(c, c->events & EPOLLOUT);
}

static void conn_unpause(struct net_conn *c)
{
	if (c->paused) {
		c->paused = false;
		atomic_fetch_sub(&c->loop->npaused, 1);
	}
}

/* Queue @c on its loop's list of connections that wait for a large buffer. */
static void conn_mem_wait(struct net_conn *c)
{
	struct net_loop *l = c->loop;

	c->mem_wait = true;
	c->mw_next = NULL;
	c->mw_prev = l->mw_tail;
	if (l->mw_tail)
		l->mw_tail->mw_next = c;
	else
		l->mw_head = c;
	l->mw_tail = c;
	atomic_fetch_add(&l->mwaiting, 1);
}

static void conn_mem_unwait(struct net_conn *c)
{
	struct net_loop *l = c->loop;

	if (!c->mem_wait)
		return;
	c->mem_wait = false;
	if (c->mw_prev)
		c->mw_prev->mw_next = c->mw_next;
	else
		l->mw_head = c->mw_next;
	if (c->mw_next)
		c->mw_next->mw_prev = c->mw_prev;
	else
		l->mw_tail = c->mw_prev;
	atomic_fetch_sub(&l->mwaiting, 1);
}

static void conn_mark_dirty(struct net_conn *c)
{
	if (c->dirty)
		return;
	c->dirty = true;
	c->refs++;
	c->dirty_next = c->loop->dirty;
	c->loop->dirty = c;
}

static void conn_close(struct net_conn *c)
{
	struct net_loop *l = c->loop;
	struct net_req *r, *sq;

	if (c->closed)
		return;
	conn_mem_unwait(c);
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	pthread_mutex_lock(&c->tx_lock); /* no pool thread is writing to the socket */
	c->closed = true;
	close(c->fd);
	sq = c->sq_head;
	c->sq_head = c->sq_tail = NULL;
	pthread_mutex_unlock(&c->tx_lock);
	conn_unpause(c);
	atomic_fetch_add(&l->nclosing, 1); /* before the loop next looks at its completions */
	atomic_fetch_sub(&l->nconn, 1);
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->cur) {
		r = c->cur;
		c->cur = NULL;
		req_release(r);
	}
	if (c->parked) { /* never started: nothing to answer */
		r = c->parked;
		c->parked = NULL;
		req_release(r);
	}
	while ((r = sq)) {
		sq = r->next;
		c->queued -= r->total;
		req_release(r);
	}
	conn_put(c); /* the reference of the open connection */
}

/* Lay out @r's encoded reply as one record: its mark and iovecs. Any thread. */
static void req_frame(struct net_req *r)
{
	const struct xdr_out *o = &r->rp.out;
	size_t len = xdr_out_total(o);

	xdr_put_u32(r->mark, RM_LAST_FRAG | (uint32_t)len);
	r->iov[0].iov_base = r->mark;
	r->iov[0].iov_len = 4;
	r->niov = 1 + xdr_out_iov(o, r->iov + 1, NET_REPLY_IOV - 1);
	r->total = len + 4;
}

/* Queue the framed reply @r on its open connection: last, or first if it is the reply a
 * pool thread began to write (tx_part), with what it wrote counted as sent. */
static void req_enqueue(struct net_req *r)
{
	struct net_conn *c = r->conn;

	req_drop_call(r);
	pthread_mutex_lock(&c->tx_lock);
	if (c->tx_part == r) {
		r->next = c->sq_head;
		c->sq_head = r;
		if (!c->sq_tail)
			c->sq_tail = r;
		c->sq_off = r->tx_off;
		c->tx_part = NULL;
	} else {
		r->next = NULL;
		if (c->sq_tail)
			c->sq_tail->next = r;
		else
			c->sq_head = r;
		c->sq_tail = r;
	}
	if (c->sq_head == r) { /* the queue begins: time how long the client takes it */
		c->tx_ms = c->loop->now_ms;
		sweep_within(c->loop, NET_SWEEP_MS);
	}
	pthread_mutex_unlock(&c->tx_lock);
	c->queued += r->total;
	conn_mark_dirty(c);
}

static void req_send(struct net_req *r)
{
	struct net_conn *c = r->conn;

	if (!c) {
		udp_send(r);
		req_release(r);
		return;
	}
	if (c->closed) {
		req_release(r);
		return;
	}
	req_frame(r);
	req_enqueue(r);
}

void net_req_reply_direct(struct net_req *r)
{
	struct net_conn *c = r->conn;
	struct msghdr msg;
	ssize_t w;

	if (!c)
		return; /* UDP: the loop answers */
	/* The call's bytes are not needed any more: its budget may serve another call
	 * before the loop takes the buffer back. */
	req_give_budget(r);
	req_frame(r);
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = r->iov;
	msg.msg_iovlen = r->niov;
	pthread_mutex_lock(&c->tx_lock);
	if (c->closed || c->sq_head || c->tx_part) {
		pthread_mutex_unlock(&c->tx_lock);
		return; /* the loop queues it behind what is there */
	}
	do
		w = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)r->total) {
		r->sent = true;
	} else if (w >= 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
		c->tx_part = r; /* the loop writes the rest, before anything else */
		r->tx_off = w > 0 ? (size_t)w : 0;
	}
	/* Any other error: the loop's own send meets it again and closes. */
	pthread_mutex_unlock(&c->tx_lock);
}

/* Go on with a call rpc_call_begin() took to @step: reply now, run inline, or hand to
 * the blocking pool. */
static void req_step(struct net_loop *l, struct net_req *r, enum rpc_step step)
{
	switch (step) {
	case RPC_STEP_DROP:
		req_release(r);
		return;
	case RPC_STEP_RUN:
		r->req.may_block = false;
		rpc_call_run(&r->req);
		if (rpc_call_retry_blocking(&r->req))
			goto blocking; /* it would have waited for the disk */
		rpc_call_end(&r->req);
		break;
	case RPC_STEP_RUN_BLOCKING:
	blocking:
		if (r->conn)
			r->conn->blocking++;
		if (net_pool_submit(&l->srv->pools[r->rp.pool], r))
			l->unwoken[r->rp.pool]++; /* loop_start_pools() */
		return;
	case RPC_STEP_REPLY:
		break;
	}
	req_send(r);
}

/* The budget a call's announced reply needs: at most a record's worth, so that it fits
 * an empty budget. */
static size_t reply_need(const struct net_req *r)
{
	return r->rp.reply_bytes < NET_MAX_RECORD ? r->rp.reply_bytes : NET_MAX_RECORD;
}

/*
 * Park @r, whose reply's share of the budget is not there: the connection stops reading
 * and waits on the loop's list (loop_mem_retry() runs the call once there is room). As
 * in conn_grow(), one more try after the waiter is counted. False if it was parked.
 */
static bool conn_park(struct net_conn *c, struct net_req *r, enum rpc_step step)
{
	conn_mem_wait(c);
	if (net_mem_take(c->loop->srv, req_acct(r), reply_need(r))) { /* see net_mem_give() */
		conn_mem_unwait(c);
		r->reply_res = reply_need(r);
		return true;
	}
	c->parked = r;
	c->parked_step = step;
	c->loop->mem_waits++;
	conn_pause(c);
	return false;
}

/* Serve one complete call. One that announces a large reply (a READ) first takes that
 * much of the server's budget, or waits for it: replies that clients do not read must
 * not pin more memory than the budget. */
static void req_dispatch(struct net_loop *l, struct net_req *r)
{
	enum rpc_step step =
		rpc_call_begin(&r->req, l->srv->drc, r->rbuf, r->rlen, r->reply, NET_REPLY_BUF);

	l->prio.calls++;
	if ((step == RPC_STEP_RUN || step == RPC_STEP_RUN_BLOCKING) && r->conn &&
	    r->rp.reply_bytes) {
		if (net_mem_take(l->srv, req_acct(r), reply_need(r)))
			r->reply_res = reply_need(r);
		else if (!conn_park(r->conn, r, step))
			return;
	}
	req_step(l, r, step);
}

/* Write as much of the send queue as the socket takes, one sendmsg() per batch. */
static void conn_flush(struct net_conn *c)
{
	struct iovec iov[NET_FLUSH_IOV];
	struct msghdr msg;
	struct net_req *r;
	size_t bytes, skip, adv;
	unsigned n;
	ssize_t w;

	pthread_mutex_lock(&c->tx_lock);
	if (c->tx_part) { /* a pool thread's half-written reply goes first */
		pthread_mutex_unlock(&c->tx_lock);
		return;
	}
	while (c->sq_head) {
		n = 0;
		bytes = 0;
		skip = c->sq_off;
		for (r = c->sq_head; r && n + NET_REPLY_IOV <= NET_FLUSH_IOV; r = r->next) {
			for (unsigned i = 0; i < r->niov; i++) {
				size_t len = r->iov[i].iov_len;

				if (skip >= len) {
					skip -= len;
					continue;
				}
				iov[n].iov_base = (uint8_t *)r->iov[i].iov_base + skip;
				iov[n].iov_len = len - skip;
				bytes += len - skip;
				skip = 0;
				n++;
			}
		}
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = n;
		w = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			pthread_mutex_unlock(&c->tx_lock);
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				conn_set_events(c, true);
				return;
			}
			log_debug("net: send: %s", strerror(errno));
			conn_close(c);
			return;
		}
		if (w > 0)
			c->tx_ms = c->loop->now_ms;
		adv = (size_t)w + c->sq_off;
		while ((r = c->sq_head) && adv >= r->total) {
			adv -= r->total;
			c->sq_head = r->next;
			if (!c->sq_head)
				c->sq_tail = NULL;
			c->queued -= r->total;
			req_release(r);
		}
		c->sq_off = adv;
		if ((size_t)w < bytes) {
			pthread_mutex_unlock(&c->tx_lock);
			conn_set_events(c, true);
			return;
		}
	}
	pthread_mutex_unlock(&c->tx_lock);
	conn_set_events(c, false);
}

/*
 * Give the record in progress a large buffer if it needs one. False if the connection
 * must stop: closed (no memory at all) or, paused on the wait list, until a buffer is
 * given back.
 */
static bool conn_grow(struct net_conn *c)
{
	enum grow g = req_grow(c->loop, c->cur, c->rm.rec_len);

	if (g == GROW_WAIT) {
		conn_mem_wait(c);
		g = req_grow(c->loop, c->cur, c->rm.rec_len); /* see net_mem_give() */
		if (g == GROW_WAIT) {
			c->loop->mem_waits++;
			conn_pause(c);
			return false;
		}
		conn_mem_unwait(c);
	}
	if (g == GROW_NOMEM) {
		conn_close(c);
		return false;
	}
	return true;
}

/* Turn buffered bytes into records and serve them. */
static void conn_parse(struct net_conn *c)
{
	struct net_loop *l = c->loop;
	struct net_req *r;
	enum rm_event ev;
	size_t take;

	while (!c->closed) {
		if (c->parked) /* paused until its call can run (loop_mem_retry()) */
			return;
		if (!c->cur && (c->inflight >= NET_MAX_INFLIGHT || c->queued >= NET_MAX_QUEUED ||
				c->blocking >= NET_MAX_BLOCKING || l->stopping)) {
			conn_pause(c);
			return;
		}
		if (c->cur && c->cur->rcap < c->rm.rec_len && !conn_grow(c))
			return;
		ev = recmark_next(&c->rm, c->rbuf + c->rpos, c->rlen - c->rpos, &take);
		c->rpos += take;
		switch (ev) {
		case RM_NEED_MORE:
			if (c->rpos < c->rlen)
				memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
			c->rlen -= c->rpos;
			c->rpos = 0;
			if (c->cur) /* a record in progress: time it */
				sweep_within(l, NET_SWEEP_MS);
			return;
		case RM_FRAG:
			if (!c->cur) {
				c->cur = req_get(l);
				if (!c->cur) {
					conn_close(c);
					return;
				}
				c->cur->conn = c;
				c->refs++;
				c->inflight++;
			}
			break; /* the next turn makes room for the fragment (conn_grow) */
		case RM_BYTES:
			memcpy(c->cur->rbuf + c->cur->rlen, c->rbuf + c->rpos - take, take);
			c->cur->rlen += take;
			break;
		case RM_RECORD:
			r = c->cur;
			c->cur = NULL;
			memcpy(&r->req.peer, &c->peer, c->peer_len);
			r->req.peer_len = c->peer_len;
			r->req.ipproto = IPPROTO_TCP;
			r->req.local_port = c->local_port;
			req_dispatch(l, r);
			break;
		case RM_TOO_BIG:
			l->oversized++;
			log_debug("net: record over %u bytes, closing connection",
				  (unsigned)NET_MAX_RECORD);
			conn_close(c);
			return;
		}
	}
}

/*
 * Wake pool threads for the calls queued since the last time: after each read of a
 * connection that left no record half received (conn_read()), and after each event.
 * The parts of a client's large stable write, read from one socket one after the
 * other, are so in the queue together before a thread is woken for the first, and run
 * as one group with one sync (net_pool.c), instead of the first part being taken
 * alone while the next is read and each waiting for a sync of its own. A call waits
 * for its thread at most while the loop serves the rest of its read (64 KiB) and, if
 * that read ended inside a record, the read that completes it or the end of the event.
 */
static void loop_start_pools(struct net_loop *l)
{
	for (unsigned i = 0; i < RPC_NPOOLS; i++) {
		if (l->unwoken[i]) {
			net_pool_wake(&l->srv->pools[i], l->unwoken[i]);
			l->unwoken[i] = 0;
		}
	}
}

/* Receive until the socket is drained (a short read) or back-pressure pauses us. */
static void conn_read(struct net_conn *c)
{
	struct net_req *r;
	size_t want;
	ssize_t n;
	uint8_t *dst;

	while (!c->closed && !c->paused) {
		r = c->cur;
		if (r && c->rpos == c->rlen && c->rm.frag_left >= NET_DIRECT_MIN) {
			want = c->rm.frag_left;
			dst = r->rbuf + r->rlen;
		} else {
			want = NET_CONN_RBUF - c->rlen;
			dst = c->rbuf + c->rlen;
			r = NULL;
		}
		n = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			if (n < 0)
				log_debug("net: recv: %s", strerror(errno));
			conn_close(c);
			return;
		}
		c->rx_ms = c->loop->now_ms;
		if (r) {
			r->rlen += (size_t)n;
			recmark_direct(&c->rm, (size_t)n);
		} else {
			c->rlen += (size_t)n;
		}
		conn_parse(c);
		/* The pools start on what this read queued, unless a record is half in: the
		 * next part of a large write, whose first part waits to share its sync. */
		if (!c->cur)
			loop_start_pools(c->loop);
		if ((size_t)n < want)
			return;
	}
}

/* Resume reading a paused connection once it has drained below the limits. */
static void conn_maybe_resume(struct net_conn *c)
{
	if (!c->paused || c->closed || c->mem_wait || c->loop->stopping ||
	    c->inflight >= NET_MAX_INFLIGHT || c->queued >= NET_MAX_QUEUED ||
	    c->blocking >= NET_MAX_BLOCKING)
		return;
	conn_unpause(c);
	conn_parse(c);
	if (!c->closed && !c->paused)
		conn_set_events(c, c->events & EPOLLOUT);
}

/* Close accepted socket @fd from @ss, counted for @l, that never became a connection,
 * and drop the reference to its address's account @acct that net_peers_take() gave. */
static void conn_drop_fd(struct net_loop *l, int fd, const struct sockaddr_storage *ss,
			 struct net_acct *acct)
{
	close(fd);
	atomic_fetch_sub(&l->nconn, 1);
	net_peers_give(&l->srv->peers, ss);
	net_acct_put(acct);
	atomic_fetch_sub(&l->srv->nconns, 1);
}

/* Make accepted socket @fd a connection of @l; it takes over the reference to @acct. */
static void conn_new(struct net_loop *l, int fd, struct sockaddr_storage *ss, socklen_t len,
		     uint16_t port, struct net_acct *acct)
{
	struct net_conn *c = malloc(sizeof(*c));
	struct epoll_event e;
	int one = 1;

	if (!c)
		goto err;
	memset(c, 0, offsetof(struct net_conn, rbuf));
	c->ev.kind = NET_EV_CONN;
	c->fd = fd;
	c->loop = l;
	c->refs = 1;
	c->events = EPOLLIN;
	pthread_mutex_init(&c->tx_lock, NULL);
	net_norm_peer(ss, &len);
	memcpy(&c->peer, ss, len);
	c->peer_len = len;
	c->acct = acct;
	c->local_port = port;
	c->rx_ms = l->now_ms; /* idle from now */
	recmark_init(&c->rm, NET_MAX_RECORD);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	e.events = EPOLLIN;
	e.data.ptr = &c->ev;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
		pthread_mutex_destroy(&c->tx_lock);
		goto err;
	}
	c->next = l->conns;
	if (l->conns)
		l->conns->prev = c;
	l->conns = c;
	if (l->srv->opts.idle_timeout_ms != NET_IDLE_NEVER)
		sweep_within(l, idle_sweep_ms(l));
	return;
err:
	free(c);
	conn_drop_fd(l, fd, ss, acct);
}

/*
 * The loop a new connection should live on: the one with the fewest connections, @l
 * itself on a tie. The kernel's SO_REUSEPORT hash spreads connections at random, and
 * a few busy clients then often share one loop while another idles (8 connections on
 * 2 loops split 4:4 only about one time in four): that loop's calls queue while a CPU
 * sits idle.
 */
static struct net_loop *least_loaded(struct net_loop *l)
{
	struct net_server *s = l->srv;
	struct net_loop *best = l;
	unsigned min = atomic_load_explicit(&l->nconn, memory_order_relaxed);

	for (unsigned i = 0; i < s->nloops; i++) {
		struct net_loop *o = &s->loops[i];
		unsigned n = atomic_load_explicit(&o->nconn, memory_order_relaxed);

		if (n < min && !atomic_load(&o->stop_req)) {
			min = n;
			best = o;
		}
	}
	return best;
}

/* Give accepted socket @fd to loop @t: it takes it in at its next wake-up. */
static bool hand_over(struct net_loop *t, int fd, const struct sockaddr_storage *ss, socklen_t len,
		      uint16_t port, struct net_acct *acct)
{
	struct net_incoming *in = malloc(sizeof(*in));
	struct net_incoming *old;
	uint64_t one = 1;

	if (!in)
		return false;
	in->fd = fd;
	in->port = port;
	in->len = len;
	in->acct = acct;
	memcpy(&in->ss, ss, sizeof(*ss));
	atomic_fetch_add(&t->nconn, 1);
	old = atomic_load_explicit(&t->incoming, memory_order_relaxed);
	do {
		in->next = old;
	} while (!atomic_compare_exchange_weak_explicit(
		&t->incoming, &old, in, memory_order_release, memory_order_relaxed));
	if (!old && write(t->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort(); /* an eventfd write fails only if the fd is gone: our bug */
	return true;
}

/* Take in the connections other loops placed here; a stopping loop closes them. */
static void loop_incoming(struct net_loop *l, bool closing)
{
	struct net_incoming *in =
		atomic_exchange_explicit(&l->incoming, NULL, memory_order_acquire);

	while (in) {
		struct net_incoming *next = in->next;

		if (closing)
			conn_drop_fd(l, in->fd, &in->ss, in->acct);
		else
			conn_new(l, in->fd, &in->ss, in->len, in->port, in->acct);
		free(in);
		in = next;
	}
}

/* A client at its connection limit: count it, and say so now and then. */
static void refuse_client(struct net_loop *l, const struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN] = "?";
	struct sockaddr_storage peer = *ss;
	socklen_t len = sizeof(peer);
	const void *a;

	l->refused_client++;
	if (l->now_ms < l->client_warn_ms)
		return;
	l->client_warn_ms = l->now_ms + NET_PEER_WARN_MS;
	net_norm_peer(&peer, &len); /* an IPv4 client as IPv4 */
	a = peer.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&peer)->sin6_addr
				       : (const void *)&((struct sockaddr_in *)&peer)->sin_addr;
	inet_ntop(peer.ss_family, a, host, sizeof(host));
	log_warn("net: %s holds %u connections, the most one client may: refusing more "
		 "(--max-client-connections)",
		 host, l->srv->opts.max_client_connections);
}

static void listen_accept(struct net_loop *l, struct net_sock *s)
{
	struct sockaddr_storage ss;
	struct net_loop *target;
	struct net_acct *acct;
	socklen_t len;
	int fd;

	for (int i = 0; i < 64; i++) {
		len = sizeof(ss);
		fd = accept4(s->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_debug("net: accept: %s", strerror(errno));
			return;
		}
		if (atomic_fetch_add(&l->srv->nconns, 1) >= l->srv->opts.max_connections) {
			atomic_fetch_sub(&l->srv->nconns, 1);
			l->refused++;
			log_debug("net: connection limit reached, refusing a connection");
			close(fd);
			continue;
		}
		acct = net_peers_take(&l->srv->peers, &ss);
		if (!acct) {
			atomic_fetch_sub(&l->srv->nconns, 1);
			refuse_client(l, &ss);
			close(fd);
			continue;
		}
		target = least_loaded(l);
		if (target != l && hand_over(target, fd, &ss, len, s->port, acct))
			continue;
		atomic_fetch_add(&l->nconn, 1);
		conn_new(l, fd, &ss, len, s->port, acct);
	}
}

/* Receive up to a batch of datagrams, each one call, straight into pooled requests. */
static void udp_read(struct net_loop *l, struct net_sock *s)
{
	struct iovec iov[2];
	union udp_ctl ctl;
	struct msghdr msg;
	struct net_req *r;
	ssize_t n;

	for (int i = 0; i < 64; i++) {
		r = req_get(l);
		if (!r)
			return;
		iov[0].iov_base = r->small;
		iov[0].iov_len = NET_REQ_RBUF;
		iov[1].iov_base = l->udp_spill;
		iov[1].iov_len = sizeof(l->udp_spill);
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &r->req.peer;
		msg.msg_namelen = sizeof(r->req.peer);
		msg.msg_iov = iov;
		msg.msg_iovlen = 2;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(s->fd, &msg, MSG_DONTWAIT);
		if (n < 0) {
			req_release(r);
			if (errno == EINTR)
				continue;
			return;
		}
		r->rlen = (size_t)n < NET_REQ_RBUF ? (size_t)n : NET_REQ_RBUF;
		if ((size_t)n > NET_REQ_RBUF) {
			if (req_grow(l, r, (size_t)n) != GROW_OK) {
				req_release(r); /* dropped: the client sends it again */
				continue;
			}
			memcpy(r->rbuf + NET_REQ_RBUF, l->udp_spill, (size_t)n - NET_REQ_RBUF);
			r->rlen = (size_t)n;
		}
		if ((msg.msg_flags & MSG_TRUNC) || l->stopping ||
		    l->udp_inflight >= NET_UDP_INFLIGHT) {
			req_release(r);
			continue;
		}
		r->udp_fd = s->fd;
		udp_note_dst(r, &msg);
		l->udp_inflight++;
		r->req.peer_len = msg.msg_namelen;
		r->udp_v6 = ((struct sockaddr *)&r->req.peer)->sa_family == AF_INET6;
		net_norm_peer(&r->req.peer, &r->req.peer_len);
		r->req.ipproto = IPPROTO_UDP;
		r->req.local_port = s->port;
		req_dispatch(l, r);
	}
}

/* ---- the loop ---- */

/*
 * Take what the pool handed back, oldest first. Its threads have encoded each reply
 * and sent most already (net_req_reply_direct()); those they did not wake the loop for
 * wait here until it next wakes or is about to sleep. Nothing waits on them then: while a
 * connection is paused (completions may be what resumes it) npaused is raised, and a
 * pool thread that pushes reads it after its push, the loop looks at the stack after
 * raising it (all sequentially consistent): one of the two sees the other.
 */
static void loop_completions(struct net_loop *l)
{
	struct net_req *r, *fifo = NULL, *next;
	struct net_conn *c;

	atomic_store(&l->done_woken, false);
	r = atomic_exchange(&l->done, NULL);
	for (; r; r = next) {
		next = r->next;
		r->next = fifo;
		fifo = r;
	}
	for (r = fifo; r; r = next) {
		next = r->next;
		c = r->conn;
		if (!c) {
			req_send(r);
			continue;
		}
		c->blocking--;
		if (r->sent || c->closed) {
			conn_mark_dirty(c);  /* for conn_maybe_resume() */
			if (c->tx_part == r) /* closed: no pool thread writes it any more */
				c->tx_part = NULL;
			req_release(r);
		} else {
			req_enqueue(r);
		}
	}
}

/* After an event: start the pools on what it queued, send what it produced. */
static void loop_flush(struct net_loop *l)
{
	struct net_conn *c;

	loop_start_pools(l);
	while ((c = l->dirty)) {
		l->dirty = c->dirty_next;
		c->dirty = false;
		if (!c->closed)
			conn_flush(c);
		conn_maybe_resume(c);
		conn_put(c);
	}
	loop_start_pools(l); /* calls of connections that resumed */
}

/* Graceful stop: no new connections or calls; partial records are dropped. */
static void loop_begin_stop(struct net_loop *l)
{
	struct net_req *r;

	l->stopping = true;
	l->deadline_ms = mono_ms() + l->stop_grace_ms;
	for (unsigned i = 0; i < l->nsocks; i++) {
		struct net_sock *s = &l->socks[i];

		if (s->fd < 0)
			continue;
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, s->fd, NULL);
		if (s->ev.kind == NET_EV_LISTEN) {
			close(s->fd);
			s->fd = -1;
		}
	}
	for (struct net_conn *c = l->conns; c; c = c->next) {
		conn_mem_unwait(c);
		conn_pause(c);
		if (c->cur) {
			r = c->cur;
			c->cur = NULL;
			req_release(r);
		}
		if (c->parked) { /* not started: the client sends it again after a restart */
			r = c->parked;
			c->parked = NULL;
			req_release(r);
		}
	}
}

/* What waiting connection @c waits for: its parked call's reply or its record's buffer. */
static size_t conn_mem_need(const struct net_conn *c)
{
	return c->parked ? reply_need(c->parked) : (size_t)NET_MAX_RECORD;
}

/* Whether @c waits because its client address holds its whole share. */
static bool conn_over_share(const struct net_conn *c)
{
	return net_mem_over_share(c->loop->srv, c->acct, conn_mem_need(c));
}

/* Buffers were given back: resume the connections waiting for one, oldest first, until
 * one has to wait again (the look at the budget first keeps that order when another loop
 * took the buffer: a connection that tries and fails goes to the back). One whose client
 * address holds its whole share stays where it is, and does not hold up the others. */
static void loop_mem_retry(struct net_loop *l)
{
	struct net_conn *c, *next;
	struct net_req *r;

	for (c = l->mw_head; c && !l->stopping; c = next) {
		next = c->mw_next;
		if (conn_over_share(c))
			continue;
		if (atomic_load(&l->srv->mem_held) + conn_mem_need(c) > l->srv->mem_cap)
			break;
		conn_mem_unwait(c);
		c->refs++;
		if ((r = c->parked)) {
			/* Another loop, or a call of its own address, took it. */
			if (!net_mem_take(l->srv, req_acct(r), reply_need(r))) {
				conn_mem_wait(c);
				conn_put(c);
				if (conn_over_share(c))
					continue;
				break;
			}
			r->reply_res = reply_need(r);
			c->parked = NULL;
			req_step(l, r, c->parked_step);
			if (c->closed) {
				conn_put(c);
				continue;
			}
		}
		conn_unpause(c);
		c->rx_ms = l->now_ms; /* the wait was ours, not the client's */
		conn_parse(c);
		if (!c->closed && !c->paused)
			conn_set_events(c, c->events & EPOLLOUT);
		if (c->mem_wait && !conn_over_share(c)) {
			conn_put(c);
			break; /* the budget is spent again */
		}
		conn_put(c);
	}
}

static void loop_wake(struct net_loop *l)
{
	uint64_t v;

	if (read(l->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_debug("net: eventfd read: %s", strerror(errno));
	if (atomic_load(&l->stop_req) && !l->stopping)
		loop_begin_stop(l);
	loop_completions(l);
	loop_incoming(l, l->stopping);
	loop_mem_retry(l);
}

static void conn_event(struct net_conn *c, uint32_t events)
{
	if (c->closed)
		return; /* closed by an earlier event of this batch: its fd may be reused */
	c->refs++;
	if (events & (EPOLLERR | EPOLLHUP)) {
		conn_close(c);
	} else {
		if (events & EPOLLOUT)
			conn_mark_dirty(c);
		if (events & EPOLLIN)
			conn_read(c);
	}
	conn_put(c);
}

/* Nothing of @c is in progress: no record begun, no call running or reply unsent. */
static bool conn_idle(const struct net_conn *c)
{
	return !c->cur && !c->paused && c->inflight == 0 && c->blocking == 0;
}

/*
 * Close the connections whose record in progress has received nothing for the record
 * timeout: a client that vanished mid-record (or holds one half-sent on purpose) must
 * not keep its buffer, perhaps one of the server's budget, for ever. A connection the
 * server paused is not the client's fault and is left alone. Reset those whose client
 * has taken none of their queued replies for as long (it holds them, and perhaps their
 * share of the budget, by not reading). Close too the idle connections that have sent
 * nothing for the idle timeout (a client that vanished between calls). The sweep runs
 * every NET_SWEEP_MS while some record is in progress or some reply queued, else every
 * idle_sweep_ms() while the loop has connections; a loop with none sleeps until an
 * event.
 */
static void loop_sweep(struct net_loop *l)
{
	const struct net_opts *o = &l->srv->opts;
	bool idle_on = o->idle_timeout_ms != NET_IDLE_NEVER;
	struct net_conn *c, *next;

	l->next_sweep_ms = NET_NO_SWEEP;
	for (c = l->conns; c; c = next) {
		next = c->next;
		if (c->cur && !c->paused && l->now_ms - c->rx_ms >= o->record_timeout_ms) {
			l->stalled++;
			log_debug("net: no byte of a record in progress for %u ms, closing "
				  "connection",
				  o->record_timeout_ms);
			conn_close(c);
		} else if (c->sq_head && l->now_ms - c->tx_ms >= o->record_timeout_ms) {
			struct linger abort_it = {.l_onoff = 1, .l_linger = 0};

			l->stalled++;
			log_debug("net: no reply taken for %u ms, resetting connection",
				  o->record_timeout_ms);
			/* A reset, not a FIN that would wait behind the unread replies: the
			 * kernel frees the socket's buffers now. */
			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &abort_it, sizeof(abort_it));
			conn_close(c);
		} else if (c->cur || c->sq_head) {
			sweep_within(l, NET_SWEEP_MS);
		} else if (idle_on && conn_idle(c) && l->now_ms - c->rx_ms >= o->idle_timeout_ms) {
			l->idle++;
			log_debug("net: nothing sent for %u ms, closing idle connection",
				  o->idle_timeout_ms);
			conn_close(c);
		} else if (idle_on) {
			sweep_within(l, idle_sweep_ms(l));
		}
	}
}

void *net_loop_main(void *arg)
{
	struct net_loop *l = arg;
	struct epoll_event evs[128];
	uint64_t wake_ms;
	int n, timeout;

	l->now_ms = mono_ms();
	l->next_sweep_ms = NET_NO_SWEEP;
	net_prio_start(&l->prio, l->now_ms);
	for (;;) {
		/* Completions no one woke us for. Again until none: taking them may pause a
		 * connection (a resumed one reads its next blocking calls), and a completion
		 * pushed before that pause did not wake us (see loop_completions()). */
		while (atomic_load(&l->done)) {
			loop_completions(l);
			loop_flush(l);
			loop_reap(l);
		}
		wake_ms = l->next_sweep_ms;
		if (l->stopping) {
			if (l->inflight == 0 || l->now_ms >= l->deadline_ms)
				break;
			if (l->deadline_ms < wake_ms)
				wake_ms = l->deadline_ms;
		}
		timeout = wake_ms == NET_NO_SWEEP ? -1 /* nothing to time: sleep until an event */
			  : wake_ms > l->now_ms	  ? (int)(wake_ms - l->now_ms)
						  : 0;
		loop_start_pools(l); /* none should be left: loop_flush() after every event */
		n = epoll_wait(l->epfd, evs, 128, timeout);
		if (n < 0 && errno != EINTR) {
			log_error("net: epoll_wait: %s", strerror(errno));
			break;
		}
		l->now_ms = mono_ms();
		net_prio_tick(&l->prio, l->now_ms);
		if (l->now_ms >= l->next_sweep_ms)
			loop_sweep(l);
		for (int i = 0; i < n; i++) {
			struct net_ev *ev = evs[i].data.ptr;

			switch (ev->kind) {
			case NET_EV_WAKE:
				loop_wake(l);
				break;
			case NET_EV_LISTEN:
				listen_accept(l, (struct net_sock *)ev);
				break;
			case NET_EV_UDP:
				udp_read(l, (struct net_sock *)ev);
				break;
			case NET_EV_CONN:
				conn_event((struct net_conn *)ev, evs[i].events);
				break;
			}
			/* Send what this event produced now: a connection's replies must not
			 * wait while the loop serves the other connections that are ready. */
			loop_flush(l);
		}
		loop_reap(l);
	}
	while (l->conns)
		conn_close(l->conns);
	loop_flush(l);
	loop_reap(l);
	return NULL;
}

void net_loop_wake_stop(struct net_loop *l)
{
	uint64_t one = 1;

	atomic_store(&l->stop_req, true);
	if (write(l->evfd, &one, sizeof(one)) < 0)
		log_debug("net: eventfd write: %s", strerror(errno));
}

void net_loop_drain(struct net_loop *l)
{
	loop_completions(l);
	loop_incoming(l, true);
	while (l->conns)
		conn_close(l->conns);
	loop_flush(l);
}

int net_loop_init(struct net_loop *l, struct net_server *s)
{
	struct epoll_event e;

	memset(l, 0, offsetof(struct net_loop, udp_spill));
	l->srv = s;
	l->wake_ev.kind = NET_EV_WAKE;
	atomic_init(&l->done, NULL);
	atomic_init(&l->done_woken, false);
	atomic_init(&l->npaused, 0);
	atomic_init(&l->nclosing, 0);
	atomic_init(&l->incoming, NULL);
	atomic_init(&l->nconn, 0);
	atomic_init(&l->stop_req, false);
	atomic_init(&l->mwaiting, 0);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->epfd < 0 || l->evfd < 0)
		return -errno;
	e.events = EPOLLIN;
	e.data.ptr = &l->wake_ev;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->evfd, &e) < 0)
		return -errno;
	return 0;
}

void net_loop_fini(struct net_loop *l)
{
	struct net_req *r;

	for (unsigned i = 0; i < l->nsocks; i++) {
		if (l->socks[i].fd >= 0)
			close(l->socks[i].fd);
	}
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->evfd >= 0)
		close(l->evfd);
	while ((r = l->free)) {
		l->free = r->next;
		arena_fini(&r->req.arena);
		free(r);
	}
	for (unsigned i = 0; i < l->nbig; i++)
		free(l->bigs[i]);
}
