/* The callers of a cluster's StackKey merged upward (show --callers): an
 * inverted flame whose one root is the StackKey frame, its children the
 * frames that called it, theirs the callers' callers, up to the merged
 * tree's roots, so that a key reached from many screens reads as one
 * frame with its callers fanning out.
 *
 * Which nodes are "the key": the nodes on the StackKey path (on_key_path)
 * that name the cluster's key_symbol.  Not the path's last nodes: a
 * thread dump's whole blamed stack is its key path (its last node is the
 * innermost frame, an epoll wait more often than not), and where a key
 * calls itself one report's key path runs on through another report's
 * key.  Not every node of the key's name either: off the key path it was
 * no report's StackKey, and a reading pruned to --max-nodes keeps the key
 * path but not what is off it.  Only the outermost key node of a path
 * counts (a recursion's inner calls are inside its total already), so
 * nothing is counted twice.  What names the key: flame_callers_key.c.
 *
 * The inversion is made a level at a time: the walks up from every key
 * node that stand on the same row under the same inverted node are one,
 * so shared callers are walked once, whatever the number of keys. */
#include <stdlib.h>
#include <string.h>

#include "flame_callers.h"
#include "flame_internal.h"

#define NONE SIZE_MAX

/* A row on the StackKey path. */
struct row {
	size_t parent;   /* an earlier row, NONE for a root (or a parent off the path) */
	size_t sym;      /* index into syms */
	int64_t reports, cost;
};

struct hg_flame_callers_builder {
	hg_arena *arena;
	size_t max_nodes;
	struct row *rows;
	size_t n_rows, cap_rows;
	/* store id -> row, open addressing (ids start at 1; 0 is empty) */
	int64_t *ids;
	size_t *at, mask, used;
	/* symbols interned: a row's symbol is an index, so caller paths
	 * compare by number */
	const char **syms;
	size_t n_syms, cap_syms;
	size_t *sym_slot, sym_mask;   /* index + 1, 0 empty */
	bool costs;      /* some row has a cost: widths in ms, else in reports */
	int failed;
};

/* Weights are summed over many rows: a stored tree's costs saturate. */
static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

hg_flame_callers_builder *hg_flame_callers_builder_create(hg_arena *arena, size_t max_nodes)
{
	hg_flame_callers_builder *b = hg_arena_calloc(arena, 1, sizeof *b);
	if (b) {
		b->arena = arena;
		b->max_nodes = max_nodes;
	}
	return b;
}

static size_t hash_id(int64_t id)
{
	return (size_t)((uint64_t)id * 0x9e3779b97f4a7c15u);
}

static size_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* v, an arena array of *cap elem-sized items holding n, with room for one
 * more: v itself, or where it moved (*cap updated); NULL on ENOMEM. */
static void *room(hg_arena *arena, void *v, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = c <= SIZE_MAX / elem ? hg_arena_regrow(arena, v, *cap * elem, c * elem) : NULL;
	if (p)
		*cap = c;
	return p;
}

static size_t id_slot(const hg_flame_callers_builder *b, int64_t id)
{
	size_t h = hash_id(id) & b->mask;
	while (b->ids[h] != 0 && b->ids[h] != id)
		h = (h + 1) & b->mask;
	return h;
}

/* Doubles the id table when half full; 0 or HG_ENOMEM. */
static int grow_ids(hg_flame_callers_builder *b)
{
	if (b->ids && (b->used + 1) * 2 <= b->mask + 1)
		return 0;
	size_t old = b->ids ? b->mask + 1 : 0, cap = old ? old * 2 : 256;
	int64_t *ids = hg_arena_calloc(b->arena, cap, sizeof *ids), *old_ids = b->ids;
	size_t *at = hg_arena_calloc(b->arena, cap, sizeof *at), *old_at = b->at;
	if (!ids || !at)
		return HG_ENOMEM;
	b->ids = ids;
	b->at = at;
	b->mask = cap - 1;
	for (size_t i = 0; i < old; i++)
		if (old_ids[i] != 0) {
			size_t h = id_slot(b, old_ids[i]);
			b->ids[h] = old_ids[i];
			b->at[h] = old_at[i];
		}
	return 0;
}

/* The index of symbol s, interned (copied into the arena once); NONE on
 * ENOMEM. */
