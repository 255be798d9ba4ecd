/* hangar diff's query: two sets of reports (two versions, two time windows,
 * the last ingest run or the reports after an id against everything before
 * it), compared cluster by cluster: counts and cost p90 of each set.  Also
 * the counts a run's digest needs: reports by kind and by cluster after an
 * id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_trend.h"

enum diff_mode { BY_TIME = 0, BY_VERSION = 1, BY_RUN = 2 };

/* The set a report r is in: 0 old, 1 new, NULL neither (?1 the mode, ?2
 * ?3 the versions or the window, ?4 the first report id of the new set). */
#define SIDE_SQL                                                                        \
	"CASE ?1"                                                                         \
	"    WHEN 1 THEN CASE WHEN r.version = ?2 THEN 0 WHEN r.version = ?3 THEN 1 END"      \
	"    WHEN 2 THEN CASE WHEN r.id > ?4 THEN 1 ELSE 0 END"                              \
	/* by time: a report of unknown time is in neither window */                       \
	"    ELSE CASE WHEN r.time IS NULL THEN NULL"                                       \
	"              WHEN r.time < " STORE_TIME_SQL("?2") " THEN 0"                       \
	"              WHEN ?3 IS NULL OR r.time < " STORE_TIME_SQL("?3")                    \
	"                THEN 1 END"                                                        \
	"  END"

/* side: 0 old set, 1 new set, NULL neither; cmp: 1 for the old reports
 * that regressions are measured against (id > ?5: all of the old set
 * when ?5 is below every id).  p90 as hg_store_top: the cost at rank
 * ceil(n * 0.9) of the measured costs (a report whose figures row says
 * its cost was not measured, FPS, has none), of the new set and of the
 * comparison set; FPS reports' fps, frames and frozen + high frames
 * summed the same way.  The totals come with every row (window sums over
 * all clusters), so that a baseline is known from the first. */
static const char diff_sql[] =
	"WITH f AS ("
	"  SELECT r.cluster, CASE WHEN fg.cost_known = 0 THEN NULL ELSE r.cost END AS cost, r.id,"
	"    fg.fps, fg.frames, fg.frozen + fg.high AS bad, " SIDE_SQL
	"  AS side FROM reports r LEFT JOIN figures fg ON fg.report = r.id),"
	" g AS ("
	"  SELECT cluster, side, cost, fps, frames, bad, side = 0 AND id > ?5 AS cmp,"
	"    row_number() OVER (PARTITION BY cluster, side, side = 0 AND id > ?5, cost IS NULL"
	"      ORDER BY cost) AS rn,"
	"    count(*) OVER (PARTITION BY cluster, side, side = 0 AND id > ?5, cost IS NULL) AS n"
	"  FROM f WHERE side IS NOT NULL),"
	" a AS ("
	"  SELECT cluster,"
	"    sum(side = 0) AS old_n, sum(cmp) AS cmp_n, sum(side = 1) AS new_n,"
	"    coalesce(max(CASE WHEN cmp AND cost IS NOT NULL AND rn = (n * 90 + 99) / 100"
	"      THEN cost END), 0) AS cmp_p90,"
	"    coalesce(max(CASE WHEN side = 1 AND cost IS NOT NULL AND rn = (n * 90 + 99) / 100"
	"      THEN cost END), 0) AS new_p90,"
	"    count(cost) AS measured,"
	"    count(CASE WHEN cmp THEN fps END) AS cmp_fps_n, total(CASE WHEN cmp THEN fps END) AS cmp_fps,"
	"    total(CASE WHEN cmp THEN frames END) AS cmp_frames, total(CASE WHEN cmp THEN bad END) AS cmp_bad,"
	"    count(CASE WHEN side = 1 THEN fps END) AS new_fps_n,"
	"    total(CASE WHEN side = 1 THEN fps END) AS new_fps,"
	"    total(CASE WHEN side = 1 THEN frames END) AS new_frames,"
	"    total(CASE WHEN side = 1 THEN bad END) AS new_bad"
	"  FROM g GROUP BY cluster)"
	" SELECT c.hash, c.kind, c.title, a.old_n, a.cmp_n, a.new_n, a.cmp_p90, a.new_p90,"
	"  sum(a.old_n) OVER (), sum(a.new_n) OVER (), sum(a.new_n > 0) OVER (),"
	"  a.measured, a.cmp_fps_n, a.cmp_fps, a.cmp_frames, a.cmp_bad,"
	"  a.new_fps_n, a.new_fps, a.new_frames, a.new_bad, sum(a.cmp_n) OVER ()"
	" FROM a JOIN clusters c ON c.hash = a.cluster"
	" ORDER BY CASE WHEN a.old_n = 0 THEN 0 WHEN a.new_n = 0 THEN 2 ELSE 1 END,"
	"  a.new_n DESC, a.cmp_n DESC, c.hash";

