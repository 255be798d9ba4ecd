/* A cluster's merged call tree as one row of the trees table: a JSON array
 * of nodes [id, parent, symbol, reports, total_cost, max_cost, self_cost,
 * on_key_path] in id order (a parent before its children; parent 0: a
 * root).  One row per cluster, read, merged and written back whole at each
 * commit: a big ingest wrote a third of a million node rows before, most
 * of its writer's time.  The `tree` view shows the nodes as rows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store_tree_read.h"

#define NODE_FIELDS 8

/* ---- reading, a node at a time ---- */

#define PIECE (64 * 1024)

/* store_tree_text.state: before the '[', after a node, after the ']'. */
enum { AT_START, AT_NEXT, AT_END };

void store_tree_text_memory(struct store_tree_text *t, const char *json, size_t len)
{
	*t = (struct store_tree_text){.size = len, .base = json, .p = json, .end = json + len};
}

int store_tree_text_pieces(struct store_tree_text *t, size_t size, store_text_read_fn read,
			   void *src)
{
	*t = (struct store_tree_text){.read = read, .src = src, .size = size};
	if (!(t->piece = malloc(PIECE)))
		return HG_ENOMEM;
	t->base = t->p = t->end = t->piece;
	return 0;
}

void store_tree_text_release(struct store_tree_text *t)
{
	free(t->piece);
	t->piece = NULL;
}

void store_tree_text_rewind(struct store_tree_text *t)
{
	if (t->read)
		t->end = t->piece;
	t->p = t->base;
	t->at = 0;
	t->state = AT_START;
	t->err = 0;
}

/* The next piece, when the one at hand is used up: true when there is a
 * byte at hand (t->err says why not, when not the end). */
static bool more(struct store_tree_text *t)
{
	if (t->p < t->end)
		return true;
	size_t next = t->at + (size_t)(t->end - t->base);
	if (!t->read || t->err || next >= t->size)
		return false;
	size_t n = t->size - next < PIECE ? t->size - next : PIECE;
	int err = t->read(t->src, t->piece, n, next);
	if (err) {
		t->err = err;
		return false;
	}
	t->at = next;
	t->base = t->p = t->piece;
	t->end = t->piece + n;
	return true;
}

static int peek(struct store_tree_text *t)
{
	return more(t) ? (unsigned char)*t->p : -1;
}

static void skip_space(struct store_tree_text *t)
{
	for (int c; (c = peek(t)) == ' ' || c == '\n' || c == '\t' || c == '\r';)
		t->p++;
}

static bool expect(struct store_tree_text *t, char c)
{
	skip_space(t);
	if (peek(t) == (unsigned char)c) {
		t->p++;
		return true;
	}
	return false;
}

