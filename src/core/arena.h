/*
 * arena.h - per-request bump allocator.
 *
 * A request's decoded arguments, result structs and scratch buffers (READ data,
 * READDIR entries) come from its arena and are released all at once by arena_reset()
 * when the request is done (the last one alone by arena_give_back()). The first chunk
 * is kept across resets, so a steady stream of small calls allocates nothing from the
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

/* Prepare an empty arena whose regular chunks hold @chunk_size bytes. */
void arena_init(struct arena *a, size_t chunk_size);
/* Free every chunk. */
void arena_fini(struct arena *a);
/* Release all allocations, keeping the first chunk for reuse. */
void arena_reset(struct arena *a);
/*
 * Return @n bytes aligned to 16, valid until the next arena_reset() or arena_fini(),
 * or NULL when memory is exhausted. Freed alone only by arena_give_back().
 */
void *arena_alloc(struct arena *a, size_t n);
/*
 * Give back @p, got from arena_alloc(@a, @n), if it is still the arena's last
 * allocation (a call that is to run again elsewhere drops its buffer); otherwise
 * nothing happens and @p stays until the reset. A chunk left empty is freed, unless it
 * is the kept one.
 */
void arena_give_back(struct arena *a, void *p, size_t n);
/* arena_alloc() and zero the bytes. */
void *arena_zalloc(struct arena *a, size_t n);

#endif
