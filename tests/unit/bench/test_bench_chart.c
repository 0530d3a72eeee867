/*
 * test_bench_chart.c - bench_chart_svg() writes a well-formed, self-contained SVG: it
 * starts with <svg, every element it opens is closed in order, there is one polyline
 * per run, invalid points are hollow, and labels are escaped.
 */
#include <stdlib.h>

#include "bench/bench_chart.h"
#include "bench/bench_ort.h"
#include "fixture.h"
#include "unit/test.h"

static char *chart_of(const struct bench_run *runs, unsigned n)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	CHECK_EQ(bench_chart_svg(runs, n, f), 0);
	fclose(f);
	return buf;
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/*
 * Check that tags nest: each <name ...> is closed by </name> in order or is self-closed
 * with />; attribute values hold no '<' or '>'; nothing follows the root element.
 * Returns 1 when well formed.
 */
static int tags_balanced(const char *s)
{
	char stack[64][32];
	int depth = 0;
	const char *p = s;
	bool root_done = false;

	while ((p = strchr(p, '<')) != NULL) {
		const char *end = strchr(p, '>');
		size_t n;

		if (!end || root_done)
			return 0;
		if (memchr(p + 1, '<', (size_t)(end - p - 1)))
			return 0;
		if (p[1] == '/') {
			n = (size_t)(end - p - 2);
			if (depth == 0 || strlen(stack[depth - 1]) != n ||
			    memcmp(stack[depth - 1], p + 2, n) != 0)
				return 0;
			if (--depth == 0)
				root_done = true;
		} else if (end[-1] != '/') {
			n = strcspn(p + 1, " >");
			if (depth == 64 || n == 0 || n >= 32)
				return 0;
			snprintf(stack[depth++], 32, "%.*s", (int)n, p + 1);
		}
		p = end + 1;
	}
	return depth == 0 && root_done;
}

static void test_two_runs(void)
{
	struct bench_run *runs = calloc(2, sizeof(*runs));
	char *svg;

	fixture_run(&runs[0]);
	fixture_run(&runs[1]);
	snprintf(runs[1].label, sizeof(runs[1].label), "ganesha <4.3> & \"co\"");
	for (unsigned i = 0; i < runs[1].npoints; i++) {
		runs[1].points[i].achieved_ops /= 2.5;
		runs[1].points[i].mean_ms *= 1.5;
	}
	bench_finalize(&runs[0]);
	bench_finalize(&runs[1]);
	svg = chart_of(runs, 2);
	CHECK(strncmp(svg, "<svg", 4) == 0);
	CHECK(tags_balanced(svg));
	CHECK_EQ(count(svg, "<polyline"), 2);
	/* 11 markers per run plus 2 legend markers and the "invalid point" key. */
	CHECK_EQ(count(svg, "<circle"), 2 * 11 + 3);
	/* Point 7 of each run is invalid: hollow. */
	CHECK_EQ(count(svg, "stroke-width=\"2\" fill=\"white\"/>"), 2 + 1);
	CHECK(strstr(svg, "ganesha &lt;4.3&gt; &amp; &quot;co&quot;") != NULL);
	CHECK(strstr(svg, "Throughput (ops/sec)") != NULL);
	CHECK(strstr(svg, "Response time (msec)") != NULL);
	CHECK(strstr(svg, "peak 1470 ops/s, ORT 5.44 ms") != NULL);
	CHECK(strstr(svg, "stroke-dasharray") != NULL); /* the 20 ms line: 24.5 ms plotted */
	CHECK(strstr(svg, "href") == NULL && strstr(svg, "<script") == NULL);
	free(svg);
	free(runs);
}

static void test_empty_and_single(void)
{
	struct bench_run *runs = calloc(3, sizeof(*runs));
	char *svg;

	svg = chart_of(runs, 0);
	CHECK(strncmp(svg, "<svg", 4) == 0);
	CHECK(tags_balanced(svg));
	CHECK_EQ(count(svg, "<polyline"), 0);
	free(svg);

	fixture_run(&runs[2]);
	runs[2].npoints = 1;
	svg = chart_of(runs, 3); /* two runs without points, one with one point */
	CHECK(tags_balanced(svg));
	CHECK_EQ(count(svg, "<polyline"), 3);
	free(svg);
	free(runs);
}

static void test_checker_catches_errors(void)
{
	CHECK(tags_balanced("<svg><g></g></svg>"));
	CHECK(!tags_balanced("<svg><g></svg>"));
	CHECK(!tags_balanced("<svg><g></svg></g>"));
	CHECK(!tags_balanced("<svg></svg><g/>"));
	CHECK(!tags_balanced("<svg><text>a<b</text></svg>"));
}

TESTS(test_two_runs, test_empty_and_single, test_checker_catches_errors)
