/* hangar merge: another store (a shard of a sharded ingest) added into
 * this one, so that merging is idempotent and associative: reports count
 * once by content hash, clusters are recomputed from their reports, and
 * merged trees add where the shard's reports were all new.  The shard is
 * ATTACHed read-only as hg_shard; everything else is set-based SQL in one
 * transaction, but for the trees that must be rebuilt from report texts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store_internal.h"
#include "store_rollup.h"
#include "store_text.h"

#define SHARD STORE_SHARD

struct merge {
	hg_store *store;
	const char *shard;  /* its path, for diagnostics */
	hg_regroup_fn fn;
	void *user;
	hg_merge_stats *stats;
};

/* Runs one statement and adds the rows it changed to *count (may be NULL). */
static int exec_count(hg_store *store, const char *sql, int64_t *count)
{
	int rc = db_exec(store->db, sql);
	if (rc >= 0 && count)
		*count += db_changes(store->db);
	return rc;
}

static int shard_error(struct merge *m, int err, const char *fmt, const char *detail)
{
	hg_diagf(m->store->ctx, HG_DIAG_ERROR, m->shard, 0, 0, 0, fmt, detail);
	return err;
}

/* Is the attached shard a sound hangar store of our schema version? */
static int check_shard(struct merge *m)
{
	hg_store *store = m->store;
	int64_t app_id = 0, version = 0, tables = 0;
	int rc = store_query_int(store, S_MG_APP_ID, "PRAGMA " SHARD ".application_id", &app_id);
	if (rc >= 0)
		rc = store_query_int(store, S_MG_USER_VERSION, "PRAGMA " SHARD ".user_version", &version);
	if (rc >= 0)
		rc = store_query_int(store, S_MG_N_TABLES, "SELECT count(*) FROM " SHARD ".sqlite_master",
			     &tables);
	if (rc < 0)
		return shard_error(m, HG_EPARSE, "not a hangar store (%s)", db_errmsg(store->db));
	if (app_id != HG_STORE_APPLICATION_ID) {
		if (app_id == 0 && version == 0 && tables == 0)
			return shard_error(m, HG_EPARSE, "not a hangar store (%s)", "an empty database");
		return shard_error(m, HG_EPARSE, "not a hangar store (%s)",
				   "an SQLite database of another application");
	}
	char msg[200];
	if (version > HG_STORE_SCHEMA_VERSION) {
		snprintf(msg, sizeof msg, "store schema version %lld is newer than this hangar's (%d):"
			 " merge with a newer hangar", (long long)version, HG_STORE_SCHEMA_VERSION);
		return shard_error(m, HG_EPARSE, "%s", msg);
	}
	if (version < HG_STORE_SCHEMA_VERSION) {
		snprintf(msg, sizeof msg, "store schema version %lld is older than this hangar's (%d):"
			 " open it once with this hangar (e.g. hangar top --db SHARD) to migrate it,"
			 " then merge", (long long)version, HG_STORE_SCHEMA_VERSION);
		return shard_error(m, HG_EPARSE, "%s", msg);
	}
	hg_db_stmt *st = db_stmt(store->db, S_MG_CHECK, "PRAGMA " SHARD ".quick_check(1)");
	if (!st)
		return shard_error(m, HG_EPARSE, "corrupt: %s", db_errmsg(store->db));
	rc = db_step(st);
	char result[160];
	snprintf(result, sizeof result, "%s",
		 rc == DB_ROW && db_col_text(st, 0) ? db_col_text(st, 0) : db_errmsg(store->db));
	db_reset(st);
	if (rc != DB_ROW || strcmp(result, "ok") != 0)
		return shard_error(m, HG_EPARSE, "corrupt: %s", result);
	return 0;
}

/* The shard's reports the store lacks, and per shard cluster how many
 * reports it has and how many of them are new. */
