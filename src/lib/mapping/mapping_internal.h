/* What mapping.c (loading, lookups) and mapping_index.c (the one pass that
 * indexes a file) share (private). */
#ifndef HANGAR_LIB_MAPPING_INTERNAL_H
#define HANGAR_LIB_MAPPING_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	uint64_t *names;    /* the ids that share their class and method name with
	                       another: hash << 20 | id, sorted (mapping_overload.c) */
	size_t n_names;
	/* packages looked for (hg_mapping_has_package), answers kept: a
	 * cache, as memo is */
	struct package_memo {
		char name[96];
		bool has;
	} packages[8];
	size_t n_packages;
};

/* How mapping_format_method names a method: the parameters' classes
 * whole (not their simple names), the return type after " -> ", whole. */
enum { JAVA_QUALIFIED_PARAMS = 1, JAVA_RETURN = 2, JAVA_QUALIFIED_RETURN = 4 };
/* hg_format_java_method with those (java_format.c). */
char *mapping_format_method(hg_arena *arena, const char *cls, size_t cls_len, const char *method,
			    size_t method_len, const char *desc, size_t desc_len, unsigned how);

/* The hash of a line's "class method" words, from their lengths and a
 * few 8-byte pieces (the class's middle and end, the method's start and
 * end): indexing takes one per line, so it must cost next to nothing (a
 * hash of every byte made indexing a third slower).  Two names that share
 * a hash are told apart by their lines, so a hash needs only to be seldom
 * shared.  end: where the readable bytes end (a piece is read at once,
 * then cut to the word, when 8 bytes are there). */
static inline uint64_t mapping_piece(const char *p, size_t n, const char *end)
{
	uint64_t w = 0;
	if (end - p >= 8)
		memcpy(&w, p, 8);
	else
		for (size_t i = 0; i < (size_t)(end - p) && i < 8; i++)
			w |= (uint64_t)(unsigned char)p[i] << 8 * i; /* little-endian, as the load */
	return n < 8 ? w & (((uint64_t)1 << (8 * n)) - 1) : w;
}
static inline uint32_t mapping_name_hash32(const char *cls, size_t cls_len, const char *method,
					   size_t method_len, const char *end)
{
	size_t c8 = cls_len > 8 ? cls_len - 8 : 0, m8 = method_len > 8 ? method_len - 8 : 0;
	uint64_t h = (mapping_piece(cls + c8, cls_len - c8, end) ^ (uint64_t)cls_len << 56) *
			     0x9E3779B97F4A7C15u +
		     mapping_piece(cls + c8 / 2, cls_len - c8 / 2, end) * 0xBF58476D1CE4E5B9u +
		     (mapping_piece(method, method_len, end) ^ (uint64_t)method_len << 56) *
			     0x94D049BB133111EBu +
		     mapping_piece(method + m8, method_len - m8, end) * 0xD6E8FEB86659FD93u;
	return (uint32_t)((h ^ h >> 29) * 0xC4CEB9FE1A85EC53u >> 32);
}

/* The keys of a part's lines (name hash << 20 | id) sorted by hash, in
 * place or into a new block (*keys replaced); 0 or HG_ENOMEM.  Then, of
 * two parts' sorted keys, those whose hash another line shares go into
 * m->names, sorted; 0 or HG_ENOMEM (mapping_overload.c). */
int mapping_sort_keys(uint64_t **keys, size_t n);
int mapping_overloads_index(hg_mapping *m, const uint64_t *a, size_t na, const uint64_t *b,
			    size_t nb);
/* The symbol of entry e (id's) as hg_mapping_symbol gives it: formatted,
 * and when another id of the mapping is an overload it would name alike,
 * told apart (whole parameter types; the return type when only it
 * differs).  Owned by arena; NULL on ENOMEM. */
const char *mapping_overload_symbol(const hg_mapping *m, int32_t id, const hg_mapping_entry *e,
				    hg_arena *arena);

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
