/* A cluster's merged tree read from the store a node at a time, pruned as
 * it is read (hg_store_cluster_tree_pruned): the row's text comes a piece
 * at a time (db_blob), each node is read or left out as it comes, and what
 * is held is 4 bytes per node of the tree and the nodes read.  Before,
 * the `tree` view's json_each, its sort by id and a copy of every node
 * took 413 MB to show a tree of a million nodes (32 MB of text).
 *
 * Up to three passes over the text: a survey (its nodes, whether their
 * ids are in order, the roots' cost, the key path's size); when the tree
 * has more than max_nodes nodes, how costly a node must count to be among
 * the costliest; then the reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_tree_read.h"

#define UNSEEN INT32_MIN
/* A map value of a node left out under kept node k (-1: beside the
 * roots), and back. */
#define LEFT_UNDER(k) ((int32_t)(-2 - (k)))
#define UNDER_OF(v) (-2 - (long)(v))

/* What was left out under one node read. */
struct left_acc {
	int64_t nodes, cost, reports;
	unsigned why;
};

struct reading {
	hg_store *store;
	const char *hash;
	hg_db_blob *blob;
	struct store_tree_text text;
	struct store_tree_node *all; /* the text decoded whole, when its ids were out of order */
	size_t n_all, next_all;
	/* the survey */
	size_t n, n_key;
	int64_t max_id, total;
	bool ordered;
	/* per node of the tree: dense by id, or (ids) by its place in the text */
	int32_t *val, *dep;
	int64_t *ids;
	size_t map_len;
	/* per node read */
	int64_t *kid;
	int32_t *kdepth, *keff;
	struct left_acc *left, roots;
	size_t kept, kcap;
	unsigned why;
	int64_t cache;       /* the page cache's size before, to restore; 0: unchanged */
};

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t s;
	return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

/* ---- the text ---- */

static int blob_read(void *src, char *buf, size_t n, size_t offset)
{
	struct reading *r = src;
	return store_check(r->store, db_blob_read(r->blob, buf, n, offset),
			   "cannot read a call tree");
}

/* The cluster's tree row, open for reading (r->blob NULL: it has none). */
static int open_row(struct reading *r)
{
	hg_db_stmt *st = db_stmt(r->store->db, S_TREE,
				 "SELECT t.cluster FROM trees t JOIN clusters c ON c.id = t.cluster"
				 " WHERE c.hash = ?1");
	if (!st)
		return store_fail(r->store, HG_EIO, "cannot query a call tree");
	db_bind_text(st, 1, r->hash);
	int rc = db_step(st);
	int64_t rowid = rc == DB_ROW ? db_col_int(st, 0) : 0;
	db_reset(st);
	if (rc == DB_ROW)
		rc = db_blob_open(r->store->db, "trees", "nodes", rowid, &r->blob);
	if (rc < 0)
		return store_check(r->store, rc, "cannot read a call tree");
	return r->blob ? store_tree_text_pieces(&r->text, db_blob_bytes(r->blob), blob_read, r) : 0;
}

static void say_damaged(const struct reading *r, size_t at, const char *what)
{
	hg_diagf(r->store->ctx, HG_DIAG_ERROR, r->store->path, 0, (long)at, 0,
		 "cluster %s: its stored call tree (trees.nodes) %s", r->hash, what);
}

/* The next node: 1, 0 after the last, or an hg error. */
static int next_node(struct reading *r, struct store_tree_node *node)
{
	if (r->all) {
		if (r->next_all == r->n_all)
			return 0;
		*node = r->all[r->next_all++];
		return 1;
	}
	size_t bad_at = 0;
	int rc = store_tree_text_next(&r->text, node, &bad_at);
	if (rc == HG_EPARSE)
		say_damaged(r, bad_at, "is not readable");
	return rc;
}

static void rewind_nodes(struct reading *r)
{
	if (r->all)
		r->next_all = 0;
	else
		store_tree_text_rewind(&r->text);
}

static int survey(struct reading *r)
{
	struct store_tree_node nd;
	int rc;
	r->n = r->n_key = 0;
	r->max_id = r->total = 0;
	r->ordered = true;
	while ((rc = next_node(r, &nd)) == 1) {
		r->n++;
		r->ordered = r->ordered && nd.id > r->max_id;
		r->max_id = nd.id > r->max_id ? nd.id : r->max_id;
		r->n_key += nd.key;
		if (nd.parent == 0)
			r->total = add_sat(r->total, nd.total);
	}
	return rc;
}

/* A text whose ids are out of order (hangar writes them in order; SQL that
 * rewrites the row may not keep it): read whole and sorted, as ingest
 * reads it.  Not bounded, as that is not what an upload makes. */
