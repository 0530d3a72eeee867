/*
 * test_nfs3_status.c - the errno -> nfsstat3 table of nfs3_status.c: every mapping
 * the procedures rely on, the fallback to NFS3ERR_IO, and that an unmapped errno is
 * logged once per value, with its name.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "nfs3/nfs3.h"
#include "vfs/vfs.h"
#include "unit/test.h"

static void test_ok(void)
{
	CHECK_EQ(nfs3_status(0), NFS3_OK);
}

static void test_errno_map(void)
{
	static const struct {
		int err;
		enum nfsstat3 st;
	} cases[] = {
		{-EPERM, NFS3ERR_PERM},
		{-ENOENT, NFS3ERR_NOENT},
		{-EIO, NFS3ERR_IO},
		{-ENXIO, NFS3ERR_NXIO},
		{-EACCES, NFS3ERR_ACCES},
		{-EEXIST, NFS3ERR_EXIST},
		{-EXDEV, NFS3ERR_XDEV},
		{-ENODEV, NFS3ERR_NODEV},
		{-ENOTDIR, NFS3ERR_NOTDIR},
		{-EISDIR, NFS3ERR_ISDIR},
		{-EINVAL, NFS3ERR_INVAL},
		{-EFBIG, NFS3ERR_FBIG},
		{-ENOSPC, NFS3ERR_NOSPC},
		{-EROFS, NFS3ERR_ROFS},
		{-EMLINK, NFS3ERR_MLINK},
		{-ENAMETOOLONG, NFS3ERR_NAMETOOLONG},
		{-ENOTEMPTY, NFS3ERR_NOTEMPTY},
		{-EDQUOT, NFS3ERR_DQUOT},
		{-ESTALE, NFS3ERR_STALE},
		{-ELOOP, NFS3ERR_NOTDIR},
		{-EOPNOTSUPP, NFS3ERR_NOTSUPP},
		{-ENOTSUP, NFS3ERR_NOTSUPP},
		{-ENOMEM, NFS3ERR_JUKEBOX},
		{-EAGAIN, NFS3ERR_JUKEBOX},
		{-EWOULDBLOCK, NFS3ERR_JUKEBOX},
		{-EBADF, NFS3ERR_IO},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (nfs3_status(cases[i].err) != cases[i].st)
			fprintf(stderr, "errno %d\n", -cases[i].err);
		CHECK_EQ(nfs3_status(cases[i].err), cases[i].st);
	}
}

static void test_vfs_codes(void)
{
	CHECK_EQ(nfs3_status(-VFS_EBADHANDLE), NFS3ERR_BADHANDLE);
	CHECK_EQ(nfs3_status(-VFS_ENOTSYNC), NFS3ERR_NOT_SYNC);
	CHECK_EQ(nfs3_status(-VFS_EBADCOOKIE), NFS3ERR_BAD_COOKIE);
	CHECK_EQ(nfs3_status(-VFS_ENOTSUPP), NFS3ERR_NOTSUPP);
	CHECK_EQ(nfs3_status(-VFS_ETOOSMALL), NFS3ERR_TOOSMALL);
	CHECK_EQ(nfs3_status(-VFS_EBADTYPE), NFS3ERR_BADTYPE);
}

/* Run @fn with stderr going to a temporary file; return what was written (static). */
static const char *capture_stderr(void (*fn)(void))
{
	static char out[4096];
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n = 0;

	out[0] = '\0';
	if (!tmp || saved < 0)
		return out;
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return out;
}

static size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static enum nfsstat3 unmapped_results[4];

static void call_unmapped(void)
{
	unmapped_results[0] = nfs3_status(-EBUSY);
	unmapped_results[1] = nfs3_status(-EBUSY);
	unmapped_results[2] = nfs3_status(-ETXTBSY);
	unmapped_results[3] = nfs3_status(-ETXTBSY);
}

static void test_unmapped_is_io_logged_once(void)
{
	const char *log = capture_stderr(call_unmapped);

	for (int i = 0; i < 4; i++)
		CHECK_EQ(unmapped_results[i], NFS3ERR_IO);
	CHECK_EQ(count_substr(log, "EBUSY"), 1);
	CHECK_EQ(count_substr(log, "ETXTBSY"), 1);
}

static void call_out_of_range(void)
{
	unmapped_results[0] = nfs3_status(5);
	unmapped_results[1] = nfs3_status(-100000);
	unmapped_results[2] = nfs3_status(-2147483647 - 1);
}

static void test_out_of_range_is_io(void)
{
	const char *log = capture_stderr(call_out_of_range);

	for (int i = 0; i < 3; i++)
		CHECK_EQ(unmapped_results[i], NFS3ERR_IO);
	CHECK_EQ(count_substr(log, "out-of-range"), 1);
}

TESTS(test_ok, test_errno_map, test_vfs_codes, test_unmapped_is_io_logged_once,
      test_out_of_range_is_io)
