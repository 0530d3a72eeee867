/*
 * report.c - the text report of a shoal-bench run, section by section in the layout of
 * the SPECsfs2008 ASCII reports (seeds 000/001/003; sfs-workload.md section 5.1).
 *
 * Three sources fill it: what was measured (the bench_run), what the tool found out
 * about the host (bench_host_detect(), stored in the same struct), and a description
 * file in which the user states what no tool can see (vendor, disks, stable storage...).
 * Everything the user did not state reads "not stated", never a guess. The output
 * depends on nothing but those inputs (no clock, no locale), so it can be checked
 * against a golden file.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench_machine.h"
#include "bench_ort.h"

#define REPORT_WIDTH 80
#define NOT_STATED   "not stated"
#define KV_INDENT    32 /* column where the value of a "Name  value" line starts */

/* ---- the description file ---- */

/* How a key's value is used: one value, lines of free text, or a table row. */
#define DESC_ONE  0
#define DESC_TEXT (-1)

static const struct desc_key {
	const char *name;
	int cols; /* DESC_ONE, DESC_TEXT or the number of '|'-separated cells */
} desc_keys[] = {
	{"Vendor", DESC_ONE},
	{"Product Name", DESC_ONE},
	{"Tested By", DESC_ONE},
	{"Hardware Available", DESC_ONE},
	{"Software Available", DESC_ONE},
	{"Licensee Locations", DESC_ONE},
	{"Description", DESC_TEXT},
	{"BOM", 5},
	{"OS Name and Version", DESC_ONE},
	{"Other Software", DESC_ONE},
	{"Filesystem Software", DESC_ONE},
	{"Server Tuning", 3},
	{"Server Tuning Notes", DESC_TEXT},
	{"Disk", 3},
	{"Number of Filesystems", DESC_ONE},
	{"Total Exported Capacity", DESC_ONE},
	{"Filesystem Type", DESC_ONE},
	{"Filesystem Creation Options", DESC_ONE},
	{"Filesystem Config", DESC_ONE},
	{"Filesystem Notes", DESC_TEXT},
	{"Network", 3},
	{"Network Configuration Notes", DESC_TEXT},
	{"Benchmark Network", DESC_TEXT},
	{"Processing Element", 4},
	{"Processing Element Notes", DESC_TEXT},
	{"Memory", 4},
	{"Memory Notes", DESC_TEXT},
	{"Stable Storage", DESC_TEXT},
	{"System Under Test Configuration Notes", DESC_TEXT},
	{"Other System Notes", DESC_TEXT},
	{"Test Environment BOM", 4},
	{"LG Processor Speed", DESC_ONE},
	{"LG Processors", DESC_ONE},
	{"LG Cores per Chip", DESC_ONE},
	{"LG Network Type", DESC_ONE},
	{"Load Generator Configuration Notes", DESC_TEXT},
	{"Uniform Access Rule Compliance", DESC_TEXT},
	{"Other Notes", DESC_TEXT},
};

#define NKEYS (sizeof(desc_keys) / sizeof(desc_keys[0]))

struct desc_line {
	unsigned key; /* index into desc_keys */
	char *val;    /* owned */
};

struct desc {
	struct desc_line *v;
	size_t n, cap;
};

static void desc_free(struct desc *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].val);
	free(d->v);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	*e = '\0';
	return s;
}

static unsigned count_cells(const char *v)
{
	unsigned n = 1;

	for (; *v; v++)
		n += *v == '|';
	return n;
}

/* Parse one non-blank, non-comment line; -1 after printing why it is wrong. */
static int desc_line(struct desc *d, char *line, const char *path, unsigned lineno)
{
	char *colon = strchr(line, ':'), *key, *val;
	unsigned k;

	if (!colon) {
		fprintf(stderr, "%s:%u: expected \"Key: value\"\n", path, lineno);
		return -1;
	}
	*colon = '\0';
	key = trim(line);
	val = trim(colon + 1);
	for (k = 0; k < NKEYS && strcasecmp(desc_keys[k].name, key) != 0; k++)
		;
	if (k == NKEYS) {
		fprintf(stderr, "%s:%u: unknown key \"%s\" (see bench/sut-example.txt)\n", path,
			lineno, key);
		return -1;
	}
	if (desc_keys[k].cols > 0 && count_cells(val) != (unsigned)desc_keys[k].cols) {
		fprintf(stderr, "%s:%u: \"%s\" takes %d cells separated by '|'\n", path, lineno,
			desc_keys[k].name, desc_keys[k].cols);
		return -1;
	}
	for (size_t i = 0; desc_keys[k].cols == DESC_ONE && i < d->n; i++) {
		if (d->v[i].key == k) {
			fprintf(stderr, "%s:%u: \"%s\" given twice\n", path, lineno,
				desc_keys[k].name);
			return -1;
		}
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 32;
		struct desc_line *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n].key = k;
	d->v[d->n].val = strdup(val);
	if (!d->v[d->n].val)
		goto nomem;
	d->n++;
	return 0;
nomem:
	fprintf(stderr, "%s:%u: out of memory\n", path, lineno);
	return -1;
}

