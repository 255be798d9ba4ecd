/* The clusters' figures (hangar top, and show's one cluster): counts,
 * devices, first and last seen, cost percentiles and versions, computed
 * here in one pass over the covering index reports_by_cluster, whose rows
 * come sorted by cluster and cost.  (The same in SQL, window functions and
 * all, took longer than a tenth of the ingest that filled the store.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/text.h"
#include "regex/regex.h"
#include "store_internal.h"
#include "store_trend.h"

/* A cluster's own fields, loaded once. */
struct cluster_info {
	char *hash, *kind, *title, *key_symbol, *frames;
	bool symbolicated;
};

/* One version's count within a cluster. */
struct version_count {
	char *version;      /* "unknown" for none */
	int64_t n;
};

/* A result row: the figures of one cluster, strings owned. */
struct figures {
	const char *sort;   /* the order asked for (top's --sort) */
	const struct cluster_info *info;
	int64_t count, devices, no_device, p50, p90, p99, max;
	int64_t cost_reports;       /* of count, those with a measured cost */
	int64_t rated;              /* of count, those that count against the sessions */
	char *first_seen, *last_seen, *by_version;
	bool has_fig;
	hg_figures fig;
};

struct top {
	hg_store *store;
	struct cluster_info *infos;
	size_t n_infos;
	struct figures *rows;
	size_t n_rows, cap_rows;
	/* the cluster at hand */
	int64_t *costs;
	size_t n_costs, cap_costs;
	strmap devices;      /* distinct */
	int64_t no_device;   /* reports that name no device */
	struct version_count *versions;
	size_t n_versions, cap_versions;
	char *first, *last;
	const char *sort;
	struct cluster_figures *figs; /* FPS and startup figures, by hash */
	size_t n_figs;
	/* rates (the query's sessions and scope; the reports of the cluster at
	 * hand that count against them) and the escalating clusters */
	const hg_sessions *sessions;
	hg_sessions_scope scope;
	char window[2][32];
	int64_t rated;
	struct esc_set escalating;
	int err;
};

static char *dup_text(const char *s, int *err)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*err = HG_ENOMEM;
	return d;
}

static int by_info_hash(const void *a, const void *b)
{
	return strcmp(((const struct cluster_info *)a)->hash, ((const struct cluster_info *)b)->hash);
}

/* Every cluster of kind (NULL: all), sorted by hash; only one when hash. */
static int load_infos(struct top *t, const char *kind, const char *hash)
{
	hg_store *store = t->store;
	hg_db_stmt *st = db_stmt(store->db, S_TOP_CLUSTERS,
		"SELECT hash, kind, title, key_symbol, frames, symbolicated FROM clusters"
		" WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR hash = ?2)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query clusters");
	db_bind_text(st, 1, kind);
	db_bind_text(st, 2, hash);
	size_t cap = 0;
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		if (t->n_infos == cap) {
			cap = cap ? 2 * cap : 256;
			struct cluster_info *v = realloc(t->infos, cap * sizeof *v);
			if (!v) {
				err = HG_ENOMEM;
				break;
			}
			t->infos = v;
		}
		struct cluster_info *c = &t->infos[t->n_infos++];
		*c = (struct cluster_info){0};
		c->hash = dup_text(db_col_text(st, 0) ? db_col_text(st, 0) : "", &err);
		c->kind = dup_text(db_col_text(st, 1) ? db_col_text(st, 1) : "", &err);
		c->title = dup_text(db_col_text(st, 2) ? db_col_text(st, 2) : "", &err);
		c->key_symbol = dup_text(db_col_text(st, 3), &err);
		c->frames = dup_text(db_col_text(st, 4) ? db_col_text(st, 4) : "[]", &err);
		c->symbolicated = db_col_int(st, 5) != 0;
	}
	db_reset(st);
	if (err)
		return err;
	if (rc < 0)
		return store_check(store, rc, "cannot query clusters");
	if (t->n_infos > 1)
		qsort(t->infos, t->n_infos, sizeof *t->infos, by_info_hash);
	return 0;
}

