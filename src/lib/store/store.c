/* Module store (src/lib/store/): the SQLite cluster store.  Opening,
 * migrations, batches and adding reports (store.c and the store_*.c it
 * names), queries (store_query.c, store_top.c, store_diff.c), merged call
 * trees (store_tree*.c), regroup and merge (store_regroup.c,
 * store_merge.c); db.c is the SQLite wrapper, the only file that sees
 * sqlite3.h.
 * Public header: store.h.
 * Uses: cluster, core, regex, report. */
/* The cluster store: opening (checking and migrating the schema), batches,
 * and adding reports and rejected inputs.  Queries are in store_query.c,
 * the merged call trees in store_tree.c, SQLite itself behind db.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "store_internal.h"

#define BUSY_TIMEOUT_MS 30000
#define BUSY_RETRIES 5
#define STORE_PAGE_SIZE "65536"

static int exec_cached(hg_store *store, int slot, const char *sql);

/* ---- schema and migrations ---- */

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
};

#define N_MIGRATIONS (sizeof migrations / sizeof migrations[0])

_Static_assert(N_MIGRATIONS == HG_STORE_SCHEMA_VERSION, "one migration per schema version");

int store_fail(hg_store *store, int err, const char *what)
{
	const char *why = db_errmsg(store->db);
	hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0, "%s%s%s", what, *why ? ": " : "",
		 why);
	return err;
}

int store_check(hg_store *store, int rc, const char *what)
{
	if (rc >= 0)
		return 0;
	if (rc == DB_ENOMEM)
		return HG_ENOMEM;
	if (rc == DB_EBAD)
		return store_fail(store, HG_EPARSE, what);
	return store_fail(store, HG_EIO, what);
}

int store_query_int(hg_store *store, int slot, const char *sql, int64_t *out)
{
	hg_db_stmt *st = db_stmt(store->db, slot, sql);
	if (!st)
		return DB_ERROR;
	int rc = db_step(st);
	*out = rc == DB_ROW ? db_col_int(st, 0) : 0;
	db_reset(st);
	return rc < 0 ? rc : 0;
}

/* BEGIN IMMEDIATE takes the write lock at once (so that a reader never has
 * to upgrade and deadlock); the busy timeout waits for other writers, and
 * a few retries cover a writer that keeps the lock longer than that. */
static int begin_immediate(hg_store *store)
{
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= BUSY_RETRIES; attempt++) {
		rc = db_exec(store->db, "BEGIN IMMEDIATE");
		if (rc != DB_EBUSY)
			break;
		struct timespec ts = {0, 50000000L * (attempt + 1)};
		nanosleep(&ts, NULL);
	}
	return rc;
}

static int commit(hg_store *store)
{
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= BUSY_RETRIES && rc == DB_EBUSY; attempt++)
		rc = db_exec(store->db, "COMMIT");
	if (rc < 0 && db_in_transaction(store->db))
		db_exec(store->db, "ROLLBACK");
	return rc;
}

/* Applies the migrations from the store's version up to ours, in one
 * transaction.  Another process may have migrated since we looked, so the
 * version is read again under the write lock. */
static int migrate(hg_store *store)
{
	int rc = begin_immediate(store);
	if (rc < 0)
		return store_check(store, rc, "cannot lock the store to set up its schema");
	int64_t version = 0;
	rc = store_query_int(store, S_USER_VERSION, "PRAGMA user_version", &version);
	for (int64_t v = version; rc >= 0 && v < HG_STORE_SCHEMA_VERSION; v++)
		rc = db_exec(store->db, migrations[v]);
	if (rc >= 0 && version > 0 && version < 7)
		rc = store_times_backfill(store);
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
	rc = commit(store);
	return store_check(store, rc, "cannot set up the store's schema");
}

/* Is this file ours, and one we can read?  Checked before anything is
 * written, so that a foreign database is left as it was. */
