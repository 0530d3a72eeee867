/*
 * bench_json.c - write a struct bench_run as JSON and read it back strictly.
 *
 * Both directions walk the same field tables, so the writer and the reader cannot drift
 * apart. The reader is a small recursive-descent parser for RFC 8259 JSON restricted to
 * the shape we write: every value is checked against the field it lands in, and any
 * malformed, truncated, oversized or mistyped input is refused with the byte offset. A
 * member it does not know (one a later shoal-bench added) is checked and skipped.
 */
#include "bench_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Largest file bench_json_read() accepts: a full run is well under 1 MiB. */
#define JSON_MAX_FILE (16u << 20)

enum jf_type { JF_STR, JF_U32, JF_U64, JF_DBL, JF_BOOL };

struct jfield {
	const char *key;
	enum jf_type type;
	size_t off, size;
};

#define JF(T, ty, m)                                                                               \
	{                                                                                          \
#m, ty, offsetof(T, m), sizeof(((T *)0)->m)                                        \
	}

static const struct jfield run_fields[] = {
	JF(struct bench_run, JF_STR, label),
	JF(struct bench_run, JF_STR, server_desc),
	JF(struct bench_run, JF_STR, workload),
	JF(struct bench_run, JF_STR, date),
	JF(struct bench_run, JF_U32, load_procs),
	JF(struct bench_run, JF_U32, calls_in_flight),
	JF(struct bench_run, JF_U32, transfer_size),
	JF(struct bench_run, JF_U64, fileset_bytes),
	JF(struct bench_run, JF_U64, io_files),
	JF(struct bench_run, JF_U64, nonio_files),
	JF(struct bench_run, JF_U64, dirs),
	JF(struct bench_run, JF_U64, symlinks),
	JF(struct bench_run, JF_DBL, working_set_pct),
	JF(struct bench_run, JF_DBL, append_pct),
	JF(struct bench_run, JF_STR, write_stability),
	JF(struct bench_run, JF_STR, call_pacing),
	JF(struct bench_run, JF_STR, seed),
	JF(struct bench_run, JF_STR, credential),
	JF(struct bench_run, JF_STR, settle),
	JF(struct bench_run, JF_BOOL, settle_failed),
	JF(struct bench_run, JF_STR, ladder_top),
	JF(struct bench_run, JF_DBL, peak_ops),
	JF(struct bench_run, JF_DBL, ort_ms),
	JF(struct bench_run, JF_STR, host_os),
	JF(struct bench_run, JF_STR, host_cpu),
	JF(struct bench_run, JF_U32, host_cpus),
	JF(struct bench_run, JF_U64, host_mem_bytes),
};

static const struct jfield target_fields[] = {
	JF(struct bench_target, JF_STR, host),
	JF(struct bench_target, JF_STR, export_path),
	JF(struct bench_target, JF_U32, procs),
};

static const struct jfield point_fields[] = {
	JF(struct bench_point, JF_DBL, requested_ops),
	JF(struct bench_point, JF_DBL, achieved_ops),
	JF(struct bench_point, JF_DBL, mean_ms),
	JF(struct bench_point, JF_DBL, measured_s),
	JF(struct bench_point, JF_DBL, warmup_s),
	JF(struct bench_point, JF_U64, total_ops),
	JF(struct bench_point, JF_U64, total_errors),
	JF(struct bench_point, JF_BOOL, valid),
	JF(struct bench_point, JF_STR, invalid_reason),
	JF(struct bench_point, JF_DBL, client_cpu_us_per_op),
	JF(struct bench_point, JF_DBL, server_cpu_us_per_op),
	JF(struct bench_point, JF_DBL, machine_busy_pct),
	JF(struct bench_point, JF_DBL, machine_steal_pct),
	JF(struct bench_point, JF_DBL, machine_idle_pct),
};

static const struct jfield op_fields[] = {
	JF(struct bench_op_stats, JF_STR, name),
	JF(struct bench_op_stats, JF_DBL, target_pct),
	JF(struct bench_op_stats, JF_DBL, actual_pct),
	JF(struct bench_op_stats, JF_U64, logical_ok),
	JF(struct bench_op_stats, JF_U64, physical_ok),
	JF(struct bench_op_stats, JF_U64, errors),
	JF(struct bench_op_stats, JF_DBL, mean_ms),
	JF(struct bench_op_stats, JF_DBL, stddev_ms),
	JF(struct bench_op_stats, JF_DBL, ci95_ms),
	JF(struct bench_op_stats, JF_DBL, pct_time),
	JF(struct bench_op_stats, JF_DBL, p50_us),
	JF(struct bench_op_stats, JF_DBL, p90_us),
	JF(struct bench_op_stats, JF_DBL, p99_us),
	JF(struct bench_op_stats, JF_DBL, p999_us),
	JF(struct bench_op_stats, JF_DBL, max_us),
};