static size_t intern(hg_flame_callers_builder *b, const char *s)
{
	if (!b->sym_slot || (b->n_syms + 1) * 2 > b->sym_mask + 1) {
		size_t cap = b->sym_slot ? (b->sym_mask + 1) * 2 : 256;
		size_t *slot = hg_arena_calloc(b->arena, cap, sizeof *slot);
		if (!slot)
			return NONE;
		for (size_t i = 0; i < b->n_syms; i++) {
			size_t h = hash_str(b->syms[i]) & (cap - 1);
			while (slot[h])
				h = (h + 1) & (cap - 1);
			slot[h] = i + 1;
		}
		b->sym_slot = slot;
		b->sym_mask = cap - 1;
	}
	size_t h = hash_str(s) & b->sym_mask;
	for (; b->sym_slot[h]; h = (h + 1) & b->sym_mask)
		if (strcmp(b->syms[b->sym_slot[h] - 1], s) == 0)
			return b->sym_slot[h] - 1;
	const char *copy = hg_arena_strdup(b->arena, s);
	const char **syms = copy ? room(b->arena, b->syms, b->n_syms, &b->cap_syms, sizeof *syms)
				 : NULL;
	if (!syms)
		return NONE;
	b->syms = syms;
	b->syms[b->n_syms] = copy;
	b->sym_slot[h] = ++b->n_syms;
	return b->n_syms - 1;
}

static int add_row(hg_flame_callers_builder *b, const hg_tree_row *row)
{
	if (row->id <= 0)
		return HG_EPARSE;
	if (!row->on_key_path)
		return 0; /* no key and no caller of one is off the path */
	if (grow_ids(b))
		return HG_ENOMEM;
	size_t h = id_slot(b, row->id);
	if (b->ids[h] == row->id)
		return HG_EPARSE; /* the same node twice */
	size_t parent = NONE;
	if (row->parent != 0) {
		size_t p = id_slot(b, row->parent);
		parent = b->ids[p] == row->parent ? b->at[p] : NONE;
	}
	size_t sym = intern(b, row->symbol ? row->symbol : "?");
	struct row *rows = sym == NONE ? NULL
				       : room(b->arena, b->rows, b->n_rows, &b->cap_rows, sizeof *rows);
	if (!rows)
		return HG_ENOMEM;
	b->rows = rows;
	b->rows[b->n_rows] = (struct row){parent, sym, row->reports > 0 ? row->reports : 0,
					  row->total_cost > 0 ? row->total_cost : 0};
	b->costs = b->costs || row->total_cost > 0;
	b->ids[h] = row->id;
	b->at[h] = b->n_rows++;
	b->used++;
	return 0;
}

int hg_flame_callers_builder_add(void *builder, const hg_tree_row *row)
{
	hg_flame_callers_builder *b = builder;
	if (b->failed)
		return b->failed;
	int rc = add_row(b, row);
	if (rc == HG_ENOMEM)
		b->failed = rc;
	return rc;
}

/* ---- which rows are the key ---- */

/* Marks key[i] for the rows that are the key: those that name it best
 * (exactly or for compiler numbering, else as a frame in the key's text),
 * the outermost of each path.  *root_sym: the symbol the inverted root
 * is named after (key_symbol when a row has it, else the one of the most
 * reports).  0 (no key: nothing marked), or HG_ENOMEM. */
static int find_keys(const hg_flame_callers_builder *b, const char *key_symbol, bool *key,
		     size_t *root_sym)
{
	*root_sym = NONE;
	if (!key_symbol || b->n_rows == 0)
		return 0;
	struct flame_key_names names;
	int err = flame_key_names_init(&names, key_symbol, b->arena), best = 0;
	int *how = calloc(b->n_syms, sizeof *how);
	int64_t *by_sym = calloc(b->n_syms, sizeof *by_sym); /* reports of its key rows */
	bool *is_key = calloc(b->n_syms, sizeof *is_key);    /* it has key rows */
	bool *under = calloc(b->n_rows, sizeof *under);      /* a key row is above it */
	if (!err && (!how || !by_sym || !is_key || !under))
		err = HG_ENOMEM;
	for (size_t s = 0; !err && s < b->n_syms; s++) {
		how[s] = flame_key_names_match(&names, b->syms[s], &err);
		if (how[s] > best)
			best = how[s];
	}
	if (best == 3)
		best = 2; /* a build's renumbered classes are the same key */
	for (size_t i = 0; !err && best && i < b->n_rows; i++) {
		const struct row *r = &b->rows[i];
		bool above = r->parent != NONE && (under[r->parent] || key[r->parent]);
		under[i] = above;
		key[i] = !above && how[r->sym] >= best;
		if (key[i]) {
			by_sym[r->sym] = add_sat(by_sym[r->sym], r->reports);
			is_key[r->sym] = true;
		}
	}
	for (size_t s = 0; !err && best && s < b->n_syms; s++)
		if (is_key[s] && (*root_sym == NONE || how[s] == 3 ||
				  (how[*root_sym] != 3 && by_sym[s] > by_sym[*root_sym])))
			*root_sym = s;
	flame_key_names_release(&names);
	free(how);
	free(by_sym);
	free(is_key);
	free(under);
	return err;
}

/* ---- the inversion ---- */

/* A walk up from key rows: it stands on row `row` (symbol sym), which
 * becomes a child of inverted node `node`; w and r are the weight and
 * reports it carries. */
