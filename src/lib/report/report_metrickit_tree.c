/* A MetricKit MXCallStackTree as threads (private to report_metrickit.c).
 *
 * Each call stack is a tree whose root frames are the innermost frames
 * (the code that ran when sampled: Apple's own example and every real
 * tree put `start` in dyld at the bottom of the subFrames), each
 * subFrames array the callers.  A node's sampleCount is the samples that
 * held it there; the samples that end at a node (its own count less its
 * children's, at least 1 for a leaf) weigh the path from the root down to
 * it, as Sentry's SentryMXCallStackTree reads it.  Each path is a sample of
 * the report (hangar/samples.h) weighing its own samples, its frames a
 * thread "<thread> sample <n>" flagged HG_THREAD_SAMPLE (innermost first,
 * as hg_thread keeps them), so that the report's sample tree is the whole
 * call-stack tree; the heaviest path also holds the call stack's thread,
 * with repeat = each frame's sampleCount.  Paths are kept heaviest first
 * while their frames fit --max-stack-lines; the rest are counted in a
 * warning.
 *
 * The tree is walked without recursion, with the way down in a heap array,
 * so depth costs no C stack; the JSON reader refuses nesting past 1000
 * arrays and objects, which is 500 frames deep, and MX_MAX_DEPTH bounds it
 * here all the same. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_metrickit_internal.h"
#include "core/core.h"

#define MX_MAX_DEPTH 4096
#define WHERE_SIZE 200
#define MX_LOAD_WARNINGS 10 /* images without a load address warned one by one */

struct mx_frame {
	const char *uuid, *name;
	uint64_t addr, off;
	bool has_addr, has_off;
	long count;     /* sampleCount, 1 when absent */
	long self;      /* samples ending here */
	const hg_json *subs;
};

struct img_slot {
	const char *key; /* the UUID, else the name */
	uint32_t ref;
};

struct walk {
	const hg_ctx *ctx;
	const struct json_fields *jf;
	hg_report *rep;
	struct strcache strs;
	struct img_slot *imgs; /* open addressing, power-of-two size */
	size_t n_imgs, cap_imgs;
	size_t frames;         /* frames made, against max_stack_lines */
	const hg_json **path;  /* the root frame down to the one at hand */
	size_t depth, cap;
	const char *stack;     /* "callStackTree.callStacks[3]", for errors */
	size_t root;           /* which root frame */
	size_t no_load;        /* images whose first frame gives no load address */
};

static const char *cached(struct walk *w, const char *s)
{
	return s ? strcache_get(&w->strs, s, strlen(s)) : NULL;
}

static void frame_where(const struct walk *w, char *out, size_t size)
{
	if (w->depth <= 1)
		snprintf(out, size, "%s.callStackRootFrames[%zu]", w->stack, w->root);
	else
		snprintf(out, size, "%s.callStackRootFrames[%zu].subFrames[depth %zu]", w->stack,
			 w->root, w->depth - 1);
}

static int read_node(struct walk *w, const hg_json *n, struct mx_frame *fr)
{
	char where[WHERE_SIZE];
	frame_where(w, where, sizeof where);
	if (hg_json_type(n) != HG_JSON_OBJECT)
		return report_bad_field(w->jf, where, "", n, "an object");
	bool has_count;
	fr->count = 1;
	int rc;
	if ((rc = report_get_string(w->jf, n, where, "binaryUUID", &fr->uuid)) != 0 ||
	    (rc = report_get_string(w->jf, n, where, "binaryName", &fr->name)) != 0 ||
	    (rc = report_get_u64(w->jf, n, where, "address", &fr->addr, &fr->has_addr)) != 0 ||
	    (rc = report_get_u64(w->jf, n, where, "offsetIntoBinaryTextSegment", &fr->off,
				 &fr->has_off)) != 0 ||
	    (rc = report_get_count(w->jf, n, where, "sampleCount", &fr->count, &has_count)) != 0 ||
	    (rc = report_get_array(w->jf, n, where, "subFrames", &fr->subs)) != 0)
		return rc;
	/* The children's samples, as far as they are counts (a wrong one fails
	 * when its frame is read). */
	long kids = 0;
	for (const hg_json *c = hg_json_first(fr->subs); c; c = hg_json_next(c)) {
		int64_t v;
		const hg_json *sc = report_member(c, "sampleCount");
		if (hg_json_type(c) != HG_JSON_OBJECT)
			continue;
		v = 1;
		if (sc && (hg_json_int64(w->jf->doc, sc, &v) != 0 || v < 0))
			v = 0;
		kids = v > LONG_MAX - kids ? LONG_MAX : kids + (long)v;
	}
	fr->self = fr->count > kids ? fr->count - kids : 0;
	if (!fr->subs || !hg_json_first(fr->subs))
		fr->self = fr->self > 0 ? fr->self : 1; /* a leaf is a path of its own */
	return 0;
}