/* Each cluster's reports of each set that count against the sessions of
 * that set's scope (hg_sessions_counts), from their counts per version
 * and day: ?1..?4 as in SIDE_SQL. */
static const char rates_sql[] =
	"SELECT cluster, side, version, day, count(*) FROM ("
	"  SELECT r.cluster, " SIDE_SQL " AS side, r.version, substr(r.time, 1, 10) AS day"
	"  FROM reports r INDEXED BY reports_by_cluster WHERE r.version IS NOT NULL)"
	" WHERE side IS NOT NULL GROUP BY 1, 2, 3, 4";

struct rates {
	bool asked;                 /* the query has sessions (by run: no rate, null) */
	const hg_sessions *sessions; /* NULL: no rate */
	hg_sessions_scope scope[2]; /* of the old set, of the new one */
	char window[2][32];
	int64_t total[2];           /* their sessions; -1: none */
	strmap index;               /* cluster -> its counts in n */
	int64_t (*n)[2];
	size_t len, cap;
};

/* The clusters' counts of rates_sql's row into r. */
static int rated_row(struct rates *r, hg_db_stmt *st)
{
	int side = (int)db_col_int(st, 1);
	if (side < 0 || side > 1 ||
	    !hg_sessions_counts(r->sessions, &r->scope[side], db_col_text(st, 2), db_col_text(st, 3)))
		return 0;
	const char *hash = db_col_text(st, 0) ? db_col_text(st, 0) : "";
	int64_t i;
	if (!strmap_get(&r->index, hash, &i)) {
		if (r->len == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 64;
			int64_t(*v)[2] = realloc(r->n, cap * sizeof *v);
			if (!v)
				return HG_ENOMEM;
			r->n = v;
			r->cap = cap;
		}
		if (strmap_put(&r->index, hash, (int64_t)r->len) != 0)
			return HG_ENOMEM;
		i = (int64_t)r->len++;
		r->n[i][0] = r->n[i][1] = 0;
	}
	r->n[i][side] += db_col_int(st, 4);
	return 0;
}

/* The sets' scopes and sessions, and each cluster's reports that count
 * (r->sessions NULL: no rates, nothing read). */
static int load_rates(hg_store *store, enum diff_mode mode, const hg_diff_query *q,
		      struct rates *r)
{
	if (!r->sessions)
		return 0;
	if (mode == BY_VERSION) {
		r->scope[0].version = q->baseline_version;
		r->scope[1].version = q->version;
	} else {
		const char *at[2] = {q->since, q->until};
		for (int i = 0; i < 2; i++)
			if (at[i] && hg_store_time(store, at[i], r->window[i]) != 0) {
				hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
					 "not a time: \"%s\"", at[i]);
				return HG_EINVAL;
			}
		r->scope[0].until = r->scope[1].since = r->window[0];
		r->scope[1].until = q->until ? r->window[1] : NULL;
	}
	for (int i = 0; i < 2; i++)
		r->total[i] = hg_sessions_total(r->sessions, &r->scope[i]);
	hg_db_stmt *st = db_stmt(store->db, S_DIFF_RATES, rates_sql);
	if (!st)
		return store_fail(store, HG_EIO, "cannot count reports per version and day");
	db_bind_int(st, 1, mode);
	db_bind_text(st, 2, mode == BY_VERSION ? q->baseline_version : q->since);
	db_bind_text(st, 3, mode == BY_VERSION ? q->version : q->until);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW)
		err = rated_row(r, st);
	db_reset(st);
	return err ? err : store_check(store, rc, "cannot count reports per version and day");
}

static void release_rates(struct rates *r)
{
	strmap_clear(&r->index);
	free(r->n);
}