struct walk {
	size_t row, sym, node;
	int64_t w, r;
};

/* The walks of one level that become one inverted node: walks[first..end)
 * of the level, all under node with symbol sym. */
struct group {
	size_t node, sym, first, end;
	int64_t w, r;
};

static int cmp_size(size_t a, size_t b)
{
	return (a > b) - (a < b);
}

static int by_place(const void *pa, const void *pb)
{
	const struct walk *a = pa, *b = pb;
	int c = cmp_size(a->node, b->node);
	c = c ? c : cmp_size(a->sym, b->sym);
	return c ? c : cmp_size(a->row, b->row);
}

/* Siblings heaviest first (then most reports, then first seen). */
static int by_weight(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	int c = cmp_size(a->node, b->node);
	c = c ? c : (a->w < b->w) - (a->w > b->w);
	c = c ? c : (a->r < b->r) - (a->r > b->r);
	return c ? c : cmp_size(a->sym, b->sym);
}

struct inverting {
	const hg_flame_callers_builder *b;
	struct flame_nodes nodes;
	struct walk *walks, *next;  /* this level's, the next one's */
	struct group *groups;
	size_t n_walks, n_next;
	const char *left_name;      /* past max_nodes: "(callers past ...)" */
};

/* A new inverted node under parent (NONE: the root); FLAME_NONE on ENOMEM. */
static size_t new_node(struct inverting *in, size_t parent, const char *name)
{
	hg_flame_node nd = {.name = name, .parent = parent, .begin = -1, .line = -1};
	return flame_push(&in->nodes, &nd);
}

/* Walks standing on the same row under the same node are one from here
 * on: merges them (walks sorted by place); then groups those of one
 * symbol under one node.  The number of groups. */
static size_t merge_and_group(struct inverting *in)
{
	size_t n = 0, g = 0;
	for (size_t i = 0; i < in->n_walks; i++) {
		struct walk *w = &in->walks[i], *last = n ? &in->walks[n - 1] : NULL;
		if (last && last->row == w->row && last->node == w->node) {
			last->w = add_sat(last->w, w->w);
			last->r = add_sat(last->r, w->r);
		} else {
			in->walks[n++] = *w;
		}
	}
	in->n_walks = n;
	for (size_t i = 0; i < n; i++) {
		const struct walk *w = &in->walks[i];
		struct group *last = g ? &in->groups[g - 1] : NULL;
		if (last && last->node == w->node && last->sym == w->sym) {
			last->end = i + 1;
			last->w = add_sat(last->w, w->w);
			last->r = add_sat(last->r, w->r);
		} else {
			in->groups[g++] = (struct group){w->node, w->sym, i, i + 1, w->w, w->r};
		}
	}
	return g;
}

/* One level: each group a new node (past max_nodes, what it carries goes
 * into one "callers past" node under its parent, and stops there); its
 * walks go on up from the rows' parents.  0 or HG_ENOMEM. */
static int level(struct inverting *in)
{
	const hg_flame_callers_builder *b = in->b;
	qsort(in->walks, in->n_walks, sizeof *in->walks, by_place);
	size_t n_groups = merge_and_group(in);
	qsort(in->groups, n_groups, sizeof *in->groups, by_weight);
	in->n_next = 0;
	size_t left = NONE, left_of = NONE; /* the "callers past" node, and whose */
	for (size_t k = 0; k < n_groups; k++) {
		const struct group *g = &in->groups[k];
		bool full = b->max_nodes && in->nodes.n >= b->max_nodes;
		size_t to;
		if (full && left_of == g->node) {
			to = left;
		} else {
			to = new_node(in, g->node, full ? in->left_name : b->syms[g->sym]);
			if (to == FLAME_NONE)
				return HG_ENOMEM;
			if (full)
				left = to, left_of = g->node;
		}
		hg_flame_node *nd = &in->nodes.v[to];
		nd->total = add_sat(nd->total, g->w);
		nd->reports = add_sat(nd->reports, g->r);
		for (size_t i = g->first; !full && i < g->end; i++) {
			const struct walk *w = &in->walks[i];
			size_t up = b->rows[w->row].parent;
			if (up != NONE)
				in->next[in->n_next++] =
					(struct walk){up, b->rows[up].sym, to, w->w, w->r};
		}
	}
	struct walk *t = in->walks;
	in->walks = in->next;
	in->next = t;
	in->n_walks = in->n_next;
	return 0;
}

/* The inverted flame of the key rows (key[i]) into out: its root named
 * after root_sym. */
