/* The default output: a header and an annotated call tree for a person at
 * a terminal.  Every frame line holds the frame's full symbol and its cost,
 * so grep finds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

#define NONE ((size_t)-1)
#define MAX_GUIDE_LEVELS 40 /* guides stop indenting deeper than this */

/* The tree with what the folding options hide. */
struct view {
	const hg_method_stack *s;
	hg_calltree t;
	size_t n;            /* items; index n is a virtual root over the roots */
	size_t *first;       /* first child, including the virtual root */
	bool *visible;
	bool *on_path;       /* the StackKey and its ancestors */
	size_t *subtree;     /* items in each subtree */
	size_t *last_shown;  /* last visible child of each node */
	size_t *hidden;      /* items folded under each node */
	int64_t *hidden_cost;
	long key;
	int width;           /* of the cost and self columns */
	int digits;          /* of the largest cost */
	int max_level;       /* the deepest visible frame's level */
	/* Fitting --width: compact columns (cost and share only) and guides
	 * two columns a level, at most max_guides levels of them. */
	bool compact;
	size_t max_guides;
	const char *tee, *elbow, *pipe, *blank;
};

#define NAME_ROOM 40 /* columns a frame's name should keep before the columns shrink */

static bool build_view(struct view *v, const hg_report *rep, const hg_render_opts *opts)
{
	v->s = shown_stack(rep, opts);
	v->n = v->s->len;
	v->key = shown_key(rep, opts);
	if (hg_calltree_build(v->s, rep->arena, &v->t) != 0)
		return false;
	size_t n = v->n + 1;
	v->first = hg_arena_calloc(rep->arena, n, sizeof *v->first);
	v->visible = hg_arena_calloc(rep->arena, n, sizeof *v->visible);
	v->on_path = hg_arena_calloc(rep->arena, n, sizeof *v->on_path);
	v->subtree = hg_arena_calloc(rep->arena, n, sizeof *v->subtree);
	v->last_shown = hg_arena_calloc(rep->arena, n, sizeof *v->last_shown);
	v->hidden = hg_arena_calloc(rep->arena, n, sizeof *v->hidden);
	v->hidden_cost = hg_arena_calloc(rep->arena, n, sizeof *v->hidden_cost);
	long *level = hg_arena_calloc(rep->arena, n, sizeof *level);
	if (!v->first || !v->visible || !v->on_path || !v->subtree || !v->last_shown || !v->hidden ||
	    !v->hidden_cost || !level)
		return false;
	v->width = 7;
	for (size_t i = 0; i < v->n; i++) {
		v->first[i] = v->t.first_child[i];
		char digits[16];
		int w = snprintf(digits, sizeof digits, "%d", v->s->items[i].cost);
		if (w > v->width)
			v->width = w;
		if (w > v->digits)
			v->digits = w;
	}
	v->first[v->n] = v->t.first_root;
	for (long k = v->key; k >= 0; k = v->t.parent[k])
		v->on_path[k] = true;
	for (size_t i = 0; i < v->n; i++) {
		long p = v->t.parent[i];
		level[i] = p < 0 ? 0 : level[p] + 1;
		bool fits = (opts->max_depth < 0 || level[i] <= opts->max_depth) &&
			    v->s->items[i].cost >= opts->min_cost;
		/* A frame shows when it fits and its parent shows; the key path
		 * always shows. */
		v->visible[i] = v->on_path[i] || (fits && (p < 0 || v->visible[p]));
		if (v->visible[i] && level[i] > v->max_level)
			v->max_level = (int)level[i];
	}
	for (size_t i = v->n; i-- > 0;) {
		v->subtree[i] += 1;
		long p = v->t.parent[i];
		if (p >= 0)
			v->subtree[p] += v->subtree[i];
	}
	for (size_t i = 0; i < n; i++)
		v->last_shown[i] = NONE;
	for (size_t i = 0; i < v->n; i++) {
		size_t p = v->t.parent[i] < 0 ? v->n : (size_t)v->t.parent[i];
		if (v->visible[i]) {
			v->last_shown[p] = i;
		} else if (p == v->n || v->visible[p]) {
			v->hidden[p] += v->subtree[i];
			v->hidden_cost[p] += v->s->items[i].cost;
		}
	}
	for (size_t i = 0; i < n; i++) { /* fold lines add costs up: fit them too */
		char digits[24];
		int w = snprintf(digits, sizeof digits, "%lld", (long long)v->hidden_cost[i]);
		if (v->hidden[i] && w > v->width)
			v->width = w;
	}
	return true;
}

