/* The SVG flame graph, drawn as an icicle (root on top, as hangar's tree
 * reads).  Everything the picture shows is in the document as written:
 * every frame a <g class="f"> with a <title> (full name, where it is:
 * source file:line and image, the symbol as written when the name reads
 * otherwise, cost, share, calls; before and after for a diff), a <rect>
 * and a label when one fits, so it reads with scripts off; the inline
 * script only adds zoom, search and the details line.
 *
 * Widths are by total weight.  A frame narrower than MIN_WIDTH px at full
 * width is not drawn, nor anything below it; its weight stays in its
 * caller's width (the gap under the caller), and the header says how many
 * were left out.  Past MAX_FRAMES drawn frames the threshold doubles until
 * the picture fits, so a million-node tree still makes a bounded SVG. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "hangar/flame.h"
#include "flame_svg.h"

#define MIN_WIDTH 0.1
#define MAX_FRAMES 40000
#define MAX_DEPTH 1000      /* rows drawn; deeper frames are left out */
#define DEFAULT_WIDTH 1200
#define MIN_SVG_WIDTH 300
#define MAX_SVG_WIDTH 100000
#define MAX_PREFIX 64

/* Where each node goes at full width. */
struct layout {
	double *x, *w;       /* left edge and width, px */
	double *next;        /* where the node's next child starts */
	uint32_t *depth;
	unsigned char *drawn;
	size_t n_drawn, omitted;
	uint32_t rows;       /* depth of the deepest drawn frame + 1 */
	int64_t total;       /* the roots' totals: the full width */
	double min_width;
};

static int layout_init(struct layout *l, size_t n)
{
	memset(l, 0, sizeof *l);
	size_t k = n ? n : 1;
	/* A whole-stack graph has hundreds of thousands of frames: megabytes a
	 * column, on huge pages (hg_big_alloc). */
	l->x = hg_big_alloc(k * sizeof *l->x);
	l->w = hg_big_alloc(k * sizeof *l->w);
	l->next = hg_big_alloc(k * sizeof *l->next);
	l->depth = hg_big_alloc(k * sizeof *l->depth);
	l->drawn = hg_big_alloc(k);
	return l->x && l->w && l->next && l->depth && l->drawn ? 0 : HG_ENOMEM;
}

static void layout_release(struct layout *l)
{
	free(l->x);
	free(l->w);
	free(l->next);
	free(l->depth);
	free(l->drawn);
}

static int64_t weight(const hg_flame_node *n)
{
	return n->total > 0 ? n->total : 0;
}

/* One pass at threshold min_width.  A node whose parent is not earlier in
 * the array (a malformed flame) is left out, and a child wider than what
 * is left of its parent is cut to fit, so the picture stays nested. */
static void layout_pass(struct layout *l, const hg_flame *f, double usable, double min_width)
{
	double scale = l->total > 0 ? usable / (double)l->total : 0, root_x = SVG_PAD;
	l->n_drawn = l->omitted = 0;
	l->rows = 0;
	l->min_width = min_width;
	for (size_t i = 0; i < f->n; i++) {
		const hg_flame_node *nd = &f->nodes[i];
		size_t p = nd->parent;
		double x0, end;
		uint32_t depth;
		if (p == HG_FLAME_NO_PARENT) {
			x0 = root_x, end = SVG_PAD + usable, depth = 0;
		} else if (p >= i || !l->drawn[p]) {
			l->drawn[i] = 0;
			l->omitted++;
			continue;
		} else {
			x0 = l->next[p], end = l->x[p] + l->w[p], depth = l->depth[p] + 1;
		}
		double w = (double)weight(nd) * scale;
		if (x0 + w > end)
			w = end > x0 ? end - x0 : 0;
		if (p == HG_FLAME_NO_PARENT)
			root_x = x0 + w;
		else
			l->next[p] = x0 + w;
		l->x[i] = x0, l->w[i] = w, l->next[i] = x0, l->depth[i] = depth;
		bool show = (w >= min_width || (nd->key && w > 0)) && depth < MAX_DEPTH;
		l->drawn[i] = show;
		if (!show) {
			l->omitted++;
			continue;
		}
		l->n_drawn++;
		if (depth + 1 > l->rows)
			l->rows = depth + 1;
	}
}

