/* The pre-scan described in json_scan.h: one pass, no recursion. */
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/text.h"
#include "bigmem.h"
#include "json_scan.h"

#define MAX_NESTING 1000 /* cJSON's CJSON_NESTING_LIMIT */

struct vec {
	void *data;
	size_t len, cap, size;
};

static void *vec_push(struct vec *v)
{
	if (v->len == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		void *p = realloc(v->data, cap * v->size);
		if (!p)
			return NULL;
		v->data = p;
		v->cap = cap;
	}
	return (char *)v->data + v->size * v->len++;
}

/* Whitespace as cJSON skips it: every byte up to 0x20. */
static bool is_space(char c)
{
	return (unsigned char)c <= 0x20;
}

static bool is_number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Offset just past the string starting at text[i] == '"', or len when the
 * text ends first (*open is then set).  A raw line break inside is invalid
 * JSON that cJSON would accept; it is noted in *line_break so that a broken
 * NDJSON line cannot swallow the next one. */
static size_t skip_string(const char *t, size_t i, size_t len, bool *open, size_t *line_break)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\') {
			i++;
		} else if (t[i] == '"') {
			return i + 1;
		} else if ((t[i] == '\n' || t[i] == '\r') && *line_break == SIZE_MAX) {
			*line_break = i;
		}
	}
	*open = true;
	return len;
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
					break;
				if (c >= 0x80)
					return false; /* key is ASCII */
			} else {
				const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
				const char *p = strchr(from, esc);
				if (!p || !esc)
					return false;
				c = (unsigned char)to[p - from];
			}
		}
		if (key[k] == '\0' || (unsigned char)key[k] != c)
			return false;
		k++;
	}
	return key[k] == '\0';
}

/* Reads "[int, int, ...]" at t[i] == '[' into values.  Returns the offset
 * past ']' or 0 when the array is not made of integers only. */
/* Skips whitespace from i, noting the first newline. */
static size_t skip_ws(const char *t, size_t i, size_t len, size_t *first_newline)
{
	for (; i < len && is_space(t[i]); i++)
		if (t[i] == '\n' && *first_newline == SIZE_MAX)
			*first_newline = i;
	return i;
}

static size_t read_int_array(const char *t, size_t i, size_t len, struct vec *values, size_t *count,
			     size_t *first_newline)
{
	size_t newline_before = *first_newline;
	size_t start_len = values->len;
	/* Reserve room for as many integers as the rest of the text can hold:
	 * address space only, since pages never written are never touched. */
	size_t most = (len - i) / 2 + 1;
	if (values->cap - values->len < most) {
		void *p = realloc(values->data, (values->len + most) * values->size);
		if (p) {
			values->data = p;
			values->cap = values->len + most;
			hg_hint_huge((int64_t *)p + values->len, most * values->size);
		}
	}
	*count = 0;
	i = skip_ws(t, i + 1, len, first_newline);
	if (i < len && t[i] == ']')
		return i + 1;
	while (i < len) {
		bool negative = t[i] == '-';
		size_t d = i + negative, j = d;
		uint64_t v = 0;
		for (; j < len && t[j] >= '0' && t[j] <= '9' && j - d < 19; j++)
			v = v * 10 + (uint64_t)(t[j] - '0');
		/* 19 digits can exceed int64; let the exact reader handle those. */
		if (j == d || (j < len && is_number_char(t[j])) || (j - d == 19 && v > (uint64_t)INT64_MAX))
			goto not_ints;
		int64_t *slot = vec_push(values);
		if (!slot)
			goto not_ints;
		*slot = negative ? -(int64_t)v : (int64_t)v;
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
	values->len = start_len;
	*first_newline = newline_before; /* the main scan will see them again */
	return 0;
}

int json_scan(const char *t, size_t len, const char *hot_key, struct json_scan *scan)
{
	struct vec numbers = {NULL, 0, 0, sizeof(struct json_token)};
	struct vec arrays = {NULL, 0, 0, sizeof(struct json_keyed_array)};
	struct vec values = {NULL, 0, 0, sizeof(int64_t)};
	struct vec elements = {NULL, 0, 0, sizeof(size_t)};
	char stack[MAX_NESTING + 1]; /* 'o' object, 'a' array */
	size_t depth = 0, i = 0;
	bool expect_key = false, value_is_hot = false, oom = false, in_string = false;
	scan->first_newline = SIZE_MAX;
	scan->line_break_in_string = SIZE_MAX;
	if (len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
		i = 3; /* cJSON skips a UTF-8 byte order mark */
	while (i < len && !oom) {
		char c = t[i];
		if (is_space(c) || c == ',' || c == ':') {
			if (c == '\n' && scan->first_newline == SIZE_MAX)
				scan->first_newline = i;
			if (c == ',' && depth && stack[depth - 1] == 'o')
				expect_key = true;
			i++;
			continue;
		}
		bool value_done = false;
		if (depth == 1 && stack[0] == 'a' && c != ']' && !expect_key) {
			size_t *e = vec_push(&elements);
			if (!e) {
				oom = true;
				break;
			}
			*e = i;
		}
		if (c == '"') {
			size_t end = skip_string(t, i, len, &in_string, &scan->line_break_in_string);
			if (expect_key) {
				value_is_hot = hot_key && *hot_key && end > i + 1 &&
					       string_equals(t, i + 1, end - 1, hot_key);
				expect_key = false;
			} else {
				value_done = true;
			}
			i = end;
		} else if (c == '{' || c == '[') {
			if (c == '[' && value_is_hot) {
				struct json_keyed_array *a = vec_push(&arrays);
				if (!a) {
					oom = true;
					break;
				}
				size_t count = 0, first = values.len;
				size_t end = read_int_array(t, i, len, &values, &count,
							    &scan->first_newline);
				*a = (struct json_keyed_array){end != 0, i, end ? end - 1 : 0, first, count};
				if (end) {
					i = end;
					value_is_hot = false;
					value_done = true;
					goto next;
				}
			}
			if (depth == MAX_NESTING)
				break;
			stack[depth++] = c == '{' ? 'o' : 'a';
			expect_key = c == '{';
			value_is_hot = false; /* the hot key names this container only */
			i++;
		} else if (c == '}' || c == ']') {
			if (depth)
				depth--;
			expect_key = false; /* "{}" leaves no key pending */
			i++;
			value_done = true;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			size_t start = i;
			while (i < len && is_number_char(t[i]))
				i++;
			struct json_token *tok = vec_push(&numbers);
			if (!tok) {
				oom = true;
				break;
			}
			*tok = (struct json_token){start, i - start};
			value_done = true;
		} else if (c >= 'a' && c <= 'z') {
			while (i < len && t[i] >= 'a' && t[i] <= 'z')
				i++;
			value_done = true;
		} else {
			break; /* not JSON: cJSON will say where */
		}
next:
		if (value_done) {
			value_is_hot = false;
			if (depth == 0)
				break; /* the end of the first value */
		}
	}
	scan->numbers = numbers.data;
	scan->n_numbers = numbers.len;
	scan->arrays = arrays.data;
	scan->n_arrays = arrays.len;
	scan->values = values.data;
	scan->n_values = values.len;
	scan->elements = elements.data;
	scan->n_elements = elements.len;
	/* The text ran out inside a value: truncated, not malformed. */
	scan->unfinished = i >= len && (depth > 0 || in_string);
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
	memset(scan, 0, sizeof *scan);
}
