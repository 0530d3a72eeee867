/*
 * export_parse.c - the exports file, in the syntax of Linux /etc/exports(5).
 *
 *	# comment
 *	/srv/data   10.0.0.0/8(rw,no_root_squash) host.example.org(ro) *(ro,all_squash)
 *	"/srv/with space" -rw 192.168.1.0/255.255.255.0 ::1/128
 *
 * A logical line (backslash-newline continues it) names an absolute path, optionally
 * quoted, then client specifications, each optionally followed by options in
 * parentheses with no space between. A bare "(opts)" or no client at all means every
 * client. A "-opts" word right after the path sets the defaults for the line's clients.
 * Host names are resolved once, here, to all of their addresses. Not supported, and
 * refused with a message: wildcard host names (*.example.org), netgroups (@group),
 * sec= flavours other than sys, and options we do not know.
 */
#include "export/export_priv.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define EXPORT_PATH_MAX 1024 /* MNTPATHLEN: longer paths could never be mounted */

/* State of one parse: where we are, for messages. */
struct parse {
	const char *file;
	unsigned line;
	char *err;
	size_t errlen;
};

static int perr(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write "FILE:LINE: message" and return -EINVAL. */
static int perr(struct parse *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->err, ps->errlen, "%s:%u: ", ps->file, ps->line);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Parse a decimal uint32 that is the whole of @s. */
static bool parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Options that change nothing for us but are valid in exports(5); subtree_check is
 * accepted with a warning, since a user who asks for it expects a protection we lack. */
static const char *const ignored_opts[] = {
	"sync", "async",  "wdelay",   "no_wdelay", "subtree_check", "no_subtree_check",
	"hide", "nohide", "crossmnt",
};

static void warn_subtree_check(const struct parse *ps)
{
	log_warn("%s:%u: subtree_check is not supported: Shoal behaves as with no_subtree_check "
		 "(a file moved out of the export stays reachable by the handles clients have)",
		 ps->file, ps->line);
}

/*
 * Apply the comma-separated options @s (modified in place) to @o. A fsid= value is
 * stored in *fsid with *has_fsid set.
 */
static int parse_opts(struct parse *ps, char *s, struct export_opts *o, bool *has_fsid,
		      uint32_t *fsid)
{
	char *save = NULL, *opt;
	size_t len = strlen(s);

	if (len == 0)
		return 0;
	if (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
		return perr(ps, "empty option in '%s'", s);
	for (opt = strtok_r(s, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *val = strchr(opt, '=');
		bool known = false;

		if (val)
			*val++ = '\0';
		if (!val) {
			for (size_t i = 0; i < sizeof(ignored_opts) / sizeof(ignored_opts[0]); i++)
				known = known || strcmp(opt, ignored_opts[i]) == 0;
			if (known && strcmp(opt, "subtree_check") == 0)
				warn_subtree_check(ps);
			if (known)
				continue;
		}
		if (!val && strcmp(opt, "ro") == 0) {
			o->ro = true;
		} else if (!val && strcmp(opt, "rw") == 0) {
			o->ro = false;
		} else if (!val && strcmp(opt, "root_squash") == 0) {
			o->root_squash = true;
		} else if (!val && strcmp(opt, "no_root_squash") == 0) {
			o->root_squash = false;
		} else if (!val && strcmp(opt, "all_squash") == 0) {
			o->all_squash = true;
		} else if (!val && strcmp(opt, "no_all_squash") == 0) {
			o->all_squash = false;
		} else if (!val && strcmp(opt, "secure") == 0) {
			o->secure = true;
		} else if (!val && strcmp(opt, "insecure") == 0) {
			o->secure = false;
		} else if (val && strcmp(opt, "anonuid") == 0) {
			if (!parse_u32(val, &o->anonuid))
				return perr(ps, "bad number in anonuid=%s", val);
		} else if (val && strcmp(opt, "anongid") == 0) {
			if (!parse_u32(val, &o->anongid))
				return perr(ps, "bad number in anongid=%s", val);
		} else if (val && strcmp(opt, "fsid") == 0) {
			uint32_t v;

			if (!parse_u32(val, &v))
				return perr(ps, "fsid=%s: only a number is supported", val);
			if (*has_fsid && *fsid != v)
				return perr(ps, "conflicting fsid=%s (fsid=%u given before)", val,
					    *fsid);
			*has_fsid = true;
			*fsid = v;
		} else if (val && strcmp(opt, "sec") == 0) {
			if (strcmp(val, "sys") != 0)
				return perr(ps, "sec=%s: only sec=sys is supported", val);
		} else {
			return perr(ps, "unknown option '%s%s%s'", opt, val ? "=" : "",
				    val ? val : "");
		}
	}
	return 0;
}

/* Clear the bits of @a->addr beyond the prefix. */
static void mask_addr(struct export_addr *a)
{
	unsigned nbytes = a->family == AF_INET ? 4 : 16;

	for (unsigned i = 0; i < nbytes; i++) {
		unsigned lo = i * 8;

		if (a->prefix <= lo)
			a->addr[i] = 0;
		else if (a->prefix < lo + 8)
			a->addr[i] &= (uint8_t)(0xff00 >> (a->prefix - lo));
	}
}

/* ::ffff:a.b.c.d/N with N >= 96 is the IPv4 range a.b.c.d/(N-96). */
static void unmap_v4(struct export_addr *a)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (a->family == AF_INET6 && a->prefix >= 96 && memcmp(a->addr, mapped, 12) == 0) {
		memmove(a->addr, a->addr + 12, 4);
		memset(a->addr + 4, 0, 12);
		a->family = AF_INET;
		a->prefix -= 96;
	}
}

/* A numeric address, "addr" or "addr/prefix" or "a.b.c.d/netmask". */
static bool parse_numeric(const char *spec, struct export_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;

	if (strlen(spec) >= sizeof(buf))
		return false;
	strcpy(buf, spec);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, buf, a->addr) == 1) {
		a->family = AF_INET;
		a->prefix = 32;
	} else if (inet_pton(AF_INET6, buf, a->addr) == 1) {
		a->family = AF_INET6;
		a->prefix = 128;
	} else {
		return false;
	}
	if (slash) {
		uint32_t v;
		uint8_t m[4];

		if (parse_u32(slash, &v)) {
			if (v > a->prefix)
				return false;
			a->prefix = v;
		} else if (a->family == AF_INET && inet_pton(AF_INET, slash, m) == 1) {
			uint32_t mask = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 |
					(uint32_t)m[2] << 8 | m[3];

			if (~mask & (~mask + 1))
				return false; /* not contiguous ones then zeros */
			a->prefix = (unsigned)__builtin_popcount(mask);
		} else {
			return false;
		}
	}
	mask_addr(a);
	unmap_v4(a);
	return true;
}

