/*
 * posix_ident.c - per-thread file-system identity (setfsuid, setfsgid, setgroups).
 *
 * The server runs as root and takes the caller's identity only for the calls the
 * kernel permission-checks. Linux keeps credentials per thread, but glibc's
 * setgroups() broadcasts to every thread of the process, so the raw syscall is used.
 * While fsuid != 0 the kernel drops the file-system capabilities (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN...); setting fsuid back to 0 restores
 * them. The identity currently set is cached per thread, so a stream of calls from one
 * user costs no syscalls after the first.
 *
 * A call that opens an object by handle needs those capabilities for a moment, then the
 * caller's identity again (a node cache miss, on every pool and loop thread). A full
 * switch to root and back is ten syscalls, each of which replaces the thread's
 * credentials; fsuid alone decides the capabilities, so posix_set_server_fs() sets
 * only fsuid 0 and the way back only the caller's fsuid (with the call that confirms
 * it): three. On this project's test VM, where each of these calls costs about 2 us,
 * the round trip went from 16-22 us to 5-6.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/posix/posix.h"

struct posix_ident {
	bool valid;
	uint32_t uid, gid, ngroups;
	uint32_t groups[VFS_MAXGROUPS];
};

static _Thread_local struct posix_ident cur_ident;
/* fsuid is 0 while fsgid and groups are cur_ident's (posix_set_server_fs()). */
static _Thread_local bool fs_server;
static _Thread_local unsigned long ident_switches;

static bool ident_equal(const struct posix_ident *a, const struct vfs_cred *c)
{
	return a->valid && a->uid == c->uid && a->gid == c->gid && a->ngroups == c->ngroups &&
	       memcmp(a->groups, c->groups, c->ngroups * sizeof(c->groups[0])) == 0;
}

int posix_set_identity(const struct vfs_cred *cred)
{
	static const struct vfs_cred root_cred;
	const struct vfs_cred *c = cred ? cred : &root_cred;
	uint32_t n = c->ngroups > VFS_MAXGROUPS ? VFS_MAXGROUPS : c->ngroups;
	gid_t groups[VFS_MAXGROUPS];

	if (ident_equal(&cur_ident, c) && n == c->ngroups) {
		if (!fs_server)
			return 0;
		ident_switches++;
		fs_server = false;
		setfsuid(c->uid);
		if ((uint32_t)setfsuid(c->uid) == c->uid)
			return 0;
		cur_ident.valid = false; /* unknown now: the next call switches in full */
		return -EPERM;
	}
	/* cppcheck reasons only about root_cred (no groups); callers pass other creds. */
	// cppcheck-suppress knownConditionTrueFalse
	for (uint32_t i = 0; i < n; i++)
		groups[i] = c->groups[i];
	ident_switches++;
	cur_ident.valid = false;
	fs_server = false;
	/* Raw syscall: this thread only (glibc's wrapper changes every thread). */
	if (syscall(SYS_setgroups, (size_t)n, groups) != 0)
		return -errno;
	setfsgid(c->gid);
	setfsuid(c->uid);
	/* setfsuid() reports the previous value; a second call confirms the change. */
	if ((uint32_t)setfsuid(c->uid) != c->uid || (uint32_t)setfsgid(c->gid) != c->gid)
		return -EPERM;
	cur_ident.uid = c->uid;
	cur_ident.gid = c->gid;
	cur_ident.ngroups = n;
	memcpy(cur_ident.groups, c->groups, n * sizeof(c->groups[0]));
	cur_ident.valid = true;
	return 0;
}

int posix_set_server_fs(void)
{
	if (!cur_ident.valid)
		return posix_set_identity(NULL);
	if (fs_server || cur_ident.uid == 0)
		return 0;
	ident_switches++;
	fs_server = true;
	/* Unconfirmed: should it fail, the thread is still the caller, whose opens then
	 * fail; never more than the caller may do. The way back is confirmed. */
	setfsuid(0);
	return 0;
}

unsigned long posix_identity_switches(void)
{
	return ident_switches;
}