static const struct jfield thread_fields[] = {
	JF(struct bench_thread_cpu, JF_STR, name),
	JF(struct bench_thread_cpu, JF_DBL, cpu_us_per_op),
};

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

/* ---- writer ---- */

static void jw_str(FILE *out, const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* The shortest %g form that strtod() turns back into exactly @v. */
static void jw_dbl(FILE *out, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		fputs("null", out);
		return;
	}
	if (v == (double)(long long)v && v > -1e15 && v < 1e15) {
		fprintf(out, "%.0f", v); /* whole numbers without an exponent */
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, out);
}

static void jw_value(FILE *out, const struct jfield *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	uint32_t u32;
	uint64_t u64;
	double d;
	bool b;

	switch (f->type) {
	case JF_STR:
		jw_str(out, p, f->size);
		break;
	case JF_U32:
		memcpy(&u32, p, sizeof(u32));
		fprintf(out, "%" PRIu32, u32);
		break;
	case JF_U64:
		memcpy(&u64, p, sizeof(u64));
		fprintf(out, "%" PRIu64, u64);
		break;
	case JF_DBL:
		memcpy(&d, p, sizeof(d));
		jw_dbl(out, d);
		break;
	case JF_BOOL:
		memcpy(&b, p, sizeof(b));
		fputs(b ? "true" : "false", out);
		break;
	}
}

/* Write the fields of @tab as "key": value pairs, the first preceded by @first and
 * each other one by @sep. */
static void jw_fields(FILE *out, const struct jfield *tab, size_t n, const void *base,
		      const char *first, const char *sep)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s\"%s\": ", i ? sep : first, tab[i].key);
		jw_value(out, &tab[i], base);
	}
}

/* @n, or @max if it is larger: a count from the struct never indexes past its array. */
static unsigned bounded(uint32_t n, unsigned max)
{
	if (n > max)
		return max;
	return n;
}

static bool op_is_empty(const struct bench_op_stats *op)
{
	static const struct bench_op_stats zero;

	return memcmp(op, &zero, sizeof(zero)) == 0;
}

static void jw_point(FILE *out, const struct bench_point *pt)
{
	bool first = true;

	jw_fields(out, point_fields, NFIELDS(point_fields), pt, "\t\t{\n\t\t\t", ",\n\t\t\t");
	fputs(",\n\t\t\t\"ops\": [", out);
	for (unsigned k = 0; k < BENCH_MAX_OPS; k++) {
		if (op_is_empty(&pt->ops[k]))
			continue;
		fprintf(out, "%s\n\t\t\t\t{\"proc\": %u", first ? "" : ",", k);
		jw_fields(out, op_fields, NFIELDS(op_fields), &pt->ops[k], ", ", ", ");
		fputc('}', out);
		first = false;
	}
	fputs(first ? "]" : "\n\t\t\t]", out);
	/* Only when measured, so a run without it reads as before it existed. */
	for (unsigned k = 0; k < bounded(pt->nserver_threads, BENCH_MAX_THREAD_GROUPS); k++) {
		fputs(k ? ",\n\t\t\t\t{" : ",\n\t\t\t\"server_threads\": [\n\t\t\t\t{", out);
		jw_fields(out, thread_fields, NFIELDS(thread_fields), &pt->server_threads[k], "",
			  ", ");
		fputc('}', out);
	}
	fputs(pt->nserver_threads ? "\n\t\t\t]\n\t\t}" : "\n\t\t}", out);
}