/* Read the description file: "Key: value" lines, '#' comments, blank lines. */
static int desc_read(struct desc *d, const char *path)
{
	char line[1024];
	unsigned lineno = 0;
	FILE *f;
	int rc = 0;

	if (!path)
		return 0;
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *s;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "%s:%u: line longer than %zu bytes\n", path, lineno,
				sizeof(line) - 2);
			rc = -1;
			break;
		}
		s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		rc = desc_line(d, s, path, lineno);
	}
	if (rc == 0 && ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		rc = -1;
	}
	fclose(f);
	return rc;
}

static unsigned desc_key_index(const char *name)
{
	unsigned k;

	for (k = 0; k < NKEYS && strcmp(desc_keys[k].name, name) != 0; k++)
		;
	return k;
}

/* The @nth value given for @name, or NULL. */
static const char *desc_nth(const struct desc *d, const char *name, unsigned nth)
{
	unsigned k = desc_key_index(name);

	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].key == k && nth-- == 0)
			return d->v[i].val;
	return NULL;
}

static const char *desc_get(const struct desc *d, const char *name, const char *dflt)
{
	const char *v = desc_nth(d, name, 0);

	return v && *v ? v : dflt;
}

/* ---- layout helpers ---- */

/* Word-wrap @text to REPORT_WIDTH; the first line starts at column @col (the caller has
 * printed that much), continuation lines are indented by @indent. */
static void wrap(FILE *out, const char *text, unsigned col, unsigned indent)
{
	const char *p = text;
	bool first = true;

	while (*p) {
		size_t w;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		w = strcspn(p, " ");
		if (!first && col + 1 + w > REPORT_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
			first = true;
		}
		if (!first) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, w, out);
		col += (unsigned)w;
		p += w;
		first = false;
	}
	fputc('\n', out);
}

static void rule(FILE *out, char c)
{
	for (int i = 0; i < REPORT_WIDTH; i++)
		fputc(c, out);
	fputc('\n', out);
}

static void underlined(FILE *out, const char *title, char c)
{
	fprintf(out, "%s\n", title);
	for (size_t i = strlen(title); i > 0; i--)
		fputc(c, out);
	fputc('\n', out);
}

static void section(FILE *out, const char *title)
{
	fputc('\n', out);
	underlined(out, title, '=');
	fputc('\n', out);
}

static void subsection(FILE *out, const char *title)
{
	fputc('\n', out);
	underlined(out, title, '-');
}

/* "Name                            value", the value wrapped under itself. */
static void kv(FILE *out, const char *name, const char *value)
{
	int n = fprintf(out, "%-*s", KV_INDENT - 1, name);

	if (n >= KV_INDENT - 1) {
		fputc(' ', out);
		n++;
	} else {
		fputc(' ', out);
		n = KV_INDENT;
	}
	wrap(out, value, (unsigned)n, KV_INDENT);
}

static void kvf(FILE *out, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kvf(FILE *out, const char *name, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kv(out, name, buf);
}

/* The lines given for a free-text key run together into one wrapped paragraph; an empty
 * line starts a new paragraph. @dflt (may be NULL) when the key was not given. */
static void text(FILE *out, const struct desc *d, const char *name, const char *dflt)
{
	char para[4096];
	size_t len = 0;
	const char *v;
	unsigned i;

	for (i = 0; (v = desc_nth(d, name, i)) != NULL; i++) {
		if (!*v) {
			if (len)
				wrap(out, para, 0, 0);
			fputc('\n', out);
			len = 0;
			continue;
		}
		if (len < sizeof(para))
			len += (size_t)snprintf(para + len, sizeof(para) - len, "%s%s",
						len ? " " : "", v);
	}
	if (len)
		wrap(out, para, 0, 0);
	if (i == 0 && dflt)
		wrap(out, dflt, 0, 0);
}

/* A table: column headers, rows of cells, widths fitted to the longest cell. */
#define TAB_COLS 12
#define TAB_ROWS 64
#define TAB_CELL 160

struct table {
	unsigned ncols, nrows;
	const char *hdr[TAB_COLS];
	const char *align; /* per column: 'l' or 'r' */
	char cell[TAB_ROWS][TAB_COLS][TAB_CELL];
};

static struct table *table_new(const char *align, const char *const *hdr, unsigned ncols)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ncols = ncols;
	t->align = align;
	for (unsigned c = 0; c < ncols; c++)
		t->hdr[c] = hdr[c];
	return t;
}

