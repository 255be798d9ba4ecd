/* Escalating clusters (hangar-formats(5), ESCALATING): reports per cluster
 * on the latest day of a window and on the days before it, counted in one
 * query over every cluster (the covering index reports_by_cluster holds
 * cluster, version and time), then judged here by the rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_trend.h"

/* ?1 since, ?2 until (either NULL), ?3 1 when the window ends before
 * until, ?4 the days before, ?5 ?6 the clusters' range (one hash, or all),
 * ?7 version, ?8 kind.  The latest report time in the window: without an
 * end, the clusters' own latest (one row each, not a scan of the reports). */
static const char escalate_sql[] =
	"WITH w AS (SELECT " STORE_TIME_SQL("?1") " AS since, " STORE_TIME_SQL("?2") " AS until),"
	" last AS (SELECT CASE WHEN w.until IS NULL"
	"   THEN (SELECT max(last_seen) FROM clusters WHERE w.since IS NULL OR last_seen >= w.since)"
	"   ELSE (SELECT max(time) FROM reports INDEXED BY reports_by_cluster"
	"     WHERE (time < w.until OR (?3 = 0 AND time = w.until))"
	"       AND (w.since IS NULL OR time >= w.since)) END AS t, w.until AS until FROM w),"
	" d AS (SELECT substr(t, 1, 10) AS day, date(substr(t, 1, 10), '-' || ?4 || ' days') AS lo,"
	"   date(substr(t, 1, 10), '+1 day') AS hi, until FROM last WHERE t IS NOT NULL),"
	/* only the clusters seen since that day's start: a cluster's reports
	 * are read through the index by cluster, the others' not at all */
	" active AS (SELECT c.hash FROM d CROSS JOIN clusters c"
	"   WHERE c.last_seen >= d.day AND c.hash BETWEEN ?5 AND ?6),"
	" per AS (SELECT r.cluster, sum(r.time >= d.day) AS today, sum(r.time < d.day) AS before"
	"   FROM d CROSS JOIN active a CROSS JOIN reports r INDEXED BY reports_by_cluster"
	"   WHERE r.cluster = a.hash AND r.time >= d.lo AND r.time < d.hi"
	"     AND (d.until IS NULL OR r.time < d.until OR (?3 = 0 AND r.time = d.until))"
	"     AND (?7 IS NULL OR r.version = ?7)"
	"   GROUP BY r.cluster)"
	" SELECT c.hash, c.kind, c.title, per.today, per.before, d.day,"
	"   CAST(julianday(d.day) - julianday(substr(c.first_seen, 1, 10)) AS INTEGER)"
	" FROM per JOIN clusters c ON c.hash = per.cluster, d"
	" WHERE per.today > 0 AND (?8 IS NULL OR c.kind = ?8)"
	" ORDER BY per.today DESC, c.hash";

/* The rule with its defaults filled in. */
static hg_escalate_rule rule_of(const hg_escalate_rule *r)
{
	hg_escalate_rule x = {HG_ESCALATE_FACTOR, HG_ESCALATE_DAYS, HG_ESCALATE_MIN};
	if (r && r->factor > 0)
		x.factor = r->factor;
	if (r && r->days > 0)
		x.days = r->days < 3660 ? r->days : 3660;
	if (r && r->min > 0)
		x.min = r->min;
	return x;
}

/* Judges one row of escalate_sql. */
static void judge(hg_db_stmt *st, const hg_escalate_rule *rule, hg_escalation *e)
{
	*e = (hg_escalation){
		.hash = db_col_text(st, 0) ? db_col_text(st, 0) : "",
		.kind = db_col_text(st, 1) ? db_col_text(st, 1) : "",
		.title = db_col_text(st, 2) ? db_col_text(st, 2) : "",
		.count = db_col_int(st, 3),
		.before = db_col_int(st, 4),
		.day = db_col_text(st, 5) ? db_col_text(st, 5) : "",
	};
	/* days from its first day to that day; unknown (no first_seen): all */
	int64_t age = db_col_null(st, 6) ? rule->days : db_col_int(st, 6);
	e->fresh = age <= 0;
	e->days = e->fresh ? 0 : age < rule->days ? age : rule->days;
	e->mean = e->days ? (double)e->before / (double)e->days : 0;
	e->escalating = !e->fresh && e->count >= rule->min &&
			(double)e->count >= rule->factor * e->mean;
}

int store_escalations(hg_store *store, const struct esc_query *q, hg_escalation_fn fn, void *user)
{
	hg_escalate_rule rule = rule_of(q->rule);
	hg_db_stmt *st = db_stmt(store->db, S_ESCALATE, escalate_sql);
	if (!st)
		return store_fail(store, HG_EIO, "cannot count reports per day");
	char days[16];
	snprintf(days, sizeof days, "%d", rule.days);
	db_bind_text(st, 1, q->since);
	db_bind_text(st, 2, q->until);
	db_bind_int(st, 3, q->until_excl);
	db_bind_text(st, 4, days);
	db_bind_text(st, 5, q->hash ? q->hash : "");
	db_bind_text(st, 6, q->hash ? q->hash : "\xff");
	db_bind_text(st, 7, q->version);
	db_bind_text(st, 8, q->kind);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_escalation e;
		judge(st, &rule, &e);
		if ((ret = fn(user, &e)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot count reports per day");
}

int hg_store_escalations(hg_store *store, const hg_top_query *q, hg_escalation_fn fn, void *user)
{
	static const hg_top_query all = {0};
	q = q ? q : &all;
	struct esc_query e = {.since = q->since, .until = q->until, .version = q->version,
			      .kind = q->kind, .rule = q->escalate};
	return store_escalations(store, &e, fn, user);
}

/* ---- the escalating ones, by hash ---- */

static int by_hash(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int keep(void *user, const hg_escalation *e)
{
	struct esc_set *set = user;
	if (!e->escalating)
		return 0;
	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 16;
		char(*v)[33] = realloc(set->hashes, cap * sizeof *v);
		if (!v)
			return HG_ENOMEM;
		set->hashes = v;
		set->cap = cap;
	}
	snprintf(set->hashes[set->n++], 33, "%s", e->hash);
	return 0;
}

int esc_set_load(hg_store *store, const struct esc_query *q, struct esc_set *out)
{
	*out = (struct esc_set){0};
	int err = store_escalations(store, q, keep, out);
	if (err) {
		esc_set_release(out);
		return err;
	}
	if (out->n > 1)
		qsort(out->hashes, out->n, sizeof *out->hashes, by_hash);
	return 0;
}

bool esc_set_has(const struct esc_set *set, const char *hash)
{
	return hash && set->n && bsearch(hash, set->hashes, set->n, sizeof *set->hashes, by_hash);
}

void esc_set_release(struct esc_set *set)
{
	free(set->hashes);
	*set = (struct esc_set){0};
}
