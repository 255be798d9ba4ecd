/* hangar diff's two sets, per cluster, from rollups: by version, each
 * version's rollups; by time, the rollups of the days before since and of
 * since..until (partial days from their reports); by ingest run, the
 * run's reports (and the run before it) read by id, the rest as the
 * rollups of all time less them.  Nothing here reads every report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_diff_sets.h"
#include "store_internal.h"
#include "store_rollup_read.h"

static struct diff_cluster *cluster_of(struct diff_sets *d, const char *hash)
{
	int64_t i;
	if (strmap_get(&d->index, hash, &i))
		return &d->items[i];
	if (d->len == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct diff_cluster *v = realloc(d->items, cap * sizeof *v);
		if (!v)
			return NULL;
		d->items = v;
		d->cap = cap;
	}
	struct diff_cluster *c = &d->items[d->len];
	*c = (struct diff_cluster){0};
	snprintf(c->hash, sizeof c->hash, "%s", hash);
	for (int s = 0; s < DIFF_SIDES; s++)
		c->side[s].cost_max = -1;
	if (strmap_put(&d->index, hash, (int64_t)d->len) != 0)
		return NULL;
	return &d->items[d->len++];
}

struct side_walk {
	struct diff_sets *d;
	int side;
};

static int add_to_side(void *user, const char *cluster, const char *day, const char *version,
		       struct rollup *r)
{
	struct side_walk *w = user;
	struct diff_cluster *c = cluster_of(w->d, cluster ? cluster : "");
	if (!c)
		return HG_ENOMEM;
	int rate_side = w->side == DIFF_NEW ? 1 : 0;
	if (w->d->sessions && w->side != DIFF_CMP &&
	    hg_sessions_counts(w->d->sessions, &w->d->scope[rate_side], version, day))
		c->rated[rate_side] += r->reports;
	return rollup_merge(&c->side[w->side], r);
}

static int walk(hg_store *store, struct diff_sets *d, int side, const char *version,
		const struct store_window *window)
{
	struct side_walk w = {d, side};
	struct rollup_filter f = {.version = version, .window = window, .no_devices = true};
	return store_rollup_each(store, &f, add_to_side, &w);
}

/* The reports with id > from: those past first in the new set, the others
 * (the run before) in the comparison set. */
static int run_rows(hg_store *store, struct diff_sets *d, int64_t from, int64_t first)
{
	hg_db_stmt *st = db_stmt(store->db, S_DIFF_RUN_ROWS,
		"SELECT r.id, r.cluster, r.time, r.device, r.cost, coalesce(g.cost_known, 1), "
		ROLLUP_FIG_SQL("g") " FROM reports r LEFT JOIN figures g ON g.report = r.id WHERE r.id > ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot compare clusters");
	db_bind_int(st, 1, from);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		struct diff_cluster *c = cluster_of(d, db_col_text(st, 1) ? db_col_text(st, 1) : "");
		if (!c) {
			err = HG_ENOMEM;
			break;
		}
		struct rollup *r = &c->side[db_col_int(st, 0) > first ? DIFF_NEW : DIFF_CMP];
		err = rollup_add_report(r, db_col_text(st, 2), db_col_text(st, 3), db_col_int(st, 4),
					db_col_int(st, 5) != 0, NULL);
		if (!err) {
			struct rollup_figs f;
			rollup_figs_columns(st, 6, &f);
			rollup_figs_add(&r->fig, &f, 1);
		}
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot compare clusters") : 0;
}

/* a -= b, for what diff reads of a side: counts, costs, FPS sums. */
static int subtract(struct rollup *a, const struct rollup *b)
{
	a->reports -= b->reports;
	a->no_device -= b->no_device;
	rollup_figs_add(&a->fig, &b->fig, -1);
	for (size_t i = 0; i < b->costs.len; i++)
		if (cost_hist_add(&a->costs, b->costs.bins[i].value, -b->costs.bins[i].n))
			return HG_ENOMEM;
	return 0;
}

/* A side's copy of another's figures, for the comparison set that is the
 * whole old set. */
static int copy_side(struct rollup *to, struct rollup *from)
{
	rollup_release(to);
	*to = (struct rollup){.cost_max = -1};
	return rollup_merge(to, from);
}

int diff_sets_gather(hg_store *store, const struct diff_plan *p, struct diff_sets *d)
{
	int err = 0;
	if (p->by_run) {
		/* everything, then the run's reports (and the run before) taken out */
		err = walk(store, d, DIFF_OLD, NULL, NULL);
		int64_t from = p->compare_after >= 0 && p->compare_after < p->first ? p->compare_after
										: p->first;
		if (!err)
			err = run_rows(store, d, from, p->first);
		for (size_t i = 0; !err && i < d->len; i++) {
			struct diff_cluster *c = &d->items[i];
			err = subtract(&c->side[DIFF_OLD], &c->side[DIFF_NEW]);
			if (!err && p->compare_after < 0)
				err = copy_side(&c->side[DIFF_CMP], &c->side[DIFF_OLD]);
		}
	} else if (p->old_version) {
		/* a report is in one set: the old one when both name its version */
		err = walk(store, d, DIFF_OLD, p->old_version, NULL);
		if (!err && strcmp(p->old_version, p->new_version) != 0)
			err = walk(store, d, DIFF_NEW, p->new_version, NULL);
	} else {
		struct store_window old, fresh;
		if (store_window_make(&old, NULL, p->since, false) != 0 ||
		    store_window_make(&fresh, p->since, p->until, false) != 0)
			return store_fail(store, HG_EINVAL, "cannot read the diff's window");
		err = walk(store, d, DIFF_OLD, NULL, &old);
		if (!err)
			err = walk(store, d, DIFF_NEW, NULL, &fresh);
	}
	for (size_t i = 0; !err && !p->by_run && i < d->len; i++)
		err = copy_side(&d->items[i].side[DIFF_CMP], &d->items[i].side[DIFF_OLD]);
	for (size_t i = 0; i < d->len; i++)
		for (int s = 0; s < DIFF_SIDES; s++)
			cost_hist_normalize(&d->items[i].side[s].costs);
	return err;
}

void diff_sets_release(struct diff_sets *d)
{
	for (size_t i = 0; i < d->len; i++)
		for (int s = 0; s < DIFF_SIDES; s++)
			rollup_release(&d->items[i].side[s]);
	free(d->items);
	strmap_clear(&d->index);
}