int bench_json_write(const struct bench_run *run, FILE *out)
{
	unsigned nt = bounded(run->ntargets, BENCH_MAX_TARGETS);
	unsigned np = bounded(run->npoints, BENCH_MAX_POINTS);

	fputs("{\n\t\"format\": \"" BENCH_JSON_FORMAT "\"", out);
	jw_fields(out, run_fields, NFIELDS(run_fields), run, ",\n\t", ",\n\t");
	fputs(",\n\t\"targets\": [", out);
	for (unsigned i = 0; i < nt; i++) {
		fputs(i ? ",\n\t\t{" : "\n\t\t{", out);
		jw_fields(out, target_fields, NFIELDS(target_fields), &run->targets[i], "", ", ");
		fputc('}', out);
	}
	fputs(nt ? "\n\t],\n\t\"points\": [" : "],\n\t\"points\": [", out);
	for (unsigned i = 0; i < np; i++) {
		fputs(i ? ",\n" : "\n", out);
		jw_point(out, &run->points[i]);
	}
	fputs(np ? "\n\t]\n}\n" : "]\n}\n", out);
	return ferror(out) ? -1 : 0;
}

/* ---- reader ---- */

struct jp {
	const char *start, *p, *end;
	char *err;
	size_t errlen;
	bool failed;
};

/* Record the first error with the offset it was found at; always returns false. */
static bool jp_fail(struct jp *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool jp_fail(struct jp *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (j->failed || !j->errlen)
		goto out;
	n = snprintf(j->err, j->errlen, "byte %td: ", j->p - j->start);
	if (n >= 0 && (size_t)n < j->errlen) {
		va_start(ap, fmt);
		vsnprintf(j->err + n, j->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
out:
	j->failed = true;
	return false;
}

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* Skip white space, then consume @c or fail. */
static bool jp_expect(struct jp *j, char c)
{
	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "unexpected end of input, expected '%c'", c);
	if (*j->p != c)
		return jp_fail(j, "expected '%c'", c);
	j->p++;
	return true;
}

/* After a member or element: consume ',' (true, *more set) or @close (true, *more clear). */
static bool jp_next(struct jp *j, char close, bool *more)
{
	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "unexpected end of input, expected ',' or '%c'", close);
	if (*j->p != ',' && *j->p != close)
		return jp_fail(j, "expected ',' or '%c'", close);
	*more = *j->p++ == ',';
	return true;
}

/* Consume '@open' and report whether the container is empty (its close consumed). */
static bool jp_open(struct jp *j, char open, char close, bool *empty)
{
	if (!jp_expect(j, open))
		return false;
	jp_ws(j);
	*empty = j->p < j->end && *j->p == close;
	if (*empty)
		j->p++;
	return true;
}

static int jp_hex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Decode a \uXXXX escape (with its low surrogate, if any) at j->p, just past the 'u'. */
static bool jp_unicode(struct jp *j, uint32_t *cp)
{
	int hi, lo;

	if (j->end - j->p < 4 || (hi = jp_hex4(j->p)) < 0)
		return jp_fail(j, "bad \\u escape");
	j->p += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return jp_fail(j, "lone low surrogate");
	if (hi < 0xd800 || hi > 0xdbff) {
		*cp = (uint32_t)hi;
		return true;
	}
	if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
	    (lo = jp_hex4(j->p + 2)) < 0xdc00 || lo > 0xdfff)
		return jp_fail(j, "high surrogate without its low half");
	j->p += 6;
	*cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
	return true;
}

/* Append @cp as UTF-8 to @buf (@size bytes, *n used, room kept for the NUL); with @buf
 * NULL, only check it. */
static bool jp_put_utf8(struct jp *j, char *buf, size_t size, size_t *n, uint32_t cp)
{
	unsigned char u[4];
	size_t k;

	if (cp == 0)
		return jp_fail(j, "NUL character in string");
	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (!buf)
		return true;
	if (*n + k >= size)
		return jp_fail(j, "string longer than its field (%zu bytes)", size - 1);
	memcpy(buf + *n, u, k);
	*n += k;
	return true;
}

/* Parse a string into @buf of @size bytes (NUL-terminated); fails if it does not fit.
 * With @buf NULL the string is checked and dropped, whatever its length. */