static int invert(const hg_flame_callers_builder *b, const bool *key, size_t root_sym,
		  int64_t reports, hg_flame *out)
{
	struct inverting in = {.b = b, .nodes = {.arena = b->arena}};
	size_t n_keys = 0;
	for (size_t i = 0; i < b->n_rows; i++)
		n_keys += key[i];
	/* a walk never splits: no level has more walks than there are keys */
	in.walks = malloc(n_keys * sizeof *in.walks);
	in.next = malloc(n_keys * sizeof *in.next);
	in.groups = malloc(n_keys * sizeof *in.groups);
	in.left_name = hg_arena_printf(b->arena, "(callers past the %zu-frame limit)", b->max_nodes);
	int err = in.walks && in.next && in.groups && in.left_name ? 0 : HG_ENOMEM;
	size_t root = err ? FLAME_NONE : new_node(&in, HG_FLAME_NO_PARENT, b->syms[root_sym]);
	if (root == FLAME_NONE)
		err = HG_ENOMEM;
	for (size_t i = 0; !err && i < b->n_rows; i++) {
		if (!key[i])
			continue;
		const struct row *r = &b->rows[i];
		int64_t w = b->costs ? r->cost : r->reports;
		hg_flame_node *nd = &in.nodes.v[root];
		nd->total = add_sat(nd->total, w);
		nd->reports = add_sat(nd->reports, r->reports);
		if (r->parent != NONE)
			in.walks[in.n_walks++] =
				(struct walk){r->parent, b->rows[r->parent].sym, root, w, r->reports};
	}
	while (!err && in.n_walks)
		err = level(&in);
	free(in.walks);
	free(in.next);
	free(in.groups);
	if (err)
		return err;
	out->nodes = in.nodes.v;
	out->n = in.nodes.n;
	/* A report that reached the key by two paths is in both: no node
	 * counts more reports than the cluster has. */
	for (size_t i = 0; reports > 0 && i < out->n; i++)
		if (out->nodes[i].reports > reports)
			out->nodes[i].reports = reports;
	flame_settle(out);
	flame_mark_key(out, 0);
	return 0;
}

int hg_flame_callers_builder_finish(hg_flame_callers_builder *b, const char *key_symbol,
				    int64_t reports, hg_flame *out)
{
	memset(out, 0, sizeof *out);
	out->key = -1;
	if (b->failed)
		return b->failed;
	out->unit = b->costs ? HG_FLAME_MS : HG_FLAME_THREADS;
	out->reports = reports;
	bool *key = calloc(b->n_rows ? b->n_rows : 1, sizeof *key);
	size_t root_sym = NONE;
	int err = key ? find_keys(b, key_symbol, key, &root_sym) : HG_ENOMEM;
	if (!err && root_sym != NONE)
		err = invert(b, key, root_sym, reports, out);
	free(key);
	return err;
}

/* ---- a cluster of the store ---- */

/* What the flame takes from the cluster's row, in arena. */
struct cluster_info {
	hg_arena *arena;
	int64_t count;
	const char *kind, *key_symbol;
};

static int on_cluster(void *user, const hg_cluster_row *c)
{
	struct cluster_info *ci = user;
	ci->count = c->count;
	ci->kind = hg_arena_strdup(ci->arena, c->kind ? c->kind : "?");
	ci->key_symbol = c->key_symbol ? hg_arena_strdup(ci->arena, c->key_symbol) : NULL;
	return ci->kind && (ci->key_symbol || !c->key_symbol) ? 0 : HG_ENOMEM;
}

int hg_flame_callers_of_cluster(hg_store *store, const char *hash, size_t max_nodes,
				hg_arena *arena, hg_flame *out, bool *cut)
{
	memset(out, 0, sizeof *out);
	out->key = -1;
	if (cut)
		*cut = false;
	struct cluster_info ci = {arena, 0, NULL, NULL};
	hg_flame_callers_builder *b = hg_flame_callers_builder_create(arena, max_nodes);
	int rc = b ? hg_store_cluster(store, hash, on_cluster, &ci) : HG_ENOMEM;
	/* The StackKey path alone: a cost floor no node reaches leaves out
	 * every node off it (the path is read whatever its cost), so what is
	 * held is the path, at most max_nodes of it. */
	hg_tree_prune prune = {INT64_MAX, 0, 0, max_nodes};
	hg_tree_read read = {0};
	if (rc == 0)
		rc = hg_store_cluster_tree_pruned(store, hash, &prune, hg_flame_callers_builder_add,
						  NULL, b, &read);
	if (rc == 0)
		rc = hg_flame_callers_builder_finish(b, ci.key_symbol, ci.count, out);
	if (rc == 0 && cut)
		*cut = (read.why & HG_TREE_LEFT_CAP) != 0;
	if (rc == 0 && out->n) {
		out->title = hg_arena_printf(arena, "%s cluster %.8s: callers of %s",
					     ci.kind ? ci.kind : "?", hash, out->nodes[0].name);
		rc = out->title ? 0 : HG_ENOMEM;
	}
	return rc;
}
