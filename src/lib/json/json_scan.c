/* The pre-scan described in json_scan.h: one pass, no recursion.
 *
 * The grammar it checks is what keeps reading a stream linear: without it,
 * a value cut short (`{"a":[1,2` and a line break) would be scanned on
 * through every report after it, since commas and colons alone do not tell
 * where a value ends.  It is lighter than cJSON's: numbers are any run of
 * number characters, escapes are not decoded; cJSON judges those. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hangar/hangar.h"
#include "hangar/text.h"
#include "core/core.h"
#include "json_scan.h"
#include "json_scan_util.h"

/* What may come next. */
enum expect {
	VALUE,            /* at the start, after ':' and after ',' in an array */
	VALUE_OR_CLOSE,   /* after '[' */
	KEY,              /* after ',' in an object */
	KEY_OR_CLOSE,     /* after '{' */
	COLON,            /* after a key */
	COMMA_OR_CLOSE,   /* after a value inside a container */
};

struct string_end {
	size_t end;        /* offset just past the closing quote */
	bool open;         /* the text ended first */
	bool control;      /* stopped at a raw control byte, at `end` */
	bool bad_escape;   /* ... or at a \u without four hex digits, at `end` */
	bool escaped_nul;  /* holds \u0000 */
	bool only_simple;  /* no escapes but the one-letter ones (\n, \", ...) */
};

/* Where the run of plain string bytes from t[i] ends: the first quote,
 * backslash or control byte, or len.  Sixteen bytes at a time where SSE2
 * is there (every x86-64): a folded stack is one string of a kilobyte,
 * which the byte loop below read at a byte per step. */
static inline size_t plain_run_end(const char *t, size_t i, size_t len)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
	const __m128i below_space = _mm_set1_epi8(0x20), flip = _mm_set1_epi8((char)0x80);
	for (; len - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(t + i));
		/* unsigned v < 0x20, as a signed compare of both sides with the top bit flipped */
		__m128i control = _mm_cmplt_epi8(_mm_xor_si128(v, flip),
						 _mm_xor_si128(below_space, flip));
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
							 _mm_cmpeq_epi8(v, backslash)), control);
		int mask = _mm_movemask_epi8(stop);
		if (mask)
			return i + (size_t)__builtin_ctz((unsigned)mask);
	}
#endif
	for (; i < len; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c == '"' || c == '\\' || c < 0x20)
			return i;
	}
	return len;
}

/* The string starting at t[i] == '"'.  A raw control byte inside is
 * invalid JSON that cJSON would accept (and a raw line break there would
 * let a broken NDJSON line swallow the next one): the string stops there. */
static struct string_end skip_string(const char *t, size_t i, size_t len)
{
	struct string_end s = {len, false, false, false, false, true};
	for (i++; i < len; i++) {
		i = plain_run_end(t, i, len);
		if (i >= len)
			break;
		unsigned char c = (unsigned char)t[i];
		if (c == '\\') {
			if (i + 1 < len && t[i + 1] == 'u') {
				/* cJSON reads a \u with fewer than four hex digits as a
				 * NUL and goes on: invalid JSON, said here. */
				size_t h = 0;
				while (h < 4 && i + 2 + h < len && hg_hex_value(t[i + 2 + h]) >= 0)
					h++;
				if (h < 4 && i + 2 + h < len) {
					s.end = i;
					s.control = s.bad_escape = true;
					return s;
				}
				if (h == 4 && memcmp(t + i + 2, "0000", 4) == 0)
					s.escaped_nul = true;
			}
			if (i + 1 >= len || json_escape_letter(t[i + 1]) < 0)
				s.only_simple = false;
			i++;
		} else if (c == '"') {
			s.end = i + 1;
			return s;
		} else if (c < 0x20) {
			s.end = i;
			s.control = true;
			return s;
		}
	}
	s.open = true;
	return s;
}

/* Whether the JSON string t[s..e) (quotes excluded) decodes to key the way
 * cJSON sees it: escapes decoded, and cut at a \u0000 as a C string is. */
