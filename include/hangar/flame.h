/* Flame graphs: one weighted call tree, whatever it came from (a report's
 * method stack, its thread stacks or BlockCanary samples, a cluster's
 * merged tree, or the difference of two merged trees), and the writers
 * that export or draw it: collapsed stacks for FlameGraph ("folded"), the
 * speedscope file format, Chrome's Trace Event Format (Perfetto UI,
 * chrome://tracing) and a self-contained interactive SVG.
 *
 * Builders (flame_build*.c) turn the library's data into an hg_flame;
 * writers only read an hg_flame, so each format is written the same way
 * for one report and for a cluster.  Everything an hg_flame points to
 * lives in the arena it was built in. */
#ifndef HANGAR_FLAME_H
#define HANGAR_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "report.h"
#include "store.h"
#include "text.h"

/* What a node's weight counts. */
enum hg_flame_unit {
	HG_FLAME_MS,       /* method stacks: milliseconds of cost */
	HG_FLAME_SAMPLES,  /* sampled reports: stack samples */
	HG_FLAME_THREADS,  /* thread dumps: 1 per blamed thread (and its blockers) */
};

#define HG_FLAME_NO_PARENT SIZE_MAX

typedef struct hg_flame_node {
	const char *name;    /* the frame as people read it, as the tree view names it:
			      * "a.b.C.m" for Java, a native frame's function
			      * (hg_frame_function: demangled, or symbolicated) with its
			      * "+offset", "#id" when unmapped */
	size_t parent;       /* index of the parent (always smaller), HG_FLAME_NO_PARENT for a root */
	int64_t total;       /* weight of the node and all below it (>= self, >= 0) */
	int64_t self;        /* total minus its children's totals, at least 0 */
	int64_t calls;       /* Matrix's count, or samples; 0 when unknown */
	int64_t reports;     /* merged trees: reports passing through it; 1 for one report */
	int64_t begin;       /* method stacks from a buffer: first entry, ms after the
			      * stack's first entry; -1 when unknown */
	const char *file;    /* the source file the report (or symbol files) gave: a Java
			      * frame's as written, a native frame's source_file; else NULL */
	long line;           /* its line; else -1 */
	const char *image;   /* native frames: the binary image's base name; else NULL */
	const char *symbol;  /* native frames: the symbol as the report wrote it, when
			      * name reads otherwise (a mangled name); else NULL */
	bool key;            /* on the StackKey path (root to the StackKey, inclusive) */
	/* Differential flames (hg_flame_diff) only: */
	bool in_base;        /* the same path exists in the base tree */
	double base_per_report; /* its total per report in the base tree (0 when !in_base) */
} hg_flame_node;

typedef struct hg_flame {
	hg_flame_node *nodes; /* parents before children; siblings in draw order */
	size_t n;
	enum hg_flame_unit unit;
	int64_t total;        /* sum of the roots' totals */
	long key;             /* index of the StackKey node, -1 when none */
	int64_t reports;      /* 1 for a report; the cluster's report count for a merged tree */
	const char *title;    /* one line saying what it shows, e.g. "slow_method in
			       * HomeActivity, 1200 ms" or a cluster's title */
	bool diff;            /* built by hg_flame_diff */
	int64_t base_reports; /* diff: the base tree's report count */
} hg_flame;

/* ---- builders (flame_build.c, flame_build_tree.c, flame_diff.c) ----
 *
 * Every builder settles the widths the same way: a node is at least as
 * wide as its children together.  Where the source says less (Matrix's
 * costs are rounded per method, so children can add up to a millisecond or
 * two more than their parent; a trimmed or merged tree can be off more),
 * the node is widened to its children's sum and its self is 0, so that
 * the selves always add up to the flame's total. */

/* The flame of one report: its method stack (trimmed, or the whole rebuilt
 * stack when whole; names from rep->symbols, "#id" when unmapped; begin
 * times from rep->item_begin when the report has them), else its blamed
 * thread and the threads that block it, each a root named after the
 * thread ("main", "worker (blocks main)") above its frames from the
 * outermost in, weighing 1 (HG_FLAME_THREADS); a sampled report (its
 * samples: BlockCanary, WatchDog, KSCrash profiles, MetricKit call-stack
 * trees) draws every sample, its tree of samples (hangar/samples.h) from
 * the outermost frames in, weighing samples (HG_FLAME_SAMPLES).  The other
 * candidates of an ambiguous
 * retrace are left out (the first one stays).  Everything is allocated in
 * arena; names point into the report, which must outlive *out.
 * HG_EINVAL for a report with neither a method stack nor threads; 0 or
 * HG_ENOMEM. */
int hg_flame_from_report(const hg_report *rep, bool whole, hg_arena *arena, hg_flame *out);

