/* The figures of FPS and startup clusters (hg_figures) as top, show and
 * diff print them: the same words and JSON names in each. */
#ifndef HANGAR_CLI_FIGURES_H
#define HANGAR_CLI_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "hangar/store.h"
#include "hangar/text.h"
#include "store_cli.h"

/* A cost figure for a cell: its digits, or, when no cost was measured,
 * "—" (table) or NULL (JSON null, CSV empty).  Returns buf or NULL. */
const char *figures_cost_cell(char buf[24], int64_t ms, bool known, bool table);


/* Appends f said in words: "24.5 fps, 2.7% frozen/high of 147 frames"
 * (FPS), "total p50 655 ms, p90 655 ms; cold 3, warm 1" (startup);
 * nothing when f has neither. */
void figures_text(hg_buf *b, const hg_figures *f);

/* An fps and a frozen/high share (< 0: unknown) in words, "24.5 fps,
 * 2.7% frozen/high". */
void figures_fps_text(hg_buf *b, double fps, double share);

/* hangar show: a cluster's figures by version, then by scene (startup
 * total p50/p90, FPS mean fps and frozen/high share, per group): table
 * lines, or ,"figures_by_version":[...] and ,"figures_by_scene":[...]
 * appended to json.  0 or an hg error. */
int figures_show(hg_store *store, const char *hash, enum row_format format, hg_buf *json);

#endif
