/* The merged call tree of a cluster: each report's tree is first merged
 * with itself (a method called twice from one parent is one node), then
 * added to the cluster's nodes, so that a node's `reports` counts each
 * report passing through it once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

struct lnode {
	long parent;       /* local index, -1 for a root */
	const char *symbol;
	int64_t cost, self;
	bool key;
	int64_t db_id;
};

struct ltree {
	struct lnode *nodes;
	size_t len, cap;
	size_t *slots;     /* open addressing: node index + 1, 0 empty */
	size_t mask;
};

static size_t hash_key(long parent, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(parent + 1);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* Room for n nodes; 0 or HG_ENOMEM. */
static int ltree_init(struct ltree *t, size_t n)
{
	size_t slots = 16;
	while (slots < 2 * n + 2)
		slots *= 2;
	*t = (struct ltree){calloc(n ? n : 1, sizeof *t->nodes), 0, n, calloc(slots, sizeof(size_t)),
			    slots - 1};
	return t->nodes && t->slots ? 0 : HG_ENOMEM;
}

static void ltree_release(struct ltree *t)
{
	free(t->nodes);
	free(t->slots);
}

/* The node (parent, symbol), added if new; cap is never exceeded because
 * there are at most as many nodes as items. */
static long ltree_node(struct ltree *t, long parent, const char *symbol)
{
	size_t i = hash_key(parent, symbol) & t->mask;
	for (; t->slots[i]; i = (i + 1) & t->mask) {
		struct lnode *n = &t->nodes[t->slots[i] - 1];
		if (n->parent == parent && strcmp(n->symbol, symbol) == 0)
			return (long)(t->slots[i] - 1);
	}
	if (t->len == t->cap)
		return -1;
	t->nodes[t->len] = (struct lnode){parent, symbol, 0, 0, false, 0};
	t->slots[i] = ++t->len;
	return (long)(t->len - 1);
}

static int from_method_stack(const hg_report *rep, hg_arena *arena, struct ltree *t)
{
	const hg_method_stack *s = &rep->trimmed;
	hg_calltree tree;
	long *map = hg_arena_calloc(arena, s->len, sizeof *map);
	if (!map || hg_calltree_build(s, arena, &tree) != 0 || ltree_init(t, s->len))
		return HG_ENOMEM;
	for (size_t i = 0; i < s->len; i++) {
		const hg_method_item *it = &s->items[i];
		const char *sym = NULL;
		if (rep->symbols && it->origin < rep->full.len)
			sym = rep->symbols[it->origin];
		if (!sym)
			sym = hg_arena_printf(arena, "#%ld", (long)it->id);
		if (!sym)
			return HG_ENOMEM;
		long parent = tree.parent[i] < 0 ? -1 : map[tree.parent[i]];
		long n = ltree_node(t, parent, sym);
		if (n < 0)
			return HG_ENOMEM;
		map[i] = n;
		t->nodes[n].cost += it->cost;
		t->nodes[n].self += tree.self[i];
	}
	if (rep->key_index >= 0 && (size_t)rep->key_index < s->len)
		for (long j = rep->key_index; j >= 0; j = tree.parent[j])
			t->nodes[map[j]].key = true;
	return 0;
}

static const char *frame_symbol(const hg_frame *f, hg_arena *arena)
{
	if (f->kind == HG_FRAME_JAVA && f->cls && f->method)
		return hg_arena_printf(arena, "%s.%s", f->cls, f->method);
	if (f->method)
		return f->method;
	if (f->symbol)
		return f->symbol;
	return f->text ? f->text : "?";
}

/* The blamed thread from its outermost frame (root) to its innermost, each
 * node costing the report's cost; the whole path leads to the top frame. */
static int from_thread(const hg_report *rep, int64_t cost, hg_arena *arena, struct ltree *t)
{
	const hg_thread *th = &rep->threads.items[rep->threads.blamed];
	if (ltree_init(t, th->n_frames))
		return HG_ENOMEM;
	long parent = -1;
	for (size_t k = th->n_frames; k-- > 0;) {
		const char *sym = frame_symbol(&th->frames[k], arena);
		if (!sym)
			return HG_ENOMEM;
		long n = ltree_node(t, parent, sym);
		if (n < 0)
			return HG_ENOMEM;
		t->nodes[n].cost += cost;
		t->nodes[n].self += k == 0 ? cost : 0;
		t->nodes[n].key = true;
		parent = n;
	}
	return 0;
}

/* The batch's pending additions: one node per (cluster, parent, symbol),
 * in first-seen order, so that parents come before their children and new
 * nodes get ids in the order reports brought them. */
struct bnode {
	const char *cluster;   /* in the batch arena */
	long parent;           /* batch index, -1 for a root */
	int64_t symbol;        /* symbols.id: interned, so nodes hold no text */
	int64_t reports, total, max, self;
	bool key;
	int64_t db_id;         /* at flush: its place among its cluster's additions */
};

struct tree_batch {
	hg_arena *arena;
	struct bnode *nodes;
	size_t len, cap;
	size_t *slots;         /* open addressing: node index + 1, 0 empty */
	size_t mask;
	const char *cluster;   /* the last cluster interned */
};

/* A child is known by its parent (which fixes the cluster) and symbol; a
 * root by its cluster and symbol. */
static size_t hash_bkey(const char *cluster, long parent, int64_t symbol)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(parent + 1);
	if (parent < 0)
		for (; *cluster; cluster++)
			h = (h ^ (unsigned char)*cluster) * 1099511628211ULL;
	h = (h ^ (uint64_t)symbol) * 1099511628211ULL;
	h ^= h >> 32;
	return (size_t)(h * 0x9E3779B97F4A7C15ULL >> 17);
}

