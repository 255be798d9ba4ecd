/* Shared by the store's files (store*.c): the store object, the slots of
 * its cached statements, and the helpers they call on one another. */
#ifndef HANGAR_STORE_INTERNAL_H
#define HANGAR_STORE_INTERNAL_H

#include "db.h"
#include "regex/regex.h"
#include "core/core.h"
#include "hangar/store.h"

/* "HGAR": PRAGMA application_id of a hangar store. */
#define HG_STORE_APPLICATION_ID 0x48474152

/* The schema name hangar merge attaches a shard store as. */
#define STORE_SHARD "hg_shard"

/* The store's one time format, as SQL applied to a text x: report times are
 * written in many ways (epoch seconds, ms, us or ns as digits; ISO 8601
 * with or without a zone, taken as UTC without one), and compared in one:
 * UTC ISO 8601 with milliseconds, "2024-04-25T00:00:13.443Z", which sorts
 * as text.  NULL when x is NULL, empty or not a time SQLite can read.  x
 * is pasted several times: a column name or a numbered parameter. */
#define STORE_TIME_SQL(x)                                                              \
	"(CASE WHEN " x " IS NULL OR " x " = '' THEN NULL"                             \
	" WHEN " x " NOT GLOB '*[^0-9]*' THEN strftime('%Y-%m-%dT%H:%M:%fZ',"          \
	" CAST(" x " AS INTEGER) / (CASE WHEN length(" x ") <= 11 THEN 1.0"            \
	" WHEN length(" x ") <= 14 THEN 1000.0 WHEN length(" x ") <= 17 THEN 1000000.0" \
	" ELSE 1000000000.0 END), 'unixepoch')"                                        \
	" ELSE strftime('%Y-%m-%dT%H:%M:%fZ', " x ") END)"
#define STORE_NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

enum store_slot {
	S_INSERT_REPORT,
	S_UPSERT_CLUSTER,
	S_INSERT_REJECTED,
	S_TREE_LOAD,
	S_TREE_SAVE,
	S_TOP_CLUSTERS,
	S_CHECKPOINT,
	S_TOP_SCAN,
	S_TOP_SCAN_ONE,
	S_TOP_SCENE,
	S_RESOLVE,
	S_COUNTS_DEVICE,
	S_TREE,
	S_REPORTS,
	S_REPORT_TEXT,
	S_REJECTED,
	S_REJECTED_TEXT,
	S_INTEGRITY,
	S_META_SET,
	S_APP_ID,
	S_USER_VERSION,
	S_SCHEMA_HAS_FACETS,
	S_N_TABLES,
	S_TIME,
	S_CLUSTER_ID,
	S_SYMBOL_ID,
	S_INSERT_SYMBOL,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	/* store_query.c */
	S_META_GET,
	S_META_PUT,
	S_MAX_REPORT_ID,
	/* store_diff.c */
	S_DIFF,
	S_KIND_TOTALS,
	S_COUNT_AFTER,
	/* store_regroup.c */
	S_RG_COUNT_REPORTS,
	S_RG_COUNT_CLUSTERS,
	S_RG_OLD_CLUSTERS,
	S_RG_IDS,
	S_RG_ITEM,
	S_RG_MOVE,
	S_RG_CLUSTER,
	S_RG_AFFECT,
	S_RG_AFFECTED_IDS,
	/* store_objects.c */
	S_OBJECT_KNOWN,
	S_LAST_REPORT_ID,
	S_OBJECT_PUT,
	S_OBJECTS,
	/* store_merge.c */
	S_MG_APP_ID,
	S_MG_USER_VERSION,
	S_MG_N_TABLES,
	S_MG_CHECK,
	S_MG_COUNT,
	S_MG_COUNT_NEW,
	S_MG_ORPHANS,
	S_MG_TREE,
	S_MG_SYMBOL,
	S_MG_FULL_CLUSTERS,
	S_MG_PARTIAL,
	S_MG_CLUSTER_REPORTS,
	/* store_times_backfill.c */
	S_TB_NEXT,
	S_TB_SET,
	S_TB_CLUSTERS,
	S_UNTIMED,
	/* store_seen.c */
	S_REJECTED_KNOWN,
	S_OBJECT_FAILED,
	/* store_cluster_items.c */
	S_CLUSTER_ITEMS,
	/* store_tree_read.c */
	S_TREE_SYMBOL,
	S_TREE_CACHE,
	/* store_figures.c, store_figures_query.c */
	S_FIG_INSERT,
	S_FIG_NEXT,
	S_FIG_COST,
	S_FACTS_INSERT,
	S_FACTS_NEXT,
	S_PAGE_SAMPLE,
	S_PAGE_SAMPLE_KEPT,
	S_COVERAGE_IMAGES,
	S_FIG_BY_SCENE,
	/* store_escalate.c, store_rates.c, store_diff.c */
	S_ESCALATE,
	S_VERSION_RATES,
	S_DIFF_RATES,
	/* store_rollup.c, store_rollup_read.c, store_check.c */
	S_ROLLUP_PUT,
	S_ROLLUP_GET,
	S_ROLLUP_ROWS,
	S_ROLLUP_CLEAR,
	S_ROLLUP_READ,
	S_ROLLUP_EDGE,
	S_ROLLUP_EDGE_FACETS,
	S_ROLLUP_STORED,
	S_ROLLUP_SHARD,
	S_ROLLUP_SHARD_KNOWN,
	S_INTEGRITY_FULL,
	S_DIFF_RUN_ROWS,
	S_DIFF_CLUSTERS,
	S_ESCALATE_CLUSTER,
	/* store_text.c */
	S_TEXT_HAS_DICTS,
	S_TEXT_DICT_BY_ID,
	S_TEXT_DICT_OF,
	S_TEXT_FAMILY_COUNT,
	S_TEXT_SAMPLE,
	S_TEXT_DICT_PUT,
	S_TEXT_SHARD_HAS,
	S_TEXT_SHARD_CLASH,
	S_TEXT_RC_IDS,
	S_TEXT_RC_READ,
	S_TEXT_RC_WRITE,
	/* store_prune.c, store_vacuum.c */
	S_PR_CUTOFF,
	S_PR_BOUNDS,
	S_PR_SAMPLES,
	S_PR_COUNT,
	S_PR_VICTIMS,
	S_PR_DEL_REPORTS,
	S_PR_DEL_FACTS,
	S_PR_DEL_FIGURES,
	S_PR_REJECTED,
	S_PR_DEL_REJECTED,
	S_PR_SAMPLE_CLUSTERS,
	S_PR_MARK,
	S_PR_REPORTS_LEFT,
	S_PR_PAGES,
	S_PR_AUTO_VACUUM,
	S_PR_FREELIST,
	S_PR_SECURE,
	S_PR_CACHE,
	S_COUNT
};
_Static_assert(S_COUNT <= DB_MAX_STMTS, "more store statements than db.h caches");

