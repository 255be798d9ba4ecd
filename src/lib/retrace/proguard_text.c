/* Text retrace (hg_proguard_stream, hg_proguard_retrace_text; the forms
 * read are in proguard.h): frames, exception lines and lock lines found in
 * a line and rewritten, every other byte kept.  The stream keeps what
 * spans lines: an outline frame's line, waiting for its caller, and the
 * type an exception line names, for the rewriteFrame rules of the frame
 * that follows. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proguard_retrace.h"

struct hg_proguard_stream {
	const hg_proguard *const *maps;
	size_t n_maps;
	struct rt_state st;
	struct rt_out o, o2;
	hg_buf held;            /* an outline frame's line, waiting for its caller */
	bool holding;
	char throws[512];       /* descriptor named by the last exception line */
	size_t throws_len;
	bool armed;             /* ... for the line that follows it */
};

/* A frame found in a line: [at, name) is "at " (empty without it), then
 * name.method(file:line) up to close. */
struct found {
	size_t at, name, dot, open, close;
	const char *file;
	size_t file_len;
	long line;
	bool native;
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.' || c == '<' || c == '>' || c == '-' ||
	       (unsigned char)c >= 0x80;
}

/* name(...) at s[i..e): a dotted name, then "(" file[:line] ")". */
static bool frame_at(const char *s, size_t i, size_t e, struct found *f)
{
	size_t p = i, dot = 0;
	for (; p < e && name_char(s[p]); p++)
		if (s[p] == '.')
			dot = p;
	if (p >= e || s[p] != '(' || dot <= i || dot + 1 == p)
		return false;
	size_t q = p + 1;
	while (q < e && s[q] != ')' && s[q] != '(' && s[q] != '"' && s[q] != '\\')
		q++;
	if (q >= e || s[q] != ')')
		return false;
	f->name = i;
	f->dot = dot;
	f->open = p;
	f->close = q;
	f->file = s + p + 1;
	f->file_len = q - p - 1;
	f->line = PG_NONE;
	size_t colon = 0;
	for (size_t k = p + 1; k < q; k++)
		if (s[k] == ':')
			colon = k;
	if (colon && colon + 1 < q) {
		size_t k = colon + 1;
		bool neg = s[k] == '-';
		long v = 0;
		for (k += neg; k < q && s[k] >= '0' && s[k] <= '9' && v < 100000000; k++)
			v = v * 10 + (s[k] - '0');
		if (k == q && s[q - 1] != '-') {
			f->line = neg ? PG_NONE : v;
			f->file_len = colon - p - 1;
		}
	}
	/* "Native Method" (Java), "Native method" (ART): kept as written. */
	f->native = f->file_len == 13 && strncasecmp(f->file, "Native Method", 13) == 0;
	return true;
}

/* Whether s[i] may start a frame: after the context's start, a blank, a
 * quote or a \t / \n escape. */
static bool boundary(const char *s, size_t i, size_t start)
{
	return i == start || pg_blank(s[i - 1]) || s[i - 1] == '"' ||
	       (i >= start + 2 && s[i - 2] == '\\' && (s[i - 1] == 't' || s[i - 1] == 'n'));
}

/* The first frame of s[a..b): "at name(...)" anywhere, or a bare
 * name(...) alone (in JSON: right after the segment start or a quote, and
 * up to its end or a quote). */
static bool find_frame(const char *s, size_t a, size_t b, bool json, struct found *f)
{
	for (size_t i = a; i + 3 < b; i++)
		if (s[i] == 'a' && s[i + 1] == 't' && s[i + 2] == ' ' && boundary(s, i, a)) {
			size_t j = i + 3;
			while (j < b && s[j] == ' ')
				j++;
			if (frame_at(s, j, b, f)) {
				f->at = i;
				return true;
			}
		}
	for (size_t i = a; i < b; i++) {
		if (json ? i != a && s[i - 1] != '"' : i != a)
			continue;
		size_t j = i;
		if (!json)
			while (j < b && pg_blank(s[j]))
				j++;
		if (!frame_at(s, j, b, f))
			continue;
		size_t k = f->close + 1;
		if (!json)
			while (k < b && (pg_blank(s[k]) || s[k] == '\r'))
				k++;
		if (k == b || (json && s[k] == '"')) {
			f->at = j;
			return true;
		}
	}
	return false;
}

