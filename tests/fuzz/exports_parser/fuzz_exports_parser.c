/*
 * fuzz_exports_parser.c - fuzz the exports(5) parser (export_table_parse in
 * src/export/export_parse.c) and client matching on what it produced.
 *
 * Input: the text of an exports file. It is written to one temporary file (created
 * once, removed at exit) and parsed; a table that parses is matched against a few
 * client addresses and its credentials mapped, then freed without being opened, so
 * no exported path is ever touched. A refusal must come with a message.
 *
 * Host names would go to DNS: this file defines getaddrinfo()/freeaddrinfo(), which
 * the executable's copy of the parser binds to instead of libc's, as a deterministic
 * resolver that never leaves the process (see fake_addrs()).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <unistd.h>

#include "export/export.h"
#include "fuzz/fuzz.h"

static char path[64];
static int fd = -1;

static void cleanup(void)
{
	if (fd >= 0)
		unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/shoal-fuzz-exports.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("fuzz_exports_parser: mkstemp");
		abort();
	}
	atexit(cleanup);
	return 0;
}

/* One addrinfo with its address, freed as one block. */
struct fake_ai {
	struct addrinfo ai;
	struct sockaddr_storage ss;
};

/*
 * Names whose length is a multiple of three do not resolve; the others get one IPv4
 * address derived from the name, and names of even length also an IPv6 one.
 */
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	struct addrinfo *head = NULL, **tail = &head;
	size_t len = node ? strlen(node) : 0;
	uint32_t h = 2166136261u;

	(void)service;
	(void)hints;
	if (len % 3 == 0)
		return EAI_NONAME;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)node[i]) * 16777619u;
	for (int fam = 0; fam < (len % 2 ? 1 : 2); fam++) {
		struct fake_ai *f = calloc(1, sizeof(*f));

		if (!f)
			return EAI_MEMORY;
		f->ai.ai_addr = (struct sockaddr *)&f->ss;
		if (fam == 0) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&f->ss;

			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = htonl(h);
			f->ai.ai_family = AF_INET;
			f->ai.ai_addrlen = sizeof(*sin);
		} else {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&f->ss;

			sin6->sin6_family = AF_INET6;
			memcpy(&sin6->sin6_addr.s6_addr[12], &h, 4);
			sin6->sin6_addr.s6_addr[0] = 0x20;
			f->ai.ai_family = AF_INET6;
			f->ai.ai_addrlen = sizeof(*sin6);
		}
		f->ai.ai_socktype = SOCK_STREAM;
		*tail = &f->ai;
		tail = &f->ai.ai_next;
	}
	*res = head;
	return 0;
}

void freeaddrinfo(struct addrinfo *res)
{
	while (res) {
		struct addrinfo *next = res->ai_next;

		free(res); /* the first member of its struct fake_ai */
		res = next;
	}
}

static void try_clients(const struct export_table *t)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(700)};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(2000)};
	struct rpc_cred cred = {.flavor = RPC_AUTH_SYS, .ngids = 2, .gids = {0, 5}};
	struct export_opts opts;
	struct vfs_ctx ctx;

	sin.sin_addr.s_addr = htonl(0x7f000001);
	sin6.sin6_addr.s6_addr[15] = 1;
	for (size_t i = 0; i < export_table_count(t); i++) {
		const struct export *e = export_table_at(t, i);

		if (!e || e->path[0] != '/')
			abort(); /* paths must be absolute */
		if (export_check(e, (const struct sockaddr *)&sin, sizeof(sin), &opts) == 0)
			export_map_cred(&opts, &cred, &ctx);
		if (export_check(e, (const struct sockaddr *)&sin6, sizeof(sin6), &opts) == 0)
			export_map_cred(&opts, &cred, &ctx);
		if (export_by_path(t, e->path) == NULL || export_by_id(t, e->id) == NULL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct export_table *t = NULL;
	char err[512];
	int rc;

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	err[0] = 0;
	rc = export_table_parse(path, &t, err, sizeof(err));
	if (rc == 0) {
		try_clients(t);
		export_table_put(t);
	} else if (rc > 0 || err[0] == 0) {
		abort(); /* a refusal is a negative errno with a message */
	}
	return 0;
}
