/* What the flame module's files share (private to src/lib/flame/): the
 * growing node array the builders fill, the settling of widths, the
 * children lists and the timeline the writers walk. */
#ifndef HANGAR_FLAME_INTERNAL_H
#define HANGAR_FLAME_INTERNAL_H

#include "hangar/flame.h"

#define FLAME_NONE HG_FLAME_NO_PARENT

/* Nodes growing in an arena. */
struct flame_nodes {
	hg_arena *arena;
	hg_flame_node *v;
	size_t n, cap;
};

/* Appends node (copied) and returns its index, or FLAME_NONE on ENOMEM. */
size_t flame_push(struct flame_nodes *b, const hg_flame_node *node);

/* Settles f->nodes[0..f->n): on entry each node's total is its own weight
 * (what the source says it costs; negative is 0); on return total is at
 * least its children's sum, self the rest, f->total the roots' sum. */
void flame_settle(hg_flame *f);

/* Marks key and its ancestors as on the StackKey path; f->key = key
 * (-1: none, nothing marked). */
void flame_mark_key(hg_flame *f, long key);

/* Children lists in stored order (malloc'd; flame_kids_release). */
typedef struct flame_kids {
	size_t *first, *next; /* FLAME_NONE ends a list */
	size_t first_root;
} flame_kids;
int flame_kids_build(const hg_flame *f, flame_kids *k);
void flame_kids_release(flame_kids *k);

/* The nodes in pre-order (each node before its subtree, children in stored
 * order), without recursion: order[0..f->n), malloc'd, or NULL on ENOMEM. */
size_t *flame_preorder(const hg_flame *f, const flame_kids *k);

/* Each node's start on a timeline in the flame's unit (start[0..n),
 * caller's): its begin when known, else right after its previous sibling
 * (or at its parent's start), moved to fit between the previous sibling's
 * end and what its parent has left for it and its later siblings.  Roots
 * follow one another; when roots_apart each root starts at 0 instead (the
 * threads of a dump).  0 or HG_ENOMEM. */
int flame_layout(const hg_flame *f, const flame_kids *k, bool roots_apart, int64_t *start);

/* The unit's name in args and text: "ms", "samples", "threads". */
const char *flame_unit_name(enum hg_flame_unit unit);

#endif
