/* hangar diff --flame: one cluster's flame graph between two versions or
 * two time windows (diff_flame.c). */
#ifndef HANGAR_CLI_DIFF_FLAME_H
#define HANGAR_CLI_DIFF_FLAME_H

#include "store_cli.h"

#define DIFF_FLAME_MAX_PROGUARD 8

struct diff_flame_opts {
	const char *db;            /* --db, or NULL */
	const char *cluster;       /* --flame: a hash or its prefix */
	const char *output;        /* -o: NULL or "-" for stdout */
	int width;                 /* --width px, 0: the writer's */
	const char *mapping;       /* -m, --proguard, --mapping-dir: as ingest named them */
	const char *proguard[DIFF_FLAME_MAX_PROGUARD];
	int n_proguard;
	const char *mapping_dir;
	/* The two sets, as hg_diff_query has them (versions, or a time window). */
	const char *baseline_version, *version;
	const char *since, *until;
};

/* Reads the cluster's stored reports of each set again (named as ingest
 * names them), merges each set's flames path by path, and writes the
 * differential SVG (widths: the new set's; colours: cost per report
 * against the old set's).  Says what it did on stderr.  EXIT_FINE,
 * EXIT_SOME_FAILED (no store, no such cluster, a set with no report,
 * reports not read again: the picture is still written from the others)
 * or EXIT_USAGE. */
int diff_flame_run(const struct diff_flame_opts *o);

#endif
