/* hangar prune: retention.  The reports older than a cutoff are dropped,
 * but for a few samples per cluster, in transactions of a bounded range of
 * report ids; then the file gives back the pages they held.  What the
 * queries keep of old reports (clusters, merged trees, rollups) stays.
 *
 * Every selection reads the reports' age, coalesce(time, ingested_at),
 * which the index reports_by_cluster covers with the id and the cluster:
 * choosing the samples and the id range to walk reads that index, never
 * the texts.  No index is added for prune: a batch reads its id range of
 * the table by primary key, which it must read to delete from anyway.
 *
 * Measured on a store of 400,000 generated reports (scripts/gen-bench-data
 * --scale 400000), deleting 90% of them in batches of 20,000 ids on this
 * 2-core machine (shared: times vary by half from run to run): 21 s
 * deleting each batch in one statement, in id order.  Most of it is SQLite
 * keeping the indexes: for each entry deleted, a seek, and a walk of its
 * 64 KiB page's list of free blocks, on pages all over the index at every
 * report.  Deleting a batch's reports one by one in content_hash order
 * (find_victims), with a bigger page cache and secure_delete FAST
 * (store_vacuum.c): 9-12 s.  Setting reports_by_cluster and
 * reports_by_time aside (DROP INDEX, built again at the end) took it to
 * 5-6 s, but is not done: queries name them (INDEXED BY) and would fail
 * meanwhile, and after a prune killed in between. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_prune.h"

/* A report's age, as SQL: its time, or when it was ingested. */
#define AGE "coalesce(time, ingested_at)"
/* The reports of a batch: ids [?1, ?2), older than ?3, not a sample (?4: a
 * JSON array of the samples' ids in the range). */
#define IN_BATCH                                                                        \
	" id >= ?1 AND id < ?2 AND " AGE " < ?3"                                        \
	" AND id NOT IN (SELECT value FROM json_each(?4))"
/* Rejected inputs dropped per transaction: each may keep up to a MiB. */
#define REJECTED_STEP 1000

struct prune {
	hg_store *store;
	const hg_prune_query *q;
	hg_prune_stats *s;
	int64_t *samples;     /* sorted ids */
	size_t n_samples;
	int64_t *victims;     /* the batch's reports to drop, by content_hash */
	size_t n_victims, cap_victims;
};

/* The cutoff: keep_days before now (both in the store's form). */
static int cutoff_of(struct prune *p)
{
	hg_store *store = p->store;
	if (p->q->now) {
		if (hg_store_time(store, p->q->now, p->s->now) != 0) {
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "prune: now '%s' is not a time", p->q->now);
			return HG_EINVAL;
		}
	} else {
		store_time_now(p->s->now);
	}
	hg_db_stmt *st = db_stmt(store->db, S_PR_CUTOFF,
				 "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', ?1, printf('-%d days', ?2))");
	if (!st)
		return store_fail(store, HG_EIO, "cannot compute the cutoff");
	db_bind_text(st, 1, p->s->now);
	db_bind_int(st, 2, p->q->keep_days);
	int rc = db_step(st);
	if (rc == DB_ROW && db_col_text(st, 0))
		snprintf(p->s->cutoff, sizeof p->s->cutoff, "%s", db_col_text(st, 0));
	db_reset(st);
	if (rc < 0)
		return store_check(store, rc, "cannot compute the cutoff");
	if (!p->s->cutoff[0]) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "prune: %lld days before %s is not a time", (long long)p->q->keep_days,
			 p->s->now);
		return HG_EINVAL;
	}
	return 0;
}

/* The samples: per cluster, the keep_samples newest reports past the
 * cutoff, as sorted ids.  A prune never drops one, so a prune run again
 * with the same cutoff after a kill finds the same samples. */
static int find_samples(struct prune *p)
{
	hg_store *store = p->store;
	if (p->q->keep_samples <= 0)
		return 0;
	hg_db_stmt *st = db_stmt(store->db, S_PR_SAMPLES,
		"SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY cluster"
		" ORDER BY " AGE " DESC, id DESC) AS rn FROM reports WHERE " AGE " < ?1)"
		" WHERE rn <= ?2 ORDER BY id");
	if (!st)
		return store_fail(store, HG_EIO, "cannot choose the samples");
	db_bind_text(st, 1, p->s->cutoff);
	db_bind_int(st, 2, p->q->keep_samples);
	size_t cap = 0;
	int rc, err = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		if (p->n_samples == cap) {
			cap = cap ? 2 * cap : 1024;
			int64_t *v = realloc(p->samples, cap * sizeof *v);
			if (!v) {
				err = HG_ENOMEM;
				break;
			}
			p->samples = v;
		}
		p->samples[p->n_samples++] = db_col_int(st, 0);
	}
	db_reset(st);
	if (!err && rc < 0)
		err = store_check(store, rc, "cannot choose the samples");
	p->s->samples = (int64_t)p->n_samples;
	return err;
}

