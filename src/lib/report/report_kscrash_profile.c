/* KSCrash's sampled profiles (crash.error.type "profile", KSCrash 3.x):
 * crash.error.profile holds a `frames` table (frame objects as in a
 * backtrace) and `samples`, each {"frames": [indexes], "time_start_uptime",
 * ...} listing the sample's stack innermost first.  There are no threads.
 *
 * The samples are merged into a tree from the outermost frame in (a trie:
 * one node per distinct stack prefix, keyed by parent and frame through a
 * hash table, so a hostile profile costs linear time).  A node's count is
 * the samples whose stacks pass through it.  The heaviest stack is the
 * hot path of a flame graph: from the outermost frame, always the child
 * that most samples pass through (ties: the first seen), down to a leaf;
 * it becomes the profiled thread, each frame's repeat the node's count.
 * Every other stack some sample ends at becomes a thread "<name> samples
 * #2", ... (at most PROFILE_MAX_PATHS, by how many samples end there).
 * Frames are placed in binary_images as a backtrace's are. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_kscrash_internal.h"

#define PROFILE_MAX_PATHS 32
#define W "crash.error.profile"

struct pnode {
	size_t frame;   /* index in the frames table */
	size_t parent;  /* 0: the root (no frame) */
	long count;     /* samples through it */
	long ends;      /* samples that end here */
};

struct trie {
	struct pnode *v;
	size_t n, cap;
	size_t *slot;   /* open addressing over (parent, frame); 0 = empty, else node index */
	size_t n_slots;
};

static size_t slot_of(const struct trie *t, size_t parent, size_t frame)
{
	uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15u) ^ ((uint64_t)frame * 0xC2B2AE3D27D4EB4Fu);
	return (size_t)(h ^ (h >> 29)) & (t->n_slots - 1);
}

static int trie_grow(struct trie *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct pnode *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return HG_ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (2 * (t->n + 1) <= t->n_slots)
		return 0;
	size_t n_slots = t->n_slots ? 2 * t->n_slots : 128;
	size_t *slot = calloc(n_slots, sizeof *slot);
	if (!slot)
		return HG_ENOMEM;
	free(t->slot);
	t->slot = slot;
	t->n_slots = n_slots;
	for (size_t i = 1; i < t->n; i++) {
		size_t s = slot_of(t, t->v[i].parent, t->v[i].frame);
		while (t->slot[s])
			s = (s + 1) & (n_slots - 1);
		t->slot[s] = i;
	}
	return 0;
}

/* The child of parent for frame, made on first sight; 0 on ENOMEM. */
static size_t trie_child(struct trie *t, size_t parent, size_t frame)
{
	if (trie_grow(t) != 0)
		return 0;
	size_t s = slot_of(t, parent, frame);
	for (; t->slot[s]; s = (s + 1) & (t->n_slots - 1)) {
		const struct pnode *nd = &t->v[t->slot[s]];
		if (nd->parent == parent && nd->frame == frame)
			return t->slot[s];
	}
	t->v[t->n] = (struct pnode){.frame = frame, .parent = parent};
	t->slot[s] = t->n;
	return t->n++;
}

/* One sample's frame indexes into the trie, outermost first. */
static int add_sample(struct kx *k, struct trie *t, const hg_json *sample, size_t i,
		      size_t n_frames, size_t *empty)
{
	char where[96];
	snprintf(where, sizeof where, W ".samples[%zu]", i);
	const hg_json *idx = sample;
	int rc;
	if (hg_json_type(sample) == HG_JSON_OBJECT &&
	    (rc = report_get_array(&k->f, sample, where, "frames", &idx)) != 0)
		return rc;
	if (hg_json_type(sample) != HG_JSON_OBJECT && hg_json_type(sample) != HG_JSON_ARRAY)
		return report_bad_field(&k->f, where, "", sample, "an object");
	size_t n = hg_json_count(idx), max = k->ctx->limits.max_stack_lines;
	if (n > max || k->frames > max - n)
		return report_fail(k->f.err, NO_OFFSET, "field \"%s\": more than %zu frames in the "
				   "report, over the limit (see --max-stack-lines)", where, max);
	k->frames += n;
	if (n == 0) {
		++*empty;
		return 0;
	}
	/* innermost first in the report: walk it from its end */
	const hg_json **stack = malloc(n * sizeof *stack);
	if (!stack)
		return HG_ENOMEM;
	size_t j = 0;
	for (const hg_json *e = hg_json_first(idx); e; e = hg_json_next(e))
		stack[j++] = e;
	size_t node = 0;
	rc = 0;
	for (size_t d = n; d-- > 0 && rc == 0;) {
		int64_t f;
		if (hg_json_int64(k->f.doc, stack[d], &f) != 0 || f < 0 || (uint64_t)f >= n_frames) {
			char w[128], what[64];
			snprintf(w, sizeof w, "%s.frames[%zu]", where, d);
			snprintf(what, sizeof what, "an index into the %zu frames", n_frames);
			rc = report_bad_field(&k->f, w, "", stack[d], what);
		} else if (!(node = trie_child(t, node, (size_t)f))) {
			rc = HG_ENOMEM;
		} else {
			t->v[node].count++;
		}
	}
	free(stack);
	if (rc == 0)
		t->v[node].ends++;
	return rc;
}

/* The leaf of the hot path: from the root, the child most samples pass
 * through (the first made on a tie), until none; 0 on ENOMEM or an empty
 * trie.  One pass finds each node's best child: children follow their
 * parents in the array. */
