/* Reading a stored tree's text a node at a time (store_tree_json.c), and
 * keeping the costliest nodes of a tree too big to hold (store_tree_prune.c):
 * what bounds `hangar show` and `hangar ingest` of a report whose stack is
 * a million lines.  Private to the store's files. */
#ifndef HANGAR_STORE_TREE_READ_H
#define HANGAR_STORE_TREE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "store_internal.h"

/* ---- a trees.nodes text, a node at a time (store_tree_json.c) ---- */

/* Reads n bytes of the text at offset into buf: 0 or an hg error. */
typedef int (*store_text_read_fn)(void *src, char *buf, size_t n, size_t offset);

struct store_tree_text {
	store_text_read_fn read; /* NULL: the whole text is in memory */
	void *src;
	size_t size;             /* the text's bytes */
	char *piece;             /* read's buffer (owned), NULL in memory */
	const char *base;        /* the bytes at hand start here, at offset `at` */
	const char *p, *end;
	size_t at;
	int state;               /* where in the array: see store_tree_json.c */
	int err;                 /* read's error, or HG_EPARSE; sticks */
};

/* The text json[0..len), borrowed. */
void store_tree_text_memory(struct store_tree_text *t, const char *json, size_t len);
/* A text of size bytes read through read, a piece (64 KiB) at a time.
 * 0 or HG_ENOMEM; store_tree_text_release frees the piece. */
int store_tree_text_pieces(struct store_tree_text *t, size_t size, store_text_read_fn read,
			   void *src);
void store_tree_text_release(struct store_tree_text *t);
/* Back to the start, to read the text again. */
void store_tree_text_rewind(struct store_tree_text *t);
/* The next node: 1 with *node, 0 after the last (the closing ']' and
 * nothing but white space after it), HG_EPARSE with *bad_at (the 1-based
 * byte), or read's error.  Each node is checked alone (id > 0, 0 <= parent
 * < id, counts >= 0, key 0 or 1); their order and parents are the
 * caller's to check. */
int store_tree_text_next(struct store_tree_text *t, struct store_tree_node *node,
			 size_t *bad_at);

/* ---- the k largest of a stream of costs (store_tree_prune.c) ---- */

/* A min-heap of the k largest values pushed: its top is the k-th largest. */
struct store_topk {
	int64_t *v;
	size_t n, k;
};
/* 0 or HG_ENOMEM (k = 0: nothing is kept, and nothing allocated). */
int store_topk_init(struct store_topk *h, size_t k);
void store_topk_push(struct store_topk *h, int64_t v);
/* The least value a node needs to be among the k largest: the k-th largest
 * pushed once k were pushed, else INT64_MIN (all fit); INT64_MAX when k
 * is 0 (none fits). */
int64_t store_topk_floor(const struct store_topk *h);
/* How many of the values kept are above v: with v the floor, how many
 * nodes costlier than it there are, so that k less that many of those
 * costing the floor exactly fit (the first ones). */
size_t store_topk_above(const struct store_topk *h, int64_t v);
void store_topk_release(struct store_topk *h);

/* ---- a report's own tree, capped (store_tree_prune.c) ---- */

/* The frame text of the node that stands for the frames a report's tree
 * left out at ingest, under the node they hung from. */
#define STORE_TREE_LEFT_SYMBOL "(frames left out at ingest)"

/* Keeps at most cap of a report's self-merged nodes (parents before
 * children): the StackKey path first, then the costliest, a node only
 * with its caller and counting no costlier than it (as
 * hg_store_cluster_tree_pruned chooses); under each node that lost
 * children (and beside the
 * roots when roots were lost) one STORE_TREE_LEFT_SYMBOL node with their
 * cost (the topmost ones' totals; the self of all of them), not on the
 * key path.  The nodes kept and their symbols are copied into a new arena
 * that replaces *arena (the old one destroyed); *nodes and *len then
 * point into it.  Does nothing when *len <= cap.  0 or HG_ENOMEM (then
 * nothing changed). */
int store_tree_cap_report(struct store_report_node **nodes, size_t *len, hg_arena **arena,
			  size_t cap);

#endif
