/* hangar show's tree pruning (hg_cluster_tree, src/lib/render/cluster_tree.c)
 * on the merged trees of a store of the 581
 * real Matrix reports of testdata/matrix-mangatoon: whatever the options,
 * the StackKey path is shown whole, every shown node's parent is shown,
 * the limits hold, what is left out is counted exactly once, and the walk
 * gives children costliest first.  The tree read pruned as show reads it
 * (hg_store_cluster_tree_pruned) shows exactly what the whole tree shows;
 * read with a --max-nodes below its size, it reads that many, the
 * costliest, and counts the rest.  argv[1] is the testdata/ folder. */
#include <stdlib.h>
#include <string.h>

#include "hangar/input.h"
#include "hangar/render.h"
#include "store_fixture.h"

#define NO_PARENT ((size_t)-1) /* hg_cluster_node.parent_at of a root */

/* The order the tree promises (hangar/render.h): costlier, then more
 * reports, then by frame text and id. */
static bool before(const hg_cluster_node *a, const hg_cluster_node *b)
{
	if (a->total != b->total)
		return a->total > b->total;
	if (a->reports != b->reports)
		return a->reports > b->reports;
	int c = strcmp(a->symbol, b->symbol);
	return c ? c < 0 : a->id < b->id;
}

/* The index of t's node with this id (NO_PARENT: none). */
static size_t find_id(const hg_cluster_tree *t, int64_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].id == id)
			return i;
	return NO_PARENT;
}

static const char *testdata = "testdata";

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	hg_store *store;
	char big[33];   /* the cluster with the most reports */
	char deep[33];  /* of the 30 biggest, the one with the longest key path */
	char wide[33];  /* of the 30 biggest, the one with the most tree nodes */
};

static int add_real(void *user, hg_report *rep)
{
	struct fx *f = user;
	if (!rep->error) {
		hg_signature sig;
		assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
		bool dup;
		assert_int_equal(hg_store_add_report(f->store, rep, &sig, rep->text, rep->text_len,
						     &dup), 0);
	}
	hg_report_destroy(rep);
	return 0;
}

struct hashes {
	char hash[30][33];
	size_t n;
};

static int take_hash(void *user, const hg_cluster_row *row)
{
	struct hashes *h = user;
	snprintf(h->hash[h->n++], 33, "%s", row->hash);
	return 0;
}

/* [0]: key-path nodes, [1]: all nodes. */
static int count_key(void *user, const hg_tree_row *row)
{
	int64_t *n = user;
	n[0] += row->on_key_path;
	n[1]++;
	return 0;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	hg_ctx_init(&f->ctx);
	if (store_tmp_open(&f->ctx, f->dir, f->path, "/tmp/hg-show-XXXXXX", &f->store) != 0)
		return -1;
	char path[512], *data = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/matrix-mangatoon/reports.ndjson", testdata);
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.keep_text = 1;
	assert_int_equal(hg_store_begin(f->store), 0);
	assert_int_equal(hg_reports_read(&ctx, path, data, len, add_real, f), 0);
	assert_int_equal(hg_store_commit(f->store), 0);
	free(data);
	struct hashes h = {.n = 0};
	hg_top_query q = {.sort = "count", .limit = 30};
	assert_int_equal(hg_store_top(f->store, &q, take_hash, &h), 0);
	assert_true(h.n >= 10);
	snprintf(f->big, sizeof f->big, "%s", h.hash[0]);
	int64_t longest = -1, widest = -1;
	for (size_t i = 0; i < h.n; i++) {
		int64_t n[2] = {0, 0};
		assert_int_equal(hg_store_cluster_tree(f->store, h.hash[i], count_key, n), 0);
		if (n[0] > longest) {
			longest = n[0];
			snprintf(f->deep, sizeof f->deep, "%s", h.hash[i]);
		}
		if (n[1] > widest) {
			widest = n[1];
			snprintf(f->wide, sizeof f->wide, "%s", h.hash[i]);
		}
	}
	assert_true(longest >= 4);
	assert_true(widest > 200);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	store_tmp_close(f->store, f->dir, f->path);
	free(f);
	return 0;
}

/* ---- what must hold ---- */

struct walked {
	const hg_cluster_tree *t;
	size_t visits;
	size_t last_at_depth[4096]; /* the node visited last at each depth, + 1 */
	int64_t hidden;
};