/* Add a row from @ncells strings; missing cells are empty. */
static void table_row(struct table *t, const char *const *cells, unsigned ncells)
{
	if (t->nrows == TAB_ROWS)
		return;
	for (unsigned c = 0; c < t->ncols; c++)
		snprintf(t->cell[t->nrows][c], TAB_CELL, "%s", c < ncells ? cells[c] : "");
	t->nrows++;
}

/* Add a row from one '|'-separated string; cells are trimmed. */
static void table_row_split(struct table *t, const char *first, const char *bars)
{
	const char *cells[TAB_COLS];
	char buf[1024];
	unsigned n = 0;
	char *s = buf;

	if (first)
		cells[n++] = first;
	snprintf(buf, sizeof(buf), "%s", bars);
	while (n < TAB_COLS) {
		char *bar = strchr(s, '|');

		if (bar)
			*bar = '\0';
		cells[n++] = trim(s);
		if (!bar)
			break;
		s = bar + 1;
	}
	table_row(t, cells, n);
}

static void table_line(FILE *out, const struct table *t, const size_t *w, const char *const *c)
{
	for (unsigned k = 0; k < t->ncols; k++) {
		bool last = k + 1 == t->ncols;
		size_t cl = strlen(c[k]);

		if (k)
			fputs("  ", out);
		if (t->align[k] == 'r')
			fprintf(out, "%*s%s", (int)(w[k] - cl), "", c[k]);
		else if (last)
			fputs(c[k], out);
		else
			fprintf(out, "%s%*s", c[k], (int)(w[k] - cl), "");
	}
	fputc('\n', out);
}

static void table_print(FILE *out, struct table *t)
{
	size_t w[TAB_COLS];
	const char *c[TAB_COLS];

	for (unsigned k = 0; k < t->ncols; k++) {
		w[k] = strlen(t->hdr[k]);
		for (unsigned r = 0; r < t->nrows; r++)
			if (strlen(t->cell[r][k]) > w[k])
				w[k] = strlen(t->cell[r][k]);
	}
	table_line(out, t, w, t->hdr);
	for (unsigned k = 0; k < t->ncols; k++) {
		if (k)
			fputs("  ", out);
		for (size_t i = 0; i < w[k]; i++)
			fputc('-', out);
	}
	fputc('\n', out);
	for (unsigned r = 0; r < t->nrows; r++) {
		for (unsigned k = 0; k < t->ncols; k++)
			c[k] = t->cell[r][k];
		table_line(out, t, w, c);
	}
}

/* Print the rows given for table key @name under @hdr, item numbers first if @numbered;
 * with no rows, the @ndflt default rows (each '|'-separated), or "not stated". */
static void desc_table(FILE *out, const struct desc *d, const char *name, const char *align,
		       const char *const *hdr, unsigned ncols, bool numbered,
		       const char *const *dflt, unsigned ndflt)
{
	struct table *t = table_new(align, hdr, ncols);
	const char *v;
	unsigned i;
	char item[16];

	if (!t) {
		fputs("(out of memory)\n", out);
		return;
	}
	for (i = 0; (v = desc_nth(d, name, i)) != NULL || i < ndflt; i++) {
		if (!v)
			v = dflt[i];
		snprintf(item, sizeof(item), "%u", i + 1);
		table_row_split(t, numbered ? item : NULL, v);
	}
	if (i == 0)
		fputs(NOT_STATED "\n", out);
	else
		table_print(out, t);
	free(t);
}

/* ---- facts derived from the run ---- */

static bool host_is_loopback(const char *h)
{
	return strncmp(h, "127.", 4) == 0 || strcmp(h, "localhost") == 0 || strcmp(h, "::1") == 0;
}

/* True when every target is on this host, so host facts describe the server too. */
static bool server_is_local(const struct bench_run *run)
{
	if (run->ntargets == 0)
		return false;
	for (unsigned i = 0; i < run->ntargets && i < BENCH_MAX_TARGETS; i++)
		if (!host_is_loopback(run->targets[i].host))
			return false;
	return true;
}

static unsigned npoints(const struct bench_run *run)
{
	return run->npoints < BENCH_MAX_POINTS ? run->npoints : BENCH_MAX_POINTS;
}

static unsigned ntargets(const struct bench_run *run)
{
	return run->ntargets < BENCH_MAX_TARGETS ? run->ntargets : BENCH_MAX_TARGETS;
}