static int classify(struct merge *m)
{
	hg_store *store = m->store;
	int rc = db_exec(store->db,
		"CREATE TEMP TABLE IF NOT EXISTS hg_merge_new("
		"  content_hash TEXT PRIMARY KEY, cluster TEXT NOT NULL);"
		"CREATE INDEX IF NOT EXISTS temp.hg_merge_new_by_cluster ON hg_merge_new(cluster);"
		"CREATE TEMP TABLE IF NOT EXISTS hg_merge_clusters("
		"  hash TEXT PRIMARY KEY, total INTEGER NOT NULL, fresh INTEGER NOT NULL);"
		"DELETE FROM temp.hg_merge_new;"
		"DELETE FROM temp.hg_merge_clusters;"
		"INSERT INTO temp.hg_merge_new(content_hash, cluster)"
		"  SELECT s.content_hash, s.cluster FROM " SHARD ".reports s WHERE NOT EXISTS"
		"  (SELECT 1 FROM main.reports r WHERE r.content_hash = s.content_hash);"
		"INSERT INTO temp.hg_merge_clusters(hash, total, fresh)"
		"  SELECT r.cluster, count(*), count(n.content_hash) FROM " SHARD ".reports r"
		"  LEFT JOIN temp.hg_merge_new n ON n.content_hash = r.content_hash GROUP BY r.cluster;");
	int64_t total = 0, fresh = 0;
	if (rc >= 0)
		rc = store_query_int(store, S_MG_COUNT, "SELECT count(*) FROM " SHARD ".reports", &total);
	if (rc >= 0)
		rc = store_query_int(store, S_MG_COUNT_NEW, "SELECT count(*) FROM temp.hg_merge_new", &fresh);
	m->stats->reports_present = total - fresh;
	return rc;
}

/* New clusters, new reports, and the counts of every cluster that got one,
 * recomputed from its reports (as regroup does). */
static int add_reports(struct merge *m)
{
	hg_store *store = m->store;
	int rc = exec_count(store,
		"INSERT INTO main.clusters(hash, kind, title, key_symbol, frames, grouping_version,"
		"  first_seen, last_seen, count, symbolicated)"
		"  SELECT c.hash, c.kind, c.title, c.key_symbol, c.frames, c.grouping_version,"
		"  c.first_seen, c.last_seen, 0, c.symbolicated"
		"  FROM " SHARD ".clusters c JOIN temp.hg_merge_clusters m ON m.hash = c.hash"
		"  WHERE m.fresh > 0 AND NOT EXISTS (SELECT 1 FROM main.clusters x WHERE x.hash = c.hash)"
		"  ORDER BY c.id", &m->stats->clusters_created);
	/* A cluster both stores have gets one title from both, as ingest
	 * does (store_title.c): the same whichever shard is merged first. */
	if (rc >= 0)
		rc = exec_count(store,
			"UPDATE main.clusters SET title = hangar_title(main.clusters.title, s.title)"
			"  FROM " SHARD ".clusters s WHERE s.hash = main.clusters.hash"
			"  AND s.title != main.clusters.title", NULL);
	int64_t orphans = 0;
	if (rc >= 0)
		rc = store_query_int(store, S_MG_ORPHANS,
			     "SELECT count(*) FROM temp.hg_merge_new n WHERE NOT EXISTS"
			     " (SELECT 1 FROM main.clusters c WHERE c.hash = n.cluster)", &orphans);
	if (rc >= 0 && orphans)
		return shard_error(m, HG_EPARSE, "inconsistent store: %s",
				   "reports of clusters it does not have");
	if (rc >= 0)
		rc = exec_count(store,
			"INSERT INTO main.reports(content_hash, source, line, kind, app, version, device,"
			"  scene, time, cost, foreground, cluster, symbolicated, text, ingested_at,"
			"  time_written)"
			"  SELECT s.content_hash, s.source, s.line, s.kind, s.app, s.version, s.device,"
			"  s.scene, s.time, s.cost, s.foreground, s.cluster, s.symbolicated, s.text,"
			"  s.ingested_at, s.time_written"
			"  FROM " SHARD ".reports s JOIN temp.hg_merge_new n"
			"  ON n.content_hash = s.content_hash ORDER BY s.id", &m->stats->reports_added);
	if (rc >= 0)
		rc = store_figures_merge(store, SHARD);
	if (rc >= 0)
		rc = store_facts_merge(store, SHARD);
	if (rc >= 0)
		rc = exec_count(store,
			"UPDATE main.clusters SET"
			" count = (SELECT count(*) FROM main.reports r WHERE r.cluster = clusters.hash),"
			" first_seen = (SELECT min(r.time)"
			"   FROM main.reports r WHERE r.cluster = clusters.hash),"
			" last_seen = (SELECT max(r.time)"
			"   FROM main.reports r WHERE r.cluster = clusters.hash),"
			" symbolicated = coalesce((SELECT min(r.symbolicated) FROM main.reports r"
			"   WHERE r.cluster = clusters.hash), symbolicated)"
			" WHERE hash IN (SELECT hash FROM temp.hg_merge_clusters WHERE fresh > 0)",
			&m->stats->clusters_touched);
	return rc < 0 ? store_check(store, rc, "cannot merge reports") : 0;
}

