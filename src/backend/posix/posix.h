/*
 * posix.h - the local-directory back-end: Linux system calls behind struct backend_ops.
 */
#ifndef SHOAL_BACKEND_POSIX_H
#define SHOAL_BACKEND_POSIX_H

#include "backend/backend.h"

/* The posix back-end's ops table (version BACKEND_VERSION). */
extern const struct backend_ops posix_backend_ops;

/*
 * Make the calling thread act as @cred for file-system permission checks (fsuid,
 * fsgid, supplementary groups), or as the server itself (root, with its file-system
 * capabilities) when @cred is NULL. Per-thread; a repeated identity costs no syscall.
 * Returns 0 or a negative errno.
 */
int posix_set_identity(const struct vfs_cred *cred);
/*
 * Give the calling thread the server's file-system capabilities with fsuid 0 alone,
 * keeping the fsgid and groups of the identity last set; the next posix_set_identity()
 * of that identity only sets its fsuid back. Returns 0 or a negative errno.
 */
int posix_set_server_fs(void);

/* How many identity-changing syscalls this thread has made (for tests). */
unsigned long posix_identity_switches(void);

#endif
