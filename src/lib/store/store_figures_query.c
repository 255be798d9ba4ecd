/* One cluster's figures by version (from its rollups, as hg_store_top
 * reads every cluster's) or by scene (the figures table back, which
 * store_figures.c writes): hangar show, the digest. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup_read.h"

/* The columns both queries read, after their first (the group): sums
 * that SQL can do for a whole cluster at once. */
#define FIG_SUMS                                                                        \
	"count(*), sum(f.cost_known = 0), sum(f.total IS NOT NULL), sum(f.start = 'cold'),"   \
	" sum(f.start = 'warm'), count(f.fps), total(f.fps), sum(f.frames), sum(f.frozen),"   \
	" sum(f.high)"

/* The figures of columns from..from+9 (FIG_SUMS). */
static void read_sums(hg_db_stmt *st, int from, hg_figures *f)
{
	*f = (hg_figures){0};
	f->reports = db_col_int(st, from);
	f->unmeasured = db_col_int(st, from + 1);
	f->startups = db_col_int(st, from + 2);
	f->cold = db_col_int(st, from + 3);
	f->warm = db_col_int(st, from + 4);
	f->fps_reports = db_col_int(st, from + 5);
	f->fps_mean = f->fps_reports ? db_col_double(st, from + 6) / (double)f->fps_reports : 0;
	f->frames = db_col_int(st, from + 7);
	f->frozen = db_col_int(st, from + 8);
	f->high = db_col_int(st, from + 9);
	f->frozen_high_share = f->frames > 0 ? (double)(f->frozen + f->high) / (double)f->frames
					     : -1;
}

/* ---- one cluster by version or scene ---- */

struct group {
	char *value;            /* NULL: reports without one */
	hg_figures f;
	int64_t *totals;        /* the startup totals, ascending (the query's order) */
	size_t n_totals, cap_totals;
};

static int64_t nearest_rank(const int64_t *v, size_t n, int p)
{
	size_t r = (n * (size_t)p + 99) / 100;
	return n ? v[r ? r - 1 : 0] : 0;
}

static int by_reports(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->f.reports != y->f.reports)
		return x->f.reports > y->f.reports ? -1 : 1;
	if (!x->value || !y->value)
		return !x->value - !y->value;
	return strcmp(x->value, y->value);
}

static void release_groups(struct group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].value);
		free(g[i].totals);
	}
	free(g);
}

static bool same_value(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A startup total of the group (they come in ascending order), for its
 * percentiles. */
static int add_total(struct group *g, int64_t total)
{
	if (g->n_totals == g->cap_totals) {
		size_t c = g->cap_totals ? 2 * g->cap_totals : 16;
		int64_t *p = realloc(g->totals, c * sizeof *p);
		if (!p)
			return HG_ENOMEM;
		g->totals = p;
		g->cap_totals = c;
	}
	g->totals[g->n_totals++] = total;
	return 0;
}

static int read_groups(hg_store *store, hg_db_stmt *st, struct group **out, size_t *n)
{
	struct group *g = NULL;
	size_t len = 0, cap = 0;
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		const char *value = db_col_text(st, 0);
		if (!len || !same_value(g[len - 1].value, value)) {
			if (len == cap) {
				size_t c = cap ? 2 * cap : 8;
				struct group *p = realloc(g, c * sizeof *p);
				if (!p) {
					err = HG_ENOMEM;
					break;
				}
				g = p;
				cap = c;
			}
			g[len] = (struct group){0};
			if (value && !(g[len].value = strdup(value)))
				err = HG_ENOMEM;
			len++;
			if (err)
				break;
			read_sums(st, 4, &g[len - 1].f); /* the group's sums, on each of its rows */
		}
		if (!db_col_null(st, 1) && db_col_int(st, 2) == 0)
			err = add_total(&g[len - 1], db_col_int(st, 1));
	}
	db_reset(st);
	if (!err && rc < 0)
		err = store_check(store, rc, "cannot query figures");
	if (err) {
		release_groups(g, len);
		return err;
	}
	*out = g;
	*n = len;
	return 0;
}

/* ---- by version: from the rollups ---- */

