/*
 * main.c - shoal-server: command line, start-up, signals and shutdown.
 *
 * Start-up order: parse options, load the handle key (vfs_init), parse and open the
 * exports (refusing a bad line or a missing path before anything listens), register
 * the RPC programs, bind every listener (a taken port is a clear error), start the
 * event loops, announce readiness. The main thread then only waits for signals:
 * SIGHUP reloads the exports, SIGUSR1 logs the call statistics, SIGTERM/SIGINT stop
 * the server gracefully (logging the statistics once more).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export.h"
#include "mount/mount.h"
#include "net/net.h"
#include "nfs3/nfs3.h"
#include "portmap/portmap.h"
#include "rpc/rpc.h"
#include "server/stable_log.h"
#include "vfs/vfs.h"

#define SHOAL_VERSION "0.1.0"

#define MOUNT_PROGRAM	   100005
#define PMAP_PROGRAM	   100000
#define DEFAULT_NFS_PORT   2049
#define DEFAULT_MOUNT_PORT 20048
#define DEFAULT_PMAP_PORT  111
#define SHUTDOWN_GRACE_MS  10000

struct config {
	const char *dir;     /* quick start: serve this directory */
	const char *exports; /* or the exports file */
	const char *bind;
	const char *state_dir;
	int nfs_port, mount_port, pmap_port; /* -1 = default */
	bool no_portmap, rpcbind;
	unsigned threads, io_threads, max_call_mib, record_timeout_s, max_client_conns;
	unsigned idle_timeout_s; /* UINT_MAX: the default */
	unsigned stable_log_mib, stable_log_ms;
	int loop_prio; /* net_opts.loop_priority */
	int ready_fd;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: shoal-server [OPTIONS] DIR\n"
		   "       shoal-server [OPTIONS] --exports FILE\n"
		   "\n"
		   "Serve a local directory to NFSv3 clients.\n"
		   "\n"
		   "  DIR                   serve DIR read-write to every client, mounted by its\n"
		   "                        absolute path (mount -t nfs -o vers=3 HOST:DIR /mnt)\n"
		   "  -e, --exports FILE    serve the exports listed in FILE (exports(5) syntax)\n"
		   "      --nfs-port N      NFS port (default 2049)\n"
		   "      --mount-port N    MOUNT port (default 20048)\n"
		   "      --portmap-port N  built-in portmapper port (default 111 as root;\n"
		   "                        off by default when not root)\n"
		   "      --no-portmap      do not run the built-in portmapper\n"
		   "      --rpcbind         register with the system's rpcbind instead\n"
		   "      --bind ADDR       listen on this address only (default: all)\n"
		   "      --threads N       event-loop threads (default: one per CPU)\n"
		   "      --io-threads N    threads of each blocking pool: calls that wait for\n"
		   "                        fsync, and large writes, uncached or large reads\n"
		   "                        and directories\n"
		   "                        (default 32)\n"
		   "      --loop-priority N  event loops run SCHED_FIFO at N (1-99) while each\n"
		   "                        uses under half of its CPU and serves under 8000\n"
		   "                        calls a second; 0: ordinary threads (default 1;\n"
		   "                        ordinary where the system refuses)\n"
		   "      --max-call-memory MIB  memory that calls over 8 KiB (WRITEs) and READ\n"
		   "                        replies may hold at once over all connections; a\n"
		   "                        connection whose call needs more waits (default:\n"
		   "                        an eighth of RAM, 64 to 4096 MiB)\n"
		   "      --record-timeout S  close a connection whose call, begun, has sent\n"
		   "                        nothing more for S seconds, or that has taken none\n"
		   "                        of its replies for S seconds (default 60)\n"
		   "      --idle-timeout S  close a connection with no call in progress that has\n"
		   "                        sent nothing for S seconds; 0: never (default 360)\n"
		   "      --max-client-connections N  TCP connections one client address may\n"
		   "                        hold at once; more are refused (default 512 of\n"
		   "                        the 4096 the server allows)\n"
		   "      --state-dir DIR   where the file-handle key and the stable-write log\n"
		   "                        are kept (default /var/lib/shoal as root, else\n"
		   "                        ~/.local/state/shoal); must be on stable storage\n"
		   "      --stable-log MIB  make stable WRITEs durable through a log of MIB MiB\n"
		   "                        (16 or more) in the state directory instead of an\n"
		   "                        fsync each (default 0: fsync; a log left by a crash\n"
		   "                        is replayed at start either way)\n"
		   "      --stable-log-interval MS   flush logged files and retire their\n"
		   "                        records at least this often (default 1000)\n"
		   "      --log-level L     error, warn, info (default) or debug\n"
		   "      --syslog          log to syslog instead of stderr\n"
		   "      --ready-fd N      when serving, write \"ready nfs=P mount=P portmap=P\"\n"
		   "                        to file descriptor N and close it\n"
		   "  -h, --help            show this help\n"
		   "  -V, --version         show the version\n"
		   "\n"
		   "Signals: SIGHUP re-reads the exports file; SIGUSR1 logs call counts and the\n"
		   "server's time per procedure; SIGTERM or SIGINT stop the server\n"
		   "after the calls in progress have been answered.\n");
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return false;
	*out = v;
	return true;
}