/* A row's rates, when the query has sessions. */
static void rate_row(const struct rates *r, hg_diff_row *row)
{
	row->rated = r->asked;
	row->old_rate = row->new_rate = -1;
	if (!r->sessions)
		return;
	int64_t i, n[2] = {0, 0};
	if (strmap_get(&r->index, row->hash ? row->hash : "", &i)) {
		n[0] = r->n[i][0];
		n[1] = r->n[i][1];
	}
	row->old_rate = hg_rate_per_1k(n[0], r->total[0]);
	row->new_rate = hg_rate_per_1k(n[1], r->total[1]);
}

/* The rows' escalation flags, as top gives them over the new set: by
 * time, its window; by version, its version; else the whole store. */
static int load_escalating(hg_store *store, enum diff_mode mode, const hg_diff_query *q,
			   struct esc_set *set)
{
	struct esc_query e = {.rule = q->escalate, .until_excl = true};
	if (mode == BY_TIME) {
		e.since = q->since;
		e.until = q->until;
	} else if (mode == BY_VERSION) {
		e.version = q->version;
	}
	return esc_set_load(store, &e, set);
}

/* Whether now is more than pct percent above before. */
static bool grew(int64_t before, int64_t now, double pct)
{
	return (double)now > (double)before * (1.0 + pct / 100.0);
}

/* Whether a cluster with none in the new set is gone: had the new set
 * been drawn like the comparison set, the cluster would have had at least
 * min_count (and 1) reports in it: old_count * new_total / cmp_total.  A
 * run of three reports says nothing about the hundreds of clusters it does
 * not hold; a release as big as the last one without a cluster of ten
 * does. */
static bool gone(const hg_diff_row *r, int64_t cmp_total, int64_t new_total,
		 const hg_diff_query *q)
{
	int64_t want = q->min_count > 1 ? q->min_count : 1;
	return r->old_count > 0 && cmp_total > 0 &&
	       (double)r->old_count * (double)new_total >= (double)want * (double)cmp_total;
}

/* The rules of hg_diff_query; old_all: the cluster's reports in the whole
 * old set (the row's old_count is the comparison set's); cmp_total and
 * new_total: the reports of the comparison and the new set. */
static const char *status_of(const hg_diff_row *r, int64_t old_all, int64_t cmp_total,
			     int64_t new_total, const hg_diff_query *q)
{
	if (old_all == 0)
		return r->new_count > 0 ? "new" : NULL;
	if (r->new_count == 0)
		return gone(r, cmp_total, new_total, q) ? "gone" : NULL;
	if (r->new_count < q->min_count)
		return NULL;
	bool count_rose = r->new_count > r->old_count &&
			  (double)r->new_count >= q->min_rise * (double)r->old_count;
	bool cost_rose = !r->cost_unknown && r->old_count >= q->min_count && r->old_count > 0 &&
			 grew(r->old_p90, r->new_p90, q->threshold);
	/* FPS: a frame rate that fell by more than threshold percent */
	bool fps_fell = r->old_fps_reports >= q->min_count && r->old_fps_reports > 0 &&
			r->new_fps_reports > 0 &&
			r->new_fps < r->old_fps * (1.0 - q->threshold / 100.0);
	return count_rose || cost_rose || fps_fell ? "regressed" : NULL;
}

/* The FPS figures of a row of diff_sql (columns 12..19): mean fps and
 * frozen + high share of each set. */
static void fps_sides(hg_db_stmt *st, hg_diff_row *row)
{
	int64_t n[2] = {db_col_int(st, 12), db_col_int(st, 16)};
	double fps[2] = {db_col_double(st, 13), db_col_double(st, 17)};
	double frames[2] = {db_col_double(st, 14), db_col_double(st, 18)};
	double bad[2] = {db_col_double(st, 15), db_col_double(st, 19)};
	row->old_fps_reports = n[0];
	row->new_fps_reports = n[1];
	row->old_fps = n[0] ? fps[0] / (double)n[0] : 0;
	row->new_fps = n[1] ? fps[1] / (double)n[1] : 0;
	row->old_share = frames[0] > 0 ? bad[0] / frames[0] : -1;
	row->new_share = frames[1] > 0 ? bad[1] / frames[1] : -1;
}

/* Where a diff by ingest run starts (last_ingest_report_id) and what it
 * compares with (previous_ingest_report_id: the run before; -1 when no
 * run before it is recorded). */
