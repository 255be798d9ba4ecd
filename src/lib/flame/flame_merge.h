/* Looking paths up in a merger (flame_merge.c), for hg_flame_diff
 * (private to the module). */
#ifndef HANGAR_FLAME_MERGE_H
#define HANGAR_FLAME_MERGE_H

#include <stddef.h>

#include "hangar/flame.h"

/* The merged node of path (parent node, name), or SIZE_MAX when none;
 * parent SIZE_MAX for a root. */
size_t flame_merger_find(const hg_flame_merger *m, size_t parent, const char *name);
/* Merged node i, NULL past the end. */
const hg_flame_node *flame_merger_node(const hg_flame_merger *m, size_t i);

#endif
