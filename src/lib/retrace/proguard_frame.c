/* Retrace of one frame: an obfuscated frame to the frames it stands for
 * (the rules are in proguard.h).  The method's entries make inlining
 * stacks ("groups"); those whose range holds the line are the candidates;
 * an outline frame is carried to its caller, rewriteFrame rules drop inner
 * frames, a synthesized outermost frame is left out. */
#include <stdlib.h>
#include <string.h>

#include "proguard_retrace.h"

void pg_out_release(struct rt_out *o)
{
	free(o->f);
	free(o->cand);
	free(o->group);
	memset(o, 0, sizeof *o);
}

bool pg_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

static bool is_base(const struct pg_entry *e)
{
	return e->min_start == PG_NONE || (e->min_start == 0 && e->min_end == 0);
}

/* Whether e starts a new frame rather than continue prev's inlining stack:
 * an inlined caller repeats the range and gives one original line. */
static bool starts_group(const struct pg_entry *prev, const struct pg_entry *e)
{
	return !prev || e->min_start == PG_NONE || prev->min_start == PG_NONE ||
	       e->min_start != prev->min_start || e->min_end != prev->min_end ||
	       e->orig_start == PG_NONE || e->orig_end != PG_NONE;
}

/* The original line of entry e of a group, for obfuscated line L. */
static long line_of(const struct pg_entry *e, bool base, long L)
{
	if (base) {
		if (e->min_start == PG_NONE)
			return e->orig_start > 0 ? e->orig_start : L;
		return e->orig_start > 0 ? e->orig_start : PG_NONE;
	}
	if (e->orig_start == PG_NONE)
		return L; /* ProGuard kept the line */
	if (e->orig_end != PG_NONE && e->orig_end != e->orig_start)
		return e->orig_start + (L - e->min_start);
	return e->orig_start;
}

static bool is_synthetic_file(const char *f)
{
	return f && strcmp(f, "R8$$SyntheticClass") == 0;
}

/* The source file of a frame of class cls (original name): its sourceFile
 * metadata, else the outer class's simple name with ".kt" for a "...Kt"
 * class, or the extension of ref (the obfuscated class's source file). */
static bool set_file(const hg_proguard *pg, const struct pg_class *c, const char *cls,
		     size_t cls_len, bool own, struct rt_frame *f)
{
	bool oom = false;
	const char *src = own ? c->source : pg_source_of(pg, cls, cls_len, &oom);
	if (oom)
		return false;
	if (src && !is_synthetic_file(src)) {
		f->file = src;
		return true;
	}
	const char *b = cls, *end = cls + cls_len;
	for (const char *p = cls; p < end; p++)
		if (*p == '.')
			b = p + 1;
	const char *d = memchr(b, '$', (size_t)(end - b));
	size_t len = (size_t)((d ? d : end) - b);
	f->file = NULL;
	f->base = b;
	f->ext = ".java";
	if (len > 2 && b[len - 2] == 'K' && b[len - 1] == 't') {
		len -= 2;
		f->ext = ".kt";
	} else if (c->source && !is_synthetic_file(c->source) && strrchr(c->source, '.')) {
		f->ext = strrchr(c->source, '.');
	}
	f->base_len = len;
	return true;
}

static struct rt_frame *add_frame(struct rt_out *o)
{
	if (!pg_grow((void **)&o->f, &o->cap, o->n + 1, sizeof *o->f))
		return NULL;
	memset(&o->f[o->n], 0, sizeof *o->f);
	return &o->f[o->n++];
}

static bool add_candidate(struct rt_out *o)
{
	if (!pg_grow((void **)&o->cand, &o->cap_cand, o->n_cand + 1, sizeof *o->cand))
		return false;
	o->cand[o->n_cand++] = o->n;
	return true;
}

static bool entry_frame(const hg_proguard *pg, const struct pg_class *c, const struct pg_entry *e,
			long line, struct rt_out *o)
{
	struct rt_frame *f = add_frame(o);
	if (!f)
		return false;
	f->cls = e->oclass ? e->oclass : c->orig;
	f->cls_len = strlen(f->cls);
	f->method = e->name;
	f->method_len = strlen(e->name);
	f->line = line;
	f->synth = e->flags & PG_SYNTH;
	return set_file(pg, c, f->cls, f->cls_len, !e->oclass, f);
}

