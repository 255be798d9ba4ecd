/* A class's index, built once when its block is expanded
 * (proguard_block.c): its sorted entries cut into runs (one obfuscated
 * name) and inlining stacks ("groups": entries repeating one obfuscated
 * range, the inlined callee first, then its callers), and for each run the
 * lists retrace walks (proguard_frame.c):
 *   - the groups with a range, by start, under a tree holding the largest
 *     range end below each node, so that the groups holding a line cost
 *     O((k + 1) log n) steps, not a read of every entry of the run for
 *     every frame (an untrusted mapping may give one name 20,000 lines);
 *   - the groups without a range, in mapping order;
 *   - the groups whose outermost method no earlier group of the run has:
 *     the answer for a frame without a usable line, duplicates dropped
 *     here once rather than for every frame. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proguard_internal.h"

/* Whether e starts a new group rather than continue prev's inlining
 * stack: an inlined caller repeats the range and gives one original line. */
static bool starts_group(const struct pg_entry *prev, const struct pg_entry *e)
{
	return !prev || e->min_start == PG_NONE || prev->min_start == PG_NONE ||
	       e->min_start != prev->min_start || e->min_end != prev->min_end ||
	       e->orig_start == PG_NONE || e->orig_end != PG_NONE;
}

/* Fills c->runs and c->groups (allocated to the counts); each run's
 * entries, groups, n_ranged, n_base and outline. */
static void split(struct pg_class *c)
{
	size_t r = 0, g = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_entry *e = &c->entries[i];
		bool new_run = i == 0 || strcmp(c->entries[i - 1].obf, e->obf) != 0;
		if (new_run)
			c->runs[r++] = (struct pg_run){.obf = e->obf, .first = (uint32_t)i,
						       .g0 = (uint32_t)g};
		struct pg_run *run = &c->runs[r - 1];
		run->n++;
		run->outline |= (e->flags & PG_OUTLINE) != 0;
		if (new_run || starts_group(e - 1, e)) {
			c->groups[g++] = (struct pg_group){(uint32_t)i, 0};
			run->ng++;
			if (pg_is_base(e))
				run->n_base++;
			else
				run->n_ranged++;
		}
		c->groups[g - 1].count++;
	}
}

struct by_start {
	long start;
	uint32_t g;
};

static int cmp_start(const void *x, const void *y)
{
	const struct by_start *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->g < b->g ? -1 : a->g > b->g;
}

/* The outermost entry of group g. */
static const struct pg_entry *outermost(const struct pg_class *c, uint32_t g)
{
	return &c->entries[c->groups[g].first + c->groups[g].count - 1];
}

static uint32_t method_key(const struct pg_entry *e)
{
	return pg_hash(e->name, strlen(e->name)) ^
	       (e->oclass ? pg_hash(e->oclass, strlen(e->oclass)) * 31u : 0);
}

static bool same_outer(const struct pg_entry *a, const struct pg_entry *b)
{
	return strcmp(a->name, b->name) == 0 &&
	       (a->oclass == b->oclass || (a->oclass && b->oclass && strcmp(a->oclass, b->oclass) == 0));
}

/* The run's lists into c->idx from *at, its tree into c->tree from *tat;
 * sort (n_ranged) and slot (a power of two over 2 ng, zeroed) are scratch. */
static void index_run(struct pg_class *c, struct pg_run *r, size_t *at, size_t *tat,
		      struct by_start *sort, uint32_t *slot, size_t cap)
{
	size_t k = 0;
	r->base = (uint32_t)*at;
	for (uint32_t g = r->g0; g < r->g0 + r->ng; g++) {
		const struct pg_entry *e = &c->entries[c->groups[g].first];
		if (pg_is_base(e))
			c->idx[(*at)++] = g;
		else
			sort[k++] = (struct by_start){e->min_start, g};
	}
	qsort(sort, k, sizeof *sort, cmp_start);
	r->ranged = (uint32_t)*at;
	for (size_t i = 0; i < k; i++)
		c->idx[(*at)++] = sort[i].g;
	r->fall = (uint32_t)*at;
	for (uint32_t g = r->g0; g < r->g0 + r->ng; g++) {
		const struct pg_entry *e = outermost(c, g);
		size_t s = method_key(e) & (cap - 1);
		while (slot[s] && !same_outer(outermost(c, slot[s] - 1), e))
			s = (s + 1) & (cap - 1);
		if (!slot[s]) {
			slot[s] = g + 1;
			c->idx[(*at)++] = g;
			r->n_fall++;
		}
	}
	if (!k)
		return;
	r->width = 1;
	while (r->width < k)
		r->width *= 2;
	r->tree = (uint32_t)*tat;
	long *t = c->tree + r->tree;
	for (size_t i = 0; i < r->width; i++)
		t[r->width + i] = i < k ? c->entries[c->groups[sort[i].g].first].min_end : LONG_MIN;
	for (size_t i = r->width - 1; i >= 1; i--)
		t[i] = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
	*tat += 2 * (size_t)r->width;
}

