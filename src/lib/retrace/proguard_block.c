/* Expanding a class block of a ProGuard / R8 mapping, the first time a
 * frame names the class (proguard_lookup.c): its member lines
 *     1:5:void foo(int):12:16 -> a
 * are parsed into entries, sorted by obfuscated name and indexed
 * (proguard_groups.c), and the R8 metadata comments after the class line
 * or a method line are given to it (proguard_meta.c).  Malformed lines are
 * warnings about the mapping. */
#include <stdlib.h>
#include <string.h>

#include "proguard_internal.h"

/* A class block being parsed: its entries so far, and what its last line
 * was (a metadata comment belongs to that line). */
struct block {
	hg_proguard *pg;
	struct pg_class *c;
	struct pg_entry *items;
	size_t n, cap;
	enum { LAST_CLASS, LAST_METHOD, LAST_FIELD } last;
};

bool pg_digits(const char **p, const char *e, long *out)
{
	const char *s = *p;
	long v = 0;
	while (*p < e && **p >= '0' && **p <= '9' && *p - s < 9)
		v = v * 10 + (*(*p)++ - '0');
	if (*p == s || (*p < e && **p >= '0' && **p <= '9'))
		return false;
	*out = v;
	return true;
}

/* "1:5:" and " -> obf" of a member line: sets m->min_*, m->obf (cut at
 * its end); *type at what follows the range, *arrow at " -> ".  Returns
 * false (with *why) when malformed. */
static bool member_ends(char *s, char *e, struct pg_entry *m, char **type, char **arrow,
			const char **why)
{
	const char *p = s;
	if (*p >= '0' && *p <= '9') {
		if (!pg_digits(&p, e, &m->min_start) || p >= e || *p++ != ':' ||
		    !pg_digits(&p, e, &m->min_end) || p >= e || *p++ != ':') {
			*why = "expected 'start:end:' line numbers";
			return false;
		}
	}
	*type = (char *)p;
	*arrow = NULL;
	for (char *q = (char *)p; q + 4 <= e && !*arrow; q++)
		if (q[0] == ' ' && q[1] == '-' && q[2] == '>' && q[3] == ' ')
			*arrow = q;
	if (!*arrow) {
		*why = "expected ' -> ' and the obfuscated name";
		return false;
	}
	char *obf = *arrow + 4, *oe = e;
	while (obf < e && pg_blank(*obf))
		obf++;
	while (oe > obf && pg_blank(oe[-1]))
		oe--;
	if (obf == oe || memchr(obf, ' ', (size_t)(oe - obf)) || memchr(obf, '\t', (size_t)(oe - obf))) {
		*why = "expected one obfuscated name after ' -> '";
		return false;
	}
	*oe = '\0';
	m->obf = obf;
	return true;
}

/* Parses a member line s[0..e) (indentation skipped) into *m: 1 a method,
 * 0 a field, -1 malformed (*why says what). */
static int parse_member(char *s, char *e, struct pg_entry *m, const char **why)
{
	memset(m, 0, sizeof *m);
	m->min_start = m->min_end = m->orig_start = m->orig_end = PG_NONE;
	char *type, *arrow;
	if (!member_ends(s, e, m, &type, &arrow, why))
		return -1;
	char *type_end = type;
	while (type_end < arrow && !pg_blank(*type_end))
		type_end++;
	char *sig = type_end;
	while (sig < arrow && pg_blank(*sig))
		sig++;
	if (type_end == type || sig == arrow || memchr(type, ':', (size_t)(type_end - type)) ||
	    memchr(type, '(', (size_t)(type_end - type))) {
		*why = "expected '[start:end:]type name' before ' -> '";
		return -1;
	}
	char *open = memchr(sig, '(', (size_t)(arrow - sig));
	if (!open)
		return 0; /* a field */
	char *close = memchr(open, ')', (size_t)(arrow - open));
	if (!close || open == sig) {
		*why = "expected 'name(arguments)'";
		return -1;
	}
	const char *p = close + 1;
	if (p < arrow && *p == ':' && (++p, !pg_digits(&p, arrow, &m->orig_start))) {
		*why = "expected the original line after ')'";
		return -1;
	}
	if (m->orig_start != PG_NONE && p < arrow && *p == ':' &&
	    (++p, !pg_digits(&p, arrow, &m->orig_end))) {
		*why = "expected the original end line";
		return -1;
	}
	if (p != arrow) {
		*why = "unexpected text before ' -> '";
		return -1;
	}
	/* The line is ours to cut: names end with NUL. */
	*close = '\0';
	char *dot = NULL;
	for (char *q = sig; q < open; q++)
		if (*q == '.')
			dot = q;
	m->args = open + 1;
	m->name = sig;
	if (dot && dot > sig && dot + 1 < open) {
		*dot = '\0';
		m->oclass = sig;
		m->name = dot + 1;
	}
	*open = '\0';
	return 1;
}

