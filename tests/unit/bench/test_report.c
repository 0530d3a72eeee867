/*
 * test_report.c - the text report of a fixed run with a fixed description file is
 * exactly tests/unit/bench/golden/report.txt, byte for byte; bad description files are
 * refused. After an intended change to the report, regenerate the golden file with
 * SHOAL_UPDATE_GOLDEN=1 and review its diff.
 */
#include <stdlib.h>
#include <unistd.h>

#include "bench/bench_ort.h"
#include "bench/report.h"
#include "fixture.h"
#include "unit/test.h"

/* Files next to this source file: the tests run from the top of the tree. */
static void here(char *buf, size_t size, const char *name)
{
	const char *slash = strrchr(__FILE__, '/');
	int dir = slash ? (int)(slash - __FILE__ + 1) : 0;

	snprintf(buf, size, "%.*s%s", dir, __FILE__, name);
}

static char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "rb");

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (*len == cap) {
			char *b = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!b)
				abort();
			buf = b;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	return buf;
}

static char *report_of(const struct bench_run *r, const char *desc, size_t *len, int *rc)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	*rc = bench_report_text(r, desc, f);
	fclose(f);
	return buf;
}

/* The fixture's run, finalized, into @r, and its report without a description file. */
static char *fixture_report(struct bench_run *r)
{
	size_t len;
	char *got;
	int rc;

	fixture_run(r);
	bench_finalize(r);
	got = report_of(r, NULL, &len, &rc);
	CHECK_EQ(rc, 0);
	return got;
}

static void test_golden(void)
{
	char desc[256], golden[256];
	struct bench_run r;
	size_t len, glen;
	char *got, *want;
	int rc;

	here(desc, sizeof(desc), "golden/sut.txt");
	here(golden, sizeof(golden), "golden/report.txt");
	fixture_run(&r);
	bench_finalize(&r);
	got = report_of(&r, desc, &len, &rc);
	CHECK_EQ(rc, 0);
	if (getenv("SHOAL_UPDATE_GOLDEN")) {
		FILE *f = fopen(golden, "wb");

		CHECK(f && fwrite(got, 1, len, f) == len && fclose(f) == 0);
	}
	want = slurp(golden, &glen);
	CHECK(want != NULL);
	if (want && (glen != len || memcmp(got, want, len) != 0)) {
		size_t i = 0;

		while (i < len && i < glen && got[i] == want[i])
			i++;
		fprintf(stderr, "report differs from %s at byte %zu (got %zu bytes, want %zu)\n",
			golden, i, len, glen);
		test_failed_checks++;
	}
	free(got);
	free(want);
}

/* Without a description file every section is still there, saying "not stated". */
static void test_no_description(void)
{
	static const char *const sections[] = {
		"Performance\n===========\n",
		"Product and Test Information\n============================\n",
		"Server Software\n",
		"Server Tuning\n",
		"Disks and Filesystems\n",
		"Network Configuration\n",
		"Processing Elements\n",
		"Memory\n",
		"Stable Storage\n",
		"Load Generators\n",
		"Benchmark Parameters\n",
		"Testbed Configuration\n",
		"Uniform Access Rule Compliance\n",
		"Other Notes\n",
	};
	struct bench_run r;
	char *got = fixture_report(&r);
	const char *prev = got;

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const char *at = strstr(prev, sections[i]);

		if (!at)
			fprintf(stderr, "missing or out of order: %s", sections[i]);
		CHECK(at != NULL);
		if (at)
			prev = at;
	}
	CHECK(strstr(got, "Tested By                       not stated\n") != NULL);
	CHECK(strstr(got, "SFS2008-NFSv3 = 1470 Ops/Sec (Overall Response Time = 5.44 msec)"));
	/* Errors are shown, per point and per operation. */
	CHECK(strstr(got, "Point 4 (requested 600 ops/sec): 4 errors, WRITE 3, CREATE 1."));
	free(got);
}

static void test_no_valid_point(void)
{
	struct bench_run r;
	size_t len;
	char *got;
	int rc;

	fixture_run(&r);
	for (unsigned i = 0; i < r.npoints; i++)
		r.points[i].valid = false;
	bench_finalize(&r);
	got = report_of(&r, NULL, &len, &rc);
	CHECK_EQ(rc, 0);
	CHECK(strstr(got, "SFS2008-NFSv3 = no valid load point at or under 20 msec\n"));
	free(got);
}

/* How the server was brought to rest is a benchmark parameter; a failure is said under
 * Performance too, and only then. */
static void test_settle(void)
{
	struct bench_run r;
	char *got = fixture_report(&r);
	size_t len;
	int rc;

	CHECK(strstr(got, "Before the First Point          COMMIT of 120 I/O files in 0.02 s\n"));
	CHECK(strstr(got, "not brought to rest") == NULL);
	free(got);
	r.settle_failed = true;
	snprintf(r.settle, sizeof(r.settle),
		 "settle: COMMIT to 127.0.0.1 answered nfsstat3 70 (after 3 files)");
	got = report_of(&r, NULL, &len, &rc);
	CHECK_EQ(rc, 0);
	/* wrapped at the report's width, the continuation indented by 4 */
	CHECK(strstr(got, "\nThe server was not brought to rest before the first point: settle: "
			  "COMMIT to\n    127.0.0.1 answered nfsstat3 70 (after 3 files)\n"));
	free(got);
}

/* Write @text to a temporary description file and expect the report to refuse it. */
static void expect_bad_desc(const char *text)
{
	char path[] = "/tmp/shoal-test-desc-XXXXXX";
	int fd = mkstemp(path);
	struct bench_run r;
	size_t len;
	char *got;
	FILE *f;
	int rc;

	if (fd < 0) {
		CHECK(fd >= 0);
		return;
	}
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	fixture_run(&r);
	got = report_of(&r, path, &len, &rc);
	if (rc != -1)
		fprintf(stderr, "accepted: %s", text);
	CHECK_EQ(rc, -1);
	free(got);
	unlink(path);
}

static void test_bad_description(void)
{
	expect_bad_desc("Vendor Example\n");		/* no colon */
	expect_bad_desc("Vendr: Example\n");		/* unknown key */
	expect_bad_desc("Vendor: a\nVendor: b\n");	/* single-valued key twice */
	expect_bad_desc("BOM: 1 | Server | Generic\n"); /* too few cells */
	expect_bad_desc("Memory: a | 1 | 1 | V | x\n"); /* too many cells */
	{
		struct bench_run r;
		size_t len;
		int rc;
		char *got;

		fixture_run(&r);
		got = report_of(&r, "/nonexistent/shoal-desc.txt", &len, &rc);
		CHECK_EQ(rc, -1);
		free(got);
	}
}

TESTS(test_golden, test_no_description, test_no_valid_point, test_settle, test_bad_description)
