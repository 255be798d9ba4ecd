/* A cluster's merged call tree (hangar show's): copied, ordered by cost,
 * pruned, walked without recursion (a thread dump's tree can be thousands
 * of frames deep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/render.h"

#define NO_PARENT ((size_t)-1)

void hg_cluster_tree_init(hg_cluster_tree *t)
{
	memset(t, 0, sizeof *t);
}

void hg_cluster_tree_release(hg_cluster_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->nodes[i].symbol);
	free(t->nodes);
	free(t->children);
	free(t->roots);
	hg_cluster_tree_init(t);
}

/* The index of the node with this id: nodes come in id order. */
static size_t find_id(const hg_cluster_tree *t, int64_t id)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->nodes[mid].id == id)
			return mid;
		if (t->nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NO_PARENT;
}

int hg_cluster_tree_add(void *user, const hg_tree_row *row)
{
	hg_cluster_tree *t = user;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		hg_cluster_node *v = realloc(t->nodes, cap * sizeof *v);
		if (!v)
			return HG_ENOMEM;
		t->nodes = v;
		t->cap = cap;
	}
	if (t->n && row->id <= t->nodes[t->n - 1].id)
		return HG_EPARSE;
	size_t parent = row->parent > 0 ? find_id(t, row->parent) : NO_PARENT;
	if (row->parent > 0 && parent == NO_PARENT)
		return HG_EPARSE;
	char *symbol = strdup(row->symbol ? row->symbol : "");
	if (!symbol)
		return HG_ENOMEM;
	t->nodes[t->n++] = (hg_cluster_node){
		.id = row->id, .parent = row->parent, .reports = row->reports,
		.total = row->total_cost, .max = row->max_cost, .self = row->self_cost,
		.key = row->on_key_path, .symbol = symbol, .parent_at = parent,
		.depth = parent == NO_PARENT ? 0 : t->nodes[parent].depth + 1, .subtree = 1};
	return 0;
}

/* The reading's reasons as the tree's. */
static unsigned pruned_bits(unsigned left_why)
{
	return ((left_why & HG_TREE_LEFT_COST) ? HG_PRUNED_COST : 0) |
	       ((left_why & HG_TREE_LEFT_DEPTH) ? HG_PRUNED_DEPTH : 0) |
	       ((left_why & HG_TREE_LEFT_CAP) ? HG_PRUNED_CAP : 0);
}

int hg_cluster_tree_left(void *user, const hg_tree_left *left)
{
	hg_cluster_tree *t = user;
	int64_t *nodes = &t->roots_hidden_nodes, *cost = &t->roots_hidden_cost;
	unsigned *whys = &t->roots_hidden_why;
	if (left->parent != 0) {
		size_t at = find_id(t, left->parent);
		if (at == NO_PARENT)
			return HG_EPARSE;
		hg_cluster_node *p = &t->nodes[at];
		nodes = &p->hidden_nodes;
		cost = &p->hidden_cost;
		whys = &p->hidden_why;
		p->subtree += (size_t)left->nodes; /* hidden with it, if it is */
	}
	*nodes += left->nodes;
	*cost += left->cost;
	*whys |= pruned_bits(left->why);
	return 0;
}

/* Children grouped by parent, each group in the order of before()
 * below: costliest first. */
struct order {
	size_t parent, at;
	int64_t total, reports, id;
	const char *symbol;
};

