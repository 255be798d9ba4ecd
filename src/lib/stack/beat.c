/* Exact decoding of AppMethodBeat words from their text and byte encodings.
 * Nothing here goes through a double: Java longs near +-2^63 would not
 * survive it. */
#include <string.h>

#include "hangar/beat.h"

int hg_parse_int64(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	bool negative = false;
	if (i < len && s[i] == '-') {
		negative = true;
		i++;
	}
	if (i == len)
		return HG_EPARSE;
	/* Accumulate the magnitude as unsigned so that -2^63 fits. */
	uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	uint64_t value = 0;
	if (len - i <= 18) {
		/* 18 digits cannot overflow: no bound to check (a folded stack's
		 * four small numbers a line come this way). */
		for (; i < len; i++) {
			unsigned d = (unsigned char)s[i] - '0';
			if (d > 9)
				return HG_EPARSE;
			value = value * 10 + d;
		}
	}
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return HG_EPARSE;
		if (value > (limit - d) / 10)
			return HG_EPARSE;
		value = value * 10 + d;
	}
	if (negative)
		*out = value == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)value;
	else
		*out = (int64_t)value;
	return 0;
}

static int64_t load_be64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return (int64_t)v;
}

int hg_beat_from_binary(const unsigned char *bytes, size_t len, size_t max_words, hg_arena *arena,
			int64_t **words, size_t *count, const char **why)
{
	if (len % 8 != 0) {
		*why = "length is not a multiple of 8 bytes";
		return HG_EPARSE;
	}
	size_t n = len / 8;
	if (n > max_words) {
		*why = "too many words (see --max-words)";
		return HG_ELIMIT;
	}
	int64_t *w = hg_arena_calloc(arena, n ? n : 1, sizeof *w);
	if (!w)
		return HG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		w[i] = load_be64(bytes + 8 * i);
	*words = w;
	*count = n;
	return 0;
}

/* Base64 digit values plus one; 0 for bytes that are not digits. */
static const unsigned char base64_digit1[256] = {
	['A'] = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
	25, 26,
	['a'] = 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
	49, 50, 51, 52,
	['0'] = 53, 54, 55, 56, 57, 58, 59, 60, 61, 62,
	['+'] = 63,
	['/'] = 64,
};

#define DIGIT(c) ((uint32_t)base64_digit1[(unsigned char)(c)] - 1)

int hg_beat_from_base64(const char *s, size_t len, size_t max_words, hg_arena *arena,
			int64_t **words, size_t *count, size_t *err_pos, const char **why)
{
	size_t data_len = len;
	while (data_len > 0 && s[data_len - 1] == '=' && len - data_len < 2)
		data_len--;
	/* Bad characters first: they are the likeliest mistake to report. */
	for (size_t i = 0; i < data_len; i++) {
		if (base64_digit1[(unsigned char)s[i]] == 0) {
			*err_pos = i;
			*why = "not a base64 character";
			return HG_EPARSE;
		}
	}
	if (data_len % 4 == 1) {
		*err_pos = data_len;
		*why = "base64 length is impossible (one stray character)";
		return HG_EPARSE;
	}
	if (len != data_len && len % 4 != 0) {
		*err_pos = len;
		*why = "base64 padding does not complete a 4-character group";
		return HG_EPARSE;
	}
	size_t nbytes = data_len / 4 * 3 + (data_len % 4 ? data_len % 4 - 1 : 0);
	if (nbytes % 8 != 0) {
		*err_pos = len;
		*why = "decoded length is not a multiple of 8 bytes";
		return HG_EPARSE;
	}
	if (nbytes / 8 > max_words) {
		*err_pos = 0;
		*why = "too many words (see --max-words)";
		return HG_ELIMIT;
	}
	unsigned char *bytes = hg_arena_alloc(arena, nbytes ? nbytes : 1);
	if (!bytes)
		return HG_ENOMEM;
	size_t out = 0, i = 0;
	const unsigned char *u = (const unsigned char *)s;
	/* Whole groups of 4 digits -> 3 bytes. */
	for (; i + 4 <= data_len; i += 4) {
		uint32_t v = DIGIT(u[i]) << 18 | DIGIT(u[i + 1]) << 12 | DIGIT(u[i + 2]) << 6 |
			     DIGIT(u[i + 3]);
		bytes[out++] = (unsigned char)(v >> 16);
		bytes[out++] = (unsigned char)(v >> 8);
		bytes[out++] = (unsigned char)v;
	}
	/* A last group of 2 or 3 digits; its spare low bits must be zero. */
	uint32_t acc = 0;
	int bits = 0;
	for (; i < data_len; i++) {
		acc = (acc << 6) | DIGIT(u[i]);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			bytes[out++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0) {
		*err_pos = data_len ? data_len - 1 : 0;
		*why = "base64 has non-zero bits after the last byte";
		return HG_EPARSE;
	}
	return hg_beat_from_binary(bytes, out, max_words, arena, words, count, why);
}
