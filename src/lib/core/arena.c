/* A bump allocator in chunks; large requests get a chunk of their own. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "bigmem.h"
#include "hangar/arena.h"

#define CHUNK_SIZE ((size_t)64 * 1024)
/* An arena that outgrows CHUNK_SIZE (a million-frame stack, its flame
 * graph) goes on doubling its chunks up to this, so that its last ones are
 * on huge pages (chunk_new) and not a fault every 4 KiB.  At most half of
 * what it holds is unused. */
#define MAX_CHUNK_SIZE ((size_t)4 << 20)
#define ALIGN ((size_t)16)

/* Chunks are a doubly linked list, so that a block with a chunk of its own
 * can be realloc'd in place of it (hg_arena_regrow).  The header stays 32
 * bytes. */
struct chunk {
	struct chunk *next, *prev;
	size_t used;
	size_t size;
	_Alignas(16) unsigned char data[];
};

#define SPARE_CLASSES 40 /* blocks handed back by hg_arena_regrow, by log2 of their size */

struct spare {
	struct spare *next;
	size_t size;
};

struct hg_arena {
	struct chunk *head;
	size_t chunk_size;  /* of the next chunk: grows from what create_sized asked to CHUNK_SIZE */
	struct spare *spare[SPARE_CLASSES]; /* blocks of [2^k, 2^(k+1)) bytes */
};

hg_arena *hg_arena_create(void)
{
	return hg_arena_create_sized(CHUNK_SIZE);
}

hg_arena *hg_arena_create_sized(size_t first_chunk)
{
	hg_arena *a = calloc(1, sizeof(hg_arena));
	if (a)
		a->chunk_size = first_chunk < 256 ? 256 : first_chunk > CHUNK_SIZE ? CHUNK_SIZE
										  : first_chunk;
	return a;
}

/* Chunks of the usual sizes, kept for the next arena instead of freed.
 * A report's arena is made by the reading thread and destroyed by the one
 * that prints or stores it: glibc frees another thread's block under the
 * lock of that thread's malloc arena, which the reader takes for every
 * malloc, so each report's chunks cost both threads a futex wait or wake
 * (8% of a raw-buffer stream's time by perf).  Here the lock is held for a
 * few pointer moves only.  A chunk of 4 KiB to CHUNK_SIZE, a power of two
 * (what arenas grow by), is kept in the list of its size; each holds
 * CACHE_MAX at most (1.9 MiB in all: 16 did as well as 64 on a raw-buffer
 * stream), and what is over goes back to malloc.  Under AddressSanitizer
 * a kept chunk is poisoned, so a use after hg_arena_destroy is still
 * caught. */
#define CACHE_MAX 16
#define CACHE_SMALLEST 12 /* log2 of 4 KiB */
#define CACHE_CLASSES 5   /* 4, 8, 16, 32 and 64 KiB */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* Arrays, not lists through the chunks: LeakSanitizer does not look
 * inside poisoned memory. */
static struct chunk *cache[CACHE_CLASSES][CACHE_MAX];
static size_t cache_len[CACHE_CLASSES];

/* The list a chunk of size bytes is kept in, -1 for none. */
static int cache_class(size_t size)
{
	if (size < ((size_t)1 << CACHE_SMALLEST) || size > CHUNK_SIZE || (size & (size - 1)))
		return -1;
	return __builtin_ctzll((unsigned long long)size) - CACHE_SMALLEST;
}

static struct chunk *cache_take(int k)
{
	struct chunk *c = NULL;
	pthread_mutex_lock(&cache_lock);
	if (cache_len[k])
		c = cache[k][--cache_len[k]];
	pthread_mutex_unlock(&cache_lock);
	if (c)
		UNPOISON(c, sizeof *c + ((size_t)1 << (k + CACHE_SMALLEST)));
	return c;
}

size_t hg_arena_cached_chunks(void)
{
	size_t n = 0;
	pthread_mutex_lock(&cache_lock);
	for (int k = 0; k < CACHE_CLASSES; k++)
		n += cache_len[k];
	pthread_mutex_unlock(&cache_lock);
	return n;
}

void hg_arena_free_cached(void)
{
	for (int k = 0; k < CACHE_CLASSES; k++) {
		struct chunk *c;
		while ((c = cache_take(k)) != NULL)
			free(c);
	}
}