static bool same_frame(const struct rt_frame *a, const struct rt_frame *b)
{
	return a->cls_len == b->cls_len && memcmp(a->cls, b->cls, a->cls_len) == 0 &&
	       a->method_len == b->method_len && memcmp(a->method, b->method, a->method_len) == 0 &&
	       a->line == b->line && a->file == b->file && a->base == b->base &&
	       a->base_len == b->base_len && a->ext == b->ext;
}

/* Drops the last candidate when an earlier one has the same frames. */
static void dedupe_last(struct rt_out *o)
{
	size_t last = o->cand[o->n_cand - 1], len = o->n - last;
	for (size_t k = 0; k + 1 < o->n_cand; k++) {
		size_t s = o->cand[k], e = o->cand[k + 1];
		if (e - s != len)
			continue;
		size_t i = 0;
		while (i < len && same_frame(&o->f[s + i], &o->f[last + i]))
			i++;
		if (i == len) {
			o->n = last;
			o->n_cand--;
			return;
		}
	}
}

/* Inner frames the rewriteFrame rules of group [g, ge) remove. */
static long removed_by_rules(const struct pg_entry *g, size_t count, const struct rt_state *st)
{
	long remove = 0;
	for (size_t i = 0; st->throws && i < count; i++)
		for (size_t r = 0; r < g[i].n_rules; r++) {
			const struct pg_rule *rule = &g[i].rules[r];
			bool all = !rule->unknown && rule->n_throws > 0;
			for (size_t t = 0; all && t < rule->n_throws; t++)
				all = strlen(rule->throws[t]) == st->throws_len &&
				      memcmp(rule->throws[t], st->throws, st->throws_len) == 0;
			if (all)
				remove += rule->remove;
		}
	return remove;
}

/* One candidate: the frames of group [g, g + count). */
static bool group_candidate(const hg_proguard *pg, const struct pg_class *c,
			    const struct pg_entry *g, size_t count, long L, const struct rt_state *st,
			    struct rt_out *o)
{
	if (!add_candidate(o))
		return false;
	bool base = is_base(g);
	size_t first = o->n;
	for (size_t i = 0; i < count; i++)
		if (!entry_frame(pg, c, &g[i], line_of(&g[i], base, L), o))
			return false;
	long remove = removed_by_rules(g, count, st);
	if (remove > 0) {
		size_t drop = (size_t)remove < o->n - first ? (size_t)remove : o->n - first;
		memmove(&o->f[first], &o->f[first + drop], (o->n - first - drop) * sizeof *o->f);
		o->n -= drop;
	}
	/* R8 leaves out a synthesized outermost frame (a lambda's, a bridge's). */
	if (o->n - first > 1 && o->f[o->n - 1].synth)
		o->n--;
	if (o->n == first)
		o->n_cand--; /* every frame rewritten away */
	else
		dedupe_last(o);
	return true;
}

/* The groups of the run [e, e + n) into o->group (group k is
 * [group[k], group[k + 1])); returns their count. */
static size_t make_groups(const struct pg_entry *e, size_t n, struct rt_out *o)
{
	size_t count = 0;
	if (!pg_grow((void **)&o->group, &o->cap_group, n + 1, sizeof *o->group))
		return (size_t)-1;
	for (size_t i = 0; i < n; i++)
		if (starts_group(i ? &e[i - 1] : NULL, &e[i]))
			o->group[count++] = i;
	o->group[count] = n;
	return count;
}

/* The line an outline frame stands for (its original position). */
static long outline_position(const struct pg_entry *e, size_t n, long L, struct rt_out *o)
{
	size_t groups = make_groups(e, n, o);
	for (size_t k = 0; groups != (size_t)-1 && k < groups; k++) {
		const struct pg_entry *g = &e[o->group[k]];
		if (!is_base(g) && L >= g->min_start && L <= g->min_end)
			return line_of(g, false, L);
	}
	return PG_NONE;
}

/* The caller line the outline position maps to at obfuscated line L, or
 * PG_NONE. */