static int read_whole(struct reading *r)
{
	size_t size = r->text.size, bad_at;
	char *json = malloc(size ? size : 1);
	int err = json ? blob_read(r, json, size, 0) : HG_ENOMEM;
	if (!err && (err = store_tree_decode(json, size, &r->all, &r->n_all, &bad_at)) == HG_EPARSE)
		say_damaged(r, bad_at, "is not readable");
	free(json);
	return err ? err : survey(r);
}

/* ---- which node went where ---- */

static int map_init(struct reading *r, bool depths)
{
	if (r->n > INT32_MAX / 2)
		return HG_ENOMEM; /* 32 GB of text: not a tree hangar wrote */
	bool dense = r->max_id <= (int64_t)(2 * r->n + 1024);
	r->map_len = dense ? (size_t)r->max_id + 1 : 0;
	size_t len = dense ? r->map_len : r->n ? r->n : 1;
	r->val = malloc(len * sizeof *r->val);
	if (depths)
		r->dep = malloc(len * sizeof *r->dep);
	if (!dense)
		r->ids = malloc(len * sizeof *r->ids);
	return r->val && (!depths || r->dep) && (dense || r->ids) ? 0 : HG_ENOMEM;
}

static void map_clear(struct reading *r)
{
	if (r->ids)
		r->map_len = 0;
	else
		for (size_t i = 0; i < r->map_len; i++)
			r->val[i] = UNSEEN;
}

/* Where node id's values are: by id, else its place among the ids seen
 * (ascending); SIZE_MAX when it was not seen. */
