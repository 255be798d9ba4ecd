/* What report_metrickit.c (the payload, its diagnostic and metadata) and
 * report_metrickit_tree.c (the call-stack tree as threads) share
 * (private). */
#ifndef HANGAR_LIB_REPORT_METRICKIT_INTERNAL_H
#define HANGAR_LIB_REPORT_METRICKIT_INTERNAL_H

#include <stdbool.h>

#include "report_internal.h"

/* The most paths of one call stack kept as threads (the heaviest first);
 * the rest are counted in a warning.  A CPU exception's aggregate tree may
 * hold thousands of paths, each a copy of its shared frames. */
#define MX_MAX_PATHS 64

/* Reads the MXCallStackTree object tree (where: its field's path, for
 * errors) into rep->threads: one thread per path of each call stack, the
 * heaviest path of the attributed one blamed.  main_attributed: the
 * attributed thread is the main thread (a hang).  0, HG_EPARSE with
 * jf->err filled, HG_ELIMIT (over --max-stack-lines) or HG_ENOMEM. */
int mx_read_tree(const hg_ctx *ctx, const struct json_fields *jf, const hg_json *tree,
		 const char *where, bool main_attributed, hg_report *rep);

#endif
