/*
 * nfs3_status.c - the one errno -> nfsstat3 table (RFC 1813 section 2.6).
 *
 * Everything below the protocol returns 0 or a negative errno (or one of the VFS_E*
 * codes errno has no name for); the NFSv3 procedures translate it here and nowhere
 * else. The table is indexed by the positive errno so that the common error cases cost
 * one load. An errno missing from it becomes NFS3ERR_IO and is logged once per value,
 * with its name, so that a missing mapping shows up in the log instead of as a
 * mysterious EIO on the client.
 */
#include "nfs3/nfs3.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "core/log.h"
#include "vfs/vfs.h"

#define NFS3_ERRMAP_SIZE (VFS_EBADTYPE + 1)

/* 0 means "not in the table"; NFS3_OK is only ever returned for err == 0. */
static const uint16_t nfs3_errmap[NFS3_ERRMAP_SIZE] = {
	[EPERM] = NFS3ERR_PERM,
	[ENOENT] = NFS3ERR_NOENT,
	[EIO] = NFS3ERR_IO,
	[ENXIO] = NFS3ERR_NXIO,
	/* A descriptor the back-end lost is a server-side I/O fault; it is never a bad
	 * handle, which only the vfs's handle check (VFS_EBADHANDLE) may decide. */
	[EBADF] = NFS3ERR_IO,
	[EACCES] = NFS3ERR_ACCES,
	[EEXIST] = NFS3ERR_EXIST,
	[EXDEV] = NFS3ERR_XDEV,
	[ENODEV] = NFS3ERR_NODEV,
	[ENOTDIR] = NFS3ERR_NOTDIR,
	[EISDIR] = NFS3ERR_ISDIR,
	[EINVAL] = NFS3ERR_INVAL,
	[EFBIG] = NFS3ERR_FBIG,
	[ENOSPC] = NFS3ERR_NOSPC,
	[EROFS] = NFS3ERR_ROFS,
	[EMLINK] = NFS3ERR_MLINK,
	[ENAMETOOLONG] = NFS3ERR_NAMETOOLONG,
	[ENOTEMPTY] = NFS3ERR_NOTEMPTY,
	[EDQUOT] = NFS3ERR_DQUOT,
	[ESTALE] = NFS3ERR_STALE,
	/*
	 * The posix back-end opens every component with O_NOFOLLOW, so ELOOP means "a
	 * symlink was met where a directory was expected" (a LOOKUP, CREATE... whose
	 * directory handle is a symlink). knfsd answers that case NFS3ERR_NOTDIR
	 * (nfserr_symlink_not_dir, mapped for v3 in nfsd3_map_status()).
	 */
	[ELOOP] = NFS3ERR_NOTDIR,
	[EOPNOTSUPP] = NFS3ERR_NOTSUPP, /* == ENOTSUP on Linux */
	/* Transient shortages: JUKEBOX tells the client to retry later (section 2.6). */
	[ENOMEM] = NFS3ERR_JUKEBOX,
	[EAGAIN] = NFS3ERR_JUKEBOX, /* == EWOULDBLOCK on Linux */
	[ETIMEDOUT] = NFS3ERR_JUKEBOX,
	[EMFILE] = NFS3ERR_JUKEBOX,
	[ENFILE] = NFS3ERR_JUKEBOX,
	[VFS_EBADHANDLE] = NFS3ERR_BADHANDLE,
	[VFS_ENOTSYNC] = NFS3ERR_NOT_SYNC,
	[VFS_EBADCOOKIE] = NFS3ERR_BAD_COOKIE,
	[VFS_ENOTSUPP] = NFS3ERR_NOTSUPP,
	[VFS_ETOOSMALL] = NFS3ERR_TOOSMALL,
	[VFS_EBADTYPE] = NFS3ERR_BADTYPE,
};

/*
 * One flag per errno value that was already logged as unmapped; the last slot stands
 * for every value outside the table (positive or huge: a caller's bug).
 */
static atomic_bool nfs3_unmapped_logged[NFS3_ERRMAP_SIZE + 1];

static enum nfsstat3 nfs3_unmapped(int err)
{
	bool in_range = err < 0 && err > -NFS3_ERRMAP_SIZE;
	size_t slot = in_range ? (size_t)-err : NFS3_ERRMAP_SIZE;
	const char *name;

	if (atomic_exchange_explicit(&nfs3_unmapped_logged[slot], true, memory_order_relaxed))
		return NFS3ERR_IO;
	name = in_range ? strerrorname_np(-err) : NULL;
	if (in_range)
		log_warn("nfs3: no NFSv3 status for errno %d (%s); answering NFS3ERR_IO", -err,
			 name ? name : "unnamed");
	else
		log_warn("nfs3: status requested for out-of-range error %d; answering NFS3ERR_IO",
			 err);
	return NFS3ERR_IO;
}

/*
 * nfs3_status - translate the result of a vfs or export call into an nfsstat3.
 * @err: 0 or a negative errno, including the VFS_E* codes.
 * Returns NFS3_OK for 0, the mapped status otherwise; anything unknown (including a
 * positive value, which is a caller's bug) gives NFS3ERR_IO and is logged once per
 * value. Thread-safe; never blocks except for that one log line.
 */
enum nfsstat3 nfs3_status(int err)
{
	if (err == 0)
		return NFS3_OK;
	if (err < 0 && err > -NFS3_ERRMAP_SIZE && nfs3_errmap[-err] != 0)
		return (enum nfsstat3)nfs3_errmap[-err];
	return nfs3_unmapped(err);
}
