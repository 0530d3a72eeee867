/*
 * nfsload.c - a metadata load generator for NFSv3 servers, built on libnfs.
 *
 * It mounts an export, creates one file, then keeps DEPTH calls in flight on each of
 * CONNS TCP connections, cycling GETATTR, LOOKUP and ACCESS, for a warm-up and a
 * measured interval. It prints the calls answered per second and, when given the
 * server's pid, the server's CPU time per call read from its CPU clock (user + system,
 * all threads) over exactly the measured interval, and its own CPU time per call.
 * This is the measurement that issue #2's speed floor is stated in; shoal-bench
 * measures the full SFS mix.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "core/clock.h"

#define MAX_CONNS 1024

struct conn {
	struct rpc_context *rpc;
	unsigned next_op;
	bool dead;
};

static struct {
	const char *host, *path;
	int nfs_port, mount_port;
	unsigned conns, depth;
	double warmup, seconds;
	int server_pid;
	char root_fh[64], file_fh[64];
	unsigned root_len, file_len;
	uint64_t answered, errors;
	bool measuring, stopping;
	int wait_done, wait_status;
} g = {
	.host = "127.0.0.1",
	.nfs_port = 2049,
	.mount_port = 20048,
	.conns = 4,
	.depth = 32,
	.warmup = 2,
	.seconds = 10,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Run one context's event loop until the pending step calls back. */
static int wait_for(struct rpc_context *rpc, double timeout)
{
	double end = now_s() + timeout;

	g.wait_done = 0;
	while (!g.wait_done) {
		struct pollfd pfd = {.fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc)};

		if (now_s() > end) {
			fprintf(stderr, "nfsload: timed out waiting for the server\n");
			return -1;
		}
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return -1;
		if (rpc_service(rpc, pfd.revents) < 0) {
			fprintf(stderr, "nfsload: %s\n", rpc_get_error(rpc));
			return -1;
		}
	}
	return g.wait_status;
}

static void step_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	(void)data;
	(void)priv;
	g.wait_status = status == RPC_STATUS_SUCCESS ? 0 : -1;
	g.wait_done = 1;
}

static void mnt_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	mountres3 *res = data;

	(void)rpc;
	(void)priv;
	g.wait_done = 1;
	g.wait_status = -1;
	if (status != RPC_STATUS_SUCCESS || res->fhs_status != MNT3_OK)
		return;
	g.root_len = res->mountres3_u.mountinfo.fhandle.fhandle3_len;
	if (g.root_len > sizeof(g.root_fh))
		return;
	memcpy(g.root_fh, res->mountres3_u.mountinfo.fhandle.fhandle3_val, g.root_len);
	g.wait_status = 0;
}

static void create_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	CREATE3res *res = data;
	post_op_fh3 *ofh;

	(void)rpc;
	(void)priv;
	g.wait_done = 1;
	g.wait_status = -1;
	if (status != RPC_STATUS_SUCCESS || res->status != NFS3_OK)
		return;
	ofh = &res->CREATE3res_u.resok.obj;
	if (!ofh->handle_follows || ofh->post_op_fh3_u.handle.data.data_len > sizeof(g.file_fh))
		return;
	g.file_len = ofh->post_op_fh3_u.handle.data.data_len;
	memcpy(g.file_fh, ofh->post_op_fh3_u.handle.data.data_val, g.file_len);
	g.wait_status = 0;
}

static int setup(void)
{
	struct rpc_context *rpc = rpc_init_context();
	CREATE3args ca;
	int rc;

	if (rpc_connect_port_async(rpc, g.host, g.mount_port, MOUNT_PROGRAM, MOUNT_V3, step_cb,
				   NULL) ||
	    wait_for(rpc, 10)) {
		fprintf(stderr, "nfsload: cannot reach MOUNT at %s:%d\n", g.host, g.mount_port);
		return -1;
	}
	if (rpc_mount3_mnt_async(rpc, mnt_cb, (char *)g.path, NULL) || wait_for(rpc, 10)) {
		fprintf(stderr, "nfsload: MNT %s failed\n", g.path);
		return -1;
	}
	rpc_destroy_context(rpc);

	rpc = rpc_init_context();
	if (rpc_connect_port_async(rpc, g.host, g.nfs_port, NFS_PROGRAM, NFS_V3, step_cb, NULL) ||
	    wait_for(rpc, 10)) {
		fprintf(stderr, "nfsload: cannot reach NFS at %s:%d\n", g.host, g.nfs_port);
		return -1;
	}
	memset(&ca, 0, sizeof(ca));
	ca.where.dir.data.data_len = g.root_len;
	ca.where.dir.data.data_val = g.root_fh;
	ca.where.name = (char *)"nfsload.f";
	ca.how.mode = UNCHECKED;
	ca.how.createhow3_u.obj_attributes.mode.set_it = 1;
	ca.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	rc = rpc_nfs3_create_async(rpc, create_cb, &ca, NULL) ? -1 : wait_for(rpc, 10);
	rpc_destroy_context(rpc);
	if (rc)
		fprintf(stderr, "nfsload: CREATE nfsload.f failed\n");
	return rc;
}

static void issue(struct conn *c);

