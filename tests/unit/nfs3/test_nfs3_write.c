/*
 * test_nfs3_write.c - stable WRITEs run as a group (src/nfs3/nfs3_proc_write.c): calls
 * begun with rpc_call_begin() against a real export (test_disk_dir()), run together with
 * rpc_call_run_gathered() and rpc_call_end_group() as a pool thread runs them. Which WRITEs gather
 * (stable ones of one handle); a group makes each file stable with one sync after all its writes,
 * and each reply says FILE_SYNC with its own count; the last reply of a file carries the attributes
 * after the sync; a failed sync fails every write it was to make stable; a group of one is synced
 * too. With the stable-write log, a group's writes share one batch of it and no fsync, and
 * when the log fails each file is fsynced instead. The export's back end is wrapped so that every
 * sync is recorded by inode number and can be made to fail.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/posix/posix.h"
#include "export/export.h"
#include "nfs3/nfs3.h"
#include "nfs3/nfs3_client.h"
#include "rpc/rpc_int.h"
#include "unit/test.h"
#include "vfs/vfs_internal.h"
#include "wlog/wlog_int.h"

#define MAX_SYNCS 16
#define GROUP	  4

static ino_t synced[MAX_SYNCS];
static int nsynced;
static bool fail_syncs;
static struct backend_ops rec_ops;

static int note_sync(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && nsynced < MAX_SYNCS)
		synced[nsynced++] = st.st_ino;
	return fail_syncs ? -EIO : 0;
}

static int rec_fsync(int fd, bool datasync)
{
	int err = note_sync(fd);

	return err ? err : posix_backend_ops.fsync(fd, datasync);
}

static int rec_sync_written(int fd)
{
	int err = note_sync(fd);

	return err ? err : posix_backend_ops.sync_written(fd);
}

/* The export, its two files "a" and "b" (handles and inodes), and the calls. */
static char base[64], state[96], dir[96];
static struct nfs3_fh fh_a, fh_b;
static ino_t ino_a, ino_b;
static struct export_table *table;

/* One call being served: its request, the rpc layer's part, its message and reply. */
struct call {
	struct rpc_req req;
	struct rpc_req_priv pv;
	uint8_t msg[1024];
	uint8_t reply[1024];
};
static struct call calls[GROUP];