static double gib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

static const char *or_ns(const char *s)
{
	return s && *s ? s : NOT_STATED;
}

static const char *workload(const struct bench_run *run)
{
	return run->workload[0] ? run->workload : "SFS2008-NFSv3";
}

/* Distinct export paths among the targets. */
static unsigned nexports(const struct bench_run *run)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ntargets(run); i++) {
		unsigned j;

		for (j = 0; j < i; j++)
			if (strcmp(run->targets[i].export_path, run->targets[j].export_path) == 0)
				break;
		n += j == i;
	}
	return n;
}

static uint64_t run_errors(const struct bench_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < npoints(run); i++)
		n += run->points[i].total_errors;
	return n;
}

/* ---- the sections ---- */

static void title_block(FILE *out, const struct bench_run *run, const struct desc *d)
{
	int peak = bench_peak_index(run);

	fprintf(out, "shoal-bench %s Result\n", workload(run));
	rule(out, '=');
	fprintf(out, "%s : %s\n", desc_get(d, "Vendor", NOT_STATED),
		desc_get(d, "Product Name", or_ns(run->server_desc)));
	if (peak >= 0)
		fprintf(out, "%s = %.0f Ops/Sec (Overall Response Time = %.2f msec)\n",
			workload(run), run->peak_ops, run->ort_ms);
	else
		fprintf(out, "%s = no valid load point at or under %.0f msec\n", workload(run),
			BENCH_MAX_PEAK_MS);
	rule(out, '=');
}

static void fmt_cpu(char *buf, size_t size, double us)
{
	if (us < 0 || !isfinite(us))
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%.1f", us);
}

static void performance_ops(FILE *out, const struct bench_point *pt)
{
	static const char *const hdr[] = {"Op",		 "Target %", "Actual %", "Logical OK",
					  "Physical OK", "Errors",   "Mean ms",	 "Std dev ms",
					  "95% CI ms",	 "% time",   "p99 ms"};
	struct table *t = table_new("lrrrrrrrrrr", hdr, 11);
	char c[11][32];
	const char *cells[11];

	if (!t)
		return;
	for (unsigned k = 0; k < BENCH_MAX_OPS; k++) {
		const struct bench_op_stats *op = &pt->ops[k];

		if (!op->name[0] && !op->errors && !op->logical_ok)
			continue;
		snprintf(c[0], sizeof(c[0]), "%s", op->name[0] ? op->name : "?");
		snprintf(c[1], sizeof(c[1]), "%.1f", op->target_pct);
		snprintf(c[2], sizeof(c[2]), "%.1f", op->actual_pct);
		snprintf(c[3], sizeof(c[3]), "%" PRIu64, op->logical_ok);
		snprintf(c[4], sizeof(c[4]), "%" PRIu64, op->physical_ok);
		snprintf(c[5], sizeof(c[5]), "%" PRIu64, op->errors);
		snprintf(c[6], sizeof(c[6]), "%.3f", op->mean_ms);
		snprintf(c[7], sizeof(c[7]), "%.3f", op->stddev_ms);
		snprintf(c[8], sizeof(c[8]), "%.3f", op->ci95_ms);
		snprintf(c[9], sizeof(c[9]), "%.1f", op->pct_time);
		snprintf(c[10], sizeof(c[10]), "%.3f", op->p99_us / 1000.0);
		for (unsigned i = 0; i < 11; i++)
			cells[i] = c[i];
		table_row(t, cells, 11);
	}
	table_print(out, t);
	free(t);
}

void bench_report_threads(const struct bench_point *pt, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned k = 0; k < pt->nserver_threads && k < BENCH_MAX_THREAD_GROUPS && n < size;
	     k++) {
		int w = snprintf(buf + n, size - n, "%s %s %.1f", k ? "," : "",
				 pt->server_threads[k].name, pt->server_threads[k].cpu_us_per_op);

		if (w < 0)
			break;
		n += (size_t)w;
	}
}

/* The machine's CPUs over the peak's measured interval, when measured (bench_machine.h). */
static void machine_cpu(FILE *out, const struct bench_point *pt)
{
	char line[256];

	if (!bench_machine_known(pt))
		return;
	snprintf(line, sizeof(line),
		 "The machine's CPUs at the peak: %.1f%% busy, %.1f%% stolen by the "
		 "hypervisor, %.1f%% idle or waiting for I/O.",
		 pt->machine_busy_pct, pt->machine_steal_pct, pt->machine_idle_pct);
	wrap(out, line, 0, 4);
}

