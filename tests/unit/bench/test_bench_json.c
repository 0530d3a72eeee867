/*
 * test_bench_json.c - a full bench_run survives bench_json_write() + bench_json_parse()
 * bit for bit, the reader refuses truncated and malformed input cleanly, and it skips
 * well-formed members it does not know; a run stored before points recorded the
 * machine's CPUs reads with them unmeasured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_json.h"
#include "bench/bench_machine.h"
#include "fixture.h"
#include "unit/test.h"

/* Write @r into a malloc'ed, NUL-terminated buffer; *len gets its length. */
static char *to_json(const struct bench_run *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	CHECK_EQ(bench_json_write(r, f), 0);
	fclose(f);
	return buf;
}

static struct bench_run *new_run(void)
{
	struct bench_run *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	return r;
}

static void test_round_trip(void)
{
	struct bench_run *a = new_run(), *b = new_run();
	char err[160];
	size_t len;
	char *js;

	fixture_run(a);
	/* Strings that need escaping, and numbers that need all 17 digits. */
	snprintf(a->label, sizeof(a->label), "q\"b\\s/\t\n\x01 \xc3\xa9");
	a->points[2].mean_ms = 0.1 + 0.2;
	a->points[2].achieved_ops = 1.0 / 3.0;
	a->fileset_bytes = UINT64_MAX;
	a->host_cpus = UINT32_MAX;
	a->settle_failed = true;
	js = to_json(a, &len);
	CHECK(js != NULL);
	CHECK_EQ(bench_json_parse(js, len, b, err, sizeof(err)), 0);
	CHECK(memcmp(a, b, sizeof(*a)) == 0);
	free(js);
	free(a);
	free(b);
}

static void test_round_trip_empty(void)
{
	struct bench_run *a = new_run(), *b = new_run();
	size_t len;
	char *js = to_json(a, &len);

	CHECK_EQ(bench_json_parse(js, len, b, NULL, 0), 0);
	CHECK(memcmp(a, b, sizeof(*a)) == 0);
	free(js);
	free(a);
	free(b);
}

/* Non-finite doubles are written as null and read back as NaN. */
static void test_nan_is_null(void)
{
	struct bench_run *a = new_run(), *b = new_run();
	size_t len;
	char *js;

	fixture_run(a);
	a->ort_ms = NAN;
	js = to_json(a, &len);
	CHECK(strstr(js, "\"ort_ms\": null") != NULL);
	CHECK_EQ(bench_json_parse(js, len, b, NULL, 0), 0);
	CHECK(isnan(b->ort_ms));
	free(js);
	free(a);
	free(b);
}

/*
 * Every proper prefix of a valid document is refused, and leaves the run zeroed. Each
 * prefix is parsed whole, so the cost grows with the square of the document: it is
 * the fixture's points 4, 7 and 11 alone, which hold every kind of member the others
 * do and those they lack (errors, an invalid point's reason, a CPU not measured, no
 * thread split). All 11 points took 14 s here, and 4 minutes under ThreadSanitizer.
 */
static void test_truncated_at_every_offset(void)
{
	static const struct bench_run zero;
	struct bench_run *a = new_run(), *b = new_run();
	unsigned bad = 0;
	size_t len;
	char *js;

	fixture_run(a);
	a->points[0] = a->points[3];
	a->points[1] = a->points[6];
	a->points[2] = a->points[10];
	a->npoints = 3;
	js = to_json(a, &len);
	for (size_t n = 0; n < len; n++) {
		/* A prefix that ends inside the trailing newline is still the whole object. */
		if (strspn(js + n, " \n") == len - n)
			break;
		if (bench_json_parse(js, n, b, NULL, 0) == 0 || memcmp(b, &zero, sizeof(zero)))
			bad++;
	}
	CHECK_EQ(bad, 0);
	free(js);
	free(a);
	free(b);
}

