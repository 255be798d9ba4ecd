/* Sessions files (hangar/sessions.h; hangar-formats(5), SESSIONS FILES):
 * a CSV header naming version, sessions and optionally day, then a row per
 * version (and UTC day), read a line at a time.  Fields are separated by
 * commas; one may be quoted as RFC 4180 says (a version can hold a comma;
 * "" is a quote), but not across lines: a version never holds a line
 * break.  Spaces around a field are not part of it.  The first problem
 * stops the reading with its line and column: a file that gives wrong
 * denominators must not give rates. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"
#include "hangar/arena.h"
#include "hangar/input.h"
#include "sessions_internal.h"

enum { COL_VERSION, COL_DAY, COL_SESSIONS, N_ROLES };
static const char *const role_names[N_ROLES] = {"version", "day", "sessions"};

#define MAX_COLUMNS 3
#define QUOTE_MAX 40   /* bytes of offending text a message quotes */

/* One field of a line: its bytes (in the text, or unquoted into the arena)
 * and its 1-based column. */
struct field {
	const char *s;
	size_t len;
	long col;
};

struct parse {
	const hg_ctx *ctx;
	const char *name;
	hg_sessions *s;
	strmap seen;         /* "version\x1fday" -> the line of its row */
	size_t cap_versions;
	int roles[MAX_COLUMNS]; /* the header's columns, by role */
	size_t n_cols;
	long line;
};

/* Says the problem at line:col and gives HG_EPARSE. */
static int fail(struct parse *ps, long col, const char *fmt, ...) HG_PRINTF(3, 4);
static int fail(struct parse *ps, long col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_diagf(ps->ctx, HG_DIAG_ERROR, ps->name, ps->line, col, 0, "%s", msg);
	return HG_EPARSE;
}

