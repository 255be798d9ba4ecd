/* What the scan (json_scan.c) and its integer-array reader (json_ints.c)
 * share: a growing vector, and whitespace and number characters as cJSON
 * reads them.  Private to src/lib/json. */
#ifndef HANGAR_LIB_JSON_SCAN_UTIL_H
#define HANGAR_LIB_JSON_SCAN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/core.h"

struct vec {
	void *data;
	size_t len, cap, size;
};

/* Room for k more values (the capacity doubled from 64 as needed); false
 * when there is no memory. */
static inline bool vec_reserve(struct vec *v, size_t k)
{
	if (v->cap - v->len >= k)
		return true;
	size_t cap = v->cap ? v->cap : 64;
	while (cap - v->len < k)
		cap *= 2;
	/* A large one (a million-word buffer) on huge pages: see hg_big_grow. */
	void *p = cap * v->size >= HG_HUGE_PAGE ? hg_big_grow(v->data, v->len * v->size, cap * v->size)
						 : realloc(v->data, cap * v->size);
	if (!p)
		return false;
	v->data = p;
	v->cap = cap;
	return true;
}

static inline void *vec_push(struct vec *v)
{
	return vec_reserve(v, 1) ? (char *)v->data + v->size * v->len++ : NULL;
}

/* Whitespace as cJSON skips it: every byte up to 0x20. */
static inline bool is_space(char c)
{
	return (unsigned char)c <= 0x20;
}

static inline bool is_number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Skips whitespace from i, noting the first newline. */
static inline size_t skip_ws(const char *t, size_t i, size_t len, size_t *first_newline)
{
	for (; i < len && is_space(t[i]); i++)
		if (t[i] == '\n' && *first_newline == SIZE_MAX)
			*first_newline = i;
	return i;
}

/* Reads "[int, int, ...]" at t[i] == '[' into values (json_ints.c).
 * Returns the offset past ']' or 0 when the array is not made of integers
 * only (then *ran_out says whether the text ended inside it, and values
 * and *first_newline are as they were). */
size_t json_read_int_array(const char *t, size_t i, size_t len, struct vec *values, size_t *count,
			   size_t *first_newline, bool *ran_out);

#endif
