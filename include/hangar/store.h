/* The cluster store: one SQLite file that keeps every report read, grouped
 * by signature, with a merged call tree per cluster, and every rejected
 * input with its reason.  Schema versioned (PRAGMA user_version) and
 * documented in hangar-formats(5), so people can query it with sqlite3. */
#ifndef HANGAR_STORE_H
#define HANGAR_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "hangar.h"
#include "report.h"
#include "sessions.h"
#include "text.h"

#define HG_STORE_SCHEMA_VERSION 11

typedef struct hg_store hg_store;

/* Opens (creating and migrating) the store at path: WAL mode, a busy
 * timeout so that concurrent writers wait rather than fail.  A file that is
 * not a hangar store, is corrupt, or is from a newer hangar gives a clear
 * error (diagnostic naming path) and HG_EPARSE.  Caller owns *out. */
int hg_store_open(const hg_ctx *ctx, const char *path, hg_store **out);

/* How hg_store_open_mode opens a store. */
enum hg_store_mode {
	HG_STORE_CREATE,     /* as hg_store_open: a missing store is created */
	HG_STORE_EXISTING,   /* read-write, but only a store that exists (regroup) */
	HG_STORE_READ_ONLY,  /* only a store that exists, never written (the queries) */
};

/* hg_store_open in a mode.  In the two modes that never create, a path
 * with no file, or with an empty one (which holds no store), is HG_ENOENT
 * with no diagnostic: the caller says how to make one.
 * HG_STORE_READ_ONLY reads a store it may not write: a read-only file, a
 * folder or a mount that is read-only, with or without the -wal and -shm
 * files SQLite keeps beside it (when a -wal with content has no -shm and
 * none can be made, it says so).  A read-only store of an older schema
 * is migrated first where it can be written (the one write a reading
 * command makes), then used read-only; where it cannot, HG_EIO with a
 * diagnostic saying it needs migrating.  Writes through a read-only store
 * fail with a diagnostic.  The writing modes refuse a store they cannot
 * write with HG_EIO and "cannot write the store: why" (read-only file,
 * folder or file system); a write that fails later for want of room says
 * the same ("... database or disk is full").  Other failures as
 * hg_store_open. */
int hg_store_open_mode(const hg_ctx *ctx, const char *path, enum hg_store_mode mode,
		       hg_store **out);
/* Accepts NULL; rolls back an unfinished batch. */
void hg_store_close(hg_store *store);

/* PRAGMA integrity_check: 0 when the file is sound, else HG_EPARSE with one
 * diagnostic per problem (at most 10). */
int hg_store_check(hg_store *store);

/* Batches: everything between begin and commit lands at once or not at all. */
int hg_store_begin(hg_store *store);
int hg_store_commit(hg_store *store);
int hg_store_rollback(hg_store *store);
/* Bulk mode, for a caller that rolls the whole batch back on any error (as
 * ingest does): hg_store_add_report in a batch no longer wraps each report
 * in a savepoint of its own, so after an error the batch holds part of
 * that report and must be rolled back.  Off by default. */
void hg_store_set_bulk(hg_store *store, bool bulk);

/* How many merged-tree nodes the batch holds in memory until commit (the
 * batch's memory grows with it: callers cut batches by it). */
size_t hg_store_pending(const hg_store *store);

/* Copies what is committed in the store's write-ahead log into the
 * database file, without waiting for or blocking anyone (SQLite's PASSIVE
 * checkpoint).  A big ingest calls it from a second handle, on a thread of
 * its own, while it writes: closing the store then has little left to
 * copy.  0 or an hg error. */
int hg_store_checkpoint(hg_store *store);

/* Adds one report with its signature and original text.  A report whose
 * text (SHA-256) is already stored changes nothing and sets *duplicate.
 * Otherwise its cluster is created or updated: count, first/last seen,
 * costs, versions, devices, scenes, and the merged call tree. */
int hg_store_add_report(hg_store *store, const hg_report *rep, const hg_signature *sig,
			const char *text, size_t len, bool *duplicate);

/* Whether rep is older than the store keeps reports: its time before the
 * cutoff of the store's last hangar prune (meta pruned_before).  Such a
 * report was counted in the rollups and then pruned, or would have been:
 * adding it again would count it twice, so ingest leaves it out and says
 * so.  An untimed report is never expired (its age is when it arrives).
 * 0 or an hg error. */
int hg_store_expired(hg_store *store, const hg_report *rep, bool *expired);

/* The same in two steps, so that the work that needs no store (the text's
 * hash, the report's own call tree) can be done on another thread:
 * hg_store_prepare makes *out (caller owns it; it borrows rep, which must
 * outlive it), hg_store_add_prepared does the rest (prep is not consumed),
 * hg_store_prep_destroy frees it (accepts NULL). */
typedef struct hg_store_prep hg_store_prep;
int hg_store_prepare(const hg_report *rep, const char *text, size_t len, hg_store_prep **out);
int hg_store_add_prepared(hg_store *store, const hg_report *rep, const hg_signature *sig,
			  const char *text, size_t len, const hg_store_prep *prep, bool *duplicate);
void hg_store_prep_destroy(hg_store_prep *prep);

/* Frame texts numbered by the thread that prepares reports: with one,
 * hg_store_prepare_with gives each symbol of the report's tree a number,
 * and adding the prepared report finds the symbol's id by that number
 * instead of hashing its text.  One table per preparing thread (it is not
 * locked); prepared reports keep only numbers, so it may be destroyed
 * before them.  create returns NULL on ENOMEM. */
