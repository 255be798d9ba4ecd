/* Retrace of a report (hg_report_retrace): each thread's Java frames
 * replaced by the frames they stand for (an outline frame waits for its
 * caller, the next frame), and the classes of locks renamed. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proguard_retrace.h"

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
	size_t c = 0; /* the candidate frame i belongs to, 0-based */
	for (size_t i = 0; i < o->n; i++) {
		while (c + 1 < o->n_cand && o->cand[c + 1] <= i)
			c++;
		if (!pg_grow((void **)&v->items, &v->cap, v->n + 1, sizeof *v->items))
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
		t->candidate = o->n_cand > 1 ? (int)c + 1 : 0;
		if (!t->cls || !t->method || !t->file)
			return HG_ENOMEM;
	}
	return 0;
}

static int push_frame(struct frames_vec *v, const hg_frame *f)
{
	if (!pg_grow((void **)&v->items, &v->cap, v->n + 1, sizeof *v->items))
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
	enum rt_status s = pg_retrace_frame(maps, n_maps, &in, &st, o);
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
	/* end[i]: the frames old frames 0..i became, to keep each lock line
	 * under the frame it was written under */
	size_t *end = t->n_locks ? calloc(t->n_frames ? t->n_frames : 1, sizeof *end) : NULL;
	if (t->n_locks && !end)
		return HG_ENOMEM;
	for (size_t i = 0; i < t->n_frames && rc == 0; i++) {
		if (end && i)
			end[i - 1] = v.n;
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
		enum rt_status s = pg_retrace_frame(maps, n_maps, &in, &st, o);
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
	size_t n_old = t->n_frames;
	if (end && n_old)
		end[n_old - 1] = v.n;
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
	if (rc == 0 && end)
		hg_thread_remap_locks(t, end, n_old);
	free(end);
	free(v.items);
	return rc;
}

/* A lock's class: "a.b", "java.lang.Class<a.b>", "a.b[]": the name renamed
 * in place of its core; NULL when no mapping knows it. */
const char *pg_rename_type(const hg_proguard *const *maps, size_t n_maps, const char *s,
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
	if (pg_rename_type(maps, n_maps, l->cls, strlen(l->cls), &b)) {
		char *s = hg_arena_strndup(arena, b.data, b.len);
		if (!s)
			rc = HG_ENOMEM;
		else
			l->cls = s;
	}
	hg_buf_release(&b);
	return rc;
}

/* The R8 map id the report's frames name ("r8-map-id-<id>" as source
 * file), or NULL: the first one. */
static const char *report_map_id(const hg_report *rep)
{
	static const char tag[] = "r8-map-id-";
	for (size_t i = 0; i < rep->threads.n; i++) {
		const hg_thread *t = &rep->threads.items[i];
		for (size_t k = 0; k < t->n_frames; k++) {
			const char *file = t->frames[k].file;
			if (file && strncmp(file, tag, sizeof tag - 1) == 0 && file[sizeof tag - 1])
				return file + sizeof tag - 1;
		}
	}
	return NULL;
}

/* A report built with another mapping than those given retraces into
 * wrong names without a sign: say so, naming both ids. */
static int check_map_id(hg_report *rep, const hg_proguard *const *maps, size_t n_maps)
{
	const char *id = report_map_id(rep);
	const hg_proguard *other = NULL;
	for (size_t i = 0; id && i < n_maps; i++) {
		if (maps[i]->map_id && strcmp(maps[i]->map_id, id) == 0)
			return 0;
		if (maps[i]->map_id && !other)
			other = maps[i];
	}
	if (!other)
		return 0; /* no id to compare with: nothing to say */
	return hg_strlist_addf(&rep->warnings, rep->arena, "the report's frames name R8 map id %.80s "
			       "(r8-map-id-... source files), but %s has pg_map_id %.80s%s: the names "
			       "may be wrong", id, other->name ? other->name : "the mapping",
			       other->map_id, n_maps > 1 ? " (and no mapping given has the report's)"
							 : "");
}

int hg_report_retrace(hg_report *rep, const hg_proguard *const *maps, size_t n_maps)
{
	if (!rep || !n_maps || rep->error)
		return 0;
	struct rt_out o = {0}, o2 = {0};
	int rc = check_map_id(rep, maps, n_maps);
	for (size_t i = 0; i < rep->threads.n && rc == 0; i++) {
		hg_thread *t = &rep->threads.items[i];
		rc = retrace_thread(t, rep->arena, maps, n_maps, &o, &o2);
		for (size_t k = 0; k < t->n_held && rc == 0; k++)
			rc = rename_lock(&t->held[k], rep->arena, maps, n_maps);
		if (rc == 0)
			rc = rename_lock(&t->waiting, rep->arena, maps, n_maps);
		for (size_t k = 0; k < t->n_locks && rc == 0; k++)
			rc = rename_lock(&t->locks[k].lock, rep->arena, maps, n_maps);
	}
	pg_out_release(&o);
	pg_out_release(&o2);
	return rc;
}
