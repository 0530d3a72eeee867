/*
 * fuzz_bench_json.c - fuzz the reader of shoal-bench's JSON results
 * (bench_json_parse in tools/bench/bench_json.c), which shoal-bench-report runs on files
 * that may come from anyone's run, of any version.
 *
 * Input: the bytes of a result file. A refusal must leave the run zeroed and say at
 * which byte it stopped. A run that is read must survive bench_json_write() and a
 * second reading bit for bit: what the reader accepts, the writer can express.
 */
#include <stdio.h>

#include "bench_json.h"
#include "fuzz/fuzz.h"

static struct bench_run first, second;
static const struct bench_run zero;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (bench_json_parse((const char *)data, size, &first, err, sizeof(err)) != 0) {
		if (memcmp(&first, &zero, sizeof(zero)) != 0 || strncmp(err, "byte ", 5) != 0)
			abort(); /* a refusal must leave nothing behind and say where */
		return 0;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	if (bench_json_write(&first, f) != 0)
		abort();
	fclose(f);
	if (bench_json_parse(buf, len, &second, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_bench_json: its own output refused: %s\n", err);
		abort();
	}
	if (memcmp(&first, &second, sizeof(first)) != 0) {
		fprintf(stderr, "fuzz_bench_json: read back differently\n");
		abort();
	}
	free(buf);
	return 0;
}