typedef struct hg_store_symtab hg_store_symtab;
hg_store_symtab *hg_store_symtab_create(void);
void hg_store_symtab_destroy(hg_store_symtab *tab);
int hg_store_prepare_with(const hg_report *rep, const char *text, size_t len,
			  hg_store_symtab *tab, hg_store_prep **out);

/* The most bytes of a rejected input the store keeps: enough to see what
 * went wrong; beyond it, the input's full size and SHA-256 are kept, so
 * that the original can be found (a 342 MB rejected buffer stored whole
 * took 14 s and 1.9 GB). */
#define HG_STORE_REJECTED_MAX_BYTES ((size_t)1 << 20)

/* Records an input that could not be read, with its reason, its size, the
 * SHA-256 of all its bytes and the first HG_STORE_REJECTED_MAX_BYTES of
 * them (the same source+line+bytes is recorded once). */
int hg_store_add_rejected(hg_store *store, const char *source, long line, const char *reason,
			  const char *text, size_t len);

/* Whether hg_store_add_rejected already recorded this input (source,
 * line and the SHA-256 of all of text[0..len)): 1 yes, 0 no, or a negative
 * error.  A run asks before adding, to count only inputs newly rejected. */
int hg_store_rejected_known(hg_store *store, const char *source, long line, const char *text,
			    size_t len);

/* The figures of FPS and startup reports (Matrix's FPSTracer and
 * StartUpTracer; the figures table, hangar-formats(5)), summed over a set
 * of reports.  A startup's total is its report's cost, so a startup
 * cluster's cost percentiles are of its totals; an FPS report measures
 * frames, not a duration, so its cost is unknown. */
typedef struct hg_figures {
	int64_t reports;           /* reports with figures */
	int64_t unmeasured;        /* of them, reports whose cost nobody measured (FPS) */
	int64_t startups;          /* reports with a startup total */
	int64_t cold, warm;        /* of all, the starts said cold and warm */
	int64_t total_p50, total_p90; /* of the startup totals (nearest rank); 0 when startups 0 */
	int64_t fps_reports;       /* reports with an fps */
	double fps_mean;           /* the mean of their fps; 0 when fps_reports 0 */
	int64_t frames;            /* frames measured, summed (dropLevel's counts) */
	int64_t frozen, high;      /* of them, DROPPED_FROZEN and DROPPED_HIGH */
	double frozen_high_share;  /* (frozen + high) / frames; -1 when frames 0 */
} hg_figures;

/* The figures as JSON object members, each after a comma: ,"startup":
 * {"reports","cold","warm","total_p50","total_p90"} when some report has
 * a startup total, ,"fps":{"reports","mean","frames","frozen","high",
 * "frozen_high_share"} when some has an fps or frames; nothing when
 * neither.  Unknowns (no fps, no frames) are null.  One writer for top,
 * show and the digest (hangar-formats(5)). */
void hg_figures_json_members(hg_buf *b, const hg_figures *f);
/* The same members as one object: {"startup":{...},"fps":{...}}. */
void hg_figures_json(hg_buf *b, const hg_figures *f);
/* Whether f holds a startup or frame-rate figure (not only reports whose
 * cost was unmeasured): what top, show and the digest give as "figures". */
bool hg_figures_any(const hg_figures *f);

/* One cluster, as the queries return it (strings valid during the callback). */
typedef struct hg_cluster_row {
	const char *hash;
	const char *kind;          /* the signature's family */
	const char *title;
	const char *key_symbol;    /* may be NULL */
	int64_t count;
	int64_t devices;           /* distinct devices (0: no report names one) */
	int64_t no_device;         /* reports that name no device */
	const char *first_seen;    /* the earliest and latest report times, in
	                              the store's form; NULL when no report of
	                              the cluster (in the query's window) gives
	                              its time.  Never the ingest time. */
	const char *last_seen;
	int64_t cost_p50, cost_p90, cost_p99, cost_max; /* of the measured costs */
	int64_t cost_reports;      /* reports whose cost was measured: 0 (an FPS
	                              cluster) means the cost figures are unknown, not 0 */
	const char *by_version;    /* JSON array [{"value": version or null, "count": n}],
	                              most reports first */
	const char *frames;        /* JSON array of the signature frames */
	bool symbolicated;
	const hg_figures *figures; /* NULL when none of its reports has figures
	                              (hg_figures_any) */
	bool escalating;           /* its reports rose on the latest day of the
	                              query's window (hg_escalation) */
	bool rated;                /* the query gave sessions (hg_top_query.sessions): */
	double rate;               /* its reports per 1,000 sessions of the versions and
	                              days the query covers (hg_sessions_scope; only
	                              reports hg_sessions_counts counts); < 0: the file
	                              gives no sessions for them */
} hg_cluster_row;

typedef int (*hg_cluster_fn)(void *user, const hg_cluster_row *row);

/* The keys a cluster has wherever it appears (a top row, show, the
 * digest), as JSON object members without braces, "hash" first:
 * "hash","kind","title","stack_key":{"symbol"},"count","devices",
 * "reports_without_device","first_seen","last_seen","cost":{"p50","p90",
 * "p99","max"},"by_version","symbolicated", "figures" when any,
 * "escalating", and "rate" when rated.  Unknowns are null
 * (schemas/common.schema.json). */
void hg_cluster_json_members(hg_buf *b, const hg_cluster_row *c);
/* A rate as JSON: a number (six significant digits), null when < 0. */
void hg_rate_json(hg_buf *b, double rate);

