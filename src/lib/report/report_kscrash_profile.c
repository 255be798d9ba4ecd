/* KSCrash's sampled profiles (crash.error.type "profile", KSCrash 3.x):
 * crash.error.profile holds a `frames` table (frame objects as in a
 * backtrace) and `samples`, each {"frames": [indexes], "time_start_uptime",
 * ...} listing the sample's stack innermost first.  There are no threads.
 *
 * The samples are merged into a tree from the outermost frame in (a trie:
 * one node per distinct stack prefix, keyed by parent and frame through a
 * hash table, so a hostile profile costs linear time).  Every distinct
 * stack a sample ends at becomes a thread flagged HG_THREAD_SAMPLE, and
 * every sample with frames a sample of the report (hangar/samples.h) with
 * its time: time_start_uptime as written, in ms since 1970 from the
 * profile's time_start_epoch (else since the profile's start).  The
 * samples' call tree gives the profiled thread: its heaviest path, each
 * frame with the samples through it ("main" when its outermost frame is
 * main(), as a startup profile's).  Frames are placed in binary_images as
 * a backtrace's are. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/samples.h"
#include "report_kscrash_internal.h"

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
		      size_t n_frames, size_t *empty, size_t *leaf)
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
	*leaf = 0;
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
	*leaf = node;
	return rc;
}

/* The thread of the stack that ends at node: its frames from node up to
 * the root (innermost first), named `name`. */
static int add_path(struct kx *k, const struct trie *t, size_t node, const hg_json **frames,
		    const char *name)
{
	hg_thread *th = hg_threads_add(&k->rep->threads, k->rep->arena);
	if (!th)
		return HG_ENOMEM;
	size_t ti = k->rep->threads.n - 1, depth = 0;
	th->name = name;
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
	}
	return 0;
}

/* One sample with frames: the trie node it ends at, and its object. */
struct taken {
	size_t leaf;
	const hg_json *obj;
	size_t index;           /* in the profile's samples */
};

/* The profile's clock: sample times are its time_units since boot. */
struct clock {
	uint64_t start_uptime, epoch;
	bool has_start, has_epoch;
	uint64_t per_ms;        /* units per ms; 0 when time_units is none known */
	size_t bad;             /* samples whose time is no count */
	char first_bad[48];
};

static int read_clock(struct kx *k, const hg_json *profile, struct clock *c)
{
	const char *units = NULL;
	uint64_t interval;
	bool has_interval;
	int rc;
	memset(c, 0, sizeof *c);
	if ((rc = report_get_string(&k->f, profile, W, "time_units", &units)) != 0 ||
	    (rc = report_get_u64(&k->f, profile, W, "time_start_uptime", &c->start_uptime,
				 &c->has_start)) != 0 ||
	    (rc = report_get_u64(&k->f, profile, W, "time_start_epoch", &c->epoch, &c->has_epoch)) != 0 ||
	    (rc = report_get_u64(&k->f, profile, W, "expected_sample_interval", &interval,
				 &has_interval)) != 0)
		return rc;
	c->per_ms = !units ? 0 : !strcmp(units, "nanoseconds") ? 1000000 : !strcmp(units, "microseconds")
		    ? 1000 : !strcmp(units, "milliseconds") ? 1 : 0;
	if (has_interval && c->per_ms)
		k->rep->sample_interval = (int64_t)(interval / c->per_ms);
	return 0;
}

/* A sample's time: its time_start_uptime as written, and in ms (-1 when
 * it says none, or one that cannot be placed). */
static int sample_time(struct kx *k, struct clock *c, const hg_json *obj, const char **time,
		       int64_t *at)
{
	const hg_json *v = hg_json_type(obj) == HG_JSON_OBJECT ? report_member(obj, "time_start_uptime")
							       : NULL;
	int64_t up;
	*time = NULL;
	*at = -1;
	if (!v)
		return 0;
	if (hg_json_type(v) != HG_JSON_NUMBER || hg_json_int64(k->f.doc, v, &up) != 0 || up < 0) {
		if (c->bad++ == 0)
			report_quote(k->f.doc, v, c->first_bad, sizeof c->first_bad);
		return 0;
	}
	const char *s;
	size_t n;
	hg_json_number_text(k->f.doc, v, &s, &n);
	if (!(*time = strcache_get(&k->strs, s, n)))
		return HG_ENOMEM;
	if (!c->per_ms || !c->has_start || (uint64_t)up < c->start_uptime)
		return 0;
	uint64_t ms = ((uint64_t)up - c->start_uptime) / c->per_ms;
	uint64_t base = c->has_epoch ? c->epoch / c->per_ms : 0;
	*at = ms > (uint64_t)INT64_MAX - base ? -1 : (int64_t)(base + ms);
	return 0;
}

