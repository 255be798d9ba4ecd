/* A light pre-scan of JSON text, before cJSON sees it (private).
 *
 * It does two things cJSON cannot:
 *  - it lists every number token (offset, length) in document order, so
 *    integers can be read exactly from their digits;
 *  - it reads the value of every member named `hot_key` that is an array of
 *    integers directly into int64s ("hot arrays"), so that a million-word
 *    AppMethodBeat buffer never becomes a million cJSON nodes.
 * It only scans the first JSON value of the text.  On invalid JSON it stops
 * early without error: cJSON reports the error. */
#ifndef HANGAR_LIB_JSON_SCAN_H
#define HANGAR_LIB_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_token {
	size_t offset;
	size_t len;
};

/* An array under hot_key, in document order.  When `hot` is set its
 * integers were read here (values[first .. first+count)) and the text
 * between `open` ('[') and `close` (']') is hidden from cJSON. */
struct json_keyed_array {
	bool hot;
	size_t open, close;
	size_t first, count;
};

struct json_scan {
	struct json_token *numbers;  /* outside hot arrays */
	size_t n_numbers;
	struct json_keyed_array *arrays;
	size_t n_arrays;
	int64_t *values;             /* the integers of all hot arrays */
	size_t n_values;
	size_t first_newline;        /* offset of the first '\n' between tokens, or SIZE_MAX */
	size_t *elements;            /* where each element of a top-level array starts */
	size_t n_elements;
	bool unfinished;             /* the text ends inside a value */
	size_t line_break_in_string; /* offset of a raw line break in a string, or SIZE_MAX */
};

/* Scans text[0..len); hot_key may be NULL (no hot arrays).  Returns 0 or
 * HG_ENOMEM.  Free with json_scan_release. */
int json_scan(const char *text, size_t len, const char *hot_key, struct json_scan *scan);
void json_scan_release(struct json_scan *scan);

#endif