static const struct cluster_info *find_info(const struct top *t, const char *hash)
{
	struct cluster_info key = {.hash = (char *)hash};
	if (!t->n_infos)
		return NULL;
	return bsearch(&key, t->infos, t->n_infos, sizeof *t->infos, by_info_hash);
}

/* ---- one cluster's rows ---- */

static void forget_group(struct top *t)
{
	strmap_clear(&t->devices);
	for (size_t i = 0; i < t->n_versions; i++)
		free(t->versions[i].version);
	free(t->first);
	free(t->last);
	t->first = t->last = NULL;
	t->n_costs = t->n_versions = 0;
	t->no_device = 0;
	t->rated = 0;
}

static int grow(void **v, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 64;
	void *p = realloc(*v, c * size);
	if (!p)
		return HG_ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static bool same_version(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Adds one report (cost in ascending order within its cluster). */
static int add_row(struct top *t, int64_t cost, const char *device, const char *version,
		   const char *when)
{
	if (t->n_costs == t->cap_costs &&
	    grow((void **)&t->costs, &t->cap_costs, sizeof *t->costs))
		return HG_ENOMEM;
	t->costs[t->n_costs++] = cost;
	t->rated += t->sessions && hg_sessions_counts(t->sessions, &t->scope, version, when);
	/* count(DISTINCT device): NULLs do not count */
	if (device && strmap_put(&t->devices, device, 1) != 0)
		return HG_ENOMEM;
	t->no_device += !device;
	/* NULL: the unknown version, kept apart from a version named "unknown" */
	size_t i = 0;
	while (i < t->n_versions && !same_version(t->versions[i].version, version))
		i++;
	if (i == t->n_versions) {
		if (t->n_versions == t->cap_versions &&
		    grow((void **)&t->versions, &t->cap_versions, sizeof *t->versions))
			return HG_ENOMEM;
		t->versions[i].version = NULL;
		if (version && !(t->versions[i].version = strdup(version)))
			return HG_ENOMEM;
		t->versions[i].n = 0;
		t->n_versions++;
	}
	t->versions[i].n++;
	if (when && (!t->first || strcmp(when, t->first) < 0)) {
		free(t->first);
		if (!(t->first = strdup(when)))
			return HG_ENOMEM;
	}
	if (when && (!t->last || strcmp(when, t->last) > 0)) {
		free(t->last);
		if (!(t->last = strdup(when)))
			return HG_ENOMEM;
	}
	return 0;
}

/* Most reports first, then by version text (as SQLite orders them), the
 * unknown version last of its count. */
static int by_count(const void *a, const void *b)
{
	const struct version_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (!x->version || !y->version)
		return !x->version - !y->version;
	return strcmp(x->version, y->version);
}

/* A JSON string as SQLite's json functions write it. */
static void json_string(hg_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	hg_buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		const char *short_form = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
				       : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
				       : c == '\t' ? "\\t" : NULL;
		if (short_form) {
			hg_buf_puts(b, short_form);
		} else if (c < 0x20) {
			char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], '\0'};
			hg_buf_puts(b, u);
		} else {
			hg_buf_putc(b, (char)c);
		}
	}
	hg_buf_putc(b, '"');
}

/* Nearest rank: the cost at rank ceil(p * n / 100) of the n sorted costs
 * v (0 when none). */
static int64_t rank(const int64_t *v, size_t n, int p)
{
	size_t r = (n * (size_t)p + 99) / 100;
	return n ? v[r ? r - 1 : 0] : 0;
}

static int by_fig_hash(const void *a, const void *b)
{
	return strcmp(((const struct cluster_figures *)a)->hash,
		      ((const struct cluster_figures *)b)->hash);
}

static const hg_figures *find_figures(const struct top *t, const char *hash)
{
	struct cluster_figures key = {.hash = (char *)hash};
	const struct cluster_figures *c =
		t->n_figs ? bsearch(&key, t->figs, t->n_figs, sizeof *t->figs, by_fig_hash) : NULL;
	return c ? &c->f : NULL;
}

