/* The integer arrays of the pre-scan (json_scan.h's hot arrays, a Matrix
 * buffer's words): read straight into int64s, exactly, the common
 * "digits," a block of 64 bytes at a time.  Anything that is not a plain
 * integer leaves the array to cJSON and the exact reader. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json_digits.h"
#include "json_scan_util.h"

/* v with the sign of its text: without a branch (entries and exits, the
 * words' signs, alternate at random).  The conversion to int64 wraps, as
 * GCC and Clang define it. */
static inline int64_t with_sign(uint64_t v, size_t negative)
{
	uint64_t all = 0 - (uint64_t)negative; /* all ones or zero */
	return (int64_t)((v ^ all) - all);
}

/* Where the run of digits at t[d] ends and its value (json_digits.h): by
 * the widest reader the bytes around it allow. */
static inline size_t read_digits(const char *t, size_t d, size_t len, uint64_t *v)
{
#ifdef __SSE2__
	if (d >= 16 && len - d >= 32)
		return read_digits16(t + d, v);
#endif
	return len - d >= 24 ? read_digits8(t + d, v) : read_digits1(t + d, len - d, v);
}

#ifdef __SSE2__
/* The words of a buffer 64 bytes at a time, from i (a word's start): the
 * bytes' kinds from a few compares (byte_kinds64) say where the words end
 * (their commas) and whether every byte before the block's last comma is
 * a digit, a comma or a sign opening a word; then each word's value from
 * its digits (digits_value16), with no search for where it ends.  Stops at
 * the first block (or word) that is anything else: a space, the last word
 * (no comma after it), more than 19 digits, past int64, a missing number;
 * the general loop reads that one.  Returns where it stopped, a word's
 * start. */
static size_t read_word_blocks(const char *t, size_t i, size_t len, struct vec *values)
{
	if (i < 16)
		return i;
	while (len - i >= 80 && vec_reserve(values, 32)) { /* 64 bytes hold at most 32 words */
		struct byte_kinds k = byte_kinds64(t + i);
		uint64_t starts = k.comma << 1 | 1, sign = k.minus & starts;
		uint64_t bad = ~(k.digit | k.comma | sign) | (starts & k.comma) | (sign << 1 & k.comma);
		uint64_t commas = k.comma & ((bad & -bad) - 1); /* those before the first bad byte */
		if (!commas)
			break;
		int64_t *out = (int64_t *)values->data + values->len;
		size_t pos = 0, words = 0;
		for (; commas; commas &= commas - 1) {
			size_t end = (size_t)__builtin_ctzll(commas);
			size_t negative = (size_t)(sign >> pos & 1), n = end - pos - negative;
			if (n > 19)
				break;
			uint64_t v = digits_value16(t + i + pos + negative, n);
			if (v > (uint64_t)INT64_MAX + negative)
				break;
			out[words++] = with_sign(v, negative);
			pos = end + 1;
		}
		values->len += words;
		i += pos;
		if (commas)
			break; /* stopped at a word the general loop must read */
	}
	return i;
}
#endif

/* The digits are read 64 bytes at a time where the text is all "digits,"
 * (read_word_blocks), else (a space, the last few words) a word at a time,
 * 16 or 8 digits at once (read_digits). */
size_t json_read_int_array(const char *t, size_t i, size_t len, struct vec *values, size_t *count,
			   size_t *first_newline, bool *ran_out)
{
	size_t newline_before = *first_newline;
	size_t start_len = values->len;
	/* Room for a usual buffer (hundreds of words) at once, rather than by
	 * four doublings from 64 (without it, the word by word reader grows
	 * it as it goes). */
	(void)vec_reserve(values, 1024);
	*count = 0;
	i = skip_ws(t, i + 1, len, first_newline);
	if (i < len && t[i] == ']')
		return i + 1;
	while (i < len) {
#ifdef __SSE2__
		i = read_word_blocks(t, i, len, values);
		i = skip_ws(t, i, len, first_newline); /* when a space followed a comma */
		if (i >= len)
			break;
#endif
		bool negative = t[i] == '-';
		size_t d = i + negative, j;
		uint64_t v;
		j = d + read_digits(t, d, len, &v);
		/* A 20th digit, or 19 past int64 (-2^63 is in it): the exact reader's. */
		if (j == d || (j < len && is_number_char(t[j])) ||
		    (j - d == 19 && v > (uint64_t)INT64_MAX + negative)) {
			i = j == d ? d : i; /* "-" alone at the end: ran out too */
			goto not_ints;
		}
		if (!vec_reserve(values, 1))
			goto not_ints;
		((int64_t *)values->data)[values->len++] = with_sign(v, negative);
		if (j < len && t[j] == ',') {
			i = j + 1;
			if (i < len && !is_space(t[i]))
				continue;
			i = skip_ws(t, i, len, first_newline);
			continue;
		}
		i = skip_ws(t, j, len, first_newline);
		if (i < len && t[i] == ']') {
			*count = values->len - start_len;
			return i + 1;
		}
		if (i >= len || t[i] != ',')
			goto not_ints;
		i = skip_ws(t, i + 1, len, first_newline);
	}
not_ints:
	*ran_out = i >= len; /* integers up to the end: a value cut short */
	values->len = start_len;
	*first_newline = newline_before; /* the main scan will see them again */
	return 0;
}