typedef struct hg_top_query {
	const char *sort;          /* "count" (default), "cost", "devices", "recent" */
	const char *kind;          /* family; NULL: all */
	const char *version;       /* NULL: all */
	const char *since, *until; /* times as hg_store_time reads them; NULL: open.
	                              A report of unknown time is outside any
	                              window; with neither it counts. */
	const char *scene_regex;   /* PCRE2 on any scene of the cluster; NULL: all */
	long limit;                /* <= 0: no limit */
	const hg_sessions *sessions; /* borrowed; NULL: no rates (hg_cluster_row.rated) */
	const struct hg_escalate_rule *escalate; /* NULL: the defaults */
} hg_top_query;

int hg_store_top(hg_store *store, const hg_top_query *q, hg_cluster_fn fn, void *user);

/* Whether q can be run, before any store is opened: 0, or HG_EINVAL with
 * why (an unknown sort, a scene pattern that does not compile: "missing
 * terminating ] for character class at offset 1") written into why. */
int hg_top_query_check(const hg_top_query *q, char *why, size_t why_len);

/* The full hash of the one cluster whose hash starts with prefix:
 * 0, HG_EINVAL (none) or HG_EPARSE (ambiguous). */
int hg_store_resolve(hg_store *store, const char *prefix, char hash[33]);
int hg_store_cluster(hg_store *store, const char *hash, hg_cluster_fn fn, void *user);
/* The same cluster as top with q gives it (q's version, window, sessions
 * and escalation rule; its kind, sort, scene and limit do not apply): no
 * row when no report of it passes q (q NULL: as hg_store_cluster). */
int hg_store_cluster_in(hg_store *store, const char *hash, const hg_top_query *q,
			hg_cluster_fn fn, void *user);

/* When a cluster is escalating (hangar-formats(5), ESCALATING): on the
 * latest day of the window (the UTC day of its newest report; of the
 * store's newest without a window) it has at least min reports, and at
 * least factor times its mean daily reports over the days days before
 * (days without a report count as 0, but only days from its first day,
 * the day of its first report in the store).  A cluster first seen on
 * that day is new, never escalating.  Fields <= 0 take the defaults. */
#define HG_ESCALATE_FACTOR 3.0
#define HG_ESCALATE_DAYS 7
#define HG_ESCALATE_MIN 10
typedef struct hg_escalate_rule {
	double factor;
	int days;
	int64_t min;
} hg_escalate_rule;

/* A cluster with reports on that latest day (strings valid during the
 * callback). */
typedef struct hg_escalation {
	const char *hash, *kind, *title;
	const char *day;           /* the latest day, "2026-11-29" */
	int64_t count;             /* its reports that day */
	int64_t before;            /* its reports on the days before, counted */
	int64_t days;              /* those days: from its first day, at most the rule's */
	double mean;               /* before / days; 0 when days is 0 */
	bool fresh;                /* first seen that day (new) */
	bool escalating;
} hg_escalation;
typedef int (*hg_escalation_fn)(void *user, const hg_escalation *e);

/* Every cluster of q's kind with reports of q's version (NULL: all) on
 * the latest day of q's window (q->since, q->until; the store's without
 * either), with its counts, most reports that day first; one query over
 * every cluster.  q NULL: the whole store, the default rule.  fn
 * returning non-zero stops with that value.  0 or an hg error. */
int hg_store_escalations(hg_store *store, const hg_top_query *q, hg_escalation_fn fn, void *user);

/* Reports per version against a sessions file (the digest's rates by
 * version): each version the file names, in its order, with its sessions
 * (every row), the reports of the store that count against them
 * (hg_sessions_counts over every row) and of those the ANRs (kinds anr
 * and signal_anr).  *uncounted (may be NULL) gets the store's reports
 * that count against no row (other versions or days, no version).  fn
 * returning non-zero stops with that value. */
typedef struct hg_version_rate {
	const char *version;
	int64_t sessions, reports, anrs;
	double rate, anr_rate;     /* per 1,000 sessions; < 0: no sessions */
} hg_version_rate;
typedef int (*hg_version_rate_fn)(void *user, const hg_version_rate *v);
int hg_store_version_rates(hg_store *store, const hg_sessions *sessions, hg_version_rate_fn fn,
			   void *user, int64_t *uncounted);

/* How a cluster's reports spread over "version", "device", "scene",
 * "foreground" ("foreground"/"background"), "os", "model", "device_class",
 * "anr_type" (hg_report_who, the report's anr_type) or "blocker" (the line
 * hg_threads_blocker gives), value NULL for reports without one, most
 * frequent first; or over "day" (UTC, "2026-11-29"; NULL for untimed
 * reports first), in day order.  HG_EINVAL for another `by`. */
typedef int (*hg_count_fn)(void *user, const char *value, int64_t count);
int hg_store_cluster_counts(hg_store *store, const char *hash, const char *by, hg_count_fn fn,
			    void *user);

/* A variant of a cluster (hg_cluster_page): its reports grouped by their
 * full blamed path (the StackKey's whole path; a dump's blamed thread, all
 * frames), with its entry frame (the frame the message ran; the thread's
 * outermost app frame) and its newest report as a sample (where prune
 * took that one, the newest it kept; sample_hash NULL when it kept none).
 * Reports stored before schema 9 and not regrouped since have no variant. */
typedef struct hg_variant_row {
	const char *variant;       /* 16 hex digits */
	int64_t count;
	const char *entry;         /* may be NULL */
	const char *sample_hash, *sample_source;
	long sample_line;
} hg_variant_row;

/* One breakdown of a cluster's reports (hg_store_cluster_counts): values
 * most reports first, the ones past a cap summed in other. */