/* How the columns and guides fit opts->width (0: as ever). */
static void fit_layout(struct view *v, const hg_render_opts *opts, const struct style *st)
{
	v->tee = st->tee, v->elbow = st->elbow, v->pipe = st->pipe, v->blank = st->blank;
	v->max_guides = MAX_GUIDE_LEVELS;
	int w = opts->width;
	if (w <= 0)
		return;
	int full = 2 * v->width + 24; /* cost, share, self, calls, the key-path mark */
	int levels = v->max_level < MAX_GUIDE_LEVELS ? v->max_level : MAX_GUIDE_LEVELS;
	if (full + 3 * levels + NAME_ROOM <= w)
		return;
	v->compact = true;
	v->width = v->digits > 4 ? v->digits : 4; /* "cost" over it */
	v->tee = opts->ascii ? "|-" : "├ ";
	v->elbow = opts->ascii ? "`-" : "└ ";
	v->pipe = opts->ascii ? "| " : "│ ";
	v->blank = "  ";
	/* the guides take at most a third of the width */
	int guides = (w / 3) / 2;
	v->max_guides = guides < 2 ? 2 : (size_t)guides;
}

/* The columns before a frame's guides. */
static size_t columns_cols(const struct view *v)
{
	return v->compact ? (size_t)v->width + 3 + 1 + 4 + 1 + 2 : 2 * (size_t)v->width + 24;
}

static void cost_columns(hg_buf *out, const hg_report *rep, const hg_method_item *it, int64_t self,
			 int width, const struct style *st)
{
	char share[16] = "    -";
	if (rep->stack_cost > 0)
		snprintf(share, sizeof share, "%5.1f", 100.0 * it->cost / (double)rep->stack_cost);
	char calls[24] = "";
	if (it->count > 1)
		snprintf(calls, sizeof calls, "%s%d", st->times, it->count);
	hg_buf_printf(out, "%*d ms %s%s%%%s %*lld ms %*s ", width, it->cost, st->dim, share, st->reset,
		      width, (long long)self, it->count > 1 && !strcmp(st->times, "×") ? 7 : 6, calls);
}

/* Narrow: the cost and its share only, "856 ms 100% ". */
static void compact_columns(hg_buf *out, const hg_report *rep, const hg_method_item *it,
			    int width, const struct style *st)
{
	char share[16] = "   -";
	if (rep->stack_cost > 0)
		snprintf(share, sizeof share, "%3.0f%%", 100.0 * it->cost / (double)rep->stack_cost);
	hg_buf_printf(out, "%*d ms %s%s%s ", width, it->cost, st->dim, share, st->reset);
}

