/* Rollups: per cluster, UTC day and app version, what the queries need of
 * the reports (counts, cost histogram, devices, first and last seen), kept
 * in the rollups table as reports are added, so that top, diff and show's
 * summary read a row per cluster and day, not a row per report, and keep
 * their counts once old reports are pruned.  day and version are NULL
 * where the reports' are (time unknown, no version), as in reports. */
#ifndef HANGAR_STORE_ROLLUP_H
#define HANGAR_STORE_ROLLUP_H

#include "core/core.h"
#include "hangar/report.h"
#include "hangar/store.h"
#include "rollup_facets.h"
#include "rollup_sketch.h"

typedef struct hg_store hg_store;
typedef struct hg_db_stmt hg_db_stmt;

/* The figures of FPS and startup reports (the figures table), summed as
 * hg_figures wants them: reports with figures, those whose cost nobody
 * measured, startups with a total, cold and warm starts, reports with an
 * fps and its sum, frames, frozen and high frames. */
struct rollup_figs {
	int64_t n, unmeasured, startups, cold, warm, fps_n, frames, frozen, high;
	double fps;
};

/* a += sign * b */
void rollup_figs_add(struct rollup_figs *a, const struct rollup_figs *b, int sign);
/* A report's (store_figures.c): false when it has none. */
bool store_figs_of(const hg_report *rep, struct rollup_figs *out);
/* A report's from a query joined with its figures row g, whose columns
 * from col on are ROLLUP_FIG_SQL. */
#define ROLLUP_FIG_SQL(g)                                                                    \
	g ".report IS NOT NULL, " g ".cost_known = 0, " g ".total IS NOT NULL, " g ".start = 'cold', " \
	g ".start = 'warm', " g ".fps, " g ".frames, " g ".frozen, " g ".high"
void rollup_figs_columns(hg_db_stmt *st, int col, struct rollup_figs *out);

struct rollup {
	char *cluster, *day, *version;  /* owned; day, version may be NULL */
	int64_t reports, no_device;
	int64_t cost_max;               /* -1: no measured cost */
	char first[32], last[32];       /* report times, "" none */
	cost_hist costs;                /* the measured costs */
	device_set devices;
	struct rollup_figs fig;
	facets facets;                  /* what the cluster page breaks it down by */
};

/* The figures of r (read with its costs) as top and show give them: the
 * sums, and a startup cluster's total percentiles from its costs. */
hg_figures rollup_figures(struct rollup *r);

/* Adds one report: its time in the store's form (NULL unknown), device
 * (NULL none), cost and whether it was measured, and its facets (NULL:
 * none: a reader that does not want them). */
int rollup_add_report(struct rollup *r, const char *time, const char *device, int64_t cost,
		      bool cost_known, const struct report_facets *facets);
/* Adds a stored rollup row read by st, whose columns from col on are
 * ROLLUP_COLUMNS: 0, HG_EINVAL (a malformed blob) or HG_ENOMEM. */
#define ROLLUP_COLUMNS                                                                     \
	"reports, no_device, cost_max, first, last, costs, devices, fig_n, unmeasured, startups," \
	" cold, warm, fps_n, fps, frames, frozen, high, facets"
#define ROLLUP_N_COLUMNS 18
int rollup_add_row(struct rollup *r, hg_db_stmt *st, int col);
/* The same without the blobs (costs, devices): counts, times, figures. */
void rollup_add_row_counts(struct rollup *r, hg_db_stmt *st, int col);
/* The same without the facets (top, diff, show's summary). */
int rollup_add_row_sketches(struct rollup *r, hg_db_stmt *st, int col);
/* The same with the costs, not the devices or facets. */
int rollup_add_row_costs(struct rollup *r, hg_db_stmt *st, int col);
/* The counts and the facets (or only their head: lacks counts and kinds),
 * not the costs or devices. */
int rollup_add_row_facets(struct rollup *r, hg_db_stmt *st, int col, bool head_only);
/* Takes one report out again (a report both merged stores hold): its
 * count and cost; its device stays (another report may have it) and so
 * do first and last seen (the store that keeps it keeps its time). */