static void found_in(const char *s, const struct found *f, struct rt_in *in)
{
	in->cls = s + f->name;
	in->cls_len = f->dot - f->name;
	in->method = s + f->dot + 1;
	in->method_len = f->open - f->dot - 1;
	in->file = f->file;
	in->file_len = f->file_len;
	in->line = f->line;
}

/* Writes the frames of o in place of the frame f of line s, whose context
 * (what each written line repeats) is [cs, ce); frames are separated by
 * sep.  The first line of every candidate after the first gets "<OR> ". */
static void write_frames(hg_buf *out, const char *s, size_t cs, size_t ce, const struct found *f,
			 const struct rt_out *o, const char *sep, size_t sep_len)
{
	size_t c = 0;
	for (size_t i = 0; i < o->n; i++) {
		const struct rt_frame *r = &o->f[i];
		if (i > 0)
			hg_buf_add(out, sep, sep_len);
		hg_buf_add(out, s + cs, f->at - cs);
		if (c < o->n_cand && o->cand[c] == i) {
			if (c > 0)
				hg_buf_puts(out, "<OR> ");
			c++;
		}
		hg_buf_add(out, s + f->at, f->name - f->at);
		hg_buf_add(out, r->cls, r->cls_len);
		hg_buf_putc(out, '.');
		hg_buf_add(out, r->method, r->method_len);
		hg_buf_putc(out, '(');
		if (f->native) {
			hg_buf_add(out, f->file, f->file_len);
		} else {
			if (r->file)
				hg_buf_puts(out, r->file);
			else {
				hg_buf_add(out, r->base, r->base_len);
				hg_buf_puts(out, r->ext);
			}
			if (r->line != PG_NONE)
				hg_buf_printf(out, ":%ld", r->line);
		}
		hg_buf_putc(out, ')');
		hg_buf_add(out, s + f->close + 1, ce - f->close - 1);
	}
}

static int flush_held(hg_proguard_stream *s, hg_buf *out)
{
	if (!s->holding)
		return 0;
	s->holding = false;
	const char *b = s->held.data;
	size_t n = s->held.len, tl = 0;
	if (n && b[n - 1] == '\n')
		tl = n > 1 && b[n - 2] == '\r' ? 2 : 1;
	struct found f;
	struct rt_state st = {.no_outline = true};
	struct rt_in in;
	enum rt_status r = RT_NONE;
	if (find_frame(b, 0, n - tl, false, &f)) {
		found_in(b, &f, &in);
		r = pg_retrace_frame(s->maps, s->n_maps, &in, &st, &s->o2);
	}
	if (r == RT_ENOMEM)
		return HG_ENOMEM;
	if (r == RT_OK) {
		write_frames(out, b, 0, n - tl, &f, &s->o2, tl ? b + n - tl : "\n", tl ? tl : 1);
		hg_buf_add(out, b + n - tl, tl);
	} else if (r != RT_REMOVED) {
		hg_buf_add(out, b, n);
	}
	return 0;
}

/* "Caused by: a.b.C: ...", "a.b.C: ...", "Suppressed: ...",
 * 'Exception in thread "x" a.b.C': the class name [*cs, *ce). */
static bool exception_line(const char *s, size_t n, size_t *cs, size_t *ce)
{
	static const char *const heads[] = {"Caused by: ", "Suppressed: ", "Exception in thread \""};
	size_t p = 0;
	while (p < n && pg_blank(s[p]))
		p++;
	bool headed = false;
	for (size_t h = 0; h < 3 && !headed; h++) {
		size_t l = strlen(heads[h]);
		if (n - p >= l && memcmp(s + p, heads[h], l) == 0) {
			p += l;
			headed = true;
			if (h == 2) {
				const char *q = memchr(s + p, '"', n - p);
				if (!q || (size_t)(q - s) + 2 > n || q[1] != ' ')
					return false;
				p = (size_t)(q - s) + 2;
			}
		}
	}
	size_t c = p;
	bool dot = false;
	for (; c < n && name_char(s[c]) && s[c] != '<' && s[c] != '>'; c++)
		dot |= s[c] == '.';
	if (c == p || s[c - 1] == '.' || (!dot && !headed))
		return false;
	size_t k = c;
	while (k < n && (pg_blank(s[k]) || s[k] == '\r'))
		k++;
	if (k < n && s[c] != ':')
		return false;
	*cs = p;
	*ce = c;
	return true;
}

