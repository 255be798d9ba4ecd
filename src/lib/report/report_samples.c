/* The call tree of a report's stack samples (hangar/samples.h).
 *
 * Samples are merged in a trie keyed by (parent node, frame identity)
 * through an open-addressing table, so a hostile report costs linear time:
 * each distinct sample thread is walked once, from its outermost frame in,
 * with the weight of every sample that shares it.  The trie is then laid
 * out in pre-order with each node's children heaviest first (ties: the
 * one sampled first), which is the order every output draws it in. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/samples.h"
#include "report_internal.h"

#define NONE HG_SAMPLE_NONE

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool hg_frame_same(const hg_frame *a, const hg_frame *b)
{
	if (a->kind != b->kind || a->line != b->line || !same_str(a->method, b->method) ||
	    !same_str(a->file, b->file))
		return false;
	if (a->kind == HG_FRAME_JAVA)
		return same_str(a->cls, b->cls);
	return a->has_pc == b->has_pc && (!a->has_pc || a->pc == b->pc) &&
	       a->has_offset == b->has_offset && (!a->has_offset || a->offset == b->offset) &&
	       a->inlined == b->inlined && same_str(a->image, b->image) &&
	       same_str(a->symbol, b->symbol);
}

const char *hg_frame_function(const hg_frame *f, const char **rest)
{
	*rest = "";
	if (f->kind != HG_FRAME_NATIVE)
		return NULL;
	if (f->mangled && f->method && !f->symbolicated) {
		size_t n = strlen(f->mangled);
		if (f->symbol && strncmp(f->symbol, f->mangled, n) == 0)
			*rest = f->symbol + n;
		return f->method;
	}
	if (f->symbol && !f->symbolicated)
		return f->symbol;
	return f->method;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (h ^ 0xff) * 1099511628211u; /* NULL and "" hash apart from what follows */
}

static uint64_t mix_u64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	return h;
}

uint64_t hg_frame_hash(const hg_frame *f)
{
	uint64_t h = mix_u64(1469598103934665603u, (uint64_t)f->kind);
	h = mix_u64(mix_str(mix_str(h, f->method), f->file), (uint64_t)f->line);
	if (f->kind == HG_FRAME_JAVA)
		return mix_str(h, f->cls);
	h = mix_u64(h, f->has_pc ? f->pc : 0);
	h = mix_u64(h, f->has_offset ? f->offset : 0);
	return mix_str(mix_str(h, f->image), f->symbol);
}

/* ---- the trie ---- */

struct tnode {
	const hg_frame *frame;
	long thread;
	size_t frame_index;
	size_t parent;          /* NONE: a root */
	uint64_t hash;
	int64_t total, self;
};

struct trie {
	struct tnode *v;
	size_t n, cap;
	size_t *slot;           /* node index + 1; 0 empty */
	size_t mask;            /* slots - 1 */
};

static size_t slot_of(const struct trie *t, size_t parent, uint64_t hash)
{
	uint64_t h = mix_u64(hash, (uint64_t)parent * 0xc2b2ae3d27d4eb4fu);
	return (size_t)(h ^ (h >> 31)) & t->mask;
}

static int trie_grow(struct trie *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct tnode *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return HG_ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->slot && 2 * (t->n + 1) <= t->mask + 1)
		return 0;
	size_t slots = t->slot ? 2 * (t->mask + 1) : 512;
	size_t *slot = calloc(slots, sizeof *slot);
	if (!slot)
		return HG_ENOMEM;
	free(t->slot);
	t->slot = slot;
	t->mask = slots - 1;
	for (size_t i = 0; i < t->n; i++) {
		size_t s = slot_of(t, t->v[i].parent, t->v[i].hash);
		while (t->slot[s])
			s = (s + 1) & t->mask;
		t->slot[s] = i + 1;
	}
	return 0;
}

/* The child of parent for frame f (of thread ti, index fi), made on first
 * sight; NONE on ENOMEM. */
static size_t trie_child(struct trie *t, size_t parent, const hg_frame *f, long ti, size_t fi)
{
	if (trie_grow(t) != 0)
		return NONE;
	uint64_t hash = hg_frame_hash(f);
	size_t s = slot_of(t, parent, hash);
	for (; t->slot[s]; s = (s + 1) & t->mask) {
		const struct tnode *nd = &t->v[t->slot[s] - 1];
		if (nd->parent == parent && nd->hash == hash && hg_frame_same(nd->frame, f))
			return t->slot[s] - 1;
	}
	t->v[t->n] = (struct tnode){f, ti, fi, parent, hash, 0, 0};
	t->slot[s] = t->n + 1;
	return t->n++;
}

/* One sample thread, walked from its outermost frame in, weighing w. */
static int add_thread(struct trie *t, const hg_thread *th, long ti, int64_t w, int64_t *empty)
{
	size_t node = NONE;
	for (size_t i = th->n_frames; i-- > 0;) {
		const hg_frame *f = &th->frames[i];
		if (f->candidate > 1)
			continue; /* the other readings of an ambiguous retrace */
		if ((node = trie_child(t, node, f, ti, i)) == NONE)
			return HG_ENOMEM;
		t->v[node].total += w;
	}
	if (node == NONE)
		*empty += w;
	else
		t->v[node].self += w;
	return 0;
}