struct by_version {
	struct group *g;
	struct rollup *sums;      /* one per group */
	size_t len, cap;
};

static int on_rollup(void *user, const char *cluster, const char *day, const char *version,
		     struct rollup *r)
{
	(void)cluster;
	(void)day;
	struct by_version *v = user;
	size_t i = 0;
	while (i < v->len && !same_value(v->g[i].value, version))
		i++;
	if (i == v->len) {
		if (v->len == v->cap) {
			size_t c = v->cap ? 2 * v->cap : 8;
			struct group *g = realloc(v->g, c * sizeof *g);
			if (g)
				v->g = g;
			struct rollup *s = g ? realloc(v->sums, c * sizeof *s) : NULL;
			if (!s)
				return HG_ENOMEM;
			v->sums = s;
			v->cap = c;
		}
		v->g[i] = (struct group){0};
		v->sums[i] = (struct rollup){.cost_max = -1};
		if (version && !(v->g[i].value = strdup(version)))
			return HG_ENOMEM;
		v->len++;
	}
	return rollup_merge(&v->sums[i], r);
}

/* The groups of versions whose reports have figures, summed from the
 * cluster's rollups (pruned reports too, as top counts them); a
 * startup's total percentiles from the costs (exact below 16,384 ms). */
static int version_groups(hg_store *store, const char *hash, struct group **out, size_t *n)
{
	struct by_version v = {0};
	struct rollup_filter f = {.cluster = hash, .no_devices = true};
	int err = store_rollup_each(store, &f, on_rollup, &v);
	size_t kept = 0;
	for (size_t i = 0; i < v.len; i++) {
		if (!err && v.sums[i].fig.n > 0) {
			v.g[i].f = rollup_figures(&v.sums[i]);
			v.g[kept++] = v.g[i];
		} else {
			free(v.g[i].value);
		}
		rollup_release(&v.sums[i]);
	}
	free(v.sums);
	if (err) {
		release_groups(v.g, kept);
		return err;
	}
	*out = v.g;
	*n = kept;
	return 0;
}

int hg_store_cluster_figures(hg_store *store, const char *hash, const char *by,
			     hg_figures_fn fn, void *user)
{
	/* Each row: the group, a startup total (NULL for none), whether the
	 * cost was unmeasured, then its group's sums (joined: one pass of
	 * SQL's per group). */
#define GROUP_SQL(col)                                                                        \
	"SELECT " col ", f.total, f.cost_known = 0, s.* FROM figures f"                        \
	" JOIN reports r ON r.id = f.report JOIN (SELECT " col " AS g, " FIG_SUMS               \
	"  FROM figures f JOIN reports r ON r.id = f.report WHERE r.cluster = ?1"             \
	"  GROUP BY " col ") s ON s.g IS " col " WHERE r.cluster = ?1"                        \
	" ORDER BY " col " IS NULL, " col ", f.total"
	int which = !by ? -1 : !strcmp(by, "version") ? 0 : !strcmp(by, "scene") ? 1 : -1;
	if (which < 0)
		return HG_EINVAL;
	struct group *g;
	size_t n;
	int err;
	if (which == 0) {
		err = version_groups(store, hash, &g, &n);
	} else { /* scenes are not rollup keys: the cluster's figures rows */
		hg_db_stmt *st = db_stmt(store->db, S_FIG_BY_SCENE, GROUP_SQL("r.scene"));
		if (!st)
			return store_fail(store, HG_EIO, "cannot query figures");
		db_bind_text(st, 1, hash);
		err = read_groups(store, st, &g, &n);
		for (size_t i = 0; !err && i < n; i++) {
			g[i].f.total_p50 = nearest_rank(g[i].totals, g[i].n_totals, 50);
			g[i].f.total_p90 = nearest_rank(g[i].totals, g[i].n_totals, 90);
		}
	}
#undef GROUP_SQL
	if (err)
		return err;
	if (n > 1)
		qsort(g, n, sizeof *g, by_reports);
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		ret = fn(user, g[i].value, &g[i].f);
	release_groups(g, n);
	return ret;
}