/* The peak's server CPU by thread group, when it was measured (bench_threads.h). */
static void thread_split(FILE *out, const struct bench_point *pt)
{
	char groups[400], line[512];

	if (!pt->nserver_threads)
		return;
	bench_report_threads(pt, groups, sizeof(groups));
	snprintf(line, sizeof(line), "Server CPU at the peak by thread group (us/op):%s.", groups);
	wrap(out, line, 0, 4);
}

static void performance(FILE *out, const struct bench_run *run)
{
	static const char *const hdr[] = {"Throughput", "Response",   "Requested",
					  "Errors",	"Server CPU", "Valid"};
	struct table *t = table_new("rrrrrl", hdr, 6);
	int peak = bench_peak_index(run);
	char c[6][32], cpu[32];
	const char *cells[6];

	section(out, "Performance");
	if (!t)
		return;
	for (unsigned i = 0; i < npoints(run); i++) {
		const struct bench_point *pt = &run->points[i];

		snprintf(c[0], sizeof(c[0]), "%.0f", pt->achieved_ops);
		snprintf(c[1], sizeof(c[1]), "%.2f", pt->mean_ms);
		snprintf(c[2], sizeof(c[2]), "%.0f", pt->requested_ops);
		snprintf(c[3], sizeof(c[3]), "%" PRIu64, pt->total_errors);
		fmt_cpu(c[4], sizeof(c[4]), pt->server_cpu_us_per_op);
		snprintf(c[5], sizeof(c[5]), "%s%s", pt->valid ? "yes" : "NO",
			 (int)i == peak ? " (peak)" : "");
		for (unsigned k = 0; k < 6; k++)
			cells[k] = c[k];
		table_row(t, cells, 6);
	}
	fputs("Throughput (ops/sec) achieved, Response (msec) mean, Requested (ops/sec),\n"
	      "Errors (operations answered with an error or lost), Server CPU (us/op)\n\n",
	      out);
	if (npoints(run))
		table_print(out, t);
	else
		fputs("(no load points)\n", out);
	free(t);

	for (unsigned i = 0; i < npoints(run); i++) {
		char line[320];

		if (run->points[i].valid)
			continue;
		snprintf(line, sizeof(line), "Point %u (requested %.0f ops/sec) is INVALID: %s",
			 i + 1, run->points[i].requested_ops, or_ns(run->points[i].invalid_reason));
		wrap(out, line, 0, 4);
	}
	if (run->settle_failed) {
		char line[320];

		snprintf(line, sizeof(line),
			 "The server was not brought to rest before the first point: %s",
			 run->settle);
		wrap(out, line, 0, 4);
	}
	fputc('\n', out);
	if (peak < 0) {
		fprintf(out, "No valid point with a mean response time at or under %.0f msec.\n",
			BENCH_MAX_PEAK_MS);
	} else {
		fmt_cpu(cpu, sizeof(cpu), run->points[peak].server_cpu_us_per_op);
		fprintf(out,
			"Peak %.0f ops/sec at %.2f msec (point %d); ORT %.2f msec; server CPU "
			"%s us/op at the peak.\n",
			run->peak_ops, run->points[peak].mean_ms, peak + 1, run->ort_ms, cpu);
		thread_split(out, &run->points[peak]);
		machine_cpu(out, &run->points[peak]);
	}
	fprintf(out, "Errors over all points: %" PRIu64 ".\n", run_errors(run));
	if (peak >= 0) {
		subsection(out, "Operations at the Peak Point");
		performance_ops(out, &run->points[peak]);
	}
}

static void product_info(FILE *out, const struct bench_run *run, const struct desc *d)
{
	section(out, "Product and Test Information");
	kv(out, "Tested By", desc_get(d, "Tested By", NOT_STATED));
	kv(out, "Product Name", desc_get(d, "Product Name", or_ns(run->server_desc)));
	kv(out, "Hardware Available", desc_get(d, "Hardware Available", NOT_STATED));
	kv(out, "Software Available", desc_get(d, "Software Available", NOT_STATED));
	kv(out, "Date Tested", or_ns(run->date));
	kv(out, "SFS License Number", "none (not a SPEC result)");
	kv(out, "Licensee Locations", desc_get(d, "Licensee Locations", NOT_STATED));
	fputc('\n', out);
	text(out, d, "Description", "The system under test was not described.");
}

static void bom(FILE *out, const struct desc *d)
{
	static const char *const hdr[] = {"Item No", "Qty",	   "Type",
					  "Vendor",  "Model/Name", "Description"};

	section(out, "Configuration Bill of Materials");
	desc_table(out, d, "BOM", "rrllll", hdr, 6, true, NULL, 0);
}