/* Resolve a host name to all of its addresses. */
static int resolve_host(struct parse *ps, const char *name, struct export_client *cl)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res, *ai;
	size_t n = 0;
	int rc;

	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc)
		return perr(ps, "cannot resolve host '%s': %s", name, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next)
		n++;
	cl->addrs = calloc(n ? n : 1, sizeof(*cl->addrs));
	if (!cl->addrs) {
		freeaddrinfo(res);
		return -ENOMEM;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		struct export_addr a = {0};
		bool dup = false;

		if (ai->ai_family == AF_INET) {
			a.family = AF_INET;
			a.prefix = 32;
			memcpy(a.addr, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
		} else if (ai->ai_family == AF_INET6) {
			a.family = AF_INET6;
			a.prefix = 128;
			memcpy(a.addr, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
			unmap_v4(&a);
		} else {
			continue;
		}
		for (size_t i = 0; i < cl->naddrs; i++)
			dup = dup || memcmp(&cl->addrs[i], &a, sizeof(a)) == 0;
		if (!dup)
			cl->addrs[cl->naddrs++] = a;
	}
	freeaddrinfo(res);
	if (cl->naddrs == 0)
		return perr(ps, "host '%s' has no IPv4 or IPv6 address", name);
	return 0;
}

/* Fill @cl (spec and addresses) from the client word @spec. */
static int parse_client(struct parse *ps, const char *spec, struct export_client *cl)
{
	struct export_addr a;

	cl->spec = strdup(spec);
	if (!cl->spec)
		return -ENOMEM;
	if (strcmp(spec, "*") == 0) {
		cl->any = true;
		return 0;
	}
	if (spec[0] == '@')
		return perr(ps, "netgroups are not supported: '%s'", spec);
	if (strpbrk(spec, "*?["))
		return perr(ps,
			    "wildcard host names are not supported: '%s' (use an address or a "
			    "CIDR range such as 10.0.0.0/8)",
			    spec);
	if (strchr(spec, '/') || strchr(spec, ':') || isdigit((unsigned char)spec[0])) {
		if (parse_numeric(spec, &a)) {
			cl->addrs = malloc(sizeof(a));
			if (!cl->addrs)
				return -ENOMEM;
			cl->addrs[0] = a;
			cl->naddrs = 1;
			return 0;
		}
		if (strchr(spec, '/') || strchr(spec, ':'))
			return perr(ps, "bad address or network '%s'", spec);
	}
	for (const char *p = spec; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			return perr(ps, "bad client '%s'", spec);
	}
	return resolve_host(ps, spec, cl);
}

/* Cut the next whitespace-separated word from *@pp; NULL at the end of the line. */
static char *next_word(char **pp)
{
	char *p = *pp, *w;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*pp = p;
	return w;
}

/* Cut the path (possibly "quoted") from *@pp into a new string in *out. */
static int parse_path(struct parse *ps, char **pp, char **out)
{
	char *p = *pp, *path;
	size_t len;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '"') {
		char *end = strchr(++p, '"');

		if (!end)
			return perr(ps, "missing closing quote");
		*end = '\0';
		path = p;
		p = end + 1;
		if (*p && *p != ' ' && *p != '\t')
			return perr(ps, "text after the closing quote");
	} else {
		path = next_word(&p);
	}
	*pp = p;
	len = strlen(path);
	if (path[0] != '/')
		return perr(ps, "path '%s' is not absolute", path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (len > EXPORT_PATH_MAX)
		return perr(ps, "path longer than %d bytes", EXPORT_PATH_MAX);
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

/* Remove a '#' comment outside a quoted path. */
static void strip_comment(char *s)
{
	bool quoted = false;

	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == '#' && !quoted) {
			*s = '\0';
			return;
		}
	}
}

