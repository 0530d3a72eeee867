/*
 * log.c - leveled logging to stderr or syslog (see log.h).
 */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

enum log_level log_threshold = LOG_LVL_INFO;
static bool to_syslog;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void log_use_syslog(bool on)
{
	to_syslog = on;
	if (on)
		openlog("shoal-server", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

bool log_parse_level(const char *name, enum log_level *out)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcmp(name, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return true;
		}
	}
	return false;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	if (lvl > log_threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (to_syslog) {
		syslog(prio[lvl], "%s", line);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	/* One fprintf per line: stdio locks the stream, so lines never interleave. */
	fprintf(stderr, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ shoal-server %s: %s\n",
		tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		ts.tv_nsec / 1000000, level_names[lvl], line);
}
