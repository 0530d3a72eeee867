/*
 * test_arena.c - the request arena: allocations are aligned and distinct, a reset keeps
 * the first chunk for reuse, and arena_give_back() returns only the last allocation.
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

static void test_give_back_last_only(void)
{
	struct arena a;
	unsigned char *p, *q, *r;

	arena_init(&a, 4096);
	p = arena_alloc(&a, 100);
	q = arena_alloc(&a, 100);
	arena_give_back(&a, p, 100); /* not the last: stays */
	r = arena_alloc(&a, 100);
	CHECK(r != p && r != q);
	arena_give_back(&a, r, 100); /* the last: its bytes are reused */
	CHECK(arena_alloc(&a, 100) == r);
	arena_give_back(&a, NULL, 100);
	arena_give_back(&a, r, (size_t)-1);
	CHECK(arena_alloc(&a, 1) == r + 112);
	arena_fini(&a);
}

/* A large buffer given back frees its chunk: later allocations continue where the
 * regular chunk left off. */
static void test_give_back_large(void)
{
	struct arena a;
	unsigned char *p, *big;

	arena_init(&a, 4096);
	p = arena_alloc(&a, 32);
	big = arena_alloc(&a, 65536);
	CHECK(big != NULL);
	arena_give_back(&a, big, 65536);
	CHECK(arena_alloc(&a, 32) == p + 32);
	big = arena_alloc(&a, 65536);
	CHECK(big != NULL);
	if (big)
		memset(big, 0, 65536);
	arena_fini(&a);
}

TESTS(test_alloc_and_reset, test_give_back_last_only, test_give_back_large)
