/* A small private wrapper around SQLite: the only header the store files
 * use, so that sqlite3.h stays in db.c.  Prepared statements are cached by
 * slot (the caller's enum) and finalized by db_close(). */
#ifndef HANGAR_DB_H
#define HANGAR_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hg_db hg_db;
typedef struct hg_db_stmt hg_db_stmt;

/* Results of db_step/db_exec: a row, done, or a negative error. */
enum {
	DB_ROW = 1,
	DB_DONE = 0,
	DB_EBUSY = -100, /* locked by another connection, even after the busy timeout */
	DB_EBAD = -101,  /* not a database, or corrupt */
	DB_ERROR = -102, /* anything else (db_errmsg says what) */
	DB_ENOMEM = -1,  /* same value as HG_ENOMEM */
};

#define DB_MAX_STMTS 192 /* store_internal.h asserts its slots fit */

/* How db_open_mode opens a file. */
enum db_mode {
	DB_CREATE,     /* read-write, created when missing */
	DB_READ_WRITE, /* read-write, never created */
	DB_READ_ONLY,  /* never written nor created (mode=ro) */
	DB_IMMUTABLE,  /* the same, and SQLite told that nothing can change the
	                  file while it is open (immutable=1): no locks, no -shm,
	                  and the write-ahead log is not read at all; only for a
	                  file nobody can write (store_open.c says when) */
};

/* Opens path in that mode.  *out is set whenever a handle was allocated,
 * even on failure, so that db_errmsg() can tell why; the caller closes it.
 * busy_ms: how long a locked database is waited for. */
int db_open_mode(const char *path, int busy_ms, enum db_mode mode, hg_db **out);
/* db_open_mode(path, busy_ms, DB_CREATE, out). */
int db_open(const char *path, int busy_ms, hg_db **out);
/* Makes fn callable from SQL as name(a, b) on two texts (NULL when either
 * is NULL); fn returns a malloc'ed text (NULL: out of memory).  0 or a
 * DB_ error. */
int db_define_text_function(hg_db *db, const char *name, char *(*fn)(const char *, const char *));
/* Finalizes every cached statement and closes.  Accepts NULL. */
void db_close(hg_db *db);
/* SQLite's reason for the last call that failed, "" when the last call
 * worked (the reason is then gone: read it before the next call). */
const char *db_errmsg(const hg_db *db);

/* What kind of failure the last call was (read it with db_errmsg). */
enum db_failure {
	DB_FAIL_NONE,     /* the last call worked */
	DB_FAIL_OTHER,
	DB_FAIL_CANTOPEN, /* a file could not be opened or made (the -wal, the -shm) */
	DB_FAIL_READONLY, /* a write to a file that cannot be written */
	DB_FAIL_FULL,     /* the disk is full (or PRAGMA max_page_count reached) */
};
enum db_failure db_failure(const hg_db *db);
/* Whether the connection cannot write: opened DB_READ_ONLY or
 * DB_IMMUTABLE, or read-write on a file SQLite could only open read-only
 * (which it does without a word). */
bool db_read_only(const hg_db *db);
/* Why the database file at path could not be written, with the files
 * SQLite keeps beside it in WAL mode (PATH-wal, PATH-shm), as far as the
 * file system tells: "read-only file system", "the file is read-only",
 * "its folder is read-only (...)", ...; NULL when nothing stops a write
 * that it can see (a static text). */
const char *db_write_obstacle(const char *path);
/* Whether the file at path cannot change while it is read, as far as
 * WAL mode goes, so that DB_IMMUTABLE reads it right: a writer needs
 * PATH-wal and PATH-shm beside it, and they are not both there and cannot
 * be made (its folder is on a read-only mount, or no one may write to it),
 * and no -wal holds anything, nor is there a -journal (DB_IMMUTABLE would
 * not read them). */
bool db_frozen(const char *path);

/* ATTACHes the database file at path, read-only (never created), as schema
 * (a plain name, not quoted).  Not inside a transaction.  db_detach undoes
 * it; cached statements that use the schema must be reset first. */
int db_attach_ro(hg_db *db, const char *path, const char *schema);
int db_detach(hg_db *db, const char *schema);

/* Runs one or more statements without parameters (schema, pragmas). */
int db_exec(hg_db *db, const char *sql);

/* The statement cached in slot (prepared from sql the first time), reset and
 * with its bindings cleared; NULL on error (db_errmsg).  Borrowed: valid
 * until db_close.  A slot must not be used again while it is being stepped. */
hg_db_stmt *db_stmt(hg_db *db, int slot, const char *sql);

/* Parameters are 1-based.  A NULL string binds SQL NULL.  Text and blobs
 * are copied by SQLite (SQLITE_TRANSIENT).  Return 0 or DB_ERROR. */
int db_bind_text(hg_db_stmt *st, int i, const char *s);
/* The same, read where it is (SQLITE_STATIC): s must outlive the step, as
 * in a function that binds, steps and resets (a report's eleven texts were
 * as many mallocs and copies). */
int db_bind_text_here(hg_db_stmt *st, int i, const char *s);
/* These two do not copy: the bytes must live until the statement is reset. */
int db_bind_blob(hg_db_stmt *st, int i, const void *p, size_t n);
int db_bind_text_n(hg_db_stmt *st, int i, const char *s, size_t n); /* n bytes of UTF-8 */
int db_bind_int(hg_db_stmt *st, int i, int64_t v);
int db_bind_double(hg_db_stmt *st, int i, double v);
int db_bind_null(hg_db_stmt *st, int i);

int db_step(hg_db_stmt *st);
/* Releases what the statement holds (read locks); keeps it cached. */
void db_reset(hg_db_stmt *st);

/* Columns are 0-based; text is NULL for SQL NULL, valid until the next
 * step or reset. */
const char *db_col_text(hg_db_stmt *st, int i);
int64_t db_col_int(hg_db_stmt *st, int i);
double db_col_double(hg_db_stmt *st, int i);
const void *db_col_blob(hg_db_stmt *st, int i);
size_t db_col_bytes(hg_db_stmt *st, int i);
bool db_col_null(hg_db_stmt *st, int i);

/* Rows changed by the last INSERT/UPDATE/DELETE. */
int64_t db_changes(hg_db *db);
/* The rowid of the last row inserted (by a successful INSERT). */
int64_t db_last_rowid(hg_db *db);
bool db_in_transaction(hg_db *db);

/* Registers SQL function name(text) -> 0/1 calling fn(user, text) (text may
 * be NULL).  fn = NULL removes it. */
typedef bool (*db_pred_fn)(void *user, const char *text);
int db_predicate(hg_db *db, const char *name, db_pred_fn fn, void *user);

/* A column's value read in pieces (SQLite's incremental blob I/O), so that
 * a value of tens of MB (a cluster's merged tree) is never held whole: the
 * value of column in table's row rowid, of the main schema, read-only.
 * *out is NULL on error; db_blob_close accepts NULL.  Open holds a read
 * transaction (outside one) until closed. */
typedef struct hg_db_blob hg_db_blob;
int db_blob_open(hg_db *db, const char *table, const char *column, int64_t rowid,
		 hg_db_blob **out);
size_t db_blob_bytes(hg_db_blob *b);
/* n bytes at offset into buf: 0 or a DB_ error. */
int db_blob_read(hg_db_blob *b, void *buf, size_t n, size_t offset);
void db_blob_close(hg_db_blob *b);

#endif
