/*
 * export.c - export tables: lifetime, publication, client matching and squashing.
 *
 * The exports file is parsed by export_parse.c; this file owns what happens to a table
 * afterwards. A table is immutable once published. The current table is reached through
 * one atomic pointer; a reader takes a reference under cur_lock so that "load the
 * pointer and count a reference" cannot interleave with the swap of a reload, and the
 * replaced table is freed by whoever drops its last reference.
 *
 * Locks: cur_lock only (no lock order to respect; nothing is called while holding it).
 */
#include "export/export_priv.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/siphash.h"

/* Protects the pairing of a load of @cur with the increment of its refcount. */
static pthread_mutex_t cur_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct export_table *) cur;

void export_opts_default(struct export_opts *o)
{
	o->ro = true;
	o->root_squash = true;
	o->all_squash = false;
	o->secure = false;
	o->anonuid = 65534;
	o->anongid = 65534;
}

uint32_t export_path_id(const char *path)
{
	static const uint8_t key[16];

	return (uint32_t)siphash24(key, path, strlen(path));
}

struct export_table *export_table_new(void)
{
	struct export_table *t = calloc(1, sizeof(*t));

	if (t)
		atomic_init(&t->refs, 1);
	return t;
}

void export_client_fini(struct export_client *cl)
{
	free(cl->spec);
	free(cl->addrs);
	cl->spec = NULL;
	cl->addrs = NULL;
}

static void export_fini(struct export *e)
{
	if (e->vx)
		vfs_export_put(e->vx);
	for (size_t i = 0; i < e->nclients; i++)
		export_client_fini(&e->clients[i]);
	free(e->clients);
	free(e->clients_text);
	free(e->path);
}

void export_table_free(struct export_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		export_fini(&t->exports[i]);
	free(t->exports);
	free(t);
}

/* "spec1 spec2 ..." for MOUNT EXPORT; NULL when out of memory. */
static char *join_specs(const struct export_client *clients, size_t n)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(clients[i].spec) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(clients[i].spec);

		if (i)
			*p++ = ' ';
		memcpy(p, clients[i].spec, l);
		p += l;
		*p = '\0';
	}
	return s;
}

struct export *export_table_add(struct export_table *t, char *path, struct export_client *clients,
				size_t nclients)
{
	struct export *arr, *e;
	char *text = join_specs(clients, nclients);

	arr = text ? realloc(t->exports, (t->n + 1) * sizeof(*arr)) : NULL;
	if (!arr) {
		free(text);
		free(path);
		for (size_t i = 0; i < nclients; i++)
			export_client_fini(&clients[i]);
		free(clients);
		return NULL;
	}
	t->exports = arr;
	e = &arr[t->n++];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->clients = clients;
	e->nclients = nclients;
	e->clients_text = text;
	e->id = export_path_id(path);
	return e;
}

int export_table_single(const char *dir, struct export_table **out, char *err, size_t errlen)
{
	struct export_client *cl;
	struct export_table *t;
	char *path;
	size_t len;

	*out = NULL;
	if (dir[0] == '/') {
		path = strdup(dir);
	} else {
		path = realpath(dir, NULL);
		if (!path) {
			int rc = -errno;

			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return rc;
		}
	}
	if (!path)
		goto nomem;
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	cl = calloc(1, sizeof(*cl));
	if (!cl || !(cl->spec = strdup("*"))) {
		free(cl);
		free(path);
		goto nomem;
	}
	cl->any = true;
	export_opts_default(&cl->opts);
	cl->opts.ro = false;
	cl->opts.root_squash = false;
	t = export_table_new();
	if (!t || !export_table_add(t, path, cl, 1)) {
		/* export_table_add consumed path and cl unless t was NULL */
		if (!t) {
			export_client_fini(cl);
			free(cl);
			free(path);
		}
		export_table_free(t);
		goto nomem;
	}
	*out = t;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", dir);
	return -ENOMEM;
}

/* The export of @prev with this path and id that already holds a vfs_export. */
static struct vfs_export *prev_vx(const struct export_table *prev, const struct export *e)
{
	if (!prev)
		return NULL;
	for (size_t i = 0; i < prev->n; i++) {
		const struct export *p = &prev->exports[i];

		if (p->vx && p->id == e->id && strcmp(p->path, e->path) == 0)
			return p->vx;
	}
	return NULL;
}

int export_table_open(struct export_table *t, const struct export_table *prev, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < t->n; i++) {
		struct export *e = &t->exports[i];
		struct vfs_export *vx;
		int rc;

		if (e->vx)
			continue;
		vx = prev_vx(prev, e);
		if (vx) {
			vfs_export_get(vx);
			e->vx = vx;
			continue;
		}
		rc = vfs_export_open(e->path, e->id, &e->vx);
		if (rc < 0) {
			e->vx = NULL;
			snprintf(err, errlen, "%s: %s", e->path, strerror(-rc));
			/* undo: a table is either fully open or not at all */
			for (size_t j = 0; j < i; j++) {
				vfs_export_put(t->exports[j].vx);
				t->exports[j].vx = NULL;
			}
			return rc;
		}
	}
	return 0;
}