static int by_cost(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->reports != y->reports)
		return x->reports > y->reports ? -1 : 1;
	int c = strcmp(x->symbol, y->symbol);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int order_children(hg_cluster_tree *t)
{
	struct order *o = t->n ? malloc(t->n * sizeof *o) : NULL;
	t->children = t->n ? malloc(t->n * sizeof *t->children) : NULL;
	if (t->n && (!o || !t->children)) {
		free(o);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		o[i] = (struct order){t->nodes[i].parent_at, i, t->nodes[i].total,
				      t->nodes[i].reports, t->nodes[i].id, t->nodes[i].symbol};
	if (t->n > 1)
		qsort(o, t->n, sizeof *o, by_cost);
	size_t k = 0;
	for (; k < t->n && o[k].parent != NO_PARENT; k++) {
		t->children[k] = o[k].at;
		hg_cluster_node *p = &t->nodes[o[k].parent];
		if (p->n_children++ == 0)
			p->first = k;
	}
	t->n_roots = t->n - k;
	t->roots = t->n_roots ? malloc(t->n_roots * sizeof *t->roots) : NULL;
	if (t->n_roots && !t->roots) {
		free(o);
		return HG_ENOMEM;
	}
	t->total_cost = t->roots_hidden_cost; /* roots left out when read */
	for (size_t r = 0; k < t->n; k++, r++) {
		t->roots[r] = o[k].at;
		t->total_cost += o[k].total;
	}
	free(o);
	return 0;
}

/* Whether node a comes before b: costlier, then more reports, then by
 * frame text and id (the same order on every run). */
static bool before(const hg_cluster_node *a, const hg_cluster_node *b)
{
	if (a->total != b->total)
		return a->total > b->total;
	if (a->reports != b->reports)
		return a->reports > b->reports;
	int c = strcmp(a->symbol, b->symbol);
	return c ? c < 0 : a->id < b->id;
}

/* The StackKey path: from the roots down, the key-path child most
 * reports pass through (then the costliest), as long as there is one.  A
 * thread-stack cluster marks each report's whole stack; this is the path
 * they share most. */
static void mark_key_path(hg_cluster_tree *t)
{
	const size_t *group = t->roots;
	size_t n = t->n_roots;
	for (;;) {
		hg_cluster_node *best = NULL;
		for (size_t i = 0; i < n; i++) {
			hg_cluster_node *c = &t->nodes[group[i]];
			if (c->key && (!best || c->reports > best->reports ||
				       (c->reports == best->reports && before(c, best))))
				best = c;
		}
		if (!best)
			return;
		best->keep = true;
		group = t->children + best->first;
		n = best->n_children;
	}
}

/* A binary heap of node indexes, the node that comes first on top. */
struct heap {
	size_t *at, n;
	const hg_cluster_node *nodes;
};

static bool heap_less(const struct heap *h, size_t i, size_t j)
{
	return before(&h->nodes[h->at[i]], &h->nodes[h->at[j]]);
}

static void heap_push(struct heap *h, size_t node)
{
	size_t i = h->n++;
	h->at[i] = node;
	while (i && heap_less(h, i, (i - 1) / 2)) {
		size_t p = (i - 1) / 2, tmp = h->at[p];
		h->at[p] = h->at[i];
		h->at[i] = tmp;
		i = p;
	}
}

static size_t heap_pop(struct heap *h)
{
	size_t top = h->at[0], i = 0;
	h->at[0] = h->at[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_less(h, l, m))
			m = l;
		if (r < h->n && heap_less(h, r, m))
			m = r;
		if (m == i)
			return top;
		size_t tmp = h->at[m];
		h->at[m] = h->at[i];
		h->at[i] = tmp;
		i = m;
	}
}

/* Why node c is left out (0: it is shown), when the tree shows `shown`
 * nodes so far. */
static unsigned reason(const hg_cluster_tree *t, const hg_cluster_tree_opts *o,
		       const hg_cluster_node *c)
{
	if (c->keep)
		return 0;
	if (o->max_depth > 0 && c->depth >= o->max_depth)
		return HG_PRUNED_DEPTH;
	if (c->total < t->min_cost)
		return HG_PRUNED_COST;
	if (o->limit > 0 && t->shown >= (size_t)o->limit)
		return HG_PRUNED_LIMIT;
	return 0;
}

/* Counts a hidden node (its whole subtree) with its parent. */
static void hide(hg_cluster_tree *t, const hg_cluster_node *c, unsigned why)
{
	int64_t *nodes = &t->roots_hidden_nodes, *cost = &t->roots_hidden_cost;
	unsigned *whys = &t->roots_hidden_why;
	if (c->parent_at != NO_PARENT) {
		hg_cluster_node *p = &t->nodes[c->parent_at];
		nodes = &p->hidden_nodes;
		cost = &p->hidden_cost;
		whys = &p->hidden_why;
	}
	*nodes += (int64_t)c->subtree;
	*cost += c->total;
	*whys |= why;
}

