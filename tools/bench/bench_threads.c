/*
 * bench_threads.c - the server's CPU time per group of threads (see bench_threads.h).
 */
#include "bench_threads.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bench_thread_group(const char *comm, char *group)
{
	size_t n = strnlen(comm, 15);

	while (n > 0 && isdigit((unsigned char)comm[n - 1]))
		n--;
	if (n == 0) /* digits only: no name to keep but the number */
		n = strnlen(comm, 15);
	memcpy(group, comm, n);
	group[n] = '\0';
}

/* One thread's group and clock ticks from the text of its stat file; false if
 * malformed. */
static bool parse_stat(char *buf, struct bench_thread_time *t, uint64_t *ticks)
{
	char *open = strchr(buf, '('), *close = strrchr(buf, ')'); /* the name may hold ')' */
	unsigned long ut, st;

	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) !=
		    2)
		return false;
	*close = '\0';
	bench_thread_group(open + 1, t->group);
	*ticks = (uint64_t)ut + st;
	return true;
}

/* Up to @size - 1 bytes of file @path into @buf, NUL-terminated; false if unreadable. */
static bool read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return false;
	len = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[len] = '\0';
	return true;
}

/*
 * @tid's CPU time in ns: the run time its schedstat file starts with, or, where that
 * file is missing or says 0 (a kernel that keeps no scheduler statistics prints
 * "0 0 0") while the thread has ticks, its ticks at @hz a second.
 */
static uint64_t thread_ns(pid_t pid, pid_t tid, uint64_t ticks, double hz)
{
	char file[96], buf[128];
	unsigned long long ns;

	snprintf(file, sizeof(file), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (read_text(file, buf, sizeof(buf)) && sscanf(buf, "%llu", &ns) == 1 &&
	    (ns > 0 || ticks == 0))
		return ns;
	return (uint64_t)((double)ticks * 1e9 / hz);
}

/* Append @pid's threads to @s; -1 if its task directory cannot be read. */
static int read_process(struct bench_threads *s, pid_t pid)
{
	char path[64];
	struct dirent *de;
	double hz = (double)sysconf(_SC_CLK_TCK);
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char file[96], buf[1024];
		struct bench_thread_time t = {0};
		uint64_t ticks;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		t.tid = (pid_t)atoi(de->d_name);
		snprintf(file, sizeof(file), "/proc/%d/task/%d/stat", (int)pid, (int)t.tid);
		/* unreadable: the thread ended since the directory was read */
		if (!read_text(file, buf, sizeof(buf)) || !parse_stat(buf, &t, &ticks))
			continue;
		t.ns = thread_ns(pid, t.tid, ticks, hz);
		if (s->n == s->cap) {
			unsigned cap = s->cap ? 2 * s->cap : 64;
			struct bench_thread_time *nt = realloc(s->t, cap * sizeof(*nt));

			if (!nt) {
				rc = -1;
				break;
			}
			s->t = nt;
			s->cap = cap;
		}
		s->t[s->n++] = t;
	}
	closedir(d);
	return rc;
}

int bench_threads_read(struct bench_threads *s, const pid_t *pids, unsigned npids)
{
	s->n = 0;
	for (unsigned i = 0; i < npids; i++)
		if (read_process(s, pids[i]) < 0)
			return -1;
	return 0;
}

void bench_threads_free(struct bench_threads *s)
{
	free(s->t);
	*s = (struct bench_threads){0};
}

struct group_sum {
	char name[16];
	uint64_t ns;
};

static int by_ns_desc(const void *x, const void *y)
{
	const struct group_sum *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* @tid's time in @a, or 0 if it was not there (or is a new thread with its number). */
static uint64_t ns_before(const struct bench_threads *a, const struct bench_thread_time *now)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->t[i].tid == now->tid)
			return a->t[i].ns <= now->ns ? a->t[i].ns : 0;
	return 0;
}

unsigned bench_threads_split(const struct bench_threads *a, const struct bench_threads *b,
			     double ops, struct bench_thread_cpu *out, unsigned max)
{
	struct group_sum *g = calloc(b->n ? b->n : 1, sizeof(*g));
	unsigned ng = 0, nout = 0;
	uint64_t rest = 0;

	if (!g || ops <= 0 || max == 0) {
		free(g);
		return 0;
	}
	for (unsigned i = 0; i < b->n; i++) {
		uint64_t d = b->t[i].ns - ns_before(a, &b->t[i]);
		unsigned k = 0;

		while (k < ng && strcmp(g[k].name, b->t[i].group) != 0)
			k++;
		if (k == ng)
			memcpy(g[ng++].name, b->t[i].group, sizeof(g->name));
		g[k].ns += d;
	}
	qsort(g, ng, sizeof(*g), by_ns_desc);
	while (ng > 0 && g[ng - 1].ns == 0)
		ng--;
	for (unsigned k = 0; k < ng; k++) {
		if (ng > max && k >= max - 1) {
			rest += g[k].ns;
			continue;
		}
		snprintf(out[nout].name, sizeof(out[nout].name), "%s", g[k].name);
		out[nout++].cpu_us_per_op = (double)g[k].ns / 1e3 / ops;
	}
	if (rest) {
		snprintf(out[nout].name, sizeof(out[nout].name), "other");
		out[nout++].cpu_us_per_op = (double)rest / 1e3 / ops;
	}
	free(g);
	return nout;
}