typedef struct hg_breakdown_value {
	const char *value;         /* NULL: reports that do not say */
	int64_t count;
} hg_breakdown_value;
typedef struct hg_breakdown {
	const char *by;            /* as hg_store_cluster_counts names it */
	hg_breakdown_value *values;
	size_t n, cap;
	int64_t total;             /* every report counted, listed or not */
	int64_t unknown;           /* of them, reports that do not say */
	int64_t other;             /* reports in values past the cap */
} hg_breakdown;

/* The dimensions of the cluster page, in the order shown:
 * version, os, model, device_class, scene, foreground, anr_type. */
#define HG_PAGE_DIMS 7
extern const char *const hg_page_dims[HG_PAGE_DIMS];

/* A cluster's page (show, the digest): who and where (a breakdown per
 * hg_page_dims), reports per UTC day (in day order, untimed first), what
 * blocks the blamed thread (hg_threads_blocker's lines, most reports
 * first: the share is of count, every report of the cluster), its
 * variants, and the app versions of its first and last report (by time).
 * Everything lives in arena (hg_cluster_page_release). */
typedef struct hg_cluster_page {
	hg_arena *arena;
	int64_t count;
	hg_breakdown dims[HG_PAGE_DIMS];
	hg_breakdown days;
	hg_breakdown blockers;
	hg_variant_row *variants;
	size_t n_variants;
	const char *first_version, *last_version; /* NULL: no timed report says */
} hg_cluster_page;
/* max_values caps each breakdown's values and the variants (0: no cap on
 * breakdowns, 100 variants).  0 or an hg error (*out released). */
int hg_store_cluster_page(hg_store *store, const char *hash, size_t max_values,
			  hg_cluster_page *out);
void hg_cluster_page_release(hg_cluster_page *page);

/* A cluster's figures (see hg_figures) over its reports grouped by
 * "version" or "scene" (value NULL for reports without one), most reports
 * first; only reports with figures count.  fn returning non-zero stops
 * with that value.  0, HG_EINVAL (another `by`), or an hg error. */
typedef int (*hg_figures_fn)(void *user, const char *value, const hg_figures *figures);
int hg_store_cluster_figures(hg_store *store, const char *hash, const char *by,
			     hg_figures_fn fn, void *user);

/* What was missing to name reports' frames (hangar coverage), per app
 * version in q's window (its version, since and until; q may be NULL):
 * newest versions first (by their latest report), unknown version last. */
typedef struct hg_coverage_row {
	const char *version;       /* NULL: reports that name none */
	int64_t reports;
	int64_t unknown;           /* stored before schema 9 and not named since:
	                              what they lacked is not known */
	int64_t method_mapping;    /* a method stack some id of which no
	                              methodMapping named (none given, or it lacked them) */
	int64_t proguard;          /* Java frames that look obfuscated, not retraced */
	int64_t symbols;           /* native frames of the app's images no symbols named */
	int64_t lacking;           /* reports lacking any of the three */
} hg_coverage_row;
typedef int (*hg_coverage_fn)(void *user, const hg_coverage_row *row);
int hg_store_coverage(hg_store *store, const hg_top_query *q, hg_coverage_fn fn, void *user);

/* The app's native images whose frames no symbols named, per version: its
 * name, its Build ID or UUID (NULL when the report gives none) and the
 * reports with such frames, most first within a version. */
typedef struct hg_coverage_image {
	const char *version, *name, *id;
	int64_t reports;
} hg_coverage_image;
typedef int (*hg_coverage_image_fn)(void *user, const hg_coverage_image *img);
int hg_store_coverage_images(hg_store *store, const hg_top_query *q, hg_coverage_image_fn fn,
			     void *user);

/* The merged call tree of a cluster, parents before children (in id
 * order): fn gets each node, its row and symbol borrowed for the call; fn
 * returning non-zero stops the reading with that value.  The stored row is
 * read a piece at a time, holding 4 bytes per node besides what fn keeps.
 * 0, or an hg error (HG_EPARSE: the stored tree is damaged, said through
 * the context).  A cluster without a tree gives no node. */
typedef struct hg_tree_row {
	int64_t id, parent;        /* parent 0 for a root */
	const char *symbol;
	int64_t reports;           /* reports whose tree passes through this node */
	int64_t total_cost, max_cost, self_cost;
	bool on_key_path;
} hg_tree_row;
typedef int (*hg_tree_fn)(void *user, const hg_tree_row *row);
int hg_store_cluster_tree(hg_store *store, const char *hash, hg_tree_fn fn, void *user);

/* The same, pruned as it is read, so that what the caller holds stays
 * bounded whatever the tree's size (a million-line stack makes a
 * million-node tree).  A node is read only when its parent was (roots
 * always qualify); a node left out takes its subtree with it.  A node on
 * the StackKey path (on_key_path) is read whatever its cost and depth; any
 * other is left out when it is deeper than max_depth, else when its
 * total_cost is below the cost floor, else when it is not among the
 * max_nodes costliest of the nodes these rules let through (less the
 * StackKey path's nodes, which come first; ties: the first in id order).
 * There a node counts as costly as the cheapest node off the StackKey path
 * from its root down to it (a Matrix stack's costs need not shrink
 * downwards), so that the costliest hang together.  At most max_nodes
 * nodes are read in all. */
typedef struct hg_tree_prune {
	int64_t min_cost;          /* the cost floor, ms; < 0: min_share of the tree's cost
				    * (its roots' total_cost summed), rounded up */
	double min_share;          /* with min_cost < 0: a fraction, 0.001 for 0.1% */
	long max_depth;            /* levels read (the roots are level 1); <= 0: all */
	size_t max_nodes;          /* nodes read at most; 0: no cap */
} hg_tree_prune;

