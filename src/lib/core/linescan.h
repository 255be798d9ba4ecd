/* A bitmap of the newlines in a block of text (private): one bit per byte,
 * built 64 bytes at a time.  Walking a million short lines by
 * their bitmaps is several times cheaper than searching each line for its
 * end, which matters when indexing a methodMapping.txt of millions of
 * lines in about the time `wc -l` takes to count them. */
#ifndef HANGAR_LIB_LINESCAN_H
#define HANGAR_LIB_LINESCAN_H

#include <stddef.h>
#include <stdint.h>

struct linescan {
	const char *text;
	size_t len;
	uint64_t *newline; /* bit i of word k: text[64k + i] == '\n' */
	size_t words;
	size_t cap;        /* words allocated */
};

/* Builds the bitmaps of text[0..len); the scan keeps no pointer into a
 * previous text.  Returns 0 or HG_ENOMEM.  Release with linescan_release. */
int linescan_build(struct linescan *scan, const char *text, size_t len);
void linescan_release(struct linescan *scan);

/* The offset of the first byte at or after `from` whose bit is set in map
 * (scan->newline), or SIZE_MAX. */
static inline size_t linescan_next(const struct linescan *scan, const uint64_t *map, size_t from)
{
	size_t k = from >> 6;
	if (k >= scan->words)
		return SIZE_MAX;
	uint64_t bits = map[k] & (~(uint64_t)0 << (from & 63));
	while (!bits) {
		if (++k >= scan->words)
			return SIZE_MAX;
		bits = map[k];
	}
	size_t at = (k << 6) + (size_t)__builtin_ctzll(bits);
	return at < scan->len ? at : SIZE_MAX;
}

#endif