/*
 * Replace the first @from in the fixture's JSON by @to and parse the result into @b.
 * Returns the parse's result, or 1 if @from is not there (a broken test: counted).
 */
static int parse_edited(const char *from, const char *to, struct bench_run *b, char *err,
			size_t errlen)
{
	struct bench_run *a = new_run();
	size_t len;
	char *js, *at, *mod;
	int rc = 1;

	fixture_run(a);
	js = to_json(a, &len);
	at = strstr(js, from);
	CHECK(at != NULL);
	if (at) {
		mod = malloc(len + strlen(to) + 1);
		memcpy(mod, js, (size_t)(at - js));
		strcpy(mod + (at - js), to);
		strcat(mod, at + strlen(from));
		rc = bench_json_parse(mod, strlen(mod), b, err, errlen);
		free(mod);
	}
	free(js);
	free(a);
	return rc;
}

/* One edit of the fixture's JSON: @from replaced by @to, for the reason @why. */
struct edit {
	const char *from, *to, *why;
};

/* The fixture's JSON with @e applied is refused, the error placed. */
static void expect_refused(const struct edit *e)
{
	struct bench_run *b = new_run();
	char err[160] = "";
	int rc = parse_edited(e->from, e->to, b, err, sizeof(err));

	if (rc == 0) {
		fprintf(stderr, "accepted: %s\n", e->why);
		test_failed_checks++;
	} else if (rc > 0) {
		fprintf(stderr, "no '%s' in the fixture to edit: %s\n", e->from, e->why);
		test_failed_checks++;
	} else if (!strstr(err, "byte ")) {
		fprintf(stderr, "no position in the error for %s: %s\n", e->why, err);
		test_failed_checks++;
	}
	free(b);
}

/* The fixture's JSON with @e applied reads as the fixture itself. */
static void expect_skipped(const struct edit *e)
{
	struct bench_run *a = new_run(), *b = new_run();
	char err[160] = "";

	fixture_run(a);
	if (parse_edited(e->from, e->to, b, err, sizeof(err)) != 0) {
		fprintf(stderr, "refused: %s: %s\n", e->why, err);
		test_failed_checks++;
	} else if (memcmp(a, b, sizeof(*a)) != 0) {
		fprintf(stderr, "read differently: %s\n", e->why);
		test_failed_checks++;
	}
	free(a);
	free(b);
}

/* Members a later shoal-bench may add, of every JSON type and at every level, the last
 * nested as deep as the reader allows. */
static const struct edit unknown_skipped[] = {
	{"\"label\"", "\"new_text\": \"a \\\"b\\\" \\u00e9 \\ud83d\\ude00\", \"label\"",
	 "a string, at the top"},
	{"\"label\"", "\"new_number\": -1.5e-3, \"label\"", "a number"},
	{"\"label\"", "\"t\": true, \"f\": false, \"n\": null, \"label\"", "literals"},
	{"\"label\"",
	 "\"new_tree\": {\"a\": [1, {\"b\": []}, {}, \"c\"], \"d\": {\"e\": null}}, "
	 "\"label\"",
	 "nested objects and arrays"},
	{"\"label\"", "\"a_key_longer_than_any_field_name_yet_0123456789abcdef\": 0, \"label\"",
	 "a long key"},
	{"\"procs\": 4", "\"procs\": 4, \"new\": [0]", "in a target"},
	{"\"mean_ms\"", "\"new\": {}, \"mean_ms\"", "in a point"},
	{"{\"proc\": 1, ", "{\"proc\": 1, \"new\": \"x\", ", "in an operation"},
	{"{\"name\": \"shoal-loop\", ", "{\"name\": \"shoal-loop\", \"new\": 1, ",
	 "in a thread group"},
	{"\"label\"", "\"deep\": [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]], \"label\"",
	 "nested sixteen deep"},
};

