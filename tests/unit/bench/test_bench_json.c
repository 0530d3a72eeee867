/*
 * test_bench_json.c - a full bench_run survives bench_json_write() + bench_json_parse()
 * bit for bit, the reader refuses truncated and malformed input cleanly, and it skips
 * well-formed members it does not know.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench/bench_json.h"
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

/* Every proper prefix of a valid document is refused, and leaves the run zeroed. */
static void test_truncated_at_every_offset(void)
{
	static const struct bench_run zero;
	struct bench_run *a = new_run(), *b = new_run();
	unsigned bad = 0;
	size_t len;
	char *js;

	fixture_run(a);
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

/* The fixture's JSON with @from replaced by @to is refused, the error placed. */
static void expect_refused(const char *from, const char *to, const char *why)
{
	struct bench_run *b = new_run();
	char err[160] = "";
	int rc = parse_edited(from, to, b, err, sizeof(err));

	if (rc == 0) {
		fprintf(stderr, "accepted: %s\n", why);
		test_failed_checks++;
	} else if (rc < 0 && !strstr(err, "byte ")) {
		fprintf(stderr, "no position in the error for %s: %s\n", why, err);
		test_failed_checks++;
	}
	free(b);
}

/* The fixture's JSON with @from replaced by @to reads as the fixture itself. */
static void expect_skipped(const char *from, const char *to, const char *why)
{
	struct bench_run *a = new_run(), *b = new_run();
	char err[160] = "";

	fixture_run(a);
	if (parse_edited(from, to, b, err, sizeof(err)) != 0) {
		fprintf(stderr, "refused: %s: %s\n", why, err);
		test_failed_checks++;
	} else if (memcmp(a, b, sizeof(*a)) != 0) {
		fprintf(stderr, "read differently: %s\n", why);
		test_failed_checks++;
	}
	free(a);
	free(b);
}

/*
 * Members a later shoal-bench may add, of every JSON type and at every level, are
 * skipped: the rest reads exactly as without them (runs of different versions can be
 * charted together).
 */
static void test_unknown_members(void)
{
	expect_skipped("\"label\"",
		       "\"new_text\": \"a \\\"b\\\" \\u00e9 \\ud83d\\ude00\", \"label\"",
		       "a string, at the top");
	expect_skipped("\"label\"", "\"new_number\": -1.5e-3, \"label\"", "a number");
	expect_skipped("\"label\"", "\"t\": true, \"f\": false, \"n\": null, \"label\"",
		       "literals");
	expect_skipped("\"label\"",
		       "\"new_tree\": {\"a\": [1, {\"b\": []}, {}, \"c\"], \"d\": {\"e\": null}}, "
		       "\"label\"",
		       "nested objects and arrays");
	expect_skipped("\"label\"",
		       "\"a_key_longer_than_any_field_name_yet_0123456789abcdef\": 0, \"label\"",
		       "a long key");
	expect_skipped("\"procs\": 4", "\"procs\": 4, \"new\": [0]", "in a target");
	expect_skipped("\"mean_ms\"", "\"new\": {}, \"mean_ms\"", "in a point");
	expect_skipped("{\"proc\": 1, ", "{\"proc\": 1, \"new\": \"x\", ", "in an operation");
	expect_skipped("{\"name\": \"shoal-loop\", ", "{\"name\": \"shoal-loop\", \"new\": 1, ",
		       "in a thread group");
	/* Sixteen levels below the member are allowed. */
	expect_skipped("\"label\"", "\"deep\": [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]], \"label\"",
		       "nested sixteen deep");

	/* What is skipped must still be JSON. */
	expect_refused("\"label\"", "\"new\": tru, \"label\"", "a bad literal, skipped");
	expect_refused("\"label\"", "\"new\": 01, \"label\"", "a bad number, skipped");
	expect_refused("\"label\"", "\"new\": 'x', \"label\"", "a bad string, skipped");
	expect_refused("\"label\"", "\"new\": \"a\nb\", \"label\"", "a raw newline, skipped");
	expect_refused("\"label\"", "\"new\": \"\\ud800\", \"label\"", "a lone surrogate, skipped");
	expect_refused("\"label\"", "\"new\": [1 2], \"label\"", "a missing comma, skipped");
	expect_refused("\"label\"", "\"new\": {\"a\" 1}, \"label\"", "a missing colon, skipped");
	expect_refused("\"label\"", "\"new\": {1: 2}, \"label\"", "a number as key, skipped");
	expect_refused("\"label\"", "\"new\": [1,], \"label\"", "a trailing comma, skipped");
	expect_refused("\"label\"", "\"new\": , \"label\"", "no value, skipped");
	expect_refused("\"label\"", "\"deep\": [[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]], \"label\"",
		       "nested seventeen deep");
	expect_refused("\"label\"",
		       "\"a_key_longer_than_the_reader_takes_0123456789abcdef0123456789abcdef\": "
		       "0, \"label\"",
		       "a key over 63 bytes");
}

static void test_malformed(void)
{
	expect_refused("\"format\": \"shoal-bench/1\"", "\"format\": \"shoal-bench/2\"",
		       "another format");
	expect_refused("\"format\": \"shoal-bench/1\",", "", "no format");
	expect_refused("\"date\"", "\"label\"", "repeated key");
	expect_refused("\"load_procs\": 8", "\"load_procs\": \"8\"", "string for a number");
	expect_refused("\"load_procs\": 8", "\"load_procs\": 4294967296", "u32 overflow");
	expect_refused("\"load_procs\": 8", "\"load_procs\": -8", "negative count");
	expect_refused("\"load_procs\": 8", "\"load_procs\": 8.5", "fraction for a count");
	expect_refused("\"load_procs\": 8", "\"load_procs\": 08", "leading zero");
	expect_refused("\"fileset_bytes\": 193273528320", "\"fileset_bytes\": 18446744073709551616",
		       "u64 overflow");
	expect_refused("\"working_set_pct\": 30", "\"working_set_pct\": 30.", "bad number");
	expect_refused("\"working_set_pct\": 30", "\"working_set_pct\": 1e999", "infinite");
	expect_refused("\"working_set_pct\": 30", "\"working_set_pct\": NaN", "NaN literal");
	expect_refused("\"valid\": true", "\"valid\": 1", "number for a bool");
	expect_refused("\"label\": \"shoal\"", "\"label\": \"sh\noal\"", "raw newline");
	expect_refused("\"label\": \"shoal\"", "\"label\": \"sh\\xoal\"", "bad escape");
	expect_refused("\"label\": \"shoal\"", "\"label\": \"\\u0000\"", "NUL escape");
	expect_refused("\"label\": \"shoal\"", "\"label\": \"\\ud800\"", "lone surrogate");
	expect_refused("\"workload\": \"SFS2008-NFSv3\"",
		       "\"workload\": \"0123456789012345678901234567890123\"",
		       "string too long for its field");
	expect_refused("\"proc\": 1,", "\"proc\": 24,", "procedure out of range");
	expect_refused("\"proc\": 2,", "\"proc\": 1,", "procedure twice");
	expect_refused("{\"proc\": 1, ", "{", "operation without proc");
	expect_refused("\"targets\": [",
		       "\"targets\": [{\"procs\": 1}, {}, {}, {}, {}, {}, "
		       "{}, {}, {}, {}, {}, {}, {}, {}, {}, {},",
		       "too many targets");
	expect_refused("\"procs\": 4}", "\"procs\": 4,}", "trailing comma");
	expect_refused("\n}\n", "\n}\n}", "data after the object");
	expect_refused("\"points\": [", "\"points\": {", "object for an array");
	expect_refused("\"label\": ", "\"label\" ", "missing colon");
	expect_refused("{\"name\": \"shoal-loop\", ", "{", "thread group without a name");
	expect_refused(
		"\"server_threads\": [",
		"\"server_threads\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}, "
		"{\"name\": \"d\"}, {\"name\": \"e\"}, {\"name\": \"f\"}, {\"name\": \"g\"}, "
		"{\"name\": \"h\"},",
		"too many thread groups");
	expect_refused("\"server_threads\": [", "\"server_threads\": [], \"server_threads\": [",
		       "thread groups twice");
	expect_refused("\"cpu_us_per_op\": ", "\"cpu_us_per_op\": \"x\", \"y\": ",
		       "string for a thread group's CPU");
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

TESTS(test_round_trip, test_round_trip_empty, test_nan_is_null, test_truncated_at_every_offset,
      test_malformed, test_unknown_members, test_not_an_object, test_read_file)