int rollup_remove_report(struct rollup *r, const char *device, int64_t cost, bool cost_known,
			 const struct report_facets *facets);
/* Adds all of from to r. */
int rollup_merge(struct rollup *r, struct rollup *from);
void rollup_release(struct rollup *r);
/* Whether two rollups hold the same figures (after normalizing both). */
bool rollup_equal(struct rollup *a, struct rollup *b);

/* Rollups by (cluster, day, version). */
struct rollup_set {
	strmap index;
	struct rollup *items;
	size_t len, cap;
};

struct rollup *rollup_set_get(struct rollup_set *s, const char *cluster, const char *day,
			      const char *version);
void rollup_set_release(struct rollup_set *s);
/* A report's facets from a query of its row r joined with its facts row
 * f, whose columns from col on are ROLLUP_FACETS_SQL; its time for the
 * variant's sample.  The strings are the statement's until its next step. */
#define ROLLUP_FACETS_SQL(r, f)                                                             \
	r ".kind, " r ".scene, CASE " r ".foreground WHEN 1 THEN 'foreground' WHEN 0 THEN 'background' END, " \
	f ".os, " f ".model, " f ".device_class, " f ".anr_type, " f ".blocker, " f ".variant, "   \
	f ".variant_frame, " r ".content_hash, CASE WHEN " f ".lacks IS NULL THEN -1 ELSE"         \
	" (json_extract(" f ".lacks, '$.method_mapping') IS NOT NULL)"                            \
	" + 2 * (json_extract(" f ".lacks, '$.proguard') IS NOT NULL)"                            \
	" + 4 * (json_extract(" f ".lacks, '$.images') IS NOT NULL)"                              \
	" + 8 * (" f ".lacks <> '{}') END"
void rollup_facets_columns(hg_db_stmt *st, int col, const char *time, struct report_facets *out);

/* Adds a report read by st to its rollup in set: columns cluster, time,
 * version, device, cost, cost known, then ROLLUP_FIG_SQL, then with facets
 * ROLLUP_FACETS_SQL (ROLLUP_REPORT_SQL and ROLLUP_REPORT_FACETS_SQL of the
 * reports r joined with their figures g and facts f). */
#define ROLLUP_REPORT_SQL                                                                   \
	"r.cluster, r.time, r.version, r.device, r.cost, coalesce(g.cost_known, 1), "       \
	ROLLUP_FIG_SQL("g")
#define ROLLUP_REPORT_FACETS_SQL ROLLUP_REPORT_SQL ", " ROLLUP_FACETS_SQL("r", "f")
#define ROLLUP_REPORT_FACETS_COL 15
int rollup_set_add_report_row(struct rollup_set *set, hg_db_stmt *st, bool with_facets);

/* ---- in the store (store_rollup.c) ---- */

/* The batch's reports, summed in memory and written at commit. */
int store_rollup_add(hg_store *store, const hg_report *rep, const char *cluster,
		     const char *time, int64_t cost, const struct report_facets *facets);
int store_rollup_flush(hg_store *store);
void store_rollup_discard(hg_store *store);

/* The rollups of one cluster (NULL: every cluster) recomputed from its
 * report rows, into set (no store change). */
int store_rollup_recompute(hg_store *store, const char *cluster, struct rollup_set *set);
/* Replaces the stored rollups of cluster (NULL: all) with a recomputation
 * from its reports, keeping those of days before the store's
 * pruned_before (their reports are gone): regroup, merge, migration. */
int store_rollup_rebuild(hg_store *store, const char *cluster);
/* Adds the rollups of the attached shard (STORE_SHARD) to the store's,
 * less the reports the store held already (temp.hg_merge_new lists the
 * shard's others): store_rollup_merge.c. */
int store_rollup_merge_shard(hg_store *store);
/* Every cluster's count, first and last seen from its rollups (regroup
 * and merge count again; a pruned report still counts). */
int store_cluster_counts_from_rollups(hg_store *store);

#endif
