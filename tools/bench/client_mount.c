/*
 * client_mount.c - finding an export: portmap GETPORT (RFC 1833 section 3, over TCP)
 * and MOUNT v3 MNT (RFC 1813 appendix I), each one blocking round trip on a short-lived
 * connection, encoded with the project's portmap and mount codecs.
 */
#include "client.h"

#include <errno.h>
#include <string.h>

#include "mount/mount.h"
#include "nfs3/nfs3_client.h"
#include "portmap/portmap.h"

#define SETUP_TIMEOUT_MS 10000

static bool enc_mapping(struct xdr_out *o, const void *arg)
{
	return pmap_enc_mapping(o, arg);
}

int bench_pmap_getport(const char *host, uint32_t prog, uint32_t vers, uint16_t *port)
{
	struct pmap_mapping m = {prog, vers, PMAP_IPPROTO_TCP, 0};
	struct bench_conn c;
	struct bench_reply r;
	uint32_t p;
	int rc;

	rc = bench_conn_open(&c, host, PMAP_PORT, PMAP_PROGRAM, PMAP_VERSION);
	if (rc < 0)
		return rc;
	rc = bench_conn_call_sync(&c, PMAPPROC_GETPORT, enc_mapping, &m, &r, SETUP_TIMEOUT_MS);
	if (rc == 0 && (!r.ok || !xdr_dec_u32(&r.res, &p) || p > 65535))
		rc = -EPROTO;
	else if (rc == 0 && p == 0)
		rc = -ENOENT;
	else if (rc == 0)
		*port = (uint16_t)p;
	bench_conn_close(&c);
	return rc;
}

static bool enc_dirpath(struct xdr_out *o, const void *arg)
{
	return mount_enc_dirpath_args(o, arg);
}

int bench_mount(const char *host, uint16_t port, const char *path, struct nfs3_fh *fh)
{
	struct mount_dirpath_args a = {{(const uint8_t *)path, (uint32_t)strlen(path)}};
	struct mount_mnt3_res res;
	struct bench_conn c;
	struct bench_reply r;
	int rc;

	rc = bench_conn_open(&c, host, port, MOUNT_PROGRAM, 3);
	if (rc < 0)
		return rc;
	rc = bench_conn_call_sync(&c, MOUNTPROC_MNT, enc_dirpath, &a, &r, SETUP_TIMEOUT_MS);
	if (rc == 0 && (!r.ok || !mount_dec_mnt3_res(&r.res, &res)))
		rc = -EPROTO;
	if (rc == 0 && res.status != MNT3_OK)
		rc = (int)res.status;
	if (rc == 0) {
		fh->len = res.fh_len;
		memcpy(fh->data, res.fh, res.fh_len);
	}
	bench_conn_close(&c);
	return rc;
}

static bool enc_fh(struct xdr_out *o, const void *arg)
{
	return nfs3_enc_fh(o, arg);
}

int bench_fsinfo(const char *host, uint16_t port, const struct nfs3_fh *root, uint32_t *rtmax,
		 uint32_t *wtmax)
{
	struct nfs3_fsinfo_res res;
	struct bench_conn c;
	struct bench_reply r;
	int rc;

	rc = bench_conn_open(&c, host, port, NFS3_PROGRAM, NFS3_VERSION);
	if (rc < 0)
		return rc;
	rc = bench_conn_call_sync(&c, NFS3PROC_FSINFO, enc_fh, root, &r, SETUP_TIMEOUT_MS);
	if (rc == 0 && (!r.ok || !nfs3_dec_fsinfo_res(&r.res, &res)))
		rc = -EPROTO;
	if (rc == 0 && res.status != NFS3_OK)
		rc = (int)res.status;
	if (rc == 0) {
		*rtmax = res.rtmax;
		*wtmax = res.wtmax;
	}
	bench_conn_close(&c);
	return rc;
}
