/* The string map of strmap.h. */
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "strmap.h"

/* Eight bytes at a time after strlen: the texts hashed here are frame
 * symbols of 50 to 100 bytes, which FNV-1a's multiply per byte took a
 * fifth of a microsecond each to hash (1.6 % of a big ingest). */
size_t strmap_hash(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
	h ^= h >> 29;
	h *= 0x9E3779B97F4A7C15ULL;
	return (size_t)(h ^ (h >> 32));
}

void strmap_clear(strmap *m)
{
	for (size_t i = 0; m->keys && i <= m->mask; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->values);
	*m = (strmap){0};
}

/* The slot of key: its own, or the empty one where it goes. */
static size_t slot_of(const strmap *m, const char *key)
{
	size_t i = strmap_hash(key) & m->mask;
	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & m->mask;
	return i;
}

bool strmap_get(const strmap *m, const char *key, int64_t *value)
{
	if (!m->keys)
		return false;
	size_t i = slot_of(m, key);
	if (!m->keys[i])
		return false;
	*value = m->values[i];
	return true;
}

static int grow(strmap *m)
{
	size_t cap = m->keys ? 2 * (m->mask + 1) : 64;
	strmap bigger = {calloc(cap, sizeof(char *)), malloc(cap * sizeof(int64_t)), cap - 1,
			 m->len};
	if (!bigger.keys || !bigger.values) {
		free(bigger.keys);
		free(bigger.values);
		return HG_ENOMEM;
	}
	for (size_t i = 0; m->keys && i <= m->mask; i++) {
		if (!m->keys[i])
			continue;
		size_t j = slot_of(&bigger, m->keys[i]);
		bigger.keys[j] = m->keys[i];
		bigger.values[j] = m->values[i];
	}
	free(m->keys);
	free(m->values);
	*m = bigger;
	return 0;
}

int strmap_put(strmap *m, const char *key, int64_t value)
{
	if ((!m->keys || 2 * (m->len + 1) > m->mask + 1) && grow(m) != 0)
		return HG_ENOMEM;
	size_t i = slot_of(m, key);
	if (!m->keys[i]) {
		if (!(m->keys[i] = strdup(key)))
			return HG_ENOMEM;
		m->len++;
	}
	m->values[i] = value;
	return 0;
}