static const char *rename_class(const hg_proguard_stream *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->n_maps; i++) {
		const char *orig = hg_proguard_class(s->maps[i], name, len);
		if (orig)
			return orig;
	}
	return NULL;
}

static void arm(hg_proguard_stream *s, const char *name, size_t len)
{
	s->armed = len + 3 <= sizeof s->throws;
	if (!s->armed)
		return;
	s->throws[0] = 'L';
	for (size_t i = 0; i < len; i++)
		s->throws[i + 1] = name[i] == '.' ? '/' : name[i];
	s->throws[len + 1] = ';';
	s->throws_len = len + 2;
}

/* "- locked <0x..> (a a.b.C)": renames the class. */
static bool lock_line(hg_proguard_stream *s, const char *b, size_t n, hg_buf *out)
{
	size_t p = 0;
	while (p < n && pg_blank(b[p]))
		p++;
	if (n - p < 2 || b[p] != '-' || b[p + 1] != ' ')
		return false;
	for (size_t i = p; i + 3 < n; i++) {
		if (memcmp(b + i, "(a ", 3) != 0)
			continue;
		size_t c = i + 3, e = c;
		while (e < n && b[e] != ')' && !pg_blank(b[e]))
			e++;
		if (e >= n || b[e] != ')')
			return false;
		size_t before = out->len;
		hg_buf_add(out, b, c);
		if (!pg_rename_type(s->maps, s->n_maps, b + c, e - c, out)) {
			out->len = before;
			return false;
		}
		hg_buf_add(out, b + e, n - e);
		return true;
	}
	return false;
}

static int plain_line(hg_proguard_stream *s, const char *b, size_t n, const char *term, size_t tl,
		      hg_buf *out)
{
	bool armed = s->armed;
	s->armed = false;
	struct found f;
	if (find_frame(b, 0, n, false, &f)) {
		struct rt_in in;
		found_in(b, &f, &in);
		s->st.throws = armed ? s->throws : NULL;
		s->st.throws_len = s->throws_len;
		enum rt_status r = pg_retrace_frame(s->maps, s->n_maps, &in, &s->st, &s->o);
		s->st.throws = NULL;
		if (r == RT_ENOMEM)
			return HG_ENOMEM;
		if (r == RT_OUTLINE) {
			s->st.carry = false; /* not for the frame held before */
			int rc = flush_held(s, out);
			s->st.carry = true;
			hg_buf_reset(&s->held);
			hg_buf_add(&s->held, b, n);
			hg_buf_add(&s->held, term, tl);
			s->holding = true;
			return rc ? rc : s->held.failed ? HG_ENOMEM : 0;
		}
		if (s->holding && !s->o.consumed_outline && flush_held(s, out) != 0)
			return HG_ENOMEM;
		s->holding = false;
		if (r == RT_OK) {
			write_frames(out, b, 0, n, &f, &s->o, tl ? term : "\n", tl ? tl : 1);
			hg_buf_add(out, term, tl);
		} else if (r == RT_NONE) {
			hg_buf_add(out, b, n);
			hg_buf_add(out, term, tl);
		}
		return 0;
	}
	s->st.carry = false;
	if (flush_held(s, out) != 0)
		return HG_ENOMEM;
	size_t cs, ce;
	if (exception_line(b, n, &cs, &ce)) {
		const char *orig = rename_class(s, b + cs, ce - cs);
		hg_buf_add(out, b, cs);
		hg_buf_puts(out, orig ? orig : "");
		hg_buf_add(out, b + (orig ? ce : cs), n - (orig ? ce : cs));
		if (orig)
			arm(s, orig, strlen(orig));
		else
			arm(s, b + cs, ce - cs);
	} else if (!lock_line(s, b, n, out)) {
		hg_buf_add(out, b, n);
	}
	hg_buf_add(out, term, tl);
	return 0;
}