/* A metadata comment: it belongs to the line before it, the class line or
 * a method's (a field's, or a malformed line's, goes nowhere). */
static void read_meta(struct block *b, const char *s, size_t len, long line, bool indented)
{
	pg_meta_apply(b->pg, b->last == LAST_CLASS ? b->c : NULL,
		      b->last == LAST_METHOD ? &b->items[b->n - 1] : NULL, s, len, line, indented);
}

static void read_member(struct block *b, char *s, char *e, long line)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 32;
		struct pg_entry *n = realloc(b->items, cap * sizeof *n);
		if (!n)
			return;
		b->items = n;
		b->cap = cap;
	}
	const char *why = NULL;
	struct pg_entry *m = &b->items[b->n];
	int kind = parse_member(s, e, m, &why);
	if (kind < 0) {
		pg_warn_line(b->pg, line, "%s; line skipped", why);
		b->last = LAST_FIELD; /* its metadata goes nowhere */
		return;
	}
	b->last = kind ? LAST_METHOD : LAST_FIELD;
	m->line = line;
	if (kind) {
		if (m->oclass && strcmp(m->oclass, b->c->orig) == 0)
			m->oclass = NULL;
		b->n++;
	}
}

/* A method's identity: receiver, name, arguments. */
static bool same_method(const struct pg_entry *a, const struct pg_entry *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->args, b->args) == 0 &&
	       (a->oclass == b->oclass || (a->oclass && b->oclass && strcmp(a->oclass, b->oclass) == 0));
}

static uint32_t method_hash(const struct pg_entry *m)
{
	return pg_hash(m->name, strlen(m->name)) ^ (pg_hash(m->args, strlen(m->args)) * 31u) ^
	       (m->oclass ? pg_hash(m->oclass, strlen(m->oclass)) * 17u : 0);
}

/* synthesized and outline are said once, of the method: give them to all
 * its entries. */
static int spread_flags(struct block *b)
{
	size_t flagged = 0;
	for (size_t i = 0; i < b->n; i++)
		flagged += b->items[i].flags != 0;
	if (!flagged)
		return 0;
	size_t cap = 16;
	while (cap < 2 * flagged)
		cap *= 2;
	size_t *slot = calloc(cap, sizeof *slot); /* entry index + 1 */
	if (!slot)
		return HG_ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		if (!b->items[i].flags)
			continue;
		size_t at = method_hash(&b->items[i]) & (cap - 1);
		for (; slot[at]; at = (at + 1) & (cap - 1))
			if (same_method(&b->items[slot[at] - 1], &b->items[i]))
				break;
		if (slot[at])
			b->items[slot[at] - 1].flags |= b->items[i].flags;
		else
			slot[at] = i + 1;
	}
	for (size_t i = 0; i < b->n; i++) {
		size_t at = method_hash(&b->items[i]) & (cap - 1);
		for (; slot[at]; at = (at + 1) & (cap - 1))
			if (same_method(&b->items[slot[at] - 1], &b->items[i])) {
				b->items[i].flags |= b->items[slot[at] - 1].flags;
				break;
			}
	}
	free(slot);
	return 0;
}

