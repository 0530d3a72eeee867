/*
 * vfs_wlog.c - the vfs side of the stable-write log (src/wlog): stable WRITEs, size
 * changes and COMMITs of files, and the replay of a log after a crash.
 *
 * A stable WRITE goes to the page cache with a plain pwrite and then to the log, keyed
 * by the file's handle; the log answers once the record is on stable storage (the
 * writes of a group append without waiting, and then wait once for the last of their
 * file's records, so that they share one batch: vfs_wlog_wait()). That is
 * the data and the size it implies (DATA_SYNC); for FILE_SYNC the other attributes are
 * those the replay produces, as with a file server's NVRAM log.
 *
 * Replaying a record must never undo something durable that came after it, so:
 *  - a size change is logged too, in order with the writes, and the replay applies it
 *    in turn; its record is on stable storage before the change is answered, else a
 *    replay of older writes could grow the file back;
 *  - COMMIT first retires the file's records (a checkpoint), so that the replay of an
 *    older stable write cannot land on data the COMMIT made durable;
 *  - data the log cannot take (it failed) is fsynced only once the failed log has been
 *    set aside (wlog_fallback()); if it could not be, the call fails with EIO.
 * Each node remembers its last record; a node new to the cache assumes every record
 * not yet retired may be its own.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "core/log.h"
#include "vfs/vfs_internal.h"
#include "wlog/wlog.h"

struct wlog *vfs_wlog;

void vfs_set_wlog(struct wlog *w)
{
	vfs_wlog = w;
}

uint64_t vfs_wlog_seq_now(void)
{
	return vfs_wlog ? wlog_next_seq(vfs_wlog) - 1 : 0;
}

static void note_seq(struct vfs_node *node, uint64_t seq)
{
	uint64_t cur = atomic_load(&node->wlog_seq);

	while (cur < seq && !atomic_compare_exchange_weak(&node->wlog_seq, &cur, seq))
		;
}

/* The log cannot take or keep @node's write (too big, or failed): make the file itself
 * stable, once no older record of it can be replayed over what the fsync makes durable. */
static int sync_instead(struct vfs_node *node, int fd)
{
	int err = vfs_wlog_retire(node);

	return err ? err : vfs_node_sync_written(node, fd);
}

ssize_t vfs_wlog_write(struct vfs_node *node, int fd, const void *data, uint32_t len,
		       uint64_t offset, bool wait)
{
	const struct backend_ops *be = node->ve->be;
	struct wlog_rec r = {.type = WLOG_WRITE,
			     .keylen = node->fh.len,
			     .key = node->fh.data,
			     .off = offset,
			     .data = data};
	ssize_t n = be->pwrite(fd, data, len, offset, BK_SYNC_NONE);
	int err;

	if (n <= 0)
		return n;
	r.len = (uint32_t)n;
	err = wlog_append(vfs_wlog, &r, wait);
	if (!err) {
		note_seq(node, r.seq);
		return n;
	}
	err = sync_instead(node, fd);
	return err ? err : n;
}

int vfs_wlog_wait(struct vfs_node *node, int fd)
{
	if (wlog_wait(vfs_wlog, atomic_load(&node->wlog_seq)) == 0)
		return 0;
	return sync_instead(node, fd);
}

int vfs_wlog_truncate(struct vfs_node *node, uint64_t size)
{
	struct wlog_rec r = {
		.type = WLOG_TRUNCATE, .keylen = node->fh.len, .key = node->fh.data, .off = size};

	if (!vfs_wlog)
		return 0;
	if (wlog_append(vfs_wlog, &r, true) == 0) {
		note_seq(node, r.seq);
		return 0;
	}
	return wlog_fallback(vfs_wlog) ? -EIO : 0;
}

int vfs_wlog_retire(struct vfs_node *node)
{
	if (!vfs_wlog || wlog_retire(vfs_wlog, atomic_load(&node->wlog_seq)) == 0)
		return 0;
	return wlog_fallback(vfs_wlog) ? -EIO : 0;
}

int vfs_replay(struct vfs_export *ve, const struct wlog_rec *r)
{
	struct vfs_node *node;
	bool writable;
	int fd, err;

	err = vfs_node_get(ve, r->key, r->keylen, false, &node);
	if (err)
		return err; /* -ESTALE: the file is gone, and its writes with it */
	if (!S_ISREG(node->type)) {
		vfs_node_put(node);
		return -ESTALE;
	}
	err = vfs_node_data_fd(node, &fd, &writable);
	if (!err && !writable)
		err = -EROFS;
	if (!err && r->type == WLOG_TRUNCATE) {
		err = node->ve->be->truncate(fd, r->off);
	} else if (!err && r->type == WLOG_WRITE) {
		for (uint32_t done = 0; done < r->len && !err;) {
			ssize_t n = node->ve->be->pwrite(fd, r->data + done, r->len - done,
							 r->off + done, BK_SYNC_NONE);

			if (n <= 0)
				err = n < 0 ? (int)n : -EIO;
			else
				done += (uint32_t)n;
		}
	} else if (!err) {
		err = -EINVAL;
	}
	vfs_node_put(node);
	return err;
}
