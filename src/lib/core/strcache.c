/* The string cache of strcache.h. */
#include <stdlib.h>
#include <string.h>

#include "strcache.h"

#define SLOTS ((size_t)1 << 15) /* 512 KiB of slots, touched only where used */
#define MAX_CACHED 4096         /* longer strings are rare and copied each time */

struct strcache_slot {
	const char *s;
	uint32_t len, hash;
};

void strcache_init(struct strcache *c, hg_arena *arena)
{
	c->arena = arena;
	c->slots = NULL;
}

void strcache_release(struct strcache *c)
{
	free(c->slots);
	c->slots = NULL;
}

static uint32_t hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h ^ (h >> 15);
}

const char *strcache_get(struct strcache *c, const char *s, size_t len)
{
	if (len > MAX_CACHED)
		return hg_arena_strndup(c->arena, s, len);
	if (!c->slots && !(c->slots = calloc(SLOTS, sizeof *c->slots)))
		return hg_arena_strndup(c->arena, s, len); /* no cache: copies still work */
	uint32_t h = hash(s, len);
	struct strcache_slot *slot = &c->slots[h & (SLOTS - 1)];
	if (slot->s && slot->hash == h && slot->len == len && memcmp(slot->s, s, len) == 0)
		return slot->s;
	char *copy = hg_arena_strndup(c->arena, s, len);
	if (copy) {
		slot->s = copy;
		slot->len = (uint32_t)len;
		slot->hash = h;
	}
	return copy;
}