static int by_obf(const void *x, const void *y)
{
	const struct pg_entry *a = *(const struct pg_entry *const *)x;
	const struct pg_entry *b = *(const struct pg_entry *const *)y;
	int c = strcmp(a->obf, b->obf);
	return c ? c : (a < b ? -1 : a > b);
}

/* Sorts the entries by obfuscated name, keeping file order within a name,
 * into the arena. */
static int sort_entries(struct block *b)
{
	struct pg_entry **order = malloc((b->n ? b->n : 1) * sizeof *order);
	b->c->entries = hg_arena_calloc(b->pg->arena, b->n ? b->n : 1, sizeof *b->c->entries);
	if (!order || !b->c->entries) {
		free(order);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < b->n; i++)
		order[i] = &b->items[i];
	qsort(order, b->n, sizeof *order, by_obf);
	for (size_t i = 0; i < b->n; i++)
		b->c->entries[i] = *order[i];
	b->c->n = b->n;
	free(order);
	return 0;
}

/* Reads and parses the block of record idx. */
struct pg_class *pg_expand(hg_proguard *pg, size_t idx, bool *oom)
{
	const struct pg_rec *r = &pg->recs[idx];
	size_t end = idx + 1 < pg->n_recs ? pg->recs[idx + 1].off : pg->len;
	size_t size = end > r->off ? end - r->off : 0;
	if (size > PG_MAX_BLOCK) {
		pg_warn_line(pg, r->line, "class block longer than %zu bytes: the rest is ignored",
			     PG_MAX_BLOCK);
		size = PG_MAX_BLOCK;
	}
	char *text = hg_arena_alloc(pg->arena, size + 1);
	struct pg_class *c = hg_arena_calloc(pg->arena, 1, sizeof *c);
	if (!text || !c) {
		*oom = true;
		return NULL;
	}
	long got = pg_read_at(pg, r->off, text, size);
	if (got < 0)
		return NULL; /* the file went away: absent */
	text[got] = '\0';
	char *p = text, *e = text + got;
	char *nl = memchr(p, '\n', (size_t)(e - p));
	char *line_end = nl ? nl : e;
	const char *orig, *obf;
	size_t orig_len, obf_len;
	if (!pg_class_line(p, (size_t)(line_end - p), &orig, &orig_len, &obf, &obf_len))
		return NULL; /* the file changed under us */
	((char *)orig)[orig_len] = '\0';
	((char *)obf)[obf_len] = '\0';
	c->orig = orig;
	c->obf = obf;
	struct block b = {.pg = pg, .c = c, .last = LAST_CLASS};
	long line = r->line;
	for (p = nl ? nl + 1 : e; p < e; p = nl ? nl + 1 : e) {
		line++;
		nl = memchr(p, '\n', (size_t)(e - p));
		char *le = nl ? nl : e;
		/* The index pass skipped lines over PG_MAX_LINE (and said so),
		 * save comments: a class line then, whose members follow it, and
		 * the members. */
		bool overlong = (size_t)(le - p) > PG_MAX_LINE;
		const char *o, *ob;
		size_t on, obn;
		if (overlong && !pg_blank(*p) && pg_class_line(p, (size_t)(le - p), &o, &on, &ob, &obn))
			break;
		while (le > p && (le[-1] == '\r' || pg_blank(le[-1])))
			le--;
		char *s = p;
		while (s < le && pg_blank(*s))
			s++;
		if (s == le)
			continue;
		if (overlong && *s != '#') {
			b.last = LAST_FIELD; /* its metadata goes nowhere */
			continue;
		}
		if (*s == '#') {
			for (s++; s < le && pg_blank(*s); s++)
				;
			if (s < le && *s == '{')
				read_meta(&b, s, (size_t)(le - s), line, p[0] != '#');
		} else if (s != p) {
			*le = '\0';
			read_member(&b, s, le, line);
		} /* else: a malformed unindented line, warned by the index pass */
	}
	if (spread_flags(&b) != 0 || sort_entries(&b) != 0 || pg_index_class(pg->arena, c) != 0) {
		free(b.items);
		*oom = true;
		return NULL;
	}
	free(b.items);
	return c;
}