static void frame_line(hg_buf *out, const hg_report *rep, const struct view *v, size_t i,
		       const char *prefix, size_t prefix_len, const char *connector,
		       const hg_render_opts *opts, const struct style *st)
{
	const hg_method_item *it = &v->s->items[i];
	if (v->compact)
		compact_columns(out, rep, it, v->width, st);
	else
		cost_columns(out, rep, it, v->t.self[i], v->width, st);
	hg_buf_puts(out, v->on_path[i] ? "* " : "  ");
	hg_buf_add(out, prefix, prefix_len);
	hg_buf_puts(out, connector);
	const char *sym = item_symbol(rep, it);
	bool is_key = (long)i == v->key;
	hg_buf_puts(out, is_key ? st->key : v->on_path[i] ? st->bold : "");
	int avail = 0;
	if (opts->width > 0) {
		avail = opts->width - (int)(columns_cols(v) + render_cols(prefix, prefix_len) +
					    render_cols(connector, strlen(connector)) +
					    (is_key ? render_cols(st->key_tag, strlen(st->key_tag)) : 0));
		avail = avail > HG_RENDER_MIN_ROOM ? avail : HG_RENDER_MIN_ROOM;
	}
	char calls[24] = ""; /* narrow, the calls come after the name */
	if (v->compact && it->count > 1)
		snprintf(calls, sizeof calls, " %s%d", st->times, it->count);
	avail -= avail ? (int)render_cols(calls, strlen(calls)) : 0;
	if (sym)
		hg_render_fit_symbol(out, "", sym, avail > HG_RENDER_MIN_ROOM || !avail ? avail : HG_RENDER_MIN_ROOM,
				  st->ellipsis);
	else
		hg_buf_printf(out, "#%d", it->id);
	hg_buf_puts(out, calls);
	hg_buf_puts(out, is_key || v->on_path[i] ? st->reset : "");
	if (is_key)
		hg_buf_printf(out, "%s%s%s", st->key, st->key_tag, st->reset);
	hg_buf_putc(out, '\n');
}

static void fold_line(hg_buf *out, size_t count, int64_t cost, const struct view *v,
		      const char *prefix, size_t prefix_len, const char *connector,
		      const struct style *st)
{
	int width = v->width;
	hg_buf_printf(out, "%*lld ms %s", width, (long long)cost, st->dim);
	if (v->compact)
		hg_buf_printf(out, "%4s   ", "");
	else
		hg_buf_printf(out, "%6s %*s %6s   ", "", width + 3, "", "");
	hg_buf_add(out, prefix, prefix_len);
	hg_buf_puts(out, connector);
	hg_buf_printf(out, "... %zu frame%s folded%s\n", count, count == 1 ? "" : "s", st->reset);
}

/* Walks the visible tree without recursion (stacks can be very deep). */
static void draw(hg_buf *out, const hg_report *rep, const struct view *v,
		 const hg_render_opts *opts, const struct style *st)
{
	struct level {
		size_t parent, next, prefix_len;
	};
	struct level *stack = malloc((v->n + 1) * sizeof *stack);
	hg_buf prefix;
	hg_buf_init(&prefix);
	if (!stack)
		return;
	size_t depth = 0;
	stack[depth++] = (struct level){v->n, v->first[v->n], 0};
	while (depth > 0) {
		struct level *lv = &stack[depth - 1];
		size_t p = lv->parent;
		while (lv->next != NONE && !v->visible[lv->next])
			lv->next = v->t.next_sibling[lv->next];
		bool top = p == v->n;
		/* stack[k] holds k - 1 levels of guides: deeper, they stop */
		size_t shown_len = lv->prefix_len;
		if (!top && depth - 2 > v->max_guides)
			shown_len = stack[v->max_guides + 1].prefix_len;
		if (lv->next == NONE) {
			if (v->hidden[p])
				fold_line(out, v->hidden[p], v->hidden_cost[p], v, prefix.data, shown_len,
					  top ? "" : v->elbow, st);
			depth--;
			continue;
		}
		size_t i = lv->next;
		lv->next = v->t.next_sibling[i];
		bool last = i == v->last_shown[p] && !v->hidden[p];
		prefix.len = lv->prefix_len;
		frame_line(out, rep, v, i, prefix.data, shown_len, top ? "" : last ? v->elbow : v->tee,
			   opts, st);
		render_flush_point(out, opts);
		if (v->first[i] != NONE) {
			if (!top)
				hg_buf_puts(&prefix, last ? v->blank : v->pipe);
			stack[depth++] = (struct level){i, v->first[i], prefix.len};
		}
	}
	free(stack);
	hg_buf_release(&prefix);
}

