/* A cluster's merged tree as the store reads and writes it when it is big
 * (a hostile upload: a million-line stack).  Read a piece at a time and
 * pruned as it is read (hg_store_cluster_tree_pruned): the nodes read and
 * what was left out under each, against the documented rules worked out
 * here in memory, for a tree written in id order, with sparse ids, and out
 * of order; damaged texts refused.  Written: a report's tree capped at
 * HG_STORE_REPORT_TREE_MAX nodes, a cluster's at HG_STORE_CLUSTER_TREE_MAX,
 * their costs still adding up. */
#include <sys/stat.h>

#include "store/store_tree_read.h"
#include "store_fixture.h"

#include "hangar/stack.h"

#define HASH "abc00000000000000000000000000000"
#define N_SYMBOLS 500
#define SYMBOL0 1000 /* symbol ids SYMBOL0 + 1.. are "s1".. */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	char last_diag[512];
	size_t n_diags;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	f->n_diags++;
	snprintf(f->last_diag, sizeof f->last_diag, "%s", d->message);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	store_ctx_init(&f->ctx, on_diag, f);
	assert_int_equal(store_tmp_make(f->dir, f->path, "/tmp/hg-stree-XXXXXX"), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	store_tmp_remove(f->dir, f->path);
	free(f);
	return 0;
}

static const char *const frames[] = {"a.B.c"};

static hg_signature sig_of(const char *hash)
{
	hg_signature sig = {0};
	snprintf(sig.hash, sizeof sig.hash, "%s", hash);
	sig.family = "slow_method";
	sig.title = sig.key_symbol = "a.B.c";
	sig.frames = (const char **)frames;
	sig.n_frames = 1;
	return sig;
}

/* A slow-method report whose Matrix stack is the text given ("\\n"
 * between lines, JSON-escaped); malloc'd. */
static char *report_json(const char *stack, long cost, int n)
{
	size_t size = strlen(stack) + 256;
	char *s = malloc(size);
	assert_non_null(s);
	snprintf(s, size,
		 "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"NORMAL\",\"cost\":%ld,"
		 "\"stack\":\"%s\",\"scene\":\"s\",\"process\":\"a.app\",\"n\":%d}}",
		 cost, stack, n);
	return s;
}

static void add_text(hg_store *st, const char *text, const char *hash, hg_store_symtab *tab)
{
	hg_report *rep = read_report("mem.json", text, strlen(text));
	hg_signature sig = sig_of(hash);
	hg_store_prep *prep = NULL;
	bool dup;
	assert_int_equal(hg_store_prepare_with(rep, text, strlen(text), tab, &prep), 0);
	assert_int_equal(hg_store_add_prepared(st, rep, &sig, text, strlen(text), prep, &dup), 0);
	hg_store_prep_destroy(prep);
	hg_report_destroy(rep);
}

/* ---- a big tree written into the store's row ---- */

