/* Growable buffers and JSON string escaping. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/text.h"

void hg_buf_init(hg_buf *buf)
{
	memset(buf, 0, sizeof *buf);
}

void hg_buf_release(hg_buf *buf)
{
	free(buf->data);
	hg_buf_init(buf);
}

void hg_buf_reset(hg_buf *buf)
{
	buf->len = 0;
	if (buf->data)
		buf->data[0] = '\0';
}

static int reserve(hg_buf *buf, size_t extra)
{
	if (buf->failed)
		return -1;
	if (extra >= SIZE_MAX - buf->len) {
		buf->failed = 1;
		return -1;
	}
	size_t need = buf->len + extra + 1;
	if (need <= buf->cap)
		return 0;
	size_t cap = buf->cap ? buf->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	char *p = realloc(buf->data, cap);
	if (!p) {
		buf->failed = 1;
		return -1;
	}
	buf->data = p;
	buf->cap = cap;
	return 0;
}

void hg_buf_add_growing(hg_buf *buf, const char *s, size_t len)
{
	if (len == 0)
		return;
	if (reserve(buf, len) != 0)
		return; /* (reserve keeps len < cap, and says no once it failed) */
	memcpy(buf->data + buf->len, s, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
}

void hg_buf_putc(hg_buf *buf, char c)
{
	if (buf->len + 1 < buf->cap && !buf->failed) { /* the usual case, called per byte */
		buf->data[buf->len++] = c;
		buf->data[buf->len] = '\0';
		return;
	}
	hg_buf_add(buf, &c, 1);
}

void hg_buf_printf(hg_buf *buf, const char *fmt, ...)
{
	if (buf->failed)
		return;
	va_list ap, copy;
	va_start(ap, fmt);
	va_copy(copy, ap);
	/* Straight into the room there is; formatted again only when it
	 * did not fit (formatting twice every time was a fifth of a run). */
	size_t room = buf->cap > buf->len ? buf->cap - buf->len : 0;
	int n = vsnprintf(room ? buf->data + buf->len : NULL, room, fmt, copy);
	va_end(copy);
	if (n >= 0 && (size_t)n < room) {
		buf->len += (size_t)n;
	} else if (n >= 0 && reserve(buf, (size_t)n) == 0) {
		vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
		buf->len += (size_t)n;
	} else if (room) {
		buf->data[buf->len] = '\0'; /* what vsnprintf wrote is not kept */
	}
	va_end(ap);
}

/* "00" to "99": two digits a step, half the divisions (a JSON stack is
 * mostly small numbers, and the printing thread writes hundreds a report). */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
				     "25262728293031323334353637383940414243444546474849"
				     "50515253545556575859606162636465666768697071727374"
				     "75767778798081828384858687888990919293949596979899";

void hg_buf_int(hg_buf *buf, int64_t v)
{
	char digits[24], *p = digits + sizeof digits;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	while (u >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	if (v < 0)
		*--p = '-';
	hg_buf_add(buf, p, (size_t)(digits + sizeof digits - p));
}

size_t hg_utf8_len(const char *text, size_t avail)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		n = 2, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		n = 3, min = 0x800;
	else if ((c & 0xF8) == 0xF0)
		n = 4, min = 0x10000;
	else
		return 0;
	if (n > avail)
		return 0;
	unsigned cp = c & (0x7F >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

void hg_buf_json_string(hg_buf *buf, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	hg_buf_putc(buf, '"');
	size_t i = 0;
	while (i < len) {
		/* Copy a run of characters that need no escaping in one go. */
		size_t run = i;
		while (run < len && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
			run++;
		hg_buf_add(buf, s + i, run - i);
		i = run;
		if (i == len)
			break;
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			hg_buf_add(buf, esc, 2);
			i++;
		} else if (c < 0x20) {
			switch (c) {
			case '\n': hg_buf_add(buf, "\\n", 2); break;
			case '\t': hg_buf_add(buf, "\\t", 2); break;
			case '\r': hg_buf_add(buf, "\\r", 2); break;
			default: hg_buf_printf(buf, "\\u%04x", c); break;
			}
			i++;
		} else if (c == 0xC0 && i + 1 < len && p[i + 1] == 0x80) {
			/* U+0000 as the JSON reader keeps it (json.h) */
			hg_buf_add(buf, "\\u0000", 6);
			i += 2;
		} else {
			size_t n = hg_utf8_len(s + i, len - i);
			if (n == 0) {
				hg_buf_add(buf, "\\ufffd", 6);
				i++;
			} else {
				hg_buf_add(buf, s + i, n);
				i += n;
			}
		}
	}
	hg_buf_putc(buf, '"');
}

int hg_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool hg_str_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && memcmp(s + n - t, tail, t) == 0;
}