/* The flame of a cluster's merged tree, from the rows hg_store_cluster_tree
 * gives (parents before children), in milliseconds: each node as wide as
 * its total_cost, with its reports and its place on the StackKey path.  A
 * tree without costs (thread stacks: lag, ANR, hang clusters) weighs the
 * reports through each node instead (HG_FLAME_THREADS: a report's thread
 * each).
 * The builder and everything it makes live in arena (nothing to destroy);
 * create returns NULL on ENOMEM.  add copies the row's symbol; it returns
 * HG_EPARSE for a row whose parent came before in no row, or HG_ENOMEM
 * (and then keeps failing).  finish copies title (NULL: none); the flame
 * holds the rows added, in their order. */
typedef struct hg_flame_tree_builder hg_flame_tree_builder;
hg_flame_tree_builder *hg_flame_tree_builder_create(hg_arena *arena);
int hg_flame_tree_builder_add(void *builder, const hg_tree_row *row); /* an hg_tree_fn */
int hg_flame_tree_builder_finish(hg_flame_tree_builder *b, int64_t reports, const char *title,
				 hg_flame *out);

/* A differential flame: the shape and widths of `after`, each node with the
 * total per report of the same path (the frame names from the root) in
 * `base`, so a writer can colour where the cost per report grew or shrank,
 * as FlameGraph's difffolded.pl does. */
int hg_flame_diff(const hg_flame *base, const hg_flame *after, hg_arena *arena, hg_flame *out);
/* hg_flame_diff's widths are after's, its paths merged (siblings of one
 * name are one node); a path only in base is not drawn.  base and after
 * are borrowed; out's nodes and names live in arena.  0 or HG_ENOMEM. */

/* Merging flames path by path (flame_merge.c): the nodes with the same
 * frame names from the root become one, totals, self and calls added, a
 * node's reports counted once per flame that passes through it; the
 * StackKey is the one of the most reports.  This makes one flame of a set
 * of reports (a cluster's reports in one version or time window).  The
 * merger is heap-allocated (hg_flame_merger_destroy accepts NULL); the
 * flames added are borrowed for the call (names are copied into arena),
 * the finished flame lives in arena.  add and finish return 0 or
 * HG_ENOMEM; finish may be called once. */
typedef struct hg_flame_merger hg_flame_merger;
hg_flame_merger *hg_flame_merger_create(hg_arena *arena);
int hg_flame_merger_add(hg_flame_merger *m, const hg_flame *f);
int hg_flame_merger_finish(hg_flame_merger *m, const char *title, hg_flame *out);
void hg_flame_merger_destroy(hg_flame_merger *m);

/* ---- writers (flame_folded.c, flame_speedscope.c, flame_chrome.c, flame_svg.c) ---- */

/* Writers append to out (caller-owned; a failed append sets out->failed)
 * and only read the flame. */

/* Collapsed stacks, "root;child;leaf weight\n" per path with a self weight
 * (the weights add up to the flame's total); ';' and line breaks in names
 * are replaced so that every line splits back into the same frames.
 * Nodes of self 0 get no line (FlameGraph draws them from the lines below
 * them; a childless node of weight 0 would be drawn 0 wide anyway); an
 * empty flame writes nothing.  In names ';' becomes ':', other control
 * bytes (line breaks, tabs) a space, bytes that are not UTF-8 '?', and an
 * empty name "?". */
void hg_flame_write_folded(const hg_flame *f, hg_buf *out);

/* How many bytes hg_flame_write_folded would write (SIZE_MAX when more
 * than that): a path is written once per node of it with a self weight,
 * so a deep chain of such nodes writes depth^2 frames.  O(n). */
size_t hg_flame_folded_size(const hg_flame *f);

/* The speedscope file format (its file-format-schema.json): an evented
 * profile for method stacks (HG_FLAME_MS, unit "milliseconds"), a sampled
 * one otherwise (one sample per path with a self weight, as folded; unit
 * "none").  Frames are shared by name, file and line (a frame's file: its
 * source file, else its image).  The profile is
 * named after the title, followed by " | StackKey: " and the StackKey
 * frame's name when there is one.  Events are at the nodes' begin times
 * where known, else children follow one another from their parent's start
 * in their stored order; a time that would overlap a sibling or leave the
 * parent is moved to the nearest one that fits. */
void hg_flame_write_speedscope(const hg_flame *f, hg_buf *out);

/* Trace Event Format JSON ({"traceEvents":[...],"displayTimeUnit":"ms"}):
 * "M" events naming the process (the title) and thread(s), then one
 * complete ("X") event per node, ts/dur in microseconds laid out as for
 * speedscope, properly nested, args {cost_ms, self_ms, calls, reports,
 * stack_key, key_path; file, line, image and symbol when known}.  Method
 * stacks are one thread (tid 1); otherwise each root (a thread of a
 * dump) is a thread of its own (tid 1, 2, ...), a sample
 * or a thread weighing 1 ms, and the args say cost_samples / self_samples
 * or cost_threads / self_threads. */
