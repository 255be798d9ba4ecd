/* The style and script every SVG flame graph carries inline (no external
 * file, font or network: the picture must open from a mail attachment or a
 * CI artifact), and the label shortening the writer and the script share.
 *
 * The script finds everything it needs in the document: each frame is a
 * <g class="f"> holding a <rect> (its place at full width), a <title>
 * whose first line is the full name, and a <text> label when one fits.
 * It keeps to one closure and to ids under its prefix, so several graphs
 * can sit in one HTML page. */
#include <stdbool.h>
#include <string.h>

#include "flame_svg.h"

const char flame_svg_style[] =
	"text{font:12px ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;"
	"fill:#000;pointer-events:none}\n"
	".hd{font:bold 15px system-ui,-apple-system,'Segoe UI',sans-serif}\n"
	".sm{font:12px system-ui,-apple-system,'Segoe UI',sans-serif;fill:#333}\n"
	".ctl{cursor:pointer;fill:#0645ad;pointer-events:all;text-decoration:underline}\n"
	".f{cursor:pointer}\n"
	".f:not(.k):hover>rect{stroke:#000;stroke-width:1}\n"
	".k>rect{stroke:#0b3d91;stroke-width:1.6}\n"
	".K>rect{stroke:#0b3d91;stroke-width:3}\n"
	".m>rect{fill:#e020d0}\n"
	".a>rect{opacity:.65}\n"
	".h{display:none}\n";

/* Written as: head, the prefix as a JS string literal, tail. */
const char flame_svg_script_head[] =
	"(function () {\n"
	"'use strict';\n"
	"var P = ";

