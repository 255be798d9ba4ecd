/* Growable text buffers and JSON string escaping, shared by the library's
 * metadata printer and the CLI's renderers. */
#ifndef HANGAR_TEXT_H
#define HANGAR_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "hangar.h"

/* A growable byte buffer.  Caller-owned storage: hg_buf_init / hg_buf_release.
 * After any failed append `failed` is set and further appends do nothing, so
 * callers may check once at the end. */
typedef struct hg_buf {
	char *data;     /* NUL-terminated when len > 0 */
	size_t len;
	size_t cap;
	int failed;
} hg_buf;

void hg_buf_init(hg_buf *buf);
void hg_buf_release(hg_buf *buf);
void hg_buf_reset(hg_buf *buf);
/* hg_buf_add's way when the buffer must grow (or has failed). */
void hg_buf_add_growing(hg_buf *buf, const char *s, size_t len);

/* Appends s[0..len).  Inline, like hg_buf_puts: the renderers append a
 * few bytes at a time, most of them literals whose length and copy the
 * compiler then works out in place. */
static inline void hg_buf_add(hg_buf *buf, const char *s, size_t len)
{
	if (len && !buf->failed && len < buf->cap - buf->len) { /* room for s and the NUL */
		memcpy(buf->data + buf->len, s, len);
		buf->len += len;
		buf->data[buf->len] = '\0';
		return;
	}
	hg_buf_add_growing(buf, s, len);
}

static inline void hg_buf_puts(hg_buf *buf, const char *s)
{
	hg_buf_add(buf, s, strlen(s));
}

void hg_buf_putc(hg_buf *buf, char c);
void hg_buf_printf(hg_buf *buf, const char *fmt, ...) HG_PRINTF(2, 3);
/* Appends v in decimal (without printf: the hot loops of the writers). */
void hg_buf_int(hg_buf *buf, int64_t v);
/* Appends s[0..len) as a quoted JSON string (control characters escaped,
 * invalid UTF-8 bytes replaced by U+FFFD so the output always parses). */
void hg_buf_json_string(hg_buf *buf, const char *s, size_t len);
/* ---- text for a person (text_visible.c) ----
 * Reports come from users' phones: a name, path, title or message in them
 * may hold bytes a terminal obeys (ESC ] 0; retitles the window, ESC [2J
 * clears the screen, U+202E reverses what follows).  Text output shows such
 * bytes as escapes, the way git quotes a path: "\t", "\033", "\302\233"
 * (a C1 control), "\342\200\256" (a bidirectional override), "\377" (a
 * byte that is not UTF-8), "\000" (the NUL the JSON reader keeps as C0 80).
 * JSON, CSV and the other data formats escape by their own rules instead. */
enum hg_visible_flags {
	HG_VISIBLE_LINES = 1,  /* a whole text: newline, tab and CR before LF kept */
	HG_VISIBLE_COLOUR = 2, /* the renderers' own colour sequences kept (ESC [ 0/1/2/22/31/33/39 m) */
};
/* Appends s[0..len) with every such byte escaped (flags: 0 for one field,
 * where a newline or tab is escaped too). */
void hg_buf_visible_as(hg_buf *buf, const char *s, size_t len, unsigned flags);
/* hg_buf_visible_as(buf, s, len, 0): one field. */
void hg_buf_visible(hg_buf *buf, const char *s, size_t len);
/* Whether hg_buf_visible_as would copy s[0..len) unchanged. */
bool hg_text_is_visible(const char *s, size_t len, unsigned flags);
/* The columns hg_buf_visible takes for s[0..len): a character one, an
 * escape its length. */
size_t hg_visible_cols(const char *s, size_t len);
/* The bytes of the longest start of s[0..len) whose escaped form fits in
 * cols columns, never cutting a character or an escape; *taken (may be
 * NULL) gets the columns used. */
size_t hg_visible_prefix(const char *s, size_t len, size_t cols, size_t *taken);
/* The length (1..4) of the valid UTF-8 sequence at s[0..avail), 0 when it
 * is not one (avail > 0). */
size_t hg_utf8_len(const char *s, size_t avail);

/* The value of a hexadecimal digit (either case), or -1. */
int hg_hex_value(char c);

/* Whether s ends with tail. */
bool hg_str_ends_with(const char *s, const char *tail);

#endif
