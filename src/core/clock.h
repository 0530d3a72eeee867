/*
 * clock.h - the monotonic clock, in the units its callers count in: nanoseconds for
 * latencies, milliseconds for timeouts, and a coarse millisecond clock (a tick's
 * precision, the cheapest to read) for ages checked on every call.
 */
#ifndef SHOAL_CORE_CLOCK_H
#define SHOAL_CORE_CLOCK_H

#include <stdint.h>
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

#endif