/* Keeps what it can of a list of chunks of the usual sizes (linked by
 * next) and frees the rest. */
static void cache_give(struct chunk *first)
{
	pthread_mutex_lock(&cache_lock);
	struct chunk *over = NULL;
	while (first) {
		struct chunk *next = first->next;
		int k = cache_class(first->size);
		if (cache_len[k] < CACHE_MAX) {
			POISON(first, sizeof *first + first->size);
			cache[k][cache_len[k]++] = first;
		} else {
			first->next = over;
			over = first;
		}
		first = next;
	}
	pthread_mutex_unlock(&cache_lock);
	while (over) {
		struct chunk *next = over->next;
		free(over);
		over = next;
	}
}

void hg_arena_destroy(hg_arena *arena)
{
	if (!arena)
		return;
	struct chunk *keep = NULL;
	struct chunk *c = arena->head;
	while (c) {
		struct chunk *next = c->next;
		if (cache_class(c->size) >= 0) {
			c->next = keep;
			keep = c;
		} else {
			free(c);
		}
		c = next;
	}
	if (keep)
		cache_give(keep);
	free(arena);
}

static struct chunk *chunk_new(size_t size, bool zeroed)
{
	if (size > SIZE_MAX - sizeof(struct chunk))
		return NULL;
	int k = zeroed ? -1 : cache_class(size);
	if (k >= 0) {
		struct chunk *c = cache_take(k);
		if (c) {
			c->next = c->prev = NULL;
			c->used = 0;
			c->size = size;
			return c;
		}
	}
	struct chunk *c;
	if (size >= HG_HUGE_PAGE) {
		/* Asked for huge pages before anything touches it: glibc may
		 * serve a block this large from its heap, where calloc would
		 * clear it (or a copy fill it) first, a 4 KiB fault a page. */
		c = hg_big_alloc(sizeof(struct chunk) + size);
		if (c && zeroed)
			memset(c->data, 0, size);
	} else {
		/* calloc of a large block maps fresh zero pages: no memset,
		 * and pages the caller never touches cost nothing. */
		c = zeroed ? calloc(1, sizeof(struct chunk) + size) : malloc(sizeof(struct chunk) + size);
	}
	if (!c)
		return NULL;
	c->next = c->prev = NULL;
	c->used = 0;
	c->size = size;
	return c;
}

/* Memory of the arena, zeroed when asked: copies that fill it whole
 * (strings, a tenth of a big ingest's allocations, a buffer's words) skip
 * the memset.  A block of its own comes from calloc when zeroed (fresh
 * zero pages when large, that the caller may never touch), else from
 * malloc: calloc clears a block of a few kilobytes byte by byte; one of
 * 2 MiB or more from hg_big_alloc, cleared by hand (see chunk_new). */
