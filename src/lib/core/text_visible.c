/* Text for a terminal that an upload cannot take over: every byte a
 * terminal would act on (C0 controls, DEL, C1 controls, bidirectional
 * overrides, bytes that are not UTF-8) is written as a visible escape, the
 * way git quotes a path ("\033", "\t", "\302\233"), and the columns that
 * take are counted, so that text fitted to a width stays fitted. */
#include <stdbool.h>
#include <string.h>

#include "hangar/text.h"

/* A character as shown: bytes taken from the input, and either NULL (copy
 * them) or the escape written instead. */
struct shown {
	size_t bytes;
	size_t cols;
	bool escape;      /* write each byte of the character as \ooo (or its letter) */
	bool keep;        /* copied as is (tab, newline, a colour sequence) */
};

/* The escape of a C0 byte that has a letter of its own in C, or 0. */
static char letter_of(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\t': return 't';
	case '\n': return 'n';
	case '\v': return 'v';
	case '\f': return 'f';
	case '\r': return 'r';
	default: return 0;
	}
}

/* Columns of one byte's escape: "\t" 2, "\033" 4. */
static size_t escape_cols(unsigned char c)
{
	return letter_of(c) ? 2 : 4;
}

/* Code points that reorder what is shown around them (the "Trojan Source"
 * characters) or that are C1 controls, which some terminals obey. */
static bool is_hidden_control(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static unsigned code_point(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0];
	unsigned cp = s[0] & (0x7F >> n);
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3F);
	return cp;
}

/* Whether s[0..len) starts with one of the renderers' own colour sequences
 * (render_style: bold, dim, red bold, yellow, reset): ESC [ params m with
 * params among 0, 1, 2, 22, 31, 33, 39.  Anything else an ESC starts is
 * escaped, so a report cannot move the cursor, clear the screen, retitle
 * the window or hide text, even where colour is on. */
static size_t own_colour(const char *s, size_t len)
{
	if (len < 3 || s[0] != '\033' || s[1] != '[')
		return 0;
	size_t i = 2, param = 0, digits = 0;
	for (; i < len && i < 16; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			param = param * 10 + (size_t)(c - '0');
			if (++digits > 2)
				return 0;
			continue;
		}
		if (c != ';' && c != 'm')
			return 0;
		if (!(param == 0 || param == 1 || param == 2 || param == 22 || param == 31 ||
		      param == 33 || param == 39))
			return 0;
		if (c == 'm')
			return i + 1;
		param = 0;
		digits = 0;
	}
	return 0;
}

static struct shown look(const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char c = p[0];
	if (c >= 0x20 && c < 0x7f)
		return (struct shown){1, 1, false, true};
	if (c < 0x80 || c == 0x7f) {
		if ((flags & HG_VISIBLE_LINES) &&
		    (c == '\n' || c == '\t' || (c == '\r' && len > 1 && p[1] == '\n')))
			return (struct shown){1, c == '\t' ? 1 : 0, false, true};
		size_t sgr = (flags & HG_VISIBLE_COLOUR) ? own_colour(s, len) : 0;
		if (sgr)
			return (struct shown){sgr, 0, false, true};
		return (struct shown){1, escape_cols(c), true, false};
	}
	if (c == 0xC0 && len > 1 && p[1] == 0x80) /* U+0000 as the JSON reader keeps it */
		return (struct shown){2, 4, true, false};
	size_t n = hg_utf8_len(s, len);
	if (n == 0)
		return (struct shown){1, 4, true, false};
	if (is_hidden_control(code_point(p, n)))
		return (struct shown){n, 4 * n, true, false};
	return (struct shown){n, 1, false, true};
}

static void put_escape(hg_buf *buf, const unsigned char *p, size_t n)
{
	if (n == 2 && p[0] == 0xC0 && p[1] == 0x80) {
		hg_buf_add(buf, "\\000", 4);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char letter = letter_of(p[i]);
		char esc[4] = {'\\', letter, 0, 0};
		if (letter) {
			hg_buf_add(buf, esc, 2);
			continue;
		}
		esc[1] = (char)('0' + (p[i] >> 6));
		esc[2] = (char)('0' + ((p[i] >> 3) & 7));
		esc[3] = (char)('0' + (p[i] & 7));
		hg_buf_add(buf, esc, 4);
	}
}

/* Whether the byte can be copied without a closer look: printable ASCII,
 * and (in lines) newline and tab. */
static inline bool plain(unsigned char c, unsigned flags)
{
	return (c >= 0x20 && c < 0x7f) || ((flags & HG_VISIBLE_LINES) && (c == '\n' || c == '\t'));
}

void hg_buf_visible_as(hg_buf *buf, const char *s, size_t len, unsigned flags)
{
	size_t from = 0, i = 0;
	while (i < len) {
		if (plain((unsigned char)s[i], flags)) {
			i++;
			continue;
		}
		struct shown sh = look(s + i, len - i, flags);
		if (sh.keep) {
			i += sh.bytes;
			continue;
		}
		hg_buf_add(buf, s + from, i - from);
		put_escape(buf, (const unsigned char *)s + i, sh.bytes);
		i += sh.bytes;
		from = i;
	}
	hg_buf_add(buf, s + from, len - from);
}

void hg_buf_visible(hg_buf *buf, const char *s, size_t len)
{
	hg_buf_visible_as(buf, s, len, 0);
}

bool hg_text_is_visible(const char *s, size_t len, unsigned flags)
{
	for (size_t i = 0; i < len;) {
		if (plain((unsigned char)s[i], flags)) {
			i++;
			continue;
		}
		struct shown sh = look(s + i, len - i, flags);
		if (!sh.keep)
			return false;
		i += sh.bytes;
	}
	return true;
}

size_t hg_visible_cols(const char *s, size_t len)
{
	size_t cols = 0;
	for (size_t i = 0; i < len;) {
		if ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f) {
			cols++;
			i++;
			continue;
		}
		struct shown sh = look(s + i, len - i, 0);
		cols += sh.cols;
		i += sh.bytes;
	}
	return cols;
}

size_t hg_visible_prefix(const char *s, size_t len, size_t cols, size_t *taken)
{
	size_t used = 0, i = 0;
	while (i < len) {
		struct shown sh = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f
					  ? (struct shown){1, 1, false, true}
					  : look(s + i, len - i, 0);
		if (used + sh.cols > cols)
			break;
		used += sh.cols;
		i += sh.bytes;
	}
	if (taken)
		*taken = used;
	return i;
}