/* The samples' weight per thread, walked in the order threads were first
 * sampled. */
static int fill_trie(const hg_report *rep, struct trie *t, hg_sample_tree *out)
{
	size_t nt = rep->threads.n;
	int64_t *w = calloc(nt ? nt : 1, sizeof *w);
	long *order = malloc((rep->n_samples ? rep->n_samples : 1) * sizeof *order);
	if (!w || !order) {
		free(w);
		free(order);
		return HG_ENOMEM;
	}
	size_t n_order = 0;
	for (size_t i = 0; i < rep->n_samples; i++) {
		const hg_sample *s = &rep->samples[i];
		int64_t wt = s->weight > 0 ? s->weight : 0;
		out->total += wt;
		if (s->at >= 0) {
			out->first_at = out->timed && out->first_at <= s->at ? out->first_at : s->at;
			out->last_at = out->timed && out->last_at >= s->at ? out->last_at : s->at;
			out->timed++;
		}
		if (s->thread < 0 || (size_t)s->thread >= nt) {
			out->empty += wt;
			continue;
		}
		if (w[s->thread] == 0 && wt > 0)
			order[n_order++] = s->thread;
		w[s->thread] = wt > INT64_MAX - w[s->thread] ? INT64_MAX : w[s->thread] + wt;
	}
	int rc = 0;
	for (size_t k = 0; k < n_order && rc == 0; k++)
		rc = add_thread(t, &rep->threads.items[order[k]], order[k], w[order[k]], &out->empty);
	free(w);
	free(order);
	return rc;
}

/* ---- laying it out ---- */

struct kid {
	int64_t total;
	size_t node;
};

static int heavier_first(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node; /* made first, sampled first */
}

/* kids[start[p] .. start[p + 1]) are node p's children, heaviest first;
 * the roots are under p = n.  0 or HG_ENOMEM. */
