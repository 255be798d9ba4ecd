/* Keeping the costliest nodes of a tree too big to hold: the k largest of
 * a stream of costs, and a report's own tree capped at ingest (a hostile
 * upload, a million-line stack, made a million-node tree that the batch,
 * the symbol tables and the stored row each held again: 350 MB for 14 MB
 * of input). */
#include <stdlib.h>
#include <string.h>

#include "store_tree_read.h"

/* ---- the k largest ---- */

int store_topk_init(struct store_topk *h, size_t k)
{
	*h = (struct store_topk){NULL, 0, k};
	if (k && !(h->v = malloc(k * sizeof *h->v)))
		return HG_ENOMEM;
	return 0;
}

void store_topk_release(struct store_topk *h)
{
	free(h->v);
	h->v = NULL;
}

static void sift_down(struct store_topk *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->v[l] < h->v[m])
			m = l;
		if (r < h->n && h->v[r] < h->v[m])
			m = r;
		if (m == i)
			return;
		int64_t tmp = h->v[m];
		h->v[m] = h->v[i];
		h->v[i] = tmp;
		i = m;
	}
}

void store_topk_push(struct store_topk *h, int64_t v)
{
	if (h->n < h->k) {
		size_t i = h->n++;
		h->v[i] = v;
		while (i && h->v[i] < h->v[(i - 1) / 2]) {
			size_t p = (i - 1) / 2;
			int64_t tmp = h->v[p];
			h->v[p] = h->v[i];
			h->v[i] = tmp;
			i = p;
		}
	} else if (h->k && v > h->v[0]) {
		h->v[0] = v;
		sift_down(h, 0);
	}
}

int64_t store_topk_floor(const struct store_topk *h)
{
	return !h->k ? INT64_MAX : h->n < h->k ? INT64_MIN : h->v[0];
}

size_t store_topk_above(const struct store_topk *h, int64_t v)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n; i++)
		n += h->v[i] > v;
	return n;
}

/* ---- a report's tree, capped ---- */

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t s;
	return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

/* What was left out under one kept node (or beside the roots). */
struct rest {
	int64_t cost, self;
	bool any;
};

/* The nodes off the key path that are kept: the slots costliest, those
 * counting more than floor and the first `ties` counting it exactly; a
 * node counts its cost, but no more than its parent (so that the nodes
 * kept hang together from the roots: a Matrix stack's costs need not
 * shrink downwards), the key path above all. */
struct costliest {
	size_t slots, ties;
	int64_t floor;
	int64_t *eff;   /* per node */
};

static int find_costliest(const struct store_report_node *nodes, size_t n, struct costliest *c)
{
	struct store_topk top;
	if (store_topk_init(&top, c->slots))
		return HG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct store_report_node *nd = &nodes[i];
		int64_t up = nd->parent < 0 ? INT64_MAX : c->eff[nd->parent];
		c->eff[i] = nd->key ? INT64_MAX : nd->cost < up ? nd->cost : up;
		if (!nd->key)
			store_topk_push(&top, c->eff[i]);
	}
	c->floor = store_topk_floor(&top);
	c->ties = c->slots - store_topk_above(&top, c->floor);
	store_topk_release(&top);
	return 0;
}

/* to[i]: node i's index among the kept, or -2 - k when it was left out
 * under kept node k (-1: beside the roots); rest[k + 1] what was left out
 * there.  Returns how many were kept. */
static size_t choose(const struct store_report_node *nodes, size_t n, size_t cap,
		     struct costliest *best, long *to, struct rest *rest)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		const struct store_report_node *c = &nodes[i];
		long up = c->parent < 0 ? -1 : to[c->parent];
		if (c->parent >= 0 && up < 0) { /* under a node left out: counted with it */
			struct rest *r = &rest[-2 - up + 1];
			to[i] = up;
			r->self = add_sat(r->self, c->self);
			continue;
		}
		int64_t eff = best->eff[i];
		bool tie = !c->key && eff == best->floor && best->ties > 0;
		bool keep = kept < cap && (c->key || eff > best->floor || tie);
		if (keep) {
			to[i] = (long)kept++;
			best->ties -= tie;
			continue;
		}
		to[i] = -2 - up;
		struct rest *r = &rest[up + 1];
		r->cost = add_sat(r->cost, c->cost);
		r->self = add_sat(r->self, c->self);
		r->any = true;
	}
	return kept;
}

int store_tree_cap_report(struct store_report_node **nodes_io, size_t *len_io, hg_arena **arena_io,
			  size_t cap)
{
	const struct store_report_node *nodes = *nodes_io;
	size_t n = *len_io, n_key = 0;
	if (n <= cap)
		return 0;
	for (size_t i = 0; i < n; i++)
		n_key += nodes[i].key;
	/* The key path first: the other nodes fill what it leaves. */
	struct costliest best = {cap - (n_key < cap ? n_key : cap), 0, 0, NULL};
	best.eff = malloc(n * sizeof *best.eff);
	long *to = malloc(n * sizeof *to);
	struct rest *rest = calloc(cap + 1, sizeof *rest);
	hg_arena *arena = hg_arena_create();
	int err = best.eff && to && rest && arena ? find_costliest(nodes, n, &best) : HG_ENOMEM;
	size_t kept = err ? 0 : choose(nodes, n, cap, &best, to, rest), n_rest = 0;
	for (size_t k = 0; k <= kept; k++)
		n_rest += rest[k].any;
	struct store_report_node *out =
		err ? NULL : hg_arena_calloc(arena, kept + n_rest, sizeof *out);
	if (!out)
		err = HG_ENOMEM;
	size_t m = 0;
	for (size_t i = 0; !err && i < n; i++) {
		if (to[i] < 0)
			continue;
		out[m] = nodes[i];
		out[m].parent = nodes[i].parent < 0 ? -1 : to[nodes[i].parent];
		if (!(out[m++].symbol = hg_arena_strdup(arena, nodes[i].symbol)))
			err = HG_ENOMEM;
	}
	/* After every kept node, so that each comes after its parent. */
	for (size_t k = 0; !err && k <= kept; k++)
		if (rest[k].any)
			out[m++] = (struct store_report_node){(long)k - 1, STORE_TREE_LEFT_SYMBOL, 0,
							      rest[k].cost, rest[k].self, false};
	free(best.eff);
	free(to);
	free(rest);
	if (err) {
		hg_arena_destroy(arena);
		return err;
	}
	hg_arena_destroy(*arena_io);
	*arena_io = arena;
	*nodes_io = out;
	*len_io = m;
	return 0;
}
