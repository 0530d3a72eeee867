/*
 * cachedisk_main.c - cachedisk: an image file served to qemu over NBD on a Unix socket,
 * with a volatile write cache that a power cut partly loses (cachedisk.h).
 *
 *   cachedisk [-s SEED] [-k KEEP-PERCENT] [-c CACHE-MIB] IMAGE SOCKET
 *
 * Prints "cachedisk: listening on SOCKET" once qemu may connect, serves one connection,
 * and when it ends (qemu killed: the power cut; or qemu's own exit) cuts the power: each
 * 4 KiB piece of the writes not yet flushed reaches IMAGE with a chance of KEEP-PERCENT
 * (default 50), by coins drawn from SEED (default 1). Then prints one line of what it
 * did ("cachedisk: W writes, F flushes, B written back by a full cache; at the cut ...")
 * and exits 0; 1 when the client broke the protocol or the image failed, 2 on bad use.
 * CACHE-MIB (default 256) is what the cache holds before it writes its oldest writes
 * back on its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cachedisk.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: cachedisk [-s SEED] [-k KEEP-PERCENT] [-c CACHE-MIB] IMAGE SOCKET\n");
	return 2;
}

/* A listening Unix socket at @path (replacing a stale one); -1 with a message. */
static int listen_at(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "cachedisk: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0) {
		fprintf(stderr, "cachedisk: listen on %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1, keep = 50, cache_mib = 256;
	const struct cdisk_stats *st;
	struct cdisk *d;
	int opt, lfd, fd, rc;
	char *end;

	while ((opt = getopt(argc, argv, "s:k:c:")) != -1) {
		unsigned long long *v = opt == 's' ? &seed : opt == 'k' ? &keep : &cache_mib;

		if (opt == '?')
			return usage();
		errno = 0;
		*v = strtoull(optarg, &end, 0);
		if (errno || *end || end == optarg || (opt == 'k' && keep > 100) ||
		    (opt == 'c' && (cache_mib == 0 || cache_mib > 65536)))
			return usage();
	}
	if (argc - optind != 2)
		return usage();
	d = cdisk_open(argv[optind], seed, (unsigned)keep, cache_mib << 20);
	if (!d) {
		fprintf(stderr, "cachedisk: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	lfd = listen_at(argv[optind + 1]);
	if (lfd < 0) {
		cdisk_close(d);
		return 2;
	}
	printf("cachedisk: listening on %s\n", argv[optind + 1]);
	fflush(stdout);
	do
		fd = accept(lfd, NULL, NULL);
	while (fd < 0 && errno == EINTR);
	close(lfd);
	unlink(argv[optind + 1]);
	if (fd < 0) {
		fprintf(stderr, "cachedisk: accept: %s\n", strerror(errno));
		cdisk_close(d);
		return 1;
	}
	rc = cdisk_nbd_serve(d, fd);
	close(fd);
	if (cdisk_cut(d) != 0)
		rc = -1;
	st = cdisk_stats(d);
	printf("cachedisk: %" PRIu64 " writes, %" PRIu64 " flushes, %" PRIu64
	       " written back by a full cache; at the cut %" PRIu64 " unflushed writes (%" PRIu64
	       " bytes): %" PRIu64 " pieces kept, %" PRIu64 " lost%s\n",
	       st->writes, st->flushes, st->written_back, st->cut_writes, st->cut_bytes,
	       st->cut_kept, st->cut_dropped,
	       rc ? " (the client broke the protocol or the image failed)" : "");
	cdisk_close(d);
	return rc ? 1 : 0;
}