/* The first sample index with an id >= id. */
static size_t sample_at(const struct prune *p, int64_t id)
{
	size_t lo = 0, hi = p->n_samples;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->samples[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The JSON array of the samples' ids in [lo, hi), bound as ?4 of IN_BATCH
 * (b must live until the statement is reset). */
static int samples_json(const struct prune *p, int64_t lo, int64_t hi, hg_buf *b)
{
	hg_buf_reset(b);
	hg_buf_putc(b, '[');
	for (size_t i = sample_at(p, lo); i < p->n_samples && p->samples[i] < hi; i++) {
		if (b->len > 1)
			hg_buf_putc(b, ',');
		hg_buf_int(b, p->samples[i]);
	}
	hg_buf_putc(b, ']');
	return b->failed ? HG_ENOMEM : 0;
}

static void bind_batch(hg_db_stmt *st, const struct prune *p, int64_t lo, int64_t hi,
		       const hg_buf *ids)
{
	db_bind_int(st, 1, lo);
	db_bind_int(st, 2, hi);
	db_bind_text(st, 3, p->s->cutoff);
	db_bind_text_n(st, 4, ids->data, ids->len);
}

/* Adds n reports of kind to the stats. */
static int count_kind(hg_prune_stats *s, const char *kind, int64_t n)
{
	kind = kind ? kind : "";
	for (size_t i = 0; i < s->n_kinds; i++)
		if (!strncmp(s->kinds[i].kind, kind, sizeof s->kinds[i].kind - 1)) {
			s->kinds[i].reports += n;
			return 0;
		}
	hg_prune_kind *v = realloc(s->kinds, (s->n_kinds + 1) * sizeof *v);
	if (!v)
		return HG_ENOMEM;
	s->kinds = v;
	hg_prune_kind *k = &s->kinds[s->n_kinds++];
	snprintf(k->kind, sizeof k->kind, "%s", kind);
	k->reports = n;
	return 0;
}

/* Counts what a batch drops (or would). */
static int count_batch(struct prune *p, int64_t lo, int64_t hi, const hg_buf *ids)
{
	hg_store *store = p->store;
	hg_db_stmt *st = db_stmt(store->db, S_PR_COUNT,
		"SELECT kind, count(*), sum(length(text)) FROM reports WHERE" IN_BATCH
		" GROUP BY kind");
	if (!st)
		return store_fail(store, HG_EIO, "cannot count the reports to prune");
	bind_batch(st, p, lo, hi, ids);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		p->s->reports += db_col_int(st, 1);
		p->s->text_bytes += db_col_int(st, 2);
		err = count_kind(p->s, db_col_text(st, 0), db_col_int(st, 1));
	}
	db_reset(st);
	return err ? err : store_check(store, rc, "cannot count the reports to prune");
}

/* The batch's reports to drop, counted, into p->victims in the order of
 * content_hash: deleted in that order, the entries of its index go a page
 * after another instead of all over the index at each report (a batch
 * took a third less).  A db.h result. */
static int find_victims(struct prune *p, int64_t lo, int64_t hi, const hg_buf *ids)
{
	hg_db_stmt *st = db_stmt(p->store->db, S_PR_VICTIMS,
		"SELECT id, kind, length(text) FROM reports WHERE" IN_BATCH " ORDER BY content_hash");
	if (!st)
		return DB_ERROR;
	bind_batch(st, p, lo, hi, ids);
	p->n_victims = 0;
	int rc;
	while ((rc = db_step(st)) == DB_ROW) {
		if (p->n_victims == p->cap_victims) {
			size_t cap = p->cap_victims ? 2 * p->cap_victims : 1024;
			int64_t *v = realloc(p->victims, cap * sizeof *v);
			if (!v) {
				rc = DB_ENOMEM;
				break;
			}
			p->victims = v;
			p->cap_victims = cap;
		}
		p->victims[p->n_victims++] = db_col_int(st, 0);
		p->s->reports++;
		p->s->text_bytes += db_col_int(st, 2);
		if (count_kind(p->s, db_col_text(st, 1), 1) != 0) {
			rc = DB_ENOMEM;
			break;
		}
	}
	db_reset(st);
	return rc;
}

/* Deletes the batch's reports, then the rows of report_facts and figures
 * left without their report in its range (inside the caller's
 * transaction); a db.h result. */
static int delete_batch(struct prune *p, int64_t lo, int64_t hi)
{
	hg_db *db = p->store->db;
	hg_db_stmt *st = db_stmt(db, S_PR_DEL_REPORTS, "DELETE FROM reports WHERE id = ?1");
	if (!st)
		return DB_ERROR;
	int rc = 0;
	for (size_t i = 0; rc >= 0 && i < p->n_victims; i++) {
		db_bind_int(st, 1, p->victims[i]);
		rc = db_step(st);
		db_reset(st);
	}
	static const struct {
		int slot;
		const char *sql;
	} orphans[] = {
		{S_PR_DEL_FACTS, "DELETE FROM report_facts WHERE report >= ?1 AND report < ?2 AND"
				 " NOT EXISTS (SELECT 1 FROM reports r WHERE r.id = report_facts.report)"},
		{S_PR_DEL_FIGURES, "DELETE FROM figures WHERE report >= ?1 AND report < ?2 AND"
				   " NOT EXISTS (SELECT 1 FROM reports r WHERE r.id = figures.report)"},
	};
	for (size_t i = 0; rc >= 0 && i < sizeof orphans / sizeof *orphans; i++) {
		if (!(st = db_stmt(db, orphans[i].slot, orphans[i].sql)))
			return DB_ERROR;
		db_bind_int(st, 1, lo);
		db_bind_int(st, 2, hi);
		rc = db_step(st);
		db_reset(st);
	}
	return rc;
}

/* One batch, [lo, hi): counted, and deleted in a transaction of its own
 * unless this is a dry run. */
static int prune_batch(struct prune *p, int64_t lo, int64_t hi, hg_buf *ids)
{
	hg_store *store = p->store;
	int err = samples_json(p, lo, hi, ids);
	if (err)
		return err;
	if (p->q->dry_run)
		return count_batch(p, lo, hi, ids);
	int rc = store_begin_immediate(store);
	if (rc < 0)
		return store_check(store, rc, "cannot lock the store to prune it");
	rc = find_victims(p, lo, hi, ids);
	if (rc >= 0)
		rc = delete_batch(p, lo, hi);
	err = store_check(store, rc, "cannot delete old reports");
	if (!err)
		err = store_check(store, store_commit(store), "cannot delete old reports");
	else if (db_in_transaction(store->db))
		db_exec(store->db, "ROLLBACK");
	return err;
}

/* The ids of the reports past the cutoff lie in [*lo, *end). */
static int old_reports(struct prune *p, int64_t *lo, int64_t *end)
{
	hg_store *store = p->store;
	hg_db_stmt *st = db_stmt(store->db, S_PR_BOUNDS,
				 "SELECT min(id), max(id) FROM reports WHERE " AGE " < ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot find the old reports");
	db_bind_text(st, 1, p->s->cutoff);
	int rc = db_step(st);
	bool any = rc == DB_ROW && !db_col_null(st, 0);
	*lo = any ? db_col_int(st, 0) : 0;
	*end = any ? db_col_int(st, 1) + 1 : 0;
	db_reset(st);
	return store_check(store, rc, "cannot find the old reports");
}

/* The old reports, walked a batch of ids at a time. */
static int prune_reports(struct prune *p)
{
	int64_t lo = 0, end = 0;
	int err = old_reports(p, &lo, &end);
	int64_t step = p->q->batch > 0 ? p->q->batch : HG_PRUNE_BATCH;
	hg_buf ids;
	hg_buf_init(&ids);
	for (; !err && lo < end; lo += step)
		err = prune_batch(p, lo, end - lo > step ? lo + step : end, &ids);
	hg_buf_release(&ids);
	return err;
}

/* The rejected inputs recorded before the cutoff, REJECTED_STEP per
 * transaction (their `at` has no milliseconds: read in the store's form). */
static int prune_rejected(struct prune *p)
{
	hg_store *store = p->store;
	if (p->q->dry_run) {
		hg_db_stmt *st = db_stmt(store->db, S_PR_REJECTED,
			"SELECT count(*) FROM rejected WHERE " STORE_TIME_SQL("at") " < ?1");
		if (!st)
			return store_fail(store, HG_EIO, "cannot count the old rejected inputs");
		db_bind_text(st, 1, p->s->cutoff);
		int rc = db_step(st);
		p->s->rejected = rc == DB_ROW ? db_col_int(st, 0) : 0;
		db_reset(st);
		return store_check(store, rc, "cannot count the old rejected inputs");
	}
	for (;;) {
		int rc = store_begin_immediate(store);
		hg_db_stmt *st = rc < 0 ? NULL : db_stmt(store->db, S_PR_DEL_REJECTED,
			"DELETE FROM rejected WHERE id IN (SELECT id FROM rejected WHERE "
			STORE_TIME_SQL("at") " < ?1 ORDER BY id LIMIT ?2)");
		int64_t n = 0;
		if (st) {
			db_bind_text(st, 1, p->s->cutoff);
			db_bind_int(st, 2, REJECTED_STEP);
			rc = db_step(st);
			db_reset(st);
			n = rc >= 0 ? db_changes(store->db) : 0;
		} else if (rc >= 0) {
			rc = DB_ERROR;
		}
		if (rc >= 0)
			rc = store_commit(store);
		else if (db_in_transaction(store->db))
			db_exec(store->db, "ROLLBACK");
		if (rc < 0)
			return store_check(store, rc, "cannot delete old rejected inputs");
		p->s->rejected += n;
		if (n < REJECTED_STEP)
			return 0;
	}
}

/* meta's pruned_before, before anything is deleted: from then on, what a
 * day before it held is no longer all in the reports (hangar check, the
 * rollups' rebuild).  The latest cutoff of all runs. */
static int mark_pruned(struct prune *p)
{
	hg_store *store = p->store;
	int rc = store_begin_immediate(store);
	if (rc < 0)
		return store_check(store, rc, "cannot lock the store to prune it");
	hg_db_stmt *st = db_stmt(store->db, S_PR_MARK,
		"INSERT INTO meta(key, value) VALUES('pruned_before', ?1)"
		" ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)");
	rc = st ? 0 : DB_ERROR;
	if (st) {
		db_bind_text(st, 1, p->s->cutoff);
		rc = db_step(st);
		db_reset(st);
	}
	if (rc >= 0)
		rc = store_commit(store);
	else if (db_in_transaction(store->db))
		db_exec(store->db, "ROLLBACK");
	return store_check(store, rc, "cannot record the cutoff");
}

/* Kinds, most reports first (then by name). */
static int by_count(const void *a, const void *b)
{
	const hg_prune_kind *x = a, *y = b;
	if (x->reports != y->reports)
		return x->reports < y->reports ? 1 : -1;
	return strcmp(x->kind, y->kind);
}

/* The clusters left with only samples, and the reports left. */
static int count_after(struct prune *p)
{
	hg_store *store = p->store;
	hg_db_stmt *st = db_stmt(store->db, S_PR_SAMPLE_CLUSTERS,
		"SELECT count(*) FROM clusters c WHERE NOT EXISTS (SELECT 1 FROM reports r"
		" WHERE r.cluster = c.hash AND " AGE " >= ?1)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot count the clusters");
	db_bind_text(st, 1, p->s->cutoff);
	int rc = db_step(st);
	p->s->sample_clusters = rc == DB_ROW ? db_col_int(st, 0) : 0;
	db_reset(st);
	if (rc >= 0)
		rc = store_query_int(store, S_PR_REPORTS_LEFT, "SELECT count(*) FROM reports",
				     &p->s->reports_left);
	if (rc >= 0 && p->q->dry_run)
		p->s->reports_left -= p->s->reports;
	return store_check(store, rc, "cannot count the reports");
}

/* Everything but the counting of a dry run, which changes nothing. */
static int prune_store(struct prune *p)
{
	hg_store *store = p->store;
	bool dry = p->q->dry_run;
	int err = find_samples(p);
	if (!err && !dry)
		err = mark_pruned(p);
	if (!err)
		err = prune_reports(p);
	if (!err)
		err = prune_rejected(p);
	if (!err)
		err = count_after(p);
	if (!err && !dry)
		err = prune_shrink(store, &p->s->rewritten);
	if (!err && !dry)
		err = prune_store_bytes(store, &p->s->bytes_after);
	return err;
}

int hg_store_prune(hg_store *store, const hg_prune_query *q, hg_prune_stats *stats)
{
	*stats = (hg_prune_stats){.bytes_after = -1};
	if (store->in_batch || q->keep_days < 0 || q->keep_samples < 0)
		return HG_EINVAL;
	struct prune p = {.store = store, .q = q, .s = stats};
	struct prune_conn conn = {0};
	int err = cutoff_of(&p);
	if (!err)
		err = prune_store_bytes(store, &stats->bytes_before);
	if (!err && !q->dry_run)
		err = prune_conn_begin(store, &conn);
	if (!err)
		err = prune_store(&p);
	prune_conn_end(store, &conn);
	if (stats->n_kinds)
		qsort(stats->kinds, stats->n_kinds, sizeof *stats->kinds, by_count);
	free(p.samples);
	free(p.victims);
	return err;
}

void hg_prune_stats_release(hg_prune_stats *stats)
{
	if (!stats)
		return;
	free(stats->kinds);
	stats->kinds = NULL;
	stats->n_kinds = 0;
}