static long outline_callsite(const struct pg_entry *e, size_t n, long L, const struct rt_state *st)
{
	long keys[2] = {st->carry_pos, st->carry_raw};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; keys[k] != PG_NONE && i < n; i++) {
			if (!is_base(&e[i]) && (L < e[i].min_start || L > e[i].min_end))
				continue;
			for (size_t p = 0; p < e[i].n_pos; p++)
				if (e[i].pos[p].from == keys[k])
					return e[i].pos[p].to;
		}
	return PG_NONE;
}

static const struct pg_class *find_class(const hg_proguard *const *maps, size_t n_maps,
					 const struct rt_in *in, const hg_proguard **pg, bool *oom)
{
	static const char tag[] = "r8-map-id-";
	const char *id = NULL;
	size_t id_len = 0;
	if (in->file && in->file_len > sizeof tag - 1 && memcmp(in->file, tag, sizeof tag - 1) == 0) {
		id = in->file + sizeof tag - 1;
		id_len = in->file_len - (sizeof tag - 1);
	}
	for (int pass = id ? 0 : 1; pass < 2; pass++)
		for (size_t i = 0; i < n_maps; i++) {
			const char *mid = maps[i]->map_id;
			bool named = id && mid && strlen(mid) == id_len && memcmp(mid, id, id_len) == 0;
			if (pass == 0 ? !named : named)
				continue;
			const struct pg_class *c = pg_find_class(maps[i], in->cls, in->cls_len, oom);
			if (c || *oom) {
				*pg = maps[i];
				return c;
			}
		}
	return NULL;
}

enum rt_status pg_retrace_frame(const hg_proguard *const *maps, size_t n_maps,
				const struct rt_in *in, struct rt_state *st, struct rt_out *o)
{
	bool oom = false;
	const hg_proguard *pg = NULL;
	o->n = o->n_cand = 0;
	o->consumed_outline = false;
	const struct pg_class *c = find_class(maps, n_maps, in, &pg, &oom);
	if (!c) {
		st->carry = false;
		return oom ? RT_ENOMEM : RT_NONE;
	}
	size_t n;
	const struct pg_entry *e = pg_entries(c, in->method, in->method_len, &n);
	long L = in->line;
	bool outline = false;
	for (size_t i = 0; i < n && !st->no_outline; i++)
		outline |= (e[i].flags & PG_OUTLINE) != 0;
	if (outline) {
		st->carry = true;
		st->carry_raw = L;
		st->carry_pos = L == PG_NONE ? PG_NONE : outline_position(e, n, L, o);
		return RT_OUTLINE;
	}
	if (st->carry && n) {
		long to = L == PG_NONE ? PG_NONE : outline_callsite(e, n, L, st);
		if (to != PG_NONE) {
			L = to;
			o->consumed_outline = true;
		}
	}
	st->carry = false;
	if (n == 0) { /* a method the mapping does not list: the class only */
		struct rt_frame *f = add_candidate(o) ? add_frame(o) : NULL;
		if (!f)
			return RT_ENOMEM;
		f->cls = c->orig;
		f->cls_len = strlen(c->orig);
		f->method = in->method;
		f->method_len = in->method_len;
		f->line = L;
		return set_file(pg, c, c->orig, f->cls_len, true, f) ? RT_OK : RT_ENOMEM;
	}
	size_t groups = make_groups(e, n, o);
	if (groups == (size_t)-1)
		return RT_ENOMEM;
	bool any = false, ok = true;
	/* Groups whose range holds the line; else those without a range; else
	 * the methods themselves (the outermost of each group), without a line. */
	for (int pass = L == PG_NONE ? 1 : 0; pass < 2 && !any && ok; pass++)
		for (size_t k = 0; k < groups && ok; k++) {
			const struct pg_entry *g = &e[o->group[k]];
			bool base = is_base(g);
			if (pass == 0 ? base || L < g->min_start || L > g->min_end : !base)
				continue;
			any = true;
			ok = group_candidate(pg, c, g, o->group[k + 1] - o->group[k], L, st, o);
		}
	for (size_t k = 0; k < groups && !any && ok; k++) {
		const struct pg_entry *last = &e[o->group[k + 1] - 1];
		ok = add_candidate(o) && entry_frame(pg, c, last, PG_NONE, o);
		if (ok)
			dedupe_last(o);
	}
	if (!ok)
		return RT_ENOMEM;
	return o->n_cand ? RT_OK : RT_REMOVED;
}
