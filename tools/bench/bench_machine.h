/*
 * bench_machine.h - what the whole machine's CPUs did over a measured interval: busy,
 * stolen by the hypervisor, or idle, as shares of their time. On a virtual machine
 * shared with other tenants, a point can fall short of its request because the CPUs
 * were taken away, not because the server or the benchmark used them; each point
 * records this so that its report says which.
 *
 * Idle (with iowait) and steal come from the "cpu" line of /proc/stat, which the kernel
 * keeps exactly; busy is the rest of the CPUs' wall-clock time. Busy is not taken from
 * the user and system fields: they are sampled at clock ticks, which a tickless kernel
 * stops while a CPU idles, so the short bursts of a lightly loaded server are mostly
 * missed (3,000 NFS ops/s here: 9.6% busy by those fields, 19.5% by the wall clock,
 * against 16.9% in the server's and the benchmark's own CPU clocks alone).
 */
#ifndef SHOAL_BENCH_MACHINE_H
#define SHOAL_BENCH_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_result.h"

/* The machine's CPUs at one moment. */
struct bench_machine_cpu {
	uint64_t idle;	/* idle and iowait, clock ticks, all CPUs together */
	uint64_t steal; /* taken by the hypervisor for others, clock ticks */
	uint32_t ncpu;	/* CPUs with a line of their own ("cpuN") */
};

/* Parse the text of /proc/stat into @c: 0, or -1 if it lacks the aggregate "cpu" line
 * with at least the four fields every kernel gives, or any "cpuN" line. */
int bench_machine_parse(const char *text, struct bench_machine_cpu *c);

/* Read /proc/stat into @c: 0, or -1. */
int bench_machine_read(struct bench_machine_cpu *c);

/* Set @pt's machine_busy_pct, machine_steal_pct and machine_idle_pct from two readings
 * @seconds apart by the caller's clock, the counters in @ticks_per_s
 * (sysconf(_SC_CLK_TCK)); all three 0 (not measured) if no time passed, the CPU count
 * changed or the counters went back. */
void bench_machine_point(const struct bench_machine_cpu *a, const struct bench_machine_cpu *b,
			 double seconds, long ticks_per_s, struct bench_point *pt);

/* Whether @pt holds the machine's CPU shares (runs before they existed do not). */
static inline bool bench_machine_known(const struct bench_point *pt)
{
	return pt->machine_busy_pct + pt->machine_steal_pct + pt->machine_idle_pct > 0;
}

#endif
