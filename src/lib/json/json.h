/* The library's only window on cJSON (private to the library).
 *
 * cJSON keeps numbers as doubles, which cannot hold every Java long.  This
 * wrapper therefore also records where each number token sits in the text,
 * so integers are read exactly from their digits.  The text must outlive
 * the document. */
#ifndef HANGAR_LIB_JSON_H
#define HANGAR_LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/arena.h"
#include "hangar/text.h"

typedef struct hg_json_doc hg_json_doc;
typedef struct hg_json hg_json; /* a node; borrowed from its document */

enum hg_json_type {
	HG_JSON_INVALID,
	HG_JSON_NULL,
	HG_JSON_BOOL,
	HG_JSON_NUMBER,
	HG_JSON_STRING,
	HG_JSON_ARRAY,
	HG_JSON_OBJECT,
};

/* Parses the first JSON value in text[0..len) (text NUL-terminated at len).
 * On success *doc is caller-owned (hg_json_doc_destroy) and *end is the
 * offset just past the value.  On a syntax error returns HG_EPARSE and sets
 * *end to the offset of the error. */
int hg_json_parse(const char *text, size_t len, hg_json_doc **doc, size_t *end);

/* Same, and every member named hot_key whose value is an array of integers
 * is read straight into int64s (see hg_json_int_array) instead of becoming
 * one cJSON node per element: the fast path for AppMethodBeat buffers. */
int hg_json_parse_hot(const char *text, size_t len, const char *hot_key, hg_json_doc **doc,
		      size_t *end);
/* Same, with a lazy key too (NULL: none), and on a syntax error *why (may
 * be NULL) says what is wrong when the scan knows better than "invalid
 * JSON" (nesting over the limit, a raw control byte in a string), else
 * NULL; a static string.  An array under the lazy key is checked but not
 * built into nodes, and is empty to hg_json_first and
 * hg_json_count; its elements are read one document at a time with
 * hg_json_lazy_element (a KSCrash report's million frames never stand as
 * one tree).  hg_json_write writes its elements all the same. */
int hg_json_parse_keys(const char *text, size_t len, const char *hot_key, const char *lazy_key,
		       hg_json_doc **doc, size_t *end, const char **why);
void hg_json_doc_destroy(hg_json_doc *doc);

/* When node is a lazy array (see hg_json_parse_keys): its number of
 * elements, and element `index` parsed as a document of its own (the
 * caller's, to destroy), whose number offsets count from the start of doc's
 * text.  HG_EINVAL when node is not lazy; HG_EPARSE or HG_ENOMEM as
 * hg_json_parse. */
int hg_json_lazy_count(const hg_json_doc *doc, const hg_json *node, size_t *count);
int hg_json_lazy_element(const hg_json_doc *doc, const hg_json *node, size_t index,
			 hg_json_doc **elem);

/* How many bytes this thread's parses have looked at so far (each parse:
 * twice the text it scanned and showed cJSON).  Reading a stream must touch
 * a bounded multiple of its size, however many values it holds: tests
 * compare this figure across input sizes instead of timing anything. */
size_t hg_json_bytes_touched(void);

const hg_json *hg_json_root(const hg_json_doc *doc);
enum hg_json_type hg_json_type(const hg_json *node);
const char *hg_json_type_name(enum hg_json_type type);

/* The first member named key (NULL if none or obj is not an object). */
const hg_json *hg_json_get(const hg_json *obj, const char *key);
/* Iteration over an array's elements or an object's members. */
const hg_json *hg_json_first(const hg_json *container);
const hg_json *hg_json_next(const hg_json *node);
const char *hg_json_key(const hg_json *member);
size_t hg_json_count(const hg_json *container);

/* NULL unless a string.  An escaped NUL (\u0000) inside is kept as the two
 * bytes C0 80, so that the C string is not cut there. */
const char *hg_json_string(const hg_json *node);
bool hg_json_true(const hg_json *node);

/* The exact text of a number token, and its byte offset in the text. */
void hg_json_number_text(const hg_json_doc *doc, const hg_json *node, const char **s,
			 size_t *len);
size_t hg_json_number_offset(const hg_json_doc *doc, const hg_json *node);

/* Reads an integer number exactly; HG_EPARSE if node is not a number, has
 * a fraction or exponent, or does not fit in int64. */
int hg_json_int64(const hg_json_doc *doc, const hg_json *node, int64_t *out);

/* When node is a hot array (see hg_json_parse_hot), points *values at its
 * integers (owned by doc) and returns 0; HG_EINVAL otherwise, in which case
 * the array's elements are ordinary nodes. */
int hg_json_int_array(const hg_json_doc *doc, const hg_json *node, const int64_t **values,
		      size_t *count);

/* Offset of the first newline between the tokens of the value (SIZE_MAX if
 * the value is on one line): tells NDJSON from pretty-printed JSON. */
size_t hg_json_first_newline(const hg_json_doc *doc);

/* Where element `index` of a top-level array starts in the text, or
 * SIZE_MAX: lets a reader name the line of each report in an array. */
size_t hg_json_element_offset(const hg_json_doc *doc, size_t index);

/* Appends node as compact JSON, numbers verbatim from the input. */
void hg_json_write(const hg_json_doc *doc, const hg_json *node, hg_buf *out);

#endif
