/* The integer arrays of the pre-scan (json_scan.h's hot arrays, a Matrix
 * buffer's words): read straight into int64s, exactly, the common
 * "digits," by json_words.c.  Anything that is not a plain integer leaves
 * the array to cJSON and the exact reader. */
#include <stdlib.h>
#include <string.h>

#include "json_digits.h"
#include "json_scan_util.h"
#include "json_words.h"

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

static enum json_words_reader words_reader = JSON_WORDS_BEST;

void json_words_use(enum json_words_reader reader)
{
	words_reader = reader;
}

/* The plain words from i by json_words.c's best build for this processor
 * (or the one a test asked for); returns where it stopped. */
static size_t read_words(const char *t, size_t i, size_t len, struct vec *values)
{
	if (words_reader == JSON_WORDS_NONE)
		return i;
#ifdef HANGAR_WORDS_AVX512
	if (words_reader == JSON_WORDS_BEST && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi2") &&
	    __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi"))
		return json_read_words_avx512(t, i, len, values);
#endif
#ifdef HANGAR_WORDS_AVX2
	if (words_reader <= JSON_WORDS_AVX2 && __builtin_cpu_supports("avx2") &&
	    __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi"))
		return json_read_words_avx2(t, i, len, values);
#endif
	return json_read_words_base(t, i, len, values);
}

/* The words are read by json_words.c where the text is all "digits,"
 * (read_words), else (a space, the last word) one at a time, 16 or 8 digits
 * at once (read_digits). */
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
		i = read_words(t, i, len, values);
		i = skip_ws(t, i, len, first_newline); /* when a space followed a comma */
		if (i >= len)
			break;
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

