/*
 * backend.h - the versioned ops table between the vfs and a storage back-end.
 *
 * The vfs owns handles (format, MAC), the node cache and permission policy; a back-end
 * owns the system calls. Objects are named by descriptors that the back-end hands out
 * (an "O_PATH"-like reference, a data descriptor for I/O, a directory stream), never by
 * paths, and every name is one component resolved relative to a directory descriptor.
 * As with SQLite's sqlite3_io_methods, methods are only ever appended: a caller checks
 * @version before using a method newer than version 1.
 *
 * Every method returns 0 (or a descriptor / byte count, as documented) or a negative
 * errno. Methods that the kernel permission-checks run with the identity last set by
 * set_identity() on the calling thread.
 */
#ifndef SHOAL_BACKEND_H
#define SHOAL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>

#include "vfs/vfs.h"

#define BACKEND_VERSION 3

/* Largest back-end (kernel) handle the vfs can carry inside a struct vfs_fh. */
#define BK_FH_MAX 46

/* A back-end's own handle for an object: stable across restarts. */
struct bk_fh {
	uint32_t type;
	uint8_t len;
	uint8_t data[BK_FH_MAX];
};

/* How stable a write must be before pwrite returns (matches enum vfs_stable). */
enum bk_sync { BK_SYNC_NONE = 0, BK_SYNC_DATA = 1, BK_SYNC_FILE = 2 };

struct backend_ops {
	unsigned version; /* append only; never reorder */

	/* Identity for later permission-checked calls on this thread; NULL = the server. */
	int (*set_identity)(const struct vfs_cred *cred);

	/* Open export root @path: *mount_fd for open_fh(), *root_fd an object reference. */
	int (*root_open)(const char *path, int *mount_fd, int *root_fd);
	/* Handle of @fd itself (name "") or of @name in directory @fd, not following links. */
	int (*fh_of)(int fd, const char *name, struct bk_fh *fh, int *mount_id);
	/* Object reference from a handle; must run as the server (set_identity(NULL)). */
	int (*open_fh)(int mount_fd, const struct bk_fh *fh);
	/* Descriptor for I/O (O_RDWR, falling back to O_RDONLY) on object @fd; as server. */
	int (*open_data)(int fd, bool *writable);
	/* Object reference for single component @name in directory @dirfd; never follows
	 * a symlink and never leaves the tree below @dirfd ("." allowed). */
	int (*resolve)(int dirfd, const char *name);
	/* Object reference for the parent of directory @dirfd. */
	int (*parent)(int dirfd);
	int (*stat)(int fd, struct stat *st);
	void (*close)(int fd);

	/* With @nowait, only what the page cache holds: -EAGAIN, or fewer bytes, where the
	 * rest would wait for the disk (-EOPNOTSUPP where the file system cannot say). */
	ssize_t (*pread)(int fd, void *buf, size_t n, uint64_t off, bool nowait);
	ssize_t (*pwrite)(int fd, const void *buf, size_t n, uint64_t off, enum bk_sync sync);
	int (*fsync)(int fd, bool datasync);
	/* Make the data written through regular file @fd (and its size) stable where an
	 * fsync alone may skip the cache flush (core/fsflush.h); sets the mtime to now. */
	int (*sync_written)(int fd);

	/* Create regular file @name; returns an object reference. */
	int (*create)(int dirfd, const char *name, uint32_t mode, bool excl);
	int (*mkdir)(int dirfd, const char *name, uint32_t mode);
	int (*symlink)(int dirfd, const char *name, const char *target);
	int (*mknod)(int dirfd, const char *name, uint32_t mode, uint32_t major, uint32_t minor);
	int (*unlink)(int dirfd, const char *name, bool dir);
	int (*rename)(int from_dirfd, const char *from, int to_dirfd, const char *to);
	int (*link)(int fd, int dirfd, const char *name);
	/* Returns the target length (may equal @cap when truncated). */
	ssize_t (*readlink)(int fd, char *buf, size_t cap);

	int (*chmod)(int fd, uint32_t mode);
	int (*chown)(int fd, uint32_t uid, uint32_t gid); /* (uint32_t)-1 = keep */
	int (*truncate)(int datafd, uint64_t size);
	int (*utimes)(int fd, const struct timespec ts[2]);

	/* A fresh directory stream for object @fd (permission-checked: needs read). */
	int (*opendir)(int fd);
	/* Position stream @dfd at @cookie; -EINVAL if the file system rejects it. */
	int (*seekdir)(int dfd, uint64_t cookie);
	/* Fill @buf with struct linux_dirent64 records; returns bytes, 0 at the end. */
	ssize_t (*getdents)(int dfd, void *buf, size_t cap);
	/* lstat of @name inside directory @dirfd. */
	int (*stat_at)(int dirfd, const char *name, struct stat *st);

	int (*statfs)(int fd, struct statvfs *sv);
	long (*link_max)(int fd);

	/* Flush the whole file system that holds open directory @fd to stable storage
	 * (syncfs): the only way to make a symlink, FIFO or device node stable, since none
	 * of them can be opened and fsynced. @mark: the file system's syncs may skip the
	 * cache flush of an inode not marked dirty (core/fsflush.h). */
	int (*syncfs)(int fd, bool mark);

	/* As resolve(), but only from the kernel's name cache, for a caller that may not
	 * wait for the disk: -EAGAIN where the lookup would read a directory (or revalidate
	 * a name), and always before Linux 5.12, which cannot tell. A name the cache knows
	 * to be missing answers -ENOENT. */
	int (*resolve_cached)(int dirfd, const char *name);

	/* Version 2. The server's file-system capabilities for open_fh() and open_data(),
	 * the only calls that need them, at less cost than set_identity(NULL): the
	 * caller's groups and fsgid may stay. The next set_identity() of the same caller
	 * gives them back. */
	int (*set_server_fs)(void);

	/* Version 3. As stat_at(), and the id of the mount @name lies on (as fh_of() gives
	 * it), or -1 where the kernel cannot say: one system call where a handle and a stat
	 * of the object would take two. */
	int (*stat_at_mnt)(int dirfd, const char *name, struct stat *st, int *mount_id);
};

#endif
