/*
 * log.h - leveled logging to stderr or syslog.
 *
 * log_msg() is safe to call from any thread. Messages below the configured level are
 * dropped before formatting, so a disabled debug line costs one comparison.
 */
#ifndef SHOAL_LOG_H
#define SHOAL_LOG_H

#include <stdbool.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

extern enum log_level log_threshold;

/* Send messages to syslog (ident "shoal-server") instead of stderr. */
void log_use_syslog(bool on);
/* Parse "error", "warn", "info" or "debug"; false if @name is none of them. */
bool log_parse_level(const char *name, enum log_level *out);
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)                                                                             \
	do {                                                                                       \
		if (log_threshold >= LOG_LVL_DEBUG)                                                \
			log_msg(LOG_LVL_DEBUG, __VA_ARGS__);                                       \
	} while (0)

#endif
