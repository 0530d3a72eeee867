/*
 * test.h - the unit-test harness: CHECK macros and a main() that runs TESTS.
 *
 * A test file defines its test functions and a table:
 *
 *	static void test_round_trip(void) { CHECK(...); CHECK_EQ(a, b); }
 *	TESTS(test_round_trip, test_truncated);
 *
 * Each failed CHECK prints file:line and the expression and marks the test failed;
 * the binary prints "N passed, N failed" and exits non-zero if anything failed.
 */
#ifndef SHOAL_TEST_H
#define SHOAL_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_checks;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			test_failed_checks++;                                                      \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
		if (check_a_ != check_b_) {                                                        \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n",        \
				__FILE__, __LINE__, #a, check_a_, #b, check_b_);                   \
			test_failed_checks++;                                                      \
		}                                                                                  \
	} while (0)

#define CHECK_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

struct test_case {
	const char *name;
	void (*fn)(void);
};

#define TESTS(...)                                                                                 \
	static void (*const test_fns_[])(void) = {__VA_ARGS__};                                    \
	static const char test_names_[] = #__VA_ARGS__;                                            \
	int main(void)                                                                             \
	{                                                                                          \
		return test_main(test_fns_, sizeof(test_fns_) / sizeof(test_fns_[0]), test_names_, \
				 __FILE__);                                                        \
	}

/*
 * Make a fresh directory for a test's files: "DIR/@prefix-XXXXXX" into @buf (@cap
 * bytes), DIR being $SHOAL_TEST_DIR when set (tests/fs/run.sh points it at other disk
 * file systems) or /var/tmp (a disk file system, whose page cache tests can empty, where
 * /tmp may be tmpfs). Exits the test binary if it cannot.
 */
static inline void test_disk_dir(char *buf, size_t cap, const char *prefix)
{
	const char *in = getenv("SHOAL_TEST_DIR");
	int n = snprintf(buf, cap, "%s/%s-XXXXXX", in && *in ? in : "/var/tmp", prefix);

	if (n < 0 || (size_t)n >= cap || !mkdtemp(buf)) {
		fprintf(stderr, "cannot make a test directory %s-XXXXXX\n", prefix);
		exit(1);
	}
}

/* Print the name of test @i from the stringified list. */
static inline void test_print_name(const char *names, size_t i)
{
	const char *p = names;

	for (size_t k = 0; k < i && p; k++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		return;
	while (*p == ' ' || *p == '\n' || *p == '\t')
		p++;
	fprintf(stderr, "%.*s", (int)strcspn(p, ","), p);
}

static inline int test_main(void (*const fns[])(void), size_t n, const char *names,
			    const char *file)
{
	unsigned passed = 0, failed = 0;

	for (size_t i = 0; i < n; i++) {
		int before = test_failed_checks;

		fns[i]();
		if (test_failed_checks != before) {
			failed++;
			fprintf(stderr, "FAIL %s: ", file);
			test_print_name(names, i);
			fprintf(stderr, "\n");
		} else {
			passed++;
		}
	}
	printf("%s: %u passed, %u failed\n", file, passed, failed);
	return failed ? 1 : 0;
}

#endif
