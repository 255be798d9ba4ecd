/* hangar show --explain (show_explain.c). */
#ifndef HANGAR_CLI_SHOW_EXPLAIN_H
#define HANGAR_CLI_SHOW_EXPLAIN_H

#include <stdbool.h>

#include "hangar/store.h"

/* How the cluster's newest report is named and grouped again: the options
 * of regroup that matter (all borrowed, may be NULL). */
struct show_explain_opts {
	const char *rules;       /* --rules FILE */
	const char *mapping;     /* -m FILE */
	const char *mapping_dir; /* --mapping-dir DIR */
	const char *proguard;    /* --proguard FILE */
	int width;               /* the text's width (0: no limit) */
	bool json;               /* -f json: one object */
};

/* Why the cluster `hash` has its signature, on its newest stored report,
 * read again and named with o's mappings, to stdout: the signature's parts
 * and, frame by frame, whose each frame was and which rule decided; and
 * whether that report would still join the cluster.  An exit status. */
int show_explain(hg_store *store, const char *hash, const struct show_explain_opts *o);

#endif