static void visit(void *user, const hg_cluster_node *n)
{
	struct walked *w = user;
	const hg_cluster_tree *t = w->t;
	size_t at = (size_t)(n - t->nodes);
	assert_true(n->shown);
	assert_true(n->depth < 4096);
	/* Its parent is the last node visited one level up; an earlier
	 * sibling (same parent) comes first in cost order. */
	if (n->depth > 0)
		assert_int_equal(w->last_at_depth[n->depth - 1], n->parent_at + 1);
	size_t prev = w->last_at_depth[n->depth];
	if (prev && t->nodes[prev - 1].parent_at == n->parent_at)
		assert_true(before(&t->nodes[prev - 1], n));
	w->last_at_depth[n->depth] = at + 1;
	if (n->depth + 1 < 4096)
		w->last_at_depth[n->depth + 1] = 0;
	w->visits++;
}

static void hidden(void *user, const hg_cluster_node *parent, long depth, int64_t nodes,
		   int64_t cost, unsigned why)
{
	struct walked *w = user;
	(void)cost;
	assert_true(nodes > 0);
	assert_true(why != 0);
	if (parent)
		assert_int_equal(depth, parent->depth + 1);
	w->hidden += nodes;
}

/* The StackKey path as hangar show documents it: from the roots, the
 * key-path child most reports pass through, as long as there is one. */
static size_t key_path(const hg_cluster_tree *t, size_t *path, size_t max)
{
	size_t n = 0, parent = NO_PARENT;
	for (;;) {
		size_t best = NO_PARENT;
		for (size_t i = 0; i < t->n; i++) {
			const hg_cluster_node *c = &t->nodes[i];
			if (c->parent_at != parent || !c->key)
				continue;
			if (best == NO_PARENT || c->reports > t->nodes[best].reports ||
			    (c->reports == t->nodes[best].reports && before(c, &t->nodes[best])))
				best = i;
		}
		if (best == NO_PARENT || n == max)
			return n;
		path[n++] = best;
		parent = best;
	}
}

/* The tree as hangar show reads it: pruned as it is read by o. */
static void read_pruned(struct fx *f, const char *hash, const hg_cluster_tree_opts *o,
			hg_cluster_tree *t)
{
	hg_cluster_tree_init(t);
	hg_tree_prune p = {o->min_cost, o->min_share, o->max_depth, o->max_nodes};
	hg_tree_read r;
	assert_int_equal(hg_store_cluster_tree_pruned(f->store, hash, &p, hg_cluster_tree_add,
						      hg_cluster_tree_left, t, &r), 0);
	assert_true(r.read == (int64_t)t->n);
	t->stored = (size_t)r.nodes;
}

static void read_whole(struct fx *f, const char *hash, hg_cluster_tree *t)
{
	hg_cluster_tree_init(t);
	assert_int_equal(hg_store_cluster_tree(f->store, hash, hg_cluster_tree_add, t), 0);
}

/* What a walk shows, as text: a line per node and per line of what was
 * left out. */
struct trace {
	char *s;
	size_t len, cap;
	unsigned whys;
};

static void trace_put(struct trace *tr, const char *line)
{
	size_t n = strlen(line);
	if (tr->len + n + 1 > tr->cap) {
		tr->cap = 2 * (tr->len + n + 1);
		tr->s = realloc(tr->s, tr->cap);
		assert_non_null(tr->s);
	}
	memcpy(tr->s + tr->len, line, n + 1);
	tr->len += n;
}

static void trace_node(void *user, const hg_cluster_node *n)
{
	char line[128];
	snprintf(line, sizeof line, "%lld@%ld\n", (long long)n->id, n->depth);
	trace_put(user, line);
}

static void trace_hidden(void *user, const hg_cluster_node *parent, long depth, int64_t nodes,
			 int64_t cost, unsigned why)
{
	struct trace *tr = user;
	char line[128];
	snprintf(line, sizeof line, "... %lld@%ld %lld %lld %u\n",
		 (long long)(parent ? parent->id : 0), depth, (long long)nodes, (long long)cost, why);
	trace_put(tr, line);
	tr->whys |= why;
}

