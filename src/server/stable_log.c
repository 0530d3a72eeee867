/*
 * stable_log.c - shoal-server's use of the stable-write log (src/wlog, src/vfs/vfs_wlog.c).
 *
 * At start-up, before any listener opens, the records a crash left are applied to the
 * files they name: the key of a record is a file handle, whose export id picks the
 * export. A record of an export that is no longer configured stops the start: its
 * acknowledged data would otherwise be lost without a word. A record of a file that no
 * longer exists is dropped (its writes went with it). The log's checkpoints sync every
 * export of the current table; an export dropped by a reload syncs itself as it goes
 * (vfs_export_put()).
 */
#include "server/stable_log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "export/export.h"
#include "vfs/vfs.h"
#include "wlog/wlog.h"

struct replay {
	const struct export_table *t;
	uint64_t gone; /* records of files since removed */
};

static int replay_one(void *arg, const struct wlog_rec *r)
{
	struct replay *rp = arg;
	const struct export *e = NULL;
	uint32_t id;
	int err;

	if (vfs_fh_export_id(r->key, r->keylen, &id) == 0)
		e = export_by_id(rp->t, id);
	if (!e) {
		log_error("the stable-write log holds acknowledged writes for an export that "
			  "is not configured (record %llu); configure it again, or move the log "
			  "away if that data may be lost",
			  (unsigned long long)r->seq);
		return -ENOENT;
	}
	err = vfs_replay(e->vx, r);
	if (err == -ESTALE || err == -ENOENT) {
		rp->gone++;
		return 0;
	}
	if (err == -VFS_EBADHANDLE) {
		log_error("%s: the stable-write log holds a handle this export did not make "
			  "(record %llu); was the export's directory replaced?",
			  e->path, (unsigned long long)r->seq);
		return err;
	}
	if (err) {
		log_error("%s: cannot replay the stable-write log (record %llu): %s", e->path,
			  (unsigned long long)r->seq, strerror(-err));
		return err;
	}
	return 0;
}

/* Checkpoint: every export now served is flushed to stable storage. */
static int sync_exports(void *arg)
{
	struct export_table *t = export_table_get();
	int err = t ? export_table_sync(t) : 0;

	(void)arg;
	if (t)
		export_table_put(t);
	return err;
}

int stable_log_start(const char *state_dir, unsigned mib, unsigned interval_ms, struct wlog **out)
{
	struct wlog_opts o = {.size = (uint64_t)mib << 20, .interval_ms = interval_ms};
	struct replay rp = {0};
	char path[PATH_MAX];
	struct wlog *w;
	struct stat st;
	bool existed;
	uint64_t n;
	int err;

	*out = NULL;
	if (snprintf(path, sizeof(path), "%s/stable.log", state_dir) >= (int)sizeof(path)) {
		log_error("state directory path too long");
		return -1;
	}
	existed = stat(path, &st) == 0;
	if (mib == 0 && !existed)
		return 0;
	if (mib == 0)
		o.size = (uint64_t)st.st_size; /* replay it, then do without */
	err = wlog_open(path, &o, &w);
	if (err == -EXDEV && !existed) {
		log_warn("%s is not on stable storage: stable writes fsync instead", state_dir);
		return 0;
	}
	if (err && !existed) {
		log_warn("cannot create the stable-write log %s (%s): stable writes fsync "
			 "instead",
			 path, strerror(-err));
		return 0;
	}
	if (err) {
		log_error("cannot open the stable-write log %s: %s", path, strerror(-err));
		return -1;
	}
	rp.t = export_table_get();
	err = wlog_replay(w, replay_one, &rp, &n);
	export_table_put((struct export_table *)rp.t);
	if (!err)
		err = wlog_start(w, sync_exports, NULL);
	if (err) {
		if (err != -ENOENT)
			log_error("stable-write log %s: %s", path, strerror(-err));
		wlog_close(w);
		return -1;
	}
	if (n)
		log_info("stable-write log: replayed %llu records (%llu of files since removed)",
			 (unsigned long long)n, (unsigned long long)rp.gone);
	if (mib == 0) {
		wlog_close(w);
		return 0;
	}
	vfs_set_wlog(w);
	*out = w;
	return 0;
}

void stable_log_stop(struct wlog *w)
{
	if (!w)
		return;
	vfs_set_wlog(NULL);
	wlog_close(w);
}
