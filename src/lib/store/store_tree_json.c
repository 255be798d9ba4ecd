/* A cluster's merged call tree as one row of the trees table: a JSON array
 * of nodes [id, parent, symbol, reports, total_cost, max_cost, self_cost,
 * on_key_path] in id order (a parent before its children; parent 0: a
 * root).  One row per cluster, read, merged and written back whole at each
 * commit: a big ingest wrote a third of a million node rows before, most
 * of its writer's time.  The `tree` view shows the nodes as rows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define NODE_FIELDS 8

/* ---- reading ---- */

struct reader {
	const char *p, *end;
};

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

static bool expect(struct reader *r, char c)
{
	skip_space(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

/* A JSON integer within int64, read exactly (never through a double). */
static bool read_int(struct reader *r, int64_t *out)
{
	skip_space(r);
	bool neg = r->p < r->end && *r->p == '-';
	if (neg)
		r->p++;
	if (r->p >= r->end || *r->p < '0' || *r->p > '9')
		return false;
	uint64_t v = 0;
	for (; r->p < r->end && *r->p >= '0' && *r->p <= '9'; r->p++) {
		unsigned d = (unsigned)(*r->p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static int push_node(struct store_tree_node **nodes, size_t *n, size_t *cap,
		     const struct store_tree_node *node)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct store_tree_node *v = realloc(*nodes, c * sizeof *v);
		if (!v)
			return HG_ENOMEM;
		*nodes = v;
		*cap = c;
	}
	(*nodes)[(*n)++] = *node;
	return 0;
}

/* Is id among nodes[0..n) (sorted by id)? */
static bool has_id(const struct store_tree_node *nodes, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nodes[mid].id == id)
			return true;
		if (nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int by_id(const void *a, const void *b)
{
	int64_t x = ((const struct store_tree_node *)a)->id, y = ((const struct store_tree_node *)b)->id;
	return (x > y) - (x < y);
}

int store_tree_decode(const char *json, size_t len, struct store_tree_node **out, size_t *n_out,
		      size_t *bad_at)
{
	*out = NULL;
	*n_out = 0;
	*bad_at = 0;
	struct reader r = {json, json + len};
	struct store_tree_node *nodes = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	bool ok = expect(&r, '[');
	if (ok && !expect(&r, ']')) {
		do {
			int64_t f[NODE_FIELDS];
			ok = expect(&r, '[');
			for (int i = 0; ok && i < NODE_FIELDS; i++)
				ok = (i == 0 || expect(&r, ',')) && read_int(&r, &f[i]);
			ok = ok && expect(&r, ']');
			/* A parent has a smaller id than its child; counts are not
			 * negative. */
			ok = ok && f[0] > 0 && f[1] >= 0 && f[1] < f[0] && f[3] >= 0 && f[4] >= 0 &&
			     f[5] >= 0 && f[6] >= 0 && (f[7] == 0 || f[7] == 1);
			if (ok) {
				struct store_tree_node node = {f[0], f[1], f[2], f[3], f[4], f[5], f[6],
							       f[7] != 0};
				err = push_node(&nodes, &n, &cap, &node);
			}
		} while (ok && !err && expect(&r, ','));
		ok = ok && expect(&r, ']');
	}
	skip_space(&r);
	if (!err && (!ok || r.p != r.end)) {
		*bad_at = (size_t)(r.p - json) + 1;
		err = HG_EPARSE;
	}
	/* In id order (written so; SQL that rewrites the row may not keep it),
	 * each id once, each parent there. */
	if (!err && n > 1)
		qsort(nodes, n, sizeof *nodes, by_id);
	for (size_t k = 0; !err && k < n; k++)
		if ((k > 0 && nodes[k].id == nodes[k - 1].id) ||
		    (nodes[k].parent != 0 && !has_id(nodes, k, nodes[k].parent))) {
			*bad_at = 1;
			err = HG_EPARSE;
		}
	if (err) {
		free(nodes);
		return err;
	}
	*out = nodes;
	*n_out = n;
	return 0;
}

/* ---- merging ---- */

/* The nodes of one tree by (parent, symbol): open addressing. */
struct node_index {
	size_t *slots;  /* node index + 1, 0 empty */
	size_t mask;
};

static size_t hash_pair(int64_t parent, int64_t symbol)
{
	uint64_t h = (uint64_t)parent * 0x9E3779B97F4A7C15ULL ^ (uint64_t)symbol;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return (size_t)(h ^ (h >> 29));
}

static int index_build(struct node_index *ix, const struct store_tree_node *nodes, size_t n,
		       size_t room)
{
	size_t slots = 64;
	while (slots < 2 * (n + room) + 2)
		slots *= 2;
	ix->slots = calloc(slots, sizeof *ix->slots);
	ix->mask = slots - 1;
	if (!ix->slots)
		return HG_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		size_t i = hash_pair(nodes[k].parent, nodes[k].symbol) & ix->mask;
		while (ix->slots[i])
			i = (i + 1) & ix->mask;
		ix->slots[i] = k + 1;
	}
	return 0;
}

/* The slot of (parent, symbol): a node's (slots[i] != 0) or the empty one
 * where it goes. */
static size_t index_find(const struct node_index *ix, const struct store_tree_node *nodes,
			 int64_t parent, int64_t symbol)
{
	size_t i = hash_pair(parent, symbol) & ix->mask;
	for (; ix->slots[i]; i = (i + 1) & ix->mask) {
		const struct store_tree_node *t = &nodes[ix->slots[i] - 1];
		if (t->parent == parent && t->symbol == symbol)
			break;
	}
	return i;
}

/* ---- writing ---- */

static char *put_int(char *p, int64_t v)
{
	char tmp[24];
	size_t n = 0;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*p++ = '-';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static size_t int_len(int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	size_t n = v < 0 ? 2 : 1;
	while (u >= 10) {
		u /= 10;
		n++;
	}
	return n;
}

/* The text's length, so that it is made in one buffer of that size (a
 * half-million-node tree is ~20 MB of text; room for the longest numbers
 * would be 84 MB). */
static size_t encoded_len(const struct store_tree_node *nodes, size_t n)
{
	size_t len = 2 + (n ? n - 1 : 0);
	for (size_t k = 0; k < n; k++) {
		const struct store_tree_node *t = &nodes[k];
		len += 2 + (NODE_FIELDS - 1) + int_len(t->id) + int_len(t->parent) +
		       int_len(t->symbol) + int_len(t->reports) + int_len(t->total) + int_len(t->max) +
		       int_len(t->self) + int_len(t->key);
	}
	return len;
}

char *store_tree_encode(const struct store_tree_node *nodes, size_t n, size_t *len)
{
	size_t size = encoded_len(nodes, n);
	char *out = malloc(size), *p = out;
	if (!out)
		return NULL;
	*p++ = '[';
	for (size_t k = 0; k < n; k++) {
		const struct store_tree_node *t = &nodes[k];
		int64_t f[NODE_FIELDS] = {t->id,    t->parent, t->symbol, t->reports,
					  t->total, t->max,    t->self,   t->key};
		if (k)
			*p++ = ',';
		*p++ = '[';
		for (int i = 0; i < NODE_FIELDS; i++) {
			if (i)
				*p++ = ',';
			p = put_int(p, f[i]);
		}
		*p++ = ']';
	}
	*p++ = ']';
	*len = (size_t)(p - out); /* == size */
	return out;
}

/* The stored tree of a cluster (none: empty). */
static int load(hg_store *store, int64_t cluster_id, const char *hash,
		struct store_tree_node **nodes, size_t *n)
{
	*nodes = NULL;
	*n = 0;
	hg_db_stmt *st = db_stmt(store->db, S_TREE_LOAD, "SELECT nodes FROM trees WHERE cluster = ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read a call tree");
	db_bind_int(st, 1, cluster_id);
	int rc = db_step(st), err = 0;
	if (rc == DB_ROW) {
		size_t bad_at;
		err = store_tree_decode(db_col_blob(st, 0), db_col_bytes(st, 0), nodes, n, &bad_at);
		if (err == HG_EPARSE)
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, (long)bad_at, 0,
				 "cluster %s: its stored call tree (trees.nodes) is not readable",
				 hash);
	}
	db_reset(st);
	if (rc < 0)
		return store_check(store, rc, "cannot read a call tree");
	return err;
}

static int save(hg_store *store, int64_t cluster_id, const struct store_tree_node *nodes, size_t n)
{
	size_t len;
	char *json = store_tree_encode(nodes, n, &len);
	if (!json)
		return HG_ENOMEM;
	hg_db_stmt *st = db_stmt(store->db, S_TREE_SAVE,
				 "INSERT INTO trees(cluster, nodes) VALUES(?1, ?2)"
				 " ON CONFLICT(cluster) DO UPDATE SET nodes = excluded.nodes");
	int rc = DB_ERROR;
	if (st) {
		db_bind_int(st, 1, cluster_id);
		db_bind_text_n(st, 2, json, len);
		rc = db_step(st);
		db_reset(st);
	}
	free(json);
	return store_check(store, rc, "cannot write a call tree");
}

int store_tree_merge(hg_store *store, int64_t cluster_id, const char *hash,
		     struct store_tree_add *adds, size_t n_adds)
{
	struct store_tree_node *nodes;
	size_t n;
	int err = load(store, cluster_id, hash, &nodes, &n);
	if (err)
		return err;
	struct node_index ix = {0};
	size_t cap = n + n_adds;
	struct store_tree_node *grown = cap ? realloc(nodes, cap * sizeof *grown) : nodes;
	if (cap && !grown)
		err = HG_ENOMEM;
	else
		nodes = grown;
	if (!err)
		err = index_build(&ix, nodes, n, n_adds);
	int64_t next_id = n ? nodes[n - 1].id + 1 : 1;
	for (size_t k = 0; !err && k < n_adds; k++) {
		struct store_tree_add *a = &adds[k];
		a->tid = 0;
		if (a->reports == 0 || (a->parent >= 0 && adds[a->parent].tid == 0))
			continue; /* never completed (see store_tree.c): not written */
		int64_t parent = a->parent < 0 ? 0 : adds[a->parent].tid;
		size_t i = index_find(&ix, nodes, parent, a->symbol);
		if (!ix.slots[i]) {
			nodes[n] = (struct store_tree_node){next_id++, parent, a->symbol, 0, 0, 0, 0,
							     false};
			ix.slots[i] = ++n;
		}
		struct store_tree_node *t = &nodes[ix.slots[i] - 1];
		bool first = t->reports == 0;
		t->reports += a->reports;
		t->total += a->total;
		t->max = first || a->max > t->max ? a->max : t->max;
		t->self += a->self;
		t->key = t->key || a->key;
		a->tid = t->id;
	}
	free(ix.slots); /* before the text is made */
	if (!err)
		err = save(store, cluster_id, nodes, n);
	free(nodes);
	return err;
}
