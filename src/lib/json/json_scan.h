/* A light pre-scan of JSON text, before cJSON sees it (private).
 *
 * It does two things cJSON cannot:
 *  - it lists every number token (offset, length) in document order, so
 *    integers can be read exactly from their digits;
 *  - it reads the value of every member named `hot_key` that is an array of
 *    integers directly into int64s ("hot arrays"), so that a million-word
 *    AppMethodBeat buffer never becomes a million cJSON nodes.
 * It only scans the first JSON value of the text, and checks its grammar as
 * it goes (a light one: commas, colons, brackets and literals where they
 * belong), so that it stops at the end of that value or at its first error,
 * never reading on into the text after it: reading a stream of reports stays
 * linear.  cJSON is then shown only text[0 .. stop] and has the last word. */
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
	bool lazy;                   /* under lazy_key: hidden, its elements at lazy[first ..) */
	size_t open, close;
	size_t first, count;
};

/* A string value of JSON_LONG_STRING bytes or more whose escapes are all
 * one-letter ones: json.c decodes it itself and hides it from cJSON, which
 * copies strings a byte at a time (a folded stack is most of a report). */
#define JSON_LONG_STRING 64

struct json_long_string {
	size_t open, close;          /* its quotes */
	size_t ordinal;              /* among all strings, as nul_strings counts them */
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
	size_t *lazy;                /* where each element of each lazy array starts */
	size_t n_lazy;
	size_t *nul_strings;         /* ordinals of the strings holding \u0000 (see below) */
	size_t n_nul_strings;
	struct json_long_string *long_strings; /* in document order */
	size_t n_long_strings;
	bool complete;               /* the first value ended, at `end` */
	size_t end;
	size_t error;                /* where the grammar broke, or SIZE_MAX */
	bool too_deep;               /* ... because of nesting deeper than MAX_NESTING */
	bool unfinished;             /* the text ends inside a value */
	size_t cut_hot_array;        /* ... inside this hot array, all integers so far; or SIZE_MAX */
	size_t control_in_string;    /* offset of a raw control byte (< 0x20) in a string, or SIZE_MAX */
	bool bad_escape;             /* ... there a \u escape without four hex digits instead */
};

/* The byte a one-letter escape stands for (\n, \", ...: the letter after
 * the backslash), or -1 when c is no such letter (a \u, or not JSON). */
static inline int json_escape_letter(char c)
{
	switch (c) {
	case '"': return '"';
	case '\\': return '\\';
	case '/': return '/';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	default: return -1;
	}
}

/* cJSON's CJSON_NESTING_LIMIT: containers nested deeper are refused. */
#define JSON_MAX_NESTING 1000

/* Strings are numbered in document order, keys and values alike (a key
 * before its value): the order of a pre-order walk of cJSON's nodes, which
 * visits a member's key (node->string) before its value.  A string holding
 * an escaped NUL is listed by that ordinal, so that json.c can put back
 * what cJSON's C strings cut off. */

/* Scans text[0..len); hot_key may be NULL (no hot arrays).  An array under
 * lazy_key (NULL: none) is checked but hidden from cJSON like a hot array,
 * and only where its elements start is kept: each is parsed on its own
 * later, so that a million frames never stand as one tree of nodes.
 * Returns 0 or HG_ENOMEM.  Free with json_scan_release. */
int json_scan(const char *text, size_t len, const char *hot_key, const char *lazy_key,
	      struct json_scan *scan);
void json_scan_release(struct json_scan *scan);

#endif