void hg_flame_write_chrome(const hg_flame *f, hg_buf *out);

/* A self-contained interactive SVG flame graph drawn as an icicle (root on
 * top); see flame_svg.c for what it shows and does.  Appends to out (the
 * caller's; a failed allocation sets out->failed); f and opts borrowed.
 * Each frame's tooltip (<title>) holds its name, then where it is when
 * known ("at File.java:12", "at HTHangValidation.swift:379 in HTAPMKitDemo",
 * "in libfoo.so") and the symbol as written when the name reads otherwise
 * ("symbol $s6Reader..."), then its weight.
 * A diff flame (f->diff) is coloured by the change of each path's cost per
 * report: red grew, blue shrank, grey unchanged, hatched new.  id_prefix
 * keeps only letters, digits, '-' and '_' (others become '_'); the root's
 * id is PREFIX "svg", the StackKey frame's PREFIX "key". */
typedef struct hg_flame_svg_opts {
	int width;            /* px; <= 0: 1200 */
	bool embedded;        /* written inside an HTML page: no XML prolog; ids made
			       * unique with id_prefix */
	const char *id_prefix;/* NULL: "" */
} hg_flame_svg_opts;
void hg_flame_write_svg(const hg_flame *f, const hg_flame_svg_opts *opts, hg_buf *out);

/* ---- the StackKey's callers (flame_callers.c, flame_callers_key.c) ---- */

/* A cluster's StackKey with its callers merged upward, from the rows
 * hg_store_cluster_tree gives (parents before children): one root, the
 * StackKey frame; under it the frames that called it, under each of them
 * its callers, up to the tree's roots, as speedscope's Sandwich view draws
 * a frame's callers; each node weighs what went through that caller path
 * into the key: total_cost in ms (HG_FLAME_MS), or reports when the tree
 * has no costs (HG_FLAME_THREADS), and its reports (summed over the key's
 * nodes, at most the cluster's count).  A key reached from several
 * screens is one frame with its callers fanning out.
 * The key: the nodes on the StackKey path (on_key_path) whose symbol is
 * key_symbol, or is it but for compiler numbering ("$1" / "$2"), else
 * whose symbol is the frame key_symbol's text names (a thread dump's line
 * as written: "at a.b.C.m(C.java:12)" names "a.b.C.m", Android's "#00 pc
 * 0001a2f4  /x/libfoo.so" "libfoo.so+0x1a2f4", Apple's "Foo 0x1040 0x1000
 * + 64" "Foo+0x40", a mangled name its demangled one; a method without
 * its arguments); of a path, only the outermost (a recursion's inner calls
 * are in its total).  The root is named key_symbol when a node has it,
 * else the matching symbol of the most reports.  Off the StackKey path
 * a call of the key's method was no report's StackKey: not drawn (the
 * plain flame's speedscope Sandwich view shows every call).
 * Only rows on the StackKey path are kept, so its memory is bounded by
 * what the reading gives (hg_store_cluster_tree_pruned with a max_nodes);
 * the flame has at most max_nodes nodes (0: no cap) plus, under a node
 * whose callers went past that, one "(callers past the N-frame limit)"
 * node that carries them.  Siblings heaviest first.
 * The builder and everything it makes live in arena (nothing to destroy);
 * create returns NULL on ENOMEM.  add copies the row's symbol; it returns
 * HG_EPARSE for an id <= 0 or one given twice, or HG_ENOMEM (and then
 * keeps failing).  finish borrows key_symbol (NULL: no key); when no node
 * is the key (thread dumps whose key_symbol names no frame of the tree,
 * an empty tree) it returns 0 with an empty flame (n 0, key -1).  Else
 * f->key is 0, the root.  title is NULL: the caller names it (the root's
 * name is the key's).  0 or HG_ENOMEM. */
typedef struct hg_flame_callers_builder hg_flame_callers_builder;
hg_flame_callers_builder *hg_flame_callers_builder_create(hg_arena *arena, size_t max_nodes);
int hg_flame_callers_builder_add(void *builder, const hg_tree_row *row); /* an hg_tree_fn */
int hg_flame_callers_builder_finish(hg_flame_callers_builder *b, const char *key_symbol,
				    int64_t reports, hg_flame *out);

/* The callers' flame of cluster hash (resolved) in store: its StackKey
 * path read alone (hg_store_cluster_tree_pruned leaving out every node off
 * it), at most max_nodes of it (0: all), with the cluster's key_symbol and
 * count, titled "<kind> cluster <hash8>: callers of <key>".  *cut (may be
 * NULL): max_nodes left out part of the StackKey path (and whatever keys
 * hang below it).  No key frame: an empty flame, as finish gives.  The
 * flame lives in arena.  0, HG_ENOMEM, or the store's error. */
int hg_flame_callers_of_cluster(hg_store *store, const char *hash, size_t max_nodes,
				hg_arena *arena, hg_flame *out, bool *cut);

#endif