struct tree {
	struct store_tree_node *v;
	size_t n;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* n nodes in id order: a few roots, parents among the last hundred nodes
 * (so it is deep), costs from 0 to 999 (many ties), a key path from the
 * first root down a chain. */
static struct tree make_tree(size_t n)
{
	struct tree t = {calloc(n, sizeof *t.v), n};
	assert_non_null(t.v);
	for (size_t i = 0; i < n; i++) {
		int64_t id = (int64_t)i + 1, parent = 0;
		if (i > 0 && next_rand() % 50 != 0) {
			size_t back = 1 + next_rand() % (i < 100 ? i : 100);
			parent = t.v[i - back].id;
		}
		int64_t total = (int64_t)(next_rand() % 1000);
		int64_t symbol = SYMBOL0 + 1 + (int64_t)(next_rand() % N_SYMBOLS);
		int64_t reports = 1 + (int64_t)(next_rand() % 5);
		t.v[i] = (struct store_tree_node){id,    parent, symbol,    reports,
						  total, total,  total / 3, false};
	}
	for (size_t i = 0; i < n && i < 2000; i += 1 + i % 7) /* parents marked before children */
		if (i == 0 || (t.v[i].parent && t.v[t.v[i].parent - 1].key))
			t.v[i].key = true;
	return t;
}

/* The store with one cluster (HASH) whose tree row is nodes' text
 * (shuffled: written out of id order), and the symbols it names. */
static void write_store(struct fx *f, const struct store_tree_node *nodes, size_t n, bool shuffle)
{
	store_tmp_remove(f->dir, f->path);
	assert_int_equal(mkdir(f->dir, 0700), 0);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *text = report_json("0,1,1,100\\n1,2,1,90\\n", 100, 1);
	add_text(st, text, HASH, NULL);
	free(text);
	hg_store_close(st);
	struct store_tree_node *order = malloc((n ? n : 1) * sizeof *order);
	assert_non_null(order);
	memcpy(order, nodes, n * sizeof *order);
	for (size_t i = n; shuffle && i > 1; i--) {
		size_t j = next_rand() % i;
		struct store_tree_node tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
	size_t len;
	char *json = store_tree_encode(order, n, &len);
	assert_non_null(json);
	hg_db *db = NULL;
	assert_int_equal(db_open(f->path, 30000, &db), 0);
	char sql[256];
	snprintf(sql, sizeof sql,
		 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
		 " INSERT INTO symbols(id, text) SELECT %d + x, 's' || x FROM c", N_SYMBOLS, SYMBOL0);
	assert_int_equal(db_exec(db, sql), 0);
	hg_db_stmt *up = db_stmt(db, 0, "UPDATE trees SET nodes = ?1 WHERE cluster ="
				 " (SELECT id FROM clusters WHERE hash = ?2)");
	assert_non_null(up);
	db_bind_text_n(up, 1, json, len);
	db_bind_text(up, 2, HASH);
	assert_int_equal(db_step(up), DB_DONE);
	db_reset(up);
	db_close(db);
	free(json);
	free(order);
}

/* ---- the rules, worked out in memory ---- */

struct outcome {
	char *s;            /* "r id" per node read, then "l parent nodes cost reports why" */
	size_t len, cap;
	int64_t read;
};

static void put(struct outcome *o, const char *line)
{
	size_t n = strlen(line);
	if (o->len + n + 1 > o->cap) {
		o->cap = 2 * (o->len + n + 1) + 4096;
		o->s = realloc(o->s, o->cap);
		assert_non_null(o->s);
	}
	memcpy(o->s + o->len, line, n + 1);
	o->len += n;
}

/* The model's ids are times this (a tree written with sparse ids). */
static int64_t id_scale = 1;

static int on_row(void *user, const hg_tree_row *row)
{
	struct outcome *o = user;
	char line[160];
	snprintf(line, sizeof line, "r %lld %lld %s %lld %lld %lld\n", (long long)row->id,
		 (long long)row->parent, row->symbol, (long long)row->reports,
		 (long long)row->total_cost, (long long)row->on_key_path);
	put(o, line);
	o->read++;
	return 0;
}

static int on_left(void *user, const hg_tree_left *l)
{
	char line[160];
	snprintf(line, sizeof line, "l %lld %lld %lld %lld %u\n", (long long)l->parent,
		 (long long)l->nodes, (long long)l->cost, (long long)l->reports, l->why);
	put(user, line);
	return 0;
}

static int by_cost_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x < y) - (x > y);
}

/* The rules applied to t: each node's depth and how costly it counts
 * (its cost, no more than its parent's count; the key path above all, a
 * node depth or the floor leave out below all), the floor, and what the
 * costliest count: more than `costly`, or the first `ties` counting it. */
struct plan {
	long *depth;
	int64_t *eff, floor, costly;
	size_t ties;
};

static struct plan plan_of(const struct tree *t, const hg_tree_prune *p)
{
	size_t n = t->n, n_key = 0, cap = p->max_nodes, n_costs = 0;
	struct plan pl = {malloc(n * sizeof *pl.depth), malloc(n * sizeof *pl.eff), 0, INT64_MIN, 0};
	int64_t *costs = malloc(n * sizeof *costs), total = 0;
	assert_true(pl.depth && pl.eff && costs);
	for (size_t i = 0; i < n; i++) {
		const struct store_tree_node *c = &t->v[i];
		pl.depth[i] = c->parent ? pl.depth[c->parent - 1] + 1 : 0;
		n_key += c->key;
		total += c->parent ? 0 : c->total;
	}
	double share = p->min_share * (double)total;
	pl.floor = p->min_cost >= 0 ? p->min_cost : (int64_t)share + ((double)(int64_t)share < share);
	for (size_t i = 0; i < n; i++) {
		const struct store_tree_node *c = &t->v[i];
		int64_t up = c->parent ? pl.eff[c->parent - 1] : INT32_MAX;
		if (c->key)
			pl.eff[i] = INT32_MAX;
		else if ((p->max_depth > 0 && pl.depth[i] >= p->max_depth) || c->total < pl.floor)
			pl.eff[i] = -1;
		else
			pl.eff[i] = c->total < up ? c->total : up;
		if (!c->key && pl.eff[i] >= 0)
			costs[n_costs++] = pl.eff[i];
	}
	qsort(costs, n_costs, sizeof *costs, by_cost_desc);
	if (cap && n > cap) {
		size_t slots = cap - (n_key < cap ? n_key : cap), above = 0;
		pl.costly = !slots ? INT64_MAX : n_costs < slots ? INT64_MIN : costs[slots - 1];
		while (above < n_costs && above < slots && costs[above] > pl.costly)
			above++;
		pl.ties = slots - above;
	}
	free(costs);
	return pl;
}

