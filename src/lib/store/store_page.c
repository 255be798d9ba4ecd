/* A cluster's page: who and where its reports come from (a breakdown per
 * dimension, with counts the renderers turn into shares), its reports per
 * day, the first and last app version it was seen in, what blocks the
 * blamed thread across its dumps, and its variants: gathered once, for
 * show and the digest alike.
 *
 * Two passes over the cluster's reports, whatever the dimensions: one over
 * their rows (scene, day, foreground) and one over their facts (OS,
 * model, device class, ANR type, blocker, variant), counted here; a query
 * per dimension read the cluster's rows seven times (a 73,000-report
 * cluster's page took 3 s, the variants' samples most of it). */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

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

/* ---- the rows: scene, day, foreground ---- */

static int pass_rows(hg_store *store, const char *hash, struct tally *scene, struct tally *day,
		     struct tally *fg)
{
	/* rowid order: each page of the rows once, not the index's order */
	hg_db_stmt *st = db_stmt(store->db, S_PAGE_ROWS,
		"SELECT scene, substr(time, 1, 10), CASE foreground WHEN 1 THEN 'foreground'"
		" WHEN 0 THEN 'background' END FROM reports"
		" WHERE id IN (SELECT id FROM reports WHERE cluster = ?1)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query a cluster");
	db_bind_text(st, 1, hash);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW)
		if ((err = tally_add(scene, db_col_text(st, 0), 1)) == 0 &&
		    (err = tally_add(day, db_col_text(st, 1), 1)) == 0)
			err = tally_add(fg, db_col_text(st, 2), 1);
	db_reset(st);
	return err ? err : store_check(store, rc, "cannot query a cluster");
}

/* ---- the facts: os, model, class, ANR type, blocker, variant ---- */

struct variants {
	strmap index;      /* variant -> its slot in v */
	struct variant_count {
		int64_t count, newest;
	} *v;
	size_t n, cap;
};

static int variant_add(struct variants *vs, const char *variant, int64_t id)
{
	int64_t at;
	if (strmap_get(&vs->index, variant, &at)) {
		vs->v[at].count++;
		if (id > vs->v[at].newest)
			vs->v[at].newest = id;
		return 0;
	}
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? 2 * vs->cap : 16;
		void *p = realloc(vs->v, cap * sizeof *vs->v);
		if (!p)
			return HG_ENOMEM;
		vs->v = p;
		vs->cap = cap;
	}
	vs->v[vs->n] = (struct variant_count){1, id};
	return strmap_put(&vs->index, variant, (int64_t)vs->n++);
}

static int pass_facts(hg_store *store, const char *hash, struct tally *t, struct variants *vs)
{
	hg_db_stmt *st = db_stmt(store->db, S_PAGE_FACTS,
		"SELECT r.id, f.os, f.model, f.device_class, f.anr_type, f.blocker, f.variant"
		" FROM reports r LEFT JOIN report_facts f ON f.report = r.id WHERE r.cluster = ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query a cluster");
	db_bind_text(st, 1, hash);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		for (int i = 0; i < 5 && !err; i++)
			err = tally_add(&t[i], db_col_text(st, 1 + i), 1);
		const char *variant = db_col_text(st, 6);
		if (!err && variant)
			err = variant_add(vs, variant, db_col_int(st, 0));
	}
	db_reset(st);
	return err ? err : store_check(store, rc, "cannot query a cluster");
}

/* The variants most reports first (ties: the newer sample first), at most
 * max, each with its newest report as the sample. */
static int finish_variants(hg_store *store, struct variants *vs, size_t max, hg_cluster_page *p)
{
	hg_arena *a = p->arena;
	size_t n = vs->n < max ? vs->n : max;
	p->variants = n ? hg_arena_calloc(a, n, sizeof *p->variants) : NULL;
	if (n && !p->variants)
		return HG_ENOMEM;
	/* pick the n largest by selection: n is small (the page's cap) */
	for (size_t k = 0; k < n; k++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < vs->n; i++)
			if (vs->v[i].count > 0 &&
			    (best == SIZE_MAX || vs->v[i].count > vs->v[best].count ||
			     (vs->v[i].count == vs->v[best].count && vs->v[i].newest > vs->v[best].newest)))
				best = i;
		hg_db_stmt *st = db_stmt(store->db, S_PAGE_SAMPLE,
			"SELECT f.variant, f.variant_frame, r.content_hash, r.source, r.line"
			" FROM reports r JOIN report_facts f ON f.report = r.id WHERE r.id = ?1");
		if (!st)
			return store_fail(store, HG_EIO, "cannot query a cluster");
		db_bind_int(st, 1, vs->v[best].newest);
		int rc = db_step(st), err = 0;
		if (rc == DB_ROW) {
			hg_variant_row *v = &p->variants[p->n_variants++];
			const char *entry = db_col_text(st, 1);
			v->variant = hg_arena_strdup(a, db_col_text(st, 0));
			v->count = vs->v[best].count;
			v->entry = entry ? hg_arena_strdup(a, entry) : NULL;
			v->sample_hash = hg_arena_strdup(a, db_col_text(st, 2));
			v->sample_source = hg_arena_strdup(a, db_col_text(st, 3) ? db_col_text(st, 3) : "");
			v->sample_line = (long)db_col_int(st, 4);
			if (!v->variant || (entry && !v->entry) || !v->sample_hash || !v->sample_source)
				err = HG_ENOMEM;
		}
		db_reset(st);
		if (err)
			return err;
		if (rc < 0)
			return store_check(store, rc, "cannot query a cluster");
		vs->v[best].count = 0; /* taken */
	}
	return 0;
}