/* --@opt @s, a number from @lo to @hi (in @unit) into *@out; false, said, if not. */
static bool parse_range(const char *opt, const char *s, unsigned long lo, unsigned long hi,
			const char *unit, unsigned *out)
{
	unsigned long v;

	if (!parse_uint(s, hi, &v) || v < lo) {
		fprintf(stderr, "shoal-server: --%s: expected %lu to %lu %s, not '%s'\n", opt, lo,
			hi, unit, s);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

enum {
	OPT_NFS_PORT = 256,
	OPT_MOUNT_PORT,
	OPT_PMAP_PORT,
	OPT_NO_PMAP,
	OPT_RPCBIND,
	OPT_BIND,
	OPT_THREADS,
	OPT_IO_THREADS,
	OPT_LOOP_PRIO,
	OPT_MAX_CALL_MEM,
	OPT_RECORD_TIMEOUT,
	OPT_MAX_CLIENT_CONNS,
	OPT_IDLE_TIMEOUT,
	OPT_STATE_DIR,
	OPT_STABLE_LOG,
	OPT_STABLE_LOG_MS,
	OPT_LOG_LEVEL,
	OPT_SYSLOG,
	OPT_READY_FD
};

/* Returns 0 to go on, or the exit status (0 after --help/--version, 2 on bad usage). */
static int parse_args(int argc, char **argv, struct config *cfg, bool *done)
{
	static const struct option opts[] = {
		{"exports", required_argument, NULL, 'e'},
		{"nfs-port", required_argument, NULL, OPT_NFS_PORT},
		{"mount-port", required_argument, NULL, OPT_MOUNT_PORT},
		{"portmap-port", required_argument, NULL, OPT_PMAP_PORT},
		{"no-portmap", no_argument, NULL, OPT_NO_PMAP},
		{"rpcbind", no_argument, NULL, OPT_RPCBIND},
		{"bind", required_argument, NULL, OPT_BIND},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"io-threads", required_argument, NULL, OPT_IO_THREADS},
		{"loop-priority", required_argument, NULL, OPT_LOOP_PRIO},
		{"max-call-memory", required_argument, NULL, OPT_MAX_CALL_MEM},
		{"record-timeout", required_argument, NULL, OPT_RECORD_TIMEOUT},
		{"max-client-connections", required_argument, NULL, OPT_MAX_CLIENT_CONNS},
		{"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
		{"state-dir", required_argument, NULL, OPT_STATE_DIR},
		{"stable-log", required_argument, NULL, OPT_STABLE_LOG},
		{"stable-log-interval", required_argument, NULL, OPT_STABLE_LOG_MS},
		{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
		{"syslog", no_argument, NULL, OPT_SYSLOG},
		{"ready-fd", required_argument, NULL, OPT_READY_FD},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	unsigned long v;
	enum log_level lvl;
	int c;

	*done = false;
	while ((c = getopt_long(argc, argv, "e:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			cfg->exports = optarg;
			break;
		case OPT_NFS_PORT:
		case OPT_MOUNT_PORT:
		case OPT_PMAP_PORT:
			if (!parse_uint(optarg, 65535, &v)) {
				fprintf(stderr, "shoal-server: bad port '%s'\n", optarg);
				return 2;
			}
			if (c == OPT_NFS_PORT)
				cfg->nfs_port = (int)v;
			else if (c == OPT_MOUNT_PORT)
				cfg->mount_port = (int)v;
			else
				cfg->pmap_port = (int)v;
			break;
		case OPT_NO_PMAP:
			cfg->no_portmap = true;
			break;
		case OPT_RPCBIND:
			cfg->rpcbind = true;
			break;
		case OPT_BIND:
			cfg->bind = optarg;
			break;
		case OPT_THREADS:
		case OPT_IO_THREADS:
			if (!parse_uint(optarg, 1024, &v) || v == 0) {
				fprintf(stderr, "shoal-server: bad thread count '%s'\n", optarg);
				return 2;
			}
			if (c == OPT_THREADS)
				cfg->threads = (unsigned)v;
			else
				cfg->io_threads = (unsigned)v;
			break;
		case OPT_LOOP_PRIO:
			if (!parse_uint(optarg, 99, &v)) {
				fprintf(stderr,
					"shoal-server: --loop-priority: expected 0 (ordinary "
					"threads) or 1 to 99, not '%s'\n",
					optarg);
				return 2;
			}
			cfg->loop_prio = v ? (int)v : NET_PRIO_NONE;
			break;
		case OPT_MAX_CALL_MEM:
			if (!parse_range("max-call-memory", optarg, 2, 1048576, "MiB",
					 &cfg->max_call_mib))
				return 2;
			break;
		case OPT_RECORD_TIMEOUT:
			if (!parse_range("record-timeout", optarg, 1, 86400, "s",
					 &cfg->record_timeout_s))
				return 2;
			break;
		case OPT_IDLE_TIMEOUT:
			if (!parse_range("idle-timeout", optarg, 0, 86400, "s",
					 &cfg->idle_timeout_s))
				return 2;
			break;
		case OPT_MAX_CLIENT_CONNS:
			if (!parse_range("max-client-connections", optarg, 1, 4096, "connections",
					 &cfg->max_client_conns))
				return 2;
			break;
		case OPT_STATE_DIR:
			cfg->state_dir = optarg;
			break;
		case OPT_STABLE_LOG:
			if (!parse_uint(optarg, 65536, &v) || (v && v < 16)) {
				fprintf(stderr,
					"shoal-server: --stable-log: expected 0 (off) or "
					"16 to 65536 MiB, not '%s'\n",
					optarg);
				return 2;
			}
			cfg->stable_log_mib = (unsigned)v;
			break;
		case OPT_STABLE_LOG_MS:
			if (!parse_range("stable-log-interval", optarg, 10, 3600000, "ms",
					 &cfg->stable_log_ms))
				return 2;
			break;
		case OPT_LOG_LEVEL:
			if (!log_parse_level(optarg, &lvl)) {
				fprintf(stderr, "shoal-server: unknown log level '%s'\n", optarg);
				return 2;
			}
			log_threshold = lvl;
			break;
		case OPT_SYSLOG:
			log_use_syslog(true);
			break;
		case OPT_READY_FD:
			if (!parse_uint(optarg, INT_MAX, &v)) {
				fprintf(stderr, "shoal-server: bad file descriptor '%s'\n", optarg);
				return 2;
			}
			cfg->ready_fd = (int)v;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return 0;
		case 'V':
			printf("shoal-server %s\n", SHOAL_VERSION);
			*done = true;
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		cfg->dir = argv[optind++];
	if (optind < argc || (!cfg->dir && !cfg->exports) || (cfg->dir && cfg->exports)) {
		fprintf(stderr, "shoal-server: give either one DIR or --exports FILE\n");
		usage(stderr);
		return 2;
	}
	return 0;
}

/* The default state directory: /var/lib/shoal for root, else under $HOME. */
static const char *default_state_dir(char *buf, size_t len)
{
	const char *home = getenv("HOME");

	if (geteuid() == 0 || !home)
		return "/var/lib/shoal";
	snprintf(buf, len, "%s/.local/state/shoal", home);
	return buf;
}

/* mkdir -p for the state directory, mode 0700. */
static int make_dirs(const char *path)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Build and open the export table from the configuration. */
static int load_exports(const struct config *cfg, const struct export_table *prev,
			struct export_table **out)
{
	char err[512] = "";
	struct export_table *t;
	int rc;

	if (cfg->exports)
		rc = export_table_parse(cfg->exports, &t, err, sizeof(err));
	else
		rc = export_table_single(cfg->dir, &t, err, sizeof(err));
	if (rc) {
		log_error("%s", err[0] ? err : strerror(-rc));
		return rc;
	}
	rc = export_table_open(t, prev, err, sizeof(err));
	if (rc) {
		log_error("%s", err[0] ? err : strerror(-rc));
		export_table_put(t);
		return rc;
	}
	*out = t;
	return 0;
}

static const char *proto_name(int proto)
{
	return proto == IPPROTO_TCP ? "TCP" : "UDP";
}

/* Bind TCP and UDP on @port for @what; logs a clear message on failure. */
static int listen_both(struct net_server *s, const struct config *cfg, const char *what, int port,
		       uint16_t *bound)
{
	static const int protos[] = {IPPROTO_TCP, IPPROTO_UDP};
	uint16_t want = (uint16_t)port;
	int rc;

	for (unsigned i = 0; i < 2; i++) {
		uint16_t got = 0;

		rc = net_server_listen(s, protos[i], cfg->bind, want, &got);
		if (rc == -EADDRINUSE) {
			log_error("cannot listen for %s on %s port %u: the port is already in use "
				  "(is another NFS server or rpcbind running? see --%s-port)",
				  what, proto_name(protos[i]), want,
				  strcmp(what, "portmap") == 0 ? "portmap" : what);
			return rc;
		}
		if (rc) {
			log_error("cannot listen for %s on %s port %u: %s", what,
				  proto_name(protos[i]), want, strerror(-rc));
			return rc;
		}
		/* An ephemeral TCP port is reused for UDP so both share one number. */
		want = got;
	}
	*bound = want;
	return 0;
}

struct ports {
	uint16_t nfs, mount, pmap;
};

static void register_ports(const struct config *cfg, const struct ports *p)
{
	static const int protos[] = {IPPROTO_TCP, IPPROTO_UDP};

	for (unsigned i = 0; i < 2; i++) {
		uint32_t prot = (uint32_t)protos[i];

		if (p->pmap)
			pmap_registry_set(PMAP_PROGRAM, 2, prot, p->pmap);
		pmap_registry_set(NFS3_PROGRAM, 3, prot, p->nfs);
		pmap_registry_set(MOUNT_PROGRAM, 1, prot, p->mount);
		pmap_registry_set(MOUNT_PROGRAM, 3, prot, p->mount);
		if (!cfg->rpcbind)
			continue;
		if (pmap_register_with_rpcbind(NFS3_PROGRAM, 3, prot, p->nfs, true) ||
		    pmap_register_with_rpcbind(MOUNT_PROGRAM, 1, prot, p->mount, true) ||
		    pmap_register_with_rpcbind(MOUNT_PROGRAM, 3, prot, p->mount, true))
			log_warn("could not register with the system rpcbind on %s",
				 proto_name(protos[i]));
	}
}

static void unregister_rpcbind(const struct ports *p)
{
	static const int protos[] = {IPPROTO_TCP, IPPROTO_UDP};

	for (unsigned i = 0; i < 2; i++) {
		uint32_t prot = (uint32_t)protos[i];

		pmap_register_with_rpcbind(NFS3_PROGRAM, 3, prot, p->nfs, false);
		pmap_register_with_rpcbind(MOUNT_PROGRAM, 1, prot, p->mount, false);
		pmap_register_with_rpcbind(MOUNT_PROGRAM, 3, prot, p->mount, false);
	}
}

static void announce_ready(const struct config *cfg, const struct ports *p)
{
	char line[128];
	int n;

	log_info("serving %s; ready: nfs=%u mount=%u portmap=%u",
		 cfg->exports ? cfg->exports : cfg->dir, p->nfs, p->mount, p->pmap);
	if (cfg->ready_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "ready nfs=%u mount=%u portmap=%u\n", p->nfs, p->mount,
		     p->pmap);
	if (write(cfg->ready_fd, line, (size_t)n) != n)
		log_warn("could not write the ready line to fd %d: %s", cfg->ready_fd,
			 strerror(errno));
	close(cfg->ready_fd);
}

static void report_proc(void *arg, const char *prog, uint32_t vers, const char *proc,
			const struct rpc_proc_stats *st)
{
	(void)arg;
	log_info("stats: %s v%u %s: %" PRIu64 " calls, %.1f us mean, %.1f us max", prog, vers, proc,
		 st->calls, (double)st->ns_total / (double)st->calls / 1000.0,
		 (double)st->ns_max / 1000.0);
}

/* SIGUSR1 and the stop: what was served, and the server's time on it, to the log. */
static void report_stats(struct net_server *s)
{
	struct net_counters c;

	rpc_stats_walk(report_proc, NULL);
	net_server_counters(s, &c);
	log_info("stats: %u connections open; duplicate request cache: %" PRIu64 " hits, %" PRIu64
		 " dropped in progress, %" PRIu64 " misses, %" PRIu64 " evictions; %" PRIu64
		 " oversized records, %" PRIu64 " connections refused (%" PRIu64
		 " of them over the limit per client), %" PRIu64 " waits for call memory, %" PRIu64
		 " connections closed by the record timeout (mid-call or replies not taken), "
		 "%" PRIu64 " idle ones by the idle timeout; %" PRIu64
		 " calls run in a group after another (stable writes of one file, one sync); "
		 "%" PRIu64 " pool thread wake-ups that found no call",
		 c.connections, c.drc_hits, c.drc_in_progress, c.drc_misses, c.drc_evictions,
		 c.oversized, c.refused + c.refused_client, c.refused_client, c.mem_waits,
		 c.stalled, c.idle, c.grouped, c.empty_wakes);
}

/* SIGHUP: build a new table next to the old one and swap; on error keep the old. */
static void reload_exports(const struct config *cfg)
{
	struct export_table *cur = export_table_get(), *next;

	if (load_exports(cfg, cur, &next) == 0) {
		export_table_publish(next);
		log_info("exports reloaded");
	} else {
		log_error("exports not reloaded; still serving the previous ones");
	}
	export_table_put(cur);
}

/* At shutdown: nothing written, even UNSTABLE and never committed, is left unflushed. */
static void sync_exports(void)
{
	struct export_table *t = export_table_get();

	if (!t)
		return;
	export_table_sync(t);
	export_table_put(t);
}

static int start_listeners(struct net_server *s, const struct config *cfg, struct ports *p)
{
	bool root = geteuid() == 0;
	int pmap_port = cfg->pmap_port;
	int rc;

	rc = listen_both(s, cfg, "nfs", cfg->nfs_port < 0 ? DEFAULT_NFS_PORT : cfg->nfs_port,
			 &p->nfs);
	if (!rc)
		rc = listen_both(s, cfg, "mount",
				 cfg->mount_port < 0 ? DEFAULT_MOUNT_PORT : cfg->mount_port,
				 &p->mount);
	if (rc)
		return rc;
	p->pmap = 0;
	if (cfg->no_portmap || cfg->rpcbind)
		return 0;
	if (pmap_port < 0) {
		if (!root) {
			log_info("not root: built-in portmapper off (use --portmap-port)");
			return 0;
		}
		pmap_port = DEFAULT_PMAP_PORT;
	}
	return listen_both(s, cfg, "portmap", pmap_port, &p->pmap);
}

static int serve(const struct config *cfg)
{
	struct net_opts nopts = {.threads = cfg->threads,
				 .blocking_threads = cfg->io_threads,
				 .max_call_mib = cfg->max_call_mib,
				 .record_timeout_ms = cfg->record_timeout_s * 1000,
				 .max_client_connections = cfg->max_client_conns,
				 .loop_priority = cfg->loop_prio,
				 .idle_timeout_ms = cfg->idle_timeout_s == UINT_MAX ? 0
						    : cfg->idle_timeout_s == 0
							    ? NET_IDLE_NEVER
							    : cfg->idle_timeout_s * 1000};
	struct export_table *t;
	struct net_server *s;
	struct ports ports = {0};
	struct wlog *wl;
	sigset_t sigs;
	int rc, sig;

	/* Signals are taken synchronously by this thread; every other thread blocks them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = load_exports(cfg, NULL, &t);
	if (rc)
		return 1;
	export_table_publish(t);
	/* what a crash left in the stable-write log reaches the files before anyone looks */
	if (stable_log_start(cfg->state_dir, cfg->stable_log_mib, cfg->stable_log_ms, &wl))
		return 1;

	if (rpc_register(&portmap_program) || rpc_register(&mount_program) ||
	    rpc_register(&nfs3_program)) {
		log_error("cannot register the RPC programs");
		stable_log_stop(wl);
		return 1;
	}
	rc = net_server_new(&nopts, &s);
	if (rc) {
		log_error("cannot create the server: %s", strerror(-rc));
		stable_log_stop(wl);
		return 1;
	}
	rc = start_listeners(s, cfg, &ports);
	if (!rc)
		rc = net_server_start(s);
	if (rc) {
		if (rc != -EADDRINUSE && rc != -EACCES)
			log_error("cannot start: %s", strerror(-rc));
		net_server_free(s);
		stable_log_stop(wl);
		return 1;
	}
	register_ports(cfg, &ports);
	announce_ready(cfg, &ports);

	for (;;) {
		sig = sigwaitinfo(&sigs, NULL);
		if (sig == SIGHUP) {
			reload_exports(cfg);
			continue;
		}
		if (sig == SIGUSR1) {
			report_stats(s);
			continue;
		}
		if (sig == SIGTERM || sig == SIGINT)
			break;
	}
	log_info("stopping: finishing the calls in progress");
	if (cfg->rpcbind)
		unregister_rpcbind(&ports);
	net_server_stop(s, SHUTDOWN_GRACE_MS);
	report_stats(s);
	net_server_free(s);
	sync_exports();
	stable_log_stop(wl);
	export_table_publish(NULL);
	log_info("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg = {
		.nfs_port = -1,
		.mount_port = -1,
		.pmap_port = -1,
		.ready_fd = -1,
		.stable_log_mib = 0,
		.stable_log_ms = 1000,
		.idle_timeout_s = UINT_MAX,
	};
	char state_buf[PATH_MAX];
	bool done;
	int rc;

	rc = parse_args(argc, argv, &cfg, &done);
	if (rc || done)
		return rc;
	if (!cfg.state_dir)
		cfg.state_dir = default_state_dir(state_buf, sizeof(state_buf));
	rc = make_dirs(cfg.state_dir);
	if (!rc)
		rc = vfs_init(cfg.state_dir);
	if (rc) {
		log_error("state directory %s: %s", cfg.state_dir, strerror(-rc));
		return 1;
	}
	rc = serve(&cfg);
	vfs_fini();
	return rc;
}