/* What the store must give for tree t pruned by p, as hg_tree_prune
 * documents it. */
static struct outcome model(const struct tree *t, const hg_tree_prune *p)
{
	size_t n = t->n, cap = p->max_nodes, kept = 0;
	struct plan pl = plan_of(t, p);
	long *at = malloc(n * sizeof *at); /* read: its place; left out: -2 - where it counts */
	struct { int64_t nodes, cost, reports; unsigned why; } *left = calloc(n + 1, sizeof *left);
	assert_true(at && left);
	struct outcome o = {NULL, 0, 0, 0};
	put(&o, "");
	for (size_t i = 0; i < n; i++) {
		const struct store_tree_node *c = &t->v[i];
		long up = c->parent ? at[c->parent - 1] : -1;
		if (c->parent && up < 0) {
			at[i] = up;
			left[-2 - up + 1].nodes++;
			continue;
		}
		bool full = cap && kept >= cap;
		unsigned why = 0;
		if (c->key)
			why = full ? HG_TREE_LEFT_CAP : 0;
		else if (p->max_depth > 0 && pl.depth[i] >= p->max_depth)
			why = HG_TREE_LEFT_DEPTH;
		else if (c->total < pl.floor)
			why = HG_TREE_LEFT_COST;
		else if (full || pl.eff[i] < pl.costly || (pl.eff[i] == pl.costly && !pl.ties))
			why = HG_TREE_LEFT_CAP;
		else if (pl.eff[i] == pl.costly)
			pl.ties--;
		if (why) {
			at[i] = -2 - up;
			left[up + 1].nodes++;
			left[up + 1].cost += c->total;
			left[up + 1].reports += c->reports;
			left[up + 1].why |= why;
			continue;
		}
		at[i] = (long)kept++;
		char sym[32];
		snprintf(sym, sizeof sym, "s%lld", (long long)(c->symbol - SYMBOL0));
		hg_tree_row row = {c->id * id_scale, c->parent * id_scale, sym, c->reports,
				   c->total, 0, 0, c->key};
		on_row(&o, &row);
	}
	/* what was left out: beside the roots, then under each node read */
	for (long k = -1; k < (long)n; k++) {
		if (k >= 0 && at[k] < 0)
			continue;
		long slot = k < 0 ? 0 : at[k] + 1;
		hg_tree_left l = {k < 0 ? 0 : t->v[k].id * id_scale, left[slot].nodes,
				  left[slot].cost, left[slot].reports, left[slot].why};
		if (l.nodes)
			on_left(&o, &l);
	}
	free(at);
	free(left);
	free(pl.depth);
	free(pl.eff);
	return o;
}

static struct outcome read_store(struct fx *f, const hg_tree_prune *p, int want)
{
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	struct outcome o = {NULL, 0, 0, 0};
	put(&o, "");
	hg_tree_read r;
	assert_int_equal(hg_store_cluster_tree_pruned(st, HASH, p, on_row, on_left, &o, &r), want);
	if (!want)
		assert_int_equal(r.read, o.read);
	hg_store_close(st);
	return o;
}

static const hg_tree_prune rules[] = {
	{0, 0, 0, 0},          /* nothing left out */
	{0, 0, 0, 1},
	{0, 0, 0, 100},
	{0, 0, 0, 5000},
	{0, 0, 0, 9999},
	{-1, 0.001, 0, 50000}, /* show's defaults */
	{-1, 0.001, 0, 700},
	{300, 0, 0, 0},
	{0, 0, 6, 0},
	{-1, 0.0005, 9, 1000},
	{998, 0, 0, 3},
};