/* Each distinct stack a thread (in the order first sampled), each sample
 * a sample of it; then the heaviest path as the profiled thread. */
static int add_samples(struct kx *k, const struct trie *t, const hg_json **frames,
		       const struct taken *taken, size_t n, struct clock *c)
{
	hg_report *rep = k->rep;
	long *thread = calloc(t->n ? t->n : 1, sizeof *thread); /* per node: thread + 1 */
	if (!thread)
		return HG_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t leaf = taken[i].leaf;
		if (!thread[leaf]) {
			const char *name = hg_arena_printf(rep->arena, "sample %zu", taken[i].index + 1);
			rc = name ? add_path(k, t, leaf, frames, name) : HG_ENOMEM;
			thread[leaf] = (long)rep->threads.n;
		}
		const char *time;
		int64_t at;
		if (rc == 0)
			rc = sample_time(k, c, taken[i].obj, &time, &at);
		if (rc == 0)
			rc = hg_report_add_sample(rep, thread[leaf] - 1, 1, time, at);
	}
	free(thread);
	if (rc != 0 || (rc = hg_report_blame_heaviest(rep, "sampled thread", 0)) != 0 ||
	    rep->threads.blamed < 0)
		return rc;
	/* the outermost frame is main(): the main thread, as a startup profile's */
	hg_thread *th = &rep->threads.items[rep->threads.blamed];
	const hg_frame *outer = th->n_frames ? &th->frames[th->n_frames - 1] : NULL;
	if (outer && outer->symbol && strcmp(outer->symbol, "main") == 0) {
		th->name = "main";
		th->flags |= HG_THREAD_MAIN;
	}
	if (c->bad > 0 &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "field \"" W ".samples[].time_start_uptime\": "
			    "%zu sample%s whose time is no count (the first: %s): %s untimed", c->bad,
			    c->bad == 1 ? "" : "s", c->first_bad, c->bad == 1 ? "it is" : "they are") != 0)
		return HG_ENOMEM;
	return 0;
}

int kscrash_read_profile(struct kx *k, const hg_json *profile)
{
	const hg_json *table, *samples;
	struct clock c;
	int rc;
	if ((rc = report_get_array(&k->f, profile, W, "frames", &table)) != 0 ||
	    (rc = report_get_array(&k->f, profile, W, "samples", &samples)) != 0 ||
	    (rc = read_clock(k, profile, &c)) != 0)
		return rc;
	size_t n_frames = hg_json_count(table), i = 0, empty = 0, n_taken = 0;
	size_t n_samples = hg_json_count(samples);
	const hg_json **frames = malloc((n_frames ? n_frames : 1) * sizeof *frames);
	struct taken *taken = malloc((n_samples ? n_samples : 1) * sizeof *taken);
	if (!frames || !taken) {
		free(frames);
		free(taken);
		return HG_ENOMEM;
	}
	for (const hg_json *e = hg_json_first(table); e; e = hg_json_next(e))
		frames[i++] = e;
	struct trie t = {0};
	rc = trie_grow(&t);
	if (rc == 0)
		t.v[t.n++] = (struct pnode){0}; /* the root */
	i = 0;
	for (const hg_json *s = hg_json_first(samples); s && rc == 0; s = hg_json_next(s), i++) {
		size_t leaf = 0;
		rc = add_sample(k, &t, s, i, n_frames, &empty, &leaf);
		if (rc == 0 && leaf)
			taken[n_taken++] = (struct taken){leaf, s, i};
	}
	strcache_init(&k->strs, k->rep->arena);
	if (rc == 0)
		rc = add_samples(k, &t, frames, taken, n_taken, &c);
	strcache_release(&k->strs);
	free(frames);
	free(taken);
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