/* s[0..len) cut to QUOTE_MAX bytes (at a character's start) with "…". */
static const char *quoted(char buf[QUOTE_MAX + 8], const char *s, size_t len)
{
	size_t n = len;
	if (n > QUOTE_MAX) {
		n = QUOTE_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(buf, s, n);
	strcpy(buf + n, len > n ? "…" : "");
	return buf;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A quoted field from p (at its opening quote) to its closing one, "" a
 * quote, into f (an arena copy when it had ""); *next: after the quote. */
static int quoted_field(struct parse *ps, const char *line, const char *p, const char *e,
			struct field *f, const char **next)
{
	const char *open = p++;
	size_t doubled = 0;
	const char *q = p;
	for (;; q++) {
		if (q == e)
			return fail(ps, (long)(open - line) + 1, "quoted field not closed on its line");
		if (*q != '"')
			continue;
		if (q + 1 < e && q[1] == '"') {
			doubled++;
			q++;
			continue;
		}
		break;
	}
	f->len = (size_t)(q - p) - doubled;
	f->s = p;
	if (doubled) {
		char *copy = hg_arena_alloc(ps->s->arena, f->len + 1);
		if (!copy)
			return HG_ENOMEM;
		size_t k = 0;
		for (const char *r = p; r < q; r++) {
			copy[k++] = *r;
			r += *r == '"'; /* the second quote of "" */
		}
		f->s = copy;
	}
	*next = q + 1;
	return 0;
}

/* Splits the line [line, e) into at most max fields (more: *n is max + 1,
 * fields[max] the first extra one). */
static int split(struct parse *ps, const char *line, const char *e, struct field *fields,
		 size_t max, size_t *n)
{
	const char *p = line;
	*n = 0;
	for (;;) {
		while (p < e && blank(*p))
			p++;
		struct field f = {p, 0, (long)(p - line) + 1};
		if (p < e && *p == '"') {
			int err = quoted_field(ps, line, p, e, &f, &p);
			if (err)
				return err;
			while (p < e && blank(*p))
				p++;
			if (p < e && *p != ',') {
				char q[QUOTE_MAX + 8];
				return fail(ps, (long)(p - line) + 1, "\"%s\" after a closing quote: "
					    "want a comma or the line's end",
					    quoted(q, p, (size_t)(e - p)));
			}
		} else {
			size_t left = p < e ? (size_t)(e - p) : 0; /* (GCC -O3 cannot see p <= e) */
			const char *comma = left ? memchr(p, ',', left) : NULL;
			const char *end = comma ? comma : e;
			const char *last = end;
			while (last > p && blank(last[-1]))
				last--;
			f.len = (size_t)(last - p);
			p = end;
		}
		fields[*n] = f;
		if (++*n > max)
			return 0;
		if (p == e)
			return 0;
		p++; /* the comma */
	}
}

/* ---- the header ---- */

static int header(struct parse *ps, const struct field *fields, size_t n)
{
	bool have[N_ROLES] = {false};
	if (n > MAX_COLUMNS)
		return fail(ps, fields[MAX_COLUMNS].col, "extra column: the header is version,sessions "
			    "or version,day,sessions");
	for (size_t i = 0; i < n; i++) {
		int role = -1;
		for (int r = 0; r < N_ROLES; r++)
			if (fields[i].len == strlen(role_names[r]) &&
			    !strncasecmp(fields[i].s, role_names[r], fields[i].len))
				role = r;
		char q[QUOTE_MAX + 8];
		if (role < 0)
			return fail(ps, fields[i].col, "unknown column \"%s\": the header is "
				    "version,sessions or version,day,sessions",
				    quoted(q, fields[i].s, fields[i].len));
		if (have[role])
			return fail(ps, fields[i].col, "column \"%s\" named twice", role_names[role]);
		have[role] = true;
		ps->roles[i] = role;
	}
	for (int r = 0; r < N_ROLES; r++)
		if (!have[r] && r != COL_DAY)
			return fail(ps, 1, "missing column \"%s\": the header is version,sessions or "
				    "version,day,sessions", role_names[r]);
	ps->n_cols = n;
	ps->s->has_days = have[COL_DAY];
	return 0;
}

/* ---- a row's fields ---- */

/* Sessions: a whole number from 0 to 2^53. */
static int sessions_field(struct parse *ps, const struct field *f, int64_t *out)
{
	char q[QUOTE_MAX + 8];
	const char *s = f->s;
	size_t len = f->len;
	if (len && s[0] == '-') {
		bool digits = len > 1;
		for (size_t i = 1; i < len; i++)
			digits &= s[i] >= '0' && s[i] <= '9';
		if (digits)
			return fail(ps, f->col, "negative sessions \"%s\"", quoted(q, s, len));
	}
	int64_t v = 0;
	bool over = false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail(ps, f->col, "bad number \"%s\": sessions is a whole number >= 0",
				    quoted(q, s, len));
		if (!over)
			v = v * 10 + (s[i] - '0');
		over |= v > HG_SESSIONS_MAX;
	}
	if (!len)
		return fail(ps, f->col, "no number: sessions is a whole number >= 0");
	if (over)
		return fail(ps, f->col, "sessions \"%s\" over 2^53 (%lld)", quoted(q, s, len),
			    (long long)HG_SESSIONS_MAX);
	*out = v;
	return 0;
}

static int version_field(struct parse *ps, const struct field *f)
{
	if (!f->len)
		return fail(ps, f->col, "empty version");
	for (size_t i = 0; i < f->len; i++) {
		unsigned char c = (unsigned char)f->s[i];
		if (c < 0x20 || c == 0x7f)
			return fail(ps, f->col + (long)i, "control character (byte 0x%02x) in a version",
				    c);
	}
	return 0;
}

static int day_field(struct parse *ps, const struct field *f, struct sess_day *d)
{
	char q[QUOTE_MAX + 8];
	if (f->len != 10 || !sess_day_read(f->s, d))
		return fail(ps, f->col, "bad day \"%s\": want a date, YYYY-MM-DD (UTC)",
			    quoted(q, f->s, f->len));
	return 0;
}

/* ---- the versions ---- */

/* The entry of version f (added when new): its index into *index.  0 or
 * HG_ENOMEM. */
static int entry_of(struct parse *ps, const struct field *f, long *index)
{
	hg_sessions *s = ps->s;
	char *v = hg_arena_strndup(s->arena, f->s, f->len);
	if (!v)
		return HG_ENOMEM;
	int64_t i;
	if (strmap_get(&s->index, v, &i)) {
		*index = (long)i;
		return 0;
	}
	if (s->n_versions == ps->cap_versions) {
		size_t cap = ps->cap_versions ? 2 * ps->cap_versions : 16;
		struct sess_version *nv = hg_arena_regrow(s->arena, s->versions,
							  ps->cap_versions * sizeof *nv, cap * sizeof *nv);
		if (!nv)
			return HG_ENOMEM;
		s->versions = nv;
		ps->cap_versions = cap;
	}
	if (strmap_put(&s->index, v, (int64_t)s->n_versions) != 0)
		return HG_ENOMEM;
	s->versions[s->n_versions] = (struct sess_version){.version = v};
	*index = (long)s->n_versions++;
	return 0;
}

static int add_day(hg_sessions *s, struct sess_version *e, const struct sess_day *d)
{
	if (e->n_days == e->cap_days) {
		size_t cap = e->cap_days ? 2 * e->cap_days : 8;
		struct sess_day *nd = hg_arena_regrow(s->arena, e->days, e->cap_days * sizeof *nd,
						      cap * sizeof *nd);
		if (!nd)
			return HG_ENOMEM;
		e->days = nd;
		e->cap_days = cap;
	}
	e->days[e->n_days++] = *d;
	return 0;
}

/* A row of version f with its day (NULL: none) and sessions. */
static int add_row(struct parse *ps, const struct field *vf, const struct field *df,
		   struct sess_day *d)
{
	long i;
	int err = entry_of(ps, vf, &i);
	if (err)
		return err;
	struct sess_version *e = &ps->s->versions[i];
	char q[QUOTE_MAX + 8];
	quoted(q, vf->s, vf->len);
	if (!df) {
		if (e->whole_line)
			return fail(ps, 1, "duplicate row for version \"%s\" (first at line %ld)", q,
				    e->whole_line);
		if (e->n_days)
			return fail(ps, 1, "version \"%s\" has rows with a day (line %ld) and this one "
				    "without: give one or the other", q, e->first_day_line);
		e->whole_line = ps->line;
		e->whole = d->sessions;
		return 0;
	}
	if (e->whole_line)
		return fail(ps, df->col, "version \"%s\" has a row without a day (line %ld) and this "
			    "one with: give one or the other", q, e->whole_line);
	char key[48]; /* the version's index and the day */
	int64_t first;
	snprintf(key, sizeof key, "%ld %s", i, d->day);
	if (strmap_get(&ps->seen, key, &first))
		return fail(ps, 1, "duplicate row for version \"%s\" on %s (first at line %lld)", q,
			    d->day, (long long)first);
	if (strmap_put(&ps->seen, key, ps->line) != 0)
		return HG_ENOMEM;
	if (!e->n_days)
		e->first_day_line = ps->line;
	return add_day(ps->s, e, d);
}

/* A row's fields (n of them) by the header's columns; len: the line's. */
static int row(struct parse *ps, const struct field *fields, size_t n, size_t len)
{
	if (n > ps->n_cols)
		return fail(ps, fields[ps->n_cols].col, "extra field: the header names %zu columns",
			    ps->n_cols);
	if (n < ps->n_cols)
		return fail(ps, (long)len + 1, "missing field \"%s\": the header names %zu columns",
			    role_names[ps->roles[n]], ps->n_cols);
	const struct field *by_role[N_ROLES] = {NULL};
	for (size_t i = 0; i < n; i++)
		by_role[ps->roles[i]] = &fields[i];
	struct sess_day d = {0};
	int err = version_field(ps, by_role[COL_VERSION]);
	if (!err)
		err = sessions_field(ps, by_role[COL_SESSIONS], &d.sessions);
	const struct field *df = by_role[COL_DAY] && by_role[COL_DAY]->len ? by_role[COL_DAY] : NULL;
	if (!err && df)
		err = day_field(ps, df, &d);
	return err ? err : add_row(ps, by_role[COL_VERSION], df, &d);
}

/* ---- the file ---- */

static int by_day(const void *a, const void *b)
{
	return strcmp(((const struct sess_day *)a)->day, ((const struct sess_day *)b)->day);
}

/* Each version's days in order (for the lookups), and its total. */
static void finish(hg_sessions *s)
{
	for (size_t i = 0; i < s->n_versions; i++) {
		struct sess_version *e = &s->versions[i];
		if (e->n_days > 1)
			qsort(e->days, e->n_days, sizeof *e->days, by_day);
		e->total = e->whole;
		for (size_t k = 0; k < e->n_days; k++)
			e->total = sess_add(e->total, e->days[k].sessions);
	}
}

/* One line [p, e) (without its line break): blank lines and # comments
 * are skipped; the first other is the header. */
static int line(struct parse *ps, const char *p, const char *e)
{
	if (e > p && e[-1] == '\r')
		e--;
	const char *q = p;
	while (q < e && blank(*q))
		q++;
	if (q == e || *q == '#')
		return 0;
	struct field fields[MAX_COLUMNS + 1];
	size_t n;
	int err = split(ps, p, e, fields, MAX_COLUMNS, &n);
	if (err)
		return err;
	if (!ps->n_cols)
		return header(ps, fields, n);
	return row(ps, fields, n, (size_t)(e - p));
}

int hg_sessions_parse(const hg_ctx *ctx, const char *name, const char *text, size_t len,
		      hg_sessions **out)
{
	*out = NULL;
	hg_sessions *s = calloc(1, sizeof *s);
	if (!s || !(s->arena = hg_arena_create())) {
		free(s);
		return HG_ENOMEM;
	}
	struct parse ps = {.ctx = ctx, .name = name ? name : "sessions", .s = s};
	const char *p = text, *end = text + len;
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) /* a spreadsheet's byte order mark */
		p += 3;
	int err = 0;
	while (!err && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		ps.line++;
		err = line(&ps, p, e);
		p = nl ? nl + 1 : end;
	}
	if (!err && !ps.n_cols) {
		ps.line = ps.line ? ps.line : 1;
		err = fail(&ps, 1, "no header line: want version,sessions or version,day,sessions");
	}
	strmap_clear(&ps.seen);
	if (err) {
		hg_sessions_destroy(s);
		return err;
	}
	finish(s);
	*out = s;
	return 0;
}

int hg_sessions_read(const hg_ctx *ctx, const char *path, hg_sessions **out)
{
	char *data = NULL;
	size_t len = 0;
	*out = NULL;
	int err = hg_input_read(ctx, path, &data, &len);
	if (!err)
		err = hg_sessions_parse(ctx, path, data, len, out);
	free(data);
	return err;
}

void hg_sessions_destroy(hg_sessions *s)
{
	if (!s)
		return;
	strmap_clear(&s->index);
	hg_arena_destroy(s->arena);
	free(s);
}
