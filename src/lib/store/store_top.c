/* The clusters' figures (hangar top, and show's one cluster): counts,
 * devices, first and last seen, cost percentiles, versions and FPS and
 * startup figures, summed here from the rollups of the query's window
 * (store_rollup_read.c): a row per cluster, day and version, not a row
 * per report, so the cost follows the clusters and days, not the reports. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/text.h"
#include "regex/regex.h"
#include "store_internal.h"
#include "store_trend.h"
#include "store_rollup_read.h"

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

/* One cluster's rollups, summed over the query's window. */
struct acc {
	const struct cluster_info *info;
	struct rollup sum;
	struct version_count *versions;
	size_t n_versions, cap_versions;
	int64_t rated;      /* reports that count against the sessions */
};

struct top {
	hg_store *store;
	struct cluster_info *infos;
	size_t n_infos;
	struct figures *rows;
	size_t n_rows, cap_rows;
	struct acc *accs;    /* one per cluster info, by the same index */
	const char *sort;
	/* rates (the query's sessions and scope) and the escalating clusters */
	const hg_sessions *sessions;
	hg_sessions_scope scope;
	char window[2][32];
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

/* ---- one cluster's rollups ---- */

static void release_acc(struct acc *a)
{
	rollup_release(&a->sum);
	for (size_t i = 0; i < a->n_versions; i++)
		free(a->versions[i].version);
	free(a->versions);
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

/* n more reports of version (NULL: the unknown version, kept apart from a
 * version named "unknown"). */
static int count_version(struct acc *a, const char *version, int64_t n)
{
	size_t i = 0;
	while (i < a->n_versions && !same_version(a->versions[i].version, version))
		i++;
	if (i == a->n_versions) {
		if (a->n_versions == a->cap_versions &&
		    grow((void **)&a->versions, &a->cap_versions, sizeof *a->versions))
			return HG_ENOMEM;
		a->versions[i].version = NULL;
		if (version && !(a->versions[i].version = strdup(version)))
			return HG_ENOMEM;
		a->versions[i].n = 0;
		a->n_versions++;
	}
	a->versions[i].n += n;
	return 0;
}

/* A rollup of the window, added to its cluster's sum (clusters of another
 * kind than the query's have no info: left out). */
static int add_rollup(void *user, const char *cluster, const char *day, const char *version,
		      struct rollup *r)
{
	struct top *t = user;
	const struct cluster_info *info = find_info(t, cluster);
	if (!info)
		return 0;
	struct acc *a = &t->accs[info - t->infos];
	a->info = info;
	/* the sessions of a day count that day's reports (hg_sessions_counts
	 * reads a time's day) */
	if (t->sessions && hg_sessions_counts(t->sessions, &t->scope, version, day))
		a->rated += r->reports;
	int err = count_version(a, version, r->reports);
	return err ? err : rollup_merge(&a->sum, r);
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

/* The FPS and startup figures of a cluster's sums (hg_figures). */
/* The figures of a cluster's sum, kept as a result row. */
static int end_group(struct top *t, struct acc *a)
{
	if (!a->info || !a->sum.reports)
		return 0;
	if (t->n_rows == t->cap_rows && grow((void **)&t->rows, &t->cap_rows, sizeof *t->rows))
		return HG_ENOMEM;
	qsort(a->versions, a->n_versions, sizeof *a->versions, by_count);
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_putc(&b, '[');
	for (size_t i = 0; i < a->n_versions; i++) {
		hg_buf_puts(&b, i ? ",{\"value\":" : "{\"value\":");
		if (a->versions[i].version)
			json_string(&b, a->versions[i].version);
		else
			hg_buf_puts(&b, "null");
		hg_buf_printf(&b, ",\"count\":%lld}", (long long)a->versions[i].n);
	}
	hg_buf_putc(&b, ']');
	char *first = *a->sum.first ? strdup(a->sum.first) : NULL;
	char *last = *a->sum.last ? strdup(a->sum.last) : NULL;
	if (b.failed || (*a->sum.first && !first) || (*a->sum.last && !last)) {
		hg_buf_release(&b);
		free(first);
		free(last);
		return HG_ENOMEM;
	}
	/* The percentiles are of the measured costs (the histogram holds no
	 * other); the maximum is kept exactly beside it. */
	cost_hist *h = &a->sum.costs;
	cost_hist_normalize(h);
	bool has_fig = a->sum.fig.n > 0;
	struct figures *f = &t->rows[t->n_rows++];
	*f = (struct figures){t->sort, a->info, a->sum.reports, device_set_count(&a->sum.devices),
			      a->sum.no_device, cost_hist_rank(h, 50), cost_hist_rank(h, 90),
			      cost_hist_rank(h, 99), a->sum.cost_max >= 0 ? a->sum.cost_max : 0,
			      cost_hist_total(h), a->rated, first, last, b.data, has_fig, {0}};
	if (has_fig) {
		f->fig = rollup_figures(&a->sum);
	}
	return 0;
}

/* Sums the rollups of the query's window by cluster.  A report of unknown
 * time is in no --since/--until window, but counts when neither is given;
 * first and last seen are report times only. */
static int scan(struct top *t, const hg_top_query *q, const char *hash)
{
	hg_store *store = t->store;
	struct store_window w;
	int err = store_query_window(store, q, &w);
	if (err)
		return err;
	if (t->n_infos && !(t->accs = calloc(t->n_infos, sizeof *t->accs)))
		return HG_ENOMEM;
	for (size_t i = 0; i < t->n_infos; i++)
		t->accs[i].sum.cost_max = -1;
	struct rollup_filter f = {.cluster = hash, .version = q->version,
				  .window = q->since || q->until ? &w : NULL};
	err = store_rollup_each(store, &f, add_rollup, t);
	for (size_t i = 0; !err && i < t->n_infos; i++)
		err = end_group(t, &t->accs[i]);
	return err;
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
	for (size_t i = 0; t->accs && i < t->n_infos; i++)
		release_acc(&t->accs[i]);
	free(t->accs);
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
