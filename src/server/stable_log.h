/*
 * stable_log.h - shoal-server's use of the stable-write log: open it in the state
 * directory, replay what a crash left into the exports, and hand it to the vfs.
 */
#ifndef SHOAL_STABLE_LOG_H
#define SHOAL_STABLE_LOG_H

#include <stdint.h>

struct wlog;

/*
 * Open <state_dir>/stable.log (created with @mib MiB if missing), replay it into the
 * exports of the current table, and start it. With @mib 0, or a state directory on a
 * file system that does not outlive a reboot, no log is used: stable writes fsync.
 * Returns 0 with *out set (NULL without a log), or -1 when the server must not serve:
 * a log exists whose records cannot all be applied (its message is logged).
 */
int stable_log_start(const char *state_dir, unsigned mib, unsigned interval_ms, struct wlog **out);
/* Retire everything and close (after the last call was answered). */
void stable_log_stop(struct wlog *w);

#endif