/* Prunes t by o and walks it: the trace (caller frees .s). */
static struct trace walk_trace(hg_cluster_tree *t, const hg_cluster_tree_opts *o)
{
	struct trace tr = {NULL, 0, 0, 0};
	trace_put(&tr, "");
	assert_int_equal(hg_cluster_tree_prune(t, o), 0);
	hg_cluster_visitor v = {trace_node, trace_hidden, &tr};
	assert_int_equal(hg_cluster_tree_walk(t, &v), 0);
	return tr;
}

/* The invariants of a pruned tree t (read whole, or pruned as read). */
static void check_tree(const char *hash, hg_cluster_tree *t, hg_cluster_tree_opts o)
{
	assert_true(t->n > 0);
	size_t path[4096];
	size_t n_path = key_path(t, path, 4096);
	assert_true(n_path > 0);
	for (size_t i = 0; i < n_path; i++)
		if (!t->nodes[path[i]].shown)
			fail_msg("%s: StackKey path node %zu (%s) left out (limit %ld, depth %ld, "
				 "min_cost %lld)", hash, i, t->nodes[path[i]].symbol, o.limit,
				 o.max_depth, (long long)t->min_cost);
	size_t shown = 0;
	for (size_t i = 0; i < t->n; i++) {
		const hg_cluster_node *c = &t->nodes[i];
		if (!c->shown)
			continue;
		shown++;
		if (c->parent_at != NO_PARENT)
			assert_true(t->nodes[c->parent_at].shown);
		if (c->keep)
			continue;
		if (o.max_depth > 0)
			assert_true(c->depth < o.max_depth);
		assert_true(c->total >= t->min_cost);
	}
	assert_int_equal(shown, t->shown);
	if (o.limit > 0)
		assert_true(shown <= (size_t)o.limit + n_path);
	if (o.limit == 0 && o.max_depth == 0 && o.min_cost == 0)
		assert_int_equal(shown, t->n);
	struct walked *w = calloc(1, sizeof *w);
	assert_non_null(w);
	w->t = t;
	hg_cluster_visitor v = {visit, hidden, w};
	assert_int_equal(hg_cluster_tree_walk(t, &v), 0);
	assert_int_equal(w->visits, shown);
	/* each node of the stored tree once, shown or counted */
	assert_int_equal((size_t)w->hidden + shown, t->stored ? t->stored : t->n);
	free(w);
}

/* Read whole, then pruned; read pruned, then pruned: the same tree shown,
 * the same lines of what was left out. */
static void check(struct fx *f, const char *hash, hg_cluster_tree_opts o)
{
	hg_cluster_tree whole, read;
	read_whole(f, hash, &whole);
	size_t n = whole.n;
	struct trace a = walk_trace(&whole, &o);
	check_tree(hash, &whole, o);
	read_pruned(f, hash, &o, &read);
	assert_true(read.n <= n);
	assert_int_equal(read.stored, n);
	struct trace b = walk_trace(&read, &o);
	check_tree(hash, &read, o);
	assert_string_equal(a.s, b.s);
	free(a.s);
	free(b.s);
	hg_cluster_tree_release(&whole);
	hg_cluster_tree_release(&read);
}

static const hg_cluster_tree_opts every[] = {
	{-1, 0.001, 0, 30, 50000}, /* hangar show's defaults */
	{0, 0, 0, 0, 50000},       /* --all */
	{0, 0, 0, 1, 50000},       /* --limit 1 */
	{0, 0, 1, 0, 50000},       /* --max-depth 1 */
	{0, 0, 2, 3, 50000},
	{-1, 1.0, 0, 0, 50000},    /* --min-cost 100% */
	{1000000000, 0, 0, 0, 50000},
	{-1, 0.5, 1, 1, 50000},    /* all at once */
	{-1, 0.02, 4, 10, 50000},
	{-1, 0.02, 4, 10, 0},      /* --max-nodes 0: no cap */
};

static void test_key_path_survives(void **state)
{
	struct fx *f = *state;
	for (size_t i = 0; i < sizeof every / sizeof *every; i++) {
		check(f, f->big, every[i]);
		check(f, f->deep, every[i]);
		check(f, f->wide, every[i]);
	}
}

