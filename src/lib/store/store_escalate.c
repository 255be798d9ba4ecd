/* Escalating clusters (hangar-formats(5), ESCALATING): reports per cluster
 * on the latest day of a window and on the days before it, summed from the
 * rollups of those days (the window's partial hours from their reports),
 * then judged here by the rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_trend.h"
#include "store_rollup_read.h"

/* The latest report time of the window (?1 since, NULL: open): without
 * an end, the clusters' own latest (one row each, not the reports). */
static const char latest_sql[] =
	"SELECT max(last_seen) FROM clusters WHERE ?1 IS NULL OR last_seen >= ?1";

/* Per cluster, the reports of the latest day and of the days before it. */
struct esc_count {
	char hash[33];
	int64_t today, before;
};

struct esc_walk {
	char day[11];              /* the latest day */
	char latest[32];           /* the latest report time seen */
	strmap index;
	struct esc_count *v;
	size_t len, cap;
};

static int latest_of(void *user, const char *cluster, const char *day, const char *version,
		     struct rollup *r)
{
	(void)cluster, (void)day, (void)version;
	struct esc_walk *w = user;
	if (*r->last && strcmp(r->last, w->latest) > 0)
		snprintf(w->latest, sizeof w->latest, "%s", r->last);
	return 0;
}

static int count_day(void *user, const char *cluster, const char *day, const char *version,
		     struct rollup *r)
{
	(void)version;
	struct esc_walk *w = user;
	int64_t i;
	if (!cluster || !day)
		return 0;
	if (!strmap_get(&w->index, cluster, &i)) {
		if (w->len == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 64;
			struct esc_count *v = realloc(w->v, cap * sizeof *v);
			if (!v)
				return HG_ENOMEM;
			w->v = v;
			w->cap = cap;
		}
		i = (int64_t)w->len;
		if (strmap_put(&w->index, cluster, i) != 0)
			return HG_ENOMEM;
		w->v[w->len++] = (struct esc_count){0};
		snprintf(w->v[i].hash, sizeof w->v[i].hash, "%s", cluster);
	}
	if (!strcmp(day, w->day))
		w->v[i].today += r->reports;
	else
		w->v[i].before += r->reports;
	return 0;
}

static int by_today(const void *a, const void *b)
{
	const struct esc_count *x = a, *y = b;
	if (x->today != y->today)
		return x->today > y->today ? -1 : 1;
	return strcmp(x->hash, y->hash);
}

/* The latest day of the window and each cluster's reports on it and on
 * the rule's days before, from rollups (edge hours from reports). */
static int count_days(hg_store *store, const struct esc_query *q, const char *since,
		      const char *until, int days, struct esc_walk *w)
{
	struct store_window win;
	struct rollup_filter f = {.window = &win, .counts_only = true};
	int err = 0;
	if (!until) {
		hg_db_stmt *st = db_stmt(store->db, S_ESCALATE, latest_sql);
		if (!st)
			return store_fail(store, HG_EIO, "cannot count reports per day");
		db_bind_text(st, 1, since);
		int rc = db_step(st);
		if (rc == DB_ROW && db_col_text(st, 0))
			snprintf(w->latest, sizeof w->latest, "%s", db_col_text(st, 0));
		db_reset(st);
		if (rc < 0)
			return store_check(store, rc, "cannot count reports per day");
	} else {
		if (store_window_make(&win, since, until, !q->until_excl) != 0)
			return HG_EINVAL;
		err = store_rollup_each(store, &f, latest_of, w);
	}
	if (err || strlen(w->latest) < 10)
		return err;
	memcpy(w->day, w->latest, 10);
	/* from the rule's days before the latest day to the window's end */
	char lo[32];
	if (store_day_start(w->day, -days, lo) != 0 ||
	    store_window_make(&win, lo, until, !q->until_excl) != 0)
		return HG_EINVAL;
	f.version = q->version;
	f.cluster = q->hash;
	return store_rollup_each(store, &f, count_day, w);
}

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

/* Judges one cluster's counts (first_seen: its first report time, NULL
 * unknown). */
static void judge(const struct esc_count *c, const char *kind, const char *title,
		  const char *first_seen, const char *day, const hg_escalate_rule *rule,
		  hg_escalation *e)
{
	*e = (hg_escalation){.hash = c->hash, .kind = kind, .title = title, .count = c->today,
			     .before = c->before, .day = day};
	/* days from its first day to that day; unknown (no first_seen): all */
	char first[32];
	int64_t age = rule->days;
	if (first_seen && strlen(first_seen) >= 10 &&
	    store_day_start(first_seen, 0, first) == 0) {
		char latest[32];
		store_day_start(day, 0, latest);
		age = store_days_between(first, latest);
	}
	e->fresh = age <= 0;
	e->days = e->fresh ? 0 : age < rule->days ? age : rule->days;
	e->mean = e->days ? (double)e->before / (double)e->days : 0;
	e->escalating = !e->fresh && e->count >= rule->min &&
			(double)e->count >= rule->factor * e->mean;
}

int store_escalations(hg_store *store, const struct esc_query *q, hg_escalation_fn fn, void *user)
{
	hg_escalate_rule rule = rule_of(q->rule);
	char at[2][32];
	const char *when[2] = {q->since, q->until};
	for (int i = 0; i < 2; i++)
		if (when[i] && hg_store_time(store, when[i], at[i]) != 0)
			return 0; /* not a time: no report is in the window (as SQL read it) */
	struct esc_walk w = {0};
	int ret = count_days(store, q, q->since ? at[0] : NULL, q->until ? at[1] : NULL, rule.days,
			     &w);
	if (!ret && w.len > 1)
		qsort(w.v, w.len, sizeof *w.v, by_today);
	hg_db_stmt *st = ret ? NULL : db_stmt(store->db, S_ESCALATE_CLUSTER,
		"SELECT kind, title, first_seen FROM clusters WHERE hash = ?1 AND (?2 IS NULL OR kind = ?2)");
	if (!ret && !st)
		ret = store_fail(store, HG_EIO, "cannot count reports per day");
	for (size_t i = 0; !ret && i < w.len && w.v[i].today > 0; i++) {
		db_bind_text(st, 1, w.v[i].hash);
		db_bind_text(st, 2, q->kind);
		int rc = db_step(st);
		if (rc == DB_ROW) {
			hg_escalation e;
			judge(&w.v[i], db_col_text(st, 0) ? db_col_text(st, 0) : "",
			      db_col_text(st, 1) ? db_col_text(st, 1) : "", db_col_text(st, 2), w.day,
			      &rule, &e);
			ret = fn(user, &e);
		} else if (rc < 0) {
			ret = store_check(store, rc, "cannot count reports per day");
		}
		db_reset(st);
	}
	strmap_clear(&w.index);
	free(w.v);
	return ret;
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
