/* Shared by store.c, store_tree.c and store_query.c: the store object and
 * the slots of its cached statements. */
#ifndef HANGAR_STORE_INTERNAL_H
#define HANGAR_STORE_INTERNAL_H

#include "db.h"
#include "regex.h"
#include "hangar/store.h"

/* "HGAR": PRAGMA application_id of a hangar store. */
#define HG_STORE_APPLICATION_ID 0x48474152

enum store_slot {
	S_INSERT_REPORT,
	S_UPSERT_CLUSTER,
	S_INSERT_REJECTED,
	S_UPSERT_NODE,
	S_TOP,
	S_RESOLVE,
	S_COUNTS_VERSION,
	S_COUNTS_DEVICE,
	S_COUNTS_SCENE,
	S_TREE,
	S_REPORTS,
	S_REPORT_TEXT,
	S_REJECTED,
	S_REJECTED_TEXT,
	S_INTEGRITY,
	S_META_SET,
	S_APP_ID,
	S_USER_VERSION,
	S_N_TABLES,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	/* store_query.c */
	S_META_GET,
	S_META_PUT,
	S_MAX_REPORT_ID,
	/* store_diff.c */
	S_DIFF,
	/* store_regroup.c */
	S_RG_COUNT_REPORTS,
	S_RG_COUNT_CLUSTERS,
	S_RG_IDS,
	S_RG_ITEM,
	S_RG_MOVE,
	S_RG_CLUSTER,
	S_RG_AFFECT,
	S_RG_AFFECTED_IDS,
	S_COUNT
};
_Static_assert(S_COUNT <= DB_MAX_STMTS, "more store statements than db.h caches");

struct hg_store {
	const hg_ctx *ctx;
	char *path;
	hg_db *db;
	bool in_batch;          /* between hg_store_begin and commit/rollback */
	hg_regex *scene_re;   /* the --scene pattern during hg_store_top */
	struct tree_batch *tree; /* tree-node additions not yet written (store_tree.c) */
	struct cluster_batch *clusters; /* cluster updates not yet written (store_cluster_batch.c) */
};

/* A diagnostic naming the store's path: "what: sqlite's message". */
int store_fail(hg_store *store, int err, const char *what);
/* Maps a db.h result to an hg error (with a diagnostic when negative). */
int store_check(hg_store *store, int rc, const char *what);

/* The SQL function hg_scene_match(scene): true when no --scene pattern is
 * active, else whether scene matches it.  user is the store. */
bool store_scene_match(void *user, const char *text);

/* Adds rep's call tree (method stack or blamed thread) to cluster's merged
 * tree.  Runs inside the caller's transaction.  The additions are summed in
 * memory per batch and written by store_tree_flush, which hg_store_commit
 * calls before COMMIT (so a batch stays one transaction); code that reads
 * tree_nodes inside a batch must flush first. */
int store_tree_add(hg_store *store, const hg_report *rep, const char *cluster);
/* Writes the pending additions (one upsert per distinct node); 0 or an hg
 * error.  The pending set is empty afterwards, written or not. */
int store_tree_flush(hg_store *store);
/* Forgets the pending additions (rollback, close). */
void store_tree_discard(hg_store *store);

/* The batch's cluster updates (count, first/last seen, symbolicated),
 * summed in memory and written by store_cluster_flush, which
 * hg_store_commit calls before COMMIT; discard forgets them.  Like the
 * trees, code that reads clusters inside a batch must flush first. */
int store_cluster_add(hg_store *store, const hg_report *rep, const hg_signature *sig);
int store_cluster_flush(hg_store *store);
void store_cluster_discard(hg_store *store);

#endif
