/* The digest's reports by kind: all of them from the rollups' facets (the
 * kinds come first in each blob, read without the rest), so that pruned
 * reports still count as top counts them and the store's reports are not
 * read; those of the run (id past its first) from their rows, a range of
 * ids.  Days pruned before schema 11 have no facets: their reports count
 * in no kind. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup_read.h"

struct kind_total {
	char *kind;
	int64_t all, after;
};

struct totals {
	strmap index;       /* kind -> slot */
	struct kind_total *v;
	size_t len, cap;
};

static struct kind_total *slot(struct totals *t, const char *kind)
{
	int64_t at;
	if (strmap_get(&t->index, kind, &at))
		return &t->v[at];
	if (t->len == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct kind_total *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	struct kind_total *k = &t->v[t->len];
	*k = (struct kind_total){strdup(kind), 0, 0};
	if (!k->kind || strmap_put(&t->index, kind, (int64_t)t->len)) {
		free(k->kind);
		return NULL;
	}
	return &t->v[t->len++];
}

static int on_rollup(void *user, const char *cluster, const char *day, const char *version,
		     struct rollup *r)
{
	(void)cluster;
	(void)day;
	(void)version;
	for (size_t i = 0; i < r->facets.len; i++) {
		const struct facet_value *v = &r->facets.v[i];
		if (v->dim != FACET_KIND)
			continue;
		struct kind_total *k = slot(user, v->value);
		if (!k)
			return HG_ENOMEM;
		k->all += v->count;
	}
	return 0;
}

static int run_rows(hg_store *store, int64_t after_report_id, struct totals *t)
{
	hg_db_stmt *st = db_stmt(store->db, S_KIND_TOTALS,
		/* the run's ids, a range of the table: the kinds' index would
		 * be read whole for them */
		"SELECT kind, count(*) FROM reports NOT INDEXED WHERE id > ?1 GROUP BY kind");
	if (!st)
		return store_fail(store, HG_EIO, "cannot count reports");
	db_bind_int(st, 1, after_report_id);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		struct kind_total *k = slot(t, db_col_text(st, 0) ? db_col_text(st, 0) : "");
		if (!k) {
			err = HG_ENOMEM;
			break;
		}
		k->after += db_col_int(st, 1);
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot count reports") : 0;
}

/* The run's most first, then all, then by name. */
static int by_run(const void *a, const void *b)
{
	const struct kind_total *x = a, *y = b;
	if (x->after != y->after)
		return x->after > y->after ? -1 : 1;
	if (x->all != y->all)
		return x->all > y->all ? -1 : 1;
	return strcmp(x->kind, y->kind);
}

int hg_store_kind_totals(hg_store *store, int64_t after_report_id, hg_kind_total_fn fn,
			 void *user)
{
	struct totals t = {0};
	struct rollup_filter f = {.head = true};
	int err = store_rollup_each(store, &f, on_rollup, &t);
	if (!err)
		err = run_rows(store, after_report_id, &t);
	if (!err && t.len > 1)
		qsort(t.v, t.len, sizeof *t.v, by_run);
	for (size_t i = 0; !err && i < t.len; i++)
		err = fn(user, t.v[i].kind, t.v[i].all, t.v[i].after);
	for (size_t i = 0; i < t.len; i++)
		free(t.v[i].kind);
	free(t.v);
	strmap_clear(&t.index);
	return err;
}