/* A JSON integer within int64, read exactly (never through a double). */
static bool read_int(struct store_tree_text *t, int64_t *out)
{
	skip_space(t);
	bool neg = peek(t) == '-';
	if (neg)
		t->p++;
	int c = peek(t);
	if (c < '0' || c > '9')
		return false;
	uint64_t v = 0;
	for (; c >= '0' && c <= '9'; c = peek(t)) {
		unsigned d = (unsigned)(c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		t->p++;
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* A node as hangar writes it ("[12,3,7,1,80,80,80,0]": no white space)
 * and whole in the piece at hand, read where it lies: a byte at a time
 * through peek() was most of reading a million-node tree.  False, having
 * moved nothing, for anything else (the careful reading then says what is
 * wrong). */
static bool read_fields_here(struct store_tree_text *t, int64_t f[NODE_FIELDS])
{
	const char *p = t->p, *end = t->end;
	if (p == end || *p++ != '[')
		return false;
	for (int i = 0; i < NODE_FIELDS; i++) {
		bool neg = p < end && *p == '-';
		p += neg;
		const char *digits = p;
		uint64_t v = 0;
		/* 18 digits at most: no overflow to check (more: the careful way) */
		for (; p < end && *p >= '0' && *p <= '9' && p - digits < 18; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (p == digits || p == end || *p != (i + 1 < NODE_FIELDS ? ',' : ']'))
			return false;
		f[i] = neg ? -(int64_t)v : (int64_t)v;
		p++;
	}
	t->p = p;
	return true;
}

/* One [id, parent, symbol, reports, total, max, self, key], checked. */
static bool read_node(struct store_tree_text *t, struct store_tree_node *node)
{
	int64_t f[NODE_FIELDS];
	skip_space(t);
	bool ok = read_fields_here(t, f);
	if (!ok) {
		ok = expect(t, '[');
		for (int i = 0; ok && i < NODE_FIELDS; i++)
			ok = (i == 0 || expect(t, ',')) && read_int(t, &f[i]);
		ok = ok && expect(t, ']');
	}
	/* A parent has a smaller id than its child; counts are not negative. */
	ok = ok && f[0] > 0 && f[1] >= 0 && f[1] < f[0] && f[3] >= 0 && f[4] >= 0 && f[5] >= 0 &&
	     f[6] >= 0 && (f[7] == 0 || f[7] == 1);
	if (ok)
		*node = (struct store_tree_node){f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7] != 0};
	return ok;
}

int store_tree_text_next(struct store_tree_text *t, struct store_tree_node *node,
			 size_t *bad_at)
{
	if (t->err || t->state == AT_END)
		return t->err;
	bool ok = true, last = false;
	if (t->state == AT_START)
		ok = expect(t, '[');
	if (ok && t->state != AT_NEXT)
		last = expect(t, ']');
	else if (ok)
		last = expect(t, ']') || !(ok = expect(t, ','));
	if (ok && !last) {
		if (!t->err && read_node(t, node)) {
			t->state = AT_NEXT;
			return 1;
		}
		ok = false;
	}
	if (ok) {
		skip_space(t);
		ok = peek(t) < 0;
	}
	if (!t->err && !ok) {
		*bad_at = t->at + (size_t)(t->p - t->base) + 1;
		t->err = HG_EPARSE;
	}
	t->state = AT_END;
	return t->err;
}

/* ---- reading whole ---- */

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
	struct store_tree_text t;
	store_tree_text_memory(&t, json, len);
	struct store_tree_node *nodes = NULL, node;
	size_t n = 0, cap = 0;
	int err = 0, rc;
	while (!err && (rc = store_tree_text_next(&t, &node, bad_at)) != 0)
		err = rc < 0 ? rc : push_node(&nodes, &n, &cap, &node);
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

/* Sums saturate: a hostile report's costs must not overflow them. */
static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t s;
	return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

/* The additions being merged into a cluster's nodes. */
struct merging {
	hg_store *store;
	struct store_tree_node *nodes; /* room for every addition */
	size_t n;
	struct node_index ix;
	int64_t next_id;
	int64_t left_symbol;           /* STORE_TREE_LEFT_SYMBOL's id; 0: not looked up */
};

/* The node (parent, symbol), added if new; its index. */
static size_t node_for(struct merging *m, int64_t parent, int64_t symbol)
{
	size_t i = index_find(&m->ix, m->nodes, parent, symbol);
	if (!m->ix.slots[i]) {
		m->nodes[m->n] = (struct store_tree_node){m->next_id++, parent, symbol, 0, 0, 0, 0,
							   false};
		m->ix.slots[i] = ++m->n;
	}
	return m->ix.slots[i] - 1;
}

/* Adds adds[k]; its tid becomes the node's id, 0 when not written, or
 * -1 - the index of the node it was left out into. */
static int merge_add(struct merging *m, struct store_tree_add *adds, size_t k)
{
	struct store_tree_add *a = &adds[k];
	int64_t up = a->parent < 0 ? 0 : adds[a->parent].tid;
	a->tid = 0;
	if (a->reports == 0 || (a->parent >= 0 && up == 0))
		return 0; /* never completed (see store_tree_batch.c): not written */
	if (up < 0) { /* below an addition left out: its self goes there too */
		struct store_tree_node *t = &m->nodes[-up - 1];
		t->self = add_sat(t->self, a->self);
		a->tid = up;
		return 0;
	}
	/* A full tree takes no new node, but into the node of what was left
	 * out under its parent (the key path has twice the room). */
	size_t room = (a->key ? 2 : 1) * (size_t)HG_STORE_CLUSTER_TREE_MAX;
	bool left = m->n >= room && !m->ix.slots[index_find(&m->ix, m->nodes, up, a->symbol)];
	if (left && !m->left_symbol) {
		int err = store_symbol_id(m->store, STORE_TREE_LEFT_SYMBOL, &m->left_symbol);
		if (err)
			return err;
	}
	size_t at = node_for(m, up, left ? m->left_symbol : a->symbol);
	struct store_tree_node *t = &m->nodes[at];
	bool first = t->reports == 0;
	t->reports = add_sat(t->reports, a->reports);
	t->total = add_sat(t->total, a->total);
	t->max = first || a->max > t->max ? a->max : t->max;
	t->self = add_sat(t->self, a->self);
	t->key = t->key || (a->key && !left);
	a->tid = left ? -1 - (int64_t)at : t->id;
	return 0;
}

int store_tree_merge(hg_store *store, int64_t cluster_id, const char *hash,
		     struct store_tree_add *adds, size_t n_adds)
{
	struct merging m = {store, NULL, 0, {NULL, 0}, 1, 0};
	int err = load(store, cluster_id, hash, &m.nodes, &m.n);
	if (err)
		return err;
	size_t cap = m.n + n_adds;
	struct store_tree_node *grown = cap ? realloc(m.nodes, cap * sizeof *grown) : m.nodes;
	if (cap && !grown)
		err = HG_ENOMEM;
	else
		m.nodes = grown;
	if (!err)
		err = index_build(&m.ix, m.nodes, m.n, n_adds);
	m.next_id = m.n ? m.nodes[m.n - 1].id + 1 : 1;
	for (size_t k = 0; !err && k < n_adds; k++)
		err = merge_add(&m, adds, k);
	free(m.ix.slots); /* before the text is made */
	if (!err)
		err = save(store, cluster_id, m.nodes, m.n);
	free(m.nodes);
	return err;
}
