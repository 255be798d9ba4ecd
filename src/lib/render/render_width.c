/* Fitting text to a width: columns of UTF-8 text,
 * names shortened by their packages (never the class or the method), and
 * words wrapped under a hanging indent. */
#include <stdlib.h>
#include <string.h>

#include "hangar/beat.h"
#include "render_internal.h"

size_t render_cols(const char *s, size_t len)
{
	return hg_visible_cols(s, len); /* control bytes count as the escapes shown */
}

/* lead + cls (its first `abbrev` package segments cut to their initial;
 * with `drop`, its whole package as "…") + tail. */
static void build_name(hg_buf *b, const char *lead, const char *cls, size_t cls_len,
		       const char *tail, size_t abbrev, bool drop, const char *ellipsis)
{
	hg_buf_reset(b);
	hg_buf_puts(b, lead);
	const char *simple = cls;
	for (size_t i = 0; i < cls_len; i++)
		if (cls[i] == '.')
			simple = cls + i + 1;
	if (drop && simple > cls) {
		hg_buf_puts(b, ellipsis);
	} else {
		size_t seg = 0;
		for (const char *p = cls; p < simple;) {
			const char *dot = memchr(p, '.', (size_t)(simple - p));
			if (!dot)
				break;
			hg_buf_add(b, p, seg < abbrev ? 1 : (size_t)(dot - p));
			hg_buf_putc(b, '.');
			p = dot + 1;
			seg++;
		}
	}
	hg_buf_add(b, simple, (size_t)(cls + cls_len - simple));
	hg_buf_puts(b, tail);
}

void render_fit_name(hg_buf *out, const char *lead, const char *cls, size_t cls_len,
		     const char *tail, int avail, const char *ellipsis)
{
	size_t full = render_cols(lead, strlen(lead)) + render_cols(cls, cls_len) +
		      render_cols(tail, strlen(tail));
	if (avail <= 0 || full <= (size_t)avail) {
		hg_buf_puts(out, lead);
		hg_buf_visible(out, cls, cls_len);
		hg_buf_visible(out, tail, strlen(tail));
		return;
	}
	size_t segs = 0;
	for (size_t i = 0; i < cls_len; i++)
		segs += cls[i] == '.';
	hg_buf b;
	hg_buf_init(&b);
	/* Packages first, one segment at a time from the outermost; then the
	 * package as "…"; then the lead ("at "): what is left is the name. */
	bool fits = false;
	for (size_t k = 1; k <= segs + 2 && !fits; k++) {
		bool drop = k > segs;
		build_name(&b, k == segs + 2 ? "" : lead, cls, cls_len, tail, k, drop, ellipsis);
		fits = !b.failed && render_cols(b.data, b.len) <= (size_t)avail;
	}
	hg_buf_visible(out, b.data, b.len); /* (the lead and ellipsis are visible) */
	out->failed |= b.failed;
	hg_buf_release(&b);
}

void hg_render_fit_symbol(hg_buf *out, const char *lead, const char *sym, int avail,
			  const char *ellipsis)
{
	/* "a.b.C.m(args)": the class ends at the last dot before the
	 * arguments; a symbol with no dot there is shown whole. */
	size_t open = strcspn(sym, "(");
	size_t dot = open;
	while (dot > 0 && sym[dot - 1] != '.')
		dot--;
	if (dot == 0) {
		hg_buf_puts(out, lead);
		hg_buf_visible(out, sym, strlen(sym));
		return;
	}
	render_fit_name(out, lead, sym, dot - 1, sym + dot - 1, avail, ellipsis);
}

/* name with what its outermost open..close groups hold (when they hold
 * anything) replaced by the ellipsis: "f(int, char*)" -> "f(…)",
 * "operator()(int)" -> "operator()(…)". */
static void elide_groups(hg_buf *out, const char *name, char open, char close,
			 const char *ellipsis)
{
	size_t depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == open) {
			if (depth++ == 0) {
				hg_buf_putc(out, open);
				if (p[1] != close)
					hg_buf_puts(out, ellipsis);
			}
		} else if (*p == close && depth > 0) {
			if (--depth == 0)
				hg_buf_putc(out, close);
		} else if (depth == 0) {
			hg_buf_putc(out, *p);
		}
	}
}

void hg_render_native_name(hg_buf *out, const char *name, int level, const char *ellipsis)
{
	if (level <= 0) {
		hg_buf_visible(out, name, strlen(name));
		return;
	}
	hg_buf args, templates;
	hg_buf_init(&args);
	hg_buf_init(&templates);
	elide_groups(&args, name, '(', ')', ellipsis);
	const char *s = args.data ? args.data : "";
	if (level >= 2) {
		elide_groups(&templates, s, '<', '>', ellipsis);
		s = templates.data ? templates.data : "";
	}
	if (level >= 3) {
		/* the qualifiers before the function's own name go */
		size_t open = strcspn(s, "(");
		const char *own = NULL;
		for (size_t i = 0; i + 1 < open; i++)
			if (s[i] == ':' && s[i + 1] == ':')
				own = s + i + 2;
		if (own) {
			hg_buf_puts(out, ellipsis);
			s = own;
		}
	}
	hg_buf_visible(out, s, strlen(s));
	out->failed |= args.failed | templates.failed;
	hg_buf_release(&args);
	hg_buf_release(&templates);
}

/* The length of the longest start of s[0..len) that fits in cols columns,
 * ending at a blank when one is there (*blank set). */
static size_t break_at(const char *s, size_t len, size_t cols, bool *blank)
{
	*blank = false;
	size_t fit = hg_visible_prefix(s, len, cols, NULL);
	if (fit == len)
		return len;
	for (size_t i = fit; i-- > 1;) {
		if (s[i] == ' ') {
			*blank = true;
			return i;
		}
	}
	size_t first = hg_utf8_len(s, len); /* nothing fits: one character all the same */
	return fit ? fit : first ? first : 1;
}

void hg_render_wrap(hg_buf *out, const char *first, const char *cont, const char *s, size_t len,
		    int width)
{
	hg_buf_puts(out, first);
	size_t indent = render_cols(cont, strlen(cont));
	if (width <= 0) {
		hg_buf_visible(out, s, len);
		hg_buf_putc(out, '\n');
		return;
	}
	/* Too narrow for the indent: lines of at least a few characters. */
	size_t room = (size_t)width > indent + HG_RENDER_MIN_ROOM ? (size_t)width - indent
							       : HG_RENDER_MIN_ROOM;
	size_t room1 = render_cols(first, strlen(first));
	room1 = (size_t)width > room1 + HG_RENDER_MIN_ROOM ? (size_t)width - room1 : HG_RENDER_MIN_ROOM;
	bool line1 = true;
	while (len > 0) {
		bool blank;
		size_t n = break_at(s, len, line1 ? room1 : room, &blank);
		if (!line1)
			hg_buf_puts(out, cont);
		size_t shown = n;
		while (shown > 0 && s[shown - 1] == ' ')
			shown--; /* no blanks at a line's end */
		hg_buf_visible(out, s, shown);
		hg_buf_putc(out, '\n');
		s += n + blank;
		len -= n + blank;
		while (len > 0 && *s == ' ')
			s++, len--;
		line1 = false;
	}
	if (line1)
		hg_buf_putc(out, '\n');
}
