/* A memo of the symbols a mapping has already formatted.  Ingesting a
 * bucket asks for the same few thousand ids again and again; without the
 * memo each ask is a pread() and a formatting pass.  Bounded: past
 * MEMO_MAX_BYTES of symbols nothing more is remembered (lookups stay
 * correct, only slower). */
#include <stdlib.h>
#include <string.h>

#include "mapping_internal.h"

#define MEMO_MAX_BYTES ((size_t)64 << 20)
#define ABSENT ((char *)&absent_marker)

static const char absent_marker;

struct memo_slot {
	int32_t id;        /* -1: empty */
	uint32_t len;      /* strlen(symbol): the caller copies it without measuring again */
	char *symbol;      /* owned, or ABSENT */
};

struct mapping_memo {
	struct memo_slot *slots;
	size_t mask, len, bytes;
};

static size_t slot_of(int32_t id, size_t mask)
{
	uint32_t h = (uint32_t)id * 2654435761u;
	return (size_t)(h ^ (h >> 16)) & mask;
}

static int grow(struct mapping_memo *m)
{
	size_t cap = m->slots ? (m->mask + 1) * 2 : 1024;
	struct memo_slot *s = malloc(cap * sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < cap; i++)
		s[i].id = -1;
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		if (m->slots[i].id < 0)
			continue;
		size_t j = slot_of(m->slots[i].id, cap - 1);
		while (s[j].id >= 0)
			j = (j + 1) & (cap - 1);
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->mask = cap - 1;
	return 0;
}

const char *mapping_memo_get(const struct mapping_memo *m, int32_t id, bool *known, size_t *len)
{
	*known = false;
	if (!m || !m->slots)
		return NULL;
	for (size_t i = slot_of(id, m->mask); m->slots[i].id >= 0; i = (i + 1) & m->mask)
		if (m->slots[i].id == id) {
			*known = true;
			*len = m->slots[i].len;
			return m->slots[i].symbol == ABSENT ? NULL : m->slots[i].symbol;
		}
	return NULL;
}

void mapping_memo_put(struct mapping_memo **memo, int32_t id, const char *symbol)
{
	struct mapping_memo *m = *memo;
	if (!m && !(m = *memo = calloc(1, sizeof *m)))
		return;
	size_t n = symbol ? strlen(symbol) + 1 : 0;
	if (m->bytes + n > MEMO_MAX_BYTES || n > UINT32_MAX)
		return;
	if ((!m->slots || 2 * (m->len + 1) > m->mask + 1) && grow(m) != 0)
		return;
	char *copy = symbol ? malloc(n) : ABSENT;
	if (!copy)
		return;
	if (symbol)
		memcpy(copy, symbol, n);
	size_t i = slot_of(id, m->mask);
	while (m->slots[i].id >= 0 && m->slots[i].id != id)
		i = (i + 1) & m->mask;
	if (m->slots[i].id == id) { /* already there: keep the first */
		if (copy != ABSENT)
			free(copy);
		return;
	}
	m->slots[i] = (struct memo_slot){id, symbol ? (uint32_t)(n - 1) : 0, copy};
	m->len++;
	m->bytes += n;
}

void mapping_memo_destroy(struct mapping_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i].id >= 0 && m->slots[i].symbol != ABSENT)
			free(m->slots[i].symbol);
	free(m->slots);
	free(m);
}
