/*
 * bench_chart.c - SVG chart of throughput/response-time curves, several runs overlaid.
 *
 * Plain SVG 1.1 with no script, stylesheet or external reference, so a browser, an
 * image viewer or a README can show it as it is.
 */
#include "bench_chart.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "bench_ort.h"

#define SVG_W	   900
#define SVG_H	   540
#define PLOT_LEFT  80.0
#define PLOT_RIGHT 640.0
#define PLOT_TOP   50.0
#define PLOT_BOT   470.0
#define NTICKS	   5

static const char *const chart_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
					   "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
					   "#17becf", "#bcbd22", "#393b79", "#ad494a"};

#define NCOLORS (sizeof(chart_colors) / sizeof(chart_colors[0]))

/* Text with the five XML special characters escaped. */
static void svg_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(*s, out);
			break;
		}
	}
}

/* A tick step of 1, 2 or 5 times a power of ten giving about NTICKS ticks up to @max.
 * (Plain loops rather than log10()/pow(), so the tool needs no libm.) */
static double nice_step(double max)
{
	double raw, mag = 1;

	if (!(max > 0) || !isfinite(max))
		return 1;
	raw = max / NTICKS;
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	if (raw <= mag)
		return mag;
	if (raw <= 2 * mag)
		return 2 * mag;
	if (raw <= 5 * mag)
		return 5 * mag;
	return 10 * mag;
}

/* The smallest whole number of @step that reaches @max, at least one. */
static double nice_max(double max, double step)
{
	double m = step;

	while (m < max * (1 - 1e-12))
		m += step;
	return m;
}

static unsigned run_points(const struct bench_run *r)
{
	return r->npoints < BENCH_MAX_POINTS ? r->npoints : BENCH_MAX_POINTS;
}

static bool plottable(const struct bench_point *pt)
{
	return isfinite(pt->achieved_ops) && isfinite(pt->mean_ms) && pt->achieved_ops >= 0 &&
	       pt->mean_ms >= 0;
}

struct axes {
	double xmax, xstep, ymax, ystep;
};

static double px(const struct axes *a, double x)
{
	return PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * x / a->xmax;
}

static double py(const struct axes *a, double y)
{
	return PLOT_BOT - (PLOT_BOT - PLOT_TOP) * y / a->ymax;
}

static void axes_fit(struct axes *a, const struct bench_run *runs, unsigned nruns)
{
	double xm = 0, ym = 0;

	for (unsigned r = 0; r < nruns; r++) {
		for (unsigned i = 0; i < run_points(&runs[r]); i++) {
			const struct bench_point *pt = &runs[r].points[i];

			if (!plottable(pt))
				continue;
			if (pt->achieved_ops > xm)
				xm = pt->achieved_ops;
			if (pt->mean_ms > ym)
				ym = pt->mean_ms;
		}
	}
	a->xstep = nice_step(xm);
	a->xmax = nice_max(xm, a->xstep);
	a->ystep = nice_step(ym);
	a->ymax = nice_max(ym, a->ystep);
}

