/* KSCrash reports with a comma before '}' or ']' (report_kscrash_lenient.h).
 * Only that one fault is forgiven, only for a KSCrash report, and only
 * where the parser stopped on it: the copy is made of one value, found by
 * its brackets, never of the rest of the input. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report_kscrash_lenient.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

size_t kscrash_blank_trailing_commas(char *s, size_t len, size_t *first)
{
	size_t n = 0, comma = len; /* the last comma outside strings, when only blanks followed */
	bool in_string = false;
	*first = len;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_string) {
			if (c == '\\')
				i++; /* the escaped byte, whatever it is */
			else if (c == '"')
				in_string = false;
			continue;
		}
		if ((c == '}' || c == ']') && comma < len) {
			s[comma] = ' ';
			*first = n++ ? *first : comma;
		}
		if (c == ',')
			comma = i;
		else if (!blank(c))
			comma = len;
		in_string = c == '"';
	}
	return n;
}

size_t kscrash_value_end(const char *text, size_t len)
{
	size_t depth = 0;
	bool in_string = false;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			else if (c == '\n')
				return 0; /* JSON strings hold no raw newline */
			continue;
		}
		if (c == '"')
			in_string = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth > 0 && --depth == 0)
			return i + 1;
		else if (c == '\n' && i + 1 < len && (text[i + 1] == '{' || text[i + 1] == '['))
			return 0;
	}
	return 0;
}

/* Whether the parser stopped on a '}' or ']' that follows a comma. */
static bool stopped_on_trailing_comma(const char *text, size_t len, size_t at)
{
	if (at >= len || (text[at] != '}' && text[at] != ']'))
		return false;
	while (at > 0 && blank(text[at - 1]))
		at--;
	return at > 0 && text[at - 1] == ',';
}

int kscrash_lenient_parse(const char *text, size_t len, size_t fail_at,
			  enum hg_input_format format, const char *hot_key, const char *lazy_key,
			  hg_json_doc **doc, size_t *end, struct kscrash_lenient *l)
{
	*l = (struct kscrash_lenient){0};
	if ((format != HG_FORMAT_AUTO && format != HG_FORMAT_KSCRASH) || len == 0 ||
	    text[0] != '{' || !stopped_on_trailing_comma(text, len, fail_at))
		return HG_EPARSE;
	size_t vend = kscrash_value_end(text, len);
	if (vend == 0)
		return HG_EPARSE;
	char *copy = malloc(vend + 1);
	if (!copy)
		return HG_ENOMEM;
	memcpy(copy, text, vend);
	copy[vend] = '\0';
	size_t first, n = kscrash_blank_trailing_commas(copy, vend, &first), stop = 0;
	hg_json_doc *d = NULL;
	int rc = n ? hg_json_parse_keys(copy, vend, hot_key, lazy_key, &d, &stop, NULL) : HG_EPARSE;
	const hg_json *root = rc == 0 ? hg_json_root(d) : NULL;
	bool kscrash = hg_json_type(root) == HG_JSON_OBJECT &&
		       (format == HG_FORMAT_KSCRASH || report_is_kscrash(root));
	if (rc != 0 || !kscrash) {
		hg_json_doc_destroy(d);
		free(copy);
		return rc == HG_ENOMEM ? rc : HG_EPARSE;
	}
	*doc = d;
	*end = stop;
	*l = (struct kscrash_lenient){copy, n, first};
	return 0;
}