static void layout_run(struct layout *l, const hg_flame *f, double usable)
{
	l->total = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].parent == HG_FLAME_NO_PARENT && l->total <= INT64_MAX - weight(&f->nodes[i]))
			l->total += weight(&f->nodes[i]);
	double min_width = MIN_WIDTH;
	layout_pass(l, f, usable, min_width);
	while (l->n_drawn > MAX_FRAMES && min_width < usable) {
		min_width *= 2;
		layout_pass(l, f, usable, min_width);
	}
}

/* ---- text ---- */

/* s[0..len) as XML character data or attribute text: markup characters as
 * entities, control bytes (which XML 1.0 cannot carry), U+FFFE/U+FFFF and
 * invalid UTF-8 as U+FFFD, so the document always parses. */
static void xml_text(hg_buf *out, const char *s, size_t len)
{
	size_t run = 0; /* bytes from s + i - run that need no escape */
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		size_t k = 1;
		if (c == '<')
			rep = "&lt;";
		else if (c == '>')
			rep = "&gt;";
		else if (c == '&')
			rep = "&amp;";
		else if (c == '"')
			rep = "&quot;";
		else if (c == '\'')
			rep = "&#39;";
		else if (c < 0x20 || c == 0x7f)
			rep = "\xef\xbf\xbd";
		else if (c >= 0x80) {
			k = hg_utf8_len(s + i, len - i);
			if (k == 0 || (k == 3 && c == 0xef && (unsigned char)s[i + 1] == 0xbf &&
				       (unsigned char)s[i + 2] >= 0xbe))
				rep = "\xef\xbf\xbd", k = k ? k : 1;
		}
		if (rep) {
			hg_buf_add(out, s + i - run, run);
			hg_buf_puts(out, rep);
			run = 0;
		} else {
			run += k;
		}
		i += k;
	}
	hg_buf_add(out, s + len - run, run);
}

static void xml_str(hg_buf *out, const char *s)
{
	xml_text(out, s, strlen(s));
}

/* v >= 0 with at most `decimals` (1 or 2) decimals, trailing zeros dropped. */
static void put_num(hg_buf *out, double v, int decimals)
{
	if (!(v > 0))
		v = 0;
	if (v > 1e15)
		v = 1e15;
	int64_t scale = decimals == 1 ? 10 : 100;
	int64_t c = (int64_t)(v * (double)scale + 0.5);
	hg_buf_int(out, c / scale);
	int64_t frac = c % scale;
	if (!frac)
		return;
	hg_buf_putc(out, '.');
	if (decimals == 2) {
		hg_buf_putc(out, (char)('0' + frac / 10));
		if (frac % 10)
			hg_buf_putc(out, (char)('0' + frac % 10));
	} else {
		hg_buf_putc(out, (char)('0' + frac));
	}
}

static const char *unit_word(enum hg_flame_unit u, int64_t v)
{
	switch (u) {
	case HG_FLAME_SAMPLES: return v == 1 ? "sample" : "samples";
	case HG_FLAME_THREADS: return v == 1 ? "thread" : "threads";
	case HG_FLAME_MS: break;
	}
	return "ms";
}

static void put_amount(hg_buf *out, enum hg_flame_unit u, double v, int decimals)
{
	put_num(out, v, decimals);
	hg_buf_putc(out, ' ');
	hg_buf_puts(out, unit_word(u, (int64_t)v));
}

/* ---- colours ---- */