/* What is skipped must still be JSON. */
static const struct edit unknown_refused[] = {
	{"\"label\"", "\"new\": tru, \"label\"", "a bad literal, skipped"},
	{"\"label\"", "\"new\": 01, \"label\"", "a bad number, skipped"},
	{"\"label\"", "\"new\": 'x', \"label\"", "a bad string, skipped"},
	{"\"label\"", "\"new\": \"a\nb\", \"label\"", "a raw newline, skipped"},
	{"\"label\"", "\"new\": \"\\ud800\", \"label\"", "a lone surrogate, skipped"},
	{"\"label\"", "\"new\": [1 2], \"label\"", "a missing comma, skipped"},
	{"\"label\"", "\"new\": {\"a\" 1}, \"label\"", "a missing colon, skipped"},
	{"\"label\"", "\"new\": {1: 2}, \"label\"", "a number as key, skipped"},
	{"\"label\"", "\"new\": [1,], \"label\"", "a trailing comma, skipped"},
	{"\"label\"", "\"new\": , \"label\"", "no value, skipped"},
	{"\"label\"", "\"deep\": [[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]], \"label\"",
	 "nested seventeen deep"},
	{"\"label\"",
	 "\"a_key_longer_than_the_reader_takes_0123456789abcdef0123456789abcdef\": "
	 "0, \"label\"",
	 "a key over 63 bytes"},
};

/*
 * Members a later shoal-bench may add are skipped: the rest reads exactly as without
 * them (runs of different versions can be charted together); but only well-formed ones.
 */
static void test_unknown_members(void)
{
	for (size_t i = 0; i < sizeof(unknown_skipped) / sizeof(unknown_skipped[0]); i++)
		expect_skipped(&unknown_skipped[i]);
	for (size_t i = 0; i < sizeof(unknown_refused) / sizeof(unknown_refused[0]); i++)
		expect_refused(&unknown_refused[i]);
}

/* Edits of the fixture that make it malformed or mistyped. */
static const struct edit malformed[] = {
	{"\"format\": \"shoal-bench/1\"", "\"format\": \"shoal-bench/2\"", "another format"},
	{"\"format\": \"shoal-bench/1\",", "", "no format"},
	{"\"date\"", "\"label\"", "repeated key"},
	{"\"load_procs\": 8", "\"load_procs\": \"8\"", "string for a number"},
	{"\"load_procs\": 8", "\"load_procs\": 4294967296", "u32 overflow"},
	{"\"load_procs\": 8", "\"load_procs\": -8", "negative count"},
	{"\"load_procs\": 8", "\"load_procs\": 8.5", "fraction for a count"},
	{"\"load_procs\": 8", "\"load_procs\": 08", "leading zero"},
	{"\"fileset_bytes\": 193273528320", "\"fileset_bytes\": 18446744073709551616",
	 "u64 overflow"},
	{"\"working_set_pct\": 30", "\"working_set_pct\": 30.", "bad number"},
	{"\"working_set_pct\": 30", "\"working_set_pct\": 1e999", "infinite"},
	{"\"working_set_pct\": 30", "\"working_set_pct\": NaN", "NaN literal"},
	{"\"valid\": true", "\"valid\": 1", "number for a bool"},
	{"\"label\": \"shoal\"", "\"label\": \"sh\noal\"", "raw newline"},
	{"\"label\": \"shoal\"", "\"label\": \"sh\\xoal\"", "bad escape"},
	{"\"label\": \"shoal\"", "\"label\": \"\\u0000\"", "NUL escape"},
	{"\"label\": \"shoal\"", "\"label\": \"\\ud800\"", "lone surrogate"},
	{"\"workload\": \"SFS2008-NFSv3\"", "\"workload\": \"0123456789012345678901234567890123\"",
	 "string too long for its field"},
	{"\"proc\": 1,", "\"proc\": 24,", "procedure out of range"},
	{"\"proc\": 2,", "\"proc\": 1,", "procedure twice"},
	{"{\"proc\": 1, ", "{", "operation without proc"},
	{"\"targets\": [",
	 "\"targets\": [{\"procs\": 1}, {}, {}, {}, {}, {}, "
	 "{}, {}, {}, {}, {}, {}, {}, {}, {}, {},",
	 "too many targets"},
	{"\"procs\": 4}", "\"procs\": 4,}", "trailing comma"},
	{"\n}\n", "\n}\n}", "data after the object"},
	{"\"points\": [", "\"points\": {", "object for an array"},
	{"\"label\": ", "\"label\" ", "missing colon"},
	{"{\"name\": \"shoal-loop\", ", "{", "thread group without a name"},
	{"\"server_threads\": [",
	 "\"server_threads\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}, "
	 "{\"name\": \"d\"}, {\"name\": \"e\"}, {\"name\": \"f\"}, {\"name\": \"g\"}, "
	 "{\"name\": \"h\"},",
	 "too many thread groups"},
	{"\"server_threads\": [", "\"server_threads\": [], \"server_threads\": [",
	 "thread groups twice"},
	{"\"cpu_us_per_op\": ", "\"cpu_us_per_op\": \"x\", \"y\": ",
	 "string for a thread group's CPU"},
};

