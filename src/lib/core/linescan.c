/* Newline bitmaps, 64 bytes at a time (see linescan.h). */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hangar/hangar.h"
#include "linescan.h"

/* Bits of the bytes of a 64-byte block equal to c. */
static inline uint64_t block_mask(const char *p, char c)
{
#ifdef __SSE2__
	const __m128i v = _mm_set1_epi8(c);
	uint64_t m = 0;
	for (int i = 0; i < 4; i++) {
		__m128i chunk = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, v)) << (16 * i);
	}
	return m;
#else
	uint64_t m = 0;
	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(p[i] == c) << i;
	return m;
#endif
}

int linescan_build(struct linescan *scan, const char *text, size_t len)
{
	size_t words = (len + 63) / 64;
	if (words > scan->cap) {
		uint64_t *nl = realloc(scan->newline, words * sizeof *nl);
		if (!nl)
			return HG_ENOMEM;
		scan->newline = nl;
		scan->cap = words;
	}
	scan->text = text;
	scan->len = len;
	scan->words = words;
	size_t full = len / 64;
	for (size_t k = 0; k < full; k++) {
		const char *p = text + 64 * k;
		scan->newline[k] = block_mask(p, '\n');
	}
	if (full < words) { /* the tail, through a padded copy */
		char tail[64];
		memset(tail, 0, sizeof tail);
		memcpy(tail, text + 64 * full, len - 64 * full);
		scan->newline[full] = block_mask(tail, '\n');
	}
	return 0;
}

void linescan_release(struct linescan *scan)
{
	free(scan->newline);
	memset(scan, 0, sizeof *scan);
}
