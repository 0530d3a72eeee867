/*
 * arena.c - per-request bump allocator (see arena.h).
 *
 * Chunks are singly linked, newest first. An allocation larger than a regular chunk
 * gets a chunk of its own, which is never the kept one: a request that once read
 * 1 MiB must not pin 1 MiB for the rest of its life in the request pool.
 */
#include "core/arena.h"

#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;
	size_t used;
	_Alignas(16) unsigned char data[];
};

static struct arena_chunk *chunk_new(size_t size)
{
	struct arena_chunk *c = malloc(sizeof(*c) + size);

	if (!c)
		return NULL;
	c->next = NULL;
	c->size = size;
	c->used = 0;
	return c;
}

void arena_init(struct arena *a, size_t chunk_size)
{
	a->head = NULL;
	a->keep = NULL;
	a->chunk_size = chunk_size;
}

void arena_fini(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	while (c) {
		next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->keep = NULL;
}

void arena_reset(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	while (c) {
		next = c->next;
		if (c != a->keep)
			free(c);
		c = next;
	}
	a->head = a->keep;
	if (a->keep) {
		a->keep->next = NULL;
		a->keep->used = 0;
	}
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t want = (n + 15) & ~(size_t)15;
	void *p;

	if (want < n)
		return NULL;
	if (!c || c->size - c->used < want) {
		c = chunk_new(want > a->chunk_size ? want : a->chunk_size);
		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
		if (!a->keep && c->size == a->chunk_size)
			a->keep = c;
	}
	p = c->data + c->used;
	c->used += want;
	return p;
}

void arena_mark(const struct arena *a, struct arena_mark *m)
{
	m->chunk = a->head;
	m->used = a->head ? a->head->used : 0;
}

void arena_rewind(struct arena *a, const struct arena_mark *m)
{
	struct arena_chunk *c = a->head, *next;

	for (; c && c != m->chunk; c = next) {
		next = c->next;
		if (c == a->keep)
			a->keep = NULL; /* begun since the mark: the arena had none to keep */
		free(c);
	}
	a->head = m->chunk;
	if (m->chunk)
		m->chunk->used = m->used;
}

void *arena_zalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);

	if (p)
		memset(p, 0, n);
	return p;
}