static bool jp_string(struct jp *j, char *buf, size_t size)
{
	size_t n = 0;
	uint32_t cp = 0;

	if (!jp_expect(j, '"'))
		return false;
	for (;;) {
		unsigned char c;

		if (j->p >= j->end)
			return jp_fail(j, "unterminated string");
		c = (unsigned char)*j->p++;
		if (c == '"')
			break;
		if (c < 0x20)
			return jp_fail(j, "control character in string");
		if (c != '\\') {
			if (!buf)
				continue;
			if (n + 1 >= size)
				return jp_fail(j, "string longer than its field (%zu bytes)",
					       size - 1);
			buf[n++] = (char)c;
			continue;
		}
		if (j->p >= j->end)
			return jp_fail(j, "unterminated string");
		switch (*j->p++) {
		case '"':
			cp = '"';
			break;
		case '\\':
			cp = '\\';
			break;
		case '/':
			cp = '/';
			break;
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			if (!jp_unicode(j, &cp))
				return false;
			break;
		default:
			j->p--;
			return jp_fail(j, "bad escape in string");
		}
		if (!jp_put_utf8(j, buf, size, &n, cp))
			return false;
	}
	if (buf)
		buf[n] = '\0';
	return true;
}

/* Measure a JSON number at j->p (RFC 8259 grammar); returns its length or 0. */
static size_t jp_number_len(const struct jp *j)
{
	const char *s = j->p, *e = j->end;

	if (s < e && *s == '-')
		s++;
	if (s < e && *s == '0')
		s++;
	else if (s < e && *s >= '1' && *s <= '9')
		while (s < e && *s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (s < e && *s == '.') {
		if (++s >= e || *s < '0' || *s > '9')
			return 0;
		while (s < e && *s >= '0' && *s <= '9')
			s++;
	}
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			s++;
		if (s >= e || *s < '0' || *s > '9')
			return 0;
		while (s < e && *s >= '0' && *s <= '9')
			s++;
	}
	return (size_t)(s - j->p);
}

static bool jp_literal(struct jp *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
		return false;
	j->p += n;
	return true;
}

static bool jp_double(struct jp *j, double *v)
{
	char tok[64];
	size_t n;

	jp_ws(j);
	if (jp_literal(j, "null")) {
		*v = NAN;
		return true;
	}
	n = jp_number_len(j);
	if (n == 0)
		return jp_fail(j, "expected a number");
	if (n >= sizeof(tok))
		return jp_fail(j, "number too long");
	memcpy(tok, j->p, n);
	tok[n] = '\0';
	*v = strtod(tok, NULL);
	if (!isfinite(*v))
		return jp_fail(j, "number out of range");
	j->p += n;
	return true;
}

static bool jp_uint(struct jp *j, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	const char *s;

	jp_ws(j);
	s = j->p;
	if (s >= j->end || *s < '0' || *s > '9')
		return jp_fail(j, "expected an unsigned integer");
	if (*s == '0' && s + 1 < j->end && s[1] >= '0' && s[1] <= '9')
		return jp_fail(j, "leading zero");
	while (s < j->end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (x > (max - d) / 10)
			return jp_fail(j, "integer out of range");
		x = x * 10 + d;
		s++;
	}
	if (s < j->end && (*s == '.' || *s == 'e' || *s == 'E'))
		return jp_fail(j, "expected an unsigned integer");
	j->p = s;
	*v = x;
	return true;
}

static bool jp_value(struct jp *j, const struct jfield *f, void *base)
{
	char *p = (char *)base + f->off;
	uint64_t u = 0;
	double d = 0;
	bool b;

	switch (f->type) {
	case JF_STR:
		return jp_string(j, p, f->size);
	case JF_U32:
		if (!jp_uint(j, UINT32_MAX, &u))
			return false;
		memcpy(p, &(uint32_t){(uint32_t)u}, sizeof(uint32_t));
		return true;
	case JF_U64:
		if (!jp_uint(j, UINT64_MAX, &u))
			return false;
		memcpy(p, &u, sizeof(u));
		return true;
	case JF_DBL:
		if (!jp_double(j, &d))
			return false;
		memcpy(p, &d, sizeof(d));
		return true;
	case JF_BOOL:
		jp_ws(j);
		if (jp_literal(j, "true"))
			b = true;
		else if (jp_literal(j, "false"))
			b = false;
		else
			return jp_fail(j, "expected true or false");
		memcpy(p, &b, sizeof(b));
		return true;
	}
	return jp_fail(j, "internal: bad field type");
}

/* How deep a member this reader does not know may nest its arrays and objects. */
#define JSON_SKIP_DEPTH 16

/*
 * Check and pass over one value of any type at j->p: a member a later shoal-bench added
 * (see bench_json.h). It must still be well-formed JSON, nested at most @depth deep.
 */
