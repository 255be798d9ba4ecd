/* A map from strings (copied) to 64-bit values, for the store's tables of
 * texts: symbol ids, symtab numbers, distinct devices, batch clusters.
 * Open addressing on a word-at-a-time hash; zeroed is empty. */
#ifndef HANGAR_STRMAP_H
#define HANGAR_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct strmap {
	char **keys;       /* owned; NULL: an empty slot */
	int64_t *values;
	size_t mask, len;
} strmap;

/* A hash of a NUL-terminated text (not stored anywhere: tables only). */
size_t strmap_hash(const char *s);

/* Frees everything; the map is empty (and usable) again. */
void strmap_clear(strmap *m);
/* The value of key: false when absent. */
bool strmap_get(const strmap *m, const char *key, int64_t *value);
/* Sets key (copied when new) to value: 0 or HG_ENOMEM (map unchanged). */
int strmap_put(strmap *m, const char *key, int64_t value);

#endif