static int child_lists(const struct trie *t, struct kid **kids_out, size_t **start_out)
{
	size_t n = t->n;
	size_t *start = calloc(n + 2, sizeof *start), *fill = calloc(n + 1, sizeof *fill);
	struct kid *kids = malloc((n ? n : 1) * sizeof *kids);
	if (!start || !kids || !fill) {
		free(start);
		free(kids);
		free(fill);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		start[(t->v[i].parent == NONE ? n : t->v[i].parent) + 1]++;
	for (size_t p = 0; p <= n; p++)
		start[p + 1] += start[p];
	for (size_t i = 0; i < n; i++) {
		size_t p = t->v[i].parent == NONE ? n : t->v[i].parent;
		kids[start[p] + fill[p]++] = (struct kid){t->v[i].total, i};
	}
	free(fill);
	for (size_t p = 0; p <= n; p++)
		if (start[p + 1] - start[p] > 1)
			qsort(kids + start[p], start[p + 1] - start[p], sizeof *kids, heavier_first);
	*kids_out = kids;
	*start_out = start;
	return 0;
}

/* The trie in pre-order into out->nodes (arena). */
static int lay_out(const struct trie *t, hg_arena *arena, hg_sample_tree *out)
{
	size_t n = t->n, *start;
	struct kid *kids;
	if (n == 0)
		return 0;
	if (child_lists(t, &kids, &start) != 0)
		return HG_ENOMEM;
	hg_sample_node *nodes = hg_arena_calloc(arena, n, sizeof *nodes);
	size_t *stack = malloc(n * sizeof *stack), *index = malloc(n * sizeof *index);
	size_t *last = malloc((n + 1) * sizeof *last); /* the last child placed, per new index */
	int rc = nodes && stack && index && last ? 0 : HG_ENOMEM;
	size_t depth = 0, k = 0;
	for (size_t j = start[n + 1]; rc == 0 && j-- > start[n];)
		stack[depth++] = kids[j].node;
	for (size_t i = 0; rc == 0 && i <= n; i++)
		last[i] = NONE;
	while (rc == 0 && depth > 0) {
		size_t old = stack[--depth], at = k++;
		const struct tnode *tn = &t->v[old];
		index[old] = at;
		size_t parent = tn->parent == NONE ? NONE : index[tn->parent];
		nodes[at] = (hg_sample_node){tn->frame, tn->thread, tn->frame_index, parent, NONE,
					     NONE, parent == NONE ? 0 : nodes[parent].depth + 1,
					     tn->total, tn->self, false};
		size_t *prev = &last[parent == NONE ? n : parent];
		if (*prev != NONE)
			nodes[*prev].next_sibling = at;
		else if (parent != NONE)
			nodes[parent].first_child = at;
		*prev = at;
		for (size_t j = start[old + 1]; j-- > start[old];)
			stack[depth++] = kids[j].node;
	}
	free(stack);
	free(index);
	free(last);
	free(kids);
	free(start);
	out->nodes = nodes;
	out->n = rc == 0 ? n : 0;
	return rc;
}

static void mark_heaviest(hg_sample_tree *tr)
{
	if (tr->n == 0)
		return;
	size_t at = 0; /* the heaviest root comes first */
	tr->nodes[at].heaviest = true;
	for (;;) {
		size_t best = tr->nodes[at].first_child;
		if (best == NONE || tr->nodes[best].total <= tr->nodes[at].self)
			break;
		at = best;
		tr->nodes[at].heaviest = true;
	}
	tr->heaviest = at;
}

int hg_report_sample_tree(const hg_report *rep, hg_arena *arena, hg_sample_tree *out)
{
	memset(out, 0, sizeof *out);
	out->heaviest = NONE;
	out->first_at = out->last_at = -1;
	out->samples = rep->n_samples;
	struct trie t = {0};
	int rc = fill_trie(rep, &t, out);
	if (rc == 0)
		rc = lay_out(&t, arena, out);
	free(t.v);
	free(t.slot);
	if (rc == 0)
		mark_heaviest(out);
	return rc;
}

size_t hg_sample_tree_find(const hg_sample_tree *t, const hg_thread *th)
{
	size_t at = NONE, next = t->n ? 0 : NONE; /* the first root */
	for (size_t i = th->n_frames; i-- > 0;) {
		const hg_frame *f = &th->frames[i];
		if (f->candidate > 1)
			continue;
		while (next != NONE && !hg_frame_same(t->nodes[next].frame, f))
			next = t->nodes[next].next_sibling;
		if (next == NONE)
			return NONE;
		at = next;
		next = t->nodes[at].first_child;
	}
	return at;
}

/* ---- the blamed thread ---- */

/* Makes room for a thread at index 0: the others, and the samples' thread
 * indexes, move up by one.  0 or HG_ENOMEM. */
static int insert_first(hg_report *rep)
{
	hg_threads *ts = &rep->threads;
	hg_thread *t = hg_threads_add(ts, rep->arena);
	if (!t)
		return HG_ENOMEM;
	hg_thread fresh = *t;
	memmove(&ts->items[1], &ts->items[0], (ts->n - 1) * sizeof *ts->items);
	ts->items[0] = fresh;
	for (size_t i = 0; i < rep->n_samples; i++)
		rep->samples[i].thread++;
	for (size_t i = 0; i < rep->n_exceptions; i++)
		rep->exceptions[i].thread += rep->exceptions[i].thread >= 0;
	ts->blamed += ts->blamed >= 0;
	return 0;
}

int hg_report_blame_heaviest(hg_report *rep, const char *name, unsigned flags)
{
	hg_arena *scratch = hg_arena_create();
	if (!scratch)
		return HG_ENOMEM;
	hg_sample_tree tr;
	int rc = hg_report_sample_tree(rep, scratch, &tr);
	if (rc != 0 || tr.heaviest == NONE) {
		hg_arena_destroy(scratch);
		return rc;
	}
	size_t depth = tr.nodes[tr.heaviest].depth + 1;
	hg_frame *frames = hg_arena_calloc(rep->arena, depth, sizeof *frames);
	if (!frames) {
		hg_arena_destroy(scratch);
		return HG_ENOMEM;
	}
	/* innermost first: from the path's end up to its root */
	size_t k = 0;
	for (size_t at = tr.heaviest; at != NONE && k < depth; at = tr.nodes[at].parent, k++) {
		frames[k] = *tr.nodes[at].frame;
		frames[k].repeat = tr.nodes[at].total > LONG_MAX ? LONG_MAX : (long)tr.nodes[at].total;
		frames[k].candidate = 0;
		frames[k].alternative = false;
	}
	hg_arena_destroy(scratch); /* the nodes pointed into rep's frames: copied above */
	if ((rc = insert_first(rep)) != 0)
		return rc;
	hg_thread *t = &rep->threads.items[0];
	t->name = name;
	t->flags = flags | HG_THREAD_BLAMED;
	t->frames = frames;
	t->n_frames = t->cap_frames = k;
	rep->threads.blamed = 0;
	return 0;
}

/* ---- the sampling interval ---- */

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int64_t hg_report_sample_gap(const hg_report *rep)
{
	int64_t *gaps = malloc((rep->n_samples ? rep->n_samples : 1) * sizeof *gaps);
	if (!gaps)
		return 0;
	size_t n = 0;
	int64_t prev = -1;
	for (size_t i = 0; i < rep->n_samples; i++) {
		int64_t at = rep->samples[i].at;
		if (at < 0)
			continue;
		if (prev >= 0 && at >= prev)
			gaps[n++] = at - prev;
		prev = at;
	}
	int64_t gap = 0;
	if (n > 0) {
		qsort(gaps, n, sizeof *gaps, by_value);
		gap = gaps[n / 2];
	}
	free(gaps);
	return gap;
}
