/* Module regex (src/lib/regex/): the PCRE2 wrapper, for rules files and
 * the store's filters.  The only module that sees PCRE2; the others use
 * regex.h.
 * Uses: core. */
/* PCRE2 behind three calls (see regex.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>

#include "hangar/hangar.h"
#include "regex.h"

struct hg_regex {
	pcre2_code *code;
};

int hg_regex_compile(const char *pattern, size_t len, hg_regex **out, char *why,
		     size_t why_size, size_t *offset)
{
	*out = NULL;
	int err = 0;
	PCRE2_SIZE where = 0;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, len, 0, &err, &where, NULL);
	if (!code) {
		if (err == PCRE2_ERROR_NOMEMORY)
			return HG_ENOMEM;
		if (why && why_size > 0 &&
		    pcre2_get_error_message(err, (PCRE2_UCHAR *)why, why_size) < 0)
			why[0] = '\0';
		if (offset)
			*offset = where;
		return HG_EPARSE;
	}
	hg_regex *re = malloc(sizeof *re);
	if (!re) {
		pcre2_code_free(code);
		return HG_ENOMEM;
	}
	re->code = code;
	*out = re;
	return 0;
}

int hg_regex_match(const hg_regex *re, const char *s, size_t len)
{
	/* One match-data block per call keeps a compiled pattern shareable
	 * between threads; only whether it matched is wanted. */
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		return HG_ENOMEM;
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMEMORY)
		return HG_ENOMEM;
	return 0; /* no match, or a limit hit: not a match */
}

void hg_regex_free(hg_regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	free(re);
}