static void put_rgb(hg_buf *out, int r, int g, int b)
{
	static const char hex[] = "0123456789abcdef";
	char s[7];
	int v[3] = {r, g, b};
	for (int i = 0; i < 3; i++) {
		int c = v[i] < 0 ? 0 : v[i] > 255 ? 255 : v[i];
		s[2 * i] = hex[c >> 4];
		s[2 * i + 1] = hex[c & 15];
	}
	hg_buf_putc(out, '#');
	hg_buf_add(out, s, 6);
}

/* FlameGraph's "hot" palette, picked by a hash of the name (FNV-1a), so a
 * frame keeps its colour from one picture to the next. */
static void warm(hg_buf *out, const char *name)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 16777619u;
	h ^= h >> 15;
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;
	put_rgb(out, 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
}

/* The change of a diff node's cost per report, relative to the base. */
static double diff_change(const hg_flame *f, const hg_flame_node *n)
{
	double after = (double)weight(n) / (double)(f->reports > 0 ? f->reports : 1);
	double base = n->base_per_report;
	if (base > 0)
		return (after - base) / base;
	return after > 0 ? 1 : 0;
}

/* Red where the cost per report grew, blue where it shrank, by how much
 * (100% and more: the full colour); grey within 1%; new paths hatched. */
static void diff_colour(hg_buf *out, const hg_flame *f, const hg_flame_node *n, const char *pfx)
{
	if (!n->in_base) {
		hg_buf_puts(out, "url(#");
		hg_buf_puts(out, pfx);
		hg_buf_puts(out, "new)");
		return;
	}
	double rel = diff_change(f, n), a = rel < 0 ? -rel : rel;
	if (a < 0.01) {
		put_rgb(out, 221, 221, 221);
		return;
	}
	int v = (int)(220 * (1 - (0.2 + 0.8 * (a > 1 ? 1 : a))));
	if (rel > 0)
		put_rgb(out, 255, v, v);
	else
		put_rgb(out, v, v, 255);
}

/* ---- the document ---- */

struct svg {
	const hg_flame *f;
	const struct layout *l;
	hg_buf *out;
	hg_buf label;       /* scratch */
	char pfx[MAX_PREFIX + 1];
	int width;
	int height;
};

static void per_report_line(struct svg *s, const hg_flame_node *n)
{
	hg_buf *o = s->out;
	const hg_flame *f = s->f;
	double after = (double)weight(n) / (double)(f->reports > 0 ? f->reports : 1);
	if (!n->in_base) {
		hg_buf_puts(o, "\nnew: not in the base; after ");
		put_amount(o, f->unit, after, 1);
		hg_buf_puts(o, " per report");
		return;
	}
	double rel = diff_change(f, n) * 100;
	hg_buf_puts(o, "\nper report: before ");
	put_amount(o, f->unit, n->base_per_report, 1);
	hg_buf_puts(o, ", after ");
	put_amount(o, f->unit, after, 1);
	hg_buf_puts(o, rel >= 0 ? " (+" : " (-");
	put_num(o, rel < 0 ? -rel : rel, 1);
	hg_buf_puts(o, "%)");
}

/* "at File.kt:12 in libfoo.so\n" (what of it is known), then "symbol
 * $s6Reader...\n" when the frame's symbol as written is not its name (a
 * mangled one): the lines between a frame's name and its weight. */
static void where_lines(hg_buf *o, const hg_flame_node *n)
{
	if (n->file || n->line >= 0) {
		hg_buf_puts(o, "at ");
		xml_str(o, n->file ? n->file : "?");
		if (n->line >= 0) {
			hg_buf_putc(o, ':');
			hg_buf_int(o, n->line);
		}
	}
	if (n->image) {
		hg_buf_puts(o, n->file || n->line >= 0 ? " in " : "in ");
		xml_str(o, n->image);
	}
	if (n->file || n->line >= 0 || n->image)
		hg_buf_putc(o, '\n');
	if (n->symbol) {
		hg_buf_puts(o, "symbol ");
		xml_str(o, n->symbol);
		hg_buf_putc(o, '\n');
	}
}