const char flame_svg_script_tail[] =
	";\n"
	"var NS = 'http://www.w3.org/2000/svg', XH = 'http://www.w3.org/1999/xhtml';\n"
	"var svg = document.getElementById(P + 'svg');\n"
	"if (!svg) return;\n"
	"var W = +svg.getAttribute('data-width'), PAD = 10, CW = 7.3, ELL = '\\u2026';\n"
	"var frames = [], zoomed = null;\n"
	"var gs = svg.querySelectorAll('g.f');\n"
	"for (var i = 0; i < gs.length; i++) {\n"
	"  var g = gs[i], r = g.querySelector('rect'), tl = g.querySelector('title');\n"
	"  frames.push({ g: g, r: r, t: g.querySelector('text'),\n"
	"    x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),\n"
	"    name: tl ? tl.textContent.split('\\n')[0] : '', info: tl ? tl.textContent : '' });\n"
	"  g.__f = frames[i];\n"
	"}\n"
	"function chars(s) { return Array.from(s).length; }\n"
	"function first(s) { var a = Array.from(s); return a.length ? a[0] : ''; }\n"
	/* The same candidates, in the same order, as flame_svg_label. */
	"function candidates(s) {\n"
	"  var p = s.indexOf('('), head = p < 0 ? s : s.slice(0, p), args = p < 0 ? '' : s.slice(p);\n"
	"  var m = head.lastIndexOf('.');\n"
	"  if (m <= 0 || m === head.length - 1) return [s];\n"
	"  var meth = head.slice(m + 1), rest = head.slice(0, m), c = rest.lastIndexOf('.');\n"
	"  var cls = rest.slice(c + 1), out = [s], cut = args.length > 2 ? '(' + ELL + ')' : null;\n"
	"  if (c > 0) {\n"
	"    out.push(rest.slice(0, c).split('.').map(first).join('.') + '.' + cls + '.' + meth + args);\n"
	"    out.push(ELL + cls + '.' + meth + args);\n"
	"    if (cut) out.push(ELL + cls + '.' + meth + cut);\n"
	"  } else if (cut) out.push(cls + '.' + meth + cut);\n"
	"  out.push(ELL + meth + args);\n"
	"  if (cut) out.push(ELL + meth + cut);\n"
	"  return out;\n"
	"}\n"
	"function label(s, w) {\n"
	"  var max = Math.floor((w - 6) / CW);\n"
	"  if (max < 3) return '';\n"
	"  var c = candidates(s);\n"
	"  for (var i = 0; i < c.length; i++) if (chars(c[i]) <= max) return c[i];\n"
	"  return '';\n"
	"}\n"
	"function place(f, x, w) {\n"
	"  f.r.setAttribute('x', x.toFixed(2));\n"
	"  f.r.setAttribute('width', w.toFixed(2));\n"
	"  var s = label(f.name, w);\n"
	"  if (!f.t && s) {\n"
	"    f.t = document.createElementNS(NS, 'text');\n"
	"    f.t.setAttribute('y', f.y + 11.5);\n"
	"    f.g.appendChild(f.t);\n"
	"  }\n"
	"  if (f.t) { f.t.setAttribute('x', (x + 3).toFixed(2)); f.t.textContent = s; }\n"
	"}\n"
	"function el(tag, attrs, text) {\n"
	"  var e = document.createElementNS(NS, tag);\n"
	"  for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
	"  if (text) e.textContent = text;\n"
	"  svg.appendChild(e);\n"
	"  return e;\n"
	"}\n"
	"var reset = el('text', { id: P + 'reset', 'class': 'sm ctl h', x: W - PAD - 232, y: 22,\n"
	"  'text-anchor': 'end' }, 'Reset zoom');\n"
	"var found = el('text', { id: P + 'found', 'class': 'sm', x: W - PAD, y: 61,\n"
	"  'text-anchor': 'end' }, '');\n"
	"var details = document.getElementById(P + 'details');\n"
	"var fo = el('foreignObject', { x: W - PAD - 222, y: 6, width: 222, height: 26 });\n"
	"var input = document.createElementNS(XH, 'input');\n"
	"input.setAttribute('id', P + 'search');\n"
	"input.setAttribute('type', 'search');\n"
	"input.setAttribute('placeholder', 'Search frames');\n"
	"input.setAttribute('style', 'width:210px;font:12px system-ui,sans-serif;padding:2px 4px');\n"
	"fo.appendChild(input);\n"
	"var EPS = 0.02, title = document.getElementById(P + 'title'),\n"
	"  summary = document.getElementById(P + 'summary'), cw = W;\n"
	/* Geometry says who is related: a frame below f within f's span is its
	 * descendant; one above that spans f is its ancestor.  Frames keep
	 * their places at the written width; cw is the width drawn now. */
	"function zoom(f) {\n"
	"  var s = (cw - 2 * PAD) / f.w;\n"
	"  frames.forEach(function (o) {\n"
	"    var inside = o.x >= f.x - EPS && o.x + o.w <= f.x + f.w + EPS;\n"
	"    var spans = o.x <= f.x + EPS && o.x + o.w >= f.x + f.w - EPS;\n"
	"    o.g.classList.remove('h', 'a');\n"
	"    if (o.y >= f.y && inside) place(o, PAD + (o.x - f.x) * s, o.w * s);\n"
	"    else if (o.y < f.y && spans) { place(o, PAD, cw - 2 * PAD); o.g.classList.add('a'); }\n"
	"    else o.g.classList.add('h');\n"
	"  });\n"
	"  zoomed = f;\n"
	"  reset.classList.remove('h');\n"
	"}\n"
	"function unzoom() {\n"
	"  var k = (cw - 2 * PAD) / (W - 2 * PAD);\n"
	"  frames.forEach(function (o) {\n"
	"    o.g.classList.remove('h', 'a');\n"
	"    place(o, PAD + (o.x - PAD) * k, o.w * k);\n"
	"  });\n"
	"  zoomed = null;\n"
	"  reset.classList.add('h');\n"
	"}\n"
	/* A line of text cut to px with an ellipsis (all of it in its tooltip). */
	"function fitText(t, px) {\n"
	"  if (!t) return;\n"
	"  if (t.__full === undefined) t.__full = t.textContent;\n"
	"  var a = Array.from(t.__full), n = a.length;\n"
	"  t.textContent = t.__full;\n"
	"  while (n > 1 && t.getComputedTextLength() > px) t.textContent = a.slice(0, --n).join('') + ELL;\n"
	"}\n"
	/* Narrower than written: the whole picture is drawn again to the room
	 * there is (the window, or the page element around it), never wider. */
	"function fit() {\n"
	"  var p = svg.parentNode, room = p && p.clientWidth ? p.clientWidth : window.innerWidth;\n"
	"  cw = Math.max(300, Math.min(W, Math.floor(room)));\n"
	"  var h = svg.getAttribute('height');\n"
	"  svg.setAttribute('width', cw);\n"
	"  svg.setAttribute('viewBox', '0 0 ' + cw + ' ' + h);\n"
	"  reset.setAttribute('x', cw - PAD - 232);\n"
	"  found.setAttribute('x', cw - PAD);\n"
	"  fo.setAttribute('x', cw - PAD - 222);\n"
	"  fitText(title, cw - 2 * PAD - 240);\n"
	"  fitText(summary, cw - 2 * PAD);\n"
	"  if (zoomed) zoom(zoomed); else unzoom();\n"
	"}\n"
	"fit();\n"
	"window.addEventListener('resize', fit);\n"
	"function search(q) {\n"
	"  q = q.toLowerCase();\n"
	"  var spans = [], n = 0;\n"
	"  frames.forEach(function (o) {\n"
	"    var hit = q !== '' && o.name.toLowerCase().indexOf(q) >= 0;\n"
	"    o.g.classList.toggle('m', hit);\n"
	"    if (hit) { n++; spans.push([o.x, o.x + o.w]); }\n"
	"  });\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  var sum = 0, end = -1;\n"
	"  spans.forEach(function (s) {\n"
	"    if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
	"    else if (s[1] > end) { sum += s[1] - end; end = s[1]; }\n"
	"  });\n"
	"  found.textContent = q === '' ? '' : n + ' frame' + (n === 1 ? '' : 's') + ' match, ' +\n"
	"    (100 * sum / (W - 2 * PAD)).toFixed(1) + '% of the total';\n"
	"}\n"
	"svg.addEventListener('click', function (e) {\n"
	"  if (e.target === reset) { unzoom(); return; }\n"
	"  var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"  if (g && g.__f) zoom(g.__f);\n"
	"});\n"
	"svg.addEventListener('mouseover', function (e) {\n"
	"  var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"  if (details && g && g.__f) details.textContent = g.__f.info.split('\\n').join('  \\u00b7  ');\n"
	"});\n"
	"svg.addEventListener('mouseout', function () { if (details) details.textContent = ''; });\n"
	"input.addEventListener('input', function () { search(input.value); });\n"
	"input.addEventListener('keydown', function (e) {\n"
	"  if (e.key === 'Escape') { input.value = ''; search(''); }\n"
	"});\n"
	"})();\n";

