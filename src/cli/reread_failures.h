/* The stored reports that regroup (or merge) could not read again, kept to
 * be named at the end: the first REREAD_LISTED with their reason, all
 * counted, so that a store of thousands does not bury the summary. */
#ifndef HANGAR_CLI_REREAD_FAILURES_H
#define HANGAR_CLI_REREAD_FAILURES_H

#include <stdint.h>
#include <stdio.h>

#include "hangar/store.h"

#define REREAD_LISTED 20

struct reread_failure {
	int64_t id;      /* the store's report id (reports.id) */
	char *source;    /* where it was read from at ingest */
	long line;
	char *reason;
};

struct reread_failures {
	struct reread_failure listed[REREAD_LISTED];
	size_t n_listed;
	size_t count;    /* all of them, listed or not */
};

/* Records item (copied) with its reason (NULL: unknown). */
void reread_failures_add(struct reread_failures *f, const hg_regroup_item *item,
			 const char *reason);

/* One line per listed report on out,
 *   SOURCE:LINE: error: stored report ID: not read again: REASON
 * then "hangar CMD: ... and N more not listed" when some were not. */
void reread_failures_print(const struct reread_failures *f, const char *cmd, FILE *out);

void reread_failures_release(struct reread_failures *f);

#endif