static bool jp_skip(struct jp *j, unsigned depth)
{
	bool empty, more = true;
	char close;
	size_t n;

	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "unexpected end of input, expected a value");
	switch (*j->p) {
	case '"':
		return jp_string(j, NULL, 0);
	case '{':
	case '[':
		close = *j->p == '{' ? '}' : ']';
		if (depth == 0)
			return jp_fail(j, "unknown member nested deeper than %d", JSON_SKIP_DEPTH);
		if (!jp_open(j, *j->p, close, &empty))
			return false;
		while (!empty && more) {
			if (close == '}' && (!jp_string(j, NULL, 0) || !jp_expect(j, ':')))
				return false;
			if (!jp_skip(j, depth - 1) || !jp_next(j, close, &more))
				return false;
		}
		return true;
	default:
		if (jp_literal(j, "true") || jp_literal(j, "false") || jp_literal(j, "null"))
			return true;
		n = jp_number_len(j);
		if (n == 0)
			return jp_fail(j, "expected a value");
		j->p += n;
		return true;
	}
}

/*
 * One JSON object whose members are the fields of @tab stored into @base, plus the
 * members @extra handles (it returns 1 if it knew the key, 0 if not, -1 on error).
 * A repeated key is an error; an unknown one is checked and skipped.
 */
typedef int (*jp_extra_fn)(struct jp *j, const char *key, void *base, void *ctx);

static bool jp_object(struct jp *j, const struct jfield *tab, size_t n, void *base,
		      jp_extra_fn extra, void *ctx)
{
	uint64_t seen = 0;
	bool empty, more = true;
	char key[64];

	if (!jp_open(j, '{', '}', &empty))
		return false;
	if (empty)
		return true;
	while (more) {
		const char *at;
		size_t i;
		int r;

		jp_ws(j);
		at = j->p;
		if (!jp_string(j, key, sizeof(key)) || !jp_expect(j, ':'))
			return false;
		for (i = 0; i < n && strcmp(tab[i].key, key) != 0; i++)
			;
		if (i < n) {
			if (seen & (1ull << i)) {
				j->p = at;
				return jp_fail(j, "repeated key \"%s\"", key);
			}
			seen |= 1ull << i;
			if (!jp_value(j, &tab[i], base))
				return false;
		} else {
			r = extra ? extra(j, key, base, ctx) : 0;
			if (r < 0 || (r == 0 && !jp_skip(j, JSON_SKIP_DEPTH)))
				return false;
		}
		if (!jp_next(j, '}', &more))
			return false;
	}
	return true;
}

/* Parse an array whose elements @elem parses, at most @max of them; count in *n. */
static bool jp_array(struct jp *j, unsigned max, unsigned *n,
		     bool (*elem)(struct jp *j, unsigned i, void *base), void *base)
{
	bool empty, more = true;

	if (!jp_open(j, '[', ']', &empty))
		return false;
	*n = 0;
	if (empty)
		return true;
	while (more) {
		jp_ws(j);
		if (*n >= max)
			return jp_fail(j, "more than %u elements", max);
		if (!elem(j, *n, base))
			return false;
		(*n)++;
		if (!jp_next(j, ']', &more))
			return false;
	}
	return true;
}

/* Tracks the keys an object has that are not in its field table. */
struct jp_seen {
	bool format, targets, points, ops, proc, threads;
	uint64_t proc_val;
};

static int jp_once(struct jp *j, bool *flag, const char *key)
{
	if (*flag) {
		jp_fail(j, "repeated key \"%s\"", key);
		return -1;
	}
	*flag = true;
	return 1;
}

static int op_extra(struct jp *j, const char *key, void *base, void *ctx)
{
	struct jp_seen *s = ctx;

	(void)base;
	if (strcmp(key, "proc") != 0)
		return 0;
	if (jp_once(j, &s->proc, key) < 0)
		return -1;
	return jp_uint(j, BENCH_MAX_OPS - 1, &s->proc_val) ? 1 : -1;
}

static bool op_elem(struct jp *j, unsigned i, void *base)
{
	struct bench_point *pt = base;
	struct bench_op_stats op = {0};
	struct jp_seen s = {0};
	const char *at = j->p;

	(void)i;
	if (!jp_object(j, op_fields, NFIELDS(op_fields), &op, op_extra, &s))
		return false;
	if (s.proc && op_is_empty(&pt->ops[s.proc_val]) && !op_is_empty(&op)) {
		pt->ops[s.proc_val] = op;
		return true;
	}
	j->p = at; /* point the error at the start of the entry */
	if (!s.proc)
		return jp_fail(j, "operation without \"proc\"");
	if (!op_is_empty(&op))
		return jp_fail(j, "procedure %" PRIu64 " given twice", s.proc_val);
	return jp_fail(j, "operation entry with nothing in it");
}