static void make_file(struct vfs_node *root, const char *name, struct nfs3_fh *fh, ino_t *ino)
{
	static const struct vfs_ctx ctx = {.cred = {.uid = 0, .gid = 0}};
	static const struct vfs_sattr none;
	char path[160];
	struct vfs_attr attr;
	struct vfs_wcc wcc;
	struct vfs_fh vfh;
	struct stat st;

	CHECK_EQ(vfs_create(&ctx, root, name, VFS_CREATE_UNCHECKED, &none, NULL, &vfh, &attr, &wcc),
		 0);
	fh->len = vfh.len;
	memcpy(fh->data, vfh.data, vfh.len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK_EQ(chmod(path, 0666), 0); /* the calls come as nobody (AUTH_NONE) */
	CHECK_EQ(stat(path, &st), 0);
	*ino = st.st_ino;
}

static void setup(void)
{
	const struct export *e;
	struct vfs_node *root;
	struct vfs_fh rfh;
	char err[256];

	test_disk_dir(base, sizeof(base), "shoal-nfs3w");
	snprintf(state, sizeof(state), "%s/state", base);
	snprintf(dir, sizeof(dir), "%s/export", base);
	CHECK_EQ(mkdir(state, 0700), 0);
	CHECK_EQ(mkdir(dir, 0777), 0);
	CHECK_EQ(vfs_init(state), 0);
	CHECK_EQ(rpc_register(&nfs3_program), 0);
	CHECK_EQ(export_table_single(dir, &table, err, sizeof(err)), 0);
	CHECK_EQ(export_table_open(table, NULL, err, sizeof(err)), 0);
	e = export_table_at(table, 0);
	rec_ops = *e->vx->be;
	rec_ops.fsync = rec_fsync;
	rec_ops.sync_written = rec_sync_written;
	e->vx->be = &rec_ops;
	CHECK_EQ(vfs_export_root(e->vx, &rfh), 0);
	CHECK_EQ(vfs_node_get(e->vx, rfh.data, rfh.len, false, &root), 0);
	make_file(root, "a", &fh_a, &ino_a);
	make_file(root, "b", &fh_b, &ino_b);
	vfs_node_put(root);
	export_table_publish(table);
}

static int rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	export_table_publish(NULL);
	vfs_fini();
	CHECK_EQ(vfs_thread_reset_identity(), 0);
	CHECK_EQ(nftw(base, rm, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Begin call @i: a WRITE of @len bytes of @byte at @offset of @fh, as @stable. */
static void begin_write(unsigned i, const struct nfs3_fh *fh, uint64_t offset, uint32_t len,
			uint32_t stable, uint8_t byte)
{
	const uint32_t hdr[] = {100 + i, 0, 2, NFS3_PROGRAM, NFS3_VERSION, NFS3PROC_WRITE, 0,
				0,	 0, 0};
	struct call *c = &calls[i];
	uint8_t data[64], out[sizeof(c->msg)];
	struct nfs3_write_args a = {.fh = *fh,
				    .offset = offset,
				    .count = len,
				    .stable = stable,
				    .data = {.data = data, .len = len}};
	struct sockaddr_in *sin = (struct sockaddr_in *)&c->req.peer;
	struct xdr_out o;
	size_t at;

	CHECK(len <= sizeof(data));
	memset(data, byte, len);
	xdr_out_init(&o, out, sizeof(out));
	for (size_t k = 0; k < sizeof(hdr) / sizeof(hdr[0]); k++)
		CHECK(xdr_enc_u32(&o, hdr[k]));
	CHECK(nfs3_enc_write_args(&o, &a));
	CHECK_EQ(o.nseg, 1); /* the data, by reference: splice it in */
	at = o.seg[0].at;
	memcpy(c->msg, out, at);
	memcpy(c->msg + at, data, len);
	memcpy(c->msg + at + len, out + at, o.len - at);
	memset(&c->req, 0, sizeof(c->req));
	memset(&c->pv, 0, sizeof(c->pv));
	c->req.priv = &c->pv;
	c->req.ipproto = IPPROTO_TCP;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->req.peer_len = sizeof(*sin);
	arena_init(&c->req.arena, 4096);
	CHECK_EQ(rpc_call_begin(&c->req, NULL, c->msg, xdr_out_total(&o), c->reply,
				sizeof(c->reply)),
		 RPC_STEP_RUN_BLOCKING);
	c->req.may_block = true;
}

/* Run calls [0, n) as one group, end each and decode its result into @res[i]. */
static void run_group(unsigned n, struct nfs3_write_res *res)
{
	struct rpc_req *reqs[GROUP] = {0};

	for (unsigned i = 0; i < n; i++)
		reqs[i] = &calls[i].req;
	for (unsigned i = 0; i < n; i++)
		rpc_call_run_gathered(reqs[i]);
	rpc_call_end_group(reqs, n);
	for (unsigned i = 0; i < n; i++) {
		struct call *c = &calls[i];
		struct xdr_cur cur;
		uint32_t w;

		rpc_call_end(&c->req);
		CHECK_EQ(c->pv.out.nseg, 0);
		xdr_cur_init(&cur, c->reply, c->pv.out.len);
		for (int k = 0; k < 6; k++) /* xid, REPLY, ACCEPTED, verifier, SUCCESS */
			CHECK(xdr_dec_u32(&cur, &w));
		CHECK(nfs3_dec_write_res(&cur, &res[i]));
		CHECK(c->req.gather_state == NULL);
		arena_fini(&c->req.arena);
	}
}

static int syncs_of(ino_t ino)
{
	int n = 0;

	for (int i = 0; i < nsynced; i++)
		n += synced[i] == ino;
	return n;
}

static void check_content(const char *name, const char *want, size_t len)
{
	char path[160], got[64];
	int fd;

	CHECK_EQ(vfs_thread_reset_identity(), 0); /* the calls left the caller's */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(read(fd, got, sizeof(got)), (ssize_t)len);
	CHECK(memcmp(got, want, len) == 0);
	close(fd);
}

/* Stable WRITEs of one handle gather; UNSTABLE ones and other handles do not. */
static void test_which_writes_gather(void)
{
	nsynced = 0;
	begin_write(0, &fh_a, 0, 4, NFS3_FILE_SYNC, 'x');
	begin_write(1, &fh_a, 4, 4, NFS3_DATA_SYNC, 'x');
	begin_write(2, &fh_b, 0, 4, NFS3_FILE_SYNC, 'x');
	CHECK(rpc_call_gathering(&calls[0].req));
	CHECK(rpc_call_gathers(&calls[0].req, &calls[1].req));
	CHECK(!rpc_call_gathers(&calls[0].req, &calls[2].req));
	for (unsigned i = 0; i < 3; i++)
		arena_fini(&calls[i].req.arena);
	/* an UNSTABLE WRITE this small runs on the loop, never begun for a pool: its
	 * arguments go to the procedure's gathers() as they are */
	{
		struct nfs3_write_args s = {.fh = fh_a, .stable = NFS3_FILE_SYNC};
		struct nfs3_write_args u = {.fh = fh_a, .stable = NFS3_UNSTABLE};

		CHECK(!nfs3_program.versions[0].procs[NFS3PROC_WRITE].gathers(&s, &u));
		CHECK(!nfs3_program.versions[0].procs[NFS3PROC_WRITE].gathers(&u, &s));
	}
	CHECK_EQ(nsynced, 0);
}

/* Begin three FILE_SYNC writes of 8 bytes to "a" (calls 0, 1 and 3, at 0, 8 and 16) and
 * a DATA_SYNC one of 5 bytes to "b" (call 2), of the bytes @b[0..3]. */
static void begin_four(const char b[4])
{
	begin_write(0, &fh_a, 0, 8, NFS3_FILE_SYNC, (uint8_t)b[0]);
	begin_write(1, &fh_a, 8, 8, NFS3_FILE_SYNC, (uint8_t)b[1]);
	begin_write(2, &fh_b, 0, 5, NFS3_DATA_SYNC, (uint8_t)b[2]);
	begin_write(3, &fh_a, 16, 8, NFS3_FILE_SYNC, (uint8_t)b[3]);
}

/* Three writes of "a" and one of "b" in one group: one sync of each file, after all
 * the writes; every reply FILE_SYNC with its count; the last reply of "a" carries the
 * size after all three, the first ones their own. */
static void test_group_syncs_each_file_once(void)
{
	struct nfs3_write_res res[GROUP];

	nsynced = 0;
	begin_four("1234");
	run_group(GROUP, res);
	CHECK_EQ(nsynced, 2);
	CHECK_EQ(syncs_of(ino_a), 1);
	CHECK_EQ(syncs_of(ino_b), 1);
	for (unsigned i = 0; i < GROUP; i++) {
		CHECK_EQ(res[i].status, NFS3_OK);
		CHECK_EQ(res[i].count, i == 2 ? 5u : 8u);
		CHECK_EQ(res[i].committed, i == 2 ? (uint32_t)NFS3_DATA_SYNC : NFS3_FILE_SYNC);
		CHECK(res[i].wcc.post.present);
	}
	CHECK_EQ(res[0].wcc.post.attr.size, 8);
	CHECK_EQ(res[1].wcc.post.attr.size, 16);
	CHECK_EQ(res[3].wcc.post.attr.size, 24);
	CHECK_EQ(res[2].wcc.post.attr.size, 5);
	check_content("a", "111111112222222244444444", 24);
	check_content("b", "33333", 5);
}

/* A failed sync fails every write of the group it was to make stable. */
static void test_failed_sync_fails_the_group(void)
{
	struct nfs3_write_res res[GROUP];

	nsynced = 0;
	fail_syncs = true;
	begin_write(0, &fh_a, 0, 8, NFS3_FILE_SYNC, '5');
	begin_write(1, &fh_a, 8, 8, NFS3_FILE_SYNC, '6');
	run_group(2, res);
	fail_syncs = false;
	CHECK_EQ(nsynced, 1);
	CHECK_EQ(res[0].status, NFS3ERR_IO);
	CHECK_EQ(res[1].status, NFS3ERR_IO);
	CHECK(res[1].wcc.post.present);
}

/* A group of one (no other write of its file came while it ran) is synced too. */
static void test_group_of_one(void)
{
	struct nfs3_write_res res[1];

	nsynced = 0;
	begin_write(0, &fh_b, 0, 2, NFS3_FILE_SYNC, '7');
	run_group(1, res);
	CHECK_EQ(res[0].status, NFS3_OK);
	CHECK_EQ(syncs_of(ino_b), 1);
	check_content("b", "77333", 5);
}

static int sync_nothing(void *arg)
{
	(void)arg;
	return 0;
}

static int replay_nothing(void *arg, const struct wlog_rec *r)
{
	(void)arg;
	(void)r;
	return -EEXIST; /* a new log holds no record */
}

/* With the stable-write log, a group's writes append their records and then wait once:
 * no fsync, one batch for all of them (both files), every reply FILE_SYNC or DATA_SYNC
 * with its data in the file. When the log's write fails, the log is set aside and
 * each file of the group is fsynced instead: the replies still say OK. */
static void test_group_shares_one_log_batch(void)
{
	struct wlog_opts o = {.size = 16 * 1024 * 1024, .interval_ms = 3600 * 1000};
	struct nfs3_write_res res[GROUP];
	char path[128];
	struct wlog *w = NULL;
	uint64_t n = 0, before;
	int ro;

	snprintf(path, sizeof(path), "%s/stable.log", state);
	CHECK_EQ(wlog_open(path, &o, &w), 0);
	CHECK_EQ(wlog_replay(w, replay_nothing, NULL, &n), 0);
	CHECK_EQ(wlog_start(w, sync_nothing, NULL), 0);
	vfs_set_wlog(w);

	nsynced = 0;
	before = w->head_lsn;
	begin_four("pqrs");
	run_group(GROUP, res);
	CHECK_EQ(nsynced, 0);
	CHECK_EQ(w->head_lsn - before,
		 wlog_round_blk(sizeof(struct wlog_batch) + 3 * wlog_rec_bytes(fh_a.len, 8) +
				wlog_rec_bytes(fh_b.len, 5)));
	CHECK(w->durable_lsn == w->head_lsn);
	for (unsigned i = 0; i < GROUP; i++) {
		CHECK_EQ(res[i].status, NFS3_OK);
		CHECK_EQ(res[i].committed, i == 2 ? (uint32_t)NFS3_DATA_SYNC : NFS3_FILE_SYNC);
	}
	check_content("a", "ppppppppqqqqqqqqssssssss", 24);
	check_content("b", "rrrrr", 5);

	/* the log's next write fails (its descriptor now read-only, as a failing disk) */
	ro = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(ro >= 0);
	CHECK(dup2(ro, w->fd) == w->fd);
	close(ro);
	begin_write(0, &fh_a, 0, 8, NFS3_FILE_SYNC, 't');
	begin_write(1, &fh_a, 8, 8, NFS3_FILE_SYNC, 'u');
	run_group(2, res);
	CHECK_EQ(res[0].status, NFS3_OK);
	CHECK_EQ(res[1].status, NFS3_OK);
	CHECK_EQ(syncs_of(ino_a), 1);
	CHECK(access(path, F_OK) != 0); /* set aside: deleted, every file synced */
	check_content("a", "ttttttttuuuuuuuussssssss", 24);

	vfs_set_wlog(NULL);
	wlog_close(w);
}

static void test_groups(void)
{
	setup();
	test_which_writes_gather();
	test_group_syncs_each_file_once();
	test_failed_sync_fails_the_group();
	test_group_of_one();
	test_group_shares_one_log_batch();
	teardown();
}

TESTS(test_groups);