static void server_software(FILE *out, const struct bench_run *run, const struct desc *d)
{
	bool local = server_is_local(run);

	section(out, "Server Software");
	kv(out, "OS Name and Version",
	   desc_get(d, "OS Name and Version", local ? or_ns(run->host_os) : NOT_STATED));
	kv(out, "Other Software", desc_get(d, "Other Software", or_ns(run->server_desc)));
	kv(out, "Filesystem Software", desc_get(d, "Filesystem Software", NOT_STATED));
}

static void server_tuning(FILE *out, const struct desc *d)
{
	static const char *const hdr[] = {"Name", "Value", "Description"};

	section(out, "Server Tuning");
	desc_table(out, d, "Server Tuning", "lll", hdr, 3, false, NULL, 0);
	subsection(out, "Server Tuning Notes");
	text(out, d, "Server Tuning Notes", "None");
}

static void disks(FILE *out, const struct bench_run *run, const struct desc *d)
{
	static const char *const hdr[] = {"Description", "Number of Disks", "Usable Size"};
	char n[16];

	section(out, "Disks and Filesystems");
	desc_table(out, d, "Disk", "lrr", hdr, 3, false, NULL, 0);
	fputc('\n', out);
	snprintf(n, sizeof(n), "%u", nexports(run));
	kv(out, "Number of Filesystems", desc_get(d, "Number of Filesystems", n));
	kv(out, "Total Exported Capacity", desc_get(d, "Total Exported Capacity", NOT_STATED));
	kv(out, "Filesystem Type", desc_get(d, "Filesystem Type", NOT_STATED));
	kv(out, "Filesystem Creation Options",
	   desc_get(d, "Filesystem Creation Options", NOT_STATED));
	kv(out, "Filesystem Config", desc_get(d, "Filesystem Config", NOT_STATED));
	kvf(out, "Fileset Size", "%.1f GB", gib(run->fileset_bytes));
	if (desc_nth(d, "Filesystem Notes", 0))
		fputc('\n', out);
	text(out, d, "Filesystem Notes", NULL);
}

static void network(FILE *out, const struct bench_run *run, const struct desc *d)
{
	static const char *const hdr[] = {"Item No", "Network Type", "Number of Ports Used",
					  "Notes"};
	static const char *const lo[] = {"loopback | 1 | load generator and server on one host"};
	bool local = server_is_local(run);

	section(out, "Network Configuration");
	desc_table(out, d, "Network", "rlrl", hdr, 4, true, lo, local ? 1 : 0);
	subsection(out, "Network Configuration Notes");
	text(out, d, "Network Configuration Notes", "None");
	section(out, "Benchmark Network");
	text(out, d, "Benchmark Network",
	     local ? "The load generator and the server ran on the same host and talked over "
		     "the loopback interface."
		   : NOT_STATED);
}

static void processing(FILE *out, const struct bench_run *run, const struct desc *d)
{
	static const char *const hdr[] = {"Item No", "Qty", "Type", "Description",
					  "Processing Function"};
	char row[256];
	const char *dflt[] = {row};

	snprintf(row, sizeof(row), "%u | CPU | %s | NFS server and load generator (one host)",
		 run->host_cpus, or_ns(run->host_cpu));
	section(out, "Processing Elements");
	desc_table(out, d, "Processing Element", "rrlll", hdr, 5, true, dflt,
		   server_is_local(run) ? 1 : 0);
	subsection(out, "Processing Element Notes");
	text(out, d, "Processing Element Notes",
	     server_is_local(run) ? "Qty counts logical CPUs as the operating system reports "
				    "them; the server and the load generator shared them."
				  : "None");
}

static void memory(FILE *out, const struct bench_run *run, const struct desc *d)
{
	static const char *const hdr[] = {"Description", "Size in GB", "Number of Instances",
					  "Total GB", "Nonvolatile"};
	struct table *t = table_new("lrrrl", hdr, 5);
	char dflt[256], tot[32], grand[32];
	const char *v;
	double sum = 0;
	bool all = true;
	unsigned i;

	section(out, "Memory");
	if (!t)
		return;
	snprintf(dflt, sizeof(dflt),
		 "Host main memory (shared with the load generator) | %.1f | "
		 "1 | V",
		 gib(run->host_mem_bytes));
	for (i = 0; (v = desc_nth(d, "Memory", i)) != NULL || (i == 0 && server_is_local(run));
	     i++) {
		char buf[512], *cell[4], *s = buf;
		double size, inst;

		snprintf(buf, sizeof(buf), "%s", v ? v : dflt);
		for (unsigned k = 0; k < 4; k++) {
			char *bar = strchr(s, '|');

			if (bar)
				*bar = '\0';
			cell[k] = trim(s);
			s = bar ? bar + 1 : s + strlen(s);
		}
		size = strtod(cell[1], NULL);
		inst = strtod(cell[2], NULL);
		if (size > 0 && inst > 0) {
			snprintf(tot, sizeof(tot), "%g", size * inst);
			sum += size * inst;
		} else {
			snprintf(tot, sizeof(tot), "?");
			all = false;
		}
		table_row(t, (const char *const[]){cell[0], cell[1], cell[2], tot, cell[3]}, 5);
	}
	if (i == 0) {
		fputs(NOT_STATED "\n", out);
	} else {
		table_print(out, t);
		snprintf(grand, sizeof(grand), all ? "%g" : "%g (rows marked ? not counted)", sum);
		fputc('\n', out);
		kv(out, "Grand Total Memory Gigabytes", grand);
	}
	free(t);
	subsection(out, "Memory Notes");
	text(out, d, "Memory Notes", "None");
}

