/*
 * check.c - the "ok" and "FAIL" lines of the test tools and their failure count
 * (check.h).
 */
#include "lib/check.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#define MAX_FAIL_LINES 50 /* enough to diagnose: a broken run may fail millions */

static atomic_int failures;

void check_ok(const char *name)
{
	printf("ok %s\n", name);
}

void check_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&failures, 1) >= MAX_FAIL_LINES)
		return;
	flockfile(stdout);
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	funlockfile(stdout);
}

int check_failures(void)
{
	return atomic_load(&failures);
}

int check_summary(void)
{
	int n = check_failures();

	printf("%s: %d failed\n", n ? "FAILED" : "PASSED", n);
	return n ? 1 : 0;
}