/* Rules [0, n) read from the store as the model says. */
static void check_rules(struct fx *f, const struct tree *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct outcome want = model(t, &rules[i]), got = read_store(f, &rules[i], 0);
		if (strcmp(want.s, got.s) != 0)
			fail_msg("rules %zu: read %lld, wanted %lld", i, (long long)got.read,
				 (long long)want.read);
		if (rules[i].max_nodes)
			assert_true(got.read <= (int64_t)rules[i].max_nodes);
		free(want.s);
		free(got.s);
	}
}

#define ALL_RULES (sizeof rules / sizeof *rules)

/* A 10,000-node tree (~330 KB of text, many pieces), in id order: read as
 * the rules say, whole with no rules, as hg_store_cluster_tree. */
static void test_pruned_as_read(void **state)
{
	struct fx *f = *state;
	struct tree t = make_tree(10000);
	write_store(f, t.v, t.n, false);
	check_rules(f, &t, ALL_RULES);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	struct outcome whole = {NULL, 0, 0, 0};
	put(&whole, "");
	assert_int_equal(hg_store_cluster_tree(st, HASH, on_row, &whole), 0);
	assert_int_equal(whole.read, 10000);
	hg_store_close(st);
	struct outcome none = model(&t, &rules[0]);
	assert_string_equal(whole.s, none.s);
	free(whole.s);
	free(none.s);
	free(t.v);
}

/* The same tree with ids far apart (the map by id becomes a sorted list),
 * and written out of id order (read whole and sorted): the same reads. */
static void test_sparse_and_unordered(void **state)
{
	struct fx *f = *state;
	struct tree t = make_tree(5000), sparse = {malloc(t.n * sizeof *t.v), t.n};
	assert_non_null(sparse.v);
	for (size_t i = 0; i < t.n; i++) {
		sparse.v[i] = t.v[i];
		sparse.v[i].id *= 1000003;
		sparse.v[i].parent *= 1000003;
	}
	write_store(f, sparse.v, sparse.n, false);
	id_scale = 1000003;
	check_rules(f, &t, 7);
	id_scale = 1;
	write_store(f, t.v, t.n, true);
	check_rules(f, &t, 7);
	free(sparse.v);
	free(t.v);
}

/* A row cut short past its first piece, a node whose parent is not in the
 * tree, a symbol the store lacks, an id twice: refused, and said. */
static void test_damaged(void **state)
{
	struct fx *f = *state;
	struct tree t = make_tree(8000);
	write_store(f, t.v, t.n, false);
	hg_db *db = NULL;
	assert_int_equal(db_open(f->path, 30000, &db), 0);
	assert_int_equal(
		db_exec(db, "UPDATE trees SET nodes = substr(nodes, 1, length(nodes) * 9 / 10)"), 0);
	db_close(db);
	f->n_diags = 0;
	struct outcome o = read_store(f, &rules[2], HG_EPARSE);
	assert_contains(f->last_diag,
			"cluster " HASH ": its stored call tree (trees.nodes) is not readable");
	free(o.s);

	t.v[6000].symbol = 7; /* no such symbol */
	write_store(f, t.v, t.n, false);
	f->n_diags = 0;
	o = read_store(f, NULL, HG_EPARSE);
	assert_contains(f->last_diag, "names a symbol the store does not have");
	free(o.s);
	t.v[6000].symbol = SYMBOL0 + 1;

	t.v[4500].parent = 4000;
	memmove(&t.v[3999], &t.v[4000], (t.n - 4000) * sizeof *t.v); /* no node 4000 */
	write_store(f, t.v, t.n - 1, false);
	f->n_diags = 0;
	o = read_store(f, &rules[3], HG_EPARSE);
	assert_contains(f->last_diag, "has a node whose parent is not in it");
	free(o.s);
	free(t.v);

	t = make_tree(8000);
	t.v[5000].id = t.v[4999].id; /* the same id twice: out of order, read whole: refused */
	write_store(f, t.v, t.n, false);
	f->n_diags = 0;
	o = read_store(f, &rules[1], HG_EPARSE);
	assert_contains(f->last_diag, "is not readable");
	free(o.s);
	free(t.v);
}

