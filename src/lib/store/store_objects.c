/* The objects of remote sources: what a run fetched and ingested, or
 * failed to, so that the next run fetches only new or changed objects and
 * retries the failed ones.  Written in the same batch as the reports read
 * from the object: a killed run leaves both or neither. */
#include <string.h>

#include "store_internal.h"

/* Two versions of an object are the same when their ETags are equal, or,
 * for servers without ETags (HTTP listings), their size and time. */
int hg_store_object_known(hg_store *store, const char *source, const char *key,
			  const char *etag, int64_t size, const char *last_modified)
{
	hg_db_stmt *st = db_stmt(store->db, S_OBJECT_KNOWN,
		"SELECT count(*) FROM objects WHERE source = ?1 AND key = ?2 AND status = 'ingested'"
		" AND (CASE WHEN ?3 IS NOT NULL THEN etag IS ?3"
		"      ELSE etag IS NULL AND size IS ?4 AND last_modified IS ?5 END)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query objects");
	db_bind_text(st, 1, source);
	db_bind_text(st, 2, key);
	db_bind_text(st, 3, etag);
	if (size >= 0)
		db_bind_int(st, 4, size);
	db_bind_text(st, 5, last_modified);
	int rc = db_step(st);
	int known = rc == DB_ROW && db_col_int(st, 0) > 0;
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot query objects") : known;
}

int hg_store_object_put(hg_store *store, const hg_object_row *row)
{
	if (!row || !row->source || !row->key || !row->status ||
	    (strcmp(row->status, "ingested") != 0 && strcmp(row->status, "failed") != 0))
		return HG_EINVAL;
	hg_db_stmt *st = db_stmt(store->db, S_OBJECT_PUT,
		"INSERT INTO objects(source, key, etag, size, last_modified, status, reports, error,"
		" attempts, at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?6 = 'failed', " STORE_NOW_SQL ")"
		" ON CONFLICT(source, key) DO UPDATE SET etag = excluded.etag, size = excluded.size,"
		" last_modified = excluded.last_modified, status = excluded.status,"
		" reports = excluded.reports, error = excluded.error,"
		" attempts = CASE WHEN excluded.status = 'failed' THEN attempts + 1 ELSE 0 END,"
		" at = excluded.at");
	if (!st)
		return store_fail(store, HG_EIO, "cannot record an object");
	db_bind_text(st, 1, row->source);
	db_bind_text(st, 2, row->key);
	db_bind_text(st, 3, row->etag);
	if (row->size >= 0)
		db_bind_int(st, 4, row->size);
	db_bind_text(st, 5, row->last_modified);
	db_bind_text(st, 6, row->status);
	db_bind_int(st, 7, row->reports);
	db_bind_text(st, 8, row->error);
	int rc = db_step(st);
	db_reset(st);
	return store_check(store, rc, "cannot record an object");
}

int hg_store_objects(hg_store *store, const char *source, const char *status, hg_object_fn fn,
		     void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_OBJECTS,
		"SELECT source, key, etag, coalesce(size, -1), last_modified, status, reports, error,"
		" attempts, at FROM objects WHERE (?1 IS NULL OR source = ?1)"
		" AND (?2 IS NULL OR status = ?2) ORDER BY source, key");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query objects");
	db_bind_text(st, 1, source);
	db_bind_text(st, 2, status);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_object_row row = {db_col_text(st, 0), db_col_text(st, 1), db_col_text(st, 2),
				     db_col_int(st, 3), db_col_text(st, 4), db_col_text(st, 5),
				     db_col_int(st, 6), db_col_text(st, 7), db_col_int(st, 8),
				     db_col_text(st, 9)};
		if ((ret = fn(user, &row)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query objects");
}

int hg_store_last_report_id(hg_store *store, int64_t *id)
{
	*id = 0;
	hg_db_stmt *st = db_stmt(store->db, S_LAST_REPORT_ID,
				 "SELECT coalesce(max(id), 0) FROM reports");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query reports");
	int rc = db_step(st);
	if (rc == DB_ROW)
		*id = db_col_int(st, 0);
	db_reset(st);
	return store_check(store, rc, "cannot query reports");
}