static void frame_title(struct svg *s, size_t i)
{
	const hg_flame *f = s->f;
	const hg_flame_node *n = &f->nodes[i];
	hg_buf *o = s->out;
	int64_t t = weight(n);
	hg_buf_puts(o, "<title>");
	xml_str(o, n->name ? n->name : "");
	hg_buf_putc(o, '\n');
	where_lines(o, n);
	put_amount(o, f->unit, (double)t, 0);
	hg_buf_puts(o, ", ");
	put_num(o, s->l->total > 0 ? 100.0 * (double)t / (double)s->l->total : 0, 1);
	hg_buf_puts(o, "% of ");
	put_amount(o, f->unit, (double)s->l->total, 0);
	hg_buf_puts(o, "\nself ");
	put_amount(o, f->unit, (double)(n->self > 0 ? n->self : 0), 0);
	if (n->calls > 0) {
		hg_buf_puts(o, ", ");
		hg_buf_int(o, n->calls);
		hg_buf_puts(o, n->calls == 1 ? " call" : " calls");
	}
	if (f->reports > 1 && n->reports > 0) {
		hg_buf_puts(o, ", in ");
		hg_buf_int(o, n->reports);
		hg_buf_puts(o, " of ");
		hg_buf_int(o, f->reports);
		hg_buf_puts(o, " reports");
	}
	if (f->diff)
		per_report_line(s, n);
	if ((long)i == f->key)
		hg_buf_puts(o, "\nthe StackKey");
	else if (n->key)
		hg_buf_puts(o, "\non the StackKey path");
	hg_buf_puts(o, "</title>");
}

static void write_frame(struct svg *s, size_t i)
{
	const hg_flame_node *n = &s->f->nodes[i];
	const struct layout *l = s->l;
	hg_buf *o = s->out;
	bool is_key = (long)i == s->f->key;
	hg_buf_puts(o, is_key ? "<g class=\"f k K\" id=\"" : n->key ? "<g class=\"f k\"" : "<g class=\"f\"");
	if (is_key) {
		hg_buf_puts(o, s->pfx);
		hg_buf_puts(o, "key\"");
	}
	hg_buf_putc(o, '>');
	frame_title(s, i);
	int y = SVG_TOP + (int)l->depth[i] * SVG_ROW;
	/* Both edges rounded, the width their difference: siblings' widths
	 * then add up to their caller's, however many there are. */
	int64_t x0 = (int64_t)(l->x[i] * 100 + 0.5), x1 = (int64_t)((l->x[i] + l->w[i]) * 100 + 0.5);
	hg_buf_puts(o, "<rect x=\"");
	put_num(o, (double)x0 / 100, 2);
	hg_buf_puts(o, "\" y=\"");
	hg_buf_int(o, y);
	hg_buf_puts(o, "\" width=\"");
	put_num(o, (double)(x1 - x0) / 100, 2);
	hg_buf_puts(o, "\" height=\"15\" fill=\"");
	if (s->f->diff)
		diff_colour(o, s->f, n, s->pfx);
	else
		warm(o, n->name ? n->name : "");
	hg_buf_puts(o, "\"/>");
	const char *name = n->name ? n->name : "";
	hg_buf_reset(&s->label);
	flame_svg_label(&s->label, name, strlen(name), l->w[i] > 6 ? (long)((l->w[i] - 6) / SVG_CHAR_W) : 0);
	if (s->label.len) {
		hg_buf_puts(o, "<text x=\"");
		put_num(o, l->x[i] + 3, 2);
		hg_buf_puts(o, "\" y=\"");
		hg_buf_int(o, y + 11);
		hg_buf_puts(o, ".5\">");
		xml_text(o, s->label.data, s->label.len);
		hg_buf_puts(o, "</text>");
	}
	hg_buf_puts(o, "</g>\n");
}