static int stop_at_three(void *user, const hg_tree_row *row)
{
	(void)row;
	return ++*(int *)user == 3 ? 42 : 0;
}

static void test_fn_stops(void **state)
{
	struct fx *f = *state;
	struct tree t = make_tree(500);
	write_store(f, t.v, t.n, false);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	int seen = 0;
	assert_int_equal(hg_store_cluster_tree(st, HASH, stop_at_three, &seen), 42);
	assert_int_equal(seen, 3);
	hg_store_close(st);
	free(t.v);
}

/* ---- written capped ---- */

struct sums {
	int64_t nodes, left_nodes, self, key, root_total;
};

static int sum_row(void *user, const hg_tree_row *row)
{
	struct sums *s = user;
	s->nodes++;
	s->self += row->self_cost;
	s->key += row->on_key_path;
	if (row->parent == 0 && strcmp(row->symbol, STORE_TREE_LEFT_SYMBOL) != 0)
		s->root_total += row->total_cost;
	s->left_nodes += strcmp(row->symbol, STORE_TREE_LEFT_SYMBOL) == 0;
	return 0;
}

/* A Matrix stack of n lines: a root, then a walk up and down 40 levels of
 * distinct methods; the StackKey deep in it. */
static char *big_stack(size_t n)
{
	char *s = malloc(n * 32 + 64), *p = s;
	assert_non_null(s);
	p += sprintf(p, "0,1048574,1,900000\\n");
	long depth = 0;
	for (size_t i = 1; i < n; i++) {
		depth += next_rand() % 3 == 0 ? -1 : 1;
		depth = depth < 1 ? 1 : depth > 40 ? 40 : depth;
		p += sprintf(p, "%ld,%zu,1,%llu\\n", depth, 10 + i,
			     (unsigned long long)(next_rand() % 20));
	}
	return s;
}

/* A report's tree past the cap: stored with at most HG_STORE_REPORT_TREE_MAX
 * nodes and the "(frames left out at ingest)" nodes, its root's cost and
 * the selves of all its frames whole, the key path whole; the same with a
 * symbol table (as ingest's reader prepares reports). */
static void test_report_tree_capped(void **state)
{
	struct fx *f = *state;
	size_t n = HG_STORE_REPORT_TREE_MAX + 12345;
	char *stack = big_stack(n), *text = report_json(stack, 900000, 1);
	hg_report *rep = read_report("mem.json", text, strlen(text));
	hg_calltree ct;
	hg_arena *arena = hg_arena_create();
	assert_int_equal(hg_calltree_build(&rep->trimmed, arena, &ct), 0);
	int64_t self = 0, key = 0;
	for (size_t i = 0; i < rep->trimmed.len; i++)
		self += ct.self[i];
	for (long j = rep->key_index; j >= 0; j = ct.parent[j])
		key++;
	assert_true(rep->trimmed.len > HG_STORE_REPORT_TREE_MAX);
	hg_arena_destroy(arena);
	hg_report_destroy(rep);
	hg_store_symtab *tab = hg_store_symtab_create();
	assert_non_null(tab);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	add_text(st, text, HASH, NULL);
	free(text);
	text = report_json(stack, 900000, 2); /* not the same text: not a duplicate */
	add_text(st, text, "abc00000000000000000000000000001", tab);
	for (int k = 0; k < 2; k++) {
		struct sums s = {0};
		const char *hash = k ? "abc00000000000000000000000000001" : HASH;
		assert_int_equal(hg_store_cluster_tree(st, hash, sum_row, &s), 0);
		assert_true(s.nodes - s.left_nodes <= HG_STORE_REPORT_TREE_MAX);
		assert_true(s.nodes > HG_STORE_REPORT_TREE_MAX / 2);
		assert_true(s.left_nodes > 0);
		assert_int_equal(s.root_total, 900000);
		assert_int_equal(s.self, self);
		assert_int_equal(s.key, key);
	}
	hg_store_close(st);
	hg_store_symtab_destroy(tab);
	free(stack);
	free(text);
}

/* A cluster's tree at its cap takes no new node off the key path: what
 * comes goes into "(frames left out at ingest)" under its parent, with its
 * cost and its subtree's selves. */
