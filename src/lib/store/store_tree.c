/* The merged call tree of a cluster, per report: each report's tree is
 * first merged with itself (a method called twice from one parent is one
 * node) and capped at HG_STORE_REPORT_TREE_MAX nodes (store_tree_prune.c),
 * here, without the store (it can run on the thread that reads);
 * store_tree_batch.c then adds it to the cluster's nodes, so that a node's
 * `reports` counts each report passing through it once. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/samples.h"
#include "store_tree_read.h"

/* A report's self-merged tree, made without the store (store_tree_prepare)
 * and added to the batch later (store_tree_add_prepared). */
struct store_tree_prep {
	hg_arena *arena;   /* "#id" and "Class.method" symbols, the nodes */
	struct store_report_node *nodes;
	size_t len;
	uint64_t serial;   /* of the symtab that numbered the symbols; 0: none */
};

/* The report's frames as (parent frame, symbol) before merging. */
struct frames {
	const char **symbol;
	long *parent;      /* an earlier frame, -1 for a root */
	int64_t *cost, *self;
	bool *key;
	uint32_t *num;     /* symtab numbers, when every frame has one */
	size_t len;
};

static int frames_init(struct frames *f, hg_arena *arena, size_t n)
{
	f->symbol = hg_arena_calloc(arena, n ? n : 1, sizeof *f->symbol);
	f->parent = hg_arena_calloc(arena, n ? n : 1, sizeof *f->parent);
	f->cost = hg_arena_calloc(arena, n ? n : 1, sizeof *f->cost);
	f->self = hg_arena_calloc(arena, n ? n : 1, sizeof *f->self);
	f->key = hg_arena_calloc(arena, n ? n : 1, sizeof *f->key);
	f->num = NULL;
	f->len = n;
	return f->symbol && f->parent && f->cost && f->self && f->key ? 0 : HG_ENOMEM;
}

/* Numbers every frame's symbol in tab; none at all (f->num NULL) unless
 * every one got a number of the same table. */
static void number_frames(struct frames *f, hg_arena *arena, hg_store_symtab *tab,
			  uint64_t *serial)
{
	*serial = 0;
	if (!tab || !(f->num = hg_arena_calloc(arena, f->len ? f->len : 1, sizeof *f->num)))
		return;
	uint64_t first = 0;
	for (size_t i = 0; i < f->len; i++) {
		uint64_t s;
		f->num[i] = store_symtab_number(tab, f->symbol[i], &s);
		if (i == 0)
			first = s;
		if (!f->num[i] || s != first) { /* out of memory, or the table started over */
			f->num = NULL;
			return;
		}
	}
	*serial = first;
}

/* The same for the nodes of a capped tree, whose frames were merged by
 * text. */
static void number_nodes(struct store_tree_prep *p, hg_store_symtab *tab)
{
	p->serial = 0;
	uint64_t first = 0;
	for (size_t i = 0; tab && i < p->len; i++) {
		uint64_t s;
		p->nodes[i].num = store_symtab_number(tab, p->nodes[i].symbol, &s);
		if (i == 0)
			first = s;
		if (!p->nodes[i].num || s != first) {
			for (size_t k = 0; k <= i; k++)
				p->nodes[k].num = 0;
			return;
		}
	}
	p->serial = tab ? first : 0;
}

/* ---- merging a report with itself ---- */

