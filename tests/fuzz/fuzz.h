/*
 * fuzz.h - what every fuzz target in tests/fuzz/<target>/ shares.
 *
 * A target is one LLVMFuzzerTestOneInput() per directory. The same object links either
 * with libFuzzer (clang -fsanitize=fuzzer, BUILD=fuzz: `make fuzz`) or with replay.c
 * (any compiler, any BUILD: `make check-fuzz` runs the committed corpus and crashes).
 */
#ifndef SHOAL_FUZZ_H
#define SHOAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/rpc.h"

/* Run one input; must not keep @data. Returns 0 (libFuzzer reserves other values). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional one-time set-up, called before the first input by libFuzzer and replay.c. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Decode @data[0..size) as the arguments of procedure @procno in every version of
 * @prog that has it, each into a freshly allocated, zeroed argument struct of exactly
 * args_size bytes (so that ASan sees a decoder writing past its struct). Views that a
 * decoder returns must point into the input; a false return is a clean refusal.
 * Returns how many decoders ran.
 */
static inline unsigned fuzz_decode_proc(const struct rpc_program *prog, uint32_t procno,
					const uint8_t *data, size_t size)
{
	unsigned ran = 0;

	for (uint32_t v = 0; v < prog->nvers; v++) {
		const struct rpc_version *ver = &prog->versions[v];
		const struct rpc_proc *p;
		struct xdr_cur c;
		void *args;

		if (procno >= ver->nprocs)
			continue;
		p = &ver->procs[procno];
		if (!p->decode)
			continue;
		args = calloc(1, p->args_size ? p->args_size : 1);
		if (!args)
			abort();
		xdr_cur_init(&c, data, size);
		if (p->decode(&c, args) && (c.p < data || c.p > data + size))
			abort(); /* the cursor left the buffer */
		free(args);
		ran++;
	}
	return ran;
}

#endif