/* Parse one logical line (modified in place) and add its export to @t. */
static int parse_line(struct parse *ps, char *line, struct export_table *t, unsigned *lines)
{
	struct export_client *clients = NULL;
	struct export_opts defaults;
	size_t n = 0;
	bool has_fsid = false, first = true;
	uint32_t fsid = 0;
	char *path = NULL, *w, *p = line;
	struct export *e;
	int rc;

	export_opts_default(&defaults);
	rc = parse_path(ps, &p, &path);
	if (rc)
		return rc;
	if (export_by_path(t, path)) {
		rc = perr(ps, "%s is exported twice (first on line %u)", path,
			  lines[export_by_path(t, path) - t->exports]);
		goto err;
	}
	while ((w = next_word(&p))) {
		struct export_client *cl;
		char *paren = strchr(w, '(');
		char noname[] = "*";

		/* a "-opts" word sets the line's defaults, only right after the path */
		if (w[0] == '-' && first) {
			first = false;
			rc = parse_opts(ps, w + 1, &defaults, &has_fsid, &fsid);
			if (rc)
				goto err;
			continue;
		}
		first = false;
		cl = realloc(clients, (n + 1) * sizeof(*cl));
		if (!cl) {
			rc = -ENOMEM;
			goto err;
		}
		clients = cl;
		cl = &clients[n++];
		memset(cl, 0, sizeof(*cl));
		cl->opts = defaults;
		if (paren) {
			size_t wl = strlen(w);

			if (w[wl - 1] != ')' || strchr(paren + 1, '(') ||
			    strchr(paren + 1, ')') != &w[wl - 1]) {
				rc = perr(ps, "bad option list in '%s' (no spaces allowed)", w);
				goto err;
			}
			w[wl - 1] = '\0';
			*paren = '\0';
			rc = parse_opts(ps, paren + 1, &cl->opts, &has_fsid, &fsid);
			if (rc)
				goto err;
		}
		rc = parse_client(ps, w[0] ? w : noname, cl);
		if (rc)
			goto err;
	}
	if (n == 0) {
		/* exports(5): no client means every client, with the line's defaults */
		clients = calloc(1, sizeof(*clients));
		if (!clients || !(clients[0].spec = strdup("*"))) {
			rc = -ENOMEM;
			goto err;
		}
		clients[0].any = true;
		clients[0].opts = defaults;
		n = 1;
	}
	e = export_table_add(t, path, clients, n);
	if (!e)
		return -ENOMEM;
	if (has_fsid)
		e->id = fsid;
	lines[t->n - 1] = ps->line;
	return 0;
err:
	for (size_t i = 0; i < n; i++)
		export_client_fini(&clients[i]);
	free(clients);
	free(path);
	return rc;
}