static void stable_storage(FILE *out, const struct bench_run *run, const struct desc *d)
{
	section(out, "Stable Storage");
	text(out, d, "Stable Storage", "How stable writes reach stable storage was not stated.");
	fputc('\n', out);
	if (run->write_stability[0])
		fprintf(out, "shoal-bench issued its WRITEs as %s.\n", run->write_stability);
}

static void sut_notes(FILE *out, const struct desc *d)
{
	section(out, "System Under Test Configuration Notes");
	text(out, d, "System Under Test Configuration Notes", "None");
	section(out, "Other System Notes");
	text(out, d, "Other System Notes", "None");
}

static void test_env_bom(FILE *out, const struct desc *d)
{
	static const char *const hdr[] = {"Item No", "Qty", "Vendor", "Model/Name", "Description"};
	static const char *const dflt[] = {"1 | " NOT_STATED " | " NOT_STATED
					   " | load generator running shoal-bench"};

	section(out, "Test Environment Bill of Materials");
	desc_table(out, d, "Test Environment BOM", "rrlll", hdr, 5, true, dflt, 1);
}

static void load_generators(FILE *out, const struct bench_run *run, const struct desc *d)
{
	section(out, "Load Generators");
	kv(out, "LG Type Name", "LG1");
	kv(out, "BOM Item #", "1");
	kv(out, "Processor Name", or_ns(run->host_cpu));
	kv(out, "Processor Speed", desc_get(d, "LG Processor Speed", NOT_STATED));
	kv(out, "Number of Processors (chips)", desc_get(d, "LG Processors", NOT_STATED));
	kv(out, "Number of Cores/Chip", desc_get(d, "LG Cores per Chip", NOT_STATED));
	kvf(out, "Logical CPUs", "%u", run->host_cpus);
	kvf(out, "Memory Size", "%.1f GB", gib(run->host_mem_bytes));
	kv(out, "Operating System", or_ns(run->host_os));
	kv(out, "Network Type",
	   desc_get(d, "LG Network Type", server_is_local(run) ? "loopback" : NOT_STATED));
}

static void benchmark_parameters(FILE *out, const struct bench_run *run)
{
	const struct bench_point *p0 = npoints(run) ? &run->points[0] : NULL;

	section(out, "Load Generator (LG) Configuration");
	underlined(out, "Benchmark Parameters", '-');
	kv(out, "Network Attached Storage Type", "NFS V3");
	kv(out, "Number of Load Generators", "1");
	kvf(out, "Number of Processes per LG", "%" PRIu32, run->load_procs);
	kvf(out, "Biod Max Read Setting", "%" PRIu32, run->calls_in_flight);
	kvf(out, "Biod Max Write Setting", "%" PRIu32, run->calls_in_flight);
	kvf(out, "Block Size", "%" PRIu32 " bytes (negotiated)", run->transfer_size);
	kvf(out, "Warm-up Time per Point", "%.0f s", p0 ? p0->warmup_s : 0.0);
	kvf(out, "Run Time per Point", "%.0f s", p0 ? p0->measured_s : 0.0);
	kvf(out, "Working Set", "%g%% of the I/O files", run->working_set_pct);
	kvf(out, "Appends", "%g%% of WRITEs", run->append_pct);
	kv(out, "Write Stability", or_ns(run->write_stability));
	kv(out, "Call Pacing", or_ns(run->call_pacing));
	kv(out, "Random Seed", or_ns(run->seed));
	kv(out, "Client Credential", or_ns(run->credential));
	kv(out, "Peak Load Point", or_ns(run->ladder_top));
	kv(out, "Before the First Point", or_ns(run->settle));
	kvf(out, "Fileset",
	    "%" PRIu64 " bytes: %" PRIu64 " I/O files, %" PRIu64 " non-I/O files, %" PRIu64
	    " directories, %" PRIu64 " symlinks",
	    run->fileset_bytes, run->io_files, run->nonio_files, run->dirs, run->symlinks);
}