/* The version of the cluster's earliest (first) or latest report that has
 * a time and a version. */
static int edge_version(hg_store *store, const char *hash, bool last, hg_arena *a,
			const char **out)
{
	hg_db_stmt *st = db_stmt(store->db, last ? S_PAGE_LAST_VERSION : S_PAGE_FIRST_VERSION,
		last ? "SELECT version FROM reports WHERE cluster = ?1 AND time IS NOT NULL"
		       " AND version IS NOT NULL ORDER BY time DESC, id DESC LIMIT 1"
		     : "SELECT version FROM reports WHERE cluster = ?1 AND time IS NOT NULL"
		       " AND version IS NOT NULL ORDER BY time, id LIMIT 1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query a cluster");
	db_bind_text(st, 1, hash);
	int rc = db_step(st), err = 0;
	*out = NULL;
	if (rc == DB_ROW && !(*out = hg_arena_strdup(a, db_col_text(st, 0))))
		err = HG_ENOMEM;
	db_reset(st);
	return err ? err : store_check(store, rc, "cannot query a cluster");
}

/* Versions from the covering index, as top counts them. */
static int on_version(void *user, const char *value, int64_t count)
{
	return tally_add(user, value, count);
}

static int gather(hg_store *store, const char *hash, size_t max_values, hg_cluster_page *out,
		  struct tally *t, struct tally *day, struct variants *vs)
{
	hg_arena *a = out->arena;
	/* the facts' five dimensions in t[DIM_OS..], as pass_facts reads them */
	struct tally facts[5] = {{{0}, 0}};
	int rc = hg_store_cluster_counts(store, hash, "version", on_version, &t[DIM_VERSION]);
	if (!rc)
		rc = pass_rows(store, hash, &t[DIM_SCENE], day, &t[DIM_FOREGROUND]);
	if (!rc)
		rc = pass_facts(store, hash, facts, vs);
	t[DIM_OS] = facts[0];
	t[DIM_MODEL] = facts[1];
	t[DIM_CLASS] = facts[2];
	t[DIM_ANR_TYPE] = facts[3];
	struct tally blockers = facts[4];
	for (size_t i = 0; i < HG_PAGE_DIMS && !rc; i++)
		rc = tally_finish(&t[i], hg_page_dims[i], max_values, a, &out->dims[i]);
	if (!rc) /* days in day order, untimed first: the digest's chart */
		rc = tally_finish(day, "day", 0, a, &out->days);
	if (!rc && out->days.n > 1)
		qsort(out->days.values, out->days.n, sizeof *out->days.values, by_day);
	if (!rc)
		rc = tally_finish(&blockers, "blocker", max_values, a, &out->blockers);
	strmap_clear(&blockers.map);
	out->count = out->dims[DIM_VERSION].total;
	if (!rc)
		rc = finish_variants(store, vs, max_values ? max_values : 100, out);
	if (!rc)
		rc = edge_version(store, hash, false, a, &out->first_version);
	if (!rc)
		rc = edge_version(store, hash, true, a, &out->last_version);
	return rc;
}

int hg_store_cluster_page(hg_store *store, const char *hash, size_t max_values,
			  hg_cluster_page *out)
{
	memset(out, 0, sizeof *out);
	if (!(out->arena = hg_arena_create()))
		return HG_ENOMEM;
	struct tally t[HG_PAGE_DIMS], day = {{0}, 0};
	memset(t, 0, sizeof t);
	struct variants vs = {{0}, NULL, 0, 0};
	int rc = gather(store, hash, max_values, out, t, &day, &vs);
	for (size_t i = 0; i < HG_PAGE_DIMS; i++)
		strmap_clear(&t[i].map);
	strmap_clear(&day.map);
	strmap_clear(&vs.index);
	free(vs.v);
	if (rc)
		hg_cluster_page_release(out);
	return rc;
}

void hg_cluster_page_release(hg_cluster_page *p)
{
	hg_arena_destroy(p->arena);
	memset(p, 0, sizeof *p);
}
