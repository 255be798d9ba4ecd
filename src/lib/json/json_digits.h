/* Runs of decimal digits read fast, for the buffer words of hot arrays
 * (private to src/lib/json; static inline, as json_ints.c calls them once
 * a word).  Each reads at most 19 digits, their count returned and their
 * value in *v (19 digits fit in a uint64); a 20th is left for the caller
 * to see. */
#ifndef HANGAR_LIB_JSON_DIGITS_H
#define HANGAR_LIB_JSON_DIGITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Eight bytes of text as a little-endian word: the first byte lowest. */
static inline uint64_t load8(const char *p)
{
	uint64_t x;
	memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

#define BYTES(b) ((uint64_t)(b) * 0x0101010101010101u)

/* How many of the 8 bytes in x are digits before the first that is not
 * (0..8).  A byte is a digit when its high nibble is 3 and adding 6 keeps
 * it so; the addition carries only out of a byte >= 0xFA, which is past
 * the first non-digit and so cannot change the answer. */
static inline unsigned leading_digits(uint64_t x)
{
	uint64_t hi = BYTES(0xF0), three = BYTES(0x30);
	uint64_t not_digit = ((x & hi) ^ three) | (((x + BYTES(0x06)) & hi) ^ three);
	return not_digit ? (unsigned)__builtin_ctzll(not_digit) >> 3 : 8;
}

/* The value of the first k (0..8) digits of x, the first most significant:
 * they are moved to the top, so that the bytes below read as leading
 * zeros (k == 0 shifts all out, in two steps that stay below 64 bits),
 * then combined in pairs, fours and eights. */
static inline uint64_t digits_value(uint64_t x, unsigned k)
{
	x -= BYTES('0');
	x = x << (4 * (8 - k)) << (4 * (8 - k));
	x = x * 10 + (x >> 8);
	x = ((x & 0x000000FF000000FFu) * (100 + (1000000ull << 32)) +
	     ((x >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32))) >> 32;
	return x;
}

/* v with the sign of its text, without a branch (entries and exits, the
 * words' signs, alternate at random).  The conversion to int64 wraps, as
 * GCC and Clang define it. */
static inline int64_t with_sign(uint64_t v, size_t negative)
{
	uint64_t all = 0 - (uint64_t)negative; /* all ones or zero */
	return (int64_t)((v ^ all) - all);
}

static const uint64_t pow10_u64[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				      100000000};

/* The run of digits at p (24 bytes readable), at most 19 of them: their
 * count, and their value in *v (19 digits fit in a uint64).  Without a
 * branch: where a number of 15 to 19 digits ends would be a coin toss for
 * the branch predictor, so all three words are read and those past the
 * end of the run count for no digits. */
static inline size_t read_digits8(const char *p, uint64_t *v)
{
	uint64_t x1 = load8(p), x2 = load8(p + 8), x3 = load8(p + 16);
	unsigned k1 = leading_digits(x1), k2 = leading_digits(x2), k3 = leading_digits(x3);
	k2 = k1 == 8 ? k2 : 0;
	k3 = k2 == 8 ? (k3 > 3 ? 3 : k3) : 0; /* a 20th digit is left for the caller to see */
	uint64_t value = digits_value(x1, k1);
	value = value * pow10_u64[k2] + digits_value(x2, k2);
	*v = value * pow10_u64[k3] + digits_value(x3, k3);
	return k1 + k2 + k3;
}

#ifdef __SSE2__
/* Bit k set where byte k of x is a digit: less '0', at most 9 unsigned. */
static inline unsigned digit_mask16(__m128i x)
{
	__m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
}

/* The value of the n (1..19) digits at p, where the 16 bytes before the
 * last digit and the 8 from p can be read: the last 16 (or fewer) from
 * a load that ends where the run ends, bytes before the run masked off,
 * combined in pairs, fours and eights by SSE2 multiply-adds; the first 0
 * to 3 of a longer run from the first 4 bytes at p as one word.  No branch on n:
 * where a buffer word of 17 to 19 digits ends is a coin toss for the
 * branch predictor. */
static inline uint64_t digits_value16(const char *p, size_t n)
{
	/* loadu(keep_last + k): the last k of 16 bytes set */
	static const unsigned char keep_last[32] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
	size_t low = n > 16 ? 16 : n, high = n - low;
	__m128i w = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)),
				 _mm_set1_epi8('0'));
	w = _mm_and_si128(w, _mm_loadu_si128((const __m128i *)(const void *)(keep_last + low)));
	const __m128i z = _mm_setzero_si128();
	__m128i pairs_hi = _mm_madd_epi16(_mm_unpacklo_epi8(w, z), _mm_setr_epi16(10, 1, 10, 1, 10, 1, 10, 1));
	__m128i pairs_lo = _mm_madd_epi16(_mm_unpackhi_epi8(w, z), _mm_setr_epi16(10, 1, 10, 1, 10, 1, 10, 1));
	__m128i fours = _mm_madd_epi16(_mm_packs_epi32(pairs_hi, pairs_lo),
				       _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
	__m128i eights = _mm_madd_epi16(_mm_packs_epi32(fours, fours),
					_mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
	uint64_t value = (uint64_t)(uint32_t)_mm_cvtsi128_si32(eights) * 100000000u +
			 (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(eights, 4));
	/* The first `high` digits moved to the top of a 4-byte word (high 0
	 * shifts all out: the shift is done in 64 bits), then read as four
	 * digits with leading zeros.  With high > 0 all four bytes are digits,
	 * so subtracting '0' borrows nothing. */
	uint64_t top = (uint64_t)((uint32_t)load8(p) - 0x30303030u) << (8 * (4 - high)) & 0xFFFFFFFFu;
	top = top * 10 + (top >> 8);
	top = (top & 0xFF) * 100 + ((top >> 16) & 0xFF);
	return top * 10000000000000000u + value;
}

/* The run of digits at p, where the 16 bytes before p and the 32 from p
 * can be read, at most 19 of them: their count from one compare of 32
 * bytes, their value in *v (digits_value16; 0 for none). */
static inline size_t read_digits16(const char *p, uint64_t *v)
{
	unsigned digits = digit_mask16(_mm_loadu_si128((const __m128i *)(const void *)p)) |
			  digit_mask16(_mm_loadu_si128((const __m128i *)(const void *)(p + 16))) << 16;
	unsigned run = (unsigned)__builtin_ctz(~digits | 0x80000000u); /* 31 stands for 31 or 32 */
	size_t n = run > 19 ? 19 : run; /* a 20th digit is left for the caller to see */
	*v = digits_value16(p, n);
	return n;
}
#endif

/* The same, a byte at a time, near the end of the text. */
static inline size_t read_digits1(const char *p, size_t avail, uint64_t *v)
{
	uint64_t value = 0;
	size_t j = 0;
	for (; j < avail && j < 19 && p[j] >= '0' && p[j] <= '9'; j++)
		value = value * 10 + (uint64_t)(p[j] - '0');
	*v = value;
	return j;
}

#endif
