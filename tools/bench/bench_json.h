/*
 * bench_json.h - a shoal-bench run stored as JSON ("format": "shoal-bench/1"), for
 * machines and for shoal-bench-report, and read back by a strict reader of that format.
 *
 * Compatibility: within one format, later versions of shoal-bench only add members that
 * a reader may ignore (as "server_threads" was added), and readers skip members they do
 * not know, so that runs written by different versions can be reported and charted
 * together; a member left out reads as zero. A change that an older reader would
 * misread (a member whose meaning or unit changes, one that may no longer be ignored)
 * takes a new format name, which older readers refuse by name.
 */
#ifndef SHOAL_BENCH_JSON_H
#define SHOAL_BENCH_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "bench_result.h"

#define BENCH_JSON_FORMAT "shoal-bench/1"

/*
 * bench_json_write - write @run to @out as one JSON object. Numbers are printed with the
 * fewest digits that read back to the same double (non-finite ones as null); per-operation
 * entries are written only for operations that have a name or any non-zero statistic.
 * Returns 0, or -1 if writing failed (ferror(@out)).
 */
int bench_json_write(const struct bench_run *run, FILE *out);

/*
 * bench_json_parse - read the @len bytes at @buf, which must be one JSON object in the
 * format bench_json_write() writes: "format" present and equal to BENCH_JSON_FORMAT, no
 * repeated keys, values of the right type and range, strings that fit their fields,
 * nothing but white space after the object. Keys may come in any order; keys left out
 * read as zero; a key it does not know is skipped, its value checked to be well-formed
 * JSON nested at most 16 deep. On success fills @run (zeroed first) and returns 0; otherwise
 * returns -1 and writes "byte N: what was wrong" into @err (@errlen bytes, may be 0).
 */
int bench_json_parse(const char *buf, size_t len, struct bench_run *run, char *err, size_t errlen);

/*
 * bench_json_read - bench_json_parse() the file at @path into @run. Returns 0; -1 after
 * printing "PATH: reason" to stderr if the file cannot be read or is malformed.
 */
int bench_json_read(const char *path, struct bench_run *run);

#endif