static int check_identity(hg_store *store)
{
	int64_t app_id = 0, version = 0, tables = 0;
	/* One read transaction: another hangar may be creating this store at
	 * this very moment, and its tables and its id must be seen together. */
	int rc = db_exec(store->db, "BEGIN");
	if (rc >= 0)
		rc = store_query_int(store, S_APP_ID, "PRAGMA application_id", &app_id);
	if (rc >= 0)
		rc = store_query_int(store, S_USER_VERSION, "PRAGMA user_version", &version);
	if (rc >= 0)
		rc = store_query_int(store, S_N_TABLES, "SELECT count(*) FROM sqlite_master", &tables);
	/* Said before the transaction ends: SQLite's reason goes with it. */
	int err = 0;
	if (rc == DB_EBAD)
		err = store_fail(store, HG_EPARSE, "not a hangar store (not an SQLite database, or corrupt)");
	else if (rc < 0)
		err = store_check(store, rc, "cannot read the store");
	if (db_in_transaction(store->db))
		db_exec(store->db, err ? "ROLLBACK" : "COMMIT");
	if (err)
		return err;
	if (app_id != HG_STORE_APPLICATION_ID && (app_id != 0 || version != 0 || tables != 0)) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "not a hangar store (an SQLite database of another application)");
		return HG_EPARSE;
	}
	store->version = version;
	store->empty = version == 0 && tables == 0;
	if (version > HG_STORE_SCHEMA_VERSION) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "store schema version %lld is newer than this hangar's (%d): use a newer hangar",
			 (long long)version, HG_STORE_SCHEMA_VERSION);
		return HG_EPARSE;
	}
	return 0;
}

/* Whether path names something to open: a missing file, or an empty one,
 * holds no store (opening it read-only would not make one either). */
static bool store_exists(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno != ENOENT && errno != ENOTDIR; /* else let the open say why */
	return !S_ISREG(st.st_mode) || st.st_size > 0;
}

static const enum db_mode db_modes[] = {
	[HG_STORE_CREATE] = DB_CREATE,
	[HG_STORE_EXISTING] = DB_READ_WRITE,
	[HG_STORE_READ_ONLY] = DB_READ_ONLY,
};

/* The pragmas of a connection: WAL mode (set once, by a writer: a
 * read-only connection finds it in the file) and the caches. */
static int set_pragmas(hg_store *store, bool read_only)
{
	/* A new store gets 64 KiB pages (SQLite's largest), set before WAL mode
	 * fixes the size: reports are ~1 KB texts written by the hundred
	 * thousand, and with 4 KiB pages a big ingest spent a third of its time
	 * in page-sized reads and writes of the WAL.  A store made before
	 * keeps its pages. */
	if (store->empty) {
		int err = store_check(store, db_exec(store->db, "PRAGMA page_size = " STORE_PAGE_SIZE),
				      "cannot set the store's page size");
		if (err)
			return err;
	}
	const char *sql = read_only ? "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY;"
				      " PRAGMA cache_size = -16384;"
				    : "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
				      " PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384;"
				      " PRAGMA wal_autocheckpoint = 8192;";
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= BUSY_RETRIES && rc == DB_EBUSY; attempt++)
		rc = db_exec(store->db, sql);
	return store_check(store, rc, read_only ? "cannot set up the store for reading"
						: "cannot switch the store to WAL mode");
}

/* One attempt at opening in mode; *stale set (and the store closed) when
 * a read-only open finds a schema older than ours. */
