/*
 * workload_mix.c - the NFSv3 operation mix: the SPECsfs2008 table, mix files in the
 * SFS lineage's format, and drawing an operation from the mix.
 */
#include "workload.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nfs3/nfs3.h"

/* docs/sfs-workload.md section 1.1 [C]: S-eisler and sfs_prime's "Target NFS Mix Pcnt". */
const struct bench_mix_entry bench_mix_sfs2008[] = {
	{NFS3PROC_GETATTR, 26},	   {NFS3PROC_LOOKUP, 24},  {NFS3PROC_READ, 18},
	{NFS3PROC_ACCESS, 11},	   {NFS3PROC_WRITE, 10},   {NFS3PROC_SETATTR, 4},
	{NFS3PROC_READDIRPLUS, 2}, {NFS3PROC_READLINK, 1}, {NFS3PROC_READDIR, 1},
	{NFS3PROC_CREATE, 1},	   {NFS3PROC_REMOVE, 1},   {NFS3PROC_FSSTAT, 1},
};
const unsigned bench_mix_sfs2008_n = sizeof(bench_mix_sfs2008) / sizeof(bench_mix_sfs2008[0]);

static const char *const proc_names[NFS3_NPROCS] = {
	"NULL",	   "GETATTR",	  "SETATTR", "LOOKUP", "ACCESS",   "READLINK", "READ",	 "WRITE",
	"CREATE",  "MKDIR",	  "SYMLINK", "MKNOD",  "REMOVE",   "RMDIR",    "RENAME", "LINK",
	"READDIR", "READDIRPLUS", "FSSTAT",  "FSINFO", "PATHCONF", "COMMIT",
};

const char *bench_proc_name(uint32_t proc)
{
	return proc < NFS3_NPROCS ? proc_names[proc] : "?";
}

int bench_proc_by_name(const char *name)
{
	for (int i = 0; i < NFS3_NPROCS; i++)
		if (strcasecmp(name, proc_names[i]) == 0)
			return i;
	return -1;
}

bool bench_proc_generated(uint32_t proc)
{
	switch (proc) {
	case NFS3PROC_NULL:
	case NFS3PROC_GETATTR:
	case NFS3PROC_SETATTR:
	case NFS3PROC_LOOKUP:
	case NFS3PROC_ACCESS:
	case NFS3PROC_READLINK:
	case NFS3PROC_READ:
	case NFS3PROC_WRITE:
	case NFS3PROC_CREATE:
	case NFS3PROC_REMOVE:
	case NFS3PROC_READDIR:
	case NFS3PROC_READDIRPLUS:
	case NFS3PROC_FSSTAT:
	case NFS3PROC_FSINFO:
	case NFS3PROC_PATHCONF:
	case NFS3PROC_COMMIT:
		return true;
	default:
		return false;
	}
}

bool bench_mix_init(struct bench_mix *m, const struct bench_mix_entry *e, unsigned n)
{
	double total = 0, acc = 0;

	if (n == 0 || n > BENCH_MAX_OPS)
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (!bench_proc_generated(e[i].proc) || e[i].pct < 0)
			return false;
		total += e[i].pct;
	}
	if (fabs(total - 100.0) > 0.1)
		return false;
	m->n = n;
	for (unsigned i = 0; i < n; i++) {
		m->e[i] = e[i];
		acc += e[i].pct / total;
		/* 2^64 as a double; the last entry is pinned to the top so nothing falls off */
		m->cum[i] = i + 1 == n || acc >= 1.0 ? UINT64_MAX
						     : (uint64_t)(acc * 18446744073709551616.0);
	}
	return true;
}

uint32_t bench_mix_pick(const struct bench_mix *m, uint64_t rnd)
{
	unsigned i = 0;

	while (i + 1 < m->n && rnd >= m->cum[i])
		i++;
	return m->e[i].proc;
}

/* Draws of the mix that may meet a CREATE or REMOVE that cannot be issued before
 * bench_mix_pick_pool() gives up drawing and picks the other of the two. */
#define POOL_REDRAWS 16

static bool pool_allows(uint32_t proc, uint32_t pool, uint32_t cap)
{
	return !(proc == NFS3PROC_REMOVE && pool == 0) && !(proc == NFS3PROC_CREATE && pool >= cap);
}

uint32_t bench_mix_pick_pool(const struct bench_mix *m, uint64_t *rng, uint32_t pool, uint32_t cap)
{
	uint32_t proc = 0;

	for (int i = 0; i < POOL_REDRAWS; i++) {
		proc = bench_mix_pick(m, bench_rand(rng));
		if (pool_allows(proc, pool, cap))
			return proc;
	}
	/* A mix of (almost) nothing but the blocked one: the other refills or drains. */
	return proc == NFS3PROC_REMOVE ? NFS3PROC_CREATE : NFS3PROC_REMOVE;
}

static void set_err(char *err, unsigned errlen, const char *path, int line, const char *what)
{
	snprintf(err, errlen, "%s:%d: %s", path, line, what);
}

int bench_mix_load(struct bench_mix *m, const char *path, char *err, unsigned errlen)
{
	struct bench_mix_entry e[BENCH_MAX_OPS];
	char buf[256], name[32];
	unsigned n = 0;
	int line = 0, rc = -1;
	double pct;
	FILE *f = fopen(path, "r");

	if (!f) {
		set_err(err, errlen, path, 0, "cannot open");
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *p = buf;
		int proc;

		line++;
		if (line == 1) {
			if (strncmp(buf, "SFS MIXFILE VERSION 2", 21) != 0) {
				set_err(err, errlen, path, line,
					"expected 'SFS MIXFILE VERSION 2'");
				goto out;
			}
			continue;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '#' || *p == '\0')
			continue;
		if (sscanf(p, "%31s %lf", name, &pct) != 2 || n == BENCH_MAX_OPS) {
			set_err(err, errlen, path, line, "expected '<opname> <pct>%'");
			goto out;
		}
		proc = bench_proc_by_name(name);
		if (proc < 0) {
			set_err(err, errlen, path, line, "not an NFSv3 operation");
			goto out;
		}
		if (!bench_proc_generated((uint32_t)proc)) {
			char what[200];

			snprintf(what, sizeof(what),
				 "%s is not sent by shoal-bench (it sends NULL, GETATTR, SETATTR, "
				 "LOOKUP, ACCESS, READLINK, READ, WRITE, CREATE, REMOVE, READDIR, "
				 "READDIRPLUS, FSSTAT, FSINFO, PATHCONF and COMMIT)",
				 bench_proc_name((uint32_t)proc));
			set_err(err, errlen, path, line, what);
			goto out;
		}
		if (pct > 0)
			e[n++] = (struct bench_mix_entry){(uint32_t)proc, pct};
	}
	if (!bench_mix_init(m, e, n)) {
		set_err(err, errlen, path, line, "percentages must sum to 100");
		goto out;
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}
