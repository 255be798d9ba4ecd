/* hangar show's flame graphs (show_flame.c). */
#ifndef HANGAR_CLI_SHOW_FLAME_H
#define HANGAR_CLI_SHOW_FLAME_H

#include <stdbool.h>
#include <stddef.h>

#include "hangar/render.h"
#include "hangar/store.h"

/* Writes the cluster's merged tree to stdout as a flame graph in format:
 * its max_nodes costliest nodes, what was left out under each node one
 * frame.  callers: the StackKey's callers merged upward instead
 * (hg_flame_callers_builder; max_nodes caps the StackKey path read and the
 * flame's frames).  0, HG_ENOENT when callers finds no StackKey frame in
 * the tree (said on stderr: exit 1, nothing more to say), or an hg
 * error. */
int show_flame(hg_store *store, const char *hash, const hg_output_format *format,
	       size_t max_nodes, bool callers);

#endif