static void test_malformed(void)
{
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
		expect_refused(&malformed[i]);
}

static void test_not_an_object(void)
{
	struct bench_run *b = new_run();
	char err[160];

	CHECK(bench_json_parse("", 0, b, err, sizeof(err)) < 0);
	CHECK(bench_json_parse("[]", 2, b, err, sizeof(err)) < 0);
	CHECK(bench_json_parse("{}", 2, b, err, sizeof(err)) < 0); /* no format */
	CHECK(bench_json_parse("{\"format\": \"shoal-bench/1\"}", 27, b, err, sizeof(err)) == 0);
	/* An embedded NUL is not white space. */
	CHECK(bench_json_parse("{\"format\": \"shoal-bench/1\"}\0", 28, b, err, sizeof(err)) < 0);
	free(b);
}

static void test_read_file(void)
{
	struct bench_run *a = new_run(), *b = new_run();
	char path[] = "/tmp/shoal-test-json-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	f = fdopen(fd, "w");
	fixture_run(a);
	CHECK_EQ(bench_json_write(a, f), 0);
	fclose(f);
	CHECK_EQ(bench_json_read(path, b), 0);
	CHECK(memcmp(a, b, sizeof(*a)) == 0);
	unlink(path);
	CHECK(bench_json_read(path, b) < 0); /* prints "...: No such file or directory" */
out:
	free(a);
	free(b);
}

/* A run stored before points recorded the machine's CPUs reads with them unmeasured. */
static void test_without_machine_cpu(void)
{
	struct bench_run *a = new_run(), *b = new_run();
	size_t len, kept = 0, dropped = 0;
	char err[160];
	char *js, *line;

	fixture_run(a);
	CHECK(bench_machine_known(&a->points[0]));
	js = to_json(a, &len);
	CHECK(js != NULL);
	for (line = js; *line;) { /* drop every line that names a machine_* member */
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) + 1 : strlen(line);

		if (memmem(line, n, "\"machine_", 9)) {
			memmove(line, line + n, strlen(line + n) + 1);
			dropped++;
		} else {
			line += n;
			kept++;
		}
	}
	CHECK_EQ(dropped, 3 * a->npoints);
	CHECK(kept > 0);
	CHECK_EQ(bench_json_parse(js, strlen(js), b, err, sizeof(err)), 0);
	CHECK_EQ(b->npoints, a->npoints);
	for (unsigned i = 0; i < b->npoints; i++) {
		CHECK(!bench_machine_known(&b->points[i]));
		CHECK(b->points[i].achieved_ops == a->points[i].achieved_ops);
	}
	free(js);
	free(a);
	free(b);
}

TESTS(test_round_trip, test_round_trip_empty, test_nan_is_null, test_truncated_at_every_offset,
      test_malformed, test_unknown_members, test_not_an_object, test_read_file,
      test_without_machine_cpu)
