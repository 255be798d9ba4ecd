/* A tiny private wrapper over PCRE2 (8-bit): the only place that includes
 * pcre2.h, so that pcre2_code never leaves regex.c. */
#ifndef HANGAR_LIB_REGEX_H
#define HANGAR_LIB_REGEX_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hg_regex hg_regex;

/* Compiles pattern[0..len) (PCRE2 syntax, no flags).  Returns 0 and *out
 * (caller owns; hg_regex_free), HG_ENOMEM, or HG_EPARSE with PCRE2's message
 * in why[0..why_size) and the 0-based offset in the pattern at *offset. */
int hg_regex_compile(const char *pattern, size_t len, hg_regex **out, char *why,
		     size_t why_size, size_t *offset);

/* Whether re matches anywhere in s[0..len) (unanchored search; anchor with
 * ^ and $).  1 match, 0 no match, HG_ENOMEM.  Safe to call from several
 * threads on one compiled pattern. */
int hg_regex_match(const hg_regex *re, const char *s, size_t len);

/* Frees re.  Accepts NULL. */
void hg_regex_free(hg_regex *re);

#endif
