/*
 * dur_meta.c - the power-loss test's namespace load: a seeded stream of MKDIR, CREATE,
 * SETATTR, RENAME, REMOVE, RMDIR, SYMLINK and LINK calls whose every acknowledged reply
 * is journaled, and a verifier that finds any acknowledged change the server lost.
 *
 *   dur_meta run HOST EXPORT JOURNAL SEED
 *   dur_meta verify JOURNAL DIR [--no-journal]
 *
 * "run" mounts EXPORT and, on one connection and one call at a time, changes the
 * namespace below it: directories a few levels deep, files, symbolic and hard links, new
 * modes, renames within and across directories (some over an existing file, some of
 * whole directories), removals. Every new name is unique (a letter for its kind and the
 * op's number), so a name says which op made it. Before a call an "I" record (the op,
 * by paths relative to the export) goes to the journal; after an NFS3_OK reply an "A"
 * record, and the journal is fdatasync'ed. So at most the last op is uncertain. A call
 * the server refuses gets an "N" record and fails the run (the model knows every op is
 * valid). The tool prints "meta running" once mounted and runs until the connection
 * breaks (the driver cuts the server's power), then prints its totals.
 *
 * "verify" replays the journal into the namespace the acknowledged ops made and compares
 * DIR (the export as the disk kept it) with it: every name, its type, its mode (not for
 * symbolic links, whose mode Linux fixes) and a symbolic link's target. The last op,
 * issued but not acknowledged, may or may not have happened: DIR may match either
 * namespace. With --no-journal (DIR's file system had none) an unacknowledged RENAME of
 * a file or symbolic link to another directory may also have left both names: the
 * server syncs the new directory first, and nothing else orders the two writes. It
 * prints what it checked and each mismatch, naming the op that made what is missing or
 * different, and exits 0 only if there is none. DIR is expected to be a copy (debugfs
 * rdump), which does not keep link counts: a hard link shows as one more name with its
 * inode's mode, and that is what is checked.
 *
 * Ports come from SHOAL_NFS_PORT and SHOAL_MOUNT_PORT; calls wait SHOAL_RPC_TIMEOUT s.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/nfsc.h"

#define MAXNODES  2048
#define MAXDENTS  2048
#define MAXDIRS	  40  /* directories alive at once (the root not counted) */
#define MAXNAMES  200 /* names of files and symbolic links alive at once */
#define MAXDEPTH  4   /* levels of directories below the export */
#define NAMELEN	  24
#define PATHLEN	  256
#define TARGETLEN 64

enum op_kind { OP_MKDIR, OP_CREATE, OP_CHMOD, OP_RENAME, OP_REMOVE, OP_RMDIR, OP_SYMLINK, OP_LINK };
#define OP_N (OP_LINK + 1)
static const char *const op_names[OP_N] = {"mkdir",  "create", "chmod",	  "rename",
					   "remove", "rmdir",  "symlink", "link"};

/* One op, as journaled: @a is the path it acts on (the source of RENAME and LINK), @b
 * the new path of RENAME and LINK or the target of SYMLINK; @mode for MKDIR, CREATE,
 * CHMOD. */
struct op {
	uint64_t seq;
	enum op_kind kind;
	uint32_t mode;
	char a[PATHLEN];
	char b[PATHLEN];
};

struct node {
	bool live;
	char type; /* 'd' directory, 'f' regular file, 'l' symbolic link */
	uint32_t mode;
	uint64_t mode_seq; /* the op that set the mode (made the node, or a SETATTR) */
	int nlink;	   /* names of the node */
	int dent;	   /* a directory's one name; -1 for the root */
	char target[TARGETLEN];
	struct nfsc_fh fh; /* run only */
};

struct dent {
	bool live;
	int parent; /* a directory node */
	int node;
	uint64_t seq; /* the op that gave the node this name */
	char name[NAMELEN];
};

/* The namespace below the export; node 0 is its root. */
struct model {
	struct node nodes[MAXNODES];
	struct dent dents[MAXDENTS];
};

static const char *host, *export_path;
static int nfs_port, mount_port, rpc_timeout = 30;
static int journal_fd = -1;

/* ---- the model ---- */

/* @dst = @a, or @a "/" @b when @b is given; the names are ours, so too long is a bug. */
static void put_str(char *dst, size_t cap, const char *a, const char *b)
{
	int n = b ? snprintf(dst, cap, "%s/%s", a, b) : snprintf(dst, cap, "%s", a);

	if (n < 0 || (size_t)n >= cap)
		nfsc_die("name too long: %s%s%s", a, b ? "/" : "", b ? b : "");
}

