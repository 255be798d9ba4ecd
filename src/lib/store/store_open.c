/* Opening a store in its modes (checking that the file is one and
 * migrating its schema), closing it, and checking its integrity. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store_internal.h"
#include "store_rollup.h"
#include "store_text.h"

#define BUSY_TIMEOUT_MS 30000
#define STORE_PAGE_SIZE "65536"

/* The first read failed, in SQLite's words (db_errmsg): said as what
 * stops it.  A writer that cannot open or make the store's -wal cannot
 * write the store; a reader that cannot make its -shm (in a folder it may
 * not write, while a writer may be at work) is told why it cannot read. */
static int first_read_failed(hg_store *store, int rc, bool writer)
{
	const char *why = db_errmsg(store->db);
	enum db_failure f = db_failure(store->db);
	const char *obstacle = writer ? db_write_obstacle(store->path) : NULL;
	if (f == DB_FAIL_CANTOPEN && obstacle) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "cannot write the store: %s (%s)", obstacle, why);
		return HG_EIO;
	}
	if (!writer && db_read_only(store->db) &&
	    (f == DB_FAIL_CANTOPEN || f == DB_FAIL_READONLY)) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "cannot read the store: SQLite needs the index of its write-ahead log "
			 "(its -shm file) beside it and cannot make one in that folder (%s); read "
			 "a copy in a folder you may write", why);
		return HG_EIO;
	}
	return store_check(store, rc, "cannot read the store");
}

/* Is this file ours, and one we can read?  Checked before anything is
 * written, so that a foreign database is left as it was. */
static int check_identity(hg_store *store, bool writer)
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
		err = first_read_failed(store, rc, writer);
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

/* How a reading command opens the store. */
static enum db_mode reader_mode(const char *path)
{
	/* A reader that may write the file opens it read-write but
	 * query-only: SQLite then removes the write-ahead log and its index
	 * when it closes, which a read-only connection leaves behind. */
	if (!db_write_obstacle(path))
		return DB_READ_WRITE;
	/* Else read-only (mode=ro).  In WAL mode that still needs the -shm
	 * beside the store, and makes it when it is not there: on a read-only
	 * mount, or in a folder no one may write to, it cannot.  There, and
	 * only with nothing in a -wal, the store is opened immutable=1 (no
	 * -shm, no locks), which SQLite documents as safe only for a file
	 * that cannot change while it is read: no writer can be at work, for
	 * want of the -wal and -shm it would need to make there (db_frozen).
	 * A folder that its owner, or a service user, may write is not enough:
	 * a writer may come while we read.  A -wal with content is read with
	 * mode=ro (SQLite can, with its -shm there), never skipped as
	 * immutable would. */
	return db_frozen(path) ? DB_IMMUTABLE : DB_READ_ONLY;
}

/* "cannot write the store: why" before the store is opened (no SQLite
 * reason yet); HG_EIO. */
static int write_refused(const hg_ctx *ctx, const char *path, const char *why)
{
	hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "cannot write the store: %s", why);
	return HG_EIO;
}

/* The pragmas of a connection: WAL mode (set once, by a writer: a
 * read-only connection finds it in the file) and the caches. */
static int set_pragmas(hg_store *store, bool read_only)
{
	/* A new store gets 64 KiB pages (SQLite's largest), set before WAL mode
	 * fixes the size: reports are ~1 KB texts written by the hundred
	 * thousand, and with 4 KiB pages a big ingest spent a third of its time
	 * in page-sized reads and writes of the WAL.  A store made before
	 * keeps its pages.  It also gets incremental vacuum, which must be
	 * set before its first table: hangar prune gives the pages it frees
	 * back to the file system (PRAGMA incremental_vacuum); a store made
	 * before is rewritten once by its first prune (store_prune.c). */
	if (store->empty) {
		int err = store_check(store, db_exec(store->db, "PRAGMA page_size = " STORE_PAGE_SIZE ";"
						     " PRAGMA auto_vacuum = INCREMENTAL"),
				      "cannot set the store's page size and vacuum mode");
		if (err)
			return err;
	}
	const char *sql = read_only ? "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY;"
				      " PRAGMA cache_size = -16384;"
				    : "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
				      " PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384;"
				      " PRAGMA wal_autocheckpoint = 8192;";
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= STORE_BUSY_RETRIES && rc == DB_EBUSY; attempt++)
		rc = db_exec(store->db, sql);
	return store_check(store, rc, read_only ? "cannot set up the store for reading"
						: "cannot switch the store to WAL mode");
}

/* One attempt at opening in mode; *stale set to the store's schema
 * version (and the store closed) when a read-only open finds one older
 * than ours. */
static int open_in_mode(const hg_ctx *ctx, const char *path, enum hg_store_mode mode,
			hg_store **out, int64_t *stale)
{
	*out = NULL;
	*stale = 0;
	bool read_only = mode == HG_STORE_READ_ONLY;
	/* Refused before SQLite tries: it would open a file it may not write
	 * read-only without a word, and fail later, at the first write. */
	const char *obstacle = read_only ? NULL : db_write_obstacle(path);
	if (obstacle)
		return write_refused(ctx, path, obstacle);
	hg_store *store = calloc(1, sizeof *store);
	if (!store || !(store->path = strdup(path))) {
		free(store);
		return HG_ENOMEM;
	}
	store->ctx = ctx;
	enum db_mode how = read_only ? reader_mode(path)
			   : mode == HG_STORE_CREATE ? DB_CREATE : DB_READ_WRITE;
	bool writes = how == DB_CREATE || how == DB_READ_WRITE;
	int rc = db_open_mode(path, BUSY_TIMEOUT_MS, how, &store->db);
	int err = 0;
	if (rc == DB_ENOMEM)
		err = HG_ENOMEM;
	else if (rc < 0)
		err = store_fail(store, HG_EIO, "cannot open the store");
	else if (writes && db_read_only(store->db))
		err = write_refused(ctx, path, "SQLite could open it only read-only");
	if (!err && db_define_text_function(store->db, "hangar_title", store_title_merge) != 0)
		err = store_fail(store, HG_EIO, "cannot open the store");
	if (!err)
		err = check_identity(store, !read_only);
	if (!err && store->empty && mode != HG_STORE_CREATE)
		err = HG_ENOENT; /* an SQLite file with nothing in it: no store yet */
	if (!err && !writes && store->version < HG_STORE_SCHEMA_VERSION) {
		*stale = store->version;
		err = HG_EINVAL;
	}
	if (!err && writes)
		err = set_pragmas(store, false);
	if (!err && writes && store->version < HG_STORE_SCHEMA_VERSION)
		err = store_migrate(store);
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
	int64_t stale = 0;
	int err = open_in_mode(ctx, path, mode, out, &stale);
	if (stale) {
		/* Migrated by a writer's connection, closed at once; then read.
		 * Where the store cannot be written, that is said as such, not
		 * as the raw failure of the writer. */
		const char *obstacle = db_write_obstacle(path);
		if (obstacle) {
			hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
				 "store schema version %lld is older than this hangar's (%d) and needs "
				 "migrating, but the store cannot be written (%s): migrate a writable "
				 "copy (any hangar command that opens it does)",
				 (long long)stale, HG_STORE_SCHEMA_VERSION, obstacle);
			return HG_EIO;
		}
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
	store_rollup_discard(store);
	store_symbols_forget(store);
	store_text_forget(store);
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
