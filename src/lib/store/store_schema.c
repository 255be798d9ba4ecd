/* The store's schema: the migrations that take a store from any earlier
 * version to ours, and applying them. */
#include <stdio.h>

#include "store_internal.h"
#include "store_rollup.h"

/* Forward migrations: step i takes a store from version i to i + 1.  Each
 * runs inside the transaction that also sets user_version, so a store is
 * always at one version or the next, never between. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE meta ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT);"
	"CREATE TABLE clusters ("
	"  hash TEXT PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  title TEXT NOT NULL,"
	"  key_symbol TEXT,"
	"  frames TEXT NOT NULL,"
	"  grouping_version INTEGER NOT NULL,"
	"  first_seen TEXT NOT NULL,"
	"  last_seen TEXT NOT NULL,"
	"  count INTEGER NOT NULL DEFAULT 0,"
	"  symbolicated INTEGER NOT NULL);"
	"CREATE TABLE reports ("
	"  id INTEGER PRIMARY KEY,"
	"  content_hash TEXT NOT NULL UNIQUE,"
	"  source TEXT NOT NULL,"
	"  line INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  app TEXT,"
	"  version TEXT,"
	"  device TEXT,"
	"  scene TEXT,"
	"  time TEXT,"
	"  cost INTEGER NOT NULL,"
	"  foreground INTEGER,"
	"  cluster TEXT NOT NULL,"
	"  symbolicated INTEGER NOT NULL,"
	"  text BLOB NOT NULL,"
	"  ingested_at TEXT NOT NULL);"
	"CREATE INDEX reports_by_cluster ON reports(cluster, cost);"
	"CREATE TABLE tree_nodes ("
	"  id INTEGER PRIMARY KEY,"
	"  cluster TEXT NOT NULL,"
	"  parent INTEGER NOT NULL,"
	"  symbol TEXT NOT NULL,"
	"  reports INTEGER NOT NULL,"
	"  total_cost INTEGER NOT NULL,"
	"  max_cost INTEGER NOT NULL,"
	"  self_cost INTEGER NOT NULL,"
	"  on_key_path INTEGER NOT NULL,"
	"  UNIQUE(cluster, parent, symbol));"
	"CREATE TABLE rejected ("
	"  id INTEGER PRIMARY KEY,"
	"  source TEXT NOT NULL,"
	"  line INTEGER NOT NULL,"
	"  reason TEXT NOT NULL,"
	"  text BLOB NOT NULL,"
	"  text_hash TEXT NOT NULL,"
	"  at TEXT NOT NULL,"
	"  UNIQUE(source, line, text_hash));",
	/* 1 -> 2: merged trees keyed by integers (cluster id, symbol id from a
	 * symbols table), four times smaller, which is most of what a big
	 * ingest writes; the `tree` view shows them with their text.  Times
	 * in one sortable form (STORE_TIME_SQL), as written in time_written. */
	"CREATE TABLE symbols ("
	"  id INTEGER PRIMARY KEY,"
	"  text TEXT NOT NULL UNIQUE);"
	"CREATE TABLE clusters_v2 ("
	"  id INTEGER PRIMARY KEY,"
	"  hash TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL,"
	"  title TEXT NOT NULL,"
	"  key_symbol TEXT,"
	"  frames TEXT NOT NULL,"
	"  grouping_version INTEGER NOT NULL,"
	"  first_seen TEXT NOT NULL,"
	"  last_seen TEXT NOT NULL,"
	"  count INTEGER NOT NULL DEFAULT 0,"
	"  symbolicated INTEGER NOT NULL);"
	"INSERT INTO clusters_v2(hash, kind, title, key_symbol, frames, grouping_version,"
	"  first_seen, last_seen, count, symbolicated)"
	"  SELECT hash, kind, title, key_symbol, frames, grouping_version,"
	"  coalesce(" STORE_TIME_SQL("first_seen") ", first_seen),"
	"  coalesce(" STORE_TIME_SQL("last_seen") ", last_seen), count, symbolicated"
	"  FROM clusters ORDER BY rowid;"
	"INSERT OR IGNORE INTO symbols(text) SELECT symbol FROM tree_nodes ORDER BY id;"
	"CREATE TABLE tree_nodes_v2 ("
	"  id INTEGER PRIMARY KEY,"
	"  cluster INTEGER NOT NULL,"
	"  parent INTEGER NOT NULL,"
	"  symbol INTEGER NOT NULL,"
	"  reports INTEGER NOT NULL,"
	"  total_cost INTEGER NOT NULL,"
	"  max_cost INTEGER NOT NULL,"
	"  self_cost INTEGER NOT NULL,"
	"  on_key_path INTEGER NOT NULL,"
	"  UNIQUE(cluster, parent, symbol));"
	"INSERT INTO tree_nodes_v2 SELECT t.id, c.id, t.parent, s.id, t.reports, t.total_cost,"
	"  t.max_cost, t.self_cost, t.on_key_path FROM tree_nodes t"
	"  JOIN clusters_v2 c ON c.hash = t.cluster JOIN symbols s ON s.text = t.symbol;"
	"DROP TABLE tree_nodes;"
	"ALTER TABLE tree_nodes_v2 RENAME TO tree_nodes;"
	"DROP TABLE clusters;"
	"ALTER TABLE clusters_v2 RENAME TO clusters;"
	"ALTER TABLE reports ADD COLUMN time_written TEXT;"
	"UPDATE reports SET time_written = time, time = " STORE_TIME_SQL("time") ";"
	"CREATE VIEW tree AS SELECT n.id, c.hash AS cluster, n.parent, s.text AS symbol,"
	"  n.reports, n.total_cost, n.max_cost, n.self_cost, n.on_key_path"
	"  FROM tree_nodes n JOIN clusters c ON c.id = n.cluster JOIN symbols s ON s.id = n.symbol;",
	/* 2 -> 3: the objects of remote sources (S3, HTTP) already read or
	 * that failed, so that the next run fetches only what is new or
	 * changed and retries what failed. */
	"CREATE TABLE objects ("
	"  source TEXT NOT NULL,"
	"  key TEXT NOT NULL,"
	"  etag TEXT,"
	"  size INTEGER,"
	"  last_modified TEXT,"
	"  status TEXT NOT NULL,"
	"  reports INTEGER NOT NULL DEFAULT 0,"
	"  error TEXT,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  at TEXT NOT NULL,"
	"  PRIMARY KEY (source, key));",
	/* 3 -> 4: the clusters' index covers what top, show and diff read of
	 * each report, so that they never read the report texts beside. */
	"DROP INDEX reports_by_cluster;"
	"CREATE INDEX reports_by_cluster ON reports(cluster, cost, device, version, time,"
	"  ingested_at);",
	/* 4 -> 5: each cluster's merged tree in one row, a JSON array of its
	 * nodes (store_tree_json.c), not a row per node: a big ingest wrote a
	 * third of a million node rows, most of its time.  Node ids are kept;
	 * the `tree` view shows the same rows as before. */
	"CREATE TABLE trees ("
	"  cluster INTEGER PRIMARY KEY,"
	"  nodes TEXT NOT NULL);"
	"INSERT INTO trees(cluster, nodes)"
	"  SELECT cluster, json_group_array(json(node)) FROM (SELECT cluster, id,"
	"  json_array(id, parent, symbol, reports, total_cost, max_cost, self_cost,"
	"  on_key_path) AS node FROM tree_nodes ORDER BY cluster, id) GROUP BY cluster;"
	"DROP VIEW tree;"
	"DROP TABLE tree_nodes;"
	"CREATE VIEW tree AS SELECT json_extract(n.value, '$[0]') AS id, c.hash AS cluster,"
	"  json_extract(n.value, '$[1]') AS parent, s.text AS symbol,"
	"  json_extract(n.value, '$[3]') AS reports, json_extract(n.value, '$[4]') AS total_cost,"
	"  json_extract(n.value, '$[5]') AS max_cost, json_extract(n.value, '$[6]') AS self_cost,"
	"  json_extract(n.value, '$[7]') AS on_key_path"
	"  FROM trees t JOIN clusters c ON c.id = t.cluster JOIN json_each(t.nodes) n"
	"  JOIN symbols s ON s.id = json_extract(n.value, '$[2]');",
	/* 5 -> 6: a rejected input keeps at most HG_STORE_REJECTED_MAX_BYTES
	 * of its bytes, with its whole size and whether it was cut; text_hash
	 * is, as before, the SHA-256 of the whole input. */
	"ALTER TABLE rejected ADD COLUMN size INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE rejected ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;"
	"UPDATE rejected SET size = length(CAST(text AS BLOB));",
	/* 6 -> 7: a cluster's first_seen and last_seen come from its reports'
	 * own times, NULL while none of them has one (they were the ingest
	 * time then).  SQLite cannot drop a NOT NULL: the table is copied
	 * with its ids (trees refer to them).  store_times_backfill, after
	 * the migrations, reads the times earlier versions could not and sets
	 * both columns again from the reports. */
	"DROP VIEW tree;"
	"CREATE TABLE clusters_v7 ("
	"  id INTEGER PRIMARY KEY,"
	"  hash TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL,"
	"  title TEXT NOT NULL,"
	"  key_symbol TEXT,"
	"  frames TEXT NOT NULL,"
	"  grouping_version INTEGER NOT NULL,"
	"  first_seen TEXT,"
	"  last_seen TEXT,"
	"  count INTEGER NOT NULL DEFAULT 0,"
	"  symbolicated INTEGER NOT NULL);"
	"INSERT INTO clusters_v7 SELECT id, hash, kind, title, key_symbol, frames, grouping_version,"
	"  first_seen, last_seen, count, symbolicated FROM clusters ORDER BY id;"
	"DROP TABLE clusters;"
	"ALTER TABLE clusters_v7 RENAME TO clusters;"
	"CREATE VIEW tree AS SELECT json_extract(n.value, '$[0]') AS id, c.hash AS cluster,"
	"  json_extract(n.value, '$[1]') AS parent, s.text AS symbol,"
	"  json_extract(n.value, '$[3]') AS reports, json_extract(n.value, '$[4]') AS total_cost,"
	"  json_extract(n.value, '$[5]') AS max_cost, json_extract(n.value, '$[6]') AS self_cost,"
	"  json_extract(n.value, '$[7]') AS on_key_path"
	"  FROM trees t JOIN clusters c ON c.id = t.cluster JOIN json_each(t.nodes) n"
	"  JOIN symbols s ON s.id = json_extract(n.value, '$[2]');",
	/* 7 -> 8: the figures of FPS and startup reports, as numbers the
	 * queries aggregate (store_figures.c), a row per such report; and
	 * whether a report's cost was measured (an FPS report's was not: its
	 * cost 0 means unknown).  store_figures_backfill, after the
	 * migrations, reads the earlier reports' figures from their texts and
	 * gives a startup its total as its cost. */
	"CREATE TABLE IF NOT EXISTS figures ("
	"  report INTEGER PRIMARY KEY,"
	"  cost_known INTEGER NOT NULL,"
	"  start TEXT,"
	"  total INTEGER,"
	"  total_from TEXT,"
	"  application_create INTEGER,"
	"  stage_between_app_and_activity INTEGER,"
	"  first_activity_create INTEGER,"
	"  fps REAL,"
	"  frames INTEGER,"
	"  frozen INTEGER,"
	"  high INTEGER);",
	/* 8 -> 9: per report, what the cluster page breaks a cluster down by
	 * (store_facts.c): OS, model and device class as one label each, the
	 * ANR type, what blocks the blamed thread, the variant (a hash of the
	 * full blamed path) with its entry frame, and what was missing to name
	 * frames.  A table of its own, not columns of reports: a column added
	 * there lies past the text and reading it reads the text's pages.
	 * store_facts_backfill, after the migrations, reads them from the
	 * stored texts (variant and lacks need the mappings: unknown, NULL,
	 * until `hangar regroup` names the reports again). */
	"CREATE TABLE IF NOT EXISTS report_facts ("
	"  report INTEGER PRIMARY KEY,"
	"  os TEXT,"
	"  model TEXT,"
	"  device_class TEXT,"
	"  anr_type TEXT,"
	"  blocker TEXT,"
	"  blocker_kind TEXT,"
	"  variant TEXT,"
	"  variant_frame TEXT,"
	"  lacks TEXT);",
	/* 9 -> 10: rollups (store_rollup.h): per cluster, UTC day and app
	 * version, the reports' count, cost histogram, devices and first and
	 * last seen, which top, diff and show's summary read instead of the
	 * reports; day and version NULL as the reports' are, hence a rowid
	 * table with an index rather than a primary key.  reports_by_time:
	 * the reports of a window's partial first and last days, and prune's
	 * old reports; reports_by_kind: the digest's totals by kind, counted
	 * in the index, not across the report texts beside each row.  store_rollup_rebuild, after the migrations, fills the
	 * rollups from the reports. */
	"CREATE TABLE IF NOT EXISTS rollups ("
	"  cluster TEXT NOT NULL,"
	"  day TEXT,"
	"  version TEXT,"
	"  reports INTEGER NOT NULL,"
	"  no_device INTEGER NOT NULL,"
	"  cost_max INTEGER,"
	"  first TEXT,"
	"  last TEXT,"
	"  costs BLOB NOT NULL,"
	"  devices BLOB NOT NULL,"
	"  fig_n INTEGER NOT NULL DEFAULT 0,"
	"  unmeasured INTEGER NOT NULL DEFAULT 0,"
	"  startups INTEGER NOT NULL DEFAULT 0,"
	"  cold INTEGER NOT NULL DEFAULT 0,"
	"  warm INTEGER NOT NULL DEFAULT 0,"
	"  fps_n INTEGER NOT NULL DEFAULT 0,"
	"  fps REAL NOT NULL DEFAULT 0,"
	"  frames INTEGER NOT NULL DEFAULT 0,"
	"  frozen INTEGER NOT NULL DEFAULT 0,"
	"  high INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS rollups_by_cluster ON rollups(cluster, day, version);"
	"CREATE INDEX IF NOT EXISTS reports_by_time ON reports(time);"
	"CREATE INDEX IF NOT EXISTS reports_by_kind ON reports(kind);",
	/* 10 -> 11: the rollups' facets (rollup_facets.h): what the cluster
	 * page and hangar coverage break a cluster's reports down by, kept
	 * as reports are added, so that a page reads a row per day and
	 * version, not its reports; NULL where unknown (days pruned before).
	 * store_rollup_rebuild fills them from the reports. */
	"ALTER TABLE rollups ADD COLUMN facets BLOB;",
};

