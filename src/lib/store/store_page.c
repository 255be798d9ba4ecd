/* A cluster's page: who and where its reports come from (a breakdown per
 * dimension, with counts the renderers turn into shares), its reports per
 * day, the first and last app version it was seen in, what blocks the
 * blamed thread across its dumps, and its variants: gathered once, for
 * show and the digest alike, and hg_store_cluster_counts' breakdowns.
 *
 * All from the cluster's rollups (a row per day and version, with its
 * facets: rollup_facets.h), not its reports: a 73,000-report cluster's
 * page read every report's row and facts, most of `hangar show` and of
 * the digest at 400,000 reports; the rollups also keep the counts of
 * pruned reports, as top does.  Only the variants' samples are report
 * rows, looked up by content hash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup_read.h"

const char *const hg_page_dims[HG_PAGE_DIMS] = {
	"version", "os", "model", "device_class", "scene", "foreground", "anr_type",
};

enum { DIM_VERSION, DIM_OS, DIM_MODEL, DIM_CLASS, DIM_SCENE, DIM_FOREGROUND, DIM_ANR_TYPE };

/* Counts of the values of one dimension. */
struct tally {
	strmap map;        /* value -> count */
	int64_t unknown;   /* NULL values */
};

static int tally_add(struct tally *t, const char *value, int64_t n)
{
	if (!value) {
		t->unknown += n;
		return 0;
	}
	int64_t have = 0;
	strmap_get(&t->map, value, &have);
	return strmap_put(&t->map, value, have + n);
}

static int by_count(const void *a, const void *b)
{
	const hg_breakdown_value *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (!x->value || !y->value) /* unknown first among equals, as SQL's NULL */
		return x->value ? 1 : y->value ? -1 : 0;
	return strcmp(x->value, y->value);
}

/* The tally as a breakdown, most first, at most max values (0: all). */
static int tally_finish(struct tally *t, const char *by, size_t max, hg_arena *a, hg_breakdown *out)
{
	size_t n = t->map.len + (t->unknown > 0);
	hg_breakdown_value *v = n ? hg_arena_alloc(a, n * sizeof *v) : NULL;
	if (n && !v)
		return HG_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; t->map.keys && i <= t->map.mask; i++)
		if (t->map.keys[i]) {
			const char *copy = hg_arena_strdup(a, t->map.keys[i]);
			if (!copy)
				return HG_ENOMEM;
			v[k++] = (hg_breakdown_value){copy, t->map.values[i]};
		}
	if (t->unknown > 0)
		v[k++] = (hg_breakdown_value){NULL, t->unknown};
	if (k > 1)
		qsort(v, k, sizeof *v, by_count);
	*out = (hg_breakdown){by, v, k, n, 0, t->unknown, 0};
	for (size_t i = 0; i < k; i++)
		out->total += v[i].count;
	if (max && k > max) {
		for (size_t i = max; i < k; i++)
			out->other += v[i].count;
		out->n = max;
	}
	return 0;
}

/* Days in order, untimed (NULL) first. */
static int by_day(const void *a, const void *b)
{
	const hg_breakdown_value *x = a, *y = b;
	if (!x->value || !y->value)
		return x->value ? 1 : y->value ? -1 : 0;
	return strcmp(x->value, y->value);
}

/* ---- the cluster's rollups, summed ---- */

struct cluster_sums {
	int64_t reports;
	struct tally version, day;
	facets facets;
	/* the version of the earliest first seen and the latest last seen */
	char first[32], last[32];
	char *first_version, *last_version;
	int err;
};

/* Keeps (time, version) as the edge when it is earlier (later) than the
 * one kept; ties: the smaller (greater) version, for a fixed answer. */
static void keep_edge(char kept_time[32], char **kept_version, const char *time,
		      const char *version, int sign, int *err)
{
	if (!*time || !version)
		return;
	int c = *kept_time ? sign * strcmp(time, kept_time) : 1;
	if (c < 0 || (c == 0 && sign * strcmp(version, *kept_version) <= 0))
		return;
	char *copy = strdup(version);
	if (!copy) {
		*err = HG_ENOMEM;
		return;
	}
	free(*kept_version);
	*kept_version = copy;
	snprintf(kept_time, 32, "%s", time);
}

static int on_rollup(void *user, const char *cluster, const char *day, const char *version,
		     struct rollup *r)
{
	(void)cluster;
	struct cluster_sums *s = user;
	s->reports += r->reports;
	int err = tally_add(&s->version, version, r->reports);
	if (!err)
		err = tally_add(&s->day, day, r->reports);
	if (!err)
		err = facets_merge(&s->facets, &r->facets);
	keep_edge(s->first, &s->first_version, r->first, version, -1, &s->err);
	keep_edge(s->last, &s->last_version, r->last, version, 1, &s->err);
	return err ? err : s->err;
}

