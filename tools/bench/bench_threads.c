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

/* One thread's group and time from the text of its stat file; false if malformed. */
static bool parse_stat(char *buf, struct bench_tick *t)
{
	char *open = strchr(buf, '('), *close = strrchr(buf, ')'); /* the name may hold ')' */
	unsigned long ut, st;

	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) !=
		    2)
		return false;
	*close = '\0';
	bench_thread_group(open + 1, t->group);
	t->ticks = (uint64_t)ut + st;
	return true;
}

/* Append @pid's threads to @s; -1 if its task directory cannot be read. */
static int read_process(struct bench_threads *s, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char file[96], buf[1024];
		struct bench_tick t = {0};
		size_t len;
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		t.tid = (pid_t)atoi(de->d_name);
		snprintf(file, sizeof(file), "/proc/%d/task/%d/stat", (int)pid, (int)t.tid);
		f = fopen(file, "r");
		if (!f)
			continue; /* the thread ended since the directory was read */
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		if (!parse_stat(buf, &t))
			continue;
		if (s->n == s->cap) {
			unsigned cap = s->cap ? 2 * s->cap : 64;
			struct bench_tick *nt = realloc(s->t, cap * sizeof(*nt));

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
	uint64_t ticks;
};

static int by_ticks_desc(const void *x, const void *y)
{
	const struct group_sum *a = x, *b = y;

	if (a->ticks != b->ticks)
		return a->ticks > b->ticks ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* @tid's ticks in @a, or 0 if it was not there (or is a new thread with its number). */
static uint64_t ticks_before(const struct bench_threads *a, const struct bench_tick *now)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->t[i].tid == now->tid)
			return a->t[i].ticks <= now->ticks ? a->t[i].ticks : 0;
	return 0;
}

unsigned bench_threads_split(const struct bench_threads *a, const struct bench_threads *b,
			     double ops, double hz, struct bench_thread_cpu *out, unsigned max)
{
	struct group_sum *g = calloc(b->n ? b->n : 1, sizeof(*g));
	unsigned ng = 0, nout = 0;
	uint64_t rest = 0;

	if (!g || ops <= 0 || hz <= 0 || max == 0) {
		free(g);
		return 0;
	}
	for (unsigned i = 0; i < b->n; i++) {
		uint64_t d = b->t[i].ticks - ticks_before(a, &b->t[i]);
		unsigned k = 0;

		while (k < ng && strcmp(g[k].name, b->t[i].group) != 0)
			k++;
		if (k == ng)
			memcpy(g[ng++].name, b->t[i].group, sizeof(g->name));
		g[k].ticks += d;
	}
	qsort(g, ng, sizeof(*g), by_ticks_desc);
	while (ng > 0 && g[ng - 1].ticks == 0)
		ng--;
	for (unsigned k = 0; k < ng; k++) {
		if (ng > max && k >= max - 1) {
			rest += g[k].ticks;
			continue;
		}
		snprintf(out[nout].name, sizeof(out[nout].name), "%s", g[k].name);
		out[nout++].cpu_us_per_op = (double)g[k].ticks * 1e6 / hz / ops;
	}
	if (rest) {
		snprintf(out[nout].name, sizeof(out[nout].name), "other");
		out[nout++].cpu_us_per_op = (double)rest * 1e6 / hz / ops;
	}
	free(g);
	return nout;
}