#define N_MIGRATIONS (sizeof migrations / sizeof migrations[0])

_Static_assert(N_MIGRATIONS == HG_STORE_SCHEMA_VERSION, "one migration per schema version");

/* Applies the migrations from the store's version up to ours, in one
 * transaction.  Another process may have migrated since we looked, so the
 * version is read again under the write lock. */
int store_migrate(hg_store *store)
{
	int rc = store_begin_immediate(store);
	if (rc < 0)
		return store_check(store, rc, "cannot lock the store to set up its schema");
	int64_t version = 0;
	rc = store_query_int(store, S_USER_VERSION, "PRAGMA user_version", &version);
	for (int64_t v = version; rc >= 0 && v < HG_STORE_SCHEMA_VERSION; v++) {
		/* ADD COLUMN has no IF NOT EXISTS: a store whose version was
		 * set back (tests do) has the column already */
		int64_t has = 0;
		if (v == 10)
			rc = store_query_int(store, S_SCHEMA_HAS_FACETS,
					     "SELECT count(*) FROM pragma_table_info('rollups')"
					     " WHERE name = 'facets'", &has);
		if (rc >= 0 && !has)
			rc = db_exec(store->db, migrations[v]);
	}
	if (rc >= 0 && version > 0 && version < 7)
		rc = store_times_backfill(store);
	if (rc >= 0 && version > 0 && version < 8)
		rc = store_figures_backfill(store);
	if (rc >= 0 && version > 0 && version < 9)
		rc = store_facts_backfill(store);
	if (rc >= 0 && version > 0 && version < 11)
		rc = store_rollup_rebuild(store, NULL) ? DB_ERROR : 0;
	if (rc >= 0 && version < HG_STORE_SCHEMA_VERSION) {
		char sql[160];
		snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
			 HG_STORE_APPLICATION_ID, HG_STORE_SCHEMA_VERSION);
		rc = db_exec(store->db, sql);
	}
	if (rc >= 0) {
		hg_db_stmt *st = db_stmt(store->db, S_META_SET,
					 "INSERT INTO meta(key, value) VALUES(?1, ?2) "
					 "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
		rc = st ? 0 : DB_ERROR;
		if (st && version < HG_STORE_SCHEMA_VERSION) {
			db_bind_text(st, 1, "migrated_by");
			db_bind_text(st, 2, "hangar " HG_VERSION);
			rc = db_step(st);
		}
		db_reset(st);
	}
	if (rc < 0) {
		int err = store_check(store, rc, "cannot set up the store's schema");
		db_exec(store->db, "ROLLBACK");
		return err;
	}
	rc = store_commit(store);
	return store_check(store, rc, "cannot set up the store's schema");
}
