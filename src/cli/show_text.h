/* hangar show for a person (show_text.c): each line fitted to a width
 * (0: no limit) — the header's values wrapped whole, names shortened as
 * the stack views shorten them, paths cut at their start. */
#ifndef HANGAR_CLI_SHOW_TEXT_H
#define HANGAR_CLI_SHOW_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "hangar/store.h"
#include "show_tree.h"

/* The header: cluster, kind, title, StackKey, reports (no_device of them
 * name no device), seen, cost, the figures, signature. */
void show_text_cluster(const hg_cluster_row *c, int64_t no_device, int width);
/* "  COUNT  value" of the by-version, -device and -scene lists. */
void show_text_count(const char *value, int64_t count, int width);
/* A node of the merged call tree: reports, total and max ms ("—" when
 * no report measured its cost), '*' on the StackKey path, the indent of
 * its depth, its frame. */
void show_text_node(const struct show_node *n, int width, bool cost_known);
/* "… N more nodes, WHY" where a node's children (depth) were left out,
 * under their cost (< 0: unknown, "—"). */
void show_text_hidden(long depth, int64_t nodes, int64_t cost, const char *why, int width);
/* A line of text wrapped to the width. */
void show_text_wrap(const char *text, int width);
/* A sample report: "  path:line  time  version  device  cost". */
void show_text_sample(const hg_report_row *r, int width);

#endif
