/* The tree of a report's stack samples (hangar/samples.h), for a person and
 * as JSON.  The text draws it as the method tree is drawn (render_tree.c):
 * the same guides, compact columns and capped guides when it must fit a
 * width, the heaviest path (the blamed thread) marked with '*'.  Every
 * line holds the whole frame when there is no width, so grep finds it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/samples.h"
#include "render_internal.h"

#define NONE HG_SAMPLE_NONE
#define MAX_GUIDE_LEVELS 40 /* guides stop indenting deeper than this */
#define NAME_ROOM 40        /* columns a frame should keep before the columns shrink */

struct view {
	const hg_sample_tree *t;
	bool *blamed;           /* on the blamed thread's path */
	int width;              /* of the samples column */
	bool compact;           /* narrow: the share without its decimal, guides two columns */
	size_t max_guides;
	const char *tee, *elbow, *pipe, *blank;
};

static void fit_layout(struct view *v, const hg_render_opts *opts, const struct style *st)
{
	char digits[24];
	int w = snprintf(digits, sizeof digits, "%" PRId64, v->t->total);
	v->width = w > 7 ? w : 7; /* "samples" over it */
	v->tee = st->tee, v->elbow = st->elbow, v->pipe = st->pipe, v->blank = st->blank;
	v->max_guides = MAX_GUIDE_LEVELS;
	if (opts->width <= 0)
		return;
	size_t deepest = 0;
	for (size_t i = 0; i < v->t->n; i++)
		deepest = v->t->nodes[i].depth > deepest ? v->t->nodes[i].depth : deepest;
	int levels = deepest < MAX_GUIDE_LEVELS ? (int)deepest : MAX_GUIDE_LEVELS;
	if (v->width + 10 + 3 * levels + NAME_ROOM <= opts->width)
		return;
	v->compact = true;
	v->tee = opts->ascii ? "|-" : "├ ";
	v->elbow = opts->ascii ? "`-" : "└ ";
	v->pipe = opts->ascii ? "| " : "│ ";
	v->blank = "  ";
	int guides = (opts->width / 3) / 2; /* at most a third of the width */
	v->max_guides = guides < 2 ? 2 : (size_t)guides;
}

/* The columns before a frame's guides. */
static size_t columns_cols(const struct view *v)
{
	return (size_t)v->width + (v->compact ? 9 : 10);
}

static void node_line(hg_buf *out, const struct view *v, size_t i, const char *prefix,
		      size_t prefix_len, const char *connector, const hg_render_opts *opts,
		      const struct style *st)
{
	const hg_sample_node *nd = &v->t->nodes[i];
	double share = v->t->total > 0 ? 100.0 * (double)nd->total / (double)v->t->total : 0;
	if (v->compact)
		hg_buf_printf(out, "%*" PRId64 " %s%4.0f%%%s ", v->width, nd->total, st->dim, share,
			      st->reset);
	else
		hg_buf_printf(out, "%*" PRId64 " %s%5.1f%%%s ", v->width, nd->total, st->dim, share,
			      st->reset);
	bool marked = v->blamed && v->blamed[i];
	hg_buf_puts(out, marked ? "* " : "  ");
	hg_buf_add(out, prefix, prefix_len);
	hg_buf_puts(out, connector);
	int avail = 0;
	if (opts->width > 0) {
		avail = opts->width - (int)(columns_cols(v) + render_cols(prefix, prefix_len) +
					    render_cols(connector, strlen(connector)));
		avail = avail > HG_RENDER_MIN_ROOM ? avail : HG_RENDER_MIN_ROOM;
	}
	hg_buf_puts(out, marked ? st->bold : "");
	render_frame_text(out, nd->frame, avail, st->ellipsis);
	hg_buf_puts(out, marked ? st->reset : "");
	hg_buf_putc(out, '\n');
}

/* The nodes in their (pre-)order; a node's guides are its ancestors': a
 * pipe under one that has a next sibling, else blank. */