/* One shard tree added to the store's cluster: its nodes (in id order,
 * parents first) with their symbols mapped to the store's by text. */
static int add_tree(struct merge *m, int64_t shard_cluster, int64_t cluster_id, const char *hash)
{
	hg_store *store = m->store;
	hg_db_stmt *st = db_stmt(store->db, S_MG_TREE,
				 "SELECT nodes FROM " SHARD ".trees WHERE cluster = ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot merge call trees");
	db_bind_int(st, 1, shard_cluster);
	int rc = db_step(st), err = 0;
	struct store_tree_node *nodes = NULL;
	size_t n = 0, bad_at = 0;
	if (rc == DB_ROW)
		err = store_tree_decode(db_col_blob(st, 0), db_col_bytes(st, 0), &nodes, &n, &bad_at);
	db_reset(st);
	if (rc < 0)
		return store_check(store, rc, "cannot merge call trees");
	if (err == HG_EPARSE) {
		char what[96];
		snprintf(what, sizeof what, "cluster %s: its call tree is not readable", hash);
		return shard_error(m, err, "inconsistent store: %s", what);
	}
	struct store_tree_add *adds = n ? malloc(n * sizeof *adds) : NULL;
	if (n && !adds)
		err = HG_ENOMEM;
	for (size_t k = 0; !err && k < n; k++) {
		const struct store_tree_node *t = &nodes[k];
		long parent = -1;
		for (size_t lo = 0, hi = k; t->parent && lo < hi;) { /* sorted by id */
			size_t mid = lo + (hi - lo) / 2;
			if (nodes[mid].id == t->parent) {
				parent = (long)mid;
				break;
			}
			if (nodes[mid].id < t->parent)
				lo = mid + 1;
			else
				hi = mid;
		}
		st = db_stmt(store->db, S_MG_SYMBOL, "SELECT text FROM " SHARD ".symbols WHERE id = ?1");
		if (!st) {
			err = store_fail(store, HG_EIO, "cannot merge call trees");
			break;
		}
		db_bind_int(st, 1, t->symbol);
		rc = db_step(st);
		int64_t symbol = 0;
		if (rc == DB_ROW && db_col_text(st, 0))
			err = store_symbol_id(store, db_col_text(st, 0), &symbol);
		else if (rc >= 0)
			err = shard_error(m, HG_EPARSE, "inconsistent store: %s",
					  "a call-tree node of a symbol it does not have");
		else
			err = store_check(store, rc, "cannot merge call trees");
		db_reset(st);
		adds[k] = (struct store_tree_add){parent, symbol, t->reports, t->total, t->max,
						  t->self, t->key, 0};
	}
	if (!err)
		err = store_tree_merge(store, cluster_id, hash, adds, n);
	free(adds);
	free(nodes);
	return err;
}

/* The trees of the shard clusters whose reports were all new, added to the
 * store's; the others are rebuilt from report texts (rebuild_trees). */
static int add_trees(struct merge *m)
{
	hg_store *store = m->store;
	hg_db_stmt *st = db_stmt(store->db, S_MG_FULL_CLUSTERS,
		"SELECT c.id, mc.id, c.hash FROM " SHARD ".clusters c"
		" JOIN temp.hg_merge_clusters m ON m.hash = c.hash"
		" JOIN main.clusters mc ON mc.hash = c.hash WHERE m.fresh = m.total ORDER BY c.id");
	if (!st)
		return store_fail(store, HG_EIO, "cannot merge call trees");
	struct full {
		int64_t shard_id, id;
		char hash[33];
	} *todo = NULL;
	size_t n = 0, cap = 0;
	int rc, err = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct full *v = realloc(todo, cap * sizeof *v);
			if (!v) {
				rc = DB_ENOMEM;
				break;
			}
			todo = v;
		}
		todo[n].shard_id = db_col_int(st, 0);
		todo[n].id = db_col_int(st, 1);
		snprintf(todo[n].hash, sizeof todo[n].hash, "%s",
			 db_col_text(st, 2) ? db_col_text(st, 2) : "");
		n++;
	}
	db_reset(st);
	if (rc < 0)
		err = store_check(store, rc, "cannot merge call trees");
	for (size_t i = 0; !err && i < n; i++)
		err = add_tree(m, todo[i].shard_id, todo[i].id, todo[i].hash);
	free(todo);
	if (!err)
		m->stats->trees_added = (int64_t)n;
	return err;
}

