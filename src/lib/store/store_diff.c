/* hangar diff's query: two sets of reports (two versions, two time windows,
 * the last ingest run or the reports after an id against everything before
 * it), compared cluster by cluster: counts and cost p90 of each set, from
 * rollups (store_diff_sets.c), judged here.  Also the counts a run's
 * digest needs: reports by kind and by cluster after an id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_trend.h"
#include "store_diff_sets.h"

enum diff_mode { BY_TIME = 0, BY_VERSION = 1, BY_RUN = 2 };

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

/* A cluster's row: its sets' counts, p90s and FPS figures, with its
 * rates (hg_rate_per_1k: -1 when the sessions give none). */
struct row_of {
	struct diff_cluster *c;
	const char *kind, *title;
};

static void fill_row(struct diff_cluster *c, const struct diff_sets *d, bool rated,
		     int64_t sessions[2], hg_diff_row *row)
{
	struct rollup *cmp = &c->side[DIFF_CMP], *now = &c->side[DIFF_NEW];
	row->old_count = cmp->reports;
	row->new_count = now->reports;
	row->old_p90 = cost_hist_rank(&cmp->costs, 90);
	row->new_p90 = cost_hist_rank(&now->costs, 90);
	row->cost_unknown = !c->side[DIFF_OLD].costs.len && !now->costs.len;
	const struct rollup_figs *o = &cmp->fig, *n = &now->fig;
	row->old_fps_reports = o->fps_n;
	row->new_fps_reports = n->fps_n;
	row->old_fps = o->fps_n ? o->fps / (double)o->fps_n : 0;
	row->new_fps = n->fps_n ? n->fps / (double)n->fps_n : 0;
	row->old_share = o->frames > 0 ? (double)(o->frozen + o->high) / (double)o->frames : -1;
	row->new_share = n->frames > 0 ? (double)(n->frozen + n->high) / (double)n->frames : -1;
	row->rated = rated;
	row->old_rate = row->new_rate = -1;
	if (d->sessions) {
		row->old_rate = hg_rate_per_1k(c->rated[0], sessions[0]);
		row->new_rate = hg_rate_per_1k(c->rated[1], sessions[1]);
	}
}

/* New first, then those in both sets, then gone; by count in the new set,
 * then in the comparison set, then hash. */
static int by_group(const void *a, const void *b)
{
	const struct diff_cluster *x = ((const struct row_of *)a)->c, *y = ((const struct row_of *)b)->c;
	int gx = !x->side[DIFF_OLD].reports ? 0 : !x->side[DIFF_NEW].reports ? 2 : 1;
	int gy = !y->side[DIFF_OLD].reports ? 0 : !y->side[DIFF_NEW].reports ? 2 : 1;
	if (gx != gy)
		return gx - gy;
	int64_t nx = x->side[DIFF_NEW].reports, ny = y->side[DIFF_NEW].reports;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	nx = x->side[DIFF_CMP].reports;
	ny = y->side[DIFF_CMP].reports;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return strcmp(x->hash, y->hash);
}

/* The clusters of the sets that the store has (kind and title), in
 * order: into *out (n), strings owned by the clusters' statement rows
 * copied into titles. */
static int known_rows(hg_store *store, struct diff_sets *d, struct row_of **out,
		      size_t *n, char ***texts)
{
	*out = calloc(d->len ? d->len : 1, sizeof **out);
	*texts = calloc(2 * (d->len ? d->len : 1), sizeof **texts);
	*n = 0;
	if (!*out || !*texts)
		return HG_ENOMEM;
	hg_db_stmt *st = db_stmt(store->db, S_DIFF_CLUSTERS, "SELECT hash, kind, title FROM clusters");
	if (!st)
		return store_fail(store, HG_EIO, "cannot compare clusters");
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		int64_t i;
		if (!db_col_text(st, 0) || !strmap_get(&d->index, db_col_text(st, 0), &i))
			continue;
		struct diff_cluster *c = &d->items[i];
		if (!c->side[DIFF_OLD].reports && !c->side[DIFF_NEW].reports && !c->side[DIFF_CMP].reports)
			continue;
		char *kind = strdup(db_col_text(st, 1) ? db_col_text(st, 1) : "");
		char *title = strdup(db_col_text(st, 2) ? db_col_text(st, 2) : "");
		(*texts)[2 * *n] = kind;
		(*texts)[2 * *n + 1] = title;
		(*out)[(*n)++] = (struct row_of){c, kind, title};
		err = kind && title ? 0 : HG_ENOMEM;
	}
	db_reset(st);
	if (!err && rc < 0)
		err = store_check(store, rc, "cannot compare clusters");
	if (!err && *n > 1)
		qsort(*out, *n, sizeof **out, by_group);
	return err;
}

