/* A Matrix buffer's words, read from their text "digits,digits,..." in two
 * passes over chunks of up to 2 KiB (json_ints.c calls this first and
 * reads whatever it leaves word by word):
 *   1. every byte is checked, 64 at a time, and each word's end (its comma)
 *      noted, with no branch per comma;
 *   2. each word's value is read from its digits (json_digits.h), with no
 *      branch on its length, and its checks (at most 19 digits, within
 *      int64) gathered into one flag for the chunk.
 * Reading a word as it is found costs a mispredicted branch each time a
 * block runs out of words; in two passes both loops run a count known
 * before they start.
 *
 * This file is compiled twice (src/lib/meson.build): for any x86-64 (SSE2)
 * as json_read_words_base, and with AVX2 as json_read_words_avx2, which
 * json_ints.c picks when the processor has it.  Elsewhere it reads nothing
 * and leaves every word to json_ints.c. */
#include <stdint.h>
#include <string.h>

#include "json_words.h"

#ifndef JSON_WORDS_NAME
#define JSON_WORDS_NAME json_read_words_base
#endif

#ifdef __SSE2__
#ifdef __AVX2__
#include <immintrin.h>
#endif
#include "json_digits.h"

#define CHUNK_BLOCKS 32 /* 2 KiB of text: ~100 words, their ends on the stack */

/* Which of the 64 bytes at p are digits, commas and minus signs: bit k for
 * p[k]. */
struct byte_kinds {
	uint64_t digit, comma, minus;
};

#ifdef __AVX2__
static inline uint32_t mask32(__m256i x)
{
	return (uint32_t)_mm256_movemask_epi8(x);
}

static inline struct byte_kinds byte_kinds64(const char *p)
{
	const __m256i comma = _mm256_set1_epi8(','), minus = _mm256_set1_epi8('-'),
		      zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
	struct byte_kinds k;
	__m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
	__m256i d0 = _mm256_sub_epi8(x0, zero), d1 = _mm256_sub_epi8(x1, zero);
	k.digit = mask32(_mm256_cmpeq_epi8(_mm256_min_epu8(d0, nine), d0)) |
		  (uint64_t)mask32(_mm256_cmpeq_epi8(_mm256_min_epu8(d1, nine), d1)) << 32;
	k.comma = mask32(_mm256_cmpeq_epi8(x0, comma)) |
		  (uint64_t)mask32(_mm256_cmpeq_epi8(x1, comma)) << 32;
	k.minus = mask32(_mm256_cmpeq_epi8(x0, minus)) |
		  (uint64_t)mask32(_mm256_cmpeq_epi8(x1, minus)) << 32;
	return k;
}
#else
static inline struct byte_kinds byte_kinds64(const char *p)
{
	const __m128i comma = _mm_set1_epi8(','), minus = _mm_set1_epi8('-');
	struct byte_kinds k = {0, 0, 0};
	for (int c = 0; c < 4; c++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * c));
		k.digit |= (uint64_t)digit_mask16(x) << (16 * c);
		k.comma |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, comma)) << (16 * c);
		k.minus |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, minus)) << (16 * c);
	}
	return k;
}
#endif

#ifdef __AVX2__
/* The value of the n (0..19) digits that end at p + n, where the 32 bytes
 * before that can be read: one load of those 32 bytes, the bytes before
 * the run masked off, pairs, fours and eights by multiply-adds in both
 * halves at once; the high half holds the last 16 digits, the low half the
 * 0 to 3 before them.  One sequence for every length, like digits_value16,
 * without its separate reading of the first digits. */
static inline uint64_t digits_value32(const char *p, size_t n)
{
	/* loadu(keep_last + k): the last k of 32 bytes set */
	static const unsigned char keep_last[64] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
		255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
	__m256i w = _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + n - 32)),
				    _mm256_set1_epi8('0'));
	w = _mm256_and_si256(w, _mm256_loadu_si256((const __m256i *)(const void *)(keep_last + n)));
	__m256i pairs = _mm256_maddubs_epi16(w, _mm256_set1_epi16(0x010A)); /* bytes 10, 1 */
	__m256i fours = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00010064)); /* 100, 1 */
	__m256i eights = _mm256_madd_epi16(_mm256_packs_epi32(fours, fours),
					   _mm256_set1_epi32(0x00012710)); /* 10000, 1 */
	uint64_t low = (uint64_t)_mm_cvtsi128_si64(_mm256_extracti128_si256(eights, 1));
	uint64_t top = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(eights)) >> 32;
	return top * 10000000000000000u + (low & 0xFFFFFFFFu) * 100000000u + (low >> 32);
}
#define digits_value digits_value32
#define DIGITS_BEFORE 32
#else
#define digits_value digits_value16
#define DIGITS_BEFORE 16
#endif

