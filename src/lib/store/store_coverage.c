/* What was missing to name reports' frames, per app version (hangar
 * coverage): counted in the rollups' facets from report_facts.lacks,
 * written when each report was named (store_facts.c), so that a team sees
 * which build's methodMapping, mapping.txt or native symbols to upload;
 * the images themselves from the reports' facts rows. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup_read.h"

/* The window of a top query: version, since, until (?1..?3), as top
 * reads them; a report of unknown time is in no window. */
#define WINDOW_SQL                                                               \
	" WHERE (?1 IS NULL OR r.version = ?1)"                                  \
	" AND (?2 IS NULL OR r.time >= " STORE_TIME_SQL("?2") ")"                \
	" AND (?3 IS NULL OR r.time <= " STORE_TIME_SQL("?3") ")"

static void bind_window(hg_db_stmt *st, const hg_top_query *q)
{
	db_bind_text(st, 1, q ? q->version : NULL);
	db_bind_text(st, 2, q ? q->since : NULL);
	db_bind_text(st, 3, q ? q->until : NULL);
}

/* One version's sums. */
struct cov_version {
	char *version;      /* NULL: none */
	char last[32];
	int64_t reports, lacks[LACKS_N];
};

struct cov {
	strmap index;       /* version ("" for none: no version is empty) -> slot */
	struct cov_version *v;
	size_t len, cap;
};

static int on_rollup(void *user, const char *cluster, const char *day, const char *version,
		     struct rollup *r)
{
	(void)cluster;
	(void)day;
	struct cov *c = user;
	int64_t at;
	if (!strmap_get(&c->index, version ? version : "", &at)) {
		if (c->len == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 16;
			void *p = realloc(c->v, cap * sizeof *c->v);
			if (!p)
				return HG_ENOMEM;
			c->v = p;
			c->cap = cap;
		}
		c->v[c->len] = (struct cov_version){0};
		if ((version && !(c->v[c->len].version = strdup(version))) ||
		    strmap_put(&c->index, version ? version : "", (int64_t)c->len)) {
			free(c->v[c->len].version);
			return HG_ENOMEM;
		}
		at = (int64_t)c->len++;
	}
	struct cov_version *v = &c->v[at];
	v->reports += r->reports;
	for (int k = 0; k < LACKS_N; k++)
		v->lacks[k] += r->facets.lacks[k];
	if (strcmp(r->last, v->last) > 0)
		memcpy(v->last, r->last, sizeof v->last);
	return 0;
}

/* Newest versions first (by their latest report), unknown last. */
static int by_newest(const void *a, const void *b)
{
	const struct cov_version *x = a, *y = b;
	if (!x->version || !y->version)
		return !x->version - !y->version;
	int c = strcmp(y->last, x->last);
	return c ? c : strcmp(x->version, y->version);
}

/* From the rollups' facets: every report counted, pruned ones too. */
int hg_store_coverage(hg_store *store, const hg_top_query *q, hg_coverage_fn fn, void *user)
{
	struct store_window w;
	int err = store_query_window(store, q, &w);
	if (err)
		return err;
	struct cov c = {0};
	struct rollup_filter f = {.version = q ? q->version : NULL, .head = true,
				  .window = q && (q->since || q->until) ? &w : NULL};
	err = store_rollup_each(store, &f, on_rollup, &c);
	if (!err && c.len > 1)
		qsort(c.v, c.len, sizeof *c.v, by_newest);
	for (size_t i = 0; !err && i < c.len; i++) {
		const struct cov_version *v = &c.v[i];
		hg_coverage_row row = {v->version, v->reports, v->reports - v->lacks[LACKS_KNOWN],
				       v->lacks[LACKS_METHOD_MAPPING], v->lacks[LACKS_PROGUARD],
				       v->lacks[LACKS_IMAGES], v->lacks[LACKS_ANY]};
		err = fn(user, &row);
	}
	for (size_t i = 0; i < c.len; i++)
		free(c.v[i].version);
	free(c.v);
	strmap_clear(&c.index);
	return err;
}

int hg_store_coverage_images(hg_store *store, const hg_top_query *q, hg_coverage_image_fn fn,
			     void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_COVERAGE_IMAGES,
		"SELECT r.version, json_extract(i.value, '$.name'), json_extract(i.value, '$.id'),"
		" count(*) FROM reports r JOIN report_facts f ON f.report = r.id,"
		" json_each(f.lacks, '$.images') i" WINDOW_SQL " AND f.lacks LIKE '%\"images\"%'"
		" GROUP BY 1, 2, 3 ORDER BY r.version IS NULL, r.version DESC, 4 DESC, 2, 3");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query the store");
	bind_window(st, q);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_coverage_image img = {db_col_text(st, 0), db_col_text(st, 1), db_col_text(st, 2),
					 db_col_int(st, 3)};
		if ((ret = fn(user, &img)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query the store");
}