/* with_facets: the facets too, not only the counts by version and day. */
static int sum_cluster(hg_store *store, const char *hash, bool with_facets,
		       struct cluster_sums *s)
{
	memset(s, 0, sizeof *s);
	struct rollup_filter f = {.cluster = hash, .facets = with_facets, .counts_only = true};
	return store_rollup_each(store, &f, on_rollup, s);
}

static void sums_release(struct cluster_sums *s)
{
	strmap_clear(&s->version.map);
	strmap_clear(&s->day.map);
	facets_release(&s->facets);
	free(s->first_version);
	free(s->last_version);
}

/* One facet dimension's tally: its values, the rest of the reports
 * unknown. */
static int facet_tally(const struct cluster_sums *s, enum facet_dim dim, struct tally *t)
{
	int64_t known = 0;
	for (size_t i = 0; i < s->facets.len; i++) {
		const struct facet_value *v = &s->facets.v[i];
		if (v->dim != dim || v->count <= 0)
			continue;
		known += v->count;
		int err = tally_add(t, v->value, v->count);
		if (err)
			return err;
	}
	t->unknown = s->reports - known;
	return 0;
}

/* ---- the variants ---- */

static int by_variant(const void *a, const void *b)
{
	const struct facet_value *x = *(const struct facet_value *const *)a;
	const struct facet_value *y = *(const struct facet_value *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(y->time, x->time); /* the newer sample first */
	return c ? c : strcmp(x->value, y->value);
}

/* A variant's sample as a report row: the newest report, or where prune
 * took it, the newest the store kept of that variant; none when none. */
static int sample_row(hg_store *store, const char *hash, const struct facet_value *v,
		      hg_arena *a, hg_variant_row *out)
{
	char hex[65] = "";
	if (v->has_sample)
		facets_sample_hex(v, hex);
	hg_db_stmt *st = db_stmt(store->db, S_PAGE_SAMPLE,
		"SELECT content_hash, source, line FROM reports WHERE content_hash = ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query a cluster");
	db_bind_text(st, 1, hex);
	int rc = db_step(st);
	if (rc != DB_ROW) {
		db_reset(st);
		if (rc < 0)
			return store_check(store, rc, "cannot query a cluster");
		st = db_stmt(store->db, S_PAGE_SAMPLE_KEPT,
			"SELECT r.content_hash, r.source, r.line FROM reports r"
			" JOIN report_facts f ON f.report = r.id WHERE r.cluster = ?1 AND f.variant = ?2"
			" ORDER BY r.time IS NULL, r.time DESC, r.id DESC LIMIT 1");
		if (!st)
			return store_fail(store, HG_EIO, "cannot query a cluster");
		db_bind_text(st, 1, hash);
		db_bind_text(st, 2, v->value);
		rc = db_step(st);
	}
	int err = 0;
	if (rc == DB_ROW) {
		out->sample_hash = hg_arena_strdup(a, db_col_text(st, 0));
		out->sample_source = hg_arena_strdup(a, db_col_text(st, 1) ? db_col_text(st, 1) : "");
		out->sample_line = (long)db_col_int(st, 2);
		if (!out->sample_hash || !out->sample_source)
			err = HG_ENOMEM;
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot query a cluster") : 0;
}

/* The variants most reports first (ties: the newer sample first), at most
 * max, each with its newest report as the sample. */
static int finish_variants(hg_store *store, const char *hash, const struct cluster_sums *s,
			   size_t max, hg_cluster_page *p)
{
	hg_arena *a = p->arena;
	size_t n_all = 0;
	for (size_t i = 0; i < s->facets.len; i++)
		n_all += s->facets.v[i].dim == FACET_VARIANT && s->facets.v[i].count > 0;
	if (!n_all)
		return 0;
	const struct facet_value **all = malloc(n_all * sizeof *all);
	if (!all)
		return HG_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < s->facets.len; i++)
		if (s->facets.v[i].dim == FACET_VARIANT && s->facets.v[i].count > 0)
			all[k++] = &s->facets.v[i];
	qsort(all, n_all, sizeof *all, by_variant);
	size_t n = n_all < max ? n_all : max;
	int err = 0;
	if (!(p->variants = hg_arena_calloc(a, n, sizeof *p->variants)))
		err = HG_ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		hg_variant_row *v = &p->variants[p->n_variants++];
		v->variant = hg_arena_strdup(a, all[i]->value);
		v->count = all[i]->count;
		v->entry = all[i]->entry ? hg_arena_strdup(a, all[i]->entry) : NULL;
		if (!v->variant || (all[i]->entry && !v->entry))
			err = HG_ENOMEM;
		if (!err)
			err = sample_row(store, hash, all[i], a, v);
	}
	free(all);
	return err;
}