/* At most max characters of s, cut with an ellipsis. */
static void put_cut(hg_buf *out, const char *s, size_t max)
{
	size_t len = strlen(s);
	if (flame_svg_chars(s, len) <= max) {
		xml_text(out, s, len);
		return;
	}
	size_t i = 0, chars = 0;
	while (i < len && chars + 1 < max) {
		size_t k = hg_utf8_len(s + i, len - i);
		i += k ? k : 1;
		chars++;
	}
	xml_text(out, s, i);
	hg_buf_puts(out, "\xe2\x80\xa6");
}

static void write_summary(struct svg *s)
{
	const hg_flame *f = s->f;
	const struct layout *l = s->l;
	hg_buf *o = s->out;
	hg_buf_printf(o, "<text class=\"sm\" id=\"%ssummary\" x=\"10\" y=\"40\">", s->pfx);
	put_amount(o, f->unit, (double)l->total, 0);
	hg_buf_puts(o, " in total");
	if (f->reports > 0) {
		hg_buf_puts(o, " \xc2\xb7 ");
		hg_buf_int(o, f->reports);
		hg_buf_puts(o, f->reports == 1 ? " report" : " reports");
	}
	hg_buf_puts(o, " \xc2\xb7 ");
	hg_buf_int(o, (int64_t)l->n_drawn);
	hg_buf_puts(o, l->n_drawn == 1 ? " frame" : " frames");
	if (l->omitted) {
		hg_buf_puts(o, ", ");
		hg_buf_int(o, (int64_t)l->omitted);
		hg_buf_puts(o, " not drawn (under ");
		put_num(o, l->min_width, 2);
		hg_buf_puts(o, " px wide, or too deep; their cost is in their callers)");
	}
	if (f->diff) {
		hg_buf_puts(o, " \xc2\xb7 widths: this tree; colours: cost per report against the base (");
		hg_buf_int(o, f->base_reports);
		hg_buf_puts(o, f->base_reports == 1 ? " report)" : " reports)");
	}
	hg_buf_puts(o, "</text>\n");
}

static void swatch(hg_buf *o, int *x, const char *fill, const char *cls, const char *what)
{
	hg_buf_printf(o, "<g class=\"%s\"><rect x=\"%d\" y=\"50\" width=\"22\" height=\"13\" fill=\"",
		      cls, *x);
	hg_buf_puts(o, fill);
	hg_buf_printf(o, "\"/></g><text class=\"sm\" x=\"%d\" y=\"61\">", *x + 27);
	hg_buf_puts(o, what);
	hg_buf_puts(o, "</text>\n");
	*x += 27 + 8 * (int)strlen(what) + 14;
}

static void write_legend(struct svg *s)
{
	const hg_flame *f = s->f;
	hg_buf *o = s->out;
	int x = SVG_PAD;
	if (f->diff) {
		char url[MAX_PREFIX + 16];
		snprintf(url, sizeof url, "url(#%snew)", s->pfx);
		swatch(o, &x, "#ff4c4c", "", "grew");
		swatch(o, &x, "#4c4cff", "", "shrank");
		swatch(o, &x, "#dddddd", "", "unchanged");
		swatch(o, &x, url, "", "new");
	}
	if (f->key < 0 || (size_t)f->key >= f->n)
		return;
	swatch(o, &x, "#f5f5f5", "K", "StackKey:");
	hg_buf_printf(o, "<text class=\"sm\" x=\"%d\" y=\"61\">", x - 10);
	const char *name = f->nodes[f->key].name ? f->nodes[f->key].name : "";
	hg_buf_reset(&s->label);
	flame_svg_label(&s->label, name, strlen(name), 70);
	xml_text(o, s->label.data ? s->label.data : "", s->label.len);
	hg_buf_puts(o, "</text>\n");
}

/* The style, each rule scoped to this picture's root, so that another
 * picture or the page around it keeps its own. */