/* The lowest set bit's index; 63 for none (then the caller does not count
 * it: see note_ends). */
static inline uint32_t lowest(uint64_t m)
{
	return (uint32_t)__builtin_ctzll(m | (uint64_t)1 << 63);
}

/* Appends at ends the offsets (from + bit) of the set bits of m, lowest
 * first; returns how many.  Six are written whether or not m has them, so
 * that a block's usual two to five words take no branch. */
static inline size_t note_ends(uint32_t *ends, uint64_t m, uint32_t from)
{
	size_t n = (size_t)__builtin_popcountll(m);
	for (int k = 0; k < 6; k++) {
		ends[k] = from + lowest(m);
		m &= m - 1;
	}
	for (size_t k = 6; k < n; k++) { /* a block of short words: up to 32 */
		ends[k] = from + lowest(m);
		m &= m - 1;
	}
	return n;
}

/* Pass 1 over the chunk at t (a word's start, len bytes readable; each
 * block is followed by 8 readable bytes, for digits_value16's load8): the
 * ends of its words, up to the first byte that is not part of "digits,"
 * (a space, ']', a sign inside a word, ",,", "-,").  Returns how many;
 * *stopped says whether such a byte was met. */
static size_t find_word_ends(const char *t, size_t len, uint32_t *ends, bool *stopped)
{
	size_t n = 0;
	uint64_t start_in = 1, minus_in = 0; /* carried from the block before */
	*stopped = false;
	for (size_t b = 0; b < CHUNK_BLOCKS && len - 64 * b >= 64 + 8; b++) {
		struct byte_kinds k = byte_kinds64(t + 64 * b);
		uint64_t starts = k.comma << 1 | start_in;
		uint64_t bad = ~(k.digit | k.comma | k.minus) | (k.minus & ~starts) |
			       (k.comma & starts) | ((k.minus << 1 | minus_in) & k.comma);
		uint64_t good_commas = k.comma & ((bad & (0 - bad)) - 1); /* all when bad is 0 */
		n += note_ends(ends + n, good_commas, (uint32_t)(64 * b));
		if (bad) {
			*stopped = true;
			break;
		}
		start_in = k.comma >> 63;
		minus_in = k.minus >> 63;
	}
	return n;
}

/* Pass 2: the values of the n words of the chunk at t whose ends are at
 * ends (the first starts at t).  Returns how many are plain int64s before
 * the first that is not (more than 19 digits, past int64): n when all are. */
static size_t read_values(const char *t, const uint32_t *ends, size_t n, int64_t *out)
{
	size_t start = 0, odd = 0;
	for (size_t k = 0; k < n; k++) {
		const char *w = t + start;
		size_t negative = *w == '-', digits = ends[k] - start - negative;
		size_t read = digits > 19 ? 19 : digits; /* the 20th is odd: see below */
		uint64_t v = digits_value(w + negative, read);
		odd |= (size_t)(digits > 19) | (size_t)(v > (uint64_t)INT64_MAX + negative);
		out[k] = with_sign(v, negative);
		start = ends[k] + 1;
	}
	if (!odd)
		return n;
	/* Rare: find the first odd word again, one by one. */
	start = 0;
	for (size_t k = 0; k < n; k++) {
		size_t negative = t[start] == '-', digits = ends[k] - start - negative;
		if (digits > 19 || digits_value(t + start + negative, digits) >
					   (uint64_t)INT64_MAX + negative)
			return k;
		start = ends[k] + 1;
	}
	return n;
}

size_t JSON_WORDS_NAME(const char *t, size_t i, size_t len, struct vec *values)
{
	if (i < DIGITS_BEFORE)
		return i; /* digits_value reads the bytes before a word's last digit */
	uint32_t ends[CHUNK_BLOCKS * 64 + 6];
	while (len - i >= 64 + 8) {
		bool stopped;
		size_t n = find_word_ends(t + i, len - i, ends, &stopped);
		if (n == 0 || !vec_reserve(values, n))
			break;
		size_t good = read_values(t + i, ends, n, (int64_t *)values->data + values->len);
		values->len += good;
		if (good < n)
			return good ? i + ends[good - 1] + 1 : i; /* the odd word's start */
		i += ends[n - 1] + 1;
		if (stopped)
			break;
	}
	return i;
}
#else
size_t JSON_WORDS_NAME(const char *t, size_t i, size_t len, struct vec *values)
{
	(void)t, (void)len, (void)values;
	return i;
}
#endif