static void reply_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct conn *c = priv;
	/* GETATTR3res, LOOKUP3res and ACCESS3res all start with their nfsstat3. */
	const nfsstat3 *st = data;

	(void)rpc;
	if (g.stopping)
		return; /* calls cancelled when the contexts are destroyed */
	if (status != RPC_STATUS_SUCCESS) {
		c->dead = true;
		g.errors++;
		return;
	}
	if (g.measuring) {
		g.answered++;
		if (*st != NFS3_OK)
			g.errors++;
	}
	issue(c);
}

static void issue(struct conn *c)
{
	nfs_fh3 root = {.data = {g.root_len, g.root_fh}};
	nfs_fh3 file = {.data = {g.file_len, g.file_fh}};
	int rc;

	switch (c->next_op++ % 3) {
	case 0: {
		GETATTR3args a = {.object = file};

		rc = rpc_nfs3_getattr_async(c->rpc, reply_cb, &a, c);
		break;
	}
	case 1: {
		LOOKUP3args a = {.what = {.dir = root, .name = (char *)"nfsload.f"}};

		rc = rpc_nfs3_lookup_async(c->rpc, reply_cb, &a, c);
		break;
	}
	default: {
		ACCESS3args a = {.object = file, .access = 0x3f};

		rc = rpc_nfs3_access_async(c->rpc, reply_cb, &a, c);
		break;
	}
	}
	if (rc)
		c->dead = true;
}

static int run(void)
{
	struct conn conns[MAX_CONNS];
	struct pollfd pfd[MAX_CONNS];
	double t0, t_measure = 0, t_end, self0 = 0, t;
	int64_t cpu0 = 0;
	uint64_t total;
	int rc;

	for (unsigned i = 0; i < g.conns; i++) {
		conns[i] = (struct conn){.rpc = rpc_init_context(), .next_op = i};
		if (rpc_connect_port_async(conns[i].rpc, g.host, g.nfs_port, NFS_PROGRAM, NFS_V3,
					   step_cb, NULL) ||
		    wait_for(conns[i].rpc, 10)) {
			fprintf(stderr, "nfsload: connection %u failed\n", i);
			return 1;
		}
		for (unsigned d = 0; d < g.depth; d++)
			issue(&conns[i]);
	}
	t0 = now_s();
	t_end = t0 + g.warmup + g.seconds;
	while ((t = now_s()) < t_end) {
		if (!g.measuring && t >= t0 + g.warmup) {
			g.measuring = true;
			t_measure = t;
			cpu0 = g.server_pid ? proc_cpu_ns(g.server_pid) : 0;
			self0 = self_cpu_s();
		}
		for (unsigned i = 0; i < g.conns; i++) {
			pfd[i].fd = rpc_get_fd(conns[i].rpc);
			pfd[i].events = (short)rpc_which_events(conns[i].rpc);
			pfd[i].revents = 0;
		}
		if (poll(pfd, g.conns, 100) < 0 && errno != EINTR)
			return 1;
		for (unsigned i = 0; i < g.conns; i++) {
			if (conns[i].dead) {
				fprintf(stderr, "nfsload: connection %u failed: %s\n", i,
					rpc_get_error(conns[i].rpc));
				return 1;
			}
			if (pfd[i].revents && rpc_service(conns[i].rpc, pfd[i].revents) < 0) {
				fprintf(stderr, "nfsload: %s\n", rpc_get_error(conns[i].rpc));
				return 1;
			}
		}
	}
	g.measuring = false;
	g.stopping = true;
	t = now_s() - t_measure;
	total = g.answered;
	rc = g.errors ? 1 : 0;
	printf("calls %llu seconds %.2f calls_per_s %.0f errors %llu\n", (unsigned long long)total,
	       t, (double)total / t, (unsigned long long)g.errors);
	printf("client_cpu_us_per_call %.2f\n", (self_cpu_s() - self0) * 1e6 / (double)total);
	if (g.server_pid) {
		int64_t cpu1 = proc_cpu_ns(g.server_pid);

		if (cpu0 < 0 || cpu1 < 0) {
			fprintf(stderr, "nfsload: cannot read the CPU time of process %d\n",
				g.server_pid);
			rc = 1;
		} else {
			printf("server_cpu_us_per_call %.2f\n",
			       (double)(cpu1 - cpu0) / 1e3 / (double)total);
		}
	}
	for (unsigned i = 0; i < g.conns; i++)
		rpc_destroy_context(conns[i].rpc);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: nfsload [-H host] [-n nfs-port] [-m mount-port] [-c conns] "
			"[-d depth] [-w warmup-s] [-t seconds] [-p server-pid] EXPORT-PATH\n");
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "H:n:m:c:d:w:t:p:")) != -1) {
		switch (opt) {
		case 'H':
			g.host = optarg;
			break;
		case 'n':
			g.nfs_port = atoi(optarg);
			break;
		case 'm':
			g.mount_port = atoi(optarg);
			break;
		case 'c':
			g.conns = (unsigned)atoi(optarg);
			break;
		case 'd':
			g.depth = (unsigned)atoi(optarg);
			break;
		case 'w':
			g.warmup = atof(optarg);
			break;
		case 't':
			g.seconds = atof(optarg);
			break;
		case 'p':
			g.server_pid = atoi(optarg);
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind + 1 != argc || g.conns == 0 || g.conns > MAX_CONNS || g.depth == 0 ||
	    g.seconds <= 0) {
		usage();
		return 2;
	}
	g.path = argv[optind];
	if (setup())
		return 1;
	return run();
}