static void *take(hg_arena *arena, size_t size, bool zero)
{
	if (size == 0)
		size = 1;
	if (size > SIZE_MAX - ALIGN)
		return NULL;
	size = (size + ALIGN - 1) & ~(ALIGN - 1);
	struct chunk *c = arena->head;
	if (size > CHUNK_SIZE / 4 || !c || c->size - c->used < size) {
		if (size > CHUNK_SIZE / 4 || size > arena->chunk_size / 4) {
			/* A large block gets its own chunk (always, over a
			 * quarter of CHUNK_SIZE: so that hg_arena_regrow can
			 * realloc it), linked behind the
			 * current one so the current chunk keeps serving. */
			struct chunk *big = chunk_new(size, zero);
			if (!big)
				return NULL;
			big->used = size;
			if (c) {
				big->next = c->next;
				big->prev = c;
				if (c->next)
					c->next->prev = big;
				c->next = big;
			} else {
				arena->head = big;
			}
			return big->data;
		}
		/* Past CHUNK_SIZE its header comes out of the size, so that a
		 * chunk of 2 MiB or 4 MiB fills its huge pages and no more. */
		c = chunk_new(arena->chunk_size > CHUNK_SIZE ? arena->chunk_size - sizeof(struct chunk)
							      : arena->chunk_size, false);
		if (!c)
			return NULL;
		if (arena->chunk_size < MAX_CHUNK_SIZE)
			arena->chunk_size *= 2;
		c->next = arena->head;
		if (c->next)
			c->next->prev = c;
		arena->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	if (zero)
		memset(p, 0, size);
	return p;
}

void *hg_arena_alloc(hg_arena *arena, size_t size)
{
	return take(arena, size, true);
}

void *hg_arena_alloc_unzeroed(hg_arena *arena, size_t size)
{
	return take(arena, size, false);
}

void *hg_arena_calloc(hg_arena *arena, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return hg_arena_alloc(arena, count * size);
}

char *hg_arena_strndup(hg_arena *arena, const char *s, size_t len)
{
	if (len == SIZE_MAX)
		return NULL;
	char *p = take(arena, len + 1, false);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *hg_arena_strdup(hg_arena *arena, const char *s)
{
	return hg_arena_strndup(arena, s, strlen(s));
}

char *hg_arena_vprintf(hg_arena *arena, const char *fmt, va_list ap)
{
	/* Formatted once into a stack buffer, which short texts (frame names,
	 * keys) fit; again straight into the arena only when it did not. */
	char small[256];
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(small, sizeof small, fmt, copy);
	va_end(copy);
	if (n < 0)
		return NULL;
	char *p = take(arena, (size_t)n + 1, false);
	if (!p)
		return NULL;
	if ((size_t)n < sizeof small)
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *hg_arena_printf(hg_arena *arena, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = hg_arena_vprintf(arena, fmt, ap);
	va_end(ap);
	return p;
}

/* The list a block of `size` bytes goes to: floor(log2(size)); -1 for
 * blocks too small to hold their link. */
static int size_class(size_t size)
{
	if (size < sizeof(struct spare))
		return -1;
	int k = 63 - __builtin_clzll((unsigned long long)size);
	return k < SPARE_CLASSES ? k : -1;
}

/* Whether hg_arena_alloc gave a block of size bytes a chunk of its own. */
static bool own_chunk(size_t size)
{
	return size <= SIZE_MAX - ALIGN && ((size + ALIGN - 1) & ~(ALIGN - 1)) > CHUNK_SIZE / 4;
}

/* Grows (or shrinks) a block that has a chunk of its own by realloc of the
 * chunk: glibc moves a big one by remapping its pages, so that neither a
 * copy nor the outgrown block is paid for, and the block is never held
 * twice. */
static void *regrow_own(hg_arena *arena, void *p, size_t old_size, size_t new_size)
{
	if (new_size > SIZE_MAX - sizeof(struct chunk))
		return NULL;
	struct chunk *c = (struct chunk *)((unsigned char *)p - offsetof(struct chunk, data));
	struct chunk *prev = c->prev, *next = c->next;
	struct chunk *n = realloc(c, sizeof(struct chunk) + new_size);
	if (!n)
		return NULL;
	if (prev)
		prev->next = n;
	else
		arena->head = n;
	if (next)
		next->prev = n;
	if (new_size > old_size)
		memset(n->data + old_size, 0, new_size - old_size);
	n->used = n->size = new_size;
	return n->data;
}

void *hg_arena_regrow(hg_arena *arena, void *p, size_t old_size, size_t new_size)
{
	if (p && own_chunk(old_size) && new_size)
		return regrow_own(arena, p, old_size, new_size);
	int k = size_class(new_size);
	struct spare *s = k >= 0 ? arena->spare[k] : NULL;
	void *q;
	if (s && s->size >= new_size) { /* arrays grown alike come back at one size */
		arena->spare[k] = s->next;
		q = s;
		memset(q, 0, new_size);
	} else if (!(q = hg_arena_alloc(arena, new_size))) {
		return NULL;
	}
	if (p && old_size)
		memcpy(q, p, old_size < new_size ? old_size : new_size);
	int old_k = p ? size_class(old_size) : -1;
	if (old_k >= 0) {
		s = p;
		s->size = old_size;
		s->next = arena->spare[old_k];
		arena->spare[old_k] = s;
	}
	return q;
}

int hg_strlist_addf(hg_strlist *list, hg_arena *arena, const char *fmt, ...)
{
	if (list->len == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		char **items = hg_arena_calloc(arena, cap, sizeof *items);
		if (!items)
			return HG_ENOMEM;
		if (list->len)
			memcpy(items, list->items, list->len * sizeof *items);
		list->items = items;
		list->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = hg_arena_vprintf(arena, fmt, ap);
	va_end(ap);
	if (!s)
		return HG_ENOMEM;
	list->items[list->len++] = s;
	return 0;
}