/* The regroup callback used when the caller gives none: the text read
 * again, without mappings; the signature is not wanted. */
static int read_plain(void *user, const hg_regroup_item *item, hg_report **out, hg_signature *sig)
{
	const hg_store *store = user;
	hg_ctx ctx = *store->ctx;
	ctx.diag = NULL; /* an unreadable report is counted, not told */
	ctx.keep_text = 0;
	hg_report *rep = NULL;
	int rc = hg_report_read_one(&ctx, item->source, item->text, item->len, HG_FORMAT_AUTO, &rep);
	if (rc == HG_ENOMEM)
		return rc;
	memset(sig, 0, sizeof *sig);
	*out = rep;
	return 0;
}

/* The store's ids of one cluster's reports. */
static int cluster_reports(hg_store *store, const char *hash, int64_t **ids, size_t *n)
{
	hg_db_stmt *st = db_stmt(store->db, S_MG_CLUSTER_REPORTS,
				 "SELECT id FROM main.reports WHERE cluster = ?1 ORDER BY id");
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, hash);
	size_t cap = 0;
	int rc;
	while ((rc = db_step(st)) == DB_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			int64_t *v = realloc(*ids, cap * sizeof *v);
			if (!v) {
				rc = DB_ENOMEM;
				break;
			}
			*ids = v;
		}
		(*ids)[(*n)++] = db_col_int(st, 0);
	}
	db_reset(st);
	return rc < 0 ? rc : 0;
}

/* One cluster's tree, emptied and rebuilt from its reports' texts (in the
 * batch, written at commit). */
static int rebuild_tree(struct merge *m, const char *hash, int64_t cluster_id)
{
	hg_store *store = m->store;
	char sql[96];
	snprintf(sql, sizeof sql, "DELETE FROM main.trees WHERE cluster = %lld",
		 (long long)cluster_id);
	int rc = db_exec(store->db, sql);
	int64_t *ids = NULL;
	size_t n = 0, unread = 0;
	if (rc >= 0)
		rc = cluster_reports(store, hash, &ids, &n);
	hg_regroup_fn fn = m->fn ? m->fn : read_plain;
	void *user = m->fn ? m->user : store;
	for (size_t i = 0; rc >= 0 && i < n; i++) {
		char cluster[33];
		hg_report *rep = NULL;
		hg_signature sig;
		rc = store_reread(store, ids[i], fn, user, cluster, &rep, &sig);
		if (rc >= 0 && rep) {
			int err = store_tree_add(store, rep, hash);
			rc = err == HG_ENOMEM ? DB_ENOMEM : err ? DB_ERROR : 0;
		} else if (rc >= 0) {
			unread++;
		}
		hg_report_destroy(rep);
	}
	free(ids);
	if (rc < 0)
		return store_check(store, rc, "cannot rebuild a call tree");
	if (!m->fn)
		hg_diagf(store->ctx, HG_DIAG_WARNING, m->shard, 0, 0, 0,
			 "cluster %s: some of its reports were already stored: its call tree was"
			 " rebuilt from report texts without mappings (it may lack symbols)", hash);
	if (unread)
		hg_diagf(store->ctx, HG_DIAG_WARNING, m->shard, 0, 0, 0,
			 "cluster %s: %zu of its %zu reports could not be read again: its call tree"
			 " leaves them out", hash, unread, n);
	m->stats->trees_rebuilt++;
	return 0;
}