int hg_cluster_tree_prune(hg_cluster_tree *t, const hg_cluster_tree_opts *o)
{
	int err = order_children(t);
	if (err)
		return err;
	for (size_t i = t->n; i-- > 0;) { /* children before parents */
		hg_cluster_node *c = &t->nodes[i];
		if (c->parent_at != NO_PARENT)
			t->nodes[c->parent_at].subtree += c->subtree;
	}
	mark_key_path(t);
	if (o->min_cost >= 0) {
		t->min_cost = o->min_cost;
	} else { /* rounded up: 2% of 99 ms is 2 ms, which 1.98 ms would not reach */
		double share = o->min_share * (double)t->total_cost;
		t->min_cost = (int64_t)share;
		t->min_cost += (double)t->min_cost < share;
	}
	/* The key path counts against --limit, so that it is the costliest
	 * nodes besides it that fill it. */
	for (size_t i = 0; i < t->n; i++)
		t->shown += t->nodes[i].keep;
	/* Best first: the costliest node whose parent is shown, until the
	 * limit; a node left out hides its subtree, and the rest of the
	 * queue is only counted. */
	struct heap h = {t->n ? malloc(t->n * sizeof *h.at) : NULL, 0, t->nodes};
	if (t->n && !h.at)
		return HG_ENOMEM;
	for (size_t i = 0; i < t->n_roots; i++)
		heap_push(&h, t->roots[i]);
	while (h.n) {
		hg_cluster_node *c = &t->nodes[heap_pop(&h)];
		unsigned why = reason(t, o, c);
		if (why) {
			hide(t, c, why);
			continue;
		}
		t->shown += !c->keep;
		c->shown = true;
		for (size_t k = 0; k < c->n_children; k++)
			heap_push(&h, t->children[c->first + k]);
	}
	free(h.at);
	return 0;
}

/* Depth first with a stack of frames: a node, then its shown children,
 * then what was hidden under it. */
struct frame {
	size_t at;       /* node index; NO_PARENT: the roots */
	size_t next;     /* the next child to look at */
};

int hg_cluster_tree_walk(const hg_cluster_tree *t, const hg_cluster_visitor *v)
{
	size_t cap = 64, top = 0;
	struct frame *stack = malloc(cap * sizeof *stack);
	if (!stack)
		return HG_ENOMEM;
	stack[top++] = (struct frame){NO_PARENT, 0};
	while (top) {
		struct frame *f = &stack[top - 1];
		const hg_cluster_node *p = f->at == NO_PARENT ? NULL : &t->nodes[f->at];
		const size_t *group = p ? t->children + p->first : t->roots;
		size_t n = p ? p->n_children : t->n_roots;
		while (f->next < n && !t->nodes[group[f->next]].shown)
			f->next++;
		if (f->next == n) {
			int64_t nodes = p ? p->hidden_nodes : t->roots_hidden_nodes;
			if (nodes)
				v->hidden(v->user, p, p ? p->depth + 1 : 0, nodes,
					  p ? p->hidden_cost : t->roots_hidden_cost,
					  p ? p->hidden_why : t->roots_hidden_why);
			top--;
			continue;
		}
		size_t at = group[f->next++];
		v->node(v->user, &t->nodes[at]);
		if (top == cap) {
			struct frame *s = realloc(stack, 2 * cap * sizeof *s);
			if (!s) {
				free(stack);
				return HG_ENOMEM;
			}
			stack = s;
			cap *= 2;
		}
		stack[top++] = (struct frame){at, 0};
	}
	free(stack);
	return 0;
}

void hg_cluster_tree_why(const hg_cluster_tree_opts *o, int64_t min_cost, unsigned why, char *buf,
		   size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	if (why & HG_PRUNED_COST) {
		if (o->min_cost >= 0)
			used += (size_t)snprintf(buf + used, size - used, "below %lld ms",
						 (long long)min_cost);
		else
			used += (size_t)snprintf(buf + used, size - used,
						 "below %g%% of the cost (%lld ms)", o->min_share * 100,
						 (long long)min_cost);
	}
	if ((why & HG_PRUNED_LIMIT) && used < size)
		used += (size_t)snprintf(buf + used, size - used, "%spast the %ld costliest",
					 used ? ", " : "", o->limit);
	if ((why & HG_PRUNED_DEPTH) && used < size)
		used += (size_t)snprintf(buf + used, size - used, "%sdeeper than %ld level%s",
					 used ? ", " : "", o->max_depth, o->max_depth == 1 ? "" : "s");
	if ((why & HG_PRUNED_CAP) && used < size)
		snprintf(buf + used, size - used, "%snot among the %zu read (--max-nodes)",
			 used ? ", " : "", o->max_nodes);
}