/* Two exports with one id would let handles of one reach the other's export lookup. */
static int check_ids(struct parse *ps, const struct export_table *t, const unsigned *lines)
{
	for (size_t i = 1; i < t->n; i++) {
		for (size_t j = 0; j < i; j++) {
			if (t->exports[i].id != t->exports[j].id)
				continue;
			ps->line = lines[i];
			return perr(ps, "export id %u of %s collides with %s (line %u); set fsid=",
				    t->exports[i].id, t->exports[i].path, t->exports[j].path,
				    lines[j]);
		}
	}
	return 0;
}

/* Append @s (length @len) to the growing buffer *@buf. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = (*len + n + 1) * 2;
		char *nb = realloc(*buf, ncap);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* Parse one complete logical line unless it is blank or a comment. */
static int take_logical(struct parse *ps, char *logical, struct export_table *t, unsigned **lines,
			size_t *linecap)
{
	strip_comment(logical);
	if (strspn(logical, " \t") == strlen(logical))
		return 0;
	if (t->n + 1 > *linecap) {
		size_t ncap = *linecap * 2 + 8;
		unsigned *nl = realloc(*lines, ncap * sizeof(**lines));

		if (!nl)
			return -ENOMEM;
		*lines = nl;
		*linecap = ncap;
	}
	return parse_line(ps, logical, t, *lines);
}

static int parse_stream(struct parse *ps, FILE *f, struct export_table *t)
{
	char *phys = NULL, *logical = NULL;
	size_t physcap = 0, llen = 0, lcap = 0, linecap = 0;
	unsigned *lines = NULL, lineno = 0;
	bool cont = false;
	ssize_t got;
	int rc = 0;

	while (rc == 0 && (got = getline(&phys, &physcap, f)) >= 0) {
		size_t len = (size_t)got;

		lineno++;
		if (!cont) {
			ps->line = lineno;
			llen = 0;
		}
		while (len && (phys[len - 1] == '\n' || phys[len - 1] == '\r'))
			len--;
		if (memchr(phys, '\0', len)) {
			rc = perr(ps, "NUL byte in line");
			break;
		}
		cont = len && phys[len - 1] == '\\';
		if (cont)
			phys[len - 1] = ' ';
		rc = append(&logical, &llen, &lcap, phys, len);
		if (rc == 0 && !cont)
			rc = take_logical(ps, logical, t, &lines, &linecap);
	}
	if (rc == 0 && ferror(f))
		rc = -EIO;
	if (rc == 0 && cont) /* a backslash on the last line: take what we have */
		rc = take_logical(ps, logical, t, &lines, &linecap);
	if (rc == 0)
		rc = check_ids(ps, t, lines);
	if (rc == -ENOMEM)
		snprintf(ps->err, ps->errlen, "%s:%u: out of memory", ps->file, ps->line);
	else if (rc == -EIO)
		snprintf(ps->err, ps->errlen, "%s: read error", ps->file);
	free(lines);
	free(logical);
	free(phys);
	return rc;
}

int export_table_parse(const char *file, struct export_table **out, char *err, size_t errlen)
{
	struct parse ps = {.file = file, .line = 0, .err = err, .errlen = errlen};
	struct export_table *t;
	FILE *f;
	int rc;

	*out = NULL;
	f = fopen(file, "re");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return rc;
	}
	t = export_table_new();
	if (!t) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	rc = parse_stream(&ps, f, t);
	fclose(f);
	if (rc) {
		export_table_free(t);
		return rc;
	}
	*out = t;
	return 0;
}