static void m_init(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->nodes[0] =
		(struct node){.live = true, .type = 'd', .mode = 0755, .nlink = 1, .dent = -1};
}

static int m_lookup(const struct model *m, int dir, const char *name)
{
	for (int i = 0; i < MAXDENTS; i++)
		if (m->dents[i].live && m->dents[i].parent == dir &&
		    strcmp(m->dents[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * Resolve every component of @path but the last: the directory node that holds the
 * last one, whose name is copied to @last. -1 if a component is missing or no directory.
 */
static int m_parent(const struct model *m, const char *path, char last[NAMELEN])
{
	char buf[PATHLEN], *p, *slash;
	int dir = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	p = buf;
	while ((slash = strchr(p, '/'))) {
		int d;

		*slash = '\0';
		d = m_lookup(m, dir, p);
		if (d < 0 || m->nodes[m->dents[d].node].type != 'd')
			return -1;
		dir = m->dents[d].node;
		p = slash + 1;
	}
	if (!*p || strlen(p) >= NAMELEN)
		return -1;
	memcpy(last, p, strlen(p) + 1);
	return dir;
}

/* The name @path leads to, or -1. */
static int m_resolve(const struct model *m, const char *path)
{
	char last[NAMELEN];
	int dir = m_parent(m, path, last);

	return dir < 0 ? -1 : m_lookup(m, dir, last);
}

/* Levels between @node and the root (0 for the root). */
static int m_depth(const struct model *m, int node)
{
	int d = 0;

	while (node != 0) {
		node = m->dents[m->nodes[node].dent].parent;
		d++;
	}
	return d;
}

/* True if directory @anc is @node or one of its ancestors. */
static bool m_within(const struct model *m, int node, int anc)
{
	for (;;) {
		if (node == anc)
			return true;
		if (node == 0)
			return false;
		node = m->dents[m->nodes[node].dent].parent;
	}
}

static void m_path(const struct model *m, int dent, char *out, size_t cap)
{
	char tmp[PATHLEN];
	const struct dent *d = &m->dents[dent];

	if (d->parent == 0) {
		put_str(out, cap, d->name, NULL);
		return;
	}
	m_path(m, m->nodes[d->parent].dent, tmp, sizeof(tmp));
	put_str(out, cap, tmp, d->name);
}

static int m_new_dent(struct model *m, int parent, const char *name, int node, uint64_t seq)
{
	for (int i = 0; i < MAXDENTS; i++)
		if (!m->dents[i].live) {
			m->dents[i] = (struct dent){
				.live = true, .parent = parent, .node = node, .seq = seq};
			snprintf(m->dents[i].name, NAMELEN, "%s", name);
			m->nodes[node].nlink++;
			if (m->nodes[node].type == 'd')
				m->nodes[node].dent = i;
			return i;
		}
	return -1;
}

static int m_new_node(struct model *m, char type, uint32_t mode, uint64_t seq)
{
	for (int i = 1; i < MAXNODES; i++)
		if (!m->nodes[i].live) {
			m->nodes[i] = (struct node){.live = true,
						    .type = type,
						    .mode = mode,
						    .mode_seq = seq,
						    .dent = -1};
			return i;
		}
	return -1;
}

static void m_unlink(struct model *m, int dent)
{
	struct node *n = &m->nodes[m->dents[dent].node];

	m->dents[dent].live = false;
	if (--n->nlink == 0)
		n->live = false;
}

static bool m_empty(const struct model *m, int dir)
{
	for (int i = 0; i < MAXDENTS; i++)
		if (m->dents[i].live && m->dents[i].parent == dir)
			return false;
	return true;
}

/*
 * Apply @o to @m as the server should have. NULL, or why it cannot apply (the journal
 * and the model disagree). *@made is the node a MKDIR, CREATE or SYMLINK made, else -1.
 */
static const char *m_apply(struct model *m, const struct op *o, int *made)
{
	char last[NAMELEN], tlast[NAMELEN];
	int dir, d, node, tdir, td;

	*made = -1;
	dir = m_parent(m, o->a, last);
	if (dir < 0)
		return "no such parent directory";
	d = m_lookup(m, dir, last);
	switch (o->kind) {
	case OP_MKDIR:
	case OP_CREATE:
	case OP_SYMLINK:
		if (d >= 0)
			return "name exists";
		node = m_new_node(m,
				  o->kind == OP_MKDIR	 ? 'd'
				  : o->kind == OP_CREATE ? 'f'
							 : 'l',
				  o->kind == OP_SYMLINK ? 0777 : o->mode, o->seq);
		if (node < 0 || m_new_dent(m, dir, last, node, o->seq) < 0) {
			if (node >= 0)
				m->nodes[node].live = false;
			return "model full";
		}
		if (o->kind == OP_SYMLINK)
			put_str(m->nodes[node].target, TARGETLEN, o->b, NULL);
		*made = node;
		return NULL;
	case OP_CHMOD:
		if (d < 0)
			return "no such name";
		m->nodes[m->dents[d].node].mode = o->mode;
		m->nodes[m->dents[d].node].mode_seq = o->seq;
		return NULL;
	case OP_REMOVE:
	case OP_RMDIR:
		if (d < 0)
			return "no such name";
		if ((m->nodes[m->dents[d].node].type == 'd') != (o->kind == OP_RMDIR))
			return "wrong type";
		if (o->kind == OP_RMDIR && !m_empty(m, m->dents[d].node))
			return "directory not empty";
		m_unlink(m, d);
		return NULL;
	case OP_RENAME:
	case OP_LINK:
		if (d < 0)
			return "no such name";
		tdir = m_parent(m, o->b, tlast);
		if (tdir < 0)
			return "no such target directory";
		td = m_lookup(m, tdir, tlast);
		node = m->dents[d].node;
		if (o->kind == OP_LINK) {
			if (td >= 0 || m->nodes[node].type != 'f')
				return "target exists or source no file";
			return m_new_dent(m, tdir, tlast, node, o->seq) < 0 ? "model full" : NULL;
		}
		if (m->nodes[node].type == 'd' && m_within(m, tdir, node))
			return "directory into itself";
		if (td >= 0) {
			if (m->nodes[m->dents[td].node].type == 'd' || m->dents[td].node == node)
				return "target is a directory or the same file";
			m_unlink(m, td);
		}
		m->dents[d].parent = tdir;
		m->dents[d].seq = o->seq;
		snprintf(m->dents[d].name, NAMELEN, "%s", tlast);
		return NULL;
	}
	return "unknown op";
}

/*
 * Apply to @m what an unacknowledged RENAME @o of a file or symbolic link to another
 * directory may have left on a file system without a journal: the new name (replacing a
 * file that had it) with the old name still there. The server syncs the new directory
 * before the old one, so that a power cut between the two syncs leaves the object with
 * two names rather than none, and without a journal nothing makes the two one write.
 * NULL, or why @o is no such rename.
 */
static const char *m_apply_split_rename(struct model *m, const struct op *o)
{
	char last[NAMELEN], tlast[NAMELEN];
	int dir, d, tdir, td, node;

	if (o->kind != OP_RENAME)
		return "no rename";
	dir = m_parent(m, o->a, last);
	d = dir < 0 ? -1 : m_lookup(m, dir, last);
	tdir = m_parent(m, o->b, tlast);
	if (d < 0 || tdir < 0 || tdir == dir)
		return "no rename to another directory";
	node = m->dents[d].node;
	if (m->nodes[node].type == 'd')
		return "a directory's rename";
	td = m_lookup(m, tdir, tlast);
	if (td >= 0) {
		if (m->nodes[m->dents[td].node].type == 'd' || m->dents[td].node == node)
			return "target is a directory or the same file";
		m_unlink(m, td);
	}
	return m_new_dent(m, tdir, tlast, node, o->seq) < 0 ? "model full" : NULL;
}

/* ---- the journal ---- */

static void op_text(const struct op *o, char *out, size_t cap)
{
	switch (o->kind) {
	case OP_MKDIR:
	case OP_CREATE:
	case OP_CHMOD:
		snprintf(out, cap, "%s %s %04o", op_names[o->kind], o->a, o->mode);
		break;
	case OP_REMOVE:
	case OP_RMDIR:
		snprintf(out, cap, "%s %s", op_names[o->kind], o->a);
		break;
	default:
		snprintf(out, cap, "%s %s %s", op_names[o->kind], o->a, o->b);
	}
}

static bool op_parse(const char *text, struct op *o)
{
	char kind[16], a[PATHLEN], b[PATHLEN];
	int n = sscanf(text, "%15s %255s %255s", kind, a, b);

	for (int k = 0; k < OP_N; k++) {
		if (n < 2 || strcmp(kind, op_names[k]) != 0)
			continue;
		o->kind = (enum op_kind)k;
		snprintf(o->a, sizeof(o->a), "%s", a);
		o->b[0] = '\0';
		o->mode = 0;
		if (k == OP_REMOVE || k == OP_RMDIR)
			return n == 2;
		if (n != 3)
			return false;
		if (k == OP_MKDIR || k == OP_CREATE || k == OP_CHMOD)
			o->mode = (uint32_t)strtoul(b, NULL, 8);
		else
			snprintf(o->b, sizeof(o->b), "%s", b);
		return true;
	}
	return false;
}

/* Append one record; an acknowledgement (and so all before it) is on disk on return. */
static void journal(char rec, const struct op *o)
{
	char line[2 * PATHLEN + 64], text[2 * PATHLEN + 32];
	int n;

	if (rec == 'I') {
		op_text(o, text, sizeof(text));
		n = snprintf(line, sizeof(line), "I %" PRIu64 " %s\n", o->seq, text);
	} else {
		n = snprintf(line, sizeof(line), "%c %" PRIu64 "\n", rec, o->seq);
	}
	if (write(journal_fd, line, (size_t)n) != n)
		nfsc_die("journal write: %s", strerror(errno));
	if (rec != 'I' && fdatasync(journal_fd) != 0)
		nfsc_die("journal fdatasync: %s", strerror(errno));
}

/* ---- run: the generator and the calls ---- */

static uint64_t rnd(uint64_t *s)
{
	*s = nfsc_mix(*s);
	return *s;
}

static const uint32_t file_modes[] = {0600, 0604, 0640, 0644, 0660, 0664, 0666, 0700, 0744, 0755};
/* Permission bits only: debugfs rdump, which makes the copy verify reads, drops the
 * setuid, setgid and sticky bits. */
static const uint32_t dir_modes[] = {0700, 0711, 0750, 0751, 0755, 0770, 0775, 0777};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Reservoir sampling: called for the @n-th candidate (from 1), true if it replaces the
 * one chosen so far, so that each of the candidates is chosen with equal chance. */
static bool take(uint64_t *rng, int n)
{
	return rnd(rng) % (uint64_t)n == 0;
}

/* A random live name of a node that @want accepts ("d" directories, "f" files, "fl"
 * files and symbolic links, "df" both...), or -1. */
static int pick_dent(const struct model *m, uint64_t *rng, const char *want)
{
	int n = 0, pick = -1;

	for (int i = 0; i < MAXDENTS; i++)
		if (m->dents[i].live && strchr(want, m->nodes[m->dents[i].node].type) &&
		    take(rng, ++n))
			pick = i;
	return pick;
}

/* A random directory node at most @maxdepth deep and outside @outside (-1: any). */
static int pick_dir(const struct model *m, uint64_t *rng, int maxdepth, int outside)
{
	int n = 0, pick = -1;

	for (int i = 0; i < MAXNODES; i++)
		if (m->nodes[i].live && m->nodes[i].type == 'd' && m_depth(m, i) <= maxdepth &&
		    (outside < 0 || !m_within(m, i, outside)) && take(rng, ++n))
			pick = i;
	return pick;
}

static int count_type(const struct model *m, const char *types)
{
	int n = 0;

	for (int i = 0; i < MAXDENTS; i++)
		if (m->dents[i].live && strchr(types, m->nodes[m->dents[i].node].type))
			n++;
	return n;
}

/* @out = the path of a new name @name in directory node @dir. */
static void new_path(const struct model *m, int dir, const char *name, char *out)
{
	char p[PATHLEN];

	if (dir == 0) {
		put_str(out, PATHLEN, name, NULL);
		return;
	}
	m_path(m, m->nodes[dir].dent, p, sizeof(p));
	put_str(out, PATHLEN, p, name);
}

/* The deepest level of directories below @dir, counted from @dir (0: none). */
static int m_height(const struct model *m, int dir)
{
	int h = 0, base = m_depth(m, dir);

	for (int i = 0; i < MAXNODES; i++)
		if (m->nodes[i].live && m->nodes[i].type == 'd' && m_within(m, i, dir) &&
		    m_depth(m, i) - base > h)
			h = m_depth(m, i) - base;
	return h;
}

/* Fill @o with the op of kind @k on the current namespace; false if there is none. */
static bool gen_kind(const struct model *m, uint64_t *rng, enum op_kind k, struct op *o)
{
	int ndirs = count_type(m, "d"), nnames = count_type(m, "fl");
	char name[NAMELEN];
	int d, dir, src;

	o->kind = k;
	o->b[0] = '\0';
	switch (k) {
	case OP_MKDIR:
		dir = pick_dir(m, rng, MAXDEPTH - 1, -1);
		if (ndirs >= MAXDIRS || dir < 0)
			return false;
		snprintf(name, sizeof(name), "d%" PRIu64, o->seq);
		new_path(m, dir, name, o->a);
		o->mode = dir_modes[rnd(rng) % NELEM(dir_modes)];
		return true;
	case OP_CREATE:
	case OP_SYMLINK:
		if (nnames >= MAXNAMES)
			return false;
		dir = pick_dir(m, rng, MAXDEPTH, -1);
		snprintf(name, sizeof(name), "%c%" PRIu64, k == OP_CREATE ? 'f' : 's', o->seq);
		new_path(m, dir, name, o->a);
		o->mode = file_modes[rnd(rng) % NELEM(file_modes)];
		if (k == OP_SYMLINK)
			snprintf(o->b, sizeof(o->b), "../t%" PRIu64 "/x%" PRIu64, rnd(rng) % 1000,
				 o->seq);
		return true;
	case OP_CHMOD:
		d = pick_dent(m, rng, "df");
		if (d < 0)
			return false;
		m_path(m, d, o->a, PATHLEN);
		o->mode = m->nodes[m->dents[d].node].type == 'd'
				  ? dir_modes[rnd(rng) % NELEM(dir_modes)]
				  : file_modes[rnd(rng) % NELEM(file_modes)];
		return true;
	case OP_RENAME:
		/* One rename in four moves a directory; one in four of the others replaces an
		 * existing name. */
		src = pick_dent(m, rng, rnd(rng) % 4 == 0 ? "d" : "fl");
		if (src < 0)
			return false;
		m_path(m, src, o->a, PATHLEN);
		if (m->nodes[m->dents[src].node].type == 'd') {
			int node = m->dents[src].node;

			dir = pick_dir(m, rng, MAXDEPTH - 1 - m_height(m, node), node);
			if (dir < 0)
				return false;
		} else {
			d = rnd(rng) % 4 == 0 ? pick_dent(m, rng, "fl") : -1;
			if (d >= 0 && m->dents[d].node != m->dents[src].node) {
				m_path(m, d, o->b, PATHLEN);
				return true;
			}
			dir = pick_dir(m, rng, MAXDEPTH, -1);
		}
		snprintf(name, sizeof(name), "r%" PRIu64, o->seq);
		new_path(m, dir, name, o->b);
		return true;
	case OP_REMOVE:
		d = pick_dent(m, rng, "fl");
		if (d < 0)
			return false;
		m_path(m, d, o->a, PATHLEN);
		return true;
	case OP_RMDIR: {
		int n = 0, pick = -1;

		for (int i = 1; i < MAXNODES; i++)
			if (m->nodes[i].live && m->nodes[i].type == 'd' && m_empty(m, i) &&
			    take(rng, ++n))
				pick = i;
		if (pick < 0)
			return false;
		m_path(m, m->nodes[pick].dent, o->a, PATHLEN);
		return true;
	}
	case OP_LINK:
		d = pick_dent(m, rng, "f");
		if (d < 0 || nnames >= MAXNAMES)
			return false;
		m_path(m, d, o->a, PATHLEN);
		dir = pick_dir(m, rng, MAXDEPTH, -1);
		snprintf(name, sizeof(name), "h%" PRIu64, o->seq);
		new_path(m, dir, name, o->b);
		return true;
	}
	return false;
}

/* The next op: kinds drawn by weight until one applies to the current namespace. */
static void gen_op(const struct model *m, uint64_t *rng, struct op *o)
{
	/* Out of 100: MKDIR 10, CREATE 28, CHMOD 14, RENAME 17, REMOVE 12, RMDIR 7,
	 * SYMLINK 6, LINK 6. */
	static const struct {
		int upto;
		enum op_kind k;
	} weights[] = {{10, OP_MKDIR},	{38, OP_CREATE}, {52, OP_CHMOD},   {69, OP_RENAME},
		       {81, OP_REMOVE}, {88, OP_RMDIR},	 {94, OP_SYMLINK}, {100, OP_LINK}};

	for (;;) {
		int r = (int)(rnd(rng) % 100);

		for (size_t i = 0; i < NELEM(weights); i++)
			if (r < weights[i].upto) {
				if (gen_kind(m, rng, weights[i].k, o))
					return;
				break;
			}
	}
}

/* The directory handle and the name of the last component of @path. */
static const struct nfsc_fh *dir_of(const struct model *m, const struct nfsc_fh *root,
				    const char *path, char name[NAMELEN])
{
	int dir = m_parent(m, path, name);

	if (dir < 0)
		nfsc_die("model: no parent for %s", path);
	return dir == 0 ? root : &m->nodes[dir].fh;
}

/* Send @o; the NFS status, -1 if the connection broke. *@fh gets a new object's handle. */
static int call_op(struct nfsc *c, const struct model *m, const struct nfsc_fh *root,
		   const struct op *o, struct nfsc_fh *fh)
{
	char name[NAMELEN], tname[NAMELEN];
	const struct nfsc_fh *dir = dir_of(m, root, o->a, name), *tdir;
	const struct node *src = NULL;
	sattr3 sa;
	int d;

	if (o->kind == OP_CHMOD || o->kind == OP_LINK) {
		d = m_resolve(m, o->a);
		if (d < 0)
			nfsc_die("model: no %s", o->a);
		src = &m->nodes[m->dents[d].node];
	}
	switch (o->kind) {
	case OP_MKDIR:
		return nfsc_mkdir(c, dir, name, o->mode, fh);
	case OP_CREATE:
		return nfsc_create(c, dir, name, GUARDED, o->mode, fh, NULL);
	case OP_SYMLINK:
		return nfsc_symlink(c, dir, name, o->b, fh);
	case OP_CHMOD:
		memset(&sa, 0, sizeof(sa));
		sa.mode.set_it = 1;
		sa.mode.set_mode3_u.mode = o->mode;
		return nfsc_setattr(c, &src->fh, &sa, NULL);
	case OP_REMOVE:
		return nfsc_remove(c, dir, name);
	case OP_RMDIR:
		return nfsc_rmdir(c, dir, name);
	case OP_RENAME:
		tdir = dir_of(m, root, o->b, tname);
		return nfsc_rename(c, dir, name, tdir, tname);
	case OP_LINK:
		tdir = dir_of(m, root, o->b, tname);
		return nfsc_link(c, &src->fh, tdir, tname);
	}
	return -1;
}

static int cmd_run(char **argv)
{
	static struct model m;
	uint64_t rng = nfsc_mix(strtoull(argv[3], NULL, 0));
	uint64_t issued = 0, acked = 0, per_kind[OP_N] = {0};
	struct nfsc_fh root;
	struct nfsc c;
	int st, failed = 0;

	host = argv[0];
	export_path = argv[1];
	journal_fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (journal_fd < 0)
		nfsc_die("journal %s: %s", argv[2], strerror(errno));
	if (nfsc_connect(&c, host, mount_port, rpc_timeout))
		nfsc_die("connect to mount port %d: %s", mount_port, c.err);
	st = nfsc_mnt(&c, export_path, &root, NULL);
	nfsc_close(&c);
	if (st != MNT3_OK)
		nfsc_die("MNT %s: expected MNT3_OK got %s", export_path, nfsc_mntname(st));
	if (nfsc_connect(&c, host, nfs_port, rpc_timeout))
		nfsc_die("connect to nfs port %d: %s", nfs_port, c.err);
	m_init(&m);
	printf("meta running\n");
	for (uint64_t seq = 1;; seq++) {
		struct op o = {.seq = seq};
		struct nfsc_fh fh = {0};
		const char *why;
		char text[2 * PATHLEN + 32];
		int made;

		gen_op(&m, &rng, &o);
		journal('I', &o);
		issued++;
		st = call_op(&c, &m, &root, &o, &fh);
		if (st < 0) {
			printf("meta stopped: %s\n", c.err);
			break;
		}
		op_text(&o, text, sizeof(text));
		if (st != NFS3_OK) {
			journal('N', &o);
			printf("FAIL op %" PRIu64 " (%s): expected NFS3_OK got %s\n", seq, text,
			       nfsc_stname(st));
			failed = 1;
			break;
		}
		why = m_apply(&m, &o, &made);
		if (why)
			nfsc_die("model: op %" PRIu64 " (%s): %s", seq, text, why);
		if (made >= 0)
			m.nodes[made].fh = fh;
		journal('A', &o);
		acked++;
		per_kind[o.kind]++;
	}
	nfsc_close(&c);
	printf("meta: %" PRIu64 " ops issued, %" PRIu64 " acknowledged (", issued, acked);
	for (int k = 0; k < OP_N; k++)
		printf("%s%s %" PRIu64, k ? ", " : "", op_names[k], per_kind[k]);
	printf(")\n");
	close(journal_fd);
	return failed;
}

/* ---- verify ---- */

/* One name of a namespace, as compared: path, type, mode, target, and which ops. */
struct entry {
	char path[PATHLEN];
	char type;
	uint32_t mode;
	char target[TARGETLEN];
	uint64_t seq, mode_seq;
};

static struct entry *entries_new(size_t n)
{
	struct entry *e = calloc(n ? n : 1, sizeof(*e));

	if (!e)
		nfsc_die("out of memory");
	return e;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* The namespace of @m as sorted entries; their number. */
static size_t model_entries(const struct model *m, struct entry **out)
{
	struct entry *e = entries_new(MAXDENTS);
	size_t n = 0;

	for (int i = 0; i < MAXDENTS; i++) {
		const struct node *nd;

		if (!m->dents[i].live)
			continue;
		nd = &m->nodes[m->dents[i].node];
		m_path(m, i, e[n].path, PATHLEN);
		e[n].type = nd->type;
		e[n].mode = nd->mode;
		e[n].seq = m->dents[i].seq;
		e[n].mode_seq = nd->mode_seq;
		snprintf(e[n].target, TARGETLEN, "%s", nd->target);
		n++;
	}
	qsort(e, n, sizeof(*e), entry_cmp);
	*out = e;
	return n;
}

/* Every name below @dir (relative path @rel) into @e (capacity @cap); false if any
 * could not be read. */
static bool scan_dir(const char *dir, const char *rel, struct entry *e, size_t cap, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool ok = true;

	if (!d) {
		printf("FAIL scan: %s: %s\n", dir, strerror(errno));
		return false;
	}
	while ((de = readdir(d))) {
		char full[PATHLEN + 512], path[PATHLEN];
		struct stat st;
		struct entry *x;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		if (snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", de->d_name) >=
			    (int)sizeof(path) ||
		    *n >= cap || lstat(full, &st) != 0) {
			printf("FAIL scan: %s: cannot read it (or too many names)\n", full);
			ok = false;
			continue;
		}
		x = &e[(*n)++];
		memset(x, 0, sizeof(*x));
		snprintf(x->path, sizeof(x->path), "%s", path);
		x->mode = st.st_mode & 07777;
		if (S_ISDIR(st.st_mode)) {
			x->type = 'd';
			ok = scan_dir(full, path, e, cap, n) && ok;
		} else if (S_ISREG(st.st_mode)) {
			x->type = 'f';
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t r = readlink(full, x->target, TARGETLEN - 1);

			x->type = 'l';
			x->target[r > 0 ? r : 0] = '\0';
		} else {
			x->type = '?';
		}
	}
	closedir(d);
	return ok;
}

static const char *type_name(char t)
{
	return t == 'd' ? "directory" : t == 'f' ? "file" : t == 'l' ? "symlink" : "other";
}

/* Describe @x for a message: type, mode or target. */
static void describe(const struct entry *x, char *out, size_t cap)
{
	if (x->type == 'l')
		snprintf(out, cap, "symlink to %s", x->target);
	else
		snprintf(out, cap, "%s %04o", type_name(x->type), x->mode);
}

/*
 * Compare the expected @want (@nw entries) with the found @got (@ng), both sorted;
 * print each difference if @print. The number of differences.
 */
static int compare(const struct entry *want, size_t nw, const struct entry *got, size_t ng,
		   bool print)
{
	size_t i = 0, j = 0;
	int diffs = 0;
	char a[PATHLEN + 32], b[PATHLEN + 32];

	while (i < nw || j < ng) {
		int c = i == nw ? 1 : j == ng ? -1 : strcmp(want[i].path, got[j].path);

		if (c < 0) {
			describe(&want[i], a, sizeof(a));
			if (print)
				printf("FAIL missing %s: expected a %s (named by op %" PRIu64
				       ") got nothing\n",
				       want[i].path, a, want[i].seq);
			diffs++;
			i++;
			continue;
		}
		if (c > 0) {
			describe(&got[j], b, sizeof(b));
			if (print)
				printf("FAIL unexpected %s: expected nothing got a %s\n",
				       got[j].path, b);
			diffs++;
			j++;
			continue;
		}
		if (want[i].type != got[j].type ||
		    (want[i].type == 'l' && strcmp(want[i].target, got[j].target) != 0) ||
		    (want[i].type != 'l' && want[i].mode != got[j].mode)) {
			describe(&want[i], a, sizeof(a));
			describe(&got[j], b, sizeof(b));
			if (print)
				printf("FAIL differs %s: expected a %s (named by op %" PRIu64
				       ", mode set by op %" PRIu64 ") got a %s\n",
				       want[i].path, a, want[i].seq, want[i].mode_seq, b);
			diffs++;
		}
		i++;
		j++;
	}
	return diffs;
}

static int cmd_verify(const char *jpath, const char *dir, bool no_journal)
{
	static struct model acked_m, alt_m;
	uint64_t n_acked = 0, per_kind[OP_N] = {0};
	struct op pending = {0};
	bool have_pending = false;
	/* What DIR may hold instead of the acknowledged namespace if the last op was not
	 * acknowledged. */
	struct {
		const char *what;
		struct entry *e;
		size_t n;
	} alt[2] = {{.what = "the unacknowledged op happened"},
		    {.what = "the unacknowledged rename left both names, as a power cut between "
			     "its two directory syncs does without a journal"}};
	const char *matched = NULL;
	struct entry *want, *got = entries_new(MAXDENTS * 2);
	size_t nw, ng = 0;
	char line[2 * PATHLEN + 64], text[2 * PATHLEN + 32];
	FILE *j = fopen(jpath, "r");
	int made, diffs;
	bool scanned;

	if (!j)
		nfsc_die("journal %s: %s", jpath, strerror(errno));
	m_init(&acked_m);
	while (fgets(line, sizeof(line), j)) {
		uint64_t seq;
		int off = 0;
		const char *why;

		if (!strchr(line, '\n'))
			break; /* a record cut short when the tool was killed: never acknowledged */
		if (sscanf(line, "I %" SCNu64 " %n", &seq, &off) == 1 && off > 0) {
			if (have_pending)
				nfsc_die("journal: op %" PRIu64 " issued before op %" PRIu64
					 " was answered",
					 seq, pending.seq);
			if (!op_parse(line + off, &pending))
				nfsc_die("journal: bad op '%s'", line);
			pending.seq = seq;
			have_pending = true;
		} else if (sscanf(line, "A %" SCNu64, &seq) == 1 && have_pending &&
			   seq == pending.seq) {
			why = m_apply(&acked_m, &pending, &made);
			if (why) {
				op_text(&pending, text, sizeof(text));
				nfsc_die("journal: op %" PRIu64 " (%s) does not apply: %s", seq,
					 text, why);
			}
			n_acked++;
			per_kind[pending.kind]++;
			have_pending = false;
		} else if (sscanf(line, "N %" SCNu64, &seq) == 1 && have_pending &&
			   seq == pending.seq) {
			have_pending = false; /* refused: it did not happen */
		} else {
			nfsc_die("journal %s: bad line '%s'", jpath, line);
		}
	}
	fclose(j);

	nw = model_entries(&acked_m, &want);
	printf("meta verify: %" PRIu64 " acknowledged ops replayed (", n_acked);
	for (int k = 0; k < OP_N; k++)
		printf("%s%s %" PRIu64, k ? ", " : "", op_names[k], per_kind[k]);
	printf("); %zu names expected\n", nw);
	if (have_pending) {
		op_text(&pending, text, sizeof(text));
		alt_m = acked_m;
		if (m_apply(&alt_m, &pending, &made) == NULL)
			alt[0].n = model_entries(&alt_m, &alt[0].e);
		alt_m = acked_m;
		if (no_journal && m_apply_split_rename(&alt_m, &pending) == NULL)
			alt[1].n = model_entries(&alt_m, &alt[1].e);
		printf("meta verify: op %" PRIu64 " (%s) was issued, not acknowledged: it may or "
		       "may not have happened\n",
		       pending.seq, text);
	}
	scanned = scan_dir(dir, "", got, MAXDENTS * 2, &ng);
	qsort(got, ng, sizeof(*got), entry_cmp);
	diffs = compare(want, nw, got, ng, false);
	for (int i = 0; diffs && !matched && i < 2; i++)
		if (alt[i].e && compare(alt[i].e, alt[i].n, got, ng, false) == 0)
			matched = alt[i].what;
	if (diffs && !matched)
		compare(want, nw, got, ng, true);
	printf("meta verify: %zu names found in %s, %d mismatches%s%s%s\n", ng, dir,
	       matched ? 0 : diffs, matched ? " (" : "", matched ? matched : "",
	       matched ? ")" : "");
	free(want);
	free(alt[0].e);
	free(alt[1].e);
	free(got);
	return scanned && (diffs == 0 || matched) ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct nfsc_env env;

	setvbuf(stdout, NULL, _IOLBF, 0);
	env = nfsc_env();
	nfs_port = env.nfs_port;
	mount_port = env.mount_port;
	rpc_timeout = env.timeout_s;
	if (argc == 6 && strcmp(argv[1], "run") == 0)
		return cmd_run(argv + 2);
	if ((argc == 4 || (argc == 5 && strcmp(argv[4], "--no-journal") == 0)) &&
	    strcmp(argv[1], "verify") == 0)
		return cmd_verify(argv[2], argv[3], argc == 5);
	fprintf(stderr, "usage: dur_meta run HOST EXPORT JOURNAL SEED\n"
			"       dur_meta verify JOURNAL DIR [--no-journal]\n");
	return 2;
}
