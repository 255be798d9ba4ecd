/* The migration to schema 7's second half (store_internal.h): times that
 * SQLite's strftime could not read (a "+0200" zone, nine fraction digits)
 * were stored as unknown, and the clusters' first_seen / last_seen fell
 * back on the ingest time.  The written text was kept (time_written), so
 * they are read again here, with report_time.h. */
#include <string.h>

#include "report/report_time.h"
#include "store_internal.h"

/* One report at a time, by id: a scan that resumes after the last id
 * seen, so that updating a row never disturbs the scan. */
static int next_unknown(hg_store *store, int64_t after, int64_t *id, char *written, size_t size)
{
	hg_db_stmt *st = db_stmt(store->db, S_TB_NEXT,
		"SELECT id, time_written FROM reports WHERE id > ?1 AND time IS NULL"
		" AND time_written IS NOT NULL ORDER BY id LIMIT 1");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, after);
	int rc = db_step(st);
	if (rc == DB_ROW) {
		*id = db_col_int(st, 0);
		const char *t = db_col_text(st, 1);
		size_t n = t ? strlen(t) : 0;
		if (n >= size)
			n = 0; /* longer than any time: stays unknown */
		memcpy(written, t ? t : "", n);
		written[n] = '\0';
	}
	db_reset(st);
	return rc;
}

static int set_time(hg_store *store, int64_t id, const char *time)
{
	hg_db_stmt *st = db_stmt(store->db, S_TB_SET, "UPDATE reports SET time = ?2 WHERE id = ?1");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, time);
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

int store_times_backfill(hg_store *store)
{
	int64_t id = 0;
	char written[256];
	int rc;
	while ((rc = next_unknown(store, id, &id, written, sizeof written)) == DB_ROW) {
		char t[REPORT_TIME_SIZE];
		const char *why;
		if (written[0] && report_time_parse(written, strlen(written), t, &why) == 0 &&
		    (rc = set_time(store, id, t)) < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	hg_db_stmt *st = db_stmt(store->db, S_TB_CLUSTERS,
		"UPDATE clusters SET"
		" first_seen = (SELECT min(r.time) FROM reports r WHERE r.cluster = clusters.hash),"
		" last_seen = (SELECT max(r.time) FROM reports r WHERE r.cluster = clusters.hash)");
	if (!st)
		return DB_ERROR;
	rc = db_step(st);
	db_reset(st);
	return rc;
}
