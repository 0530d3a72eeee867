/*
 * vfs_fh.c - file handles: the MAC key, minting and authenticating handles, the
 * write verifier, and vfs_init()/vfs_fini().
 *
 * A handle carries the export id and the back-end's own handle, sealed with a 64-bit
 * SipHash-2-4 MAC keyed by a 16-byte secret kept in <state_dir>/handle.key. The key
 * is created once from getrandom() and reused, so handles survive restarts; without
 * it nobody can forge a handle for an object the server never handed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/siphash.h"
#include "vfs/vfs_internal.h"

uint8_t vfs_key[16];
static uint8_t write_verf[8];

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int fill_random(uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)r;
	}
	return 0;
}

static int read_key(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, vfs_key, sizeof(vfs_key));
	close(fd);
	if (r != (ssize_t)sizeof(vfs_key)) {
		log_error("%s: handle key is not %zu bytes", path, sizeof(vfs_key));
		return -EINVAL;
	}
	return 0;
}

/* Write a fresh key to a temporary file and link it into place, so that two servers
 * starting at once agree on one key and a crash never leaves a short key file. */
static int create_key(const char *dir, const char *path)
{
	char tmp[4096];
	uint8_t key[16];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s/handle.key.%ld", dir, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = fill_random(key, sizeof(key));
	if (err)
		return err;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = 0;
	if (write(fd, key, sizeof(key)) != (ssize_t)sizeof(key) || fsync(fd) != 0)
		err = errno ? -errno : -EIO;
	close(fd);
	if (!err && link(tmp, path) != 0 && errno != EEXIST)
		err = -errno;
	unlink(tmp);
	return err;
}

/* Descriptors kept free for connections, listeners, logs and the like. */
#define VFS_FD_RESERVE 4352

unsigned vfs_cache_shard_max = VFS_CACHE_MAX / VFS_CACHE_SHARDS;
unsigned vfs_cache_shard_fds = UINT_MAX; /* descriptors */

/*
 * Raise the descriptor limit to its hard limit, then size the node cache's descriptor
 * budget to fit in it: a cached node holds one descriptor (its O_PATH one) or two (and a
 * data one), and running out of descriptors would turn cheap calls into NFS3ERR_JUKEBOX.
 */
static void raise_nofile(void)
{
	struct rlimit rl;
	rlim_t fds;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			log_warn("vfs: cannot raise RLIMIT_NOFILE: %s", strerror(errno));
			getrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* Two thirds for cached nodes, a third's headroom for nodes in use (not
	 * evictable) and the descriptors operations open for a moment (directories being
	 * listed, creates). */
	fds = rl.rlim_cur > 2 * VFS_FD_RESERVE ? (rl.rlim_cur - VFS_FD_RESERVE) / 3 * 2
					       : rl.rlim_cur / 2;
	vfs_cache_shard_fds =
		fds / VFS_CACHE_SHARDS > UINT_MAX ? UINT_MAX : (unsigned)(fds / VFS_CACHE_SHARDS);
	if (vfs_cache_shard_fds < 2)
		vfs_cache_shard_fds = 2;
	if (fds < 2 * (rlim_t)VFS_CACHE_MAX)
		log_info("vfs: %llu open files allowed: cached file handles hold at most %u "
			 "descriptors in all exports together (as many handles if none is "
			 "being read or written, half as many if all are)",
			 (unsigned long long)rl.rlim_cur, vfs_cache_shard_fds * VFS_CACHE_SHARDS);
}

int vfs_init(const char *state_dir)
{
	char path[4096];
	struct timespec ts;
	uint8_t rnd[8];
	int err;

	if (snprintf(path, sizeof(path), "%s/handle.key", state_dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	err = read_key(path);
	if (err == -ENOENT) {
		err = create_key(state_dir, path);
		if (!err)
			err = read_key(path);
	}
	if (err)
		return err;
	/* The write verifier must differ for every start (RFC 1813 section 3.3.7). */
	err = fill_random(rnd, sizeof(rnd));
	if (err)
		return err;
	clock_gettime(CLOCK_REALTIME, &ts);
	put_le64(write_verf,
		 get_le64(rnd) ^ ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec));
	raise_nofile();
	/* Modes arrive from clients that already applied their umask. */
	umask(0);
	return 0;
}

void vfs_fini(void)
{
	memset(vfs_key, 0, sizeof(vfs_key));
}

void vfs_write_verf(uint8_t verf[8])
{
	memcpy(verf, write_verf, 8);
}

void vfs_fh_export_key(struct vfs_export *ve, const struct bk_fh *root)
{
	uint8_t buf[9 + sizeof(root->data)];
	uint64_t k0, k1;

	put_be32(buf, ve->id);
	put_be32(buf + 4, root->type);
	buf[8] = root->len;
	memcpy(buf + 9, root->data, root->len);
	k0 = siphash24(vfs_key, buf, 9 + (size_t)root->len);
	buf[0] ^= 0xff; /* a second, independent half */
	k1 = siphash24(vfs_key, buf, 9 + (size_t)root->len);
	put_le64(ve->mac_key, k0);
	put_le64(ve->mac_key + 8, k1);
}

int vfs_fh_make(const struct vfs_export *ve, const struct bk_fh *bk, struct vfs_fh *out)
{
	uint32_t export_id = ve->id;
	size_t n = bk->len;

	if (n > VFS_FH_MAX - VFS_FH_MIN)
		return -EOPNOTSUPP;
	out->data[0] = VFS_FH_VERSION;
	put_be32(out->data + 1, export_id);
	put_be32(out->data + 5, bk->type);
	out->data[9] = (uint8_t)n;
	memcpy(out->data + VFS_FH_HDR, bk->data, n);
	put_le64(out->data + VFS_FH_HDR + n, siphash24(ve->mac_key, out->data, VFS_FH_HDR + n));
	out->len = (uint8_t)(VFS_FH_MIN + n);
	return 0;
}

/* Length and version only: the shape of one of our handles. */
static bool fh_well_formed(const uint8_t *fh, size_t len)
{
	return len >= VFS_FH_MIN && len <= VFS_FH_MAX && fh[0] == VFS_FH_VERSION &&
	       (size_t)fh[9] + VFS_FH_MIN == len;
}

int vfs_fh_check(const struct vfs_export *ve, const uint8_t *fh, size_t len, struct bk_fh *bk)
{
	uint32_t export_id = ve->id;
	size_t n;
	uint64_t mac;

	if (!fh_well_formed(fh, len))
		return -VFS_EBADHANDLE;
	n = fh[9];
	mac = siphash24(ve->mac_key, fh, VFS_FH_HDR + n);
	if (mac != get_le64(fh + VFS_FH_HDR + n) || get_be32(fh + 1) != export_id)
		return -VFS_EBADHANDLE;
	if (bk) {
		bk->type = get_be32(fh + 5);
		bk->len = (uint8_t)n;
		memcpy(bk->data, fh + VFS_FH_HDR, n);
	}
	return 0;
}

uint64_t vfs_fh_hash(const uint8_t *fh, size_t len)
{
	return len >= VFS_FH_MACLEN ? get_le64(fh + len - VFS_FH_MACLEN) : 0;
}

int vfs_fh_export_id(const uint8_t *fh, size_t len, uint32_t *export_id)
{
	if (!fh_well_formed(fh, len))
		return -VFS_EBADHANDLE;
	*export_id = get_be32(fh + 1);
	return 0;
}
