/* Merging flames path by path: nodes with the same sequence of frame
 * names from the root become one, their totals, self and calls added.
 * This is how a set of reports (a cluster's reports in one version or time
 * window) becomes one flame, and how hg_flame_diff matches two trees. */
#include <stdlib.h>
#include <string.h>

#include "hangar/flame.h"
#include "flame_merge.h"

#define NONE SIZE_MAX

struct hg_flame_merger {
	hg_arena *arena;       /* names, and the finished nodes */
	hg_flame_node *nodes;  /* malloc'd while merging */
	size_t n, cap;
	uint64_t *serial;      /* per node: the last add that passed through it */
	int64_t *key_reports;  /* per node: reports whose StackKey it was */
	size_t *slot;          /* open addressing: node index + 1, 0 empty */
	size_t slots;          /* a power of two, at least twice n */
	uint64_t adds;
	int64_t reports;
	enum hg_flame_unit unit;
	bool unit_set;
	size_t *map;           /* scratch: the path of each node of the flame being added */
	size_t map_cap;
};

static size_t hash_path(size_t parent, const char *name)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(parent + 1) * 0x9E3779B97F4A7C15ULL;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 31));
}

hg_flame_merger *hg_flame_merger_create(hg_arena *arena)
{
	hg_flame_merger *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->arena = arena;
	m->slots = 1024;
	m->slot = calloc(m->slots, sizeof *m->slot);
	if (!m->slot) {
		free(m);
		return NULL;
	}
	return m;
}

void hg_flame_merger_destroy(hg_flame_merger *m)
{
	if (!m)
		return;
	free(m->nodes);
	free(m->serial);
	free(m->key_reports);
	free(m->slot);
	free(m->map);
	free(m);
}

static int rehash(hg_flame_merger *m)
{
	size_t slots = m->slots * 2;
	size_t *slot = calloc(slots, sizeof *slot);
	if (!slot)
		return HG_ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t h = hash_path(m->nodes[i].parent, m->nodes[i].name) & (slots - 1);
		while (slot[h])
			h = (h + 1) & (slots - 1);
		slot[h] = i + 1;
	}
	free(m->slot);
	m->slot = slot;
	m->slots = slots;
	return 0;
}

static int grow_nodes(hg_flame_merger *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	hg_flame_node *nodes = realloc(m->nodes, cap * sizeof *nodes);
	if (nodes)
		m->nodes = nodes;
	uint64_t *serial = nodes ? realloc(m->serial, cap * sizeof *serial) : NULL;
	if (serial)
		m->serial = serial;
	int64_t *keys = serial ? realloc(m->key_reports, cap * sizeof *keys) : NULL;
	if (!keys)
		return HG_ENOMEM;
	m->key_reports = keys;
	m->cap = cap;
	return 0;
}

size_t flame_merger_find(const hg_flame_merger *m, size_t parent, const char *name)
{
	size_t h = hash_path(parent, name) & (m->slots - 1);
	for (; m->slot[h]; h = (h + 1) & (m->slots - 1)) {
		const hg_flame_node *nd = &m->nodes[m->slot[h] - 1];
		if (nd->parent == parent && strcmp(nd->name, name) == 0)
			return m->slot[h] - 1;
	}
	return NONE;
}

const hg_flame_node *flame_merger_node(const hg_flame_merger *m, size_t i)
{
	return i < m->n ? &m->nodes[i] : NULL;
}

/* A copy of s in arena (NULL stays NULL); *failed set on ENOMEM. */
static const char *copy_or_null(hg_arena *arena, const char *s, bool *failed)
{
	const char *c = s ? hg_arena_strdup(arena, s) : NULL;
	*failed |= s && !c;
	return c;
}

/* The node of path (parent, name), made when new (its tooltip's source,
 * image and symbol those of src, the first flame's that has the path): its
 * index, or NONE when out of memory. */
