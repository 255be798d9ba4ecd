/* Reading rollups over a window: the stored rows of its whole days, and
 * rollups made on the fly from the reports of its partial first and last
 * days, each given to the caller as one rollup of (cluster, day,
 * version).  What top, diff and show's summary read instead of reports. */
#include <string.h>

#include "store_internal.h"
#include "store_rollup.h"
#include "store_rollup_read.h"

static int stored_rows(hg_store *store, const struct rollup_filter *f, rollup_fn fn, void *user)
{
	const struct store_window *w = f->window;
	hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_READ,
		"SELECT cluster, day, version, " ROLLUP_COLUMNS " FROM rollups"
		" WHERE (?1 IS NULL OR cluster = ?1) AND (?2 IS NULL OR version = ?2)"
		" AND (?3 = 0 OR (day IS NOT NULL AND (?4 IS NULL OR day >= ?4)"
		"  AND (?5 IS NULL OR day <= ?5)))");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read the rollups");
	db_bind_text(st, 1, f->cluster);
	db_bind_text(st, 2, f->version);
	db_bind_int(st, 3, w && w->bounded);
	db_bind_text(st, 4, w && *w->lo ? w->lo : NULL);
	db_bind_text(st, 5, w && *w->hi ? w->hi : NULL);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		struct rollup r = {.cost_max = -1};
		if (f->facets || f->head)
			err = rollup_add_row_facets(&r, st, 3, !f->facets);
		else if (f->counts_only)
			rollup_add_row_counts(&r, st, 3);
		else if (f->no_devices)
			err = rollup_add_row_costs(&r, st, 3);
		else
			err = rollup_add_row_sketches(&r, st, 3);
		if (err == HG_EINVAL) {
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "the rollup of cluster %s, day %s is malformed (hangar check"
				 " recomputes it)", db_col_text(st, 0),
				 db_col_text(st, 1) ? db_col_text(st, 1) : "unknown");
			err = HG_EIO;
		}
		if (!err)
			err = fn(user, db_col_text(st, 0), db_col_text(st, 1), db_col_text(st, 2), &r);
		rollup_release(&r);
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot read the rollups") : 0;
}

/* The reports of one partial day's hours, summed into set. */
static int edge_rows(hg_store *store, const struct rollup_filter *f, const char *from,
		     const char *to, struct rollup_set *set)
{
#define EDGE_WHERE                                                                    \
	" WHERE r.time >= ?3 AND r.time <= ?4"                                        \
	" AND (?1 IS NULL OR r.cluster = ?1) AND (?2 IS NULL OR r.version = ?2)"
	/* the facets only when asked: their JSON is most of a row's cost */
	bool facets = f->facets || f->head;
	hg_db_stmt *st = facets
		? db_stmt(store->db, S_ROLLUP_EDGE_FACETS,
			  "SELECT " ROLLUP_REPORT_FACETS_SQL " FROM reports r INDEXED BY reports_by_time"
			  " LEFT JOIN figures g ON g.report = r.id"
			  " LEFT JOIN report_facts f ON f.report = r.id" EDGE_WHERE)
		: db_stmt(store->db, S_ROLLUP_EDGE,
			  "SELECT " ROLLUP_REPORT_SQL " FROM reports r INDEXED BY reports_by_time"
			  " LEFT JOIN figures g ON g.report = r.id" EDGE_WHERE);
	if (!st)
		return store_fail(store, HG_EIO, "cannot read reports");
	db_bind_text(st, 1, f->cluster);
	db_bind_text(st, 2, f->version);
	db_bind_text(st, 3, from);
	db_bind_text(st, 4, to);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW)
		err = rollup_set_add_report_row(set, st, facets);
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot read reports") : 0;
}

int store_rollup_each(hg_store *store, const struct rollup_filter *f, rollup_fn fn, void *user)
{
	const struct store_window *w = f->window;
	int err = w && w->no_days ? 0 : stored_rows(store, f, fn, user);
	if (err || !w || !w->n_edges)
		return err;
	struct rollup_set set = {0};
	for (int i = 0; !err && i < w->n_edges; i++)
		err = edge_rows(store, f, w->edge[i][0], w->edge[i][1], &set);
	for (size_t i = 0; !err && i < set.len; i++) {
		struct rollup *r = &set.items[i];
		err = fn(user, r->cluster, r->day, r->version, r);
	}
	rollup_set_release(&set);
	return err;
}

int store_query_window(hg_store *store, const hg_top_query *q, struct store_window *w)
{
	char at[2][32];
	const char *when[2] = {q ? q->since : NULL, q ? q->until : NULL};
	for (int i = 0; i < 2; i++)
		if (when[i] && hg_store_time(store, when[i], at[i]) != 0) {
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "not a time: \"%s\"", when[i]);
			return HG_EINVAL;
		}
	if (store_window_make(w, when[0] ? at[0] : NULL, when[1] ? at[1] : NULL, true) != 0)
		return store_fail(store, HG_EINVAL, "cannot read the query's window");
	return 0;
}
