/* hangar diff's query: two sets of reports (two versions, two time windows,
 * the last ingest run or the reports after an id against everything before
 * it), compared cluster by cluster: counts and cost p90 of each set.  Also
 * the counts a run's digest needs: reports by kind and by cluster after an
 * id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

enum diff_mode { BY_TIME = 0, BY_VERSION = 1, BY_RUN = 2 };

/* side: 0 old set, 1 new set, NULL neither.  p90 as hg_store_top: the
 * cost at rank ceil(n * 0.9). */
static const char diff_sql[] =
	"WITH f AS ("
	"  SELECT r.cluster, r.cost, CASE ?1"
	"    WHEN 1 THEN CASE WHEN r.version = ?2 THEN 0 WHEN r.version = ?3 THEN 1 END"
	"    WHEN 2 THEN CASE WHEN r.id > ?4 THEN 1 ELSE 0 END"
	/* by time: a report of unknown time is in neither window */
	"    ELSE CASE WHEN r.time IS NULL THEN NULL"
	"              WHEN r.time < " STORE_TIME_SQL("?2") " THEN 0"
	"              WHEN ?3 IS NULL OR r.time < " STORE_TIME_SQL("?3")
	"                THEN 1 END"
	"  END AS side FROM reports r),"
	" g AS ("
	"  SELECT cluster, side, cost,"
	"    row_number() OVER (PARTITION BY cluster, side ORDER BY cost) AS rn,"
	"    count(*) OVER (PARTITION BY cluster, side) AS n"
	"  FROM f WHERE side IS NOT NULL),"
	" a AS ("
	"  SELECT cluster,"
	"    sum(CASE WHEN side = 0 THEN 1 ELSE 0 END) AS old_n,"
	"    sum(CASE WHEN side = 1 THEN 1 ELSE 0 END) AS new_n,"
	"    coalesce(max(CASE WHEN side = 0 AND rn = (n * 90 + 99) / 100 THEN cost END), 0) AS old_p90,"
	"    coalesce(max(CASE WHEN side = 1 AND rn = (n * 90 + 99) / 100 THEN cost END), 0) AS new_p90"
	"  FROM g GROUP BY cluster)"
	" SELECT c.hash, c.kind, c.title, a.old_n, a.new_n, a.old_p90, a.new_p90"
	" FROM a JOIN clusters c ON c.hash = a.cluster"
	" ORDER BY CASE WHEN a.old_n = 0 THEN 0 WHEN a.new_n = 0 THEN 2 ELSE 1 END,"
	"  a.new_n DESC, a.old_n DESC, c.hash";

/* Whether now grew from before by more than pct percent. */
static bool grew(int64_t before, int64_t now, double pct)
{
	return (double)now > (double)before * (1.0 + pct / 100.0);
}

static const char *status_of(const hg_diff_row *r, double pct)
{
	if (r->old_count == 0)
		return r->new_count > 0 ? "new" : NULL;
	if (r->new_count == 0)
		return "gone";
	if (grew(r->old_count, r->new_count, pct) || grew(r->old_p90, r->new_p90, pct))
		return "regressed";
	return NULL;
}

int hg_store_diff(hg_store *store, const hg_diff_query *q, hg_diff_fn fn, void *user)
{
	if (!q || (!q->baseline_version != !q->version) || (q->until && !q->since) ||
	    q->threshold < 0 || (q->by_report_id && q->after_report_id < 0))
		return HG_EINVAL;
	enum diff_mode mode = q->by_report_id ? BY_RUN : q->version ? BY_VERSION
			    : q->since ? BY_TIME : BY_RUN;
	int64_t first = q->by_report_id ? q->after_report_id : 0;
	if (mode == BY_RUN && !q->by_report_id) {
		char buf[32];
		int err = hg_store_meta_get(store, "last_ingest_report_id", buf, sizeof buf);
		if (err == HG_EINVAL)
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "no ingest run recorded: give --since or two versions");
		if (err)
			return err;
		first = strtoll(buf, NULL, 10);
	}
	hg_db_stmt *st = db_stmt(store->db, S_DIFF, diff_sql);
	if (!st)
		return store_fail(store, HG_EIO, "cannot compare clusters");
	db_bind_int(st, 1, mode);
	db_bind_text(st, 2, mode == BY_VERSION ? q->baseline_version : q->since);
	db_bind_text(st, 3, mode == BY_VERSION ? q->version : q->until);
	db_bind_int(st, 4, first);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_diff_row row = {
			.hash = db_col_text(st, 0),
			.kind = db_col_text(st, 1),
			.title = db_col_text(st, 2),
			.old_count = db_col_int(st, 3),
			.new_count = db_col_int(st, 4),
			.old_p90 = db_col_int(st, 5),
			.new_p90 = db_col_int(st, 6),
		};
		if (!(row.status = status_of(&row, q->threshold)))
			continue;
		if ((ret = fn(user, &row)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot compare clusters");
}

int hg_store_kind_totals(hg_store *store, int64_t after_report_id, hg_kind_total_fn fn,
			 void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_KIND_TOTALS,
		"SELECT kind, count(*), sum(id > ?1) FROM reports GROUP BY kind"
		" ORDER BY 3 DESC, 2 DESC, kind");
	if (!st)
		return store_fail(store, HG_EIO, "cannot count reports");
	db_bind_int(st, 1, after_report_id);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW)
		if ((ret = fn(user, db_col_text(st, 0), db_col_int(st, 1), db_col_int(st, 2))) != 0)
			break;
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot count reports");
}

int hg_store_cluster_count_after(hg_store *store, const char *hash, int64_t after_report_id,
				 int64_t *count)
{
	*count = 0;
	hg_db_stmt *st = db_stmt(store->db, S_COUNT_AFTER,
		"SELECT count(*) FROM reports WHERE cluster = ?1 AND id > ?2");
	if (!st)
		return store_fail(store, HG_EIO, "cannot count reports");
	db_bind_text(st, 1, hash);
	db_bind_int(st, 2, after_report_id);
	int rc = db_step(st);
	if (rc == DB_ROW)
		*count = db_col_int(st, 0);
	db_reset(st);
	return store_check(store, rc, "cannot count reports");
}
