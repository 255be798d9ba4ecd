/* The call tree a person reads, over a flat stack in Matrix's order. */
#include <stdlib.h>

#include "hangar/stack.h"

#define NONE ((size_t)-1)

int hg_calltree_build(const hg_method_stack *stack, hg_arena *arena, hg_calltree *tree)
{
	size_t n = stack->len;
	size_t cap = n ? n : 1;
	tree->parent = hg_arena_calloc(arena, cap, sizeof *tree->parent);
	tree->self = hg_arena_calloc(arena, cap, sizeof *tree->self);
	tree->first_child = hg_arena_calloc(arena, cap, sizeof *tree->first_child);
	tree->next_sibling = hg_arena_calloc(arena, cap, sizeof *tree->next_sibling);
	size_t *open = malloc(cap * sizeof *open); /* the path to the latest item */
	size_t *last_child = malloc(cap * sizeof *last_child);
	if (!tree->parent || !tree->self || !tree->first_child || !tree->next_sibling || !open ||
	    !last_child) {
		free(open);
		free(last_child);
		return HG_ENOMEM;
	}
	size_t depth = 0, last_root = NONE;
	tree->first_root = NONE;
	for (size_t i = 0; i < n; i++) {
		const hg_method_item *it = &stack->items[i];
		while (depth > 0 && stack->items[open[depth - 1]].depth >= it->depth)
			depth--;
		tree->first_child[i] = tree->next_sibling[i] = last_child[i] = NONE;
		tree->self[i] = it->cost;
		if (depth == 0) {
			tree->parent[i] = -1;
			if (last_root == NONE)
				tree->first_root = i;
			else
				tree->next_sibling[last_root] = i;
			last_root = i;
		} else {
			size_t p = open[depth - 1];
			tree->parent[i] = (long)p;
			if (last_child[p] == NONE)
				tree->first_child[p] = i;
			else
				tree->next_sibling[last_child[p]] = i;
			last_child[p] = i;
			tree->self[p] -= it->cost;
		}
		open[depth++] = i;
	}
	for (size_t i = 0; i < n; i++)
		if (tree->self[i] < 0)
			tree->self[i] = 0;
	free(open);
	free(last_child);
	return 0;
}