static int batch_grow(struct tree_batch *b)
{
	size_t cap = b->cap ? b->cap * 2 : 1024;
	struct bnode *n = realloc(b->nodes, cap * sizeof *n);
	if (!n)
		return HG_ENOMEM;
	b->nodes = n;
	size_t nslots = 2 * cap;
	size_t *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return HG_ENOMEM;
	free(b->slots);
	b->slots = slots;
	b->mask = nslots - 1;
	b->cap = cap;
	for (size_t k = 0; k < b->len; k++) {
		size_t i = hash_bkey(n[k].cluster, n[k].parent, n[k].symbol) & b->mask;
		while (b->slots[i])
			i = (i + 1) & b->mask;
		b->slots[i] = k + 1;
	}
	return 0;
}

/* The batch node (cluster, parent, symbol), added if new; -1 on ENOMEM. */
static long batch_node(struct tree_batch *b, const char *cluster, long parent, int64_t symbol)
{
	if (b->len == b->cap && batch_grow(b))
		return -1;
	size_t i = hash_bkey(cluster, parent, symbol) & b->mask;
	for (; b->slots[i]; i = (i + 1) & b->mask) {
		struct bnode *n = &b->nodes[b->slots[i] - 1];
		if (n->parent == parent && n->symbol == symbol &&
		    (parent >= 0 || n->cluster == cluster || strcmp(n->cluster, cluster) == 0))
			return (long)(b->slots[i] - 1);
	}
	b->nodes[b->len] = (struct bnode){cluster, parent, symbol, 0, 0, 0, 0, false, 0};
	b->slots[i] = ++b->len;
	return (long)(b->len - 1);
}

size_t hg_store_pending(const hg_store *store)
{
	return store->tree ? store->tree->len : 0;
}

void store_tree_discard(hg_store *store)
{
	struct tree_batch *b = store->tree;
	if (!b)
		return;
	hg_arena_destroy(b->arena);
	free(b->nodes);
	free(b->slots);
	free(b);
	store->tree = NULL;
}

/* Adds a report's self-merged tree to the batch: nodes first (all or
 * nothing as far as the sums go: a node left at 0 reports is not written),
 * then the sums. */
static int batch_add(hg_store *store, struct ltree *t, const char *cluster)
{
	struct tree_batch *b = store->tree;
	if (!b) {
		b = calloc(1, sizeof *b);
		if (!b || !(b->arena = hg_arena_create())) {
			free(b);
			return HG_ENOMEM;
		}
		store->tree = b;
	}
	if (!b->cluster || strcmp(b->cluster, cluster) != 0) {
		const char *c = hg_arena_strdup(b->arena, cluster);
		if (!c)
			return HG_ENOMEM;
		b->cluster = c;
	}
	for (size_t i = 0; i < t->len; i++) {
		struct lnode *n = &t->nodes[i];
		long parent = n->parent < 0 ? -1 : (long)t->nodes[n->parent].db_id;
		int64_t symbol;
		int err = store_symbol_id(store, n->symbol, &symbol);
		if (err)
			return err;
		long k = batch_node(b, b->cluster, parent, symbol);
		if (k < 0)
			return HG_ENOMEM;
		n->db_id = k;
	}
	for (size_t i = 0; i < t->len; i++) {
		struct lnode *n = &t->nodes[i];
		struct bnode *bn = &b->nodes[n->db_id];
		bn->reports++;
		bn->total += n->cost;
		if (bn->reports == 1 || n->cost > bn->max)
			bn->max = n->cost;
		bn->self += n->self;
		bn->key = bn->key || n->key;
	}
	return 0;
}