static int run_marks(hg_store *store, int64_t *first, int64_t *compare_after)
{
	char buf[32];
	int err = hg_store_meta_get(store, "last_ingest_report_id", buf, sizeof buf);
	if (err == HG_EINVAL)
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "no ingest run recorded: give --since or two versions");
	if (err)
		return err;
	*first = strtoll(buf, NULL, 10);
	*compare_after = -1;
	err = hg_store_meta_get(store, "previous_ingest_report_id", buf, sizeof buf);
	if (err == 0)
		*compare_after = strtoll(buf, NULL, 10);
	return err == HG_EINVAL ? 0 : err;
}

/* The rows of diff_sql, judged and handed to fn; *t the sets' totals. */
static int diff_rows(hg_store *store, enum diff_mode mode, const hg_diff_query *q, int64_t first,
		     int64_t compare_after, const struct rates *rates, const struct esc_set *esc,
		     hg_diff_fn fn, void *user, hg_diff_totals *t)
{
	hg_db_stmt *st = db_stmt(store->db, S_DIFF, diff_sql);
	if (!st)
		return store_fail(store, HG_EIO, "cannot compare clusters");
	db_bind_int(st, 1, mode);
	db_bind_text(st, 2, mode == BY_VERSION ? q->baseline_version : q->since);
	db_bind_text(st, 3, mode == BY_VERSION ? q->version : q->until);
	db_bind_int(st, 4, first);
	db_bind_int(st, 5, mode == BY_RUN && compare_after >= 0 ? compare_after : -1);
	int rc, ret = 0;
	bool told = false;
	while ((rc = db_step(st)) == DB_ROW) {
		if (!told) {
			t->old_reports = db_col_int(st, 8);
			t->new_reports = db_col_int(st, 9);
			t->new_set_clusters = db_col_int(st, 10);
			t->baseline = t->old_reports == 0;
			told = true;
		}
		if (t->baseline)
			break; /* nothing to compare with: no row is new */
		hg_diff_row row = {
			.hash = db_col_text(st, 0),
			.kind = db_col_text(st, 1),
			.title = db_col_text(st, 2),
			.old_count = db_col_int(st, 4),
			.new_count = db_col_int(st, 5),
			.old_p90 = db_col_int(st, 6),
			.new_p90 = db_col_int(st, 7),
			.cost_unknown = db_col_int(st, 11) == 0,
		};
		fps_sides(st, &row);
		row.escalating = esc_set_has(esc, row.hash);
		rate_row(rates, &row);
		if (!(row.status = status_of(&row, db_col_int(st, 3), db_col_int(st, 20),
					     t->new_reports, q)))
			continue;
		t->fresh += row.status[0] == 'n';
		t->regressed += row.status[0] == 'r';
		t->gone += row.status[0] == 'g';
		if ((ret = fn(user, &row)) != 0)
			break;
	}
	if (!told)
		t->baseline = true; /* no reports at all */
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot compare clusters");
}

int hg_store_diff(hg_store *store, const hg_diff_query *q, hg_diff_fn fn, void *user,
		  hg_diff_totals *totals)
{
	hg_diff_totals t = {0};
	if (totals)
		*totals = t;
	if (!q || (!q->baseline_version != !q->version) || (q->until && !q->since) ||
	    !(q->threshold >= 0) || !(q->min_rise >= 0) ||
	    (q->by_report_id && q->after_report_id < 0))
		return HG_EINVAL;
	enum diff_mode mode = q->by_report_id ? BY_RUN : q->version ? BY_VERSION
			    : q->since ? BY_TIME : BY_RUN;
	int64_t first = q->by_report_id ? q->after_report_id : 0;
	int64_t compare_after = q->by_report_id ? q->compare_after_id : -1;
	if (mode == BY_RUN && !q->by_report_id) {
		int err = run_marks(store, &first, &compare_after);
		if (err)
			return err;
	}
	struct rates rates = {.asked = q->sessions != NULL,
			      .sessions = mode == BY_RUN ? NULL : q->sessions};
	struct esc_set esc;
	int err = load_escalating(store, mode, q, &esc);
	if (!err && (err = load_rates(store, mode, q, &rates)) != 0)
		esc_set_release(&esc);
	if (err) {
		release_rates(&rates);
		return err;
	}
	int ret = diff_rows(store, mode, q, first, compare_after, &rates, &esc, fn, user, &t);
	if (totals)
		*totals = t;
	release_rates(&rates);
	esc_set_release(&esc);
	return ret;
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