/* The clusters with some reports new and some already stored. */
static int rebuild_trees(struct merge *m)
{
	hg_store *store = m->store;
	hg_db_stmt *st = db_stmt(store->db, S_MG_PARTIAL,
		"SELECT m.hash, c.id FROM temp.hg_merge_clusters m JOIN main.clusters c"
		" ON c.hash = m.hash WHERE m.fresh > 0 AND m.fresh < m.total ORDER BY m.hash");
	if (!st)
		return store_fail(store, HG_EIO, "cannot merge call trees");
	struct partial {
		char hash[33];
		int64_t id;
	} *todo = NULL;
	size_t n = 0, cap = 0;
	int rc, err = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct partial *v = realloc(todo, cap * sizeof *v);
			if (!v) {
				rc = DB_ENOMEM;
				break;
			}
			todo = v;
		}
		snprintf(todo[n].hash, sizeof todo[n].hash, "%s",
			 db_col_text(st, 0) ? db_col_text(st, 0) : "");
		todo[n++].id = db_col_int(st, 1);
	}
	db_reset(st);
	if (rc < 0)
		err = store_check(store, rc, "cannot merge call trees");
	for (size_t i = 0; !err && i < n; i++)
		err = rebuild_tree(m, todo[i].hash, todo[i].id);
	free(todo);
	return err;
}

/* Rejected inputs: a union.  Objects: the ingested row wins, else the
 * later one (ties keep the store's). */
static int add_rejected_and_objects(struct merge *m)
{
	hg_store *store = m->store;
	int rc = exec_count(store,
		"INSERT INTO main.rejected(source, line, reason, text, text_hash, at, size, truncated)"
		"  SELECT source, line, reason, text, text_hash, at, size, truncated FROM " SHARD
		".rejected"
		"  WHERE true ORDER BY id ON CONFLICT(source, line, text_hash) DO NOTHING",
		&m->stats->rejected_added);
	if (rc >= 0)
		rc = exec_count(store,
			"INSERT INTO main.objects(source, key, etag, size, last_modified, status, reports,"
			"  error, attempts, at)"
			"  SELECT source, key, etag, size, last_modified, status, reports, error, attempts,"
			"  at FROM " SHARD ".objects WHERE true ORDER BY source, key"
			"  ON CONFLICT(source, key) DO UPDATE SET etag = excluded.etag,"
			"  size = excluded.size, last_modified = excluded.last_modified,"
			"  status = excluded.status, reports = excluded.reports, error = excluded.error,"
			"  attempts = excluded.attempts, at = excluded.at"
			"  WHERE (excluded.status = 'ingested') > (objects.status = 'ingested')"
			"  OR ((excluded.status = 'ingested') = (objects.status = 'ingested')"
			"  AND excluded.at > objects.at)",
			&m->stats->objects_added);
	return rc < 0 ? store_check(store, rc, "cannot merge rejected inputs and objects") : 0;
}

static int merge_attached(struct merge *m)
{
	int err = check_shard(m);
	if (!err)
		err = hg_store_begin(m->store);
	if (err)
		return err;
	int rc = classify(m);
	if (rc < 0)
		err = store_check(m->store, rc, "cannot merge reports");
	if (!err) /* the dictionaries of the frames add_reports copies */
		err = store_text_merge(m->store, SHARD, m->shard);
	if (!err)
		err = add_reports(m);
	if (!err)
		err = store_rollup_merge_shard(m->store);
	if (!err)
		err = store_cluster_counts_from_rollups(m->store);
	if (!err)
		err = add_trees(m);
	if (!err)
		err = rebuild_trees(m);
	if (!err)
		err = add_rejected_and_objects(m);
	if (err) {
		hg_store_rollback(m->store);
		return err;
	}
	return hg_store_commit(m->store);
}

int hg_store_merge(hg_store *store, const char *shard_path, hg_regroup_fn fn, void *user,
		   hg_merge_stats *stats)
{
	hg_merge_stats local;
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof *stats);
	if (store->in_batch || !shard_path)
		return HG_EINVAL;
	struct merge m = {store, shard_path, fn, user, stats};
	struct stat st;
	if (stat(shard_path, &st) != 0)
		return shard_error(&m, HG_EIO, "cannot open: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return shard_error(&m, HG_EIO, "cannot open: %s", "a folder, not a store");
	int rc = db_attach_ro(store->db, shard_path, SHARD);
	if (rc < 0) {
		int err = rc == DB_ENOMEM ? HG_ENOMEM : rc == DB_EBAD ? HG_EPARSE : HG_EIO;
		const char *why = rc == DB_EBAD ? "not a hangar store (%s)" : "cannot open: %s";
		return shard_error(&m, err, why, db_errmsg(store->db));
	}
	int err = merge_attached(&m);
	if (err)
		memset(stats, 0, sizeof *stats);
	if (db_detach(store->db, SHARD) < 0 && !err)
		err = store_fail(store, HG_EIO, "cannot detach the merged store");
	return err;
}