static void draw(hg_buf *out, const struct view *v, const hg_render_opts *opts,
		 const struct style *st)
{
	const hg_sample_tree *t = v->t;
	size_t *level_len = malloc((t->n + 2) * sizeof *level_len); /* prefix bytes at each depth */
	hg_buf prefix;
	hg_buf_init(&prefix);
	if (!level_len) {
		out->failed = 1;
		return;
	}
	level_len[0] = level_len[1] = 0;
	for (size_t i = 0; i < t->n; i++) {
		const hg_sample_node *nd = &t->nodes[i];
		size_t d = nd->depth;
		prefix.len = level_len[d];
		/* depth d holds d - 1 levels of guides: deeper, they stop */
		size_t shown = d >= 1 && d - 1 > v->max_guides ? level_len[v->max_guides + 1] : prefix.len;
		bool last = nd->next_sibling == NONE;
		node_line(out, v, i, prefix.data ? prefix.data : "", shown,
			  d == 0 ? "" : last ? v->elbow : v->tee, opts, st);
		render_flush_point(out, opts);
		if (nd->first_child != NONE) {
			if (d > 0)
				hg_buf_puts(&prefix, last ? v->blank : v->pipe);
			level_len[d + 1] = prefix.len;
		}
	}
	out->failed |= prefix.failed;
	hg_buf_release(&prefix);
	free(level_len);
}

/* Marks the nodes of the blamed thread's path (malloc'd; NULL when it has
 * none in the tree, or out of memory). */
static bool *blamed_path(const hg_report *rep, const hg_sample_tree *t)
{
	long b = rep->threads.blamed;
	if (b < 0 || (size_t)b >= rep->threads.n)
		return NULL;
	size_t at = hg_sample_tree_find(t, &rep->threads.items[b]);
	bool *on = at != NONE ? calloc(t->n, sizeof *on) : NULL;
	for (; on && at != NONE; at = t->nodes[at].parent)
		on[at] = true;
	return on;
}

/* Whether the samples' times were written as a person reads them (not
 * bare counts: a profile's uptime). */
static bool readable_time(const char *t)
{
	return t && strspn(t, "0123456789") != strlen(t);
}

/* "samples     3 over 1600 ms (03-18 14:22:01.963 to 03-18 14:22:03.563), one every 800 ms" */
static void summary(hg_buf *out, const hg_report *rep, const hg_sample_tree *t,
		    const struct style *st)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_printf(&b, "%" PRId64, t->total);
	if ((int64_t)t->samples != t->total) /* weighted: a call-stack tree's paths */
		hg_buf_printf(&b, " in %zu stack%s", t->samples, t->samples == 1 ? "" : "s");
	if (t->timed >= 2) {
		hg_buf_printf(&b, " over %" PRId64 " ms", t->last_at - t->first_at);
		const char *first = NULL, *last = NULL;
		for (size_t i = 0; i < rep->n_samples; i++)
			if (rep->samples[i].at == t->first_at && !first)
				first = rep->samples[i].time;
			else if (rep->samples[i].at == t->last_at)
				last = rep->samples[i].time;
		if (readable_time(first) && readable_time(last))
			hg_buf_printf(&b, " (%s to %s)", first, last);
	}
	if (rep->sample_interval > 0)
		hg_buf_printf(&b, ", one every %" PRId64 " ms", rep->sample_interval);
	if (t->empty > 0)
		hg_buf_printf(&b, "; %" PRId64 " without frames", t->empty);
	render_meta_line(out, "samples", b.failed || !b.data ? "" : b.data, st);
	out->failed |= b.failed;
	hg_buf_release(&b);
}

bool render_samples_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 const struct style *st, bool *marked)
{
	*marked = false;
	hg_arena *a = hg_arena_create();
	hg_sample_tree t;
	if (!a || hg_report_sample_tree(rep, a, &t) != 0) {
		hg_arena_destroy(a);
		out->failed = 1;
		return false;
	}
	bool drawn = t.n > 0;
	if (drawn) {
		struct view v = {.t = &t, .blamed = blamed_path(rep, &t)};
		*marked = v.blamed != NULL;
		fit_layout(&v, opts, st);
		summary(out, rep, &t, st);
		if (v.compact)
			hg_buf_printf(out, "%s%*s %5s   %s%s\n", st->dim, v.width, "samples", "share",
				      "frame", st->reset);
		else
			hg_buf_printf(out, "%s%*s %6s   %s%s\n", st->dim, v.width, "samples", "share",
				      "frame", st->reset);
		draw(out, &v, opts, st);
		free(v.blamed);
	}
	hg_arena_destroy(a);
	return drawn;
}

/* ---- JSON ---- */

