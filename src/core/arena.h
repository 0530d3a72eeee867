/*
 * arena.h - per-request bump allocator.
 *
 * A request's decoded arguments, result structs and scratch buffers (READ data,
 * READDIR entries) come from its arena and are released all at once by arena_reset()
 * when the request is done (or back to a mark by arena_rewind()). The first chunk is
 * kept across resets, so a steady stream of small calls allocates nothing from the
 * heap.
 */
#ifndef SHOAL_ARENA_H
#define SHOAL_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head; /* chunk being filled; older ones linked behind it */
	struct arena_chunk *keep; /* first chunk, kept by arena_reset() */
	size_t chunk_size;
};

/* A point in an arena's allocations to go back to (arena_mark(), arena_rewind()). */
struct arena_mark {
	struct arena_chunk *chunk;
	size_t used;
};

/* Prepare an empty arena whose regular chunks hold @chunk_size bytes. */
void arena_init(struct arena *a, size_t chunk_size);
/* Free every chunk. */
void arena_fini(struct arena *a);
/* Release all allocations, keeping the first chunk for reuse. */
void arena_reset(struct arena *a);
/*
 * Return @n bytes aligned to 16, valid until the next arena_reset() or arena_fini(),
 * or NULL when memory is exhausted. Never freed individually.
 */
void *arena_alloc(struct arena *a, size_t n);
/* Note in *@m where @a's allocations stand now; valid until the next arena_reset(). */
void arena_mark(const struct arena *a, struct arena_mark *m);
/* Release every allocation made since @m was noted (a call that is to run again
 * elsewhere drops what its first attempt allocated); chunks begun since are freed. */
void arena_rewind(struct arena *a, const struct arena_mark *m);
/* arena_alloc() and zero the bytes. */
void *arena_zalloc(struct arena *a, size_t n);

#endif
