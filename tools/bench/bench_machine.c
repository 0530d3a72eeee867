/*
 * bench_machine.c - the machine's CPUs busy, stolen or idle over an interval (see
 * bench_machine.h).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_machine.h"

int bench_machine_parse(const char *text, struct bench_machine_cpu *c)
{
	/* user nice system idle iowait irq softirq steal */
	uint64_t v[8] = {0};
	bool found = false;
	int n = 0;

	c->ncpu = 0;
	for (const char *line = text; line && *line;) {
		if (strncmp(line, "cpu ", 4) == 0 && !found) {
			n = sscanf(line + 4,
				   "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
				   " %" SCNu64 " %" SCNu64 " %" SCNu64,
				   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
			found = true;
		} else if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9') {
			c->ncpu++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!found || n < 4 || !c->ncpu)
		return -1;
	c->idle = v[3] + v[4];
	c->steal = v[7];
	return 0;
}

int bench_machine_read(struct bench_machine_cpu *c)
{
	size_t cap = 1 << 16, len = 0; /* the cpu lines come first; 64 KiB holds hundreds */
	char *buf = malloc(cap);
	int fd, rc = -1;
	ssize_t n;

	if (!buf)
		return -1;
	fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
			len += (size_t)n;
		close(fd);
		buf[len] = '\0';
		rc = len ? bench_machine_parse(buf, c) : -1;
	}
	free(buf);
	return rc;
}

void bench_machine_point(const struct bench_machine_cpu *a, const struct bench_machine_cpu *b,
			 double seconds, long ticks_per_s, struct bench_point *pt)
{
	double total, idle, steal;

	pt->machine_busy_pct = pt->machine_steal_pct = pt->machine_idle_pct = 0;
	if (b->idle < a->idle || b->steal < a->steal || !(seconds > 0) || a->ncpu != b->ncpu ||
	    !a->ncpu || ticks_per_s <= 0)
		return;
	total = seconds * (double)ticks_per_s * a->ncpu;
	idle = 100.0 * (double)(b->idle - a->idle) / total;
	steal = 100.0 * (double)(b->steal - a->steal) / total;
	/* The counters tick while the clock is read: keep the shares within 100. */
	if (idle > 100)
		idle = 100;
	if (steal > 100 - idle)
		steal = 100 - idle;
	pt->machine_idle_pct = idle;
	pt->machine_steal_pct = steal;
	pt->machine_busy_pct = 100 - idle - steal;
}
