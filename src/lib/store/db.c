/* The SQLite wrapper (db.h): the only file that includes sqlite3.h. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"

struct hg_db {
	sqlite3 *conn;
	enum db_mode mode;
	sqlite3_stmt *stmts[DB_MAX_STMTS];
};

/* An hg_db_stmt* is the sqlite3_stmt* itself, never dereferenced outside. */
#define ST(s) ((sqlite3_stmt *)(void *)(s))

static int map_rc(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
		return DB_DONE;
	case SQLITE_ROW:
		return DB_ROW;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return DB_EBUSY;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return DB_EBAD;
	case SQLITE_NOMEM:
		return DB_ENOMEM;
	default:
		return DB_ERROR;
	}
}

/* SQLite's memory statistics take a global mutex on every allocation it
 * makes, which was a tenth of a big ingest's writer thread; nothing reads
 * them.  Set once, before SQLite initializes (after, the call is refused
 * and changes nothing). */
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void configure_sqlite(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int open_flags(enum db_mode mode)
{
	switch (mode) {
	case DB_READ_ONLY:
	case DB_IMMUTABLE: return SQLITE_OPEN_READONLY;
	case DB_READ_WRITE: return SQLITE_OPEN_READWRITE;
	case DB_CREATE: break;
	}
	return SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
}

static void call_text_function(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	char *(*fn)(const char *, const char *) = (char *(*)(const char *, const char *))
		(uintptr_t)sqlite3_user_data(cx);
	const char *a = argc == 2 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
	const char *b = argc == 2 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
	if (!a || !b) {
		sqlite3_result_null(cx);
		return;
	}
	char *out = fn(a, b);
	if (out)
		sqlite3_result_text(cx, out, -1, free);
	else
		sqlite3_result_error_nomem(cx);
}

int db_define_text_function(hg_db *db, const char *name, char *(*fn)(const char *, const char *))
{
	int rc = sqlite3_create_function_v2(db->conn, name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					    (void *)(uintptr_t)fn, call_text_function, NULL, NULL,
					    NULL);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

/* "file:" + path with the characters a URI gives a meaning escaped, +
 * query ("?mode=ro"); an absolute path gets the empty authority
 * ("file:///..."). */
static char *file_uri(const char *path, const char *query)
{
	size_t n = strlen(path), cap = 3 * n + strlen(query) + 16, at = 0;
	char *uri = malloc(cap);
	if (!uri)
		return NULL;
	at += (size_t)snprintf(uri, cap, "%s", path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		if (*s == '%' || *s == '?' || *s == '#' || *s < 0x20 || *s == 0x7f)
			at += (size_t)snprintf(uri + at, cap - at, "%%%02X", *s);
		else
			uri[at++] = (char)*s;
	}
	snprintf(uri + at, cap - at, "%s", query);
	return uri;
}

int db_open(const char *path, int busy_ms, hg_db **out)
{
	return db_open_mode(path, busy_ms, DB_CREATE, out);
}

int db_open_mode(const char *path, int busy_ms, enum db_mode mode, hg_db **out)
{
	pthread_once(&config_once, configure_sqlite);
	*out = NULL;
	hg_db *db = calloc(1, sizeof *db);
	if (!db)
		return DB_ENOMEM;
	db->mode = mode;
	/* URIs are on so that db_attach can ask for a read-only file; a plain
	 * path that happens to begin with "file:" stays a path.  Immutable is
	 * said only in a URI. */
	char *name = NULL;
	if (mode == DB_IMMUTABLE) {
		name = file_uri(path, "?mode=ro&immutable=1");
	} else if (strncmp(path, "file:", 5) == 0) {
		size_t n = strlen(path);
		if ((name = malloc(n + 3))) {
			memcpy(name, "./", 2);
			memcpy(name + 2, path, n + 1);
		}
	}
	if (!name && (mode == DB_IMMUTABLE || strncmp(path, "file:", 5) == 0)) {
		free(db);
		return DB_ENOMEM;
	}
	int rc = sqlite3_open_v2(name ? name : path, &db->conn,
				 open_flags(mode) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
				 NULL);
	free(name);
	if (!db->conn) {
		free(db);
		return DB_ENOMEM;
	}
	*out = db;
	if (rc != SQLITE_OK)
		return map_rc(rc);
	sqlite3_extended_result_codes(db->conn, 0);
	sqlite3_busy_timeout(db->conn, busy_ms);
	return 0;
}

void db_close(hg_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < DB_MAX_STMTS; i++)
		sqlite3_finalize(db->stmts[i]);
	sqlite3_close_v2(db->conn);
	free(db);
}

int db_attach_ro(hg_db *db, const char *path, const char *schema)
{
	char *uri = file_uri(path, "?mode=ro");
	char sql[96];
	snprintf(sql, sizeof sql, "ATTACH DATABASE ?1 AS \"%s\"", schema);
	sqlite3_stmt *st = NULL;
	int rc = uri ? sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) : SQLITE_NOMEM;
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	free(uri);
	return map_rc(rc);
}

