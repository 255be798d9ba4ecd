/* Stack samples as one call tree: the samples of a sampled report
 * (hg_report.samples: BlockCanary's dumps, a WatchDog's repeated logs, a
 * KSCrash profile, a MetricKit call-stack tree) merged from the outermost
 * frame in, frames of the same identity under the same caller being one
 * node, each node weighing the samples through it.  Every output draws
 * this one tree (the text view, JSON, flame graphs), and the readers take
 * its heaviest path as the report's blamed thread.
 *
 * A frame's identity is what the tree view writes for it: a Java frame's
 * class, method, file and line; a native frame's pc, image, symbol or
 * function, offset and source line.  The other candidates of an ambiguous
 * retrace (candidate > 1) are left out, as in flame graphs.
 *
 * Implemented in the report module (src/lib/report/report_samples.c). */
#ifndef HANGAR_SAMPLES_H
#define HANGAR_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "report.h"
#include "threads.h"

#define HG_SAMPLE_NONE SIZE_MAX

typedef struct hg_sample_node {
	const hg_frame *frame;  /* the frame it stands for (the first sample's; borrowed
	                           from the report) */
	long thread;            /* where frame is: the thread ... */
	size_t frame_index;     /* ... and its index there */
	size_t parent;          /* HG_SAMPLE_NONE for a root */
	size_t first_child;     /* children heaviest first (ties: the first sampled);
	                           HG_SAMPLE_NONE when none */
	size_t next_sibling;    /* HG_SAMPLE_NONE ends the list */
	size_t depth;           /* 0 for a root */
	int64_t total;          /* weight of the samples through it */
	int64_t self;           /* weight of the samples whose innermost frame it is */
	bool heaviest;          /* on the heaviest path */
} hg_sample_node;

typedef struct hg_sample_tree {
	hg_sample_node *nodes;  /* in pre-order: each node before its subtree, so a
	                           parent's index is below its children's */
	size_t n;
	int64_t total;          /* weight of every sample, those without frames too */
	int64_t empty;          /* weight of the samples without frames */
	size_t samples;         /* samples (rep->n_samples) */
	size_t heaviest;        /* the innermost node of the heaviest path: from the
	                           heaviest root, the heaviest child while it weighs more
	                           than the samples ending at its parent; HG_SAMPLE_NONE
	                           when the tree is empty */
	size_t timed;           /* samples with a time (at >= 0) */
	int64_t first_at, last_at; /* the earliest and latest of their times; -1 */
} hg_sample_tree;

/* The call tree of rep's samples, in arena (nodes borrow rep's frames:
 * rep must outlive it).  Memory and time are linear in the frames of the
 * distinct sample threads (samples sharing a thread are counted, not
 * walked again).  An empty tree (no samples, or none with frames) is n 0.
 * 0 or HG_ENOMEM. */
int hg_report_sample_tree(const hg_report *rep, hg_arena *arena, hg_sample_tree *out);

/* The node where thread th's stack (from its outermost frame in) ends in
 * tree t, or HG_SAMPLE_NONE when some frame of it is not there: the blamed
 * thread's path, to mark it.  O(depth x siblings). */
size_t hg_sample_tree_find(const hg_sample_tree *t, const hg_thread *th);

/* Whether two frames have the same identity (above), and a hash that
 * agrees with it. */
bool hg_frame_same(const hg_frame *a, const hg_frame *b);
uint64_t hg_frame_hash(const hg_frame *f);

/* The function a native frame names, as every output writes it (the text
 * view, flame graphs; JSON's "name" is the same without *rest): the
 * function symbol files named (symbolicated), else the readable name of a
 * demangled symbol, with *rest the "+offset" the symbol was written with
 * after its mangled name ("_ZN3art3FooEv+24" reads "art::Foo()" + "+24"),
 * else the symbol as written, else the method; NULL when none (and for a
 * Java frame).  *rest is "" but for a demangled symbol.  Both borrowed
 * from f. */
const char *hg_frame_function(const hg_frame *f, const char **rest);

/* A frame as one string, the same in flame graphs and the store's merged
 * trees, which key frames by it (report_frame_label.c): a Java frame's
 * "cls.method"; a native frame's function (hg_frame_function, with its
 * "+offset"), else its image's name and the pc's offset in it
 * ("SwiftUI+0x546f34", "<anonymous>+0x4456"), else "???".  Never an
 * absolute address: each launch loads images elsewhere, and two reports
 * of one stack would not merge.  In arena (or borrowed from f); NULL on
 * ENOMEM. */
const char *hg_frame_label(const hg_report *rep, const hg_frame *f, hg_arena *arena);
/* An image path's name as stable across devices as it can be: the file's
 * name; "<anonymous>" for an anonymous mapping (it says where it was
 * mapped); a bracketed one's file without the bracket.  *len: its bytes. */
const char *hg_frame_image_base(const char *image, int *len);

/* The heaviest path of rep's sample tree as a new thread named name, with
 * flags (e.g. HG_THREAD_MAIN), flagged HG_THREAD_BLAMED and blamed: its
 * frames innermost first, each a copy of the node's frame with repeat = the
 * samples through it.  It is inserted as thread 0 (the samples' thread
 * indexes move up by one), so call it before anything else holds a thread
 * index (lock chains, exceptions).  Nothing when the tree is empty.
 * 0 or HG_ENOMEM. */
int hg_report_blame_heaviest(hg_report *rep, const char *name, unsigned flags);

/* The usual gap between rep's timed samples, in sample order: the median
 * of the differences of consecutive `at`s that are >= 0 (ms); 0 when fewer
 * than two samples are timed. */
int64_t hg_report_sample_gap(const hg_report *rep);

#endif
