/* What was missing to name reports' frames, per app version (hangar
 * coverage): from report_facts.lacks, written when each report was named
 * (store_facts.c), so that a team sees which build's methodMapping,
 * mapping.txt or native symbols to upload. */
#include "store_internal.h"

/* The window of a top query: version, since, until (?1..?3), as top
 * reads them; a report of unknown time is in no window. */
#define WINDOW_SQL                                                               \
	" WHERE (?1 IS NULL OR r.version = ?1)"                                  \
	" AND (?2 IS NULL OR r.time >= " STORE_TIME_SQL("?2") ")"                \
	" AND (?3 IS NULL OR r.time <= " STORE_TIME_SQL("?3") ")"

static void bind_window(hg_db_stmt *st, const hg_top_query *q)
{
	db_bind_text(st, 1, q ? q->version : NULL);
	db_bind_text(st, 2, q ? q->since : NULL);
	db_bind_text(st, 3, q ? q->until : NULL);
}

int hg_store_coverage(hg_store *store, const hg_top_query *q, hg_coverage_fn fn, void *user)
{
	/* newest versions first (by their latest report), unknown last */
	hg_db_stmt *st = db_stmt(store->db, S_COVERAGE,
		"SELECT r.version, count(*), sum(f.lacks IS NULL),"
		" sum(json_extract(f.lacks, '$.method_mapping') IS NOT NULL),"
		" sum(json_extract(f.lacks, '$.proguard') IS NOT NULL),"
		" sum(json_extract(f.lacks, '$.images') IS NOT NULL),"
		" sum(f.lacks IS NOT NULL AND f.lacks <> '{}')"
		" FROM reports r LEFT JOIN report_facts f ON f.report = r.id" WINDOW_SQL
		" GROUP BY r.version ORDER BY r.version IS NULL, max(r.time) DESC, r.version");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query the store");
	bind_window(st, q);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_coverage_row row = {db_col_text(st, 0), db_col_int(st, 1), db_col_int(st, 2),
				       db_col_int(st, 3), db_col_int(st, 4), db_col_int(st, 5),
				       db_col_int(st, 6)};
		if ((ret = fn(user, &row)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query the store");
}

int hg_store_coverage_images(hg_store *store, const hg_top_query *q, hg_coverage_image_fn fn,
			     void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_COVERAGE_IMAGES,
		"SELECT r.version, json_extract(i.value, '$.name'), json_extract(i.value, '$.id'),"
		" count(*) FROM reports r JOIN report_facts f ON f.report = r.id,"
		" json_each(f.lacks, '$.images') i" WINDOW_SQL " AND f.lacks LIKE '%\"images\"%'"
		" GROUP BY 1, 2, 3 ORDER BY r.version IS NULL, r.version DESC, 4 DESC, 2, 3");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query the store");
	bind_window(st, q);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_coverage_image img = {db_col_text(st, 0), db_col_text(st, 1), db_col_text(st, 2),
					 db_col_int(st, 3)};
		if ((ret = fn(user, &img)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query the store");
}
