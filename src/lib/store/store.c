/* Module store (src/lib/store/): the SQLite cluster store.  Opening
 * (store_open.c), the schema and its migrations (store_schema.c), batches
 * (store_batch.c), adding reports (store_add_report.c) and rejected inputs
 * (store_rejected.c), queries (store_query.c, store_top.c, store_diff.c),
 * merged call trees (store_tree*.c), regroup and merge (store_regroup.c,
 * store_merge.c), report texts compressed (store_text.c); db.c is the
 * SQLite wrapper, the only file that sees sqlite3.h.
 * Public header: store.h.
 * Uses: cluster, core, regex, report. */
/* What the store's files share: errors as diagnostics, cached statements
 * without parameters, the SHA-256 key of a text. */
#include "core/core.h"
#include "store_internal.h"
#include "store_text.h"

/* "cannot write the store: " and why: what the file system shows when
 * look, and SQLite's reason. */
static int store_write_failed(hg_store *store, int err, bool look)
{
	const char *why = db_errmsg(store->db);
	const char *obstacle = look ? db_write_obstacle(store->path) : NULL;
	if (obstacle && *why)
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "cannot write the store: %s (%s)", obstacle, why);
	else
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0, "cannot write the store: %s",
			 obstacle ? obstacle : *why ? why : "unknown reason");
	return err;
}

/* A write that failed for want of room or of permission is said as
 * such ("cannot write the store: ..."), whatever step it was ("cannot add
 * a report", "cannot commit a batch"): that is what the reader must fix.
 * On a read-only connection "readonly" is a refusal to a caller that
 * should not have written: the step's words stand. */
int store_fail(hg_store *store, int err, const char *what)
{
	const char *why = db_errmsg(store->db);
	enum db_failure f = db_failure(store->db);
	if (f == DB_FAIL_FULL || (f == DB_FAIL_READONLY && !db_read_only(store->db)))
		return store_write_failed(store, err, f == DB_FAIL_READONLY);
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

/* A statement without parameters or rows, prepared once: a savepoint per
 * report is cheap, parsing its SQL every time is not. */
int store_exec_cached(hg_store *store, int slot, const char *sql)
{
	hg_db_stmt *st = db_stmt(store->db, slot, sql);
	if (!st)
		return DB_ERROR;
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

void store_sha256_hex(const char *text, size_t len, char out[65])
{
	unsigned char md[32];
	hg_sha256(text, len, md);
	hg_hex_digest(md, 32, out);
}

/* A copy of the text of the first report past after that sql selects,
 * decoded (the statement is reset before the text is read again). */
static int next_text(hg_store *store, int slot, const char *sql, int64_t after, int64_t *id,
		     char **text, size_t *len)
{
	hg_db_stmt *st = db_stmt(store->db, slot, sql);
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, after);
	int rc = db_step(st);
	*text = NULL;
	if (rc == DB_ROW) {
		*id = db_col_int(st, 0);
		int err = store_text_decode(store, *id, db_col_blob(st, 1), db_col_bytes(st, 1), text,
					    len);
		if (err)
			rc = err == HG_ENOMEM ? DB_ENOMEM : DB_EBAD;
	}
	db_reset(st);
	return rc;
}

int store_backfill(hg_store *store, int slot, const char *sql, store_backfill_fn fn)
{
	/* Read again quietly: the reports were read when ingested, their
	 * warnings said then. */
	hg_ctx quiet = *store->ctx;
	quiet.diag = NULL;
	quiet.skip_meta = 1;
	quiet.keep_text = 0;
	int64_t id = 0;
	char *text;
	size_t len;
	int rc;
	while ((rc = next_text(store, slot, sql, id, &id, &text, &len)) == DB_ROW) {
		hg_report *rep = NULL;
		int err = hg_report_read_one(&quiet, "store", text, len, HG_FORMAT_AUTO, &rep);
		free(text);
		rc = err ? DB_ERROR : fn(store, id, rep);
		hg_report_destroy(rep);
		if (rc < 0)
			return rc;
	}
	return rc;
}