int db_detach(hg_db *db, const char *schema)
{
	char sql[96];
	snprintf(sql, sizeof sql, "DETACH DATABASE \"%s\"", schema);
	return db_exec(db, sql);
}

const char *db_errmsg(const hg_db *db)
{
	if (!db || !db->conn)
		return "out of memory";
	/* After a later call that worked, SQLite's message is "not an error":
	 * no reason at all is better than that one. */
	return sqlite3_errcode(db->conn) == SQLITE_OK ? "" : sqlite3_errmsg(db->conn);
}

enum db_failure db_failure(const hg_db *db)
{
	if (!db || !db->conn)
		return DB_FAIL_OTHER;
	switch (sqlite3_errcode(db->conn) & 0xff) {
	case SQLITE_OK: return DB_FAIL_NONE;
	case SQLITE_CANTOPEN: return DB_FAIL_CANTOPEN;
	case SQLITE_READONLY: return DB_FAIL_READONLY;
	case SQLITE_FULL: return DB_FAIL_FULL;
	default: return DB_FAIL_OTHER;
	}
}

bool db_read_only(const hg_db *db)
{
	return db->mode == DB_READ_ONLY || db->mode == DB_IMMUTABLE ||
	       sqlite3_db_readonly(db->conn, "main") == 1;
}

/* path + suffix, malloc'ed (NULL on ENOMEM). */
static char *with_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path), m = strlen(suffix);
	char *s = malloc(n + m + 1);
	if (s) {
		memcpy(s, path, n);
		memcpy(s + n, suffix, m + 1);
	}
	return s;
}

/* The folder of path, malloc'ed: "." for a bare name, "/" for "/x". */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return with_suffix(".", "");
	char *dir = with_suffix(path, "");
	if (dir)
		dir[slash == path ? 1 : slash - path] = '\0';
	return dir;
}

/* 0 when name can be written or is not there, EROFS on a read-only
 * mount, EACCES when permissions refuse it; 0 for any other reason (a
 * missing folder, ...), which the open itself will say. */
static int write_errno(const char *name)
{
	if (access(name, W_OK) == 0)
		return 0;
	return errno == EROFS ? EROFS : errno == EACCES || errno == EPERM ? EACCES : 0;
}

static bool is_file(const char *name)
{
	return access(name, F_OK) == 0;
}

const char *db_write_obstacle(const char *path)
{
	char *dir = folder_of(path), *wal = with_suffix(path, "-wal"), *shm = with_suffix(path, "-shm");
	const char *why = NULL;
	if (dir && wal && shm) { /* else out of memory: nothing seen */
		int file = write_errno(path), w = write_errno(wal), s = write_errno(shm);
		/* In WAL mode SQLite makes PATH-wal and PATH-shm beside the file
		 * when they are not there. */
		int folder = is_file(wal) && is_file(shm) ? 0 : write_errno(dir);
		if (file == EROFS || w == EROFS || s == EROFS || folder == EROFS)
			why = "read-only file system";
		else if (file)
			why = "the file is read-only";
		else if (w || s)
			why = "its write-ahead log (its -wal or -shm file) is read-only";
		else if (folder)
			why = "its folder is read-only (SQLite makes the store's write-ahead log "
			      "beside it)";
	}
	free(dir);
	free(wal);
	free(shm);
	return why;
}

bool db_frozen(const char *path)
{
	char *dir = folder_of(path), *wal = with_suffix(path, "-wal"), *shm = with_suffix(path, "-shm");
	char *journal = with_suffix(path, "-journal");
	struct statvfs fs;
	struct stat st;
	bool frozen = false;
	if (dir && wal && shm && journal && statvfs(dir, &fs) == 0 && stat(dir, &st) == 0) {
		bool folder_frozen = (fs.f_flag & ST_RDONLY) || !(st.st_mode & 0222);
		bool wal_empty = stat(wal, &st) != 0 || st.st_size == 0;
		/* A rollback journal left by a writer that died (a store not
		 * yet in WAL mode) would be skipped too. */
		frozen = folder_frozen && wal_empty && !(is_file(wal) && is_file(shm)) &&
			 !is_file(journal);
	}
	free(dir);
	free(wal);
	free(shm);
	free(journal);
	return frozen;
}

int db_exec(hg_db *db, const char *sql)
{
	return map_rc(sqlite3_exec(db->conn, sql, NULL, NULL, NULL));
}