/* Symbol ids by the numbers of one hg_store_symtab (store_tree_batch.c):
 * ids[num], 0 unknown. */
struct symbol_numbers {
	int64_t *ids;
	size_t len;
	uint64_t serial;        /* the symtab's; 0: none yet */
};

struct hg_store {
	const hg_ctx *ctx;
	char *path;
	hg_db *db;
	bool in_batch;          /* between hg_store_begin and commit/rollback */
	bool bulk;              /* hg_store_set_bulk: no savepoint per report in a batch */
	int64_t version;        /* user_version when opened (migrated when lower) */
	bool empty;             /* no tables when opened: a new store */
	hg_regex *scene_re;   /* the --scene pattern during hg_store_top */
	struct tree_batch *tree; /* tree-node additions not yet written (store_tree.c) */
	struct cluster_batch *clusters; /* cluster updates not yet written (store_cluster_batch.c) */
	struct rollup_set *rollups;     /* the batch's rollups, not yet written (store_rollup.c) */
	strmap symbols;         /* symbol ids already looked up (store_symbols.c) */
	struct symbol_numbers numbers[2]; /* the same by symtab number (store_tree_batch.c):
	                           two tables, as ingest's reader and writer each number
	                           the reports they prepare */
	bool mark_pending;      /* hg_store_mark_ingest: mark with the next new report */
	struct store_texts *texts; /* zstd contexts and dictionaries (store_text.c) */
	char pruned_before[32];    /* meta's, read at each batch ("" never pruned) */
	bool pruned_read;
};

/* A report time in the store's form (STORE_TIME_SQL), "" where that gives
 * NULL (store_time.c): fast computes the common forms in C (false: not
 * one of them); normalize falls back on SQLite.  0 or an hg error. */
bool store_time_fast(const char *text, char out[32]);
int store_time_normalize(hg_store *store, const char *text, char out[32]);
/* Migrating to schema 7 (store_times_backfill.c): the report times that
 * earlier versions stored as unknown but report_time.h reads (ART, xCrash,
 * zones and nanoseconds; from reports.time_written), then every cluster's
 * first_seen / last_seen from its reports' times (NULL when none has one).
 * Inside the migration's transaction; 0 or a db.h error. */
