/*
 * check.h - how the test tools report a check: an "ok NAME" or a "FAIL NAME: expected X
 * got Y" line on stdout, written whole even when threads report at once (FAIL lines
 * stop after the first 50), and a count of every failure for the exit status.
 */
#ifndef SHOAL_TESTS_CHECK_H
#define SHOAL_TESTS_CHECK_H

void check_ok(const char *name);
__attribute__((format(printf, 2, 3))) void check_fail(const char *name, const char *fmt, ...);
/* How many checks have failed so far. */
int check_failures(void);
/* Print "PASSED: 0 failed" or "FAILED: N failed"; the exit status: 1 if any failed. */
int check_summary(void);

#endif