/*
 * Publishing NULL withdraws the current table (used at shutdown and by tests);
 * readers already holding it keep it until their put.
 */
void export_table_publish(struct export_table *t)
{
	struct export_table *old;

	pthread_mutex_lock(&cur_lock);
	old = atomic_exchange(&cur, t);
	pthread_mutex_unlock(&cur_lock);
	export_table_put(old);
}

struct export_table *export_table_get(void)
{
	struct export_table *t;

	pthread_mutex_lock(&cur_lock);
	t = atomic_load(&cur);
	if (t)
		atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&cur_lock);
	return t;
}

void export_table_put(struct export_table *t)
{
	if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
		export_table_free(t);
}

size_t export_table_count(const struct export_table *t)
{
	return t->n;
}

const struct export *export_table_at(const struct export_table *t, size_t i)
{
	return i < t->n ? &t->exports[i] : NULL;
}

int export_table_sync(const struct export_table *t)
{
	int first = 0;

	for (size_t i = 0; i < t->n; i++) {
		int rc = vfs_export_sync(t->exports[i].vx);

		if (rc) {
			log_error("%s: cannot flush to stable storage: %s", t->exports[i].path,
				  strerror(-rc));
			first = first ? first : rc;
		}
	}
	return first;
}

const struct export *export_by_id(const struct export_table *t, uint32_t id)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->exports[i].id == id)
			return &t->exports[i];
	}
	return NULL;
}

const struct export *export_by_path(const struct export_table *t, const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (size_t i = 0; i < t->n; i++) {
		const char *p = t->exports[i].path;

		if (strlen(p) == len && memcmp(p, path, len) == 0)
			return &t->exports[i];
	}
	return NULL;
}

static bool addr_match(const struct export_addr *a, int family, const uint8_t *ip)
{
	unsigned bytes = a->prefix / 8, bits = a->prefix % 8;

	if (a->family != family)
		return false;
	if (memcmp(a->addr, ip, bytes) != 0)
		return false;
	if (bits) {
		uint8_t mask = (uint8_t)(0xff00 >> bits);

		return (ip[bytes] & mask) == a->addr[bytes];
	}
	return true;
}

int export_check(const struct export *e, const struct sockaddr *peer, socklen_t peer_len,
		 struct export_opts *opts)
{
	const uint8_t *ip;
	uint16_t port;
	int family;

	if (peer->sa_family == AF_INET && peer_len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)peer;

		family = AF_INET;
		ip = (const uint8_t *)&sin->sin_addr;
		port = ntohs(sin->sin_port);
	} else if (peer->sa_family == AF_INET6 &&
		   peer_len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)peer;

		family = AF_INET6;
		ip = sin6->sin6_addr.s6_addr;
		port = ntohs(sin6->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			family = AF_INET; /* ::ffff:a.b.c.d matches a.b.c.d specs */
			ip += 12;
		}
	} else {
		return -EACCES;
	}
	for (size_t i = 0; i < e->nclients; i++) {
		const struct export_client *cl = &e->clients[i];
		bool hit = cl->any;

		for (size_t k = 0; !hit && k < cl->naddrs; k++)
			hit = addr_match(&cl->addrs[k], family, ip);
		if (!hit)
			continue;
		/* exports(5): the first matching specification decides */
		if (cl->opts.secure && port >= 1024)
			return -EACCES;
		*opts = cl->opts;
		return 0;
	}
	return -EACCES;
}

void export_map_cred(const struct export_opts *opts, const struct rpc_cred *cred,
		     struct vfs_ctx *ctx)
{
	struct vfs_cred *vc = &ctx->cred;

	memset(ctx, 0, sizeof(*ctx));
	ctx->readonly = opts->ro;
	if (cred->flavor != RPC_AUTH_SYS || opts->all_squash) {
		vc->uid = opts->anonuid;
		vc->gid = opts->anongid;
		vc->ngroups = 0;
		return;
	}
	vc->uid = cred->uid;
	vc->gid = cred->gid;
	vc->ngroups = cred->ngids < VFS_MAXGROUPS ? cred->ngids : VFS_MAXGROUPS;
	if (vc->ngroups > RPC_AUTHSYS_MAXGIDS)
		vc->ngroups = RPC_AUTHSYS_MAXGIDS;
	memcpy(vc->groups, cred->gids, vc->ngroups * sizeof(vc->groups[0]));
	if (!opts->root_squash)
		return;
	if (vc->uid == 0)
		vc->uid = opts->anonuid;
	if (vc->gid == 0)
		vc->gid = opts->anongid;
	for (uint32_t i = 0; i < vc->ngroups; i++) {
		if (vc->groups[i] == 0)
			vc->groups[i] = opts->anongid;
	}
}
