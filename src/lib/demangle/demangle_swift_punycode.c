/* Punycode (RFC 3492) as Swift mangles identifiers that are not plain
 * ASCII: '_' delimits the basic code points, digits are 'a'-'z' (0-25) and
 * 'A'-'J' (26-35), and code points U+D800..U+D87F stand for the ASCII
 * bytes an identifier may not hold as they are (a space, a '`' of a raw
 * identifier).  Decoded to UTF-8. */
#include <stdint.h>

#include "demangle_internal.h"

enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, INITIAL_BIAS = 72, INITIAL_N = 128 };

/* Code points an identifier may decode to: Swift's own bound. */
#define MAX_CODE_POINTS 4096

static int digit_value(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'J')
		return c - 'A' + 26;
	return -1;
}

static uint32_t adapt(uint32_t delta, uint32_t points, bool first)
{
	delta = first ? delta / DAMP : delta / 2;
	delta += delta / points;
	uint32_t k = 0;
	while (delta > ((BASE - TMIN) * TMAX) / 2) {
		delta /= BASE - TMIN;
		k += BASE;
	}
	return k + (((BASE - TMIN + 1) * delta) / (delta + SKEW));
}

static bool valid_scalar(uint32_t c)
{
	return c < 0xD880 || (c >= 0xE000 && c <= 0x1FFFFF);
}

static void put_utf8(hg_buf *out, uint32_t c)
{
	char b[4];
	if (c >= 0xD800 && c < 0xD880)
		c -= 0xD800;
	if (c < 0x80) {
		b[0] = (char)c;
		hg_buf_add(out, b, 1);
	} else if (c < 0x800) {
		b[0] = (char)(0xC0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3F));
		hg_buf_add(out, b, 2);
	} else if (c < 0x10000) {
		b[0] = (char)(0xE0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (char)(0x80 | (c & 0x3F));
		hg_buf_add(out, b, 3);
	} else {
		b[0] = (char)(0xF0 | (c >> 18));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[3] = (char)(0x80 | (c & 0x3F));
		hg_buf_add(out, b, 4);
	}
}

/* One code point of the variable-length integers: i grows by the next
 * digits' value; false when the input ends or overflows. */
static bool read_delta(const char **p, const char *end, uint32_t *i, uint32_t bias)
{
	uint32_t w = 1;
	for (uint32_t k = BASE;; k += BASE) {
		if (*p == end)
			return false;
		int digit = digit_value(*(*p)++);
		if (digit < 0 || (uint32_t)digit > (INT32_MAX - *i) / w)
			return false;
		*i += (uint32_t)digit * w;
		uint32_t t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
		if ((uint32_t)digit < t)
			return true;
		if (w > INT32_MAX / (BASE - t))
			return false;
		w *= BASE - t;
	}
}

bool sw_punycode_decode(const char *s, size_t len, hg_buf *out)
{
	uint32_t points[MAX_CODE_POINTS];
	size_t n_points = 0;
	const char *end = s + len, *p = s;
	/* The basic code points are those before the last delimiter. */
	for (const char *q = end; q > s; q--)
		if (q[-1] == '_') {
			for (p = s; p < q - 1; p++) {
				if ((unsigned char)*p >= 0x80 || n_points == MAX_CODE_POINTS)
					return false;
				points[n_points++] = (unsigned char)*p;
			}
			p = q;
			break;
		}
	uint32_t n = INITIAL_N, i = 0, bias = INITIAL_BIAS;
	while (p < end) {
		uint32_t old = i;
		if (!read_delta(&p, end, &i, bias))
			return false;
		bias = adapt(i - old, (uint32_t)n_points + 1, old == 0);
		if (i / (n_points + 1) > INT32_MAX - n)
			return false;
		n += i / (uint32_t)(n_points + 1);
		i %= (uint32_t)(n_points + 1);
		if (n < 0x80 || n_points == MAX_CODE_POINTS)
			return false;
		for (size_t k = n_points; k > i; k--)
			points[k] = points[k - 1];
		points[i++] = n;
		n_points++;
	}
	for (size_t k = 0; k < n_points; k++) {
		if (!valid_scalar(points[k]))
			return false;
		put_utf8(out, points[k]);
	}
	return true;
}