/* Why nodes were left out: bits. */
enum { HG_TREE_LEFT_COST = 1, HG_TREE_LEFT_DEPTH = 2, HG_TREE_LEFT_CAP = 4 };

/* What was left out under one node read, never dropped silently. */
typedef struct hg_tree_left {
	int64_t parent;            /* the node read they hung from; 0: they were roots */
	int64_t nodes;             /* nodes left out there, their subtrees included */
	int64_t cost, reports;     /* total_cost and reports of the topmost of them (the
				    * children of parent), summed */
	unsigned why;              /* HG_TREE_LEFT_* of the topmost */
} hg_tree_left;
typedef int (*hg_tree_left_fn)(void *user, const hg_tree_left *left);

/* The reading's figures. */
typedef struct hg_tree_read {
	int64_t nodes;             /* in the stored tree */
	int64_t read;              /* given to fn */
	int64_t total_cost;        /* its roots' total_cost summed */
	int64_t min_cost;          /* the cost floor applied, ms */
	unsigned why;              /* HG_TREE_LEFT_* of everything left out */
} hg_tree_read;

/* fn gets the nodes read, as hg_store_cluster_tree gives them; then left
 * (when not NULL) gets what was left out: under the roots (parent 0) first,
 * then under each node read, in id order.  prune NULL: nothing is left
 * out.  *out (may be NULL) is filled on success.  Holds, besides what fn
 * and left keep, 4 bytes per node of the tree and ~50 per node read. */
int hg_store_cluster_tree_pruned(hg_store *store, const char *hash, const hg_tree_prune *prune,
				 hg_tree_fn fn, hg_tree_left_fn left, void *user,
				 hg_tree_read *out);

/* A report's own call tree is stored with at most this many nodes, the
 * StackKey path and the costliest (a node only with its caller), and
 * under each node that lost children one node "(frames left out at
 * ingest)" with their cost: what ingest holds of a report whose stack is
 * a million lines stays bounded, and the costs still add up. */
#define HG_STORE_REPORT_TREE_MAX 20000
/* A cluster's merged tree, which each commit reads and writes whole, takes
 * new nodes until it has this many (its StackKey paths twice as many);
 * then a new node goes, with all below it, into the "(frames left out at
 * ingest)" node under its parent. */
#define HG_STORE_CLUSTER_TREE_MAX 100000

/* The reports of a cluster, newest first. */
typedef struct hg_report_row {
	const char *content_hash;
	const char *source;
	long line;
	const char *time, *version, *device, *scene;
	int64_t cost;
	bool cost_known;           /* false: nobody measured it (an FPS report), cost is 0 */
} hg_report_row;
typedef int (*hg_report_row_fn)(void *user, const hg_report_row *row);
int hg_store_reports(hg_store *store, const char *hash, long limit, hg_report_row_fn fn,
		     void *user);

/* The original text of a stored report (content hash prefix), caller frees. */
int hg_store_report_text(hg_store *store, const char *content_hash, char **text, size_t *len);

typedef struct hg_rejected_row {
	int64_t id;
	const char *source;
	long line;
	const char *reason;
	const char *when;
	size_t size;               /* of the whole input */
	size_t stored;             /* bytes kept (hg_store_rejected_text) */
	const char *sha256;        /* of the whole input, hex */
	bool truncated;            /* stored < size */
} hg_rejected_row;
typedef int (*hg_rejected_fn)(void *user, const hg_rejected_row *row);
int hg_store_rejected(hg_store *store, hg_rejected_fn fn, void *user);
int hg_store_rejected_text(hg_store *store, int64_t id, char **text, size_t *len);

/* ---- ingest runs and diffs (store_query.c, store_diff.c) ---- */

/* Starts an ingest run: the next new report hg_store_add_report stores
 * writes the run's marks in the meta table, in its transaction: the
 * previous last_ingest_started / last_ingest_report_id become
 * previous_ingest_*, last_ingest_started becomes now, and
 * last_ingest_report_id the largest report id before that report (reports
 * with a larger id came from this run or a later one).  A run that stores
 * nothing new leaves the marks as they were.  0. */
int hg_store_mark_ingest(hg_store *store);

/* A time in the store's one form, "2024-04-25T00:00:13.443Z" (UTC, sorts
 * as text), from digits (epoch seconds, ms, us or ns, told by their count)
 * or ISO 8601 (a date, a date and time, with a zone or taken as UTC; the
 * readers' forms too, src/lib/report/report_time.h: "+0200", nine fraction
 * digits): 0, or HG_EINVAL when text is none of these.  Report times are
 * stored in this form (as written in reports.time_written) and
 * --since/--until are compared in it. */
int hg_store_time(hg_store *store, const char *text, char out[32]);

/* How many stored reports have no known time (time NULL: their report gave
 * none, or one that could not be read), into *n: 0 or an hg error.  They
 * are outside every time window (top --since/--until, diff by time). */
int hg_store_count_untimed(hg_store *store, int64_t *n);

/* A meta value (key borrowed), copied into buf (NUL-terminated, cut to
 * size): 0, HG_EINVAL when the key is absent. */
int hg_store_meta_get(hg_store *store, const char *key, char *buf, size_t size);

