/*
 * replay.c - run fuzz inputs without libFuzzer: the `make check-fuzz` driver.
 *
 *   replay_<target> [-q] PATH...
 *
 * Every PATH is a file or a directory whose regular files (in name order, not
 * recursively) are fed once each to the target's LLVMFuzzerTestOneInput(), after
 * LLVMFuzzerInitialize() if the target has one. Links with gcc or clang and any BUILD,
 * so the committed corpus and every past crash run under ASan/UBSan in `make check`.
 * A crash ends the process (the sanitizers report it); otherwise the last line is
 * "replay: N inputs" and the exit status 0. -q prints nothing else; without it each
 * file's name is printed before it runs, so that a crash names its input.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

/* Weak: a target without set-up leaves this NULL. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static bool quiet;
static unsigned long ninputs;

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) || st.st_size < 0) {
		fprintf(stderr, "replay: %s: cannot stat\n", path);
		fclose(f);
		return -1;
	}
	/* An exact-size copy, so that reading one byte past the input is caught. */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	if (!quiet)
		fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	ninputs++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
	struct dirent *de;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	int rc = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* also skips .gitkeep */
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (!nn)
				abort();
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			abort();
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0, first = 1;

	if (argc > 1 && strcmp(argv[1], "-q") == 0) {
		quiet = true;
		first = 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = first; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i])) {
			rc = 1;
		}
	}
	printf("replay: %lu inputs\n", ninputs);
	return rc;
}