/* Called at every node that ends a path (samples end there), with w->path
 * the way to it; ordinal counts the paths of the call stack. */
typedef int (*path_fn)(struct walk *w, size_t ordinal, long weight, void *user);

/* Visits every frame under roots depth first, without recursion. */
static int walk_tree(struct walk *w, const hg_json *roots, path_fn fn, void *user)
{
	const hg_json *n = hg_json_first(roots);
	size_t ordinal = 0;
	w->depth = 0;
	w->root = 0;
	while (n) {
		if (w->depth == w->cap) {
			char where[WHERE_SIZE];
			frame_where(w, where, sizeof where);
			if (w->cap >= MX_MAX_DEPTH)
				return report_fail(w->jf->err, NO_OFFSET, "field \"%s\": frames nested "
						   "deeper than %d", where, MX_MAX_DEPTH);
			size_t cap = w->cap ? 2 * w->cap : 64;
			const hg_json **p = realloc(w->path, cap * sizeof *p);
			if (!p)
				return HG_ENOMEM;
			w->path = p;
			w->cap = cap;
		}
		w->path[w->depth++] = n;
		struct mx_frame fr;
		int rc = read_node(w, n, &fr);
		if (rc == 0 && fr.self > 0)
			rc = fn(w, ordinal++, fr.self, user);
		if (rc != 0)
			return rc;
		const hg_json *child = hg_json_first(fr.subs);
		if (child) {
			n = child;
			continue;
		}
		for (n = NULL; w->depth > 0 && !n;) {
			n = hg_json_next(w->path[--w->depth]);
			if (n && w->depth == 0)
				w->root++;
		}
	}
	return 0;
}

/* ---- images, one per UUID ---- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int grow_images(struct walk *w)
{
	size_t cap = w->cap_imgs ? 2 * w->cap_imgs : 64;
	struct img_slot *s = calloc(cap, sizeof *s);
	if (!s)
		return HG_ENOMEM;
	for (size_t i = 0; i < w->cap_imgs; i++) {
		if (!w->imgs[i].key)
			continue;
		size_t k = hash_str(w->imgs[i].key) & (cap - 1);
		while (s[k].key)
			k = (k + 1) & (cap - 1);
		s[k] = w->imgs[i];
	}
	free(w->imgs);
	w->imgs = s;
	w->cap_imgs = cap;
	return 0;
}

/* An image whose first frame gives no load address: a warning naming the
 * frame, the image and both numbers (the first MX_LOAD_WARNINGS of the
 * report; the rest are counted by mx_read_tree).  0 or HG_ENOMEM. */
static int warn_no_load(struct walk *w, const struct mx_frame *fr)
{
	if (w->no_load++ >= MX_LOAD_WARNINGS)
		return 0;
	char where[WHERE_SIZE];
	frame_where(w, where, sizeof where);
	const char *label = fr->name ? fr->name : fr->uuid;
	return hg_strlist_addf(&w->rep->warnings, w->rep->arena, "%s%s%.100s%s: address 0x%" PRIx64
			       " less offsetIntoBinaryTextSegment 0x%" PRIx64 " is no load address; "
			       "the image has none", where, label ? " \"" : "", label ? label : "",
			       label ? "\"" : "", fr->addr, fr->off) != 0 ? HG_ENOMEM : 0;
}

/* The image_ref of fr's binary, added on its first frame; 0 when the frame
 * names none. */