/* ---- the page ---- */

/* The facet behind each page dimension; version is the rollups' own. */
static const int page_facet[HG_PAGE_DIMS] = {
	-1, FACET_OS, FACET_MODEL, FACET_CLASS, FACET_SCENE, FACET_FOREGROUND, FACET_ANR_TYPE,
};

static int gather(hg_store *store, const char *hash, size_t max_values, hg_cluster_page *out,
		  struct cluster_sums *s, struct tally *t)
{
	hg_arena *a = out->arena;
	int rc = sum_cluster(store, hash, true, s);
	t[DIM_VERSION] = s->version;
	s->version = (struct tally){{0}, 0};
	for (size_t i = 1; i < HG_PAGE_DIMS && !rc; i++)
		rc = facet_tally(s, page_facet[i], &t[i]);
	struct tally blockers = {{0}, 0};
	if (!rc)
		rc = facet_tally(s, FACET_BLOCKER, &blockers);
	for (size_t i = 0; i < HG_PAGE_DIMS && !rc; i++)
		rc = tally_finish(&t[i], hg_page_dims[i], max_values, a, &out->dims[i]);
	if (!rc) /* days in day order, untimed first: the digest's chart */
		rc = tally_finish(&s->day, "day", 0, a, &out->days);
	if (!rc && out->days.n > 1)
		qsort(out->days.values, out->days.n, sizeof *out->days.values, by_day);
	if (!rc)
		rc = tally_finish(&blockers, "blocker", max_values, a, &out->blockers);
	strmap_clear(&blockers.map);
	out->count = s->reports;
	if (!rc)
		rc = finish_variants(store, hash, s, max_values ? max_values : 100, out);
	if (!rc && s->first_version && !(out->first_version = hg_arena_strdup(a, s->first_version)))
		rc = HG_ENOMEM;
	if (!rc && s->last_version && !(out->last_version = hg_arena_strdup(a, s->last_version)))
		rc = HG_ENOMEM;
	return rc;
}

/* ---- one breakdown (hg_store_cluster_counts) ---- */

int store_cluster_breakdown(hg_store *store, const char *hash, const char *by, hg_count_fn fn,
			    void *user)
{
	static const struct {
		const char *by;
		int facet;          /* -1: the versions, -2: the days */
	} dims[] = {
		{"version", -1}, {"day", -2}, {"scene", FACET_SCENE},
		{"foreground", FACET_FOREGROUND}, {"os", FACET_OS}, {"model", FACET_MODEL},
		{"device_class", FACET_CLASS}, {"anr_type", FACET_ANR_TYPE},
		{"blocker", FACET_BLOCKER},
	};
	int facet = 0;
	const char *name = NULL;
	for (size_t i = 0; by && i < sizeof dims / sizeof *dims; i++)
		if (!strcmp(by, dims[i].by)) {
			facet = dims[i].facet;
			name = dims[i].by;
		}
	if (!name)
		return HG_EINVAL;
	struct cluster_sums s;
	struct tally t = {{0}, 0};
	hg_arena *a = hg_arena_create();
	int rc = a ? sum_cluster(store, hash, facet >= 0, &s) : HG_ENOMEM;
	if (a && !rc) {
		struct tally *from = facet == -1 ? &s.version : facet == -2 ? &s.day : NULL;
		if (from) { /* taken over: the sums no longer own it */
			t = *from;
			*from = (struct tally){{0}, 0};
		} else {
			rc = facet_tally(&s, (enum facet_dim)facet, &t);
		}
	}
	hg_breakdown b = {0};
	if (!rc)
		rc = tally_finish(&t, name, 0, a, &b);
	if (!rc && facet == -2 && b.n > 1)
		qsort(b.values, b.n, sizeof *b.values, by_day);
	for (size_t i = 0; !rc && i < b.n; i++)
		rc = fn(user, b.values[i].value, b.values[i].count);
	strmap_clear(&t.map);
	if (a)
		sums_release(&s);
	hg_arena_destroy(a);
	return rc;
}

int hg_store_cluster_page(hg_store *store, const char *hash, size_t max_values,
			  hg_cluster_page *out)
{
	memset(out, 0, sizeof *out);
	if (!(out->arena = hg_arena_create()))
		return HG_ENOMEM;
	struct tally t[HG_PAGE_DIMS];
	memset(t, 0, sizeof t);
	struct cluster_sums s;
	int rc = gather(store, hash, max_values, out, &s, t);
	for (size_t i = 0; i < HG_PAGE_DIMS; i++)
		strmap_clear(&t[i].map);
	sums_release(&s);
	if (rc)
		hg_cluster_page_release(out);
	return rc;
}

void hg_cluster_page_release(hg_cluster_page *p)
{
	hg_arena_destroy(p->arena);
	memset(p, 0, sizeof *p);
}