/* The figures of the group at hand, kept as a result row. */
static int end_group(struct top *t, const struct cluster_info *info)
{
	if (!t->n_costs)
		return 0;
	if (t->n_rows == t->cap_rows && grow((void **)&t->rows, &t->cap_rows, sizeof *t->rows))
		return HG_ENOMEM;
	qsort(t->versions, t->n_versions, sizeof *t->versions, by_count);
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_putc(&b, '[');
	for (size_t i = 0; i < t->n_versions; i++) {
		hg_buf_puts(&b, i ? ",{\"value\":" : "{\"value\":");
		if (t->versions[i].version)
			json_string(&b, t->versions[i].version);
		else
			hg_buf_puts(&b, "null");
		hg_buf_printf(&b, ",\"count\":%lld}", (long long)t->versions[i].n);
	}
	hg_buf_putc(&b, ']');
	if (b.failed) {
		hg_buf_release(&b);
		return HG_ENOMEM;
	}
	/* Costs nobody measured are stored as 0, so they sort first: the
	 * percentiles are of the others. */
	const hg_figures *fig = find_figures(t, info->hash);
	size_t skip = fig && fig->unmeasured > 0 ? (size_t)fig->unmeasured : 0;
	skip = skip < t->n_costs ? skip : t->n_costs;
	const int64_t *c = t->costs + skip;
	size_t n = t->n_costs - skip;
	struct figures *f = &t->rows[t->n_rows++];
	*f = (struct figures){t->sort, info, (int64_t)t->n_costs, (int64_t)t->devices.len,
			      t->no_device, rank(c, n, 50), rank(c, n, 90), rank(c, n, 99), n ? c[n - 1] : 0,
			      (int64_t)n, t->rated, t->first, t->last, b.data, fig != NULL, {0}};
	if (fig) {
		f->fig = *fig;
		f->fig.total_p50 = f->fig.startups ? f->p50 : 0;
		f->fig.total_p90 = f->fig.startups ? f->p90 : 0;
	}
	t->first = t->last = NULL; /* now the row's */
	return 0;
}

/* Reads the reports (through the covering index, sorted by cluster and
 * cost) and sums them by cluster.  A report of unknown time (time NULL)
 * is in no --since/--until window, but counts when neither is given;
 * first and last seen are report times only. */
static int scan(struct top *t, const hg_top_query *q, const char *hash)
{
	hg_store *store = t->store;
#define SCAN_SQL(filter)                                                                      \
	"SELECT cluster, cost, device, version, time FROM reports"                             \
	" INDEXED BY reports_by_cluster WHERE " filter                                         \
	" AND (?2 IS NULL OR version = ?2)"                                                   \
	" AND (?3 IS NULL OR time >= " STORE_TIME_SQL("?3") ")"                               \
	" AND (?4 IS NULL OR time <= " STORE_TIME_SQL("?4") ")"                               \
	" ORDER BY cluster, cost"
	hg_db_stmt *st = hash ? db_stmt(store->db, S_TOP_SCAN_ONE, SCAN_SQL("cluster = ?1"))
			      : db_stmt(store->db, S_TOP_SCAN, SCAN_SQL("?1 IS NULL"));
#undef SCAN_SQL
	if (!st)
		return store_fail(store, HG_EIO, "cannot query clusters");
	db_bind_text(st, 1, hash);
	db_bind_text(st, 2, q->version);
	db_bind_text(st, 3, q->since);
	db_bind_text(st, 4, q->until);
	const struct cluster_info *info = NULL;
	char current[33] = "";
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		const char *cluster = db_col_text(st, 0) ? db_col_text(st, 0) : "";
		if (strcmp(cluster, current) != 0) {
			err = end_group(t, info);
			forget_group(t);
			snprintf(current, sizeof current, "%s", cluster);
			info = find_info(t, cluster); /* NULL: another kind (or none) */
		}
		if (!err && info)
			err = add_row(t, db_col_int(st, 1), db_col_text(st, 2), db_col_text(st, 3),
				      db_col_text(st, 4));
	}
	db_reset(st);
	if (!err)
		err = end_group(t, info);
	forget_group(t);
	if (err)
		return err;
	return rc < 0 ? store_check(store, rc, "cannot query clusters") : 0;
}

