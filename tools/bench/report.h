/*
 * report.h - the text report of a shoal-bench run, in the section layout of the
 * SPECsfs2008 ASCII reports (sfs-workload.md section 5.1).
 */
#ifndef SHOAL_BENCH_REPORT_H
#define SHOAL_BENCH_REPORT_H

#include <stdio.h>

#include "bench_result.h"

/*
 * bench_report_text - write the report of @run to @out. Measured figures, benchmark
 * parameters and host facts come from @run (run bench_finalize() first); what the tool
 * cannot know about the system under test (vendor, disks, network, stable storage...)
 * comes from the description file @desc_path, "Key: value" lines (see
 * bench/sut-example.txt), or reads "not stated". @desc_path may be NULL.
 * Returns 0; -1 after printing "FILE:LINE: reason" to stderr if the description file
 * cannot be read or has a line it does not understand, or if writing @out failed.
 */
int bench_report_text(const struct bench_run *run, const char *desc_path, FILE *out);

/* @pt's server CPU by thread group as " NAME US, NAME US..." (one decimal) into @buf,
 * cut short to fit; empty when it was not measured. */
void bench_report_threads(const struct bench_point *pt, char *buf, size_t size);

#endif