/* The widest tree (hundreds of nodes): 30 by default, costliest first. */
static void test_defaults_fit_a_screen(void **state)
{
	struct fx *f = *state;
	hg_cluster_tree t;
	hg_cluster_tree_opts o = every[0];
	read_pruned(f, f->wide, &o, &t);
	assert_true(t.stored > 200);
	assert_int_equal(hg_cluster_tree_prune(&t, &o), 0);
	assert_true(t.shown <= 30);
	assert_true(t.shown >= 10);
	/* The roots come costliest first. */
	for (size_t i = 1; i < t.n_roots; i++)
		assert_true(t.nodes[t.roots[i - 1]].total >= t.nodes[t.roots[i]].total);
	char why[160];
	hg_cluster_tree_why(&o, t.min_cost, HG_PRUNED_COST | HG_PRUNED_LIMIT, why, sizeof why);
	char want[160];
	snprintf(want, sizeof want, "below 0.1%% of the cost (%lld ms), past the 30 costliest",
		 (long long)t.min_cost);
	assert_string_equal(why, want);
	hg_cluster_tree_why(&o, t.min_cost, HG_PRUNED_CAP, why, sizeof why);
	assert_string_equal(why, "not among the 50000 read (--max-nodes)");
	hg_cluster_tree_release(&t);
}

/* Read with --max-nodes below the tree's size: at most that many nodes,
 * the key path first, then the costliest (a node counting as costly as
 * the cheapest off the key path from its root down to it: those left out
 * whose parent was read count no more than any read), the rest counted
 * once where it hangs, and the tree's cost whole. */
static void check_capped(struct fx *f, const char *hash, size_t cap, hg_cluster_tree_opts o)
{
	hg_cluster_tree whole, t;
	read_whole(f, hash, &whole);
	hg_cluster_tree_opts none = {0, 0, 0, 0, 0};
	assert_int_equal(hg_cluster_tree_prune(&whole, &none), 0);
	o.max_nodes = cap;
	read_pruned(f, hash, &o, &t);
	assert_true(t.n <= cap);
	assert_int_equal(t.stored, whole.n);
	/* the floor the reading applied: o's, as hg_cluster_tree_prune makes it */
	double share = o.min_share * (double)whole.total_cost;
	int64_t floor = o.min_cost >= 0 ? o.min_cost
					: (int64_t)share + ((double)(int64_t)share < share);
	int64_t *eff = malloc(whole.n * sizeof *eff), cheapest = INT64_MAX, dearest_left = -1;
	assert_non_null(eff);
	size_t n_key = 0, read_key = 0;
	for (size_t i = 0; i < whole.n; i++) { /* in id order: parents first */
		const hg_cluster_node *c = &whole.nodes[i];
		int64_t up = c->parent_at == NO_PARENT ? INT64_MAX : eff[c->parent_at];
		eff[i] = c->key ? INT64_MAX : c->total < floor ? -1 : c->total < up ? c->total : up;
		n_key += c->key;
		size_t at = find_id(&t, c->id);
		bool parent_read = c->parent == 0 || find_id(&t, c->parent) != NO_PARENT;
		if (at != NO_PARENT) {
			assert_true(parent_read);
			read_key += c->key;
			if (!c->key)
				cheapest = eff[i] < cheapest ? eff[i] : cheapest;
		} else if (parent_read && !c->key && eff[i] >= 0) {
			dearest_left = eff[i] > dearest_left ? eff[i] : dearest_left;
		}
	}
	free(eff);
	if (n_key <= cap)
		assert_int_equal(read_key, n_key);
	if (t.n > read_key)
		assert_true(dearest_left <= cheapest);
	struct trace tr = walk_trace(&t, &o);
	assert_int_equal(t.total_cost, whole.total_cost);
	if (t.n < whole.n && o.min_cost == 0)
		assert_true(tr.whys & HG_PRUNED_CAP);
	free(tr.s);
	check_tree(hash, &t, o);
	hg_cluster_tree_release(&whole);
	hg_cluster_tree_release(&t);
}

static void test_capped_read(void **state)
{
	struct fx *f = *state;
	static const size_t caps[] = {1, 2, 5, 17, 60, 150};
	hg_cluster_tree_opts all = {0, 0, 0, 0, 0}, defaults = every[0];
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		check_capped(f, f->wide, caps[i], all);
		check_capped(f, f->big, caps[i], all);
		check_capped(f, f->deep, caps[i], defaults);
		check_capped(f, f->wide, caps[i], defaults);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_path_survives),
		cmocka_unit_test(test_defaults_fit_a_screen),
		cmocka_unit_test(test_capped_read),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
