/* hangar show's merged call tree, for a person: children in cost order
 * (total cost, descending; ties: more reports first, then by frame text),
 * pruned by cost, depth and a number of nodes (the costliest, best
 * first), and the StackKey path always kept.  The nodes come from
 * hg_store_cluster_tree_pruned (parents before children), already pruned
 * by cost, depth and --max-nodes as they were read, and are copied; what
 * the reading left out comes with them (show_tree_left) and is counted
 * as what this pruning leaves out. */
#ifndef HANGAR_CLI_SHOW_TREE_H
#define HANGAR_CLI_SHOW_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/store.h"

struct show_tree_opts {
	int64_t min_cost;   /* ms a node's total must reach; < 0: min_share of the tree's */
	double min_share;   /* with min_cost < 0: a fraction, 0.02 for 2% */
	long max_depth;     /* levels shown (roots: 1); <= 0: all */
	long limit;         /* nodes shown, the costliest (best first), the key path
			     * counted and always shown; <= 0: all */
	size_t max_nodes;   /* nodes read at most (hg_tree_prune); 0: all */
};

/* Why a node's children were left out: bits (CAP: when the tree was read,
 * past --max-nodes). */
enum { PRUNED_COST = 1, PRUNED_LIMIT = 2, PRUNED_DEPTH = 4, PRUNED_CAP = 8 };

struct show_node {
	int64_t id, parent, reports, total, max, self;
	bool key;                 /* on the StackKey path */
	char *symbol;
	size_t parent_at;         /* index of the parent; (size_t)-1 for a root */
	size_t first, n_children; /* this node's children: show_tree.children[first..+n) */
	long depth;               /* 0 for a root */
	size_t subtree;           /* nodes in its subtree, itself included (and those
				   * left out when read) */
	bool keep;                /* on the StackKey path: shown whatever the limits */
	bool shown;
	int64_t hidden_nodes, hidden_cost; /* of its children's subtrees left out */
	unsigned hidden_why;      /* PRUNED_* */
};

struct show_tree {
	struct show_node *nodes;
	size_t n, cap;
	size_t *children;         /* node indexes, grouped by parent, each group in cost order */
	size_t *roots, n_roots;   /* in cost order */
	int64_t total_cost;       /* of the roots */
	int64_t min_cost;         /* the threshold applied, ms */
	size_t shown;
	size_t stored;            /* nodes in the stored tree (show_tree_left's caller
				   * sets it; 0: n) */
	int64_t roots_hidden_nodes, roots_hidden_cost;
	unsigned roots_hidden_why;
	bool failed;              /* out of memory while adding */
};

void show_tree_init(struct show_tree *t);
void show_tree_release(struct show_tree *t);
/* An hg_tree_fn: copies the row (user is the show_tree); 0, or HG_ENOMEM /
 * HG_EPARSE (a parent that did not come before its child). */
int show_tree_add(void *user, const hg_tree_row *row);
/* An hg_tree_left_fn: what the reading left out under a node added (or
 * beside the roots), counted with it; 0, or HG_EPARSE for a node not
 * added. */
int show_tree_left(void *user, const hg_tree_left *left);
/* Orders and prunes, after the last add: 0 or HG_ENOMEM. */
int show_tree_prune(struct show_tree *t, const struct show_tree_opts *o);

/* Visits the shown nodes depth first in cost order: node for each, and
 * hidden after a node's shown children when some of its children were
 * left out (parent NULL: roots were). */
struct show_visitor {
	void (*node)(void *user, const struct show_node *n);
	void (*hidden)(void *user, const struct show_node *parent, long depth, int64_t nodes,
		       int64_t cost, unsigned why);
	void *user;
};
int show_tree_walk(const struct show_tree *t, const struct show_visitor *v);

/* "below 2% of the cost, past the 5 costliest" into buf. */
void show_tree_why(const struct show_tree_opts *o, int64_t min_cost, unsigned why, char *buf,
		   size_t size);

#endif