static bool string_equals(const char *t, size_t s, size_t e, const char *key)
{
	size_t k = 0;
	for (size_t i = s; i < e; i++) {
		unsigned c = (unsigned char)t[i];
		if (c == '\\' && i + 1 < e) {
			char esc = t[++i];
			if (esc == 'u') {
				if (i + 4 >= e)
					return false;
				int h0 = hg_hex_value(t[i + 1]), h1 = hg_hex_value(t[i + 2]), h2 = hg_hex_value(t[i + 3]), h3 = hg_hex_value(t[i + 4]);
				if (h0 < 0 || h1 < 0 || h2 < 0 || h3 < 0)
					return false;
				c = (unsigned)((h0 << 12) | (h1 << 8) | (h2 << 4) | h3);
				i += 4;
				if (c == 0)
					break; /* where cJSON's C string ends, as json.c compares it */
				if (c >= 0x80)
					return false; /* key is ASCII */
			} else {
				int e = json_escape_letter(esc);
				if (e < 0)
					return false;
				c = (unsigned)e;
			}
		}
		if (key[k] == '\0' || (unsigned char)key[k] != c)
			return false;
		k++;
	}
	return key[k] == '\0';
}

/* After a string (key or value): counts it, lists it when it holds an
 * escaped NUL; false when the scan stops there (a raw control byte, the
 * text's end, no memory). */
static bool string_done(struct json_scan *scan, const struct string_end *s, bool record,
			struct vec *nul_strings, size_t *strings, bool *in_string, bool *oom)
{
	if (s->control) {
		scan->control_in_string = s->end;
		scan->bad_escape = s->bad_escape;
		return false;
	}
	if (s->open) {
		*in_string = true;
		return false;
	}
	if (s->escaped_nul && record) {
		size_t *n = vec_push(nul_strings);
		if (!n) {
			*oom = true;
			return false;
		}
		*n = *strings;
	}
	++*strings;
	return true;
}

/* The length of the literal true/false/null at t[i], or 0. */
static size_t literal(const char *t, size_t i, size_t len)
{
	static const char *const words[] = {"true", "false", "null"};
	for (size_t k = 0; k < 3; k++) {
		size_t n = strlen(words[k]);
		if (len - i >= n && memcmp(t + i, words[k], n) == 0)
			return n;
	}
	return 0;
}

/* What one scan records: a lazy array's own scan keeps only where its
 * elements start, at a depth that counts the containers around it. */
struct scan_opts {
	const char *hot_key, *lazy_key;
	bool record;
	size_t max_depth;
};

static int scan_value(const char *t, size_t len, const struct scan_opts *o, struct json_scan *scan);

/* The lazy array at t[i] == '[': checked by a scan of its own, which keeps
 * where its elements start.  Returns the offset past ']', or 0 when it
 * does not end well (its scan's findings, moved to t, are then in *sub). */
static size_t skip_lazy(const char *t, size_t i, size_t len, size_t depth, struct vec *lazy,
			struct json_keyed_array *a, struct json_scan *sub, bool *oom)
{
	struct scan_opts o = {NULL, NULL, false, JSON_MAX_NESTING - depth};
	if (scan_value(t + i, len - i, &o, sub) != 0) {
		*oom = true;
		return 0;
	}
	if (!sub->complete) {
		if (sub->error != SIZE_MAX)
			sub->error += i;
		if (sub->control_in_string != SIZE_MAX)
			sub->control_in_string += i;
		return 0;
	}
	a->lazy = true;
	a->open = i;
	a->close = i + sub->end - 1;
	a->first = lazy->len;
	a->count = sub->n_elements;
	for (size_t k = 0; k < sub->n_elements && !*oom; k++) {
		size_t *e = vec_push(lazy);
		if (!e)
			*oom = true;
		else
			*e = i + sub->elements[k];
	}
	return *oom ? 0 : i + sub->end;
}

int json_scan(const char *t, size_t len, const char *hot_key, const char *lazy_key,
	      struct json_scan *scan)
{
	struct scan_opts o = {hot_key, lazy_key, true, JSON_MAX_NESTING};
	return scan_value(t, len, &o, scan);
}