int store_times_backfill(hg_store *store);
/* The figures table (schema 8, store_figures.c): the row of a report
 * just inserted as id, when it has figures (FPS, startup) or an unmeasured
 * cost; a db.h result. */
int store_figures_add(hg_store *store, int64_t id, const hg_report *rep);
/* Whether rep's cost was measured (store_add_report.c): by the device, or
 * by its method stack's costs; else it is stored as 0 with a figures row
 * saying so, and left out of the cost percentiles. */
bool store_cost_known(const hg_report *rep);
/* Migrating to schema 8: the figures of the FPS and startup reports stored
 * before, read again from their texts, and a startup's total as its cost
 * (it was 0).  Inside the migration's transaction; 0 or a db.h error. */
int store_figures_backfill(hg_store *store);
/* A migration's walk over stored reports (store.c): sql selects "id,
 * text" of the first report past ?1 that still needs the migration's work;
 * each such report is read again quietly and handed to fn (rep NULL when
 * its text no longer reads), which must make the report no longer
 * selected (or the walk, past its id, goes on).  DB_DONE, or the first
 * negative result. */
typedef int (*store_backfill_fn)(hg_store *store, int64_t id, const hg_report *rep);
int store_backfill(hg_store *store, int slot, const char *sql, store_backfill_fn fn);
/* The report_facts table (schema 9, store_facts.c): the row of a report
 * just inserted as id; store_facts_backfill gives every stored report
 * without one its row, read from its text (migrating to schema 9);
 * store_facts_merge copies a shard's rows for the reports just copied. */
struct report_facets;
/* out (may be NULL) gets the facets' part of them (rollup_facets.h), its
 * strings in the report's arena. */
int store_facts_add(hg_store *store, int64_t id, const hg_report *rep, struct report_facets *out);
int store_facts_backfill(hg_store *store);
/* hg_store_cluster_counts but by device: from the cluster's rollups
 * (store_page.c). */
int store_cluster_breakdown(hg_store *store, const char *hash, const char *by, hg_count_fn fn,
			    void *user);
int store_facts_merge(hg_store *store, const char *schema);
/* Merging: the figures of the shard's reports just copied (the shard
 * ATTACHed as schema); a db.h result. */
int store_figures_merge(hg_store *store, const char *schema);
/* Now, in the store's form (STORE_NOW_SQL). */
void store_time_now(char out[32]);

/* One integer from a cached statement without parameters (0 when no
 * row): 0 or a db.h error. */
int store_query_int(hg_store *store, int slot, const char *sql, int64_t *out);
/* Runs a cached statement without parameters or rows; a db.h result. */
int store_exec_cached(hg_store *store, int slot, const char *sql);
/* The SHA-256 of text[0..len) in hex: how reports and rejected inputs are keyed. */
void store_sha256_hex(const char *text, size_t len, char out[65]);

/* How often a busy write lock or COMMIT is tried again (store_batch.c,
 * store_open.c). */
#define STORE_BUSY_RETRIES 5
/* BEGIN IMMEDIATE and COMMIT, retried while the store is busy; COMMIT rolls
 * back when it fails (store_batch.c).  db.h results. */
int store_begin_immediate(hg_store *store);
int store_commit(hg_store *store);
/* Brings the schema of a store opened for writing up to
 * HG_STORE_SCHEMA_VERSION in one transaction (store_schema.c); 0 or an hg
 * error. */
int store_migrate(hg_store *store);

/* A diagnostic naming the store's path: "what: sqlite's message". */
int store_fail(hg_store *store, int err, const char *what);
/* Maps a db.h result to an hg error (with a diagnostic when negative). */
int store_check(hg_store *store, int rc, const char *what);
/* One title for a cluster whose reports give a and b (store_title.c; SQL:
 * hangar_title(a, b)); malloc'ed, NULL on ENOMEM. */
char *store_title_merge(const char *a, const char *b);

/* The SQL function hg_scene_match(scene): true when no --scene pattern is
 * active, else whether scene matches it.  user is the store. */
bool store_scene_match(void *user, const char *text);

/* Adds rep's call tree (method stack or blamed thread) to cluster's merged
 * tree.  Runs inside the caller's transaction.  The additions are summed in
 * memory per batch and written by store_tree_flush, which hg_store_commit
 * calls before COMMIT (so a batch stays one transaction); code that reads
 * trees inside a batch must flush first. */
int store_tree_add(hg_store *store, const hg_report *rep, const char *cluster);
/* The same in two steps: prepare needs no store (its work can be done on
 * another thread; *out NULL when the report has no tree; tab, when not
 * NULL, numbers its symbols: see hg_store_symtab), add_prepared adds it to
 * the batch (p may be NULL); destroy accepts NULL.  The prepared tree
 * borrows rep's symbols: rep must outlive it. */
