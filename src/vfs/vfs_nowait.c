/*
 * vfs_nowait.c - whether a caller that should not wait for the disk (an event loop) may
 * do a metadata open or read, or an UNSTABLE write, itself: the per-thread judgement
 * behind vfs_node_get(), vfs_lookup(), vfs_readlink() and vfs_write_sync_later() with
 * @nowait.
 *
 * Opening a handle the node cache lacks (open_by_handle_at), looking up a name the
 * kernel's dentry cache lacks or reading a symlink's target too long for its inode costs
 * a few microseconds when the kernel still holds the inode and the blocks, and a disk
 * read when it does not; Linux offers no way to ask first for any of them (but
 * RESOLVE_CACHED for names, which refuses even names whose directory block is in
 * memory). A buffered write is as quick unless the kernel holds the writer back (too
 * many dirty pages) or must first read a page it partly overwrites; RWF_NOWAIT cannot
 * ask (ext4 refuses it for buffered writes). Handing every such call to a pool costs two
 * context switches, which on a busy server with more files than the node cache holds is
 * a large share of its CPU. So a thread does them itself and watches whether it slept
 * doing so, and for long: its count of voluntary context switches (a preemption, which a
 * busy machine's clock alone would show as a slow call, is not one) and the clock (a
 * short sleep on a contended lock is not a disk read). One that did puts the thread in
 * cold mode for a while (VFS_COLD_NS), in which handle misses, symlink reads and writes
 * answer -EAGAIN (the call runs again in a pool) and names are looked up only from the
 * dentry cache. Cold data thus costs a thread one stall per period, not one per call;
 * warm data costs no hand-off at all, and one getrusage() per open, symlink read or
 * write (two for a slow one).
 */
#include <sys/resource.h>

#include "core/clock.h"
#include "vfs/vfs_internal.h"

#define VFS_COLD_NS (1000 * 1000000LL) /* how long one open that slept sends misses away */
#define VFS_DISK_NS (100 * 1000LL)     /* a sleep shorter than this was a lock's, not a read */

bool vfs_nowait_always_slept;

static _Thread_local long long cold_until; /* 0: warm */

/* Voluntary context switches of the calling thread so far. */
static long long slept_count(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (long long)ru.ru_nvcsw;
}

bool vfs_nowait_cold(void)
{
	if (!cold_until)
		return false;
	if ((long long)mono_ns() < cold_until)
		return true;
	cold_until = 0;
	return false;
}

void vfs_nowait_start(bool nowait, struct vfs_nowait_mark *m)
{
	m->on = nowait;
	if (nowait) {
		m->ns = (long long)mono_ns();
		m->sw = slept_count();
	}
}

void vfs_nowait_end(const struct vfs_nowait_mark *m)
{
	long long now;

	if (!m->on)
		return;
	now = (long long)mono_ns();
	/* The clock first: most opens are quick, and getrusage() is a system call. */
	if (vfs_nowait_always_slept || (now - m->ns > VFS_DISK_NS && slept_count() != m->sw))
		cold_until = now + VFS_COLD_NS;
}

void vfs_nowait_reset(void)
{
	cold_until = 0;
}