static size_t path_node(hg_flame_merger *m, size_t parent, const char *name,
			const hg_flame_node *src)
{
	size_t found = flame_merger_find(m, parent, name);
	if (found != NONE)
		return found;
	if ((m->n + 1) * 2 > m->slots && rehash(m) != 0)
		return NONE;
	if (m->n == m->cap && grow_nodes(m) != 0)
		return NONE;
	char *copy = hg_arena_strdup(m->arena, name);
	bool failed = !copy;
	hg_flame_node *nd = &m->nodes[m->n];
	memset(nd, 0, sizeof *nd);
	nd->name = copy;
	nd->parent = parent;
	nd->begin = -1;
	nd->file = copy_or_null(m->arena, src->file, &failed);
	nd->line = src->line >= 0 ? src->line : -1;
	nd->image = copy_or_null(m->arena, src->image, &failed);
	nd->symbol = copy_or_null(m->arena, src->symbol, &failed);
	if (failed)
		return NONE;
	m->serial[m->n] = 0;
	m->key_reports[m->n] = 0;
	size_t h = hash_path(parent, name) & (m->slots - 1);
	while (m->slot[h])
		h = (h + 1) & (m->slots - 1);
	m->slot[h] = m->n + 1;
	return m->n++;
}

static void add_into(hg_flame_merger *m, size_t to, const hg_flame *f, const hg_flame_node *src)
{
	hg_flame_node *nd = &m->nodes[to];
	nd->total += src->total > 0 ? src->total : 0;
	nd->self += src->self > 0 ? src->self : 0;
	nd->calls += src->calls > 0 ? src->calls : 0;
	if (m->serial[to] != m->adds) { /* once per flame, however often the path repeats */
		m->serial[to] = m->adds;
		nd->reports += src->reports > 0 ? src->reports : f->reports > 0 ? f->reports : 1;
	}
	if (src->begin >= 0 && (nd->begin < 0 || src->begin < nd->begin))
		nd->begin = src->begin;
}

int hg_flame_merger_add(hg_flame_merger *m, const hg_flame *f)
{
	if (f->n > m->map_cap) {
		size_t *map = realloc(m->map, f->n * sizeof *map);
		if (!map)
			return HG_ENOMEM;
		m->map = map;
		m->map_cap = f->n;
	}
	if (!m->unit_set)
		m->unit = f->unit, m->unit_set = true;
	m->adds++;
	m->reports += f->reports > 0 ? f->reports : 1;
	for (size_t i = 0; i < f->n; i++) {
		const hg_flame_node *src = &f->nodes[i];
		size_t p = src->parent, parent = NONE;
		m->map[i] = NONE;
		if (p != HG_FLAME_NO_PARENT) {
			if (p >= i || m->map[p] == NONE) /* malformed: a parent after its child */
				continue;
			parent = m->map[p];
		}
		size_t to = path_node(m, parent, src->name ? src->name : "", src);
		if (to == NONE)
			return HG_ENOMEM;
		m->map[i] = to;
		add_into(m, to, f, src);
	}
	if (f->key >= 0 && (size_t)f->key < f->n && m->map[f->key] != NONE)
		m->key_reports[m->map[f->key]] += f->reports > 0 ? f->reports : 1;
	return 0;
}

int hg_flame_merger_finish(hg_flame_merger *m, const char *title, hg_flame *out)
{
	memset(out, 0, sizeof *out);
	out->nodes = hg_arena_calloc(m->arena, m->n ? m->n : 1, sizeof *out->nodes);
	if (!out->nodes || (title && !(out->title = hg_arena_strdup(m->arena, title))))
		return HG_ENOMEM;
	if (m->n)
		memcpy(out->nodes, m->nodes, m->n * sizeof *out->nodes);
	out->n = m->n;
	out->unit = m->unit;
	out->reports = m->reports;
	out->key = -1;
	/* The StackKey of the most reports (the first such path on a tie). */
	int64_t best = 0;
	for (size_t i = 0; i < m->n; i++) {
		hg_flame_node *nd = &out->nodes[i];
		nd->key = false;
		if (nd->parent == HG_FLAME_NO_PARENT)
			out->total += nd->total;
		if (m->key_reports[i] > best)
			best = m->key_reports[i], out->key = (long)i;
	}
	for (size_t i = out->key >= 0 ? (size_t)out->key : NONE; i != NONE; i = out->nodes[i].parent)
		out->nodes[i].key = true;
	return 0;
}
