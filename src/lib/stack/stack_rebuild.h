/* The rebuild's second way, for tests (private to src/lib/stack and
 * tests/unit): hg_stack_rebuild_timed with Matrix's tree built for every
 * buffer, never the call-order shortcut stack_rebuild.c takes for buffers
 * without oddities.  The two must give the same stacks, times and
 * warnings. */
#ifndef HANGAR_LIB_STACK_REBUILD_H
#define HANGAR_LIB_STACK_REBUILD_H

#include "hangar/stack.h"

int stack_rebuild_by_tree(const int64_t *words, size_t n, const hg_rebuild_opts *opts,
			  hg_arena *arena, hg_method_stack *out, int64_t **begin,
			  hg_strlist *warnings);

#endif