static void draw_axes(FILE *out, const struct axes *a)
{
	fputs("<g stroke=\"#dddddd\" stroke-width=\"1\">\n", out);
	for (double x = a->xstep; x <= a->xmax * (1 + 1e-9); x += a->xstep)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px(a, x),
			PLOT_TOP, px(a, x), PLOT_BOT);
	for (double y = a->ystep; y <= a->ymax * (1 + 1e-9); y += a->ystep)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PLOT_LEFT,
			py(a, y), PLOT_RIGHT, py(a, y));
	fputs("</g>\n", out);
	fprintf(out,
		"<g stroke=\"black\" stroke-width=\"1\">\n"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		PLOT_LEFT, PLOT_BOT, PLOT_RIGHT, PLOT_BOT, PLOT_LEFT, PLOT_BOT, PLOT_LEFT,
		PLOT_TOP);
	for (double x = 0; x <= a->xmax * (1 + 1e-9); x += a->xstep)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px(a, x),
			PLOT_BOT, px(a, x), PLOT_BOT + 5);
	for (double y = 0; y <= a->ymax * (1 + 1e-9); y += a->ystep)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			PLOT_LEFT - 5, py(a, y), PLOT_LEFT, py(a, y));
	fputs("</g>\n<g fill=\"black\">\n", out);
	for (double x = 0; x <= a->xmax * (1 + 1e-9); x += a->xstep)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			px(a, x), PLOT_BOT + 18, x);
	for (double y = 0; y <= a->ymax * (1 + 1e-9); y += a->ystep)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			PLOT_LEFT - 8, py(a, y) + 4, y);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">Throughput (ops/sec)</text>\n"
		"<text x=\"20\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 20 "
		"%.1f)\">"
		"Response time (msec)</text>\n</g>\n",
		(PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOT + 42, (PLOT_TOP + PLOT_BOT) / 2,
		(PLOT_TOP + PLOT_BOT) / 2);
	if (a->ymax >= BENCH_MAX_PEAK_MS)
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\" "
			"stroke-dasharray=\"6 4\"/>\n",
			PLOT_LEFT, py(a, BENCH_MAX_PEAK_MS), PLOT_RIGHT, py(a, BENCH_MAX_PEAK_MS));
}

static void draw_run(FILE *out, const struct axes *a, const struct bench_run *r, const char *c)
{
	unsigned n = run_points(r);

	fprintf(out, "<g>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
	for (unsigned i = 0, k = 0; i < n; i++) {
		if (!plottable(&r->points[i]))
			continue;
		fprintf(out, "%s%.1f,%.1f", k++ ? " " : "", px(a, r->points[i].achieved_ops),
			py(a, r->points[i].mean_ms));
	}
	fputs("\"/>\n", out);
	for (unsigned i = 0; i < n; i++) {
		const struct bench_point *pt = &r->points[i];

		if (!plottable(pt))
			continue;
		fprintf(out,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" stroke=\"%s\" stroke-width=\"2\" "
			"fill=\"%s\"/>\n",
			px(a, pt->achieved_ops), py(a, pt->mean_ms), c, pt->valid ? c : "white");
	}
	fputs("</g>\n", out);
}

static void draw_legend(FILE *out, const struct bench_run *runs, unsigned nruns)
{
	double x = PLOT_RIGHT + 20, y = PLOT_TOP + 10;

	fputs("<g>\n", out);
	for (unsigned r = 0; r < nruns; r++, y += 40) {
		const char *c = chart_colors[r % NCOLORS];

		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			"fill=\"%s\"/>\n"
			"<text x=\"%.1f\" y=\"%.1f\">",
			x, y, x + 24, y, c, x + 12, y, c, x + 32, y + 4);
		svg_text(out, runs[r].label[0] ? runs[r].label : "(unnamed)");
		fprintf(out, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 32,
			y + 20);
		if (runs[r].peak_ops > 0)
			fprintf(out, "peak %.0f ops/s, ORT %.2f ms", runs[r].peak_ops,
				runs[r].ort_ms);
		else
			fputs("no valid peak", out);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" stroke=\"black\" stroke-width=\"2\" "
		"fill=\"white\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">invalid point"
		"</text>\n</g>\n",
		x + 12, y, x + 32, y + 4);
}

int bench_chart_svg(const struct bench_run *runs, unsigned nruns, FILE *out)
{
	struct axes a;

	axes_fit(&a, runs, nruns);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<title>shoal-bench: throughput and response time</title>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n"
		"<text x=\"%.1f\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">",
		SVG_W, SVG_H, SVG_W, SVG_H, SVG_W, SVG_H, (PLOT_LEFT + PLOT_RIGHT) / 2);
	svg_text(out, nruns && runs[0].workload[0] ? runs[0].workload : "SFS2008-NFSv3");
	fputs(": response time against achieved throughput</text>\n", out);
	draw_axes(out, &a);
	for (unsigned r = 0; r < nruns; r++)
		draw_run(out, &a, &runs[r], chart_colors[r % NCOLORS]);
	draw_legend(out, runs, nruns);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
