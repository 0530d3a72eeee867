/*
 * nfsc_util.c - what the test tools of nfsc.h share besides the calls: status names,
 * handles as hex text, where the server is (the environment), the fatal exit, and a
 * mixing function for deterministic patterns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nfsc.h"

const char *nfsc_stname(int st)
{
	static const struct {
		int st;
		const char *name;
	} names[] = {
		{-1, "RPC-error"},
		{NFS3_OK, "NFS3_OK"},
		{NFS3ERR_PERM, "NFS3ERR_PERM"},
		{NFS3ERR_NOENT, "NFS3ERR_NOENT"},
		{NFS3ERR_IO, "NFS3ERR_IO"},
		{NFS3ERR_NXIO, "NFS3ERR_NXIO"},
		{NFS3ERR_ACCES, "NFS3ERR_ACCES"},
		{NFS3ERR_EXIST, "NFS3ERR_EXIST"},
		{NFS3ERR_XDEV, "NFS3ERR_XDEV"},
		{NFS3ERR_NODEV, "NFS3ERR_NODEV"},
		{NFS3ERR_NOTDIR, "NFS3ERR_NOTDIR"},
		{NFS3ERR_ISDIR, "NFS3ERR_ISDIR"},
		{NFS3ERR_INVAL, "NFS3ERR_INVAL"},
		{NFS3ERR_FBIG, "NFS3ERR_FBIG"},
		{NFS3ERR_NOSPC, "NFS3ERR_NOSPC"},
		{NFS3ERR_ROFS, "NFS3ERR_ROFS"},
		{NFS3ERR_MLINK, "NFS3ERR_MLINK"},
		{NFS3ERR_NAMETOOLONG, "NFS3ERR_NAMETOOLONG"},
		{NFS3ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY"},
		{NFS3ERR_DQUOT, "NFS3ERR_DQUOT"},
		{NFS3ERR_STALE, "NFS3ERR_STALE"},
		{NFS3ERR_REMOTE, "NFS3ERR_REMOTE"},
		{NFS3ERR_BADHANDLE, "NFS3ERR_BADHANDLE"},
		{NFS3ERR_NOT_SYNC, "NFS3ERR_NOT_SYNC"},
		{NFS3ERR_BAD_COOKIE, "NFS3ERR_BAD_COOKIE"},
		{NFS3ERR_NOTSUPP, "NFS3ERR_NOTSUPP"},
		{NFS3ERR_TOOSMALL, "NFS3ERR_TOOSMALL"},
		{NFS3ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT"},
		{NFS3ERR_BADTYPE, "NFS3ERR_BADTYPE"},
		{NFS3ERR_JUKEBOX, "NFS3ERR_JUKEBOX"},
	};
	static _Thread_local char other[32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].st == st)
			return names[i].name;
	snprintf(other, sizeof(other), "status-%d", st);
	return other;
}

const char *nfsc_mntname(int st)
{
	static _Thread_local char other[32];

	switch (st) {
	case -1:
		return "RPC-error";
	case MNT3_OK:
		return "MNT3_OK";
	case MNT3ERR_PERM:
		return "MNT3ERR_PERM";
	case MNT3ERR_NOENT:
		return "MNT3ERR_NOENT";
	case MNT3ERR_ACCES:
		return "MNT3ERR_ACCES";
	case MNT3ERR_NOTDIR:
		return "MNT3ERR_NOTDIR";
	case MNT3ERR_INVAL:
		return "MNT3ERR_INVAL";
	default:
		snprintf(other, sizeof(other), "mountstat-%d", st);
		return other;
	}
}

void nfsc_fh_hex(const struct nfsc_fh *fh, char *out)
{
	for (uint32_t i = 0; i < fh->len; i++)
		sprintf(out + 2 * i, "%02x", fh->data[i]);
	out[2 * fh->len] = 0;
}

bool nfsc_fh_parse(const char *hex, struct nfsc_fh *fh)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > NFSC_FHMAX || n == 0)
		return false;
	fh->len = (uint32_t)(n / 2);
	for (size_t i = 0; i < fh->len; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		fh->data[i] = (uint8_t)v;
	}
	return true;
}

struct nfsc_env nfsc_env(void)
{
	const char *n = getenv("SHOAL_NFS_PORT"), *m = getenv("SHOAL_MOUNT_PORT");
	const char *t = getenv("SHOAL_RPC_TIMEOUT");

	return (struct nfsc_env){.nfs_port = n ? atoi(n) : 2049,
				 .mount_port = m ? atoi(m) : 20048,
				 .timeout_s = t ? atoi(t) : 30};
}

void nfsc_die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL fatal: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(2);
}

uint64_t nfsc_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}
