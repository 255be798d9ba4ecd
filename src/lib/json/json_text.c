/* The text around cJSON (json_text.h): spans hidden from it, and strings
 * decoded here rather than by cJSON. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/text.h"
#include "json_text.h"

/* What is hidden from cJSON, in document order: hot and lazy arrays (their
 * elements) and long strings (their bytes), each kept as its two brackets
 * or quotes.  The two lists are each in order and never overlap (strings
 * inside lazy arrays are scanned apart), so they are merged as they go. */
struct hidden_walk {
	const struct json_scan *scan;
	size_t a, s; /* next array, next long string */
};

/* The next hidden span's bracket or quote offsets; false after the last. */
static bool next_hidden(struct hidden_walk *w, size_t *open, size_t *close)
{
	const struct json_scan *scan = w->scan;
	while (w->a < scan->n_arrays && !scan->arrays[w->a].hot && !scan->arrays[w->a].lazy)
		w->a++;
	bool array = w->a < scan->n_arrays;
	bool string = w->s < scan->n_long_strings;
	if (array && (!string || scan->arrays[w->a].open < scan->long_strings[w->s].open)) {
		*open = scan->arrays[w->a].open;
		*close = scan->arrays[w->a].close;
		w->a++;
		return true;
	}
	if (!string)
		return false;
	*open = scan->long_strings[w->s].open;
	*close = scan->long_strings[w->s].close;
	w->s++;
	return true;
}

/* The text cJSON sees: hot arrays shrunk to "[]", long strings to "".
 * *shrunk is NULL when nothing needed hiding (cJSON then reads the text
 * itself).  Spans that end past len (the text cJSON is shown stops inside
 * one) are not hidden. */
int json_shrink(const char *text, size_t len, const struct json_scan *scan, char **shrunk,
		  size_t *shrunk_len)
{
	*shrunk = NULL;
	size_t removed = 0, open, close;
	struct hidden_walk w = {scan, 0, 0};
	while (next_hidden(&w, &open, &close) && close < len)
		removed += close - open - 1;
	if (removed == 0)
		return 0;
	char *out = malloc(len - removed + 1);
	if (!out)
		return HG_ENOMEM;
	size_t from = 0, n = 0;
	w = (struct hidden_walk){scan, 0, 0};
	while (next_hidden(&w, &open, &close) && close < len) {
		memcpy(out + n, text + from, open + 1 - from);
		n += open + 1 - from;
		from = close; /* the closing bracket or quote, copied with what follows */
	}
	memcpy(out + n, text + from, len - from);
	n += len - from;
	out[n] = '\0';
	*shrunk = out;
	*shrunk_len = n;
	return 0;
}

/* An offset in the shrunk text of text[0..len), back in the original text. */
size_t json_unshrink(const struct json_scan *scan, size_t len, size_t off)
{
	size_t shift = 0, open, close;
	struct hidden_walk w = {scan, 0, 0};
	while (next_hidden(&w, &open, &close) && close < len) {
		if (open - shift >= off)
			break;
		shift += close - open - 1;
	}
	return off + shift;
}

/* The long string between the quotes at text[open] and text[close],
 * decoded: its escapes are one-letter ones (the scan checked), so this is
 * what cJSON would have made of it, runs copied whole between escapes. */
char *json_decode_long_string(hg_arena *arena, const char *text, size_t open, size_t close)
{
	char *out = hg_arena_alloc(arena, close - open), *o = out;
	if (!out)
		return NULL;
	const char *p = text + open + 1, *end = text + close;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		size_t run = (size_t)((bs ? bs : end) - p);
		memcpy(o, p, run);
		o += run;
		if (!bs)
			break;
		*o++ = (char)json_escape_letter(bs[1]); /* one-letter: the scan checked */
		p = bs + 2;
	}
	*o = '\0';
	return out;
}

/* The JSON string token at text[at] == '"', decoded as cJSON does, but with
 * each \u0000 kept as the two bytes C0 80 (Java's "modified UTF-8" NUL),
 * which a C string can carry; hg_buf_json_string writes them back as
 * \u0000.  cJSON has already checked the token, so it is valid. */
char *json_decode_keeping_nul(hg_arena *arena, const char *text, size_t at)
{
	size_t end = at + 1;
	while (text[end] != '"')
		end += text[end] == '\\' ? 2 : 1;
	char *out = hg_arena_alloc(arena, 2 * (end - at) + 1), *o = out; /* C0 80 for each 6-byte \u0000 */
	if (!out)
		return NULL;
	for (size_t i = at + 1; i < end; i++) {
		if (text[i] != '\\') {
			*o++ = text[i];
			continue;
		}
		char esc = text[++i];
		if (esc != 'u') {
			int e = json_escape_letter(esc);
			*o++ = e >= 0 ? (char)e : esc;
			continue;
		}
		unsigned long c = 0;
		for (int k = 1; k <= 4; k++)
			c = c << 4 | (unsigned long)hg_hex_value(text[i + k]);
		i += 4;
		if (c >= 0xD800 && c <= 0xDBFF && text[i + 1] == '\\' && text[i + 2] == 'u') {
			unsigned long lo = 0;
			for (int k = 3; k <= 6; k++)
				lo = lo << 4 | (unsigned long)hg_hex_value(text[i + k]);
			c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
			i += 6;
		}
		if (c == 0) {
			*o++ = (char)0xC0;
			*o++ = (char)0x80;
		} else if (c < 0x80) {
			*o++ = (char)c;
		} else if (c < 0x800) {
			*o++ = (char)(0xC0 | c >> 6);
			*o++ = (char)(0x80 | (c & 0x3F));
		} else if (c < 0x10000) {
			*o++ = (char)(0xE0 | c >> 12);
			*o++ = (char)(0x80 | (c >> 6 & 0x3F));
			*o++ = (char)(0x80 | (c & 0x3F));
		} else {
			*o++ = (char)(0xF0 | c >> 18);
			*o++ = (char)(0x80 | (c >> 12 & 0x3F));
			*o++ = (char)(0x80 | (c >> 6 & 0x3F));
			*o++ = (char)(0x80 | (c & 0x3F));
		}
	}
	*o = '\0';
	return out;
}