size_t flame_svg_chars(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		size_t k = hg_utf8_len(s + i, len - i);
		i += k ? k : 1;
		n++;
	}
	return n;
}

/* One candidate from up to four pieces; kept when it fits. */
static bool try_label(hg_buf *out, long max, const char *a, size_t alen, const char *b,
		      size_t blen, const char *c, size_t clen)
{
	if ((long)(flame_svg_chars(a, alen) + flame_svg_chars(b, blen) +
		   flame_svg_chars(c, clen)) > max)
		return false;
	hg_buf_add(out, a, alen);
	hg_buf_add(out, b, blen);
	hg_buf_add(out, c, clen);
	return true;
}

/* "com.foo.Bar" -> "c.f.Bar": each segment before the last by its first
 * character (a whole UTF-8 sequence, or one invalid byte). */
static void abbreviate(hg_buf *out, const char *s, size_t len)
{
	bool start = true;
	for (size_t i = 0; i < len;) {
		size_t k = hg_utf8_len(s + i, len - i);
		k = k ? k : 1;
		if (s[i] == '.') {
			hg_buf_putc(out, '.');
			start = true;
		} else if (start) {
			hg_buf_add(out, s + i, k);
			start = false;
		}
		i += k;
	}
}

static size_t last_dot(const char *s, size_t len)
{
	while (len > 0)
		if (s[--len] == '.')
			return len;
	return (size_t)-1;
}

void flame_svg_label(hg_buf *out, const char *s, size_t len, long max)
{
	static const char ell[] = "\xe2\x80\xa6", cut[] = "(\xe2\x80\xa6)";
	if (max < 3)
		return;
	if ((long)flame_svg_chars(s, len) <= max) {
		hg_buf_add(out, s, len);
		return;
	}
	const char *paren = memchr(s, '(', len);
	size_t head = paren ? (size_t)(paren - s) : len, nargs = len - head;
	size_t m = last_dot(s, head);
	if (m == (size_t)-1 || m == 0 || m == head - 1)
		return;
	size_t c = last_dot(s, m);
	const char *meth = s + m + 1, *args = s + head;
	size_t nmeth = len - m - 1; /* the method and its arguments */
	const char *cls = c == (size_t)-1 ? s : s + c + 1;
	size_t ncls = len - (size_t)(cls - s); /* class, method, arguments */
	size_t cls_head = (size_t)(args - cls);   /* class and method only */
	bool has_cut = nargs > 2;
	if (c != (size_t)-1 && c > 0) {
		hg_buf pk;
		hg_buf_init(&pk);
		abbreviate(&pk, s, c);
		bool ok = !pk.failed && try_label(out, max, pk.data ? pk.data : "", pk.len, ".", 1,
						  cls, ncls);
		hg_buf_release(&pk);
		if (ok || try_label(out, max, ell, 3, cls, ncls, "", 0) ||
		    (has_cut && try_label(out, max, ell, 3, cls, cls_head, cut, 5)))
			return;
	} else if (has_cut && try_label(out, max, cls, cls_head, cut, 5, "", 0)) {
		return;
	}
	if (try_label(out, max, ell, 3, meth, nmeth, "", 0))
		return;
	if (has_cut)
		try_label(out, max, ell, 3, meth, (size_t)(args - meth), cut, 5);
}