static size_t hash_text(long parent, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(parent + 1);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

static size_t hash_num(long parent, uint32_t num)
{
	uint64_t h = (uint64_t)(parent + 1) * 0x9E3779B97F4A7C15ULL ^ num;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return (size_t)(h ^ (h >> 29));
}

/* Frames with the same parent node and symbol become one node: by number
 * when the frames have them, else by text. */
static int merge_frames(const struct frames *f, hg_arena *scratch, struct store_tree_prep *p)
{
	size_t n_slots = 16;
	while (n_slots < 2 * f->len + 2)
		n_slots *= 2;
	size_t *slots = calloc(n_slots, sizeof *slots), mask = n_slots - 1;
	long *node_of = hg_arena_calloc(scratch, f->len ? f->len : 1, sizeof *node_of);
	p->nodes = hg_arena_calloc(p->arena, f->len ? f->len : 1, sizeof *p->nodes);
	if (!slots || !node_of || !p->nodes) {
		free(slots);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < f->len; i++) {
		long parent = f->parent[i] < 0 ? -1 : node_of[f->parent[i]];
		size_t h = (f->num ? hash_num(parent, f->num[i]) : hash_text(parent, f->symbol[i])) &
			   mask;
		for (; slots[h]; h = (h + 1) & mask) {
			const struct store_report_node *n = &p->nodes[slots[h] - 1];
			if (n->parent == parent &&
			    (f->num ? n->num == f->num[i] : strcmp(n->symbol, f->symbol[i]) == 0))
				break;
		}
		if (!slots[h]) {
			p->nodes[p->len] = (struct store_report_node){
				parent, f->symbol[i], f->num ? f->num[i] : 0, 0, 0, false};
			slots[h] = ++p->len;
		}
		struct store_report_node *n = &p->nodes[slots[h] - 1];
		node_of[i] = (long)(slots[h] - 1);
		n->cost += f->cost[i];
		n->self += f->self[i];
		n->key = n->key || f->key[i];
	}
	free(slots);
	return 0;
}

/* ---- a report's frames ---- */

/* The frames' arrays go to scratch, the symbols they name to arena (the
 * merged nodes keep them). */
static int from_method_stack(const hg_report *rep, hg_arena *arena, hg_arena *scratch,
			     struct frames *f)
{
	const hg_method_stack *s = &rep->trimmed;
	/* The call tree in an arena of its own, gone before the frames are
	 * merged: 32 bytes a frame less at the peak of a million-line stack. */
	hg_arena *tmp = hg_arena_create();
	hg_calltree tree;
	int err = tmp && hg_calltree_build(s, tmp, &tree) == 0 ? frames_init(f, scratch, s->len)
							       : HG_ENOMEM;
	for (size_t i = 0; !err && i < s->len; i++) {
		const hg_method_item *it = &s->items[i];
		const char *sym = hg_report_item_symbol(rep, it);
		if (!sym)
			sym = hg_arena_printf(arena, "#%ld", (long)it->id);
		if (!sym)
			err = HG_ENOMEM;
		f->symbol[i] = sym;
		f->parent[i] = tree.parent[i];
		f->cost[i] = it->cost;
		f->self[i] = tree.self[i];
	}
	if (!err && rep->key_index >= 0 && (size_t)rep->key_index < s->len)
		for (long j = rep->key_index; j >= 0; j = tree.parent[j])
			f->key[j] = true;
	hg_arena_destroy(tmp);
	return err;
}

/* The blamed thread from its outermost frame (root) to its innermost, each
 * node costing the report's cost; the whole path leads to the top frame. */
static int from_thread(const hg_report *rep, int64_t cost, hg_arena *arena, hg_arena *scratch,
		       struct frames *f)
{
	const hg_thread *th = &rep->threads.items[rep->threads.blamed];
	if (frames_init(f, scratch, th->n_frames))
		return HG_ENOMEM;
	for (size_t i = 0; i < th->n_frames; i++) {
		size_t k = th->n_frames - 1 - i; /* outermost first */
		if (!(f->symbol[i] = hg_frame_label(rep, &th->frames[k], arena)))
			return HG_ENOMEM;
		f->parent[i] = (long)i - 1;
		f->cost[i] = cost;
		f->self[i] = k == 0 ? cost : 0;
		f->key[i] = true;
	}
	return 0;
}

void store_tree_prep_destroy(struct store_tree_prep *p)
{
	if (!p)
		return;
	hg_arena_destroy(p->arena);
	free(p);
}

int store_tree_prepare(const hg_report *rep, hg_store_symtab *tab, struct store_tree_prep **out)
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
	/* The frames before merging are freed once merged: a prepared tree
	 * waits in the ingest queue with only its nodes and symbols. */
	hg_arena *scratch = hg_arena_create();
	struct frames f;
	int err = !scratch ? HG_ENOMEM
		  : method ? from_method_stack(rep, p->arena, scratch, &f)
			   : from_thread(rep, cost, p->arena, scratch, &f);
	/* A tree past the cap is numbered once capped: the symtab would keep
	 * every frame text of the upload for the rest of the run. */
	bool big = !err && f.len > HG_STORE_REPORT_TREE_MAX;
	if (!err && !big)
		number_frames(&f, scratch, tab, &p->serial);
	if (!err)
		err = merge_frames(&f, scratch, p);
	hg_arena_destroy(scratch);
	if (!err && big)
		err = store_tree_cap_report(&p->nodes, &p->len, &p->arena, HG_STORE_REPORT_TREE_MAX);
	if (!err && big)
		number_nodes(p, tab);
	if (err) {
		store_tree_prep_destroy(p);
		return err;
	}
	*out = p;
	return 0;
}

int store_tree_add_prepared(hg_store *store, struct store_tree_prep *p, const char *cluster)
{
	return p ? store_tree_batch_add(store, p->nodes, p->len, p->serial, cluster) : 0;
}

int store_tree_add(hg_store *store, const hg_report *rep, const char *cluster)
{
	struct store_tree_prep *p;
	int err = store_tree_prepare(rep, NULL, &p);
	if (!err)
		err = store_tree_add_prepared(store, p, cluster);
	store_tree_prep_destroy(p);
	return err;
}
