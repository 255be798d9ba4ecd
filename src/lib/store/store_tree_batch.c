/* The merged-tree additions of a batch, summed in memory per cluster and
 * written at commit (store_tree_flush, each cluster's row through
 * store_tree_json.c).  Each cluster has its own small table of nodes, so
 * that adding a report's ~40 nodes stays in cache; symbols are looked up
 * by the number the preparing thread gave them (hg_store_symtab) when it
 * did, else by text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* One pending node: (parent, symbol) within its cluster, in first-seen
 * order, so that parents come before their children and new nodes get ids
 * in the order reports brought them. */
struct bnode {
	long parent;           /* index in the cluster's nodes, -1 for a root */
	int64_t symbol;        /* symbols.id */
	int64_t reports, total, max, self;
	bool key;
};

struct cluster_nodes {
	const char *hash;      /* in the batch arena */
	struct bnode *nodes;
	size_t len, cap;
	uint32_t *slots;       /* open addressing: node index + 1, 0 empty */
	size_t mask;
};

struct tree_batch {
	hg_arena *arena;
	struct cluster_nodes *clusters;
	size_t n_clusters, cap_clusters;
	strmap by_hash;        /* cluster hash -> index in clusters */
	size_t n_nodes;        /* over all clusters: hg_store_pending */
	size_t last;           /* the cluster of the last report + 1, 0: none */
	long *map;             /* a report's node -> its cluster node */
	size_t cap_map;
};

/* ---- symbol ids by number ---- */

/* The id of a report node's symbol: by its number when it has one (the
 * numbers of one symtab at a time; forgotten with the symbol memo), else
 * by text. */
/* The numbers of symtab serial: its table, else the other one's started
 * over for it (the older serial when both are taken). */
static struct symbol_numbers *numbers_of(hg_store *store, uint64_t serial)
{
	struct symbol_numbers *a = &store->numbers[0], *b = &store->numbers[1];
	if (a->serial == serial)
		return a;
	if (b->serial == serial)
		return b;
	struct symbol_numbers *s = !a->serial ? a : !b->serial ? b : a->serial < b->serial ? a : b;
	free(s->ids);
	*s = (struct symbol_numbers){NULL, 0, serial};
	return s;
}

static int symbol_id(hg_store *store, const struct store_report_node *n, uint64_t serial,
		     int64_t *id)
{
	struct symbol_numbers *s = n->num && serial ? numbers_of(store, serial) : NULL;
	if (s) {
		if (n->num < s->len && s->ids[n->num]) {
			*id = s->ids[n->num];
			return 0;
		}
	}
	int err = store_symbol_id(store, n->symbol, id);
	if (err || !s)
		return err;
	if (n->num >= s->len) {
		size_t len = s->len ? s->len : 1024;
		while (len <= n->num)
			len *= 2;
		int64_t *ids = realloc(s->ids, len * sizeof *ids);
		if (!ids)
			return 0; /* not remembered: found by text next time */
		memset(ids + s->len, 0, (len - s->len) * sizeof *ids);
		s->ids = ids;
		s->len = len;
	}
	s->ids[n->num] = *id;
	return 0;
}

void store_numbers_forget(hg_store *store)
{
	for (int t = 0; t < 2; t++) {
		free(store->numbers[t].ids);
		store->numbers[t] = (struct symbol_numbers){NULL, 0, 0};
	}
}

/* ---- the tables ---- */

static size_t hash_node(long parent, int64_t symbol)
{
	uint64_t h = (uint64_t)(parent + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)symbol;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return (size_t)(h ^ (h >> 29));
}

/* The pending nodes of cluster hash, added if new; NULL on ENOMEM. */
static struct cluster_nodes *cluster_of(struct tree_batch *b, const char *hash)
{
	if (b->last && strcmp(b->clusters[b->last - 1].hash, hash) == 0)
		return &b->clusters[b->last - 1];
	int64_t k;
	if (strmap_get(&b->by_hash, hash, &k)) {
		b->last = (size_t)k + 1;
		return &b->clusters[k];
	}
	if (b->n_clusters == b->cap_clusters) {
		size_t cap = b->cap_clusters ? 2 * b->cap_clusters : 64;
		struct cluster_nodes *c = realloc(b->clusters, cap * sizeof *c);
		if (!c)
			return NULL;
		b->clusters = c;
		b->cap_clusters = cap;
	}
	const char *copy = hg_arena_strdup(b->arena, hash);
	if (!copy || strmap_put(&b->by_hash, hash, (int64_t)b->n_clusters) != 0)
		return NULL;
	b->clusters[b->n_clusters++] = (struct cluster_nodes){copy, NULL, 0, 0, NULL, 0};
	b->last = b->n_clusters;
	return &b->clusters[b->n_clusters - 1];
}