static void test_cluster_tree_capped(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *text = report_json("0,1,1,100\\n1,2,1,90\\n", 100, 1);
	add_text(st, text, HASH, NULL);
	free(text);
	size_t n = HG_STORE_CLUSTER_TREE_MAX + 20000;
	struct store_tree_add *adds = calloc(n, sizeof *adds);
	assert_non_null(adds);
	int64_t symbol[4], self = 0;
	assert_int_equal(hg_store_begin(st), 0);
	for (int k = 0; k < 4; k++) {
		char name[16];
		snprintf(name, sizeof name, "a.B.c%d", k);
		assert_int_equal(store_symbol_id(st, name, &symbol[k]), 0);
	}
	for (size_t i = 0; i < n; i++) { /* a 4-ary tree: each (parent, symbol) its own node */
		adds[i] = (struct store_tree_add){i ? (long)(i - 1) / 4 : -1, symbol[i % 4], 1, 10,
						  10, 2, false, 0};
		self += 2;
	}
	int64_t cluster;
	assert_int_equal(store_cluster_id(st, HASH, &cluster), 0);
	assert_int_equal(store_tree_merge(st, cluster, HASH, adds, n), 0);
	assert_int_equal(hg_store_commit(st), 0);
	struct sums s = {0};
	assert_int_equal(hg_store_cluster_tree(st, HASH, sum_row, &s), 0);
	assert_true(s.nodes <= 2 * HG_STORE_CLUSTER_TREE_MAX);
	assert_true(s.nodes - s.left_nodes <= HG_STORE_CLUSTER_TREE_MAX);
	assert_true(s.left_nodes > 0);
	assert_int_equal(s.self, self + 10 + 90); /* and the first report's two nodes */
	hg_store_close(st);
	free(adds);
}

/* ---- native frames keyed for merging ---- */

struct labels {
	char text[1024];
	int64_t nodes, reports_min;
};

static int label_row(void *user, const hg_tree_row *row)
{
	struct labels *l = user;
	size_t at = strlen(l->text);
	snprintf(l->text + at, sizeof l->text - at, "%s%s", at ? "|" : "", row->symbol);
	if (!l->nodes++ || row->reports < l->reports_min)
		l->reports_min = row->reports;
	return 0;
}

/* A KSCrash hang whose images (and dyld's image-less frames) were loaded
 * `slide` bytes higher, as at another launch. */
static char *kscrash_at(unsigned long long slide, int n)
{
	char *s = malloc(2048);
	assert_non_null(s);
	snprintf(s, 2048,
		 "{\"report\":{\"timestamp\":%d},\"crash\":{\"error\":{\"type\":\"hang\"},"
		 "\"threads\":[{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":["
		 "{\"instruction_addr\":%llu,\"object_name\":\"A\",\"object_addr\":%llu,"
		 "\"symbol_name\":\"work\",\"symbol_addr\":%llu},"          /* A's function */
		 "{\"instruction_addr\":%llu},"                              /* in B, unnamed */
		 "{\"instruction_addr\":%llu}]}}]},\"binary_images\":["      /* in no image */
		 "{\"image_addr\":%llu,\"image_size\":4096,\"name\":\"/x/A\",\"uuid\":"
		 "\"AAAAAAAA-0000-0000-0000-000000000001\"},"
		 "{\"image_addr\":%llu,\"image_size\":4096,\"name\":\"/x/B\",\"uuid\":"
		 "\"BBBBBBBB-0000-0000-0000-000000000002\"}]}",
		 n, 4100 + slide, 4096 + slide, 4098 + slide, 8200 + slide, 99999 + slide, 4096 + slide,
		 8192 + slide);
	return s;
}

/* Native frames are keyed by what does not move between launches: their
 * function, else their image and the offset in it, else "???", never an
 * absolute address: the same stack at two load addresses is one tree. */
static void test_native_frames_merge_across_launches(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *a = kscrash_at(0, 1), *b = kscrash_at(0x3ab4000, 2);
	add_text(st, a, HASH, NULL);
	add_text(st, b, HASH, NULL);
	struct labels l = {0};
	assert_int_equal(hg_store_cluster_tree(st, HASH, label_row, &l), 0);
	assert_string_equal(l.text, "???|B+0x8|work");
	assert_int_equal(l.nodes, 3);
	assert_int_equal(l.reports_min, 2);
	hg_store_close(st);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pruned_as_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse_and_unordered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fn_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_tree_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cluster_tree_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_frames_merge_across_launches, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