static void json_at(hg_buf *out, const char *key, int64_t at)
{
	hg_buf_printf(out, ",\"%s\":", key);
	if (at >= 0)
		hg_buf_int(out, at);
	else
		hg_buf_puts(out, "null");
}

static void items_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	hg_buf_puts(out, ",\"items\":[");
	for (size_t i = 0; i < rep->n_samples; i++) {
		const hg_sample *s = &rep->samples[i];
		hg_buf_puts(out, i ? ",{\"time\":" : "{\"time\":");
		if (s->time)
			hg_buf_json_string(out, s->time, strlen(s->time));
		else
			hg_buf_puts(out, "null");
		json_at(out, "at", s->at);
		hg_buf_puts(out, ",\"weight\":");
		hg_buf_int(out, s->weight);
		hg_buf_puts(out, ",\"thread\":");
		hg_buf_int(out, s->thread);
		hg_buf_putc(out, '}');
		render_flush_point(out, opts);
	}
	hg_buf_putc(out, ']');
}

static void tree_json(hg_buf *out, const hg_report *rep, const hg_sample_tree *t,
		      const hg_render_opts *opts)
{
	bool *blamed = blamed_path(rep, t);
	hg_buf label;
	hg_buf_init(&label);
	hg_buf_puts(out, ",\"tree\":[");
	for (size_t i = 0; i < t->n; i++) {
		const hg_sample_node *nd = &t->nodes[i];
		hg_buf_puts(out, i ? ",{\"parent\":" : "{\"parent\":");
		if (nd->parent == NONE)
			hg_buf_puts(out, "null");
		else
			hg_buf_int(out, (int64_t)nd->parent);
		hg_buf_puts(out, ",\"depth\":");
		hg_buf_int(out, (int64_t)nd->depth);
		hg_buf_puts(out, ",\"samples\":");
		hg_buf_int(out, nd->total);
		hg_buf_puts(out, ",\"self\":");
		hg_buf_int(out, nd->self);
		hg_buf_puts(out, ",\"thread\":");
		hg_buf_int(out, nd->thread);
		hg_buf_puts(out, ",\"frame\":");
		hg_buf_int(out, (int64_t)nd->frame_index);
		hg_buf_reset(&label);
		render_frame_text(&label, nd->frame, 0, "…");
		hg_buf_puts(out, ",\"label\":");
		hg_buf_json_string(out, label.data ? label.data : "", label.len);
		hg_buf_puts(out, nd->heaviest ? ",\"heaviest\":true" : ",\"heaviest\":false");
		hg_buf_puts(out, blamed && blamed[i] ? ",\"blamed\":true}" : ",\"blamed\":false}");
		render_flush_point(out, opts);
	}
	hg_buf_putc(out, ']');
	out->failed |= label.failed;
	hg_buf_release(&label);
	free(blamed);
}

void render_samples_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	hg_buf_puts(out, ",\"samples\":");
	if (rep->n_samples == 0) {
		hg_buf_puts(out, "null");
		return;
	}
	hg_arena *a = hg_arena_create();
	hg_sample_tree t;
	if (!a || hg_report_sample_tree(rep, a, &t) != 0) {
		hg_arena_destroy(a);
		hg_buf_puts(out, "null");
		out->failed = 1;
		return;
	}
	hg_buf_puts(out, "{\"count\":");
	hg_buf_int(out, (int64_t)t.samples);
	hg_buf_puts(out, ",\"weight\":");
	hg_buf_int(out, t.total);
	hg_buf_puts(out, ",\"without_frames\":");
	hg_buf_int(out, t.empty);
	hg_buf_puts(out, ",\"interval_ms\":");
	if (rep->sample_interval > 0)
		hg_buf_int(out, rep->sample_interval);
	else
		hg_buf_puts(out, "null");
	json_at(out, "first_at", t.first_at);
	json_at(out, "last_at", t.last_at);
	/* the blamed thread is a path of the tree (its heaviest, or a MetricKit
	 * tree's attributed call stack's), not a thread the app had */
	hg_buf_puts(out, ",\"blamed_thread\":");
	if (t.n > 0 && rep->threads.blamed >= 0)
		hg_buf_int(out, rep->threads.blamed);
	else
		hg_buf_puts(out, "null");
	items_json(out, rep, opts);
	tree_json(out, rep, &t, opts);
	hg_buf_putc(out, '}');
	hg_arena_destroy(a);
}