/* The clusters' rows, judged and handed to fn; *t the sets' totals. */
static int diff_rows(hg_store *store, struct diff_sets *d, bool rated, int64_t sessions[2],
		     const struct esc_set *esc, const hg_diff_query *q, hg_diff_fn fn, void *user,
		     hg_diff_totals *t)
{
	struct row_of *rows;
	char **texts;
	size_t n;
	int ret = known_rows(store, d, &rows, &n, &texts);
	int64_t cmp_total = 0;
	for (size_t i = 0; !ret && i < n; i++) {
		t->old_reports += rows[i].c->side[DIFF_OLD].reports;
		t->new_reports += rows[i].c->side[DIFF_NEW].reports;
		t->new_set_clusters += rows[i].c->side[DIFF_NEW].reports > 0;
		cmp_total += rows[i].c->side[DIFF_CMP].reports;
	}
	t->baseline = t->old_reports == 0; /* nothing to compare with: no row is new */
	for (size_t i = 0; !ret && !t->baseline && i < n; i++) {
		struct diff_cluster *c = rows[i].c;
		hg_diff_row row = {.hash = c->hash, .kind = rows[i].kind, .title = rows[i].title};
		fill_row(c, d, rated, sessions, &row);
		row.escalating = esc_set_has(esc, row.hash);
		if (!(row.status = status_of(&row, c->side[DIFF_OLD].reports, cmp_total,
					     t->new_reports, q)))
			continue;
		t->fresh += row.status[0] == 'n';
		t->regressed += row.status[0] == 'r';
		t->gone += row.status[0] == 'g';
		ret = fn(user, &row);
	}
	for (size_t i = 0; texts && i < 2 * n; i++)
		free(texts[i]);
	free(texts);
	free(rows);
	return ret;
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
	/* times in the store's form, for the windows and the sessions' scopes */
	char at[2][32] = {"", ""};
	const char *when[2] = {q->since, q->until};
	for (int i = 0; mode == BY_TIME && i < 2; i++)
		if (when[i] && hg_store_time(store, when[i], at[i]) != 0) {
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "not a time: \"%s\"", when[i]);
			return HG_EINVAL;
		}
	struct diff_plan plan = {.by_run = mode == BY_RUN, .first = first,
				 .compare_after = compare_after};
	struct diff_sets d = {.sessions = mode == BY_RUN ? NULL : q->sessions};
	if (mode == BY_VERSION) {
		plan.old_version = d.scope[0].version = q->baseline_version;
		plan.new_version = d.scope[1].version = q->version;
	} else if (mode == BY_TIME) {
		plan.since = d.scope[0].until = d.scope[1].since = at[0];
		plan.until = d.scope[1].until = q->until ? at[1] : NULL;
	}
	int64_t sessions[2] = {-1, -1};
	for (int i = 0; d.sessions && i < 2; i++)
		sessions[i] = hg_sessions_total(d.sessions, &d.scope[i]);
	struct esc_set esc;
	int err = load_escalating(store, mode, q, &esc);
	if (err)
		return err;
	err = diff_sets_gather(store, &plan, &d);
	if (!err)
		err = diff_rows(store, &d, q->sessions != NULL, sessions, &esc, q, fn, user, &t);
	if (totals)
		*totals = t;
	diff_sets_release(&d);
	esc_set_release(&esc);
	return err;
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