static void write_style(struct svg *s)
{
	hg_buf *o = s->out;
	hg_buf_puts(o, "<style><![CDATA[\n");
	for (const char *p = flame_svg_style; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		hg_buf_printf(o, "#%ssvg ", s->pfx);
		hg_buf_add(o, p, len);
		p += len;
	}
	hg_buf_puts(o, "]]></style>\n");
}

static void write_head(struct svg *s, bool embedded)
{
	hg_buf *o = s->out;
	const char *title = s->f->title && *s->f->title ? s->f->title : "Flame graph";
	if (!embedded)
		hg_buf_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	hg_buf_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"%ssvg\" "
		      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" data-width=\"%d\" "
		      "aria-label=\"", s->pfx, s->width, s->height, s->width, s->height, s->width);
	xml_str(o, title);
	hg_buf_puts(o, "\">\n");
	write_style(s);
	if (s->f->diff)
		hg_buf_printf(o, "<defs><pattern id=\"%snew\" width=\"6\" height=\"6\" "
			      "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
			      "<rect width=\"6\" height=\"6\" fill=\"#e3c8f0\"/><rect width=\"2\" "
			      "height=\"6\" fill=\"#9a5cc0\"/></pattern></defs>\n", s->pfx);
	hg_buf_puts(o, "<rect width=\"100%\" height=\"100%\" fill=\"#fcfcfa\"/>\n");
	hg_buf_printf(o, "<text class=\"hd\" id=\"%stitle\" x=\"10\" y=\"22\">", s->pfx);
	put_cut(o, title, (size_t)((s->width - 250) / 9 > 10 ? (s->width - 250) / 9 : 10));
	hg_buf_puts(o, "</text>\n");
	write_summary(s);
	write_legend(s);
}

/* Letters, digits, '-' and '_' only: the prefix goes into ids, CSS
 * selectors and a JS string. */
static void copy_prefix(char *dst, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i < MAX_PREFIX; i++) {
		char c = src[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_';
		dst[i] = ok ? c : '_';
	}
	dst[i] = 0;
}

void hg_flame_write_svg(const hg_flame *f, const hg_flame_svg_opts *opts, hg_buf *out)
{
	struct svg s = {.f = f, .out = out};
	int width = opts && opts->width > 0 ? opts->width : DEFAULT_WIDTH;
	s.width = width < MIN_SVG_WIDTH ? MIN_SVG_WIDTH : width > MAX_SVG_WIDTH ? MAX_SVG_WIDTH : width;
	copy_prefix(s.pfx, opts ? opts->id_prefix : NULL);
	struct layout l;
	if (layout_init(&l, f->n) != 0) {
		layout_release(&l);
		out->failed = 1;
		return;
	}
	layout_run(&l, f, s.width - 2.0 * SVG_PAD);
	s.l = &l;
	s.height = SVG_TOP + (int)l.rows * SVG_ROW + 28;
	hg_buf_init(&s.label);
	write_head(&s, opts && opts->embedded);
	hg_buf_printf(out, "<g id=\"%sframes\">\n", s.pfx);
	for (size_t i = 0; i < f->n && !out->failed; i++)
		if (l.drawn[i])
			write_frame(&s, i);
	hg_buf_puts(out, "</g>\n");
	hg_buf_printf(out, "<text id=\"%sdetails\" class=\"sm\" x=\"10\" y=\"%d\"> </text>\n",
		      s.pfx, s.height - 9);
	hg_buf_puts(out, "<script><![CDATA[\n");
	hg_buf_puts(out, flame_svg_script_head);
	hg_buf_printf(out, "'%s'", s.pfx);
	hg_buf_puts(out, flame_svg_script_tail);
	hg_buf_puts(out, "]]></script>\n</svg>\n");
	if (s.label.failed)
		out->failed = 1;
	hg_buf_release(&s.label);
	layout_release(&l);
}
