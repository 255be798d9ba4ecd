/* A Matrix buffer's words, read from their text "digits,digits,..." in two
 * passes over chunks of up to 2 KiB (json_ints.c calls this first and
 * reads whatever it leaves word by word):
 *   1. every byte is checked, 64 at a time, and each word's end (its comma)
 *      noted;
 *   2. each word's value is read from its digits (json_digits.h; four
 *      words at once in the AVX-512 build), with no branch on its length,
 *      and its checks (at most 19 digits, within int64) gathered into one
 *      flag for the chunk.
 * Reading each word as its comma is found made the value's reading wait on
 * the search and took a mispredicted branch each time a block ran out of
 * words; apart, the second pass runs a count known before it starts.
 *
 * This file is compiled three times (src/lib/meson.build): for any x86-64
 * (SSE2) as json_read_words_base, with AVX2 as json_read_words_avx2 and
 * with AVX-512 (BW, VL, VBMI2) as json_read_words_avx512, and json_ints.c
 * picks the widest the processor has.  Elsewhere it reads nothing and
 * leaves every word to json_ints.c. */
#include <stdint.h>
#include <string.h>

#include "json_words.h"

#ifndef JSON_WORDS_NAME
#define JSON_WORDS_NAME json_read_words_base
#endif

#ifdef __SSE2__
#if defined(__AVX2__) || defined(__AVX512BW__)
#include <immintrin.h>
#endif
#include "json_digits.h"

#define CHUNK_BLOCKS 32 /* 2 KiB of text: ~100 words, their ends on the stack */

/* Which of the 64 bytes at p are digits, commas and minus signs: bit k for
 * p[k]. */
struct byte_kinds {
	uint64_t digit, comma, minus;
};

#if defined(__AVX512BW__)
/* One load and three compares into mask registers (the AVX-512 build). */
static inline struct byte_kinds byte_kinds64(const char *p)
{
	__m512i x = _mm512_loadu_si512((const void *)p);
	struct byte_kinds k;
	k.digit = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8('0')), _mm512_set1_epi8(10));
	k.comma = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(','));
	k.minus = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('-'));
	return k;
}
#elif defined(__AVX2__)
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

/* Appends at ends the offsets (from + bit) of the set bits of m, lowest
 * first; returns how many.  The AVX-512 build writes sixteen whether or
 * not m has them, with no branch for a block's usual two to five words;
 * the others take one bit at a time (writing six at once and counting the
 * bits was no faster with AVX2, and slower with SSE2's popcount). */
#define ENDS_SLACK 16
#if defined(__AVX512VBMI2__)
static inline size_t note_ends(uint32_t *ends, uint64_t m, uint32_t from)
{
	/* the bits' indexes packed to the low bytes, 16 at a time widened to
	 * 32 bits */
	const __m512i index = _mm512_set_epi8(
		63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
		41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
		19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	__m512i at = _mm512_maskz_compress_epi8(m, index), base = _mm512_set1_epi32((int)from);
	size_t n = (size_t)__builtin_popcountll(m);
	_mm512_storeu_si512((void *)ends,
			    _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(at)), base));
	if (n > 16) /* a block of short words: up to 32 (no ",,") */
		_mm512_storeu_si512((void *)(ends + 16),
				    _mm512_add_epi32(_mm512_cvtepu8_epi32(
							     _mm512_extracti32x4_epi32(at, 1)),
						     base));
	return n;
}
#else
static inline size_t note_ends(uint32_t *ends, uint64_t m, uint32_t from)
{
	size_t n = 0;
	for (; m; m &= m - 1)
		ends[n++] = from + (uint32_t)__builtin_ctzll(m);
	return n;
}
#endif

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

#if defined(__AVX512BW__)
/* The 32 bytes that end at a word's end, its last n (1..32) digits kept
 * as their values, the bytes before them zero: as a 64-bit mask's half. */
static inline uint64_t keep_last_bytes(size_t n)
{
	return (uint64_t)(uint32_t)(0xFFFFFFFFu << (32 - n));
}

/* Four words at once (the AVX-512 build): each word's 32 bytes (as
 * digits_value32 reads them) in a quarter of two registers, pairs, fours
 * and eights by multiply-adds in all eight halves, then each half's eight
 * and eight joined, the first digits' half and the last 16's gathered and
 * joined, and the signs put on, four words in a vector.  Returns whether
 * one of the four is odd (more than 19 digits, past int64). */