static int image_ref(struct walk *w, const struct mx_frame *fr, uint32_t *ref)
{
	const char *key = fr->uuid ? fr->uuid : fr->name;
	*ref = 0;
	if (!key)
		return 0;
	if (2 * (w->n_imgs + 1) > w->cap_imgs && grow_images(w) != 0)
		return HG_ENOMEM;
	size_t k = hash_str(key) & (w->cap_imgs - 1);
	for (; w->imgs[k].key; k = (k + 1) & (w->cap_imgs - 1))
		if (strcmp(w->imgs[k].key, key) == 0) {
			*ref = w->imgs[k].ref;
			return 0;
		}
	const char *name = cached(w, fr->name ? fr->name : "???");
	hg_image im = {.kind = HG_IMAGE_MACHO, .name = name, .path = name, .id = cached(w, fr->uuid)};
	/* address - offsetIntoBinaryTextSegment is where __TEXT was loaded, in
	 * user space, below 2^63; a negative address or offset (read as its
	 * two's complement) or an offset past the address gives none */
	if (fr->has_addr && fr->has_off && fr->off <= fr->addr &&
	    fr->addr - fr->off < (uint64_t)1 << 63) {
		im.load_addr = fr->addr - fr->off;
		im.has_load_addr = true;
	} else if (fr->has_addr && fr->has_off && warn_no_load(w, fr) != 0) {
		return HG_ENOMEM;
	}
	if (!name || (fr->uuid && !im.id) || !(key = cached(w, key)))
		return HG_ENOMEM;
	int rc = hg_threads_add_image(&w->rep->threads, w->rep->arena, &im, ref);
	if (rc == 0) {
		w->imgs[k] = (struct img_slot){key, *ref};
		w->n_imgs++;
	}
	return rc;
}

/* ---- paths as threads ---- */

static int add_frame(struct walk *w, hg_thread *t, const struct mx_frame *fr, bool counts)
{
	hg_frame *f = hg_thread_add_frame(t, w->rep->arena);
	if (!f)
		return HG_ENOMEM;
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = fr->has_addr;
	f->pc = fr->addr;
	f->has_offset = fr->has_off;
	f->offset = fr->off;
	f->repeat = counts && fr->count > 0 ? fr->count : 1;
	f->image = cached(w, fr->name ? fr->name : fr->uuid);
	int rc = image_ref(w, fr, &f->image_ref);
	if (rc != 0)
		return rc;
	char buf[256];
	const char *img = f->image ? f->image : "???";
	if (fr->has_addr && fr->has_off && fr->off <= fr->addr)
		snprintf(buf, sizeof buf, "%s 0x%016" PRIx64 " 0x%" PRIx64 " + %" PRIu64, img, fr->addr,
			 fr->addr - fr->off, fr->off);
	else if (fr->has_addr)
		snprintf(buf, sizeof buf, "%s 0x%016" PRIx64, img, fr->addr);
	else if (fr->has_off)
		snprintf(buf, sizeof buf, "%s + %" PRIu64, img, fr->off);
	else
		snprintf(buf, sizeof buf, "%s", img);
	f->text = cached(w, buf);
	return (fr->name || fr->uuid) && !f->image ? HG_ENOMEM : f->text ? 0 : HG_ENOMEM;
}

struct ranks {
	long *weight;      /* pass 1: each path's samples ... */
	size_t *depth;     /* ... and frames */
	size_t n, cap;
	size_t *rank;      /* pass 2: each path's place, heaviest 0 */
	size_t *order;     /* the path of each place */
	size_t keep;       /* places kept as samples */
	size_t base;       /* the call stack's thread; its samples' follow */
};

static int note_weight(struct walk *w, size_t ordinal, long weight, void *user)
{
	(void)ordinal;
	struct ranks *r = user;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		long *p = realloc(r->weight, cap * sizeof *p);
		if (p)
			r->weight = p;
		size_t *d = p ? realloc(r->depth, cap * sizeof *d) : NULL;
		if (!d)
			return HG_ENOMEM;
		r->depth = d;
		r->cap = cap;
	}
	r->depth[r->n] = w->depth;
	r->weight[r->n++] = weight;
	return 0;
}

