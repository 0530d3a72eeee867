/*
 * clock.h - the monotonic clock, in the units its callers count in: nanoseconds for
 * latencies, milliseconds for timeouts, and a coarse millisecond clock (a tick's
 * precision, the cheapest to read) for ages checked on every call; and, for the
 * benchmarks, the CPU clock of another process.
 */
#ifndef SHOAL_CORE_CLOCK_H
#define SHOAL_CORE_CLOCK_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t mono_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000u;
}

static inline uint64_t mono_coarse_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE) / 1000000u;
}

/*
 * CPU time of process @pid, every thread's (those that ended too), in nanoseconds; -1 if
 * it cannot be read. Its CPU clock counts nanoseconds, where the utime + stime of
 * /proc/PID/stat count clock ticks (10 ms): a short interval's few ticks would make a
 * CPU time per call a multiple of 10 ms over the calls, often 0.
 */
static inline int64_t proc_cpu_ns(pid_t pid)
{
	struct timespec ts;
	clockid_t id;

	if (clock_getcpuclockid(pid, &id) != 0 || clock_gettime(id, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
