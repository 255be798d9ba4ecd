/* The flame of a cluster's merged tree, from the store's rows. */
#include <string.h>

#include "flame_internal.h"

struct hg_flame_tree_builder {
	struct flame_nodes nodes;
	long *depth;          /* per node, to find the deepest StackKey node */
	size_t cap_depth;
	/* store id -> node index, open addressing; 0 is no id (ids start at 1) */
	int64_t *ids;
	size_t *index;
	size_t mask, used;
	int failed;           /* HG_ENOMEM once it ran out */
};

hg_flame_tree_builder *hg_flame_tree_builder_create(hg_arena *arena)
{
	hg_flame_tree_builder *b = hg_arena_calloc(arena, 1, sizeof *b);
	if (b)
		b->nodes.arena = arena;
	return b;
}

static size_t slot_of(const hg_flame_tree_builder *b, int64_t id)
{
	size_t h = (size_t)((uint64_t)id * 0x9e3779b97f4a7c15u) & b->mask;
	while (b->ids[h] != 0 && b->ids[h] != id)
		h = (h + 1) & b->mask;
	return h;
}

/* Doubles the table when it is half full; 0 or HG_ENOMEM. */
static int grow_table(hg_flame_tree_builder *b)
{
	if (b->ids && (b->used + 1) * 2 <= b->mask + 1)
		return 0;
	size_t old = b->ids ? b->mask + 1 : 0, cap = old ? old * 2 : 256;
	int64_t *ids = hg_arena_calloc(b->nodes.arena, cap, sizeof *ids);
	size_t *index = hg_arena_calloc(b->nodes.arena, cap, sizeof *index);
	if (!ids || !index)
		return HG_ENOMEM;
	int64_t *old_ids = b->ids;
	size_t *old_index = b->index;
	b->ids = ids;
	b->index = index;
	b->mask = cap - 1;
	for (size_t i = 0; i < old; i++)
		if (old_ids[i] != 0) {
			size_t h = slot_of(b, old_ids[i]);
			b->ids[h] = old_ids[i];
			b->index[h] = old_index[i];
		}
	return 0;
}

static int add_row(hg_flame_tree_builder *b, const hg_tree_row *row)
{
	if (row->id <= 0 || grow_table(b) != 0)
		return row->id <= 0 ? HG_EPARSE : HG_ENOMEM;
	size_t parent = HG_FLAME_NO_PARENT;
	if (row->parent != 0) {
		size_t h = slot_of(b, row->parent);
		if (b->ids[h] != row->parent)
			return HG_EPARSE; /* the store gives parents first */
		parent = b->index[h];
	}
	size_t h = slot_of(b, row->id);
	if (b->ids[h] == row->id)
		return HG_EPARSE; /* the same node twice */
	const char *name = hg_arena_strdup(b->nodes.arena, row->symbol ? row->symbol : "?");
	if (!name)
		return HG_ENOMEM;
	hg_flame_node nd = {.name = name, .parent = parent, .total = row->total_cost,
			    .reports = row->reports, .begin = -1, .line = -1,
			    .key = row->on_key_path};
	size_t i = flame_push(&b->nodes, &nd);
	if (i == FLAME_NONE)
		return HG_ENOMEM;
	if (b->cap_depth <= i) {
		size_t cap = b->nodes.cap;
		long *d = hg_arena_regrow(b->nodes.arena, b->depth, b->cap_depth * sizeof *d,
					  cap * sizeof *d);
		if (!d)
			return HG_ENOMEM;
		b->depth = d;
		b->cap_depth = cap;
	}
	b->depth[i] = parent == HG_FLAME_NO_PARENT ? 0 : b->depth[parent] + 1;
	b->ids[h] = row->id;
	b->index[h] = i;
	b->used++;
	return 0;
}

int hg_flame_tree_builder_add(void *builder, const hg_tree_row *row)
{
	hg_flame_tree_builder *b = builder;
	if (b->failed)
		return b->failed;
	int rc = add_row(b, row);
	if (rc == HG_ENOMEM)
		b->failed = rc;
	return rc;
}

int hg_flame_tree_builder_finish(hg_flame_tree_builder *b, int64_t reports, const char *title,
				 hg_flame *out)
{
	memset(out, 0, sizeof *out);
	out->key = -1;
	if (b->failed)
		return b->failed;
	out->nodes = b->nodes.v;
	out->n = b->nodes.n;
	out->unit = HG_FLAME_MS;
	out->reports = reports;
	/* A tree of thread stacks (lag, ANR, iOS hang clusters) has no costs:
	 * its nodes weigh the reports through them, a thread each. */
	bool costs = false;
	for (size_t i = 0; i < out->n && !costs; i++)
		costs = out->nodes[i].total > 0;
	if (!costs) {
		out->unit = HG_FLAME_THREADS;
		for (size_t i = 0; i < out->n; i++)
			out->nodes[i].total = out->nodes[i].reports;
	}
	if (title && !(out->title = hg_arena_strdup(b->nodes.arena, title)))
		return HG_ENOMEM;
	flame_settle(out);
	/* The StackKey: the deepest node of the path the store marked. */
	long key = -1;
	for (size_t i = 0; i < out->n; i++)
		if (out->nodes[i].key && (key < 0 || b->depth[i] > b->depth[key]))
			key = (long)i;
	out->key = key;
	return 0;
}