static int open_in_mode(const hg_ctx *ctx, const char *path, enum hg_store_mode mode,
			hg_store **out, bool *stale)
{
	*out = NULL;
	*stale = false;
	hg_store *store = calloc(1, sizeof *store);
	if (!store || !(store->path = strdup(path))) {
		free(store);
		return HG_ENOMEM;
	}
	store->ctx = ctx;
	bool read_only = mode == HG_STORE_READ_ONLY;
	/* A reader that may write the file opens it read-write but
	 * query-only: SQLite then removes the write-ahead log and its index
	 * when it closes, which a read-only connection leaves behind.  A file
	 * it may not write is opened read-only. */
	enum db_mode how = db_modes[mode];
	if (read_only && access(path, W_OK) == 0)
		how = DB_READ_WRITE;
	int rc = db_open_mode(path, BUSY_TIMEOUT_MS, how, &store->db);
	int err = 0;
	if (rc == DB_ENOMEM)
		err = HG_ENOMEM;
	else if (rc < 0)
		err = store_fail(store, HG_EIO, "cannot open the store");
	if (!err && db_define_text_function(store->db, "hangar_title", store_title_merge) != 0)
		err = store_fail(store, HG_EIO, "cannot open the store");
	if (!err)
		err = check_identity(store);
	if (!err && store->empty && mode != HG_STORE_CREATE)
		err = HG_ENOENT; /* an SQLite file with nothing in it: no store yet */
	if (!err && how == DB_READ_ONLY && store->version < HG_STORE_SCHEMA_VERSION) {
		*stale = true;
		err = HG_EINVAL;
	}
	if (!err && how != DB_READ_ONLY)
		err = set_pragmas(store, false);
	if (!err && how != DB_READ_ONLY && store->version < HG_STORE_SCHEMA_VERSION)
		err = migrate(store);
	if (!err && read_only)
		err = set_pragmas(store, true);
	if (!err && db_predicate(store->db, "hg_scene_match", store_scene_match, store) < 0)
		err = store_fail(store, HG_ENOMEM, "cannot register hg_scene_match");
	if (err) {
		hg_store_close(store);
		return err;
	}
	*out = store;
	return 0;
}

int hg_store_open_mode(const hg_ctx *ctx, const char *path, enum hg_store_mode mode,
		       hg_store **out)
{
	*out = NULL;
	if ((unsigned)mode > HG_STORE_READ_ONLY)
		return HG_EINVAL;
	if (mode != HG_STORE_CREATE && !store_exists(path))
		return HG_ENOENT;
	bool stale = false;
	int err = open_in_mode(ctx, path, mode, out, &stale);
	if (stale) {
		/* Migrated by a writer's connection, closed at once; then read. */
		hg_store *writer = NULL;
		err = open_in_mode(ctx, path, HG_STORE_EXISTING, &writer, &stale);
		hg_store_close(writer);
		if (!err)
			err = open_in_mode(ctx, path, mode, out, &stale);
	}
	return err;
}

int hg_store_open(const hg_ctx *ctx, const char *path, hg_store **out)
{
	return hg_store_open_mode(ctx, path, HG_STORE_CREATE, out);
}

void hg_store_close(hg_store *store)
{
	if (!store)
		return;
	store_tree_discard(store);
	store_cluster_discard(store);
	store_symbols_forget(store);
	if (store->db && db_in_transaction(store->db))
		db_exec(store->db, "ROLLBACK");
	db_close(store->db);
	free(store->path);
	free(store);
}

int hg_store_check(hg_store *store)
{
	hg_db_stmt *st = db_stmt(store->db, S_INTEGRITY, "PRAGMA integrity_check");
	if (!st)
		return store_fail(store, HG_EPARSE, "cannot check the store");
	int rc, bad = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		const char *msg = db_col_text(st, 0);
		if (msg && strcmp(msg, "ok") == 0)
			continue;
		if (bad++ < 10)
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0, "integrity: %s",
				 msg ? msg : "?");
	}
	db_reset(st);
	if (rc < 0)
		return store_check(store, rc == DB_ERROR ? DB_EBAD : rc, "cannot check the store");
	return bad ? HG_EPARSE : 0;
}

/* ---- batches ---- */

int hg_store_begin(hg_store *store)
{
	if (store->in_batch)
		return HG_EINVAL;
	int rc = begin_immediate(store);
	if (rc < 0)
		return store_check(store, rc, "cannot begin a batch");
	store->in_batch = true;
	return 0;
}

int hg_store_commit(hg_store *store)
{
	if (!store->in_batch)
		return HG_EINVAL;
	store->in_batch = false;
	int err = store_cluster_flush(store);
	if (!err)
		err = store_tree_flush(store);
	else
		store_tree_discard(store);
	if (err) {
		store_symbols_forget(store);
		db_exec(store->db, "ROLLBACK");
		return err;
	}
	return store_check(store, commit(store), "cannot commit a batch");
}

int hg_store_checkpoint(hg_store *store)
{
	return store_check(store, exec_cached(store, S_CHECKPOINT, "PRAGMA wal_checkpoint(PASSIVE)"),
			   "cannot copy the write-ahead log into the store");
}