static inline bool read_values4(const char *t, const uint32_t *ends, size_t start, int64_t *out)
{
	size_t s[4], e[4], digits[4];
	unsigned negative = 0, long_word = 0;
	for (int j = 0; j < 4; j++) {
		s[j] = j ? ends[j - 1] + 1 : start;
		e[j] = ends[j];
		unsigned neg = t[s[j]] == '-';
		negative |= neg << j;
		digits[j] = e[j] - s[j] - neg;
		long_word |= (unsigned)(digits[j] > 19) << j;
		digits[j] = digits[j] > 19 ? 19 : digits[j]; /* odd: only kept within 32 bytes */
	}
	const __m512i zero = _mm512_set1_epi8('0');
	__m512i a = _mm512_inserti64x4(
		_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)(t + e[0] - 32))),
		_mm256_loadu_si256((const __m256i *)(const void *)(t + e[1] - 32)), 1);
	__m512i b = _mm512_inserti64x4(
		_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)(t + e[2] - 32))),
		_mm256_loadu_si256((const __m256i *)(const void *)(t + e[3] - 32)), 1);
	a = _mm512_maskz_sub_epi8(keep_last_bytes(digits[0]) | keep_last_bytes(digits[1]) << 32, a, zero);
	b = _mm512_maskz_sub_epi8(keep_last_bytes(digits[2]) | keep_last_bytes(digits[3]) << 32, b, zero);
	const __m512i tens = _mm512_set1_epi16(0x010A), hundreds = _mm512_set1_epi32(0x00010064),
		      ten_thousands = _mm512_set1_epi32(0x00012710);
	__m512i fa = _mm512_madd_epi16(_mm512_maddubs_epi16(a, tens), hundreds);
	__m512i fb = _mm512_madd_epi16(_mm512_maddubs_epi16(b, tens), hundreds);
	__m512i ea = _mm512_madd_epi16(_mm512_packs_epi32(fa, fa), ten_thousands);
	__m512i eb = _mm512_madd_epi16(_mm512_packs_epi32(fb, fb), ten_thousands);
	/* each half's 16 digits: its first eight times 10^8 plus its last */
	const __m512i e8 = _mm512_set1_epi64(100000000);
	ea = _mm512_add_epi64(_mm512_mul_epu32(ea, e8), _mm512_srli_epi64(ea, 32));
	eb = _mm512_add_epi64(_mm512_mul_epu32(eb, e8), _mm512_srli_epi64(eb, 32));
	__m512i first = _mm512_permutex2var_epi64(ea, _mm512_setr_epi64(0, 4, 8, 12, 0, 0, 0, 0), eb);
	__m512i last = _mm512_permutex2var_epi64(ea, _mm512_setr_epi64(2, 6, 10, 14, 0, 0, 0, 0), eb);
	/* first * 10^16 by two 32-bit multiplies (first < 1000): 10^16 is
	 * 2328306 * 2^32 + 1874919424, and a 64-bit multiply is three times as
	 * slow */
	__m512i v = _mm512_add_epi64(
		_mm512_add_epi64(_mm512_slli_epi64(_mm512_mul_epu32(first, _mm512_set1_epi64(2328306)), 32),
				 _mm512_mul_epu32(first, _mm512_set1_epi64(1874919424))),
		last);
	__m512i limit = _mm512_mask_add_epi64(_mm512_set1_epi64(INT64_MAX), (__mmask8)negative,
					      _mm512_set1_epi64(INT64_MAX), _mm512_set1_epi64(1));
	unsigned past = _mm512_cmpgt_epu64_mask(v, limit) & 0xF;
	v = _mm512_mask_sub_epi64(v, (__mmask8)negative, _mm512_setzero_si512(), v);
	_mm256_storeu_si256((__m256i *)(void *)out, _mm512_castsi512_si256(v));
	return (past | long_word) != 0;
}
#endif

/* Pass 2: the values of the n words of the chunk at t whose ends are at
 * ends (the first starts at t).  Returns how many are plain int64s before
 * the first that is not (more than 19 digits, past int64): n when all are. */
static size_t read_values(const char *t, const uint32_t *ends, size_t n, int64_t *out)
{
	size_t start = 0, odd = 0, k = 0;
#if defined(__AVX512BW__)
	for (; k + 4 <= n; k += 4) {
		odd |= read_values4(t, ends + k, start, out + k);
		start = ends[k + 3] + 1;
	}
#endif
	for (; k < n; k++) {
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
	for (size_t j = 0; j < n; j++) {
		size_t negative = t[start] == '-', digits = ends[j] - start - negative;
		if (digits > 19 || digits_value(t + start + negative, digits) >
					   (uint64_t)INT64_MAX + negative)
			return j;
		start = ends[j] + 1;
	}
	return n;
}

size_t JSON_WORDS_NAME(const char *t, size_t i, size_t len, struct vec *values)
{
	if (i < DIGITS_BEFORE)
		return i; /* digits_value reads the bytes before a word's last digit */
	uint32_t ends[CHUNK_BLOCKS * 32 + ENDS_SLACK];
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