/* Two sets of reports to compare.  By version when both baseline_version
 * and version are set (old: version = baseline_version, new: version =
 * version); else by time when since is set (new: report time >= since and
 * < until when given; old: before since; times as hg_store_time reads
 * them; a report of unknown time is in neither); else by ingest run (new: the reports of the last
 * ingest run, see hg_store_mark_ingest; old: everything before it; no run
 * recorded: HG_EINVAL with a diagnostic).  by_report_id comes before
 * all of these: new, the reports with id > after_report_id; old, the rest
 * (a nightly run that knows where its reports start).  All strings
 * borrowed.
 *
 * A cluster is new when the old set has none of its reports.  It is
 * regressed when it has at least min_count reports in the new set and
 *   - its count rose: new > old and new >= min_rise * old, or
 *   - its cost rose: old too has min_count reports, and the new p90 is
 *     more than threshold percent above the old p90 (measured costs only), or
 *   - its frame rate fell (FPS): old too has min_count FPS reports, and the
 *     new mean fps is more than threshold percent below the old one;
 * where "old" is its reports in the comparison set: the old set, or, by
 * ingest run, the run before the last (previous_ingest_report_id; by
 * report id, those with id > compare_after_id when that is >= 0), so that
 * one night is compared with one night, not with all the history.  It is
 * gone when the new set has none of it though, drawn like the comparison
 * set, it would have held at least min_count (and 1): its comparison-set
 * count times the new set's reports over the comparison set's; so a small
 * run or window never calls the clusters it does not hold gone.
 * When the old set is empty there is nothing to compare with: the new set
 * is a baseline (totals->baseline), and no cluster is new, regressed or
 * gone. */
typedef struct hg_diff_query {
	const char *since, *until;
	const char *baseline_version, *version;
	bool by_report_id;
	int64_t after_report_id;   /* >= 0, with by_report_id */
	int64_t compare_after_id;  /* with by_report_id: >= 0 see above; -1: the whole old set */
	int64_t min_count;         /* <= 1: any count */
	double min_rise;           /* a factor, >= 1 (0: any rise) */
	double threshold;          /* percent the p90 must rise by, >= 0 */
	/* Rates (hg_diff_row.rated) against these sessions (borrowed; NULL:
	 * none): of the old set over the sessions of its scope, of the new set
	 * over its own (hg_sessions_scope: by version, the version's rows; by
	 * time, the days before since, and those from since to until).  By
	 * ingest run or report id the sets are no versions or days: no rate. */
	const hg_sessions *sessions;
	/* Rows flag escalating clusters as top would over the new set: by
	 * time its window, by version its version, else the whole store. */
	const hg_escalate_rule *escalate; /* NULL: the defaults */
} hg_diff_query;

/* What the two sets held (whatever was listed). */
typedef struct hg_diff_totals {
	int64_t old_reports, new_reports;
	int64_t new_set_clusters;  /* clusters with reports in the new set */
	int64_t fresh, regressed, gone; /* rows given to fn, by status */
	bool baseline;             /* the old set is empty */
} hg_diff_totals;

/* One changed cluster (strings valid during the callback). */
typedef struct hg_diff_row {
	const char *status;        /* "new" (only in the new set), "regressed", "gone" */
	const char *hash, *kind, *title;
	int64_t old_count, new_count; /* old: in the comparison set */
	int64_t old_p90, new_p90;  /* cost p90 of each set, 0 when empty */
	bool cost_unknown;         /* none of its reports in either set has a measured
	                              cost (FPS): the p90s are unknown, not 0 */
	int64_t old_fps_reports, new_fps_reports; /* FPS reports of each set */
	double old_fps, new_fps;   /* their mean fps; 0 when none */
	double old_share, new_share; /* frozen + high frames / frames; -1 when no frames */
	bool escalating;           /* as hg_diff_query.escalate says */
	bool rated;                /* the query's sets have sessions: */
	double old_rate, new_rate; /* each set's reports per 1,000 of its sessions;
	                              < 0: the file gives none for that set */
} hg_diff_row;
typedef int (*hg_diff_fn)(void *user, const hg_diff_row *row);

/* A diff row's two sets as JSON members: ,"old":{"count","cost":{"p90"}}
 * and ,"new":{...}, each with "fps":{"mean","frozen_high_share"} for an
 * FPS cluster; a p90 nobody measured (or of no report) is null.  One
 * writer for diff and the digest's regressed clusters. */
void hg_diff_sides_json(hg_buf *b, const hg_diff_row *r);

/* Calls fn for every new, then regressed, then gone cluster (each group by
 * count in the new set, most first, then in the old set); clusters that
 * did not change by the rules above are left out.  totals (may be NULL)
 * gets the sets' sizes.  0, a negative error, or fn's non-zero value. */
int hg_store_diff(hg_store *store, const hg_diff_query *q, hg_diff_fn fn, void *user,
		  hg_diff_totals *totals);

/* Reports of each kind (reports.kind, see hangar-formats(5) KINDS): all of
 * them (from the rollups: pruned reports too, as top counts them) and
 * those with id > after_report_id, the most first (kind borrowed, valid
 * during the call).  0, a negative error, or fn's non-zero value. */
typedef int (*hg_kind_total_fn)(void *user, const char *kind, int64_t all, int64_t after);
int hg_store_kind_totals(hg_store *store, int64_t after_report_id, hg_kind_total_fn fn,
			 void *user);

/* How many reports of the cluster hash have id > after_report_id: 0 or an
 * error; *count 0 for an unknown hash. */
int hg_store_cluster_count_after(hg_store *store, const char *hash, int64_t after_report_id,
				 int64_t *count);

/* ---- objects of remote sources (store_objects.c) ---- */