/* The header lines about the method stack. */
static void stack_header(hg_buf *out, const hg_report *rep, const struct view *v,
			 const struct style *st)
{
	if (rep->cost_unknown || rep->cost <= 0) /* unknown, not 0 */
		hg_buf_printf(out, "%-11s — (stack cost %lld ms)\n", "cost", (long long)rep->stack_cost);
	else
		hg_buf_printf(out, "%-11s %lld ms (stack cost %lld ms)\n", "cost", (long long)rep->cost,
			      (long long)rep->stack_cost);
	if (v->key >= 0) {
		const hg_method_item *k = &v->s->items[v->key];
		const char *sym = item_symbol(rep, k);
		hg_buf b;
		hg_buf_init(&b);
		int avail = st->width > 12 + HG_RENDER_MIN_ROOM ? st->width - 12 : st->width ? HG_RENDER_MIN_ROOM : 0;
		if (sym) {
			hg_render_fit_symbol(&b, "", sym, avail, st->ellipsis);
			hg_buf_printf(&b, "  (#%d)", k->id);
		} else {
			hg_buf_printf(&b, "#%d", k->id);
		}
		size_t name_len = b.len;
		hg_buf_printf(&b, "  %d ms at depth %d", k->cost, k->depth);
		hg_buf line;
		hg_buf_init(&line);
		hg_render_wrap(&line, "StackKey    ", "            ", b.data, b.len, st->width);
		/* the key's colour over its name, as ever */
		if (!line.failed && !b.failed && line.len > 12 + name_len) {
			hg_buf_printf(out, "StackKey    %s%.*s%s%.*s", st->key, (int)name_len, line.data + 12,
				      st->reset, (int)(line.len - 12 - name_len), line.data + 12 + name_len);
		} else {
			out->failed |= line.failed | b.failed;
		}
		hg_buf_release(&line);
		hg_buf_release(&b);
	} else {
		hg_buf_printf(out, "%-11s (none: the stack is empty)\n", "StackKey");
	}
	hg_buf_printf(out, "%-11s %s, %zu frame%s%s\n", "stack",
		      rep->from_buffer ? "rebuilt from the buffer" : "as the device sent it",
		      rep->full.len, rep->full.len == 1 ? "" : "s",
		      rep->from_buffer && rep->full.len != rep->trimmed.len
		      ? (v->s == &rep->full ? " (untrimmed)" : "; trimmed to Matrix's 30") : "");
	if (!rep->symbols && rep->full.len > 0)
		hg_buf_printf(out, "%-11s none: frames show method ids (see -m)\n", "mapping");
}

void render_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts)
{
	struct style st = render_style(opts);
	if (rep->error)
		return; /* already reported on stderr, with its position */
	struct view v = {0};
	if (rep->has_method_stack && !build_view(&v, rep, opts)) {
		out->failed = 1;
		return;
	}
	render_header(out, rep, &st);
	if (rep->has_method_stack)
		stack_header(out, rep, &v, &st);
	render_header_rest(out, rep, &st);
	if (rep->has_method_stack) {
		if (v.n == 0) {
			hg_buf_puts(out, "\n(empty stack)\n");
		} else {
			fit_layout(&v, opts, &st);
			if (v.compact)
				hg_buf_printf(out, "\n%s%*s %4s   %s%s\n", st.dim, v.width + 3, "cost", "share",
					      "frame", st.reset);
			else
				hg_buf_printf(out, "\n%s%*s %6s %*s %6s   %s%s\n", st.dim, v.width + 3,
					      "cost", "share", v.width + 3, "self", "calls", "frame",
					      st.reset);
			draw(out, rep, &v, opts, &st);
		}
	}
	if (rep->threads.n)
		render_threads_tree(out, rep, opts, &st);
	else if (rep->recrash) /* the crash handler's own crash, and its images */
		render_images_tree(out, rep, opts, &st);
	if (rep->n_stats)
		render_stats_tree(out, rep, &st);
	hg_buf_putc(out, '\n');
}
