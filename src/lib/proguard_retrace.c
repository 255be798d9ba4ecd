/* Retrace: one obfuscated frame to the frames it stands for (the rules are
 * in proguard.h), then applied to a report's threads and to text lines. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proguard_internal.h"

/* ---- one frame ---- */

struct rt_in {
	const char *cls, *method, *file; /* file may be NULL */
	size_t cls_len, method_len, file_len;
	long line;                       /* PG_NONE when absent */
};

struct rt_frame {
	const char *cls, *method; /* not NUL-terminated in general */
	size_t cls_len, method_len;
	const char *file;         /* the whole name, or NULL: base + ext */
	const char *base, *ext;
	size_t base_len;
	long line;
	bool synth;
};

struct rt_out {
	struct rt_frame *f;
	size_t n, cap;
	size_t *cand;             /* index in f where each candidate starts */
	size_t n_cand, cap_cand;
	size_t *group;            /* scratch: entry index where each group starts */
	size_t cap_group;
	bool consumed_outline;    /* the carried outline position was used */
};

struct rt_state {
	bool carry;               /* an outline frame came just before */
	long carry_pos, carry_raw;
	const char *throws;       /* descriptor thrown, for the first frame after an exception line */
	size_t throws_len;
	bool no_outline;          /* retrace an outline frame as an ordinary one */
};

enum rt_status { RT_NONE, RT_OK, RT_OUTLINE, RT_REMOVED, RT_ENOMEM };

static void rt_out_release(struct rt_out *o)
{
	free(o->f);
	free(o->cand);
	free(o->group);
	memset(o, 0, sizeof *o);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
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
	if (!grow((void **)&o->f, &o->cap, o->n + 1, sizeof *o->f))
		return NULL;
	memset(&o->f[o->n], 0, sizeof *o->f);
	return &o->f[o->n++];
}