static size_t hot_leaf(const struct trie *t)
{
	size_t *best = calloc(t->n ? t->n : 1, sizeof *best);
	if (!best)
		return 0;
	for (size_t i = 1; i < t->n; i++) {
		size_t p = t->v[i].parent;
		if (!best[p] || t->v[i].count > t->v[best[p]].count)
			best[p] = i;
	}
	size_t at = 0;
	while (best[at])
		at = best[at];
	free(best);
	return at;
}

struct end {
	long ends;
	size_t node;
};

static int by_ends(const void *a, const void *b)
{
	const struct end *x = a, *y = b;
	if (x->ends != y->ends)
		return x->ends > y->ends ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* The thread of the stack that ends at node: its frames from node up to
 * the root (innermost first), each with repeat = the samples through it. */
static int add_path(struct kx *k, const struct trie *t, size_t node, const hg_json **frames,
		    const char *name)
{
	hg_thread *th = hg_threads_add(&k->rep->threads, k->rep->arena);
	if (!th)
		return HG_ENOMEM;
	size_t ti = k->rep->threads.n - 1, depth = 0;
	for (size_t n = node; n; n = t->v[n].parent)
		depth++;
	if (hg_thread_reserve_frames(th, k->rep->arena, depth) != 0)
		return HG_ENOMEM;
	char where[64];
	for (size_t n = node; n; n = t->v[n].parent) {
		th = &k->rep->threads.items[ti];
		snprintf(where, sizeof where, W ".frames[%zu]", t->v[n].frame);
		int rc = kscrash_read_frame(k, frames[t->v[n].frame], where, th);
		if (rc != 0)
			return rc;
		th->frames[th->n_frames - 1].repeat = t->v[n].count;
	}
	th = &k->rep->threads.items[ti];
	/* the outermost frame is main(): the main thread, as a startup profile's */
	const hg_frame *outer = th->n_frames ? &th->frames[th->n_frames - 1] : NULL;
	bool main = outer && outer->symbol && strcmp(outer->symbol, "main") == 0;
	th->name = name ? name : main ? "main" : "sampled thread";
	th->flags |= main && !name ? HG_THREAD_MAIN : 0;
	return 0;
}

/* The hot path's thread, then the other stacks samples end at. */
static int add_threads(struct kx *k, const struct trie *t, const hg_json **frames)
{
	size_t hot = hot_leaf(t);
	if (!hot)
		return t->n > 1 ? HG_ENOMEM : 0;
	int rc = add_path(k, t, hot, frames, NULL);
	if (rc != 0)
		return rc;
	k->rep->threads.blamed = (long)k->rep->threads.n - 1;
	k->rep->threads.items[k->rep->threads.blamed].flags |= HG_THREAD_BLAMED;
	const char *base = k->rep->threads.items[k->rep->threads.blamed].name;
	struct end *ends = malloc(t->n * sizeof *ends);
	if (!ends)
		return HG_ENOMEM;
	size_t n = 0;
	for (size_t i = 1; i < t->n; i++)
		if (t->v[i].ends > 0 && i != hot)
			ends[n++] = (struct end){t->v[i].ends, i};
	qsort(ends, n, sizeof *ends, by_ends);
	size_t keep = n < PROFILE_MAX_PATHS - 1 ? n : PROFILE_MAX_PATHS - 1;
	for (size_t i = 0; i < keep && rc == 0; i++) {
		const char *name = hg_arena_printf(k->rep->arena, "%s samples #%zu", base, i + 2);
		rc = name ? add_path(k, t, ends[i].node, frames, name) : HG_ENOMEM;
	}
	free(ends);
	if (rc == 0 && keep < n &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "the profile holds %zu distinct "
			    "stacks; the %d most sampled are kept as threads", n + 1,
			    PROFILE_MAX_PATHS) != 0)
		return HG_ENOMEM;
	return rc;
}

int kscrash_read_profile(struct kx *k, const hg_json *profile)
{
	const hg_json *table, *samples;
	int rc;
	if ((rc = report_get_array(&k->f, profile, W, "frames", &table)) != 0 ||
	    (rc = report_get_array(&k->f, profile, W, "samples", &samples)) != 0)
		return rc;
	size_t n_frames = hg_json_count(table), i = 0, empty = 0;
	const hg_json **frames = malloc((n_frames ? n_frames : 1) * sizeof *frames);
	if (!frames)
		return HG_ENOMEM;
	for (const hg_json *e = hg_json_first(table); e; e = hg_json_next(e))
		frames[i++] = e;
	struct trie t = {0};
	rc = trie_grow(&t);
	if (rc == 0)
		t.v[t.n++] = (struct pnode){0}; /* the root */
	i = 0;
	for (const hg_json *s = hg_json_first(samples); s && rc == 0; s = hg_json_next(s), i++)
		rc = add_sample(k, &t, s, i, n_frames, &empty);
	strcache_init(&k->strs, k->rep->arena);
	if (rc == 0)
		rc = add_threads(k, &t, frames);
	strcache_release(&k->strs);
	free(frames);
	free(t.v);
	free(t.slot);
	if (rc != 0)
		return rc;
	k->rep->sampled = true;
	if (empty > 0 &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%zu of the profile's %zu samples "
			    "hold no frames", empty, i) != 0)
		return HG_ENOMEM;
	if (k->rep->threads.n == 0 &&
	    hg_strlist_addf(&k->rep->warnings, k->rep->arena, "the profile's samples hold no "
			    "frames, so the report has no thread stacks") != 0)
		return HG_ENOMEM;
	return 0;
}
