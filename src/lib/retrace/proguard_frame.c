/* Retrace of one frame: an obfuscated frame to the frames it stands for
 * (the rules are in proguard.h).  The method's inlining stacks ("groups",
 * proguard_groups.c) whose range holds the line are the candidates; an
 * outline frame is carried to its caller, rewriteFrame rules drop inner
 * frames, a synthesized outermost frame is left out.
 *
 * The mapping is untrusted, so a frame's work is bounded: at most
 * HG_PROGUARD_MAX_FRAMES frames come out, and at most PG_MAX_STEPS steps
 * (tree nodes, stacks tried, frames built, rules, positions and frames
 * compared) go in; the groups are found through the class's index, never
 * by reading every entry of a method for every frame.  A cut is a warning
 * (proguard_cut.c). */
#include <stdlib.h>
#include <string.h>

#include "proguard_retrace.h"

void pg_out_release(struct rt_out *o)
{
	free(o->f);
	free(o->cand);
	free(o->cand_hash);
	free(o->match);
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
	if (!pg_grow((void **)&o->cand, &o->cap_cand, o->n_cand + 1, sizeof *o->cand) ||
	    !pg_grow((void **)&o->cand_hash, &o->cap_hash, o->n_cand + 1, sizeof *o->cand_hash))
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

/* Inner frames the rewriteFrame rules of the count entries at g remove (a
 * step per rule). */
static long removed_by_rules(const struct pg_entry *g, size_t count, const struct rt_state *st,
			     struct rt_out *o)
{
	long remove = 0;
	for (size_t i = 0; st->throws && i < count; i++)
		for (size_t r = 0; r < g[i].n_rules; r++) {
			const struct pg_rule *rule = &g[i].rules[r];
			if (!pg_spend(o, 1 + rule->n_throws, g[i].line))
				return remove;
			bool all = !rule->unknown && rule->n_throws > 0;
			for (size_t t = 0; all && t < rule->n_throws; t++)
				all = strlen(rule->throws[t]) == st->throws_len &&
				      memcmp(rule->throws[t], st->throws, st->throws_len) == 0;
			if (all)
				remove += rule->remove;
		}
	return remove;
}

/* Whether another candidate may start: frames and steps (trying it, one
 * frame) left; else the cut is noted, at mapping line `line`. */
static bool room_for(struct rt_out *o, long line)
{
	if (o->n < HG_PROGUARD_MAX_FRAMES && o->steps + 2 <= PG_MAX_STEPS)
		return true;
	pg_note_cut(o, o->n < HG_PROGUARD_MAX_FRAMES ? RT_CUT_STEPS : RT_CUT_CANDIDATES, line);
	return false;
}

/* How many of the count frames of the group at g fit (room_for said one
 * does): the frames and the steps left; a shorter stack is a cut. */
static size_t fitting(const struct pg_entry *g, size_t count, struct rt_out *o)
{
	size_t room = HG_PROGUARD_MAX_FRAMES - o->n, steps = PG_MAX_STEPS - o->steps - 1;
	size_t take = count < room ? count : room;
	if (take > steps) {
		take = steps;
		pg_note_cut(o, RT_CUT_STEPS, g->line);
	} else if (take < count) {
		if (o->cut == RT_CUT_NONE && count > HG_PROGUARD_MAX_FRAMES) {
			o->cut_size = count;
			o->cut_kept = take;
		}
		pg_note_cut(o, count > HG_PROGUARD_MAX_FRAMES ? RT_CUT_INLINE : RT_CUT_CANDIDATES,
			    g->line);
	}
	return take;
}

/* One candidate: the frames of group gi (those that fit, innermost
 * first; room_for said there is room).  False on ENOMEM. */
static bool group_candidate(const hg_proguard *pg, const struct pg_class *c, uint32_t gi, long L,
			    const struct rt_state *st, struct rt_out *o)
{
	const struct pg_entry *g = &c->entries[c->groups[gi].first];
	size_t count = c->groups[gi].count, take = fitting(g, count, o);
	o->steps += 1 + take;
	if (!add_candidate(o))
		return false;
	bool base = pg_is_base(g);
	size_t first = o->n;
	for (size_t i = 0; i < take; i++)
		if (!entry_frame(pg, c, &g[i], line_of(&g[i], base, L), o))
			return false;
	long remove = removed_by_rules(g, take, st, o);
	if (remove > 0) {
		size_t drop = (size_t)remove < o->n - first ? (size_t)remove : o->n - first;
		memmove(&o->f[first], &o->f[first + drop], (o->n - first - drop) * sizeof *o->f);
		o->n -= drop;
	}
	/* R8 leaves out a synthesized outermost frame (a lambda's, a bridge's);
	 * a stack cut short does not show its outermost frame. */
	if (take == count && o->n - first > 1 && o->f[o->n - 1].synth)
		o->n--;
	if (o->n == first)
		o->n_cand--; /* every frame rewritten away */
	else
		pg_dedupe_last(o, g->line);
	return true;
}

/* The groups of run r whose range holds L, into o->match; their count. */
static size_t holding(const struct pg_class *c, const struct pg_run *r, long L, struct rt_out *o)
{
	if (!pg_grow((void **)&o->match, &o->cap_match, HG_PROGUARD_MAX_FRAMES, sizeof *o->match))
		return (size_t)-1;
	bool more = false;
	/* Half the steps at most: the other half builds what was found. */
	size_t n = pg_run_stab(c, r, L, o->match, HG_PROGUARD_MAX_FRAMES, &o->steps,
			       PG_MAX_STEPS / 2, &more);
	if (more)
		pg_note_cut(o, o->steps >= PG_MAX_STEPS / 2 ? RT_CUT_STEPS : RT_CUT_CANDIDATES,
			    c->entries[r->first].line);
	return n;
}

/* The line an outline frame stands for (its original position): of the
 * first group whose range holds L. */
static long outline_position(const struct pg_class *c, const struct pg_run *r, long L,
			     struct rt_out *o)
{
	size_t n = holding(c, r, L, o);
	if (n == 0 || n == (size_t)-1)
		return PG_NONE;
	return line_of(&c->entries[c->groups[o->match[0]].first], false, L);
}

/* The caller line the outline position maps to at obfuscated line L, or
 * PG_NONE: the first position of the entries without a range or whose
 * range holds L, in mapping order, for the position, else for the raw line. */
static long outline_callsite(const struct pg_class *c, const struct pg_run *r, long L,
			     const struct rt_state *st, struct rt_out *o)
{
	size_t k = holding(c, r, L, o);
	if (k == (size_t)-1)
		k = 0;
	const uint32_t *base = c->idx + r->base, *match = o->match;
	long keys[2] = {st->carry_pos, st->carry_raw};
	for (int key = 0; key < 2; key++)
		for (size_t a = 0, b = 0; keys[key] != PG_NONE && (a < r->n_base || b < k);) {
			uint32_t g = b >= k || (a < r->n_base && base[a] < match[b]) ? base[a++]
										 : match[b++];
			const struct pg_entry *e = &c->entries[c->groups[g].first];
			for (size_t i = 0; i < c->groups[g].count; i++) {
				if (!pg_spend(o, 1 + e[i].n_pos, e[i].line))
					return PG_NONE;
				for (size_t p = 0; p < e[i].n_pos; p++)
					if (e[i].pos[p].from == keys[key])
						return e[i].pos[p].to;
			}
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

/* The mapping line of group g. */
static long first_line(const struct pg_class *c, uint32_t g)
{
	return c->entries[c->groups[g].first].line;
}

/* A method the mapping does not list: the class only. */
static enum rt_status class_only(const hg_proguard *pg, const struct pg_class *c,
				 const struct rt_in *in, long L, struct rt_out *o)
{
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

/* The candidates of run r at line L: groups whose range holds the line;
 * else those without a range; else the methods themselves (the outermost
 * of each group, each method once), without a line.  False on ENOMEM. */
static bool candidates(const hg_proguard *pg, const struct pg_class *c, const struct pg_run *r,
		       long L, const struct rt_state *st, struct rt_out *o)
{
	bool any = false, ok = true;
	if (L != PG_NONE) {
		size_t n = holding(c, r, L, o);
		if (n == (size_t)-1)
			return false;
		if (n == 0 && o->cut != RT_CUT_NONE)
			return true; /* the search was cut: no guess without the line */
		any = n > 0;
		for (size_t k = 0; k < n && ok && room_for(o, first_line(c, o->match[k])); k++)
			ok = group_candidate(pg, c, o->match[k], L, st, o);
	}
	const uint32_t *base = c->idx + r->base;
	for (size_t k = 0; !any && k < r->n_base && ok && room_for(o, first_line(c, base[k])); k++)
		ok = group_candidate(pg, c, base[k], L, st, o);
	any |= r->n_base > 0;
	/* The list holds each method once: no candidate to compare with. */
	for (size_t k = 0; !any && k < r->n_fall && ok; k++) {
		const struct pg_group *g = &c->groups[c->idx[r->fall + k]];
		const struct pg_entry *last = &c->entries[g->first + g->count - 1];
		if (!room_for(o, last->line))
			break;
		o->steps += 2;
		ok = add_candidate(o) && entry_frame(pg, c, last, PG_NONE, o);
	}
	return ok;
}

enum rt_status pg_retrace_frame(const hg_proguard *const *maps, size_t n_maps,
				const struct rt_in *in, struct rt_state *st, struct rt_out *o)
{
	bool oom = false;
	const hg_proguard *pg = NULL;
	o->n = o->n_cand = o->steps = 0;
	o->consumed_outline = false;
	o->cut = RT_CUT_NONE;
	memset(o->seen, 0, sizeof o->seen);
	const struct pg_class *c = find_class(maps, n_maps, in, &pg, &oom);
	if (!c) {
		st->carry = false;
		return oom ? RT_ENOMEM : RT_NONE;
	}
	const struct pg_run *r = pg_run_find(c, in->method, in->method_len);
	long L = in->line;
	enum rt_status s = RT_OK;
	if (r && r->outline && !st->no_outline) {
		st->carry = true;
		st->carry_raw = L;
		st->carry_pos = L == PG_NONE ? PG_NONE : outline_position(c, r, L, o);
		s = RT_OUTLINE;
	} else {
		if (st->carry && r) {
			long to = L == PG_NONE ? PG_NONE : outline_callsite(c, r, L, st, o);
			if (to != PG_NONE) {
				L = to;
				o->consumed_outline = true;
			}
		}
		st->carry = false;
		if (!r)
			s = class_only(pg, c, in, L, o);
		else if (!candidates(pg, c, r, L, st, o))
			s = RT_ENOMEM;
		else if (o->n_cand)
			s = RT_OK;
		else /* a cut with nothing found keeps the frame as it is */
			s = o->cut != RT_CUT_NONE ? RT_NONE : RT_REMOVED;
	}
	atomic_fetch_add_explicit(&((hg_proguard *)pg)->steps, o->steps, memory_order_relaxed);
	if (o->cut != RT_CUT_NONE)
		pg_warn_cut(pg, in, o);
	return s;
}