/* One object of a source (an S3 prefix, an HTTP folder) as last seen:
 * status "ingested" (its reports are stored) or "failed" (error says why;
 * attempts counts the runs that failed it).  Strings borrowed. */
typedef struct hg_object_row {
	const char *source;        /* the source's redacted URL */
	const char *key;
	const char *etag;          /* may be NULL */
	int64_t size;              /* -1 unknown */
	const char *last_modified; /* may be NULL */
	const char *status;
	int64_t reports;           /* reports read from it */
	const char *error;         /* NULL unless failed */
	int64_t attempts;
	const char *at;            /* when, in the store's time form */
} hg_object_row;

/* Whether the object (source, key) with this etag/size/last_modified is
 * already ingested (so the run can skip fetching it): 1 yes, 0 no (new,
 * changed, or failed before), or a negative error. */
int hg_store_object_known(hg_store *store, const char *source, const char *key,
			  const char *etag, int64_t size, const char *last_modified);

/* Records an object as ingested or failed (row->at and ->attempts are the
 * store's), in the caller's batch: with the reports read from it, so that
 * a killed run leaves both or neither. */
int hg_store_object_put(hg_store *store, const hg_object_row *row);

/* Whether the object (source, key) is recorded as failed (by an earlier
 * run, or earlier in this batch): 1 yes, 0 no, or a negative error. */
int hg_store_object_failed_before(hg_store *store, const char *source, const char *key);

/* The largest report id (0 for an empty store): reports stored later have
 * larger ids (a nightly run's first_report_id). */
int hg_store_last_report_id(hg_store *store, int64_t *id);

typedef int (*hg_object_fn)(void *user, const hg_object_row *row);
/* The objects of a source (NULL: all) with this status (NULL: any), by key. */
int hg_store_objects(hg_store *store, const char *source, const char *status, hg_object_fn fn,
		     void *user);

/* ---- regrouping (store_regroup.c) ---- */

/* One stored report, as hg_store_regroup hands it to its callback (all
 * borrowed, valid during the call; text is NUL-terminated at text[len]). */
typedef struct hg_regroup_item {
	int64_t id;
	const char *source;
	long line;
	const char *version;       /* as stored; may be NULL */
	const char *app;           /* as stored (the process, or ingest --app); may be NULL */
	const char *cluster;       /* the current cluster hash */
	const char *text;
	size_t len;
} hg_regroup_item;

/* Reads item's text again and computes its signature.  On 0 with *rep set,
 * the store takes ownership of *rep (hg_report_destroy) and sig's strings
 * must live in (*rep)->arena; 0 with *rep NULL keeps the report where it
 * is (counted as kept); a negative value stops the regroup (rolled back). */
typedef int (*hg_regroup_fn)(void *user, const hg_regroup_item *item, hg_report **rep,
			     hg_signature *sig);

/* Each stored report of the cluster hash (the full hash), oldest first,
 * with its text (all borrowed, valid during the call; text NUL-terminated
 * at text[len]) and its time in the store's form (NULL: unknown), for
 * reading them again (hangar diff --flame).  One pass over the cluster's
 * reports, however many; fn must not use the store.  0, a negative error,
 * or fn's non-zero value. */
typedef int (*hg_item_fn)(void *user, const hg_regroup_item *item, const char *time);
int hg_store_cluster_items(hg_store *store, const char *hash, hg_item_fn fn, void *user);

typedef struct hg_regroup_stats {
	int64_t reports;           /* stored reports (the same before and after) */
	int64_t clusters_before, clusters_after;
	int64_t moved;             /* reports whose cluster changed */
	int64_t kept;              /* reports the callback left where they were */
} hg_regroup_stats;

/* Recomputes every stored report's signature with fn, moves reports to
 * their new clusters, rebuilds the counts, first/last seen and merged call
 * trees of every cluster touched, and deletes the clusters left empty: all
 * in one transaction (not inside a batch: HG_EINVAL).  The report count is
 * checked to be the same before and after (else rolled back, HG_EIO). */
int hg_store_regroup(hg_store *store, hg_regroup_fn fn, void *user, hg_regroup_stats *stats);

/* How many clusters were grouped by a signature algorithm older than
 * HG_SIGNATURE_VERSION (hg_store_regroup moves their reports on). */
int hg_store_old_clusters(hg_store *store, int64_t *count);

/* ---- merging shards (store_merge.c) ---- */

typedef struct hg_merge_stats {
	int64_t reports_added;     /* reports of the shard the store lacked */
	int64_t reports_present;   /* reports of the shard it had already (same text) */
	int64_t clusters_created, clusters_touched; /* touched: counts recomputed */
	int64_t trees_added;       /* clusters whose shard tree was added node by node */
	int64_t trees_rebuilt;     /* clusters whose tree was rebuilt from report texts */
	int64_t rejected_added;
	int64_t objects_added;     /* objects added, or replaced by the shard's */
} hg_merge_stats;

