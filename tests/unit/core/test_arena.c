/*
 * test_arena.c - the request arena: allocations are aligned and distinct, a reset keeps
 * the first chunk for reuse, and arena_rewind() releases what came after its mark.
 */
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "unit/test.h"

static void test_alloc_and_reset(void)
{
	struct arena a;
	unsigned char *p, *q, *big;

	arena_init(&a, 4096);
	p = arena_alloc(&a, 10);
	q = arena_alloc(&a, 10);
	CHECK(p && q && p != q);
	CHECK((uintptr_t)p % 16 == 0 && (uintptr_t)q % 16 == 0);
	CHECK_EQ(q - p, 16);
	big = arena_alloc(&a, 100000); /* a chunk of its own */
	CHECK(big != NULL);
	if (big)
		memset(big, 0xab, 100000); /* all of it is ours (ASan would tell) */
	CHECK(arena_alloc(&a, (size_t)-1) == NULL);
	arena_reset(&a);
	CHECK(arena_alloc(&a, 10) == p); /* the first chunk is kept */
	arena_fini(&a);
}

/* A rewind releases what came after the mark, also a chunk of its own, and nothing
 * before it. */
static void test_rewind(void)
{
	struct arena a;
	struct arena_mark m;
	unsigned char *p, *q, *big;

	arena_init(&a, 4096);
	p = arena_alloc(&a, 100);
	arena_mark(&a, &m);
	q = arena_alloc(&a, 100);
	big = arena_alloc(&a, 65536);
	CHECK(p && q && big);
	arena_alloc(&a, 10); /* a regular chunk after the large one */
	arena_rewind(&a, &m);
	CHECK(arena_alloc(&a, 100) == q);
	CHECK(arena_alloc(&a, 1) == q + 112);
	arena_rewind(&a, &m);
	arena_rewind(&a, &m); /* twice: nothing more to release */
	CHECK(arena_alloc(&a, 100) == q);
	arena_reset(&a);
	CHECK(arena_alloc(&a, 100) == p); /* the kept chunk survived */
	arena_fini(&a);
}

/* A mark taken on an empty arena: a rewind frees every chunk, the kept one too, and the
 * arena works on as new. */
static void test_rewind_to_empty(void)
{
	struct arena a;
	struct arena_mark m;
	unsigned char *p;

	arena_init(&a, 4096);
	arena_mark(&a, &m);
	CHECK(arena_alloc(&a, 100) != NULL);
	CHECK(arena_alloc(&a, 65536) != NULL);
	arena_rewind(&a, &m);
	p = arena_alloc(&a, 100);
	CHECK(p != NULL);
	arena_reset(&a);
	CHECK(arena_alloc(&a, 100) == p);
	arena_fini(&a);
}

TESTS(test_alloc_and_reset, test_rewind, test_rewind_to_empty)