/* ---- order, scene filter, results ---- */

static int64_t sort_key(const struct figures *f, const char *sort)
{
	return !strcmp(sort, "cost") ? f->p90 : !strcmp(sort, "devices") ? f->devices : f->count;
}

/* By the chosen figure (most first), then count, then hash. */
static int by_figures(const void *a, const void *b)
{
	const struct figures *x = a, *y = b;
	const char *sort_by = x->sort;
	if (!strcmp(sort_by, "recent")) {
		int c = strcmp(y->last_seen ? y->last_seen : "", x->last_seen ? x->last_seen : "");
		if (c)
			return c;
	} else if (sort_key(x, sort_by) != sort_key(y, sort_by)) {
		return sort_key(x, sort_by) > sort_key(y, sort_by) ? -1 : 1;
	}
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->info->hash, y->info->hash);
}

/* Does any report of the cluster (in any version or time) have a scene
 * the pattern matches? */
static int scene_matches(hg_store *store, const char *hash, bool *yes)
{
	hg_db_stmt *st = db_stmt(store->db, S_TOP_SCENE,
				 "SELECT 1 FROM reports WHERE cluster = ?1 AND hg_scene_match(scene)"
				 " LIMIT 1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query clusters");
	db_bind_text(st, 1, hash);
	int rc = db_step(st);
	*yes = rc == DB_ROW;
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot query clusters") : 0;
}

static void release(struct top *t)
{
	forget_group(t);
	for (size_t i = 0; i < t->n_rows; i++) {
		free(t->rows[i].first_seen);
		free(t->rows[i].last_seen);
		free(t->rows[i].by_version);
	}
	for (size_t i = 0; i < t->n_infos; i++) {
		struct cluster_info *c = &t->infos[i];
		free(c->hash);
		free(c->kind);
		free(c->title);
		free(c->key_symbol);
		free(c->frames);
	}
	free(t->rows);
	free(t->infos);
	store_figures_free(t->figs, t->n_figs);
	free(t->costs);
	free(t->versions);
	esc_set_release(&t->escalating);
}

/* The rows' rates and escalation flags: the sessions' scope (the query's
 * version and window, read as the store reads times) and the escalating
 * clusters of the query's window, in one query. */
static int trends(struct top *t, const hg_top_query *q, const char *hash)
{
	const char *at[2] = {q->since, q->until};
	t->sessions = q->sessions;
	t->scope.version = q->version;
	for (int i = 0; q->sessions && i < 2; i++) {
		if (at[i] && hg_store_time(t->store, at[i], t->window[i]) != 0) {
			hg_diagf(t->store->ctx, HG_DIAG_ERROR, t->store->path, 0, 0, 0,
				 "not a time: \"%s\"", at[i]);
			return HG_EINVAL;
		}
	}
	t->scope.since = q->sessions && q->since ? t->window[0] : NULL;
	t->scope.until = q->sessions && q->until ? t->window[1] : NULL;
	struct esc_query e = {.since = q->since, .until = q->until, .version = q->version,
			      .kind = q->kind, .hash = hash, .rule = q->escalate};
	return esc_set_load(t->store, &e, &t->escalating);
}

