/* hangar diff's sets, per cluster, from rollups (store_diff_sets.c). */
#ifndef HANGAR_STORE_DIFF_SETS_H
#define HANGAR_STORE_DIFF_SETS_H

#include "hangar/sessions.h"
#include "store_rollup.h"

enum diff_side {
	DIFF_OLD,    /* the whole old set */
	DIFF_CMP,    /* of it, what regressions are measured against */
	DIFF_NEW,
	DIFF_SIDES
};

struct diff_cluster {
	char hash[33];
	struct rollup side[DIFF_SIDES];
	int64_t rated[2];   /* reports that count against the old, the new sessions */
};

/* What to compare: by ingest run (reports with id > first are new; those
 * with id > compare_after, when >= 0, the comparison set, else all the
 * old ones), else by version, else by time (times in the store's form;
 * the new set since..until, until excluded; the old set before since). */
struct diff_plan {
	bool by_run;
	int64_t first, compare_after;
	const char *old_version, *new_version;
	const char *since, *until;
};

struct diff_sets {
	const hg_sessions *sessions;      /* NULL: no rates */
	hg_sessions_scope scope[2];
	strmap index;
	struct diff_cluster *items;
	size_t len, cap;
};

int diff_sets_gather(hg_store *store, const struct diff_plan *p, struct diff_sets *d);
void diff_sets_release(struct diff_sets *d);

#endif