static bool add_candidate(struct rt_out *o)
{
	if (!grow((void **)&o->cand, &o->cap_cand, o->n_cand + 1, sizeof *o->cand))
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
	if (!grow((void **)&o->group, &o->cap_group, n + 1, sizeof *o->group))
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

static enum rt_status retrace_frame(const hg_proguard *const *maps, size_t n_maps,
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

/* ---- a report's threads ---- */

struct frames_vec {
	hg_frame *items;
	size_t n, cap;
};

static char *frame_file(hg_arena *arena, const struct rt_frame *f)
{
	if (f->file)
		return hg_arena_strdup(arena, f->file);
	return hg_arena_printf(arena, "%.*s%s", (int)f->base_len, f->base, f->ext);
}

static int emit_result(struct frames_vec *v, hg_arena *arena, const hg_frame *from,
		       const struct rt_out *o)
{
	for (size_t i = 0; i < o->n; i++) {
		if (!grow((void **)&v->items, &v->cap, v->n + 1, sizeof *v->items))
			return HG_ENOMEM;
		const struct rt_frame *f = &o->f[i];
		hg_frame *t = &v->items[v->n++];
		memset(t, 0, sizeof *t);
		t->kind = HG_FRAME_JAVA;
		t->cls = hg_arena_strndup(arena, f->cls, f->cls_len);
		t->method = hg_arena_strndup(arena, f->method, f->method_len);
		bool native = from->file && strcasecmp(from->file, "Native Method") == 0;
		t->file = native ? from->file : frame_file(arena, f);
		t->line = native ? -1 : f->line == PG_NONE ? -1 : f->line;
		t->repeat = from->repeat;
		t->text = from->text;
		t->retraced = true;
		t->alternative = o->n_cand > 1;
		if (!t->cls || !t->method || !t->file)
			return HG_ENOMEM;
	}
	return 0;
}

static int push_frame(struct frames_vec *v, const hg_frame *f)
{
	if (!grow((void **)&v->items, &v->cap, v->n + 1, sizeof *v->items))
		return HG_ENOMEM;
	v->items[v->n++] = *f;
	return 0;
}

static void frame_in(const hg_frame *f, struct rt_in *in)
{
	in->cls = f->cls;
	in->cls_len = strlen(f->cls);
	in->method = f->method;
	in->method_len = strlen(f->method);
	in->file = f->file;
	in->file_len = f->file ? strlen(f->file) : 0;
	in->line = f->line < 0 ? PG_NONE : f->line;
}

/* The frame at index pending (an outline no caller used), retraced as an
 * ordinary frame. */
static int flush_outline(const hg_proguard *const *maps, size_t n_maps, const hg_frame *f,
			 struct rt_out *o, struct frames_vec *v, hg_arena *arena)
{
	struct rt_state st = {.no_outline = true};
	struct rt_in in;
	frame_in(f, &in);
	enum rt_status s = retrace_frame(maps, n_maps, &in, &st, o);
	if (s == RT_ENOMEM)
		return HG_ENOMEM;
	return s == RT_OK ? emit_result(v, arena, f, o) : s == RT_NONE ? push_frame(v, f) : 0;
}

static int retrace_thread(hg_thread *t, hg_arena *arena, const hg_proguard *const *maps,
			  size_t n_maps, struct rt_out *o, struct rt_out *o2)
{
	struct frames_vec v = {0};
	struct rt_state st = {0};
	const hg_frame *pending = NULL;
	int rc = 0;
	for (size_t i = 0; i < t->n_frames && rc == 0; i++) {
		const hg_frame *f = &t->frames[i];
		if (f->kind != HG_FRAME_JAVA || !f->cls || !f->method) {
			if (pending)
				rc = flush_outline(maps, n_maps, pending, o2, &v, arena);
			pending = NULL;
			st.carry = false;
			rc = rc ? rc : push_frame(&v, f);
			continue;
		}
		struct rt_in in;
		frame_in(f, &in);
		enum rt_status s = retrace_frame(maps, n_maps, &in, &st, o);
		if (s == RT_ENOMEM) {
			rc = HG_ENOMEM;
			break;
		}
		if (pending && (s == RT_OUTLINE || !o->consumed_outline))
			rc = flush_outline(maps, n_maps, pending, o2, &v, arena);
		pending = s == RT_OUTLINE ? f : NULL;
		if (rc == 0 && s == RT_OK)
			rc = emit_result(&v, arena, f, o);
		else if (rc == 0 && s == RT_NONE)
			rc = push_frame(&v, f);
	}
	if (rc == 0 && pending)
		rc = flush_outline(maps, n_maps, pending, o2, &v, arena);
	if (rc == 0 && v.n) {
		hg_frame *items = hg_arena_calloc(arena, v.n, sizeof *items);
		if (!items)
			rc = HG_ENOMEM;
		else {
			memcpy(items, v.items, v.n * sizeof *items);
			t->frames = items;
			t->n_frames = t->cap_frames = v.n;
		}
	} else if (rc == 0) {
		t->n_frames = 0;
	}
	free(v.items);
	return rc;
}

/* A lock's class: "a.b", "java.lang.Class<a.b>", "a.b[]": the name renamed
 * in place of its core; NULL when no mapping knows it. */
static const char *rename_type(const hg_proguard *const *maps, size_t n_maps, const char *s,
			       size_t len, hg_buf *out)
{
	static const char klass[] = "java.lang.Class<";
	size_t pre = 0, post = 0;
	if (len > sizeof klass && memcmp(s, klass, sizeof klass - 1) == 0 && s[len - 1] == '>') {
		pre = sizeof klass - 1;
		post = 1;
	}
	while (len - pre - post >= 2 && s[len - post - 1] == ']' && s[len - post - 2] == '[')
		post += 2;
	if (len <= pre + post)
		return NULL;
	for (size_t i = 0; i < n_maps; i++) {
		const char *orig = hg_proguard_class(maps[i], s + pre, len - pre - post);
		if (orig) {
			hg_buf_add(out, s, pre);
			hg_buf_puts(out, orig);
			hg_buf_add(out, s + len - post, post);
			return out->failed ? NULL : orig;
		}
	}
	return NULL;
}

static int rename_lock(hg_lock *l, hg_arena *arena, const hg_proguard *const *maps, size_t n_maps)
{
	if (!l->cls)
		return 0;
	hg_buf b;
	hg_buf_init(&b);
	int rc = 0;
	if (rename_type(maps, n_maps, l->cls, strlen(l->cls), &b)) {
		char *s = hg_arena_strndup(arena, b.data, b.len);
		if (!s)
			rc = HG_ENOMEM;
		else
			l->cls = s;
	}
	hg_buf_release(&b);
	return rc;
}

int hg_report_retrace(hg_report *rep, const hg_proguard *const *maps, size_t n_maps)
{
	if (!rep || !n_maps || rep->error)
		return 0;
	struct rt_out o = {0}, o2 = {0};
	int rc = 0;
	for (size_t i = 0; i < rep->threads.n && rc == 0; i++) {
		hg_thread *t = &rep->threads.items[i];
		rc = retrace_thread(t, rep->arena, maps, n_maps, &o, &o2);
		for (size_t k = 0; k < t->n_held && rc == 0; k++)
			rc = rename_lock(&t->held[k], rep->arena, maps, n_maps);
		if (rc == 0)
			rc = rename_lock(&t->waiting, rep->arena, maps, n_maps);
	}
	rt_out_release(&o);
	rt_out_release(&o2);
	return rc;
}


/* ---- text ---- */

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

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

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
	return i == start || blank(s[i - 1]) || s[i - 1] == '"' ||
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
			while (j < b && blank(s[j]))
				j++;
		if (!frame_at(s, j, b, f))
			continue;
		size_t k = f->close + 1;
		if (!json)
			while (k < b && (blank(s[k]) || s[k] == '\r'))
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
		r = retrace_frame(s->maps, s->n_maps, &in, &st, &s->o2);
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
	while (p < n && blank(s[p]))
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
	while (k < n && (blank(s[k]) || s[k] == '\r'))
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
	while (p < n && blank(b[p]))
		p++;
	if (n - p < 2 || b[p] != '-' || b[p + 1] != ' ')
		return false;
	for (size_t i = p; i + 3 < n; i++) {
		if (memcmp(b + i, "(a ", 3) != 0)
			continue;
		size_t c = i + 3, e = c;
		while (e < n && b[e] != ')' && !blank(b[e]))
			e++;
		if (e >= n || b[e] != ')')
			return false;
		size_t before = out->len;
		hg_buf_add(out, b, c);
		if (!rename_type(s->maps, s->n_maps, b + c, e - c, out)) {
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
		enum rt_status r = retrace_frame(s->maps, s->n_maps, &in, &s->st, &s->o);
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
	while (p < n && blank(b[p]))
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
			enum rt_status r = retrace_frame(s->maps, s->n_maps, &in, &st, &s->o);
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
	rt_out_release(&s->o);
	rt_out_release(&s->o2);
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