static void testbed(FILE *out, const struct bench_run *run, const struct desc *d)
{
	static const char *const hdr[] = {"LG No", "LG Type", "Network", "Target Filesystems",
					  "Notes"};
	struct table *t = table_new("rllll", hdr, 5);
	char targets[1024] = "";
	size_t len = 0;

	subsection(out, "Testbed Configuration");
	if (!t)
		return;
	for (unsigned i = 0; i < ntargets(run) && len < sizeof(targets); i++)
		len += (size_t)snprintf(targets + len, sizeof(targets) - len, "%s%s:%s",
					i ? "," : "", run->targets[i].host,
					run->targets[i].export_path);
	table_row(t, (const char *const[]){"1", "LG1", "1", or_ns(targets), "N/A"}, 5);
	table_print(out, t);
	free(t);
	subsection(out, "Load Generator Configuration Notes");
	text(out, d, "Load Generator Configuration Notes", "None");
}

static void uar(FILE *out, const struct bench_run *run, const struct desc *d)
{
	section(out, "Uniform Access Rule Compliance");
	fprintf(out,
		"Each of the %" PRIu32 " load processes had its own connection. Processes "
		"per target:\n",
		run->load_procs);
	for (unsigned i = 0; i < ntargets(run); i++)
		fprintf(out, "  %s:%s  %" PRIu32 " processes\n", run->targets[i].host,
			run->targets[i].export_path, run->targets[i].procs);
	if (ntargets(run) == 0)
		fputs("  (no targets recorded)\n", out);
	if (desc_nth(d, "Uniform Access Rule Compliance", 0))
		fputc('\n', out);
	text(out, d, "Uniform Access Rule Compliance", NULL);
}

/* Every error, per point and operation: the report never hides one. Returns the number
 * of lines printed. */
static unsigned error_notes(FILE *out, const struct bench_run *run)
{
	unsigned lines = 0;

	for (unsigned i = 0; i < npoints(run); i++) {
		const struct bench_point *pt = &run->points[i];

		if (!pt->total_errors)
			continue;
		fprintf(out, "Point %u (requested %.0f ops/sec): %" PRIu64 " errors", i + 1,
			pt->requested_ops, pt->total_errors);
		for (unsigned k = 0; k < BENCH_MAX_OPS; k++)
			if (pt->ops[k].errors)
				fprintf(out, ", %s %" PRIu64,
					pt->ops[k].name[0] ? pt->ops[k].name : "?",
					pt->ops[k].errors);
		fputs(".\n", out);
		lines++;
	}
	return lines;
}

static void other_notes(FILE *out, const struct bench_run *run, const struct desc *d)
{
	section(out, "Other Notes");
	text(out, d, "Other Notes", NULL);
	if (desc_nth(d, "Other Notes", 0))
		fputc('\n', out);
	if (error_notes(out, run))
		fputc('\n', out);
	wrap(out,
	     "Not a SPEC result: shoal-bench re-creates the SPECsfs2008 NFSv3 workload from "
	     "public material, and its figures are not comparable with results published by "
	     "SPEC. The peak is the highest achieved throughput of a valid point with a mean "
	     "response time at or under 20 msec; the Overall Response Time is the area under "
	     "the throughput/response curve from the origin up to the peak, divided by the peak "
	     "throughput. Server CPU is the user and system time of the server's processes "
	     "(from /proc) over each measured interval, per operation.",
	     0, 0);
}

int bench_report_text(const struct bench_run *run, const char *desc_path, FILE *out)
{
	struct desc d = {0};

	if (desc_read(&d, desc_path) < 0) {
		desc_free(&d);
		return -1;
	}
	title_block(out, run, &d);
	performance(out, run);
	product_info(out, run, &d);
	bom(out, &d);
	server_software(out, run, &d);
	server_tuning(out, &d);
	disks(out, run, &d);
	network(out, run, &d);
	processing(out, run, &d);
	memory(out, run, &d);
	stable_storage(out, run, &d);
	sut_notes(out, &d);
	test_env_bom(out, &d);
	load_generators(out, run, &d);
	benchmark_parameters(out, run);
	testbed(out, run, &d);
	uar(out, run, &d);
	other_notes(out, run, &d);
	fputc('\n', out);
	rule(out, '=');
	fprintf(out, "Generated on %s by shoal-bench\n", or_ns(run->date));
	desc_free(&d);
	return ferror(out) ? -1 : 0;
}