struct store_tree_prep;
int store_tree_prepare(const hg_report *rep, hg_store_symtab *tab, struct store_tree_prep **out);
int store_tree_add_prepared(hg_store *store, struct store_tree_prep *p, const char *cluster);
void store_tree_prep_destroy(struct store_tree_prep *p);

/* A node of a report's self-merged tree (store_tree.c), in first-seen
 * order, a parent before its children. */
struct store_report_node {
	long parent;            /* index in the same tree, -1 for a root */
	const char *symbol;     /* borrowed */
	uint32_t num;           /* its number in the preparing symtab; 0: none */
	int64_t cost, self;
	bool key;
};
/* Adds a report's nodes to the batch's tree of cluster (store_tree_batch.c);
 * serial: the symtab that numbered them, 0 for none.  0 or an hg error. */
int store_tree_batch_add(hg_store *store, const struct store_report_node *nodes, size_t n,
			 uint64_t serial, const char *cluster);
/* Forgets the symbol ids known by number (with store_symbols_forget). */
void store_numbers_forget(hg_store *store);
/* The number of text in tab (from 1), added if new; 0 on ENOMEM.  *serial:
 * the table's serial for this number (store_symtab.c). */
uint32_t store_symtab_number(hg_store_symtab *tab, const char *text, uint64_t *serial);
/* Writes the pending additions (each touched cluster's tree row read,
 * merged and written back: store_tree_json.c); 0 or an hg
 * error.  The pending set is empty afterwards, written or not. */
int store_tree_flush(hg_store *store);
/* Forgets the pending additions (rollback, close). */
void store_tree_discard(hg_store *store);

/* A cluster's stored tree (store_tree_json.c): a node, and one addition to
 * it, whose parent is an earlier addition of the same list (-1: a root)
 * and whose tid gets the id of the node it went to (0: not written, as
 * its reports are 0). */
struct store_tree_node {
	int64_t id, parent, symbol, reports, total, max, self;
	bool key;
};
struct store_tree_add {
	long parent;
	int64_t symbol, reports, total, max, self;
	bool key;
	int64_t tid;
};
/* Adds n additions to the stored tree of cluster (hash for messages): read,
 * merged, written back as one row.  0 or an hg error. */
int store_tree_merge(hg_store *store, int64_t cluster_id, const char *hash,
		     struct store_tree_add *adds, size_t n);
/* Reads a trees.nodes text: *nodes malloc'd (NULL when empty), sorted by
 * id, every parent there (with a smaller id than its children).  HG_EPARSE with *bad_at (the
 * 1-based byte) when it is not such a text. */
int store_tree_decode(const char *json, size_t len, struct store_tree_node **nodes, size_t *n,
		      size_t *bad_at);
/* The trees.nodes text of nodes[0..n) (malloc'd, *len set; no NUL), NULL
 * on ENOMEM. */
char *store_tree_encode(const struct store_tree_node *nodes, size_t n, size_t *len);

/* Writes the ingest-run marks (see hg_store_mark_ingest) for the report
 * just inserted; a db.h result. */
int store_mark_ingest_now(hg_store *store);

/* The id of a symbol's text in the symbols table, added if new (inside the
 * caller's transaction); remembered until store_symbols_forget, which
 * rollback and close call.  0 or an hg error. */
int store_symbol_id(hg_store *store, const char *text, int64_t *id);
void store_symbols_forget(hg_store *store);
/* The id of the cluster with this hash (which must exist); 0 or an hg error. */
int store_cluster_id(hg_store *store, const char *hash, int64_t *id);

/* Reads stored report id (a db.h result) and hands it to fn; the
 * report's current cluster is copied into cluster.  *rep NULL: fn kept it
 * where it is (store_regroup.c). */
int store_reread(hg_store *store, int64_t id, hg_regroup_fn fn, void *user, char cluster[33],
		 hg_report **rep, hg_signature *sig);

/* The batch's cluster updates (count, first/last seen, symbolicated),
 * summed in memory (when: the report's time in the store's form) and
 * written by store_cluster_flush, which
 * hg_store_commit calls before COMMIT; discard forgets them.  Like the
 * trees, code that reads clusters inside a batch must flush first. */
int store_cluster_add(hg_store *store, const hg_report *rep, const hg_signature *sig,
		      const char *when);
int store_cluster_flush(hg_store *store);
void store_cluster_discard(hg_store *store);

#endif