/* Adds the store at shard_path (another hangar store of this schema
 * version, e.g. from one machine of a sharded ingest; opened read-only and
 * never written) into store, in one transaction (not inside a batch:
 * HG_EINVAL): a failed or killed merge leaves store as it was.
 *   - reports whose content hash the store lacks are copied (all columns;
 *     ids are the store's own); the others count once;
 *   - their clusters are created when missing, and every cluster that got
 *     a report has its count, first/last seen and symbolicated recomputed
 *     from its reports;
 *   - a shard cluster whose reports were all new has its merged tree added
 *     to the store's (sums add, max takes the max, on_key_path ORs); one
 *     whose reports were all present adds nothing; one with some of each
 *     has its tree rebuilt from all its stored reports' texts, read again
 *     by fn (see hg_regroup_fn; its signature is not used).  fn NULL: they
 *     are read again without mappings, with a warning naming the cluster
 *     (its tree may lack the symbols that mappings gave at ingest);
 *   - rejected inputs are added unless (source, line, text_hash) is there;
 *     objects of remote sources are added, and where both stores have
 *     (source, key) the ingested one wins, else the later `at`.
 *   The meta table (ingest-run marks) is left as the store's.
 * Merging is idempotent and associative (as far as fn gives the trees
 * ingest gave).  A shard that cannot be opened, is not a hangar store, is
 * corrupt or has another schema version: HG_EPARSE or HG_EIO with a
 * diagnostic naming shard_path, store untouched.  stats may be NULL. */
int hg_store_merge(hg_store *store, const char *shard_path, hg_regroup_fn fn, void *user,
		   hg_merge_stats *stats);

/* ---- retention (store_prune.c) ---- */

/* Reports per transaction of hg_store_prune: a kill loses at most one. */
#define HG_PRUNE_BATCH 20000

/* What to prune: the reports older than the cutoff, keep_days days before
 * now (a report's age is its time; a report without one, its ingest time),
 * except keep_samples of each cluster's (its newest, ties by the larger
 * id); and the rejected inputs recorded before the cutoff.  Strings
 * borrowed. */
typedef struct hg_prune_query {
	const char *now;           /* a time hg_store_time reads; NULL: the clock */
	int64_t keep_days;         /* >= 0 */
	int64_t keep_samples;      /* >= 0, per cluster */
	bool dry_run;              /* count only: the store is not written (a
	                              read-only store will do) */
	int64_t batch;             /* report ids per transaction; <= 0: HG_PRUNE_BATCH */
} hg_prune_query;

/* Reports dropped of one kind (reports.kind). */
typedef struct hg_prune_kind {
	char kind[40];
	int64_t reports;
} hg_prune_kind;

/* What a prune dropped (a dry run: would drop).  Caller's storage:
 * hg_prune_stats_release frees kinds. */
typedef struct hg_prune_stats {
	char now[32], cutoff[32];  /* in the store's time form */
	int64_t reports;           /* reports dropped */
	hg_prune_kind *kinds;      /* of them, by kind, most first (n_kinds) */
	size_t n_kinds;
	int64_t text_bytes;        /* their stored texts' bytes */
	int64_t rejected;          /* rejected inputs dropped */
	int64_t samples;           /* reports past the cutoff kept as samples */
	int64_t sample_clusters;   /* clusters with no report since the cutoff:
	                              they hold only samples (none when keep_samples 0) */
	int64_t reports_left;      /* reports the store holds after */
	int64_t bytes_before;      /* the store's size: pages times page size */
	int64_t bytes_after;       /* -1 in a dry run */
	bool rewritten;            /* a store made without incremental vacuum was
	                              rewritten (VACUUM) and now has it */
} hg_prune_stats;

/* Drops what q says from the store, with each dropped report's rows in
 * report_facts and figures; keeps clusters, merged trees, symbols,
 * objects (so that a nightly run does not fetch them again), meta and
 * every rollup table.  First records the cutoff in meta as pruned_before
 * (the latest of all runs': it never moves back), then deletes in
 * transactions of at most q->batch report ids (by id range), so that a
 * killed prune loses only the batch in progress and running it again with
 * the same now finishes the job: the samples are the same, as no sample
 * is ever dropped.  Then gives the freed pages back to the file system:
 * PRAGMA incremental_vacuum, or, for a store made without it (auto_vacuum
 * NONE: made before prune existed) that has pages to give back, one
 * VACUUM that also turns incremental vacuum on.  Waits for other writers
 * as a batch does (a store busy beyond that: HG_EIO, with a diagnostic
 * naming the store).  Not inside a batch (HG_EINVAL).  *stats is filled
 * (release it) whatever is returned; 0 or an hg error. */
int hg_store_prune(hg_store *store, const hg_prune_query *q, hg_prune_stats *stats);
void hg_prune_stats_release(hg_prune_stats *stats);

/* ---- hangar check (store_check.c) ---- */

/* One difference between a stored rollup and its recomputation from the
 * reports: day and version NULL where the reports' are unknown; what is
 * "missing" (reports the rollups lack), "extra" (a rollup no report
 * backs) or "different" (counts, costs, devices or times), with both
 * counts. */
typedef struct hg_check_diff {
	const char *cluster, *day, *version, *what;
	int64_t stored, computed;  /* reports; 0 for the side that has none */
} hg_check_diff;

typedef int (*hg_check_fn)(void *user, const hg_check_diff *d);

typedef struct hg_check_stats {
	bool integrity_ok;          /* PRAGMA integrity_check said "ok" */
	char integrity[256];        /* else its first message */
	int64_t rollups;            /* stored rollups compared */
	int64_t differences;
	int64_t skipped;            /* rollups of days up to pruned_before: their
	                               reports are gone, they stand as they are */
	char pruned_before[32];     /* "" when never pruned */
	bool repaired;
} hg_check_stats;

/* Checks the store: SQLite's integrity check, then every rollup against
 * a recomputation from the reports (those of days up to pruned_before
 * excepted), each difference given to fn (may be NULL).  repair: the
 * rollups are then replaced by the recomputation, and the clusters'
 * counts taken from them, in one transaction.  0 (differences or not:
 * see stats) or an hg error. */
int hg_store_verify(hg_store *store, bool repair, hg_check_fn fn, void *user,
		    hg_check_stats *stats);

#endif