static bool thread_elem(struct jp *j, unsigned i, void *base)
{
	struct bench_point *pt = base;
	const char *at = j->p;

	if (!jp_object(j, thread_fields, NFIELDS(thread_fields), &pt->server_threads[i], NULL,
		       NULL))
		return false;
	if (pt->server_threads[i].name[0])
		return true;
	j->p = at;
	return jp_fail(j, "thread group without a name");
}

static int point_extra(struct jp *j, const char *key, void *base, void *ctx)
{
	struct bench_point *pt = base;
	struct jp_seen *s = ctx;
	unsigned n;

	if (strcmp(key, "server_threads") == 0) {
		if (jp_once(j, &s->threads, key) < 0)
			return -1;
		return jp_array(j, BENCH_MAX_THREAD_GROUPS, &pt->nserver_threads, thread_elem, pt)
			       ? 1
			       : -1;
	}
	if (strcmp(key, "ops") != 0)
		return 0;
	if (jp_once(j, &s->ops, key) < 0)
		return -1;
	return jp_array(j, BENCH_MAX_OPS, &n, op_elem, base) ? 1 : -1;
}

static bool point_elem(struct jp *j, unsigned i, void *base)
{
	struct bench_run *run = base;
	struct jp_seen s = {0};

	return jp_object(j, point_fields, NFIELDS(point_fields), &run->points[i], point_extra, &s);
}

static bool target_elem(struct jp *j, unsigned i, void *base)
{
	struct bench_run *run = base;

	return jp_object(j, target_fields, NFIELDS(target_fields), &run->targets[i], NULL, NULL);
}

static int run_extra(struct jp *j, const char *key, void *base, void *ctx)
{
	struct bench_run *run = base;
	struct jp_seen *s = ctx;
	char fmt[32];
	const char *at;

	if (strcmp(key, "format") == 0) {
		if (jp_once(j, &s->format, key) < 0)
			return -1;
		jp_ws(j);
		at = j->p;
		if (!jp_string(j, fmt, sizeof(fmt)))
			return -1;
		if (strcmp(fmt, BENCH_JSON_FORMAT) != 0) {
			j->p = at;
			jp_fail(j, "format is not \"" BENCH_JSON_FORMAT "\"");
			return -1;
		}
		return 1;
	}
	if (strcmp(key, "targets") == 0) {
		if (jp_once(j, &s->targets, key) < 0)
			return -1;
		return jp_array(j, BENCH_MAX_TARGETS, &run->ntargets, target_elem, run) ? 1 : -1;
	}
	if (strcmp(key, "points") == 0) {
		if (jp_once(j, &s->points, key) < 0)
			return -1;
		return jp_array(j, BENCH_MAX_POINTS, &run->npoints, point_elem, run) ? 1 : -1;
	}
	return 0;
}

int bench_json_parse(const char *buf, size_t len, struct bench_run *run, char *err, size_t errlen)
{
	struct jp j = {.start = buf, .p = buf, .end = buf + len, .err = err, .errlen = errlen};
	struct jp_seen s = {0};

	if (errlen)
		err[0] = '\0';
	memset(run, 0, sizeof(*run));
	if (!jp_object(&j, run_fields, NFIELDS(run_fields), run, run_extra, &s))
		goto fail;
	if (!s.format) {
		j.p = buf;
		jp_fail(&j, "no \"format\" key: not a shoal-bench result");
		goto fail;
	}
	jp_ws(&j);
	if (j.p != j.end) {
		jp_fail(&j, "unexpected data after the object");
		goto fail;
	}
	return 0;
fail:
	memset(run, 0, sizeof(*run));
	return -1;
}

int bench_json_read(const char *path, struct bench_run *run)
{
	char err[160];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(JSON_MAX_FILE);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		goto out;
	}
	len = fread(buf, 1, JSON_MAX_FILE, f);
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		goto out;
	}
	if (len == JSON_MAX_FILE) {
		fprintf(stderr, "%s: larger than %u bytes\n", path, JSON_MAX_FILE);
		goto out;
	}
	rc = bench_json_parse(buf, len, run, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s: %s\n", path, err);
out:
	free(buf);
	fclose(f);
	return rc;
}
