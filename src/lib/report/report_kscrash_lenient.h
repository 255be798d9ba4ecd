/* KSCrash reports that are JSON to Apple's reader and not to RFC 8259: a
 * comma before '}' or ']' (KSCrash's own test report sigterm.json has one;
 * NSJSONSerialization reads it).  Such a report is read again from a copy
 * with those commas blanked, with a warning; any other broken JSON stays
 * an error (private to the library). */
#ifndef HANGAR_LIB_REPORT_KSCRASH_LENIENT_H
#define HANGAR_LIB_REPORT_KSCRASH_LENIENT_H

#include <stddef.h>

#include "json/json.h"
#include "hangar/report.h"

/* A value read leniently: the text its document borrows, and what was
 * blanked in it. */
struct kscrash_lenient {
	char *copy;    /* free it (free()) after destroying the document; NULL: none */
	size_t commas; /* commas blanked */
	size_t first;  /* the first one's offset in the value */
};

/* Blanks (to ' ') every comma of s[0..len) that only blanks (space, tab,
 * CR, LF) part from a following '}' or ']', outside strings; returns how
 * many, and *first the offset of the first (len when none).  Linear, no
 * allocation; the length and every other byte stay, so that offsets
 * (line:col of errors) read the same as in the original. */
size_t kscrash_blank_trailing_commas(char *s, size_t len, size_t *first);

/* The end of the JSON value starting at text[0] ('{' or '['), judged by
 * its brackets and strings alone: the offset just past the bracket that
 * closes it; 0 when the text ends first, or a line that starts with '{'
 * or '[' (the next report) comes first, so that looking costs no more
 * than the value's own lines. */
size_t kscrash_value_end(const char *text, size_t len);

/* text[0..len) (NUL-terminated at len, as the reader's input is) failed
 * to parse at fail_at: when that is a '}' or ']' after a comma, the value
 * is parsed again from a copy with every such comma blanked, and kept when
 * it is a KSCrash report (report_is_kscrash, or format HG_FORMAT_KSCRASH).
 * 0 with *doc (caller's), *end and *l set (l->copy: see above); HG_EPARSE
 * when it is no such value (*doc and *end untouched); HG_ENOMEM. */
int kscrash_lenient_parse(const char *text, size_t len, size_t fail_at,
			  enum hg_input_format format, const char *hot_key, const char *lazy_key,
			  hg_json_doc **doc, size_t *end, struct kscrash_lenient *l);

#endif