static int nodes_grow(struct cluster_nodes *c)
{
	size_t cap = c->cap ? 2 * c->cap : 64;
	if (cap > UINT32_MAX / 2)
		return HG_ENOMEM;
	struct bnode *n = realloc(c->nodes, cap * sizeof *n);
	if (!n)
		return HG_ENOMEM;
	c->nodes = n;
	uint32_t *slots = calloc(2 * cap, sizeof *slots);
	if (!slots)
		return HG_ENOMEM;
	free(c->slots);
	c->slots = slots;
	c->mask = 2 * cap - 1;
	c->cap = cap;
	for (size_t k = 0; k < c->len; k++) {
		size_t i = hash_node(n[k].parent, n[k].symbol) & c->mask;
		while (c->slots[i])
			i = (i + 1) & c->mask;
		c->slots[i] = (uint32_t)(k + 1);
	}
	return 0;
}

/* The cluster node (parent, symbol), added if new; -1 on ENOMEM. */
static long node_of(struct tree_batch *b, struct cluster_nodes *c, long parent, int64_t symbol)
{
	if (c->len == c->cap && nodes_grow(c))
		return -1;
	size_t i = hash_node(parent, symbol) & c->mask;
	for (; c->slots[i]; i = (i + 1) & c->mask) {
		const struct bnode *n = &c->nodes[c->slots[i] - 1];
		if (n->parent == parent && n->symbol == symbol)
			return (long)(c->slots[i] - 1);
	}
	c->nodes[c->len] = (struct bnode){parent, symbol, 0, 0, 0, 0, false};
	c->slots[i] = (uint32_t)++c->len;
	b->n_nodes++;
	return (long)(c->len - 1);
}

size_t hg_store_pending(const hg_store *store)
{
	return store->tree ? store->tree->n_nodes : 0;
}

void store_tree_discard(hg_store *store)
{
	struct tree_batch *b = store->tree;
	if (!b)
		return;
	for (size_t k = 0; k < b->n_clusters; k++) {
		free(b->clusters[k].nodes);
		free(b->clusters[k].slots);
	}
	free(b->clusters);
	strmap_clear(&b->by_hash);
	free(b->map);
	hg_arena_destroy(b->arena);
	free(b);
	store->tree = NULL;
}

/* Adds a report's self-merged tree to the batch: nodes first (all or
 * nothing as far as the sums go: a node left at 0 reports is not written),
 * then the sums. */
int store_tree_batch_add(hg_store *store, const struct store_report_node *nodes, size_t n,
			 uint64_t serial, const char *cluster)
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
	if (n > b->cap_map) {
		long *map = realloc(b->map, n * sizeof *map);
		if (!map)
			return HG_ENOMEM;
		b->map = map;
		b->cap_map = n;
	}
	struct cluster_nodes *c = cluster_of(b, cluster);
	if (!c)
		return HG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int64_t symbol;
		int err = symbol_id(store, &nodes[i], serial, &symbol);
		if (err)
			return err;
		long parent = nodes[i].parent < 0 ? -1 : b->map[nodes[i].parent];
		long k = node_of(b, c, parent, symbol);
		if (k < 0)
			return HG_ENOMEM;
		b->map[i] = k;
	}
	for (size_t i = 0; i < n; i++) {
		struct bnode *bn = &c->nodes[b->map[i]];
		bn->reports++;
		bn->total += nodes[i].cost;
		if (bn->reports == 1 || nodes[i].cost > bn->max)
			bn->max = nodes[i].cost;
		bn->self += nodes[i].self;
		bn->key = bn->key || nodes[i].key;
	}
	return 0;
}

/* Writes the pending additions: each cluster's stored tree read, merged
 * with them and written back (store_tree_json.c). */
int store_tree_flush(hg_store *store)
{
	struct tree_batch *b = store->tree;
	if (!b)
		return 0;
	size_t most = 0;
	for (size_t k = 0; k < b->n_clusters; k++)
		most = b->clusters[k].len > most ? b->clusters[k].len : most;
	struct store_tree_add *adds = malloc((most ? most : 1) * sizeof *adds);
	int err = adds ? 0 : HG_ENOMEM;
	for (size_t k = 0; !err && k < b->n_clusters; k++) {
		struct cluster_nodes *c = &b->clusters[k];
		for (size_t i = 0; i < c->len; i++) {
			const struct bnode *n = &c->nodes[i];
			adds[i] = (struct store_tree_add){n->parent, n->symbol, n->reports, n->total,
							  n->max, n->self, n->key, 0};
		}
		/* Copied: the cluster's table goes before its tree is merged. */
		free(c->nodes);
		free(c->slots);
		c->nodes = NULL;
		c->slots = NULL;
		int64_t cluster_id;
		err = store_cluster_id(store, c->hash, &cluster_id);
		if (!err)
			err = store_tree_merge(store, cluster_id, c->hash, adds, c->len);
	}
	free(adds);
	store_tree_discard(store);
	return err;
}
