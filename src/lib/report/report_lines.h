/* The lines of a text report, as the Java stack and BlockCanary readers
 * walk them (private). */
#ifndef HANGAR_LIB_REPORT_LINES_H
#define HANGAR_LIB_REPORT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct line {
	const char *s; /* without leading and trailing blanks or CR */
	size_t len;
	size_t off;    /* of the line's first byte in the text */
	long no;       /* 1-based */
};

/* The line at *pos of text[0..len) into *ln (ln->no counts up), and *pos
 * past it; false at the end of the text. */
static inline bool next_line(const char *text, size_t len, size_t *pos, struct line *ln)
{
	if (*pos >= len)
		return false;
	const char *p = text + *pos, *end = text + len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	ln->off = *pos;
	ln->no++;
	*pos = nl ? (size_t)(nl - text) + 1 : len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	ln->s = p;
	ln->len = (size_t)(e - p);
	return true;
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A short printable quotation of s[0..n) for messages, cut with "...". */
static inline void quote_text(char *out, size_t size, const char *s, size_t n)
{
	size_t k = 0, max = size > 4 ? size - 4 : 0;
	for (size_t i = 0; i < n && k < max; i++)
		out[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (k < n && size >= 4)
		memcpy(out + k, "...", 3), k += 3;
	out[k < size ? k : size - 1] = '\0';
}

#endif
