/* Which frames of a merged tree name a cluster's StackKey (private to
 * flame_callers.c and flame_callers_key.c). */
#ifndef HANGAR_FLAME_CALLERS_H
#define HANGAR_FLAME_CALLERS_H

#include "hangar/arena.h"

#define FLAME_KEY_FORMS 5

/* A key_symbol and the labels its text can be, each also with compiler
 * numbering normalized ("$2" -> "$N", as signatures compare names). */
struct flame_key_names {
	const char *key;                     /* borrowed */
	const char *forms[FLAME_KEY_FORMS];  /* the key, then the labels it reads as (arena) */
	char *norm[FLAME_KEY_FORMS];         /* each normalized, malloc'd */
	size_t n;
};

/* Reads key_symbol (borrowed) for the labels it can be: as it is, a Java
 * line's "cls.method", an unsymbolicated native line's "image+0xoffset"
 * (Android's "#00 pc ..." and Apple's "IMAGE 0xPC 0xLOAD + N"), and the
 * line with its mangled names demangled.  Strings in arena; release
 * frees the rest (also after a failed init).  0 or HG_ENOMEM. */
int flame_key_names_init(struct flame_key_names *k, const char *key_symbol, hg_arena *arena);
void flame_key_names_release(struct flame_key_names *k);

/* How the label sym names the key: 3 it is key_symbol, 2 one of its
 * forms but for compiler numbering, 1 one of its forms holds it as a whole
 * frame name or it holds one ("a.b.C.m" and "a.b.C.m(int)"), 0 not.
 * *err set to HG_ENOMEM when it ran out (then 0). */
int flame_key_names_match(const struct flame_key_names *k, const char *sym, int *err);

#endif