static size_t slot_of(const struct reading *r, int64_t id)
{
	if (!r->ids)
		return id >= 0 && (uint64_t)id < r->map_len && r->val[id] != UNSEEN ? (size_t)id
										  : SIZE_MAX;
	size_t lo = 0, hi = r->map_len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->ids[mid] == id)
			return mid;
		if (r->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* The slot of node id, the next in id order. */
static size_t slot_new(struct reading *r, int64_t id)
{
	if (!r->ids)
		return (size_t)id;
	r->ids[r->map_len] = id;
	return r->map_len++;
}

/* The slot of node's parent (SIZE_MAX: a root); HG_EPARSE when the tree
 * has no such node. */
static int parent_of(const struct reading *r, const struct store_tree_node *nd, size_t *slot)
{
	*slot = nd->parent ? slot_of(r, nd->parent) : SIZE_MAX;
	if (nd->parent && *slot == SIZE_MAX) {
		say_damaged(r, 1, "has a node whose parent is not in it");
		return HG_EPARSE;
	}
	return 0;
}

/* ---- the pruning ---- */

struct rules {
	const hg_tree_prune *o;
	int64_t min_cost;  /* the floor */
	size_t slots;      /* nodes off the key path that may be read */
	/* Among the costliest: counting more than this, or the first `ties`
	 * counting it exactly (see eff_of). */
	int64_t costly;
	size_t ties;
};

static bool too_deep(const struct rules *ru, long depth)
{
	return ru->o->max_depth > 0 && depth >= ru->o->max_depth;
}

/* How costly a node counts when the costliest are chosen: its cost, but no
 * more than its parent's count, so that the nodes chosen hang together
 * from the roots (a Matrix stack's costs need not shrink downwards: the
 * costliest nodes by their own cost had mostly no parent among them); the
 * key path above all, a node the other rules leave out below all.  In 32
 * bits (costs past 24 days count as 24 days). */
#define EFF_TOP INT32_MAX
#define EFF_NONE (-1)

static int32_t eff_of(const struct rules *ru, const struct store_tree_node *nd, long depth,
		      int32_t up)
{
	if (nd->key)
		return EFF_TOP;
	if (too_deep(ru, depth) || nd->total < ru->min_cost)
		return EFF_NONE;
	int32_t c = nd->total >= EFF_TOP - 1 ? EFF_TOP - 1 : (int32_t)nd->total;
	return c < up ? c : up;
}

/* What a node off the key path needs to count to be among the slots
 * costliest (a pass; the map holds each node's count, and its depth when
 * max_depth applies). */
static int find_costly(struct reading *r, struct rules *ru)
{
	struct store_topk top;
	if (store_topk_init(&top, ru->slots))
		return HG_ENOMEM;
	struct store_tree_node nd;
	int rc;
	while ((rc = next_node(r, &nd)) == 1) {
		size_t up;
		if ((rc = parent_of(r, &nd, &up)) != 0)
			break;
		int32_t depth = up == SIZE_MAX || !r->dep ? 0 : r->dep[up] + 1;
		int32_t eff = eff_of(ru, &nd, depth, up == SIZE_MAX ? EFF_TOP : r->val[up]);
		size_t at = slot_new(r, nd.id);
		r->val[at] = eff;
		if (r->dep)
			r->dep[at] = depth;
		if (!nd.key && eff >= 0)
			store_topk_push(&top, eff);
	}
	ru->costly = store_topk_floor(&top);
	ru->ties = ru->slots - store_topk_above(&top, ru->costly);
	store_topk_release(&top);
	return rc;
}

static int keep_room(struct reading *r)
{
	if (r->kept < r->kcap)
		return 0;
	size_t cap = r->kcap ? 2 * r->kcap : 256;
	int64_t *kid = realloc(r->kid, cap * sizeof *kid);
	if (kid)
		r->kid = kid;
	int32_t *kdepth = kid ? realloc(r->kdepth, cap * sizeof *kdepth) : NULL;
	if (kdepth)
		r->kdepth = kdepth;
	int32_t *keff = kdepth ? realloc(r->keff, cap * sizeof *keff) : NULL;
	if (keff)
		r->keff = keff;
	struct left_acc *left = keff ? realloc(r->left, cap * sizeof *left) : NULL;
	if (!left)
		return HG_ENOMEM;
	r->left = left;
	r->kcap = cap;
	return 0;
}

/* Why a node whose parent was read (k; -1 for a root) is left out; 0: it
 * is read, and *eff how costly it counts. */
static unsigned why_left(const struct reading *r, struct rules *ru,
			 const struct store_tree_node *nd, long k, int32_t *eff)
{
	size_t cap = ru->o->max_nodes;
	bool full = cap && r->kept >= cap;
	long depth = k < 0 ? 0 : r->kdepth[k] + 1;
	*eff = eff_of(ru, nd, depth, k < 0 ? EFF_TOP : r->keff[k]);
	if (nd->key)
		return full ? HG_TREE_LEFT_CAP : 0;
	if (too_deep(ru, depth))
		return HG_TREE_LEFT_DEPTH;
	if (nd->total < ru->min_cost)
		return HG_TREE_LEFT_COST;
	if (!cap)
		return 0;
	bool tie = *eff == ru->costly && ru->ties > 0;
	if (full || (*eff <= ru->costly && !tie))
		return HG_TREE_LEFT_CAP;
	ru->ties -= tie;
	return 0;
}

static int emit(struct reading *r, const struct store_tree_node *nd, hg_tree_fn fn, void *user)
{
	hg_db_stmt *st =
		db_stmt(r->store->db, S_TREE_SYMBOL, "SELECT text FROM symbols WHERE id = ?1");
	if (!st)
		return store_fail(r->store, HG_EIO, "cannot query a call tree");
	db_bind_int(st, 1, nd->symbol);
	int rc = db_step(st), ret;
	if (rc == DB_ROW) {
		hg_tree_row row = {nd->id,    nd->parent, db_col_text(st, 0), nd->reports,
				   nd->total, nd->max,    nd->self,           nd->key};
		ret = fn(user, &row);
	} else if (rc < 0) {
		ret = store_check(r->store, rc, "cannot query a call tree");
	} else {
		say_damaged(r, 1, "names a symbol the store does not have");
		ret = HG_EPARSE;
	}
	db_reset(st);
	return ret;
}

/* The reading pass: each node read (fn) or counted where it was left out. */
static int read_nodes(struct reading *r, struct rules *ru, hg_tree_fn fn, void *user)
{
	struct store_tree_node nd;
	int rc;
	while ((rc = next_node(r, &nd)) == 1) {
		size_t up;
		if ((rc = parent_of(r, &nd, &up)) != 0)
			break;
		size_t at = slot_new(r, nd.id);
		int32_t was = up == SIZE_MAX ? -1 : r->val[up];
		if (!ru->o) { /* nothing left out: the map only says who was seen */
			r->val[at] = 0;
		} else if (up != SIZE_MAX && was < 0) { /* under a node left out */
			r->val[at] = was;
			long under = UNDER_OF(was);
			(under < 0 ? &r->roots : &r->left[under])->nodes++;
			continue;
		} else {
			long k = was; /* -1: a root */
			int32_t eff;
			unsigned why = why_left(r, ru, &nd, k, &eff);
			if (why) {
				struct left_acc *l = k < 0 ? &r->roots : &r->left[k];
				l->nodes++;
				l->cost = add_sat(l->cost, nd.total);
				l->reports = add_sat(l->reports, nd.reports);
				l->why |= why;
				r->why |= why;
				r->val[at] = LEFT_UNDER(k);
				continue;
			}
			if ((rc = keep_room(r)) != 0)
				break;
			r->kid[r->kept] = nd.id;
			r->kdepth[r->kept] = k < 0 ? 0 : r->kdepth[k] + 1;
			r->keff[r->kept] = eff;
			r->left[r->kept] = (struct left_acc){0, 0, 0, 0};
			r->val[at] = (int32_t)r->kept;
		}
		r->kept++;
		if ((rc = emit(r, &nd, fn, user)) != 0)
			break;
	}
	return rc;
}

static int tell_left(const struct reading *r, hg_tree_left_fn left, void *user)
{
	int rc = 0;
	if (r->roots.nodes)
		rc = left(user, &(hg_tree_left){0, r->roots.nodes, r->roots.cost, r->roots.reports,
						r->roots.why});
	for (size_t k = 0; !rc && r->left && k < r->kept; k++) {
		const struct left_acc *l = &r->left[k];
		hg_tree_left out = {r->kid[k], l->nodes, l->cost, l->reports, l->why};
		if (l->nodes)
			rc = left(user, &out);
	}
	return rc;
}

/* The floor of o: ms, or a share of the tree's cost rounded up (2% of 99
 * ms is 2 ms, which 1.98 ms would not reach). */
static int64_t floor_of(const hg_tree_prune *o, int64_t total)
{
	if (o->min_cost >= 0)
		return o->min_cost;
	double share = o->min_share * (double)total;
	if (share >= 9.2e18)
		return INT64_MAX;
	int64_t ms = (int64_t)share;
	return ms + ((double)ms < share);
}

/* A big row passes through SQLite's page cache (16 MB for a store):
 * read with a small one, so that a 32 MB tree leaves no 16 MB of its
 * pages behind.  The size it had, to restore; 0: unchanged. */
#define BIG_ROW (1 << 20)
#define SMALL_CACHE "PRAGMA cache_size = -1024" /* KiB */

static int64_t shrink_cache(struct reading *r)
{
	int64_t size = 0;
	if (r->text.size < BIG_ROW ||
	    store_query_int(r->store, S_TREE_CACHE, "PRAGMA cache_size", &size) < 0 || size == 0 ||
	    db_exec(r->store->db, SMALL_CACHE) < 0)
		return 0;
	return size;
}

static void restore_cache(struct reading *r, int64_t size)
{
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA cache_size = %lld", (long long)size);
	if (size)
		db_exec(r->store->db, sql); /* a cache of the wrong size is no error */
}

static int read_tree(struct reading *r, struct rules *ru, hg_tree_fn fn, hg_tree_left_fn left,
		     void *user)
{
	int rc = open_row(r);
	if (rc || !r->blob)
		return rc;
	r->cache = shrink_cache(r);
	if ((rc = survey(r)) != 0 || (!r->ordered && (rc = read_whole(r)) != 0))
		return rc;
	bool costly = ru->o && ru->o->max_nodes && r->n > ru->o->max_nodes;
	if ((rc = map_init(r, costly && ru->o->max_depth > 0)) != 0)
		return rc;
	if (ru->o) {
		ru->min_cost = floor_of(ru->o, r->total);
		size_t cap = ru->o->max_nodes;
		ru->slots = cap ? cap - (r->n_key < cap ? r->n_key : cap) : 0;
		ru->costly = INT64_MIN; /* all fit, unless more than cap */
		if (costly) {
			map_clear(r);
			rewind_nodes(r);
			if ((rc = find_costly(r, ru)) != 0)
				return rc;
		}
	}
	map_clear(r);
	rewind_nodes(r);
	if ((rc = read_nodes(r, ru, fn, user)) != 0)
		return rc;
	return left ? tell_left(r, left, user) : 0;
}

int hg_store_cluster_tree_pruned(hg_store *store, const char *hash, const hg_tree_prune *prune,
				 hg_tree_fn fn, hg_tree_left_fn left, void *user,
				 hg_tree_read *out)
{
	struct reading r = {.store = store, .hash = hash};
	/* Nothing can be left out: read as such (no per-node figures). */
	bool no_floor = prune && (prune->min_cost == 0 ||
				  (prune->min_cost < 0 && prune->min_share <= 0));
	bool none = !prune || (prune->max_depth <= 0 && !prune->max_nodes && no_floor);
	struct rules ru = {none ? NULL : prune, 0, 0, 0, 0};
	int rc = read_tree(&r, &ru, fn, left, user);
	if (!rc && out)
		*out = (hg_tree_read){(int64_t)r.n, (int64_t)r.kept, r.total, ru.min_cost, r.why};
	db_blob_close(r.blob);
	restore_cache(&r, r.cache);
	store_tree_text_release(&r.text);
	free(r.all);
	free(r.val);
	free(r.ids);
	free(r.kid);
	free(r.kdepth);
	free(r.keff);
	free(r.left);
	free(r.dep);
	return rc;
}

int hg_store_cluster_tree(hg_store *store, const char *hash, hg_tree_fn fn, void *user)
{
	return hg_store_cluster_tree_pruned(store, hash, NULL, fn, NULL, user, NULL);
}
