/*
 * nfsc_call.c - the connection and the raw layer of nfsc.h: one libnfs raw async
 * request per struct nfsc_call, and a poll loop that drives the connection until the
 * replies are in or the deadline passes.
 *
 * libnfs frees a reply's pointers when the callback returns, so whatever lives behind a
 * pointer (handles, READ data, directory entries) is copied out by the call's hook.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "lib/nfsc.h"

static long now_ms(void)
{
	return (long)mono_ms();
}

void nfsc_call_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct nfsc_call *k = priv;

	(void)rpc;
	k->done = true;
	k->status = status;
	if (status != RPC_STATUS_SUCCESS || !data)
		return;
	if (k->res_size)
		memcpy(&k->res, data, k->res_size);
	if (k->hook)
		k->hook(k, data);
}

void nfsc_call_init(struct nfsc_call *k, size_t res_size, nfsc_hook hook)
{
	memset(k, 0, sizeof(*k));
	k->res_size = res_size;
	k->hook = hook;
}

/*
 * The connection is of no more use: say why, and destroy the context now, while the
 * calls still pending (usually on the caller's stack) are alive to be told so by their
 * callbacks; libnfs would otherwise call them later, into whatever reused that memory.
 */
static int broke(struct nfsc *c, const char *what, const char *why)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, why);
	c->broken = true;
	nfsc_close(c);
	return -1;
}

int nfsc_wait(struct nfsc *c, struct nfsc_call *const *ks, size_t n)
{
	long deadline = now_ms() + c->timeout_ms;

	if (c->broken || !c->rpc)
		return -1;
	for (;;) {
		struct pollfd pfd;
		size_t pending = 0;

		for (size_t i = 0; i < n; i++)
			pending += !ks[i]->done;
		if (!pending)
			break;
		if (now_ms() > deadline) {
			char why[32];

			snprintf(why, sizeof(why), "%d ms", c->timeout_ms);
			return broke(c, "no reply within", why);
		}
		pfd.fd = rpc_get_fd(c->rpc);
		pfd.events = (short)rpc_which_events(c->rpc);
		pfd.revents = 0;
		if (poll(&pfd, 1, 100) < 0)
			continue;
		if (rpc_service(c->rpc, pfd.revents) < 0)
			return broke(c, "connection broken", rpc_get_error(c->rpc));
	}
	for (size_t i = 0; i < n; i++) {
		if (ks[i]->status != RPC_STATUS_SUCCESS) {
			char why[128];

			snprintf(why, sizeof(why), "%d: %s", ks[i]->status, rpc_get_error(c->rpc));
			return broke(c, "rpc status", why);
		}
	}
	return 0;
}

int nfsc_run(struct nfsc *c, struct nfsc_call *k, int rc)
{
	if (c->broken || !c->rpc)
		return -1;
	if (rc != 0)
		return broke(c, "could not send", rpc_get_error(c->rpc));
	return nfsc_wait(c, &k, 1);
}

int nfsc_connect(struct nfsc *c, const char *host, int port, int timeout_s)
{
	struct nfsc_call k;

	memset(c, 0, sizeof(*c));
	c->timeout_ms = timeout_s * 1000;
	c->rpc = rpc_init_context();
	if (!c->rpc) {
		snprintf(c->err, sizeof(c->err), "rpc_init_context failed");
		return -1;
	}
	nfsc_call_init(&k, 0, NULL);
	if (nfsc_run(c, &k, rpc_connect_async(c->rpc, host, port, nfsc_call_cb, &k))) {
		nfsc_close(c);
		return -1;
	}
	return 0;
}

void nfsc_connect_env(struct nfsc *c, const char *host, bool mount)
{
	struct nfsc_env env = nfsc_env();
	int port = mount ? env.mount_port : env.nfs_port;

	if (nfsc_connect(c, host, port, env.timeout_s))
		nfsc_die("connect to %s port %d: %s", host, port, c->err);
}

void nfsc_set_auth(struct nfsc *c, enum nfsc_auth auth, uint32_t uid, uint32_t gid)
{
	struct AUTH *a;

	if (auth == NFSC_AUTH_NONE)
		a = libnfs_authnone_create();
	else
		a = libnfs_authunix_create("shoal-test", uid, gid, 0, NULL);
	if (a)
		rpc_set_auth(c->rpc, a); /* the context owns it from now on */
}

void nfsc_close(struct nfsc *c)
{
	if (c->rpc)
		rpc_destroy_context(c->rpc);
	c->rpc = NULL;
}

bool nfsc_broken(const struct nfsc *c)
{
	return c->broken || !c->rpc;
}

nfs_fh3 nfsc_fh3(const struct nfsc_fh *fh)
{
	nfs_fh3 h;

	h.data.data_len = fh->len;
	h.data.data_val = (char *)fh->data;
	return h;
}

void nfsc_fh_set(struct nfsc_fh *fh, u_int len, const char *data)
{
	fh->len = len > NFSC_FHMAX ? NFSC_FHMAX : len;
	memcpy(fh->data, data, fh->len);
}

/* CREATE, MKDIR, SYMLINK and MKNOD results share one layout. */
void nfsc_hook_newobj(struct nfsc_call *k, void *res)
{
	CREATE3res *r = res;

	if (r->status == NFS3_OK && r->CREATE3res_u.resok.obj.handle_follows) {
		nfs_fh3 *h = &r->CREATE3res_u.resok.obj.post_op_fh3_u.handle;

		nfsc_fh_set(&k->fh, h->data.data_len, h->data.data_val);
	}
}
