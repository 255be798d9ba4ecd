/* The flame of one report: its method stack, else every stack sample of a
 * sampled report (the tree of samples), else its blamed thread and the
 * threads that block it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "flame_internal.h"
#include "hangar/samples.h"
#include "hangar/stack.h"

/* "slow_method (NORMAL) in HomeActivity, 1200 ms"; a dump's says where
 * (the scene, else the process) and how many threads block the blamed one:
 * "anr (input dispatching) in com.example, 5000 ms, 1 thread blocking main". */
static const char *report_title(const hg_report *rep, bool threads, hg_arena *arena)
{
	const char *detail = rep->anr_type ? rep->anr_type : rep->detail;
	const char *where = rep->scene ? rep->scene : rep->process;
	int64_t cost = rep->has_method_stack ? rep->stack_cost : rep->cost;
	char costs[40] = "", blocking[40] = "";
	if (cost > 0)
		snprintf(costs, sizeof costs, ", %" PRId64 " ms", cost);
	size_t n = 0;
	for (size_t k = 0; threads && k < rep->threads.n_chain; k++)
		n += (long)rep->threads.chain[k] != rep->threads.blamed;
	if (n > 0)
		snprintf(blocking, sizeof blocking, ", %zu thread%s blocking", n, n == 1 ? "" : "s");
	return hg_arena_printf(arena, "%s%s%s%s%s%s%s%s", hg_report_kind_name(rep->kind),
			       detail ? " (" : "", detail ? detail : "", detail ? ")" : "",
			       where ? " in " : "", where ? where : "", costs, blocking);
}

static int from_method_stack(const hg_report *rep, bool whole, hg_arena *arena, hg_flame *out)
{
	const hg_method_stack *st = whole ? &rep->full : &rep->trimmed;
	hg_calltree tree;
	int rc = hg_calltree_build(st, arena, &tree);
	if (rc != 0)
		return rc;
	size_t cap = st->len ? st->len : 1;
	hg_flame_node *nodes = hg_arena_calloc(arena, cap, sizeof *nodes);
	if (!nodes)
		return HG_ENOMEM;
	for (size_t i = 0; i < st->len; i++) {
		const hg_method_item *it = &st->items[i];
		const char *sym = hg_report_item_symbol(rep, it);
		const char *name = sym ? sym : hg_arena_printf(arena, "#%" PRId32, it->id);
		if (!name)
			return HG_ENOMEM;
		nodes[i] = (hg_flame_node){
			.name = name,
			.parent = tree.parent[i] < 0 ? HG_FLAME_NO_PARENT : (size_t)tree.parent[i],
			.total = it->cost,
			.calls = it->count,
			.reports = 1,
			.begin = rep->item_begin ? rep->item_begin[it->origin] : -1,
			.line = -1,
		};
	}
	out->nodes = nodes;
	out->n = st->len;
	out->unit = HG_FLAME_MS;
	flame_settle(out);
	long key = -1;
	if (rep->key_index >= 0)
		key = whole ? (long)rep->trimmed.items[rep->key_index].origin : rep->key_index;
	flame_mark_key(out, key < (long)st->len ? key : -1);
	return 0;
}

static const char *image_name(const char *image)
{
	const char *base = image ? strrchr(image, '/') : NULL;
	return base && base[1] ? base + 1 : image;
}

/* A thread as its root node reads: its name, else "main" for the main
 * thread, else "thread <tid>" (iOS reports name few threads). */
static const char *thread_name(const hg_thread *t, size_t index, hg_arena *arena)
{
	if (t->name && *t->name)
		return t->name;
	if (t->flags & HG_THREAD_MAIN)
		return "main";
	if (t->tid >= 0)
		return hg_arena_printf(arena, "thread %ld", t->tid);
	return hg_arena_printf(arena, "thread #%zu", index + 1);
}

/* The node of frame fr, its tooltip's facts with it: the source file and
 * line the report gave (a Java frame's, a native frame's source_file), the
 * image, and the symbol as written when the name reads otherwise (a
 * mangled one).  name NULL on ENOMEM. */
static hg_flame_node frame_node(const hg_report *rep, const hg_frame *fr, size_t parent,
				hg_arena *arena)
{
	/* named as the store's merged trees name it, so a flame and show agree */
	hg_flame_node nd = {.name = hg_frame_label(rep, fr, arena), .parent = parent, .reports = 1,
			    .begin = -1, .file = fr->file, .line = fr->line > 0 ? fr->line : -1};
	if (fr->kind == HG_FRAME_JAVA) {
		nd.line = fr->line >= 0 ? fr->line : -1;
		return nd;
	}
	nd.image = image_name(fr->image);
	const char *written = fr->symbol ? fr->symbol : fr->mangled;
	if (written && nd.name && strcmp(written, nd.name) != 0)
		nd.symbol = written;
	return nd;
}