int pg_index_class(hg_arena *arena, struct pg_class *c)
{
	size_t runs = 0, groups = 0;
	for (size_t i = 0; i < c->n; i++) {
		bool new_run = i == 0 || strcmp(c->entries[i - 1].obf, c->entries[i].obf) != 0;
		runs += new_run;
		groups += new_run || starts_group(&c->entries[i - 1], &c->entries[i]);
	}
	c->runs = hg_arena_calloc(arena, runs ? runs : 1, sizeof *c->runs);
	c->groups = hg_arena_calloc(arena, groups ? groups : 1, sizeof *c->groups);
	/* base + ranged lists: each group once; the no-line list: at most once */
	c->idx = hg_arena_calloc(arena, groups ? 2 * groups : 1, sizeof *c->idx);
	if (!c->runs || !c->groups || !c->idx)
		return HG_ENOMEM;
	c->n_runs = runs;
	c->n_groups = groups;
	split(c);
	size_t tree = 0, most = 0;
	for (size_t i = 0; i < runs; i++) {
		size_t w = 1;
		while (w < c->runs[i].n_ranged)
			w *= 2;
		tree += c->runs[i].n_ranged ? 2 * w : 0;
		if (c->runs[i].ng > most)
			most = c->runs[i].ng;
	}
	size_t cap = 16;
	while (cap < 2 * most)
		cap *= 2;
	c->tree = hg_arena_calloc(arena, tree ? tree : 1, sizeof *c->tree);
	struct by_start *sort = malloc((most ? most : 1) * sizeof *sort);
	uint32_t *slot = malloc(cap * sizeof *slot);
	int rc = c->tree && sort && slot ? 0 : HG_ENOMEM;
	size_t at = 0, tat = 0;
	for (size_t i = 0; i < runs && rc == 0; i++) {
		memset(slot, 0, cap * sizeof *slot);
		index_run(c, &c->runs[i], &at, &tat, sort, slot, cap);
	}
	free(sort);
	free(slot);
	return rc;
}

/* strcmp of the NUL-terminated a with b[0..len). */
static int cmp_name(const char *a, const char *b, size_t len)
{
	int d = strncmp(a, b, len);
	return d ? d : a[len] != '\0';
}

const struct pg_run *pg_run_find(const struct pg_class *c, const char *obf, size_t len)
{
	size_t lo = 0, hi = c->n_runs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = cmp_name(c->runs[mid].obf, obf, len);
		if (d == 0)
			return &c->runs[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

size_t pg_run_stab(const struct pg_class *c, const struct pg_run *r, long L, uint32_t *out,
		   size_t max, size_t *steps, size_t limit, bool *more)
{
	const uint32_t *g = c->idx + r->ranged;
	/* hi: the ranged groups that start at or before L */
	size_t lo = 0, hi = r->n_ranged;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->entries[c->groups[g[mid]].first].min_start <= L)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = lo;
	size_t n = 0;
	if (!hi)
		return 0;
	/* Depth first, left to right, skipping subtrees that start after L
	 * or end before it: every node visited is on a path to an answer, or
	 * next to one. */
	const long *t = c->tree + r->tree;
	struct {
		size_t node, lo, size;
	} stack[2 * sizeof(size_t) * CHAR_BIT];
	int sp = 0;
	stack[sp++].node = 1;
	stack[0].lo = 0;
	stack[0].size = r->width;
	while (sp > 0) {
		size_t node = stack[sp - 1].node, first = stack[sp - 1].lo, size = stack[sp - 1].size;
		sp--;
		if (*steps >= limit) {
			*more = true;
			break;
		}
		(*steps)++;
		if (first >= hi || t[node] < L)
			continue;
		if (size == 1) {
			if (n == max) {
				*more = true;
				break;
			}
			out[n++] = g[first];
			continue;
		}
		size_t half = size / 2;
		stack[sp].node = 2 * node + 1;
		stack[sp].lo = first + half;
		stack[sp++].size = half;
		stack[sp].node = 2 * node;
		stack[sp].lo = first;
		stack[sp++].size = half;
	}
	qsort(out, n, sizeof *out, cmp_u32);
	return n;
}
