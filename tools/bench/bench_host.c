/*
 * bench_host.c - detect the host's OS, CPU model, CPU count and memory size from
 * /etc/os-release, uname(2), /proc/cpuinfo and /proc/meminfo.
 */
#include "bench_host.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/*
 * Find the first line of @path that starts with @key followed by @sep (after optional
 * blanks) and copy the rest of the line, trimmed and without surrounding double quotes,
 * into @out. Returns 0 or -1 if there is no such line.
 */
static int host_field(const char *path, const char *key, char sep, char *out, size_t size)
{
	char line[512];
	size_t klen = strlen(key);
	FILE *f = fopen(path, "r");
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *v;
		size_t len;

		if (strncmp(line, key, klen) != 0)
			continue;
		v = line + klen;
		v += strspn(v, " \t");
		if (*v != sep)
			continue;
		v++;
		v += strspn(v, " \t");
		len = strlen(v);
		while (len > 0 && strchr(" \t\n", v[len - 1]))
			len--;
		if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
			v++;
			len -= 2;
		}
		snprintf(out, size, "%.*s", (int)len, v);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

void bench_host_detect(struct bench_run *run)
{
	char name[128] = "", mem[64] = "";
	struct utsname u;
	long ncpu;

	if (host_field("/etc/os-release", "PRETTY_NAME", '=', name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "unknown OS");
	if (uname(&u) == 0)
		snprintf(run->host_os, sizeof(run->host_os), "%.60s, %.10s %.40s %.12s", name,
			 u.sysname, u.release, u.machine);
	else
		snprintf(run->host_os, sizeof(run->host_os), "%s", name);

	if (host_field("/proc/cpuinfo", "model name", ':', run->host_cpu, sizeof(run->host_cpu)) <
	    0)
		run->host_cpu[0] = '\0';

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	run->host_cpus = ncpu > 0 ? (uint32_t)ncpu : 0;

	run->host_mem_bytes = 0;
	if (host_field("/proc/meminfo", "MemTotal", ':', mem, sizeof(mem)) == 0)
		run->host_mem_bytes = strtoull(mem, NULL, 10) * 1024; /* "N kB" */
}
