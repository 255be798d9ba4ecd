/* What mapping.c (loading, lookups) and mapping_index.c (the one pass that
 * indexes a file) share (private). */
#ifndef HANGAR_LIB_MAPPING_INTERNAL_H
#define HANGAR_LIB_MAPPING_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/beat.h"
#include "hangar/mapping.h"

#define TABLE_SIZE ((size_t)HG_BEAT_MAX_METHOD_ID + 1)
#define MAX_LINE ((size_t)64 << 10) /* longer lines are malformed */

/* Where an id's line starts, + 1 (0 = absent).  Four bytes per id keep the
 * table at 4 MiB: zeroing and touching it is a good part of indexing. */
struct slot {
	uint32_t offset;
};

struct hg_mapping {
	char *name;
	int fd;             /* file mode: lines are read back from here, or -1 */
	char *data;         /* memory mode: the bytes, owned */
	size_t len;
	struct slot *slot;  /* TABLE_SIZE entries */
	size_t count, skipped;
	struct mapping_memo *memo; /* symbols already formatted (mapping_memo.c) */
};

/* The memo of formatted symbols: get says whether id is known (*known) and
 * its symbol (NULL: known to be absent); put remembers one (symbol NULL:
 * absent), creating the memo on first use; destroy accepts NULL.  Not
 * thread-safe: a mapping is looked up from one thread at a time. */
struct mapping_memo;
/* *len: the symbol's strlen, when known and not NULL. */
const char *mapping_memo_get(const struct mapping_memo *memo, int32_t id, bool *known,
			     size_t *len);
void mapping_memo_put(struct mapping_memo **memo, int32_t id, const char *symbol);
void mapping_memo_destroy(struct mapping_memo *memo);

/* A zeroed id table (free with free()); NULL on ENOMEM. */
struct slot *mapping_table_new(void);

/* Indexes m (m->fd or m->data, m->len set) into m->slot, sending malformed
 * lines to ctx as warnings.  Returns 0, HG_EIO (diagnostic sent) or
 * HG_ENOMEM. */
int mapping_index(const hg_ctx *ctx, hg_mapping *m);

static inline bool mapping_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Reads blanks, a non-negative decimal number of at most 12 digits (so it
 * cannot overflow), blanks and the comma.  On the hot path of indexing. */
static inline const char *mapping_number_comma(const char *p, const char *end, int64_t *out)
{
	while (p < end && mapping_is_blank(*p))
		p++;
	const char *digits = p;
	int64_t v = 0;
	while (p < end && (unsigned)(*p - '0') <= 9) {
		if (p - digits == 12)
			return NULL;
		v = v * 10 + (*p++ - '0');
	}
	if (p == digits)
		return NULL;
	while (p < end && mapping_is_blank(*p))
		p++;
	*out = v;
	return p < end && *p == ',' ? p + 1 : NULL;
}

#endif