hg_db_stmt *db_stmt(hg_db *db, int slot, const char *sql)
{
	if (slot < 0 || slot >= DB_MAX_STMTS)
		return NULL;
	sqlite3_stmt *st = db->stmts[slot];
	if (!st) {
		if (sqlite3_prepare_v3(db->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) !=
		    SQLITE_OK) {
			sqlite3_finalize(st);
			return NULL;
		}
		db->stmts[slot] = st;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return (hg_db_stmt *)(void *)st;
}

int db_bind_text(hg_db_stmt *st, int i, const char *s)
{
	int rc = s ? sqlite3_bind_text(ST(st), i, s, -1, SQLITE_TRANSIENT)
		   : sqlite3_bind_null(ST(st), i);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

int db_bind_text_here(hg_db_stmt *st, int i, const char *s)
{
	int rc = s ? sqlite3_bind_text(ST(st), i, s, -1, SQLITE_STATIC)
		   : sqlite3_bind_null(ST(st), i);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

/* The two binds of large values (a report's text, a cluster's tree) let
 * SQLite read the caller's bytes instead of copying them (SQLITE_STATIC): a
 * 100 MB report cost two more copies.  Every caller binds, steps and
 * resets at once, and db_stmt clears the bindings before each use. */
int db_bind_text_n(hg_db_stmt *st, int i, const char *s, size_t n)
{
	int rc = sqlite3_bind_text64(ST(st), i, s ? s : "", (sqlite3_uint64)n, SQLITE_STATIC,
				     SQLITE_UTF8);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

int db_bind_blob(hg_db_stmt *st, int i, const void *p, size_t n)
{
	int rc = sqlite3_bind_blob64(ST(st), i, p ? p : "", (sqlite3_uint64)n, SQLITE_STATIC);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

int db_bind_int(hg_db_stmt *st, int i, int64_t v)
{
	return sqlite3_bind_int64(ST(st), i, v) == SQLITE_OK ? 0 : DB_ERROR;
}

int db_bind_double(hg_db_stmt *st, int i, double v)
{
	return sqlite3_bind_double(ST(st), i, v) == SQLITE_OK ? 0 : DB_ERROR;
}

int db_bind_null(hg_db_stmt *st, int i)
{
	return sqlite3_bind_null(ST(st), i) == SQLITE_OK ? 0 : DB_ERROR;
}

int db_step(hg_db_stmt *st)
{
	int rc = map_rc(sqlite3_step(ST(st)));
	if (rc < 0)
		sqlite3_reset(ST(st));
	return rc;
}

void db_reset(hg_db_stmt *st)
{
	if (st)
		sqlite3_reset(ST(st));
}

const char *db_col_text(hg_db_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(ST(st), i);
}

int64_t db_col_int(hg_db_stmt *st, int i)
{
	return sqlite3_column_int64(ST(st), i);
}

double db_col_double(hg_db_stmt *st, int i)
{
	return sqlite3_column_double(ST(st), i);
}

const void *db_col_blob(hg_db_stmt *st, int i)
{
	return sqlite3_column_blob(ST(st), i);
}

size_t db_col_bytes(hg_db_stmt *st, int i)
{
	return (size_t)sqlite3_column_bytes(ST(st), i);
}

bool db_col_null(hg_db_stmt *st, int i)
{
	return sqlite3_column_type(ST(st), i) == SQLITE_NULL;
}

int64_t db_changes(hg_db *db)
{
	return sqlite3_changes64(db->conn);
}

int64_t db_last_rowid(hg_db *db)
{
	return sqlite3_last_insert_rowid(db->conn);
}

bool db_in_transaction(hg_db *db)
{
	return !sqlite3_get_autocommit(db->conn);
}

struct pred {
	db_pred_fn fn;
	void *user;
};

static void call_pred(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	struct pred *p = sqlite3_user_data(c);
	const char *text = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
	sqlite3_result_int(c, p->fn(p->user, text) ? 1 : 0);
}

int db_predicate(hg_db *db, const char *name, db_pred_fn fn, void *user)
{
	if (!fn)
		return map_rc(sqlite3_create_function_v2(db->conn, name, 1, SQLITE_UTF8, NULL, NULL,
							 NULL, NULL, NULL));
	struct pred *p = malloc(sizeof *p);
	if (!p)
		return DB_ENOMEM;
	*p = (struct pred){fn, user};
	return map_rc(sqlite3_create_function_v2(db->conn, name, 1, SQLITE_UTF8,
						 p, call_pred, NULL, NULL, free));
}

/* An hg_db_blob* is the sqlite3_blob* itself. */
int db_blob_open(hg_db *db, const char *table, const char *column, int64_t rowid,
		 hg_db_blob **out)
{
	sqlite3_blob *b = NULL;
	int rc = sqlite3_blob_open(db->conn, "main", table, column, rowid, 0, &b);
	*out = rc == SQLITE_OK ? (hg_db_blob *)(void *)b : NULL;
	if (rc != SQLITE_OK)
		sqlite3_blob_close(b);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

size_t db_blob_bytes(hg_db_blob *b)
{
	return (size_t)sqlite3_blob_bytes((sqlite3_blob *)(void *)b);
}

int db_blob_read(hg_db_blob *b, void *buf, size_t n, size_t offset)
{
	if (n > INT32_MAX || offset > INT32_MAX)
		return DB_ERROR; /* SQLite's values are under 2 GiB */
	int rc = sqlite3_blob_read((sqlite3_blob *)(void *)b, buf, (int)n, (int)offset);
	return rc == SQLITE_OK ? 0 : map_rc(rc);
}

void db_blob_close(hg_db_blob *b)
{
	if (b)
		sqlite3_blob_close((sqlite3_blob *)(void *)b);
}