static bool json_like(const char *b, size_t n)
{
	size_t p = 0;
	while (p < n && pg_blank(b[p]))
		p++;
	if (p < n && (b[p] == '{' || b[p] == '['))
		return true;
	for (size_t i = 0; i + 1 < n; i++)
		if (b[i] == '\\' && b[i + 1] == 'n')
			return true;
	return false;
}

/* A JSON (or JSON-bearing) line: frames between "\n" escapes of its
 * strings; an inlined frame's extra frames are joined with "\n" escapes.
 * Outlines and rewriteFrame rules need lines around: not applied here. */
static int json_line(hg_proguard_stream *s, const char *b, size_t n, const char *term, size_t tl,
		     hg_buf *out)
{
	s->armed = s->st.carry = false;
	if (flush_held(s, out) != 0)
		return HG_ENOMEM;
	size_t copied = 0, seg = 0;
	while (seg <= n) {
		size_t e = seg;
		while (e < n && !(b[e] == '\\' && e + 1 < n && b[e + 1] == 'n'))
			e += b[e] == '\\' && e + 1 < n ? 2 : 1;
		struct found f;
		/* Every frame of the segment: it may end one string and hold
		 * another. */
		for (size_t from = seg; from < e && find_frame(b, from, e, true, &f);) {
			size_t cs = f.at, ce = f.close + 1;
			while (cs > from && !(b[cs - 1] == '"' && (cs < 2 || b[cs - 2] != '\\')))
				cs--;
			while (ce < e && b[ce] != '"')
				ce += b[ce] == '\\' && ce + 1 < e ? 2 : 1;
			struct rt_in in;
			struct rt_state st = {.no_outline = true};
			found_in(b, &f, &in);
			enum rt_status r = pg_retrace_frame(s->maps, s->n_maps, &in, &st, &s->o);
			if (r == RT_ENOMEM)
				return HG_ENOMEM;
			if (r == RT_OK) {
				hg_buf_add(out, b + copied, cs - copied);
				write_frames(out, b, cs, ce, &f, &s->o, "\\n", 2);
				copied = ce;
			}
			from = ce > f.close ? ce : f.close + 1;
		}
		seg = e + 2;
	}
	hg_buf_add(out, b + copied, n - copied);
	hg_buf_add(out, term, tl);
	return 0;
}

int hg_proguard_stream_create(const hg_proguard *const *maps, size_t n_maps,
			      hg_proguard_stream **out)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return HG_ENOMEM;
	(*out)->maps = maps;
	(*out)->n_maps = n_maps;
	hg_buf_init(&(*out)->held);
	return 0;
}

int hg_proguard_stream_line(hg_proguard_stream *s, const char *line, size_t len, hg_buf *out)
{
	size_t tl = 0;
	if (len && line[len - 1] == '\n')
		tl = len > 1 && line[len - 2] == '\r' ? 2 : 1;
	int rc;
	if (!s->n_maps) {
		hg_buf_add(out, line, len);
		rc = 0;
	} else if (json_like(line, len - tl)) {
		rc = json_line(s, line, len - tl, line + len - tl, tl, out);
	} else {
		rc = plain_line(s, line, len - tl, line + len - tl, tl, out);
	}
	return rc ? rc : out->failed ? HG_ENOMEM : 0;
}

int hg_proguard_stream_finish(hg_proguard_stream *s, hg_buf *out)
{
	s->st.carry = s->armed = false;
	int rc = flush_held(s, out);
	return rc ? rc : out->failed ? HG_ENOMEM : 0;
}

void hg_proguard_stream_destroy(hg_proguard_stream *s)
{
	if (!s)
		return;
	pg_out_release(&s->o);
	pg_out_release(&s->o2);
	hg_buf_release(&s->held);
	free(s);
}

int hg_proguard_retrace_text(const hg_proguard *const *maps, size_t n_maps, const char *text,
			     size_t len, hg_buf *out)
{
	hg_proguard_stream *s;
	int rc = hg_proguard_stream_create(maps, n_maps, &s);
	for (size_t p = 0; rc == 0 && p < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) + 1 : len;
		rc = hg_proguard_stream_line(s, text + p, e - p, out);
		p = e;
	}
	if (rc == 0)
		rc = hg_proguard_stream_finish(s, out);
	hg_proguard_stream_destroy(s);
	return rc;
}
