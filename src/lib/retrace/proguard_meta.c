/* R8 metadata in a ProGuard / R8 mapping: the comments
 * "# {"id":"...",...}" in a little JSON (" or ' quotes; no unescaping), the
 * ids this reader knows, and what each sets on the class or method line it
 * follows: sourceFile, synthesized, outline, outlineCallsite positions and
 * rewriteFrame rules.  Unknown ids are warned about once per mapping. */
#include <string.h>

#include "proguard_internal.h"

/* ---- the little JSON of metadata comments: {"id":"...",...} ---- */

/* Past blanks and newlines. */
static const char *json_ws(const char *p, const char *e)
{
	while (p < e && (pg_blank(*p) || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* p at a quote (" or '); returns past the closing quote, or NULL. */
static const char *json_string(const char *p, const char *e, const char **s, size_t *n)
{
	char q = *p++;
	const char *start = p;
	while (p < e && *p != q) {
		if (*p == '\\' && p + 1 < e)
			p++;
		p++;
	}
	if (p >= e)
		return NULL;
	*s = start;
	*n = (size_t)(p - start);
	return p + 1;
}

/* Past any value at p, or NULL when malformed. */
static const char *json_skip(const char *p, const char *e, int depth)
{
	p = json_ws(p, e);
	if (p >= e || depth > 16)
		return NULL;
	if (*p == '"' || *p == '\'') {
		const char *s;
		size_t n;
		return json_string(p, e, &s, &n);
	}
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool object = *p == '{';
		p = json_ws(p + 1, e);
		if (p < e && *p == close)
			return p + 1;
		for (;;) {
			if (object) {
				p = json_skip(p, e, depth + 1);
				p = p ? json_ws(p, e) : NULL;
				if (!p || p >= e || *p != ':')
					return NULL;
				p++;
			}
			p = json_skip(p, e, depth + 1);
			p = p ? json_ws(p, e) : NULL;
			if (!p || p >= e)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	const char *start = p;
	while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ':' && !pg_blank(*p))
		p++;
	return p > start ? p : NULL;
}

/* Finds key in the object s[0..len): *val at its value. */
static bool meta_find(const char *s, size_t len, const char *key, const char **val,
		      const char **end)
{
	const char *p = s, *e = s + len;
	p = json_ws(p, e);
	if (p >= e || *p != '{')
		return false;
	p = json_ws(p + 1, e);
	size_t klen = strlen(key);
	while (p < e && (*p == '"' || *p == '\'')) {
		const char *k;
		size_t kn;
		p = json_string(p, e, &k, &kn);
		p = p ? json_ws(p, e) : NULL;
		if (!p || p >= e || *p != ':')
			return false;
		p = json_ws(p + 1, e);
		if (kn == klen && memcmp(k, key, klen) == 0) {
			*val = p;
			*end = e;
			return true;
		}
		p = json_skip(p, e, 0);
		p = p ? json_ws(p, e) : NULL;
		if (!p || p >= e || *p != ',')
			return false;
		p = json_ws(p + 1, e);
	}
	return false;
}

bool pg_meta_string(const char *s, size_t len, const char *key, const char **val,
		    size_t *val_len)
{
	const char *v, *e;
	if (!meta_find(s, len, key, &v, &e) || v >= e || (*v != '"' && *v != '\''))
		return false;
	return json_string(v, e, val, val_len) != NULL;
}

bool pg_meta_id(const char *s, size_t len, const char **id, size_t *id_len)
{
	return pg_meta_string(s, len, "id", id, id_len) && *id_len > 0;
}

/* ---- ids: those known, and unknown ones reported once ---- */

static const struct {
	const char *id;
	size_t len;
} known_ids[] = {
#define ID(s) {s, sizeof s - 1}
	ID("sourceFile"),
	ID("com.android.tools.r8.synthesized"),
	ID("com.android.tools.r8.outline"),
	ID("com.android.tools.r8.outlineCallsite"),
	ID("com.android.tools.r8.rewriteFrame"),
	ID("com.android.tools.r8.residualsignature"),
	ID("com.android.tools.r8.mapping"),
#undef ID
};

bool pg_known_id(const char *id, size_t len)
{
	for (size_t i = 0; i < sizeof known_ids / sizeof *known_ids; i++)
		if (known_ids[i].len == len && memcmp(known_ids[i].id, id, len) == 0)
			return true;
	return false;
}

void pg_unknown_id(hg_proguard *pg, const char *id, size_t len, long line)
{
	void *seen;
	if (pg_map_get(&pg->ids, id, len, &seen))
		return;
	pg_map_put(&pg->ids, pg->arena, id, len, pg); /* on ENOMEM: reported again, no harm */
	hg_diagf(&pg->ctx, HG_DIAG_WARNING, pg->name, line, 0, 0,
		 "unknown R8 metadata '%.*s' ignored (reported once)", (int)(len < 200 ? len : 200), id);
}

/* ---- what metadata sets ---- */

/* positions: {"1":50,"3":52} */
static void read_positions(hg_proguard *pg, struct pg_entry *m, const char *s, size_t len)
{
	const char *v, *e;
	if (!meta_find(s, len, "positions", &v, &e) || *v != '{')
		return;
	size_t cap = 0;
	for (const char *p = json_ws(v + 1, e); p < e && (*p == '"' || *p == '\'');) {
		const char *k;
		size_t kn;
		long from, to;
		p = json_string(p, e, &k, &kn);
		p = p ? json_ws(p, e) : NULL;
		if (!p || p >= e || *p != ':')
			return;
		p = json_ws(p + 1, e);
		const char *kp = k;
		if (!pg_digits(&kp, k + kn, &from) || kp != k + kn || !pg_digits(&p, e, &to))
			return;
		if (m->n_pos == cap) {
			cap = cap ? 2 * cap : 8;
			struct pg_pos *n = hg_arena_calloc(pg->arena, cap, sizeof *n);
			if (!n)
				return;
			if (m->n_pos)
				memcpy(n, m->pos, m->n_pos * sizeof *n);
			m->pos = n;
		}
		m->pos[m->n_pos++] = (struct pg_pos){from, to};
		p = json_ws(p, e);
		if (p < e && *p == ',')
			p = json_ws(p + 1, e);
	}
}

/* An array of strings at key, as NUL-terminated arena copies. */
static size_t read_strings(hg_arena *arena, const char *s, size_t len, const char *key,
			   const char **out, size_t max)
{
	const char *v, *e;
	size_t n = 0;
	if (!meta_find(s, len, key, &v, &e) || *v != '[')
		return 0;
	for (const char *p = json_ws(v + 1, e); p < e && (*p == '"' || *p == '\'') && n < max;) {
		const char *str;
		size_t sn;
		p = json_string(p, e, &str, &sn);
		if (!p || !(out[n++] = hg_arena_strndup(arena, str, sn)))
			return n - (p != NULL);
		p = json_ws(p, e);
		if (p < e && *p == ',')
			p = json_ws(p + 1, e);
	}
	return n;
}

static void read_rule(hg_proguard *pg, struct pg_entry *m, const char *s, size_t len)
{
	const char *conds[8], *acts[8];
	size_t nc = read_strings(pg->arena, s, len, "conditions", conds, 8);
	size_t na = read_strings(pg->arena, s, len, "actions", acts, 8);
	struct pg_rule r = {.remove = 0};
	if (!nc || !na)
		return;
	r.throws = hg_arena_calloc(pg->arena, nc, sizeof *r.throws);
	if (!r.throws)
		return;
	for (size_t i = 0; i < nc; i++) {
		size_t l = strlen(conds[i]);
		if (l > 8 && memcmp(conds[i], "throws(", 7) == 0 && conds[i][l - 1] == ')')
			r.throws[r.n_throws++] = hg_arena_strndup(pg->arena, conds[i] + 7, l - 8);
		else
			r.unknown = true;
	}
	for (size_t i = 0; i < na; i++) {
		const char *a = acts[i], *p = a + strlen("removeInnerFrames(");
		long v;
		if (strncmp(a, "removeInnerFrames(", strlen("removeInnerFrames(")) == 0 &&
		    pg_digits(&p, a + strlen(a), &v) && strcmp(p, ")") == 0)
			r.remove += v;
		else
			r.unknown = true;
	}
	struct pg_rule *n = hg_arena_calloc(pg->arena, m->n_rules + 1, sizeof *n);
	if (!n)
		return;
	if (m->n_rules)
		memcpy(n, m->rules, m->n_rules * sizeof *n);
	n[m->n_rules++] = r;
	m->rules = n;
}

/* A metadata comment s[0..len) at line `line`; an indented one (the
 * index pass read only those at the start of a line) is checked here. */
void pg_meta_apply(hg_proguard *pg, struct pg_class *c, struct pg_entry *m, const char *s,
		   size_t len, long line, bool indented)
{
	const char *id;
	size_t n;
	if (!pg_meta_id(s, len, &id, &n)) {
		if (indented)
			pg_warn_line(pg, line, "metadata comment without an \"id\"; ignored");
		return;
	}
	if (indented && !pg_known_id(id, n))
		pg_unknown_id(pg, id, n, line);
#define IS(x) (n == strlen(x) && memcmp(id, x, n) == 0)
	if (c) {
		const char *f;
		size_t fn;
		if (IS("sourceFile") && pg_meta_string(s, len, "fileName", &f, &fn))
			c->source = hg_arena_strndup(pg->arena, f, fn);
		else if (IS("com.android.tools.r8.synthesized"))
			c->synthesized = true;
		return;
	}
	if (!m)
		return;
	if (IS("com.android.tools.r8.synthesized"))
		m->flags |= PG_SYNTH;
	else if (IS("com.android.tools.r8.outline"))
		m->flags |= PG_OUTLINE;
	else if (IS("com.android.tools.r8.outlineCallsite"))
		read_positions(pg, m, s, len);
	else if (IS("com.android.tools.r8.rewriteFrame"))
		read_rule(pg, m, s, len);
#undef IS
}
