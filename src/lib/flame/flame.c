/* Module flame (src/lib/flame/): flame graphs.  One weighted call tree
 * (hg_flame) built from a report's method stack or thread stacks
 * (flame_build.c) or from a cluster's merged tree (flame_build_tree.c)
 * or its StackKey's callers (flame_callers.c, flame_callers_key.c), and
 * the writers that export it: collapsed stacks (flame_folded.c), the
 * speedscope file format (flame_speedscope.c), Chrome's Trace Event Format
 * (flame_chrome.c).  This file holds what builders and writers share:
 * settling widths, children lists, pre-order and the timeline.
 * Public header: flame.h.
 * Uses: core, demangle, report, stack, store. */
#include <stdlib.h>
#include <string.h>

#include "flame_internal.h"

size_t flame_push(struct flame_nodes *b, const hg_flame_node *node)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		if (cap > SIZE_MAX / sizeof *b->v)
			return FLAME_NONE;
		hg_flame_node *v = hg_arena_regrow(b->arena, b->v, b->cap * sizeof *v, cap * sizeof *v);
		if (!v)
			return FLAME_NONE;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n] = *node;
	return b->n++;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

void flame_settle(hg_flame *f)
{
	/* Children come after their parent, so one backward pass sees every
	 * child before its parent; self holds the children's sum meanwhile. */
	for (size_t i = 0; i < f->n; i++) {
		if (f->nodes[i].total < 0)
			f->nodes[i].total = 0;
		f->nodes[i].self = 0;
	}
	f->total = 0;
	for (size_t i = f->n; i-- > 0;) {
		hg_flame_node *nd = &f->nodes[i];
		int64_t kids = nd->self;
		if (nd->total < kids)
			nd->total = kids;
		nd->self = nd->total - kids;
		if (nd->parent == HG_FLAME_NO_PARENT)
			f->total = add_sat(f->total, nd->total);
		else
			f->nodes[nd->parent].self = add_sat(f->nodes[nd->parent].self, nd->total);
	}
}

void flame_mark_key(hg_flame *f, long key)
{
	f->key = key;
	for (size_t i = key < 0 ? HG_FLAME_NO_PARENT : (size_t)key; i != HG_FLAME_NO_PARENT;
	     i = f->nodes[i].parent)
		f->nodes[i].key = true;
}

int flame_kids_build(const hg_flame *f, flame_kids *k)
{
	size_t cap = f->n ? f->n : 1;
	size_t *last = malloc(cap * sizeof *last);
	k->first = malloc(cap * sizeof *k->first);
	k->next = malloc(cap * sizeof *k->next);
	k->first_root = FLAME_NONE;
	if (!last || !k->first || !k->next) {
		free(last);
		flame_kids_release(k);
		return HG_ENOMEM;
	}
	size_t last_root = FLAME_NONE;
	for (size_t i = 0; i < f->n; i++) {
		k->first[i] = k->next[i] = last[i] = FLAME_NONE;
		size_t p = f->nodes[i].parent;
		size_t *tail = p == FLAME_NONE ? &last_root : &last[p];
		size_t *head = p == FLAME_NONE ? &k->first_root : &k->first[p];
		if (*tail == FLAME_NONE)
			*head = i;
		else
			k->next[*tail] = i;
		*tail = i;
	}
	free(last);
	return 0;
}

void flame_kids_release(flame_kids *k)
{
	free(k->first);
	free(k->next);
	k->first = k->next = NULL;
}

size_t *flame_preorder(const hg_flame *f, const flame_kids *k)
{
	size_t cap = f->n ? f->n : 1;
	size_t *order = malloc(cap * sizeof *order);
	size_t *todo = malloc(cap * sizeof *todo); /* the next siblings still to visit */
	if (!order || !todo) {
		free(order);
		free(todo);
		return NULL;
	}
	size_t n = 0, ntodo = 0;
	for (size_t i = k->first_root; i != FLAME_NONE;) {
		order[n++] = i;
		if (k->first[i] != FLAME_NONE) {
			if (k->next[i] != FLAME_NONE)
				todo[ntodo++] = k->next[i];
			i = k->first[i];
		} else {
			i = k->next[i];
			if (i == FLAME_NONE && ntodo > 0)
				i = todo[--ntodo];
		}
	}
	free(todo);
	return order;
}

/* Lays out the children of p (whose start is set) between its start and
 * its end. */
static void layout_children(const hg_flame *f, const flame_kids *k, size_t p, int64_t *start)
{
	int64_t left = 0; /* the totals of this child and the later ones */
	for (size_t c = k->first[p]; c != FLAME_NONE; c = k->next[c])
		left = add_sat(left, f->nodes[c].total);
	int64_t end = add_sat(start[p], f->nodes[p].total), at = start[p];
	for (size_t c = k->first[p]; c != FLAME_NONE; c = k->next[c]) {
		const hg_flame_node *nd = &f->nodes[c];
		int64_t s = nd->begin >= 0 ? nd->begin : at;
		/* settled widths make children fit: at + left <= end */
		if (s > end - left)
			s = end - left;
		if (s < at)
			s = at;
		start[c] = s;
		at = add_sat(s, nd->total);
		left -= nd->total;
	}
}

int flame_layout(const hg_flame *f, const flame_kids *k, bool roots_apart, int64_t *start)
{
	size_t *order = flame_preorder(f, k);
	if (!order)
		return HG_ENOMEM;
	int64_t at = 0;
	for (size_t r = k->first_root; r != FLAME_NONE; r = k->next[r]) {
		int64_t b = f->nodes[r].begin;
		start[r] = roots_apart ? 0 : b > at ? b : at;
		if (!roots_apart)
			at = add_sat(start[r], f->nodes[r].total);
	}
	for (size_t i = 0; i < f->n; i++)
		layout_children(f, k, order[i], start);
	free(order);
	return 0;
}

const char *flame_unit_name(enum hg_flame_unit unit)
{
	switch (unit) {
	case HG_FLAME_MS: return "ms";
	case HG_FLAME_SAMPLES: return "samples";
	case HG_FLAME_THREADS: return "threads";
	}
	return "ms";
}
