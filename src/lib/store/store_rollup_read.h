/* Reading rollups over a window (store_rollup_read.c). */
#ifndef HANGAR_STORE_ROLLUP_READ_H
#define HANGAR_STORE_ROLLUP_READ_H

#include "hangar/store.h"
#include "store_rollup.h"
#include "store_window.h"

struct rollup_filter {
	const char *cluster;                /* NULL: every cluster */
	const char *version;                /* NULL: every version */
	const struct store_window *window;  /* NULL: all time, unknown times too */
	bool counts_only;                   /* the rows' counts and times, not their
	                                       costs and devices (not decoded); the
	                                       facets only when asked below */
	bool no_devices;                    /* costs, but not devices */
	bool facets;                        /* the counts and the facets only (the
	                                       cluster page) */
	bool head;                          /* the counts and the facets' head only:
	                                       lacks counts and kinds (coverage, the
	                                       digest's totals by kind) */
};

/* r is the caller's to read and merge from during the call only; rows
 * come in no order.
 * A non-zero return stops the walk and is returned. */
typedef int (*rollup_fn)(void *user, const char *cluster, const char *day,
			 const char *version, struct rollup *r);

int store_rollup_each(hg_store *store, const struct rollup_filter *f, rollup_fn fn, void *user);

/* The window of a query's since and until (until inclusive), the times
 * read as the store reads them: 0, or HG_EINVAL said (not a time). */
int store_query_window(hg_store *store, const hg_top_query *q, struct store_window *w);

#endif