static int run(hg_store *store, const hg_top_query *q, const char *hash, bool scene_filter,
	       hg_cluster_fn fn, void *user)
{
	struct top t = {.store = store, .sort = q->sort ? q->sort : "count"};
	int err = trends(&t, q, hash);
	int64_t sessions = q->sessions ? hg_sessions_total(q->sessions, &t.scope) : -1;
	if (!err)
		err = load_infos(&t, q->kind, hash);
	if (!err)
		err = store_figures_by_cluster(store, q, hash, &t.figs, &t.n_figs);
	if (!err)
		err = scan(&t, q, hash);
	if (!err && t.n_rows > 1)
		qsort(t.rows, t.n_rows, sizeof *t.rows, by_figures);
	long shown = 0;
	for (size_t i = 0; !err && i < t.n_rows && (q->limit <= 0 || shown < q->limit); i++) {
		const struct figures *f = &t.rows[i];
		bool keep = true;
		if (scene_filter && (err = scene_matches(store, f->info->hash, &keep)) != 0)
			break;
		if (!keep)
			continue;
		hg_cluster_row row = {
			.hash = f->info->hash,
			.kind = f->info->kind,
			.title = f->info->title,
			.key_symbol = f->info->key_symbol,
			.count = f->count,
			.devices = f->devices,
			.first_seen = f->first_seen,
			.last_seen = f->last_seen,
			.cost_p50 = f->p50,
			.cost_p90 = f->p90,
			.cost_p99 = f->p99,
			.cost_max = f->max,
			.cost_reports = f->cost_reports,
			.no_device = f->no_device,
			.by_version = f->by_version,
			.frames = f->info->frames,
			.symbolicated = f->info->symbolicated,
			.figures = f->has_fig && hg_figures_any(&f->fig) ? &f->fig : NULL,
			.escalating = esc_set_has(&t.escalating, f->info->hash),
			.rated = q->sessions != NULL,
			.rate = hg_rate_per_1k(f->rated, sessions),
		};
		err = fn(user, &row);
		shown++;
	}
	release(&t);
	return err;
}

int hg_top_query_check(const hg_top_query *q, char *why, size_t why_len)
{
	if (q->sort && strcmp(q->sort, "count") && strcmp(q->sort, "cost") &&
	    strcmp(q->sort, "devices") && strcmp(q->sort, "recent")) {
		snprintf(why, why_len, "unknown sort \"%s\" (count, cost, devices, recent)", q->sort);
		return HG_EINVAL;
	}
	if (!q->scene_regex)
		return 0;
	char msg[128];
	size_t offset = 0;
	hg_regex *re = NULL;
	int rc = hg_regex_compile(q->scene_regex, strlen(q->scene_regex), &re, msg, sizeof msg,
				  &offset);
	hg_regex_free(re);
	if (rc == HG_ENOMEM)
		return rc;
	if (rc) {
		snprintf(why, why_len, "%s at offset %zu", msg, offset);
		return HG_EINVAL;
	}
	return 0;
}

int hg_store_top(hg_store *store, const hg_top_query *q, hg_cluster_fn fn, void *user)
{
	static const hg_top_query all = {0};
	q = q ? q : &all;
	if (q->sort && strcmp(q->sort, "count") && strcmp(q->sort, "cost") &&
	    strcmp(q->sort, "devices") && strcmp(q->sort, "recent"))
		return HG_EINVAL;
	hg_regex *re = NULL;
	if (q->scene_regex) {
		char why[128];
		size_t offset = 0;
		int rc = hg_regex_compile(q->scene_regex, strlen(q->scene_regex), &re, why,
					  sizeof why, &offset);
		if (rc == HG_ENOMEM)
			return rc;
		if (rc) {
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "bad scene pattern \"%s\" at offset %zu: %s", q->scene_regex,
				 offset, why);
			return HG_EINVAL;
		}
		store->scene_re = re;
	}
	int ret = run(store, q, NULL, re != NULL, fn, user);
	store->scene_re = NULL;
	hg_regex_free(re);
	return ret;
}

int hg_store_cluster(hg_store *store, const char *hash, hg_cluster_fn fn, void *user)
{
	static const hg_top_query all = {0};
	return run(store, &all, hash, false, fn, user);
}

int hg_store_cluster_in(hg_store *store, const char *hash, const hg_top_query *q,
			hg_cluster_fn fn, void *user)
{
	if (!q)
		return hg_store_cluster(store, hash, fn, user);
	hg_top_query one = {.version = q->version, .since = q->since, .until = q->until,
			    .sessions = q->sessions, .escalate = q->escalate};
	return run(store, &one, hash, false, fn, user);
}