void hg_store_set_bulk(hg_store *store, bool bulk)
{
	store->bulk = bulk;
}

int hg_store_rollback(hg_store *store)
{
	if (!store->in_batch)
		return HG_EINVAL;
	store->in_batch = false;
	store_tree_discard(store);
	store_cluster_discard(store);
	store_symbols_forget(store);
	return store_check(store, db_exec(store->db, "ROLLBACK"), "cannot roll back a batch");
}

/* ---- adding ---- */

static void sha256_hex(const char *text, size_t len, char out[65])
{
	unsigned char md[32];
	hg_sha256(text, len, md);
	hg_hex_digest(md, 32, out);
}

static int64_t report_cost(const hg_report *rep)
{
	return rep->stack_cost > rep->cost ? rep->stack_cost : rep->cost;
}

/* Inserts the report unless its content hash is stored; *when is set to
 * when_buf, which gets its time in the store's form ("" when the report's
 * time is unknown: never the ingest time, which would make an old report
 * look new), or to NULL for a duplicate.  Both times are computed
 * here, not by SQL in the statement: per report, that was a good part of
 * a big ingest. */
static int insert_report(hg_store *store, const hg_report *rep, const hg_signature *sig,
			 const char *hash, const char *text, size_t len, char when_buf[32],
			 const char **when)
{
	*when = NULL;
	char time[32], now[32];
	int err = store_time_normalize(store, rep->time, time);
	if (err)
		return DB_ERROR;
	store_time_now(now);
	hg_db_stmt *st = db_stmt(store->db, S_INSERT_REPORT,
		"INSERT INTO reports(content_hash, source, line, kind, app, version, device, scene,"
		" time, cost, foreground, cluster, symbolicated, text, ingested_at, time_written)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?15, ?10, ?11, ?12, ?13, ?14, ?16, ?9)"
		" ON CONFLICT(content_hash) DO NOTHING");
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, hash);
	db_bind_text(st, 2, rep->source ? rep->source : "");
	db_bind_int(st, 3, rep->line);
	db_bind_text(st, 4, hg_report_kind_name(rep->kind));
	db_bind_text(st, 5, rep->process);
	db_bind_text(st, 6, rep->app_version);
	db_bind_text(st, 7, rep->device);
	db_bind_text(st, 8, rep->scene);
	db_bind_text(st, 9, rep->time_written ? rep->time_written : rep->time);
	db_bind_int(st, 10, report_cost(rep));
	if (rep->foreground >= 0)
		db_bind_int(st, 11, rep->foreground);
	db_bind_text(st, 12, sig->hash);
	db_bind_int(st, 13, sig->symbolicated);
	db_bind_blob(st, 14, text, len);
	db_bind_text(st, 15, time[0] ? time : NULL);
	db_bind_text(st, 16, now);
	int rc = db_step(st);
	db_reset(st);
	if (rc >= 0 && db_changes(store->db) > 0) {
		memcpy(when_buf, time, 32);
		*when = when_buf;
	}
	return rc;
}

/* A statement without parameters or rows, prepared once: a savepoint per
 * report is cheap, parsing its SQL every time is not. */