/* The path at hand's frames into t (repeat: sampleCount when counts). */
static int path_frames(struct walk *w, hg_thread *t, bool counts)
{
	size_t max = w->ctx->limits.max_stack_lines;
	if (w->depth > max || w->frames > max - w->depth)
		return report_fail(w->jf->err, NO_OFFSET, "field \"%s\": more than %zu frames in the "
				   "report, over the limit (see --max-stack-lines)", w->stack, max);
	w->frames += w->depth;
	if (hg_thread_reserve_frames(t, w->rep->arena, w->depth) != 0)
		return HG_ENOMEM;
	for (size_t i = 0; i < w->depth; i++) {
		struct mx_frame fr;
		size_t depth = w->depth;
		w->depth = i + 1; /* for the frame's name in errors and warnings */
		int rc = read_node(w, w->path[i], &fr);
		if (rc == 0)
			rc = add_frame(w, t, &fr, counts);
		w->depth = depth;
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The heaviest path fills the call stack's thread; each kept path its
 * sample's thread. */
static int build_path(struct walk *w, size_t ordinal, long weight, void *user)
{
	(void)weight;
	struct ranks *r = user;
	if (ordinal >= r->n)
		return 0;
	size_t rank = r->rank[ordinal];
	int rc = rank == 0 ? path_frames(w, &w->rep->threads.items[r->base], true) : 0;
	if (rc == 0 && rank < r->keep)
		rc = path_frames(w, &w->rep->threads.items[r->base + 1 + rank], false);
	return rc;
}

struct weighed {
	long weight;
	size_t ordinal;
};

static int by_weight(const void *a, const void *b)
{
	const struct weighed *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal; /* ties: the first first */
}

/* The ranks of r's paths, heaviest first, and how many are kept as samples:
 * the heaviest while their frames (and the call stack's thread's) fit in
 * budget.  0 or HG_ENOMEM. */
static int rank_paths(struct ranks *r, size_t budget)
{
	size_t n = r->n ? r->n : 1;
	struct weighed *order = malloc(n * sizeof *order);
	r->rank = malloc(n * sizeof *r->rank);
	r->order = malloc(n * sizeof *r->order);
	if (!order || !r->rank || !r->order) {
		free(order);
		return HG_ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++)
		order[i] = (struct weighed){r->weight[i], i};
	qsort(order, r->n, sizeof *order, by_weight);
	for (size_t i = 0; i < r->n; i++) {
		r->rank[order[i].ordinal] = i;
		r->order[i] = order[i].ordinal;
	}
	free(order);
	size_t used = r->n ? r->depth[r->order[0]] : 0;
	for (r->keep = 0; r->keep < r->n && used <= budget &&
	     r->depth[r->order[r->keep]] <= budget - used; r->keep++)
		used += r->depth[r->order[r->keep]];
	return 0;
}

/* The kept paths as samples, heaviest first, each weighing its samples. */
static int add_samples(struct walk *w, const struct ranks *r)
{
	for (size_t i = 0; i < r->keep; i++) {
		long weight = r->weight[r->order[i]];
		int rc = hg_report_add_sample(w->rep, (long)(r->base + 1 + i), weight > 0 ? weight : 1,
					      NULL, -1);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* ---- call stacks ---- */

/* Call stack s's thread (empty when the stack has no frames), named after
 * the stack: "main" for a hang's attributed thread, "thread <s>", or "all
 * threads" for an aggregate; then one per kept path, for its sample. */
static int add_threads(struct walk *w, const struct ranks *r, size_t s, bool per_thread,
		       bool main, size_t n_stacks)
{
	hg_arena *a = w->rep->arena;
	const char *base = main ? "main" : per_thread ? hg_arena_printf(a, "thread %zu", s)
				 : n_stacks == 1 ? "all threads" : hg_arena_printf(a, "all threads #%zu", s + 1);
	for (size_t i = 0; i <= r->keep && base; i++) {
		hg_thread *t = hg_threads_add(&w->rep->threads, a);
		if (!t)
			return HG_ENOMEM;
		t->tid = per_thread ? (long)s : -1;
		t->name = i == 0 ? base : hg_arena_printf(a, "%s sample %zu", base, i);
		if (!t->name)
			return HG_ENOMEM;
	}
	return base ? 0 : HG_ENOMEM;
}

static int read_stack(struct walk *w, const hg_json *cs, const char *where, size_t s,
		      bool per_thread, bool main_attributed, size_t n_stacks, long *blamed)
{
	if (hg_json_type(cs) != HG_JSON_OBJECT)
		return report_bad_field(w->jf, where, "", cs, "an object");
	bool attributed;
	const hg_json *roots;
	int rc;
	if ((rc = report_get_bool(w->jf, cs, where, "threadAttributed", &attributed)) != 0 ||
	    (rc = report_get_array(w->jf, cs, where, "callStackRootFrames", &roots)) != 0)
		return rc;
	struct ranks r = {0};
	w->stack = where;
	size_t max = w->ctx->limits.max_stack_lines;
	if ((rc = walk_tree(w, roots, note_weight, &r)) == 0 &&
	    (rc = rank_paths(&r, max > w->frames ? max - w->frames : 0)) == 0) {
		r.base = w->rep->threads.n;
		rc = add_threads(w, &r, s, per_thread, main_attributed && attributed, n_stacks);
	}
	if (rc == 0)
		rc = walk_tree(w, roots, build_path, &r);
	if (rc == 0)
		rc = add_samples(w, &r);
	if (rc == 0 && r.n > r.keep &&
	    hg_strlist_addf(&w->rep->warnings, w->rep->arena, "%s: %zu paths of samples; the %zu "
			    "heaviest are kept as samples, the rest would pass %zu frames (see "
			    "--max-stack-lines)", where, r.n, r.keep, max) != 0)
		rc = HG_ENOMEM;
	if (rc == 0 && attributed && *blamed < 0) {
		*blamed = (long)r.base;
		if (main_attributed)
			w->rep->threads.items[r.base].flags |= HG_THREAD_MAIN;
	}
	free(r.weight);
	free(r.depth);
	free(r.rank);
	free(r.order);
	return rc;
}

int mx_read_tree(const hg_ctx *ctx, const struct json_fields *jf, const hg_json *tree,
		 const char *where, bool main_attributed, hg_report *rep)
{
	const hg_json *stacks;
	bool per_thread = true;
	int rc;
	if (hg_json_type(tree) != HG_JSON_OBJECT)
		return report_bad_field(jf, where, "", tree, "an object");
	if (report_member(tree, "callStackPerThread") &&
	    (rc = report_get_bool(jf, tree, where, "callStackPerThread", &per_thread)) != 0)
		return rc;
	if ((rc = report_get_array(jf, tree, where, "callStacks", &stacks)) != 0)
		return rc;
	if (!stacks)
		return report_fail(jf->err, NO_OFFSET, "field \"%s%scallStacks\": missing, so the tree "
				   "holds no call stacks", where, *where ? "." : "");
	struct walk w = {.ctx = ctx, .jf = jf, .rep = rep};
	strcache_init(&w.strs, rep->arena);
	long blamed = -1;
	size_t n = hg_json_count(stacks), s = 0;
	char swhere[WHERE_SIZE];
	for (const hg_json *cs = hg_json_first(stacks); cs && rc == 0; cs = hg_json_next(cs), s++) {
		snprintf(swhere, sizeof swhere, "%s%scallStacks[%zu]", where, *where ? "." : "", s);
		rc = read_stack(&w, cs, swhere, s, per_thread, main_attributed, n, &blamed);
	}
	free(w.path);
	free(w.imgs);
	strcache_release(&w.strs);
	if (rc != 0)
		return rc;
	if (blamed < 0 && rep->threads.n > 0)
		blamed = 0; /* an aggregate, or a tree that attributes no thread */
	rep->threads.blamed = blamed;
	if (blamed >= 0)
		rep->threads.items[blamed].flags |= HG_THREAD_BLAMED;
	rep->sampled = true;
	if (w.no_load > MX_LOAD_WARNINGS &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "%zu more images whose first frame gives no "
			    "load address", w.no_load - MX_LOAD_WARNINGS) != 0)
		return HG_ENOMEM;
	if (rep->threads.n == 0 &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "the call-stack tree holds no call stacks") != 0)
		return HG_ENOMEM;
	return 0;
}
