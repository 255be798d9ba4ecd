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

static int store_nodes(hg_store *store, struct ltree *t, const char *cluster)
{
	for (size_t i = 0; i < t->len; i++) {
		struct lnode *n = &t->nodes[i];
		hg_db_stmt *st = db_stmt(store->db, S_UPSERT_NODE,
			"INSERT INTO tree_nodes(cluster, parent, symbol, reports, total_cost, max_cost,"
			" self_cost, on_key_path) VALUES(?1, ?2, ?3, 1, ?4, ?4, ?5, ?6)"
			" ON CONFLICT(cluster, parent, symbol) DO UPDATE SET reports = reports + 1,"
			" total_cost = total_cost + excluded.total_cost,"
			" max_cost = max(max_cost, excluded.max_cost),"
			" self_cost = self_cost + excluded.self_cost,"
			" on_key_path = on_key_path OR excluded.on_key_path"
			" RETURNING id");
		if (!st)
			return store_fail(store, HG_EIO, "cannot add to a call tree");
		db_bind_text(st, 1, cluster);
		db_bind_int(st, 2, n->parent < 0 ? 0 : t->nodes[n->parent].db_id);
		db_bind_text(st, 3, n->symbol);
		db_bind_int(st, 4, n->cost);
		db_bind_int(st, 5, n->self);
		db_bind_int(st, 6, n->key);
		int rc = db_step(st);
		if (rc == DB_ROW)
			n->db_id = db_col_int(st, 0);
		int rc2 = rc == DB_ROW ? db_step(st) : rc;
		db_reset(st);
		if (rc != DB_ROW || rc2 < 0)
			return store_check(store, rc < 0 ? rc : rc2 < 0 ? rc2 : DB_ERROR,
					   "cannot add to a call tree");
	}
	return 0;
}

int store_tree_add(hg_store *store, const hg_report *rep, const char *cluster)
{
	bool method = rep->has_method_stack && rep->trimmed.len > 0;
	bool thread = rep->threads.blamed >= 0 && (size_t)rep->threads.blamed < rep->threads.n &&
		      rep->threads.items[rep->threads.blamed].n_frames > 0;
	if (!method && !thread)
		return 0;
	hg_arena *arena = hg_arena_create();
	if (!arena)
		return HG_ENOMEM;
	struct ltree t = {0};
	int64_t cost = rep->stack_cost > rep->cost ? rep->stack_cost : rep->cost;
	int err = method ? from_method_stack(rep, arena, &t) : from_thread(rep, cost, arena, &t);
	if (!err)
		err = store_nodes(store, &t, cluster);
	ltree_release(&t);
	hg_arena_destroy(arena);
	return err;
}
