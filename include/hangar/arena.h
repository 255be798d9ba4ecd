/* One arena per report: everything parsed or derived from a report is
 * allocated here and released in one hg_arena_destroy(). */
#ifndef HANGAR_ARENA_H
#define HANGAR_ARENA_H

#include <stdarg.h>
#include <stddef.h>

#include "hangar.h"

typedef struct hg_arena hg_arena;

/* Returns a new empty arena (caller owns; hg_arena_destroy), NULL on ENOMEM. */
hg_arena *hg_arena_create(void);
/* One whose first chunk is about first_chunk bytes (chunks then double up
 * to the usual 64 KiB): for the many small arenas of small documents. */
hg_arena *hg_arena_create_sized(size_t first_chunk);
/* Frees the arena and everything allocated from it.  Accepts NULL. */
void hg_arena_destroy(hg_arena *arena);

/* Arenas keep up to 16 chunks of each usual size (4 to 64 KiB) when
 * destroyed, for the next arena (on any thread) to use instead of malloc:
 * a report's arena is made by one thread and destroyed by another, and
 * glibc frees another thread's memory under a lock that thread's mallocs
 * take.  The chunks kept now, and a call that frees them all (both
 * thread-safe). */
size_t hg_arena_cached_chunks(void);
void hg_arena_free_cached(void);

/* Zeroed memory owned by the arena; NULL on ENOMEM or size overflow. */
void *hg_arena_alloc(hg_arena *arena, size_t size);
void *hg_arena_calloc(hg_arena *arena, size_t count, size_t size);
/* The same, not zeroed: for memory the caller fills whole before reading. */
void *hg_arena_alloc_unzeroed(hg_arena *arena, size_t size);
/* A NUL-terminated copy of s[0..len) owned by the arena. */
char *hg_arena_strndup(hg_arena *arena, const char *s, size_t len);
char *hg_arena_strdup(hg_arena *arena, const char *s);
char *hg_arena_printf(hg_arena *arena, const char *fmt, ...) HG_PRINTF(2, 3);
char *hg_arena_vprintf(hg_arena *arena, const char *fmt, va_list ap);

/* Growing arrays: hg_arena_regrow returns room for new_size bytes holding
 * the first old_size bytes of p (NULL p: none), the rest zeroed; p's block
 * (of old_size bytes, from hg_arena_regrow or hg_arena_alloc) goes back to
 * the arena, for a later regrow of that size, instead of being lost until
 * the arena goes; a big block (one with a chunk of its own, over 16 KiB) is
 * realloc'd instead, so that one huge array costs its final size and is
 * never copied whole.  Arrays grown by doubling (a thread's frames, thread
 * by thread) then cost their final size, not twice it.  NULL on ENOMEM (p
 * is kept). */
void *hg_arena_regrow(hg_arena *arena, void *p, size_t old_size, size_t new_size);

/* A growable list of strings whose storage lives in an arena. */
typedef struct hg_strlist {
	char **items;
	size_t len;
	size_t cap;
} hg_strlist;

/* Appends a formatted string; returns 0 or HG_ENOMEM. */
int hg_strlist_addf(hg_strlist *list, hg_arena *arena, const char *fmt, ...) HG_PRINTF(3, 4);

#endif
