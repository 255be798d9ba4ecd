/* A bounded cache of arena strings (private to the library): readers that
 * copy the same few strings over and over (an image name, a symbol, a
 * frame's text, once per frame of a million-frame report) keep one copy of
 * each instead.  Direct-mapped: a string whose slot another took is copied
 * again, so the cache never grows past its fixed size, and a report whose
 * strings never repeat costs no more than before.  The strings it returns
 * are shared: never write through them. */
#ifndef HANGAR_LIB_STRCACHE_H
#define HANGAR_LIB_STRCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "hangar/arena.h"

struct strcache_slot;

struct strcache {
	hg_arena *arena;              /* where the strings live (borrowed) */
	struct strcache_slot *slots;  /* malloc'd on first use */
};

/* An empty cache whose strings go to arena.  Release it with
 * strcache_release; the strings stay in the arena. */
void strcache_init(struct strcache *c, hg_arena *arena);
void strcache_release(struct strcache *c);

/* A NUL-terminated copy of s[0..len) in the arena, or one made earlier
 * with the same bytes; NULL on ENOMEM. */
const char *strcache_get(struct strcache *c, const char *s, size_t len);

#endif