static int scan_value(const char *t, size_t len, const struct scan_opts *o, struct json_scan *scan)
{
	const char *hot_key = o->hot_key;
	struct vec numbers = {NULL, 0, 0, sizeof(struct json_token)};
	struct vec arrays = {NULL, 0, 0, sizeof(struct json_keyed_array)};
	struct vec values = {NULL, 0, 0, sizeof(int64_t)};
	struct vec elements = {NULL, 0, 0, sizeof(size_t)};
	struct vec nul_strings = {NULL, 0, 0, sizeof(size_t)};
	struct vec lazy = {NULL, 0, 0, sizeof(size_t)};
	struct vec long_strings = {NULL, 0, 0, sizeof(struct json_long_string)};
	char stack[JSON_MAX_NESTING]; /* 'o' object, 'a' array */
	size_t depth = 0, i = 0, strings = 0;
	enum expect expect = VALUE;
	bool value_is_hot = false, value_is_lazy = false, oom = false, in_string = false;
	bool sub_unfinished = false;
	memset(scan, 0, sizeof *scan);
	scan->first_newline = SIZE_MAX;
	scan->error = SIZE_MAX;
	scan->control_in_string = SIZE_MAX;
	scan->cut_hot_array = SIZE_MAX;
	if (len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
		i = 3; /* cJSON skips a UTF-8 byte order mark */
	while (i < len && !oom) {
		char c = t[i];
		if (is_space(c)) {
			if (c == '\n' && scan->first_newline == SIZE_MAX)
				scan->first_newline = i;
			i++;
			continue;
		}
		char top = depth ? stack[depth - 1] : 0;
		bool value_done = false;
		if (expect == COLON) {
			if (c != ':')
				break;
			expect = VALUE;
			i++;
			continue;
		}
		if (expect == COMMA_OR_CLOSE) {
			if (c == ',') {
				expect = top == 'o' ? KEY : VALUE;
				i++;
				continue;
			}
			if (c != (top == 'o' ? '}' : ']'))
				break;
			depth--;
			i++;
			value_done = true;
		} else if (expect == KEY || expect == KEY_OR_CLOSE) {
			if (c == '}' && expect == KEY_OR_CLOSE) {
				depth--;
				i++;
				value_done = true;
			} else if (c == '"') {
				struct string_end s = skip_string(t, i, len);
				if (!string_done(scan, &s, o->record, &nul_strings, &strings, &in_string,
						 &oom)) {
					i = s.open ? len : i;
					break;
				}
				value_is_hot = hot_key && *hot_key && s.end > i + 1 &&
					       string_equals(t, i + 1, s.end - 1, hot_key);
				value_is_lazy = o->lazy_key && s.end > i + 1 &&
						string_equals(t, i + 1, s.end - 1, o->lazy_key);
				expect = COLON;
				i = s.end;
				continue;
			} else {
				break;
			}
		} else if (c == ']' && expect == VALUE_OR_CLOSE) {
			depth--;
			i++;
			value_done = true;
		} else {
			/* A value starts here. */
			if (depth == 1 && stack[0] == 'a') {
				size_t *e = vec_push(&elements);
				if (!e) {
					oom = true;
					break;
				}
				*e = i;
			}
			bool hot = value_is_hot, lazy_value = value_is_lazy;
			value_is_hot = value_is_lazy = false; /* the key names this value only */
			if (c == '"') {
				struct string_end s = skip_string(t, i, len);
				size_t ordinal = strings;
				if (!string_done(scan, &s, o->record, &nul_strings, &strings, &in_string,
						 &oom)) {
					i = s.open ? len : i;
					break;
				}
				if (o->record && s.only_simple && s.end - i - 2 >= JSON_LONG_STRING) {
					struct json_long_string *ls = vec_push(&long_strings);
					if (!ls) {
						oom = true;
						break;
					}
					*ls = (struct json_long_string){i, s.end - 1, ordinal};
				}
				i = s.end;
				value_done = true;
			} else if (c == '{' || c == '[') {
				if (c == '[' && hot) {
					struct json_keyed_array *a = vec_push(&arrays);
					if (!a) {
						oom = true;
						break;
					}
					size_t count = 0, first = values.len;
					bool ran_out = false;
					size_t end = json_read_int_array(t, i, len, &values, &count,
								    &scan->first_newline, &ran_out);
					*a = (struct json_keyed_array){.hot = end != 0, .open = i,
								       .close = end ? end - 1 : 0,
								       .first = first, .count = count};
					if (ran_out) {
						/* A buffer cut by the end of the text (a part of a
						 * stream, read again with more): cJSON need not
						 * read its numbers one by one to say so. */
						scan->cut_hot_array = i;
						i = len;
						break;
					}
					if (end) {
						i = end;
						value_done = true;
					}
				}
				if (c == '[' && lazy_value && !value_done) {
					struct json_keyed_array *a = vec_push(&arrays);
					if (!a) {
						oom = true;
						break;
					}
					*a = (struct json_keyed_array){.lazy = false};
					struct json_scan sub;
					size_t end = skip_lazy(t, i, len, depth, &lazy, a, &sub, &oom);
					if (end && scan->first_newline == SIZE_MAX &&
					    sub.first_newline != SIZE_MAX)
						scan->first_newline = i + sub.first_newline;
					if (!end && !oom) {
						scan->too_deep = sub.too_deep;
						scan->control_in_string = sub.control_in_string;
						scan->bad_escape = sub.bad_escape;
						sub_unfinished = sub.unfinished;
						i = sub.error != SIZE_MAX ? sub.error : len;
					}
					json_scan_release(&sub);
					if (!end)
						break;
					i = end;
					value_done = true;
				}
				if (!value_done) {
					if (depth == o->max_depth) {
						scan->too_deep = true;
						break;
					}
					stack[depth++] = c == '{' ? 'o' : 'a';
					expect = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
					i++;
					continue;
				}
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				size_t start = i;
				while (i < len && is_number_char(t[i]))
					i++;
				struct json_token *tok = o->record ? vec_push(&numbers) : NULL;
				if (o->record && !tok) {
					oom = true;
					break;
				}
				if (tok)
					*tok = (struct json_token){start, i - start};
				value_done = true;
			} else {
				size_t n = literal(t, i, len);
				if (n == 0)
					break; /* not JSON: cJSON will say where */
				i += n;
				value_done = true;
			}
		}
		if (value_done) {
			if (depth == 0) {
				scan->complete = true; /* the end of the first value */
				scan->end = i;
				break;
			}
			expect = COMMA_OR_CLOSE;
		}
	}
	if (!scan->complete && i < len && !oom)
		scan->error = scan->control_in_string != SIZE_MAX ? scan->control_in_string : i;
	scan->lazy = lazy.data;
	scan->n_lazy = lazy.len;
	scan->numbers = numbers.data;
	scan->n_numbers = numbers.len;
	scan->arrays = arrays.data;
	scan->n_arrays = arrays.len;
	scan->values = values.data;
	scan->n_values = values.len;
	scan->elements = elements.data;
	scan->n_elements = elements.len;
	scan->nul_strings = nul_strings.data;
	scan->n_nul_strings = nul_strings.len;
	scan->long_strings = long_strings.data;
	scan->n_long_strings = long_strings.len;
	/* The text ran out inside a value: truncated, not malformed. */
	scan->unfinished = !scan->complete && (sub_unfinished || (i >= len && (depth > 0 || in_string)));
	if (oom) {
		json_scan_release(scan);
		return HG_ENOMEM;
	}
	return 0;
}

void json_scan_release(struct json_scan *scan)
{
	free(scan->elements);
	free(scan->numbers);
	free(scan->arrays);
	free(scan->values);
	free(scan->nul_strings);
	free(scan->lazy);
	free(scan->long_strings);
	memset(scan, 0, sizeof *scan);
}