static int exec_cached(hg_store *store, int slot, const char *sql)
{
	hg_db_stmt *st = db_stmt(store->db, slot, sql);
	if (!st)
		return DB_ERROR;
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

struct hg_store_prep {
	char hash[65];                 /* SHA-256 of the text */
	struct store_tree_prep *tree;  /* NULL: no tree */
};

int hg_store_prepare(const hg_report *rep, const char *text, size_t len, hg_store_prep **out)
{
	return hg_store_prepare_with(rep, text, len, NULL, out);
}

int hg_store_prepare_with(const hg_report *rep, const char *text, size_t len,
			  hg_store_symtab *tab, hg_store_prep **out)
{
	*out = NULL;
	if (!rep || rep->error || !text)
		return HG_EINVAL;
	hg_store_prep *p = calloc(1, sizeof *p);
	if (!p)
		return HG_ENOMEM;
	sha256_hex(text, len, p->hash);
	int err = store_tree_prepare(rep, tab, &p->tree);
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

void hg_store_prep_destroy(hg_store_prep *p)
{
	if (!p)
		return;
	store_tree_prep_destroy(p->tree);
	free(p);
}

int hg_store_add_report(hg_store *store, const hg_report *rep, const hg_signature *sig,
			const char *text, size_t len, bool *duplicate)
{
	*duplicate = false;
	hg_store_prep *prep;
	int err = hg_store_prepare(rep, text, len, &prep);
	if (!err)
		err = hg_store_add_prepared(store, rep, sig, text, len, prep, duplicate);
	hg_store_prep_destroy(prep);
	return err;
}

/* One report, all or nothing: a savepoint inside the caller's batch, or a
 * transaction of its own. */
int hg_store_add_prepared(hg_store *store, const hg_report *rep, const hg_signature *sig,
			  const char *text, size_t len, const hg_store_prep *prep, bool *duplicate)
{
	*duplicate = false;
	if (!rep || rep->error || !sig || !text || !prep)
		return HG_EINVAL;
	const char *hash = prep->hash;
	bool own = !store->in_batch;
	int err = own ? hg_store_begin(store) : 0;
	if (err)
		return err;
	char when_buf[32];
	const char *when = NULL;
	bool savepoint = !store->bulk || own;
	int rc = savepoint ? exec_cached(store, S_SAVEPOINT, "SAVEPOINT hg_add") : 0;
	if (rc >= 0)
		rc = insert_report(store, rep, sig, hash, text, len, when_buf, &when);
	if (rc >= 0 && !when)
		*duplicate = true;
	bool marked = false;
	if (rc >= 0 && when && store->mark_pending) {
		rc = store_mark_ingest_now(store);
		marked = rc >= 0;
	}
	if (rc >= 0 && !*duplicate) {
		/* Both in memory until commit; the cluster last, as it cannot
		 * fail but for ENOMEM (after which the batch is rolled back). */
		err = store_tree_add_prepared(store, prep->tree, sig->hash);
		if (!err)
			err = store_cluster_add(store, rep, sig, when[0] ? when : NULL);
		rc = err ? DB_ERROR : 0;
	}
	if (rc >= 0 && savepoint)
		rc = exec_cached(store, S_RELEASE, "RELEASE hg_add");
	if (rc >= 0) {
		store->mark_pending = store->mark_pending && !marked;
	} else {
		if (!err)
			err = store_check(store, rc, "cannot add a report");
		if (savepoint) {
			exec_cached(store, S_ROLLBACK_TO, "ROLLBACK TO hg_add");
			exec_cached(store, S_RELEASE, "RELEASE hg_add");
		}
		store_symbols_forget(store); /* ids it gave may be rolled back */
		*duplicate = false;
	}
	if (own) {
		int cerr = err ? hg_store_rollback(store) : hg_store_commit(store);
		err = err ? err : cerr;
	}
	return err;
}

int hg_store_add_rejected(hg_store *store, const char *source, long line, const char *reason,
			  const char *text, size_t len)
{
	char hash[65];
	if (!text)
		len = 0;
	sha256_hex(text ? text : "", len, hash); /* of all of it: the same input is one row */
	size_t kept = len < HG_STORE_REJECTED_MAX_BYTES ? len : HG_STORE_REJECTED_MAX_BYTES;
	hg_db_stmt *st = db_stmt(store->db, S_INSERT_REJECTED,
		"INSERT INTO rejected(source, line, reason, text, text_hash, at, size, truncated)"
		" VALUES(?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?6, ?7)"
		" ON CONFLICT(source, line, text_hash) DO NOTHING");
	if (!st)
		return store_fail(store, HG_EIO, "cannot record a rejected input");
	db_bind_text(st, 1, source ? source : "");
	db_bind_int(st, 2, line);
	db_bind_text(st, 3, reason ? reason : "");
	db_bind_blob(st, 4, text, kept);
	db_bind_text(st, 5, hash);
	db_bind_int(st, 6, (int64_t)len);
	db_bind_int(st, 7, kept < len);
	int rc = db_step(st);
	db_reset(st);
	return store_check(store, rc, "cannot record a rejected input");
}