/* One thread: a root named after it, then its frames from the outermost
 * in.  Each node's own weight: the samples that held it (BlockCanary, a
 * sampled profile's heaviest path), or
 * 1 on the innermost (a dump). */
static int add_thread(struct flame_nodes *b, const hg_report *rep, const hg_thread *t,
		      const char *root_name, bool samples)
{
	size_t parent = flame_push(b, &(hg_flame_node){.name = root_name,
						       .parent = HG_FLAME_NO_PARENT,
						       .reports = 1, .begin = -1, .line = -1});
	if (parent == FLAME_NONE)
		return HG_ENOMEM;
	size_t last_frame = parent;
	for (size_t i = t->n_frames; i-- > 0;) {
		const hg_frame *fr = &t->frames[i];
		if (fr->candidate > 1)
			continue; /* the other readings of an ambiguous retrace */
		hg_flame_node nd = frame_node(rep, fr, parent, b->arena);
		if (!nd.name)
			return HG_ENOMEM;
		nd.total = nd.calls = samples ? fr->repeat : 0;
		if ((parent = flame_push(b, &nd)) == FLAME_NONE)
			return HG_ENOMEM;
		last_frame = parent;
	}
	if (!samples)
		b->v[last_frame].total = 1;
	return 0;
}

/* Every sample: the tree of samples (hangar/samples.h), each node as wide
 * as the samples through it, the outermost frames the roots.  0, HG_EINVAL
 * when the samples hold no frames, or HG_ENOMEM. */
static int from_samples(const hg_report *rep, hg_arena *arena, hg_flame *out)
{
	hg_sample_tree t;
	int rc = hg_report_sample_tree(rep, arena, &t);
	if (rc != 0 || t.n == 0)
		return rc != 0 ? rc : HG_EINVAL;
	hg_flame_node *nodes = hg_arena_calloc(arena, t.n, sizeof *nodes);
	if (!nodes)
		return HG_ENOMEM;
	for (size_t i = 0; i < t.n; i++) {
		const hg_sample_node *sn = &t.nodes[i];
		nodes[i] = frame_node(rep, sn->frame,
				      sn->parent == HG_SAMPLE_NONE ? HG_FLAME_NO_PARENT : sn->parent,
				      arena);
		if (!nodes[i].name)
			return HG_ENOMEM;
		nodes[i].total = nodes[i].calls = sn->total;
	}
	out->nodes = nodes;
	out->n = t.n;
	out->unit = HG_FLAME_SAMPLES;
	flame_settle(out);
	flame_mark_key(out, -1);
	return 0;
}

static int from_threads(const hg_report *rep, hg_arena *arena, hg_flame *out)
{
	const hg_threads *ts = &rep->threads;
	bool samples = rep->kind == HG_KIND_BLOCK || rep->sampled;
	struct flame_nodes b = {arena, NULL, 0, 0};
	/* The blamed thread, or the first one when the dump blames none. */
	size_t blamed = ts->blamed >= 0 && (size_t)ts->blamed < ts->n ? (size_t)ts->blamed : 0;
	const char *blamed_name = thread_name(&ts->items[blamed], blamed, arena);
	int rc = blamed_name ? add_thread(&b, rep, &ts->items[blamed], blamed_name, samples) : HG_ENOMEM;
	for (size_t k = 0; k < ts->n_chain && rc == 0; k++) {
		size_t c = ts->chain[k];
		if (c == blamed || c >= ts->n)
			continue;
		const char *name = thread_name(&ts->items[c], c, arena);
		name = name ? hg_arena_printf(arena, "%s (blocks %s)", name, blamed_name) : NULL;
		rc = name ? add_thread(&b, rep, &ts->items[c], name, samples) : HG_ENOMEM;
	}
	if (rc != 0)
		return rc;
	out->nodes = b.v;
	out->n = b.n;
	out->unit = samples ? HG_FLAME_SAMPLES : HG_FLAME_THREADS;
	flame_settle(out);
	flame_mark_key(out, -1);
	return 0;
}

int hg_flame_from_report(const hg_report *rep, bool whole, hg_arena *arena, hg_flame *out)
{
	memset(out, 0, sizeof *out);
	out->key = -1;
	out->reports = 1;
	if (rep->error || (!rep->has_method_stack && rep->threads.n == 0))
		return HG_EINVAL;
	/* A LAG report's empty method stack says less than its threadStack. */
	const hg_method_stack *st = whole ? &rep->full : &rep->trimmed;
	bool method = rep->has_method_stack && (st->len > 0 || rep->threads.n == 0);
	if (!(out->title = report_title(rep, !method, arena)))
		return HG_ENOMEM;
	if (method)
		return from_method_stack(rep, whole, arena, out);
	int rc = rep->n_samples > 0 ? from_samples(rep, arena, out) : HG_EINVAL;
	return rc == HG_EINVAL ? from_threads(rep, arena, out) : rc;
}