/* The batch's nodes sorted cluster by cluster, each cluster's in batch
 * order (parents first). */
struct by_cluster {
	const char *cluster;
	size_t index;
};

static int by_cluster(const void *pa, const void *pb)
{
	const struct by_cluster *a = pa, *b = pb;
	int c = a->cluster == b->cluster ? 0 : strcmp(a->cluster, b->cluster);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* Writes the pending additions: each cluster's stored tree read, merged
 * with them and written back (store_tree_json.c). */
int store_tree_flush(hg_store *store)
{
	struct tree_batch *b = store->tree;
	if (!b)
		return 0;
	struct by_cluster *order = malloc((b->len ? b->len : 1) * sizeof *order);
	struct store_tree_add *adds = malloc((b->len ? b->len : 1) * sizeof *adds);
	int err = order && adds ? 0 : HG_ENOMEM;
	for (size_t i = 0; !err && i < b->len; i++)
		order[i] = (struct by_cluster){b->nodes[i].cluster, i};
	if (!err)
		qsort(order, b->len, sizeof *order, by_cluster);
	for (size_t start = 0, end; !err && start < b->len; start = end) {
		const char *cluster = order[start].cluster;
		for (end = start; end < b->len; end++) {
			struct bnode *n = &b->nodes[order[end].index];
			if (n->cluster != cluster && strcmp(n->cluster, cluster) != 0)
				break;
			/* db_id: the node's place in this cluster's list of additions. */
			n->db_id = (int64_t)(end - start);
			adds[end - start] = (struct store_tree_add){
				n->parent < 0 ? -1 : (long)b->nodes[n->parent].db_id, n->symbol,
				n->reports, n->total, n->max, n->self, n->key, 0};
		}
		int64_t cluster_id;
		err = store_cluster_id(store, cluster, &cluster_id);
		if (!err)
			err = store_tree_merge(store, cluster_id, cluster, adds, end - start);
	}
	free(order);
	free(adds);
	store_tree_discard(store);
	return err;
}

/* A report's self-merged tree, made without the store (store_tree_prepare)
 * and added to the batch later (store_tree_add_prepared). */
struct store_tree_prep {
	hg_arena *arena;   /* "#id" symbols */
	struct ltree t;
};

void store_tree_prep_destroy(struct store_tree_prep *p)
{
	if (!p)
		return;
	ltree_release(&p->t);
	hg_arena_destroy(p->arena);
	free(p);
}

int store_tree_prepare(const hg_report *rep, struct store_tree_prep **out)
{
	*out = NULL;
	bool method = rep->has_method_stack && rep->trimmed.len > 0;
	bool thread = rep->threads.blamed >= 0 && (size_t)rep->threads.blamed < rep->threads.n &&
		      rep->threads.items[rep->threads.blamed].n_frames > 0;
	if (!method && !thread)
		return 0;
	struct store_tree_prep *p = calloc(1, sizeof *p);
	if (!p || !(p->arena = hg_arena_create())) {
		free(p);
		return HG_ENOMEM;
	}
	int64_t cost = rep->stack_cost > rep->cost ? rep->stack_cost : rep->cost;
	int err = method ? from_method_stack(rep, p->arena, &p->t)
			 : from_thread(rep, cost, p->arena, &p->t);
	if (err) {
		store_tree_prep_destroy(p);
		return err;
	}
	*out = p;
	return 0;
}

int store_tree_add_prepared(hg_store *store, struct store_tree_prep *p, const char *cluster)
{
	return p ? batch_add(store, &p->t, cluster) : 0;
}

int store_tree_add(hg_store *store, const hg_report *rep, const char *cluster)
{
	struct store_tree_prep *p;
	int err = store_tree_prepare(rep, &p);
	if (!err)
		err = store_tree_add_prepared(store, p, cluster);
	store_tree_prep_destroy(p);
	return err;
}
