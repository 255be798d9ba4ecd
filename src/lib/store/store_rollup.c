/* Rollups (store_rollup.h): one in memory, a set of them, the batch's
 * written at commit, and a recomputation from report rows (regroup,
 * merge, the migration, hangar check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup.h"

/* ---- one rollup ---- */

static void keep_time(char first[32], char last[32], const char *t)
{
	size_t n = t ? strlen(t) : 0;
	if (!n)
		return;
	n = n < 31 ? n : 31;
	if (!*first || strcmp(t, first) < 0) {
		memcpy(first, t, n);
		first[n] = '\0';
	}
	if (!*last || strcmp(t, last) > 0) {
		memcpy(last, t, n);
		last[n] = '\0';
	}
}

int rollup_add_report(struct rollup *r, const char *time, const char *device, int64_t cost,
		      bool cost_known, const struct report_facets *facets)
{
	r->reports++;
	keep_time(r->first, r->last, time);
	int err = facets ? facets_add_report(&r->facets, facets, 1) : 0;
	if (err)
		return err;
	if (device)
		err = device_set_add(&r->devices, device_hash(device));
	else
		r->no_device++;
	if (!err && cost_known) {
		err = cost_hist_add(&r->costs, cost, 1);
		r->cost_max = cost > r->cost_max ? cost : r->cost_max;
	}
	return err;
}

void rollup_figs_add(struct rollup_figs *a, const struct rollup_figs *b, int sign)
{
	a->n += sign * b->n;
	a->unmeasured += sign * b->unmeasured;
	a->startups += sign * b->startups;
	a->cold += sign * b->cold;
	a->warm += sign * b->warm;
	a->fps_n += sign * b->fps_n;
	a->fps += sign * b->fps;
	a->frames += sign * b->frames;
	a->frozen += sign * b->frozen;
	a->high += sign * b->high;
}

void rollup_figs_columns(hg_db_stmt *st, int col, struct rollup_figs *out)
{
	*out = (struct rollup_figs){0};
	if (!db_col_int(st, col))
		return; /* no figures row */
	out->n = 1;
	out->unmeasured = db_col_int(st, col + 1);
	out->startups = db_col_int(st, col + 2);
	out->cold = db_col_int(st, col + 3);
	out->warm = db_col_int(st, col + 4);
	out->fps_n = !db_col_null(st, col + 5);
	out->fps = db_col_double(st, col + 5);
	out->frames = db_col_int(st, col + 6);
	out->frozen = db_col_int(st, col + 7);
	out->high = db_col_int(st, col + 8);
}

hg_figures rollup_figures(struct rollup *r)
{
	const struct rollup_figs *g = &r->fig;
	hg_figures f = {.reports = g->n, .unmeasured = g->unmeasured, .startups = g->startups,
			.cold = g->cold, .warm = g->warm, .fps_reports = g->fps_n,
			.fps_mean = g->fps_n ? g->fps / (double)g->fps_n : 0, .frames = g->frames,
			.frozen = g->frozen, .high = g->high};
	f.frozen_high_share = f.frames > 0 ? (double)(f.frozen + f.high) / (double)f.frames : -1;
	if (f.startups) { /* a startup's total is its cost */
		f.total_p50 = cost_hist_rank(&r->costs, 50);
		f.total_p90 = cost_hist_rank(&r->costs, 90);
	}
	return f;
}

/* The stored figure sums of a rollups row, from col on. */
static void stored_figs(hg_db_stmt *st, int col, struct rollup_figs *out)
{
	*out = (struct rollup_figs){db_col_int(st, col), db_col_int(st, col + 1),
				    db_col_int(st, col + 2), db_col_int(st, col + 3),
				    db_col_int(st, col + 4), db_col_int(st, col + 5),
				    db_col_int(st, col + 7), db_col_int(st, col + 8),
				    db_col_int(st, col + 9), db_col_double(st, col + 6)};
}

void rollup_add_row_counts(struct rollup *r, hg_db_stmt *st, int col)
{
	struct rollup_figs f;
	stored_figs(st, col + 7, &f);
	rollup_figs_add(&r->fig, &f, 1);
	r->reports += db_col_int(st, col);
	r->no_device += db_col_int(st, col + 1);
	if (!db_col_null(st, col + 2)) {
		int64_t max = db_col_int(st, col + 2);
		r->cost_max = max > r->cost_max ? max : r->cost_max;
	}
	keep_time(r->first, r->last, db_col_text(st, col + 3));
	keep_time(r->first, r->last, db_col_text(st, col + 4));
}

int rollup_add_row_costs(struct rollup *r, hg_db_stmt *st, int col)
{
	rollup_add_row_counts(r, st, col);
	return cost_hist_decode_add(&r->costs, db_col_blob(st, col + 5),
				    (size_t)db_col_bytes(st, col + 5));
}

/* The facets blob of a row whose ROLLUP_COLUMNS start at col (its last
 * column), all of it or its head only. */
static int decode_facets(struct rollup *r, hg_db_stmt *st, int col, bool head_only)
{
	int at = col + ROLLUP_N_COLUMNS - 1;
	const void *blob = db_col_blob(st, at);
	size_t n = (size_t)db_col_bytes(st, at);
	return head_only ? facets_decode_head(&r->facets, blob, n)
			 : facets_decode_add(&r->facets, blob, n);
}

int rollup_add_row_sketches(struct rollup *r, hg_db_stmt *st, int col)
{
	int err = rollup_add_row_costs(r, st, col);
	return err ? err : device_set_decode_add(&r->devices, db_col_blob(st, col + 6),
						 (size_t)db_col_bytes(st, col + 6));
}

int rollup_add_row(struct rollup *r, hg_db_stmt *st, int col)
{
	int err = rollup_add_row_sketches(r, st, col);
	return err ? err : decode_facets(r, st, col, false);
}

int rollup_add_row_facets(struct rollup *r, hg_db_stmt *st, int col, bool head_only)
{
	rollup_add_row_counts(r, st, col);
	return decode_facets(r, st, col, head_only);
}

void rollup_facets_columns(hg_db_stmt *st, int col, const char *time, struct report_facets *out)
{
	for (int d = 0; d < FACET_N; d++)
		out->value[d] = db_col_text(st, col + d);
	out->entry = db_col_text(st, col + FACET_N);
	out->content_hash = db_col_text(st, col + FACET_N + 1);
	out->lacks = (int)db_col_int(st, col + FACET_N + 2);
	out->time = time;
}

int rollup_remove_report(struct rollup *r, const char *device, int64_t cost, bool cost_known,
			 const struct report_facets *facets)
{
	if (facets && facets_add_report(&r->facets, facets, -1))
		return HG_ENOMEM;
	r->reports--;
	r->no_device -= !device;
	/* a bin of -1, merged away by cost_hist_normalize */
	return cost_known ? cost_hist_add(&r->costs, cost, -1) : 0;
}

int rollup_merge(struct rollup *r, struct rollup *from)
{
	r->reports += from->reports;
	r->no_device += from->no_device;
	rollup_figs_add(&r->fig, &from->fig, 1);
	r->cost_max = from->cost_max > r->cost_max ? from->cost_max : r->cost_max;
	keep_time(r->first, r->last, from->first);
	keep_time(r->first, r->last, from->last);
	if (facets_merge(&r->facets, &from->facets))
		return HG_ENOMEM;
	for (size_t i = 0; i < from->costs.len; i++)
		if (cost_hist_add(&r->costs, from->costs.bins[i].value, from->costs.bins[i].n))
			return HG_ENOMEM;
	if (from->devices.hll) {
		hg_buf b;
		hg_buf_init(&b);
		device_set_encode(&from->devices, &b);
		int err = b.failed ? HG_ENOMEM : device_set_decode_add(&r->devices, b.data, b.len);
		hg_buf_release(&b);
		return err;
	}
	for (size_t i = 0; i < from->devices.cap; i++)
		if (from->devices.slots[i] && device_set_add(&r->devices, from->devices.slots[i]))
			return HG_ENOMEM;
	return 0;
}

void rollup_release(struct rollup *r)
{
	free(r->cluster);
	free(r->day);
	free(r->version);
	cost_hist_release(&r->costs);
	device_set_release(&r->devices);
	facets_release(&r->facets);
}

bool rollup_equal(struct rollup *a, struct rollup *b)
{
	cost_hist_normalize(&a->costs);
	cost_hist_normalize(&b->costs);
	hg_buf x, y;
	hg_buf_init(&x);
	hg_buf_init(&y);
	device_set_encode(&a->devices, &x);
	device_set_encode(&b->devices, &y);
	facets_encode(&a->facets, &x);
	facets_encode(&b->facets, &y);
	/* fps sums of doubles differ in their last bits with the order added */
	const struct rollup_figs *f = &a->fig, *g = &b->fig;
	double dfps = f->fps - g->fps, scale = f->fps > 1 ? f->fps : 1;
	bool same = a->reports == b->reports && a->no_device == b->no_device &&
		    f->n == g->n && f->unmeasured == g->unmeasured && f->startups == g->startups &&
		    f->cold == g->cold && f->warm == g->warm && f->fps_n == g->fps_n &&
		    f->frames == g->frames && f->frozen == g->frozen && f->high == g->high &&
		    (dfps < 0 ? -dfps : dfps) <= 1e-9 * scale &&
		    a->cost_max == b->cost_max && !strcmp(a->first, b->first) &&
		    !strcmp(a->last, b->last) && a->costs.len == b->costs.len &&
		    (!a->costs.len || !memcmp(a->costs.bins, b->costs.bins,
					      a->costs.len * sizeof *a->costs.bins)) &&
		    !x.failed && !y.failed && x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len));
	hg_buf_release(&x);
	hg_buf_release(&y);
	return same;
}

/* ---- a set, by (cluster, day, version) ---- */

/* The map's key: the three joined by 0x1f, NULL as 0x1e (neither is in a
 * hash, a day or, as an accepted report's field, a version). */
static char *set_key(const char *cluster, const char *day, const char *version)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, cluster);
	hg_buf_putc(&b, 0x1f);
	hg_buf_puts(&b, day ? day : "\x1e");
	hg_buf_putc(&b, 0x1f);
	hg_buf_puts(&b, version ? version : "\x1e");
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data;
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d = s ? strdup(s) : NULL;
	*failed |= s && !d;
	return d;
}

struct rollup *rollup_set_get(struct rollup_set *s, const char *cluster, const char *day,
			      const char *version)
{
	char *key = set_key(cluster, day, version);
	if (!key)
		return NULL;
	int64_t i;
	if (strmap_get(&s->index, key, &i)) {
		free(key);
		return &s->items[i];
	}
	if (s->len == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct rollup *v = realloc(s->items, cap * sizeof *v);
		if (!v) {
			free(key);
			return NULL;
		}
		s->items = v;
		s->cap = cap;
	}
	struct rollup *r = &s->items[s->len];
	*r = (struct rollup){.cost_max = -1};
	bool failed = false;
	r->cluster = dup_or_null(cluster, &failed);
	r->day = dup_or_null(day, &failed);
	r->version = dup_or_null(version, &failed);
	if (failed || strmap_put(&s->index, key, (int64_t)s->len) != 0) {
		rollup_release(r);
		free(key);
		return NULL;
	}
	free(key);
	return &s->items[s->len++];
}

void rollup_set_release(struct rollup_set *s)
{
	for (size_t i = 0; i < s->len; i++)
		rollup_release(&s->items[i]);
	free(s->items);
	strmap_clear(&s->index);
	*s = (struct rollup_set){0};
}

/* ---- in the store ---- */

static char *day_of(const char *time, char day[11])
{
	if (!time || strlen(time) < 10)
		return NULL;
	memcpy(day, time, 10);
	day[10] = '\0';
	return day;
}

int store_rollup_add(hg_store *store, const hg_report *rep, const char *cluster,
		     const char *time, int64_t cost, const struct report_facets *facets)
{
	if (!store->rollups && !(store->rollups = calloc(1, sizeof *store->rollups)))
		return HG_ENOMEM;
	char day[11];
	struct rollup *r = rollup_set_get(store->rollups, cluster, day_of(time, day),
					  rep->app_version);
	if (!r)
		return HG_ENOMEM;
	struct rollup_figs f;
	if (store_figs_of(rep, &f))
		rollup_figs_add(&r->fig, &f, 1);
	return rollup_add_report(r, time, rep->device, cost, store_cost_known(rep), facets);
}

void store_rollup_discard(hg_store *store)
{
	if (store->rollups)
		rollup_set_release(store->rollups);
	free(store->rollups);
	store->rollups = NULL;
}

/* Writes r as its key's row, replacing it (r holds the old row's figures
 * too: the caller merged them, or the row is being rebuilt). */
static int write_rollup(hg_store *store, struct rollup *r, int64_t rowid)
{
	hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_PUT,
		"INSERT OR REPLACE INTO rollups(rowid, cluster, day, version, " ROLLUP_COLUMNS ")"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
		" ?18, ?19, ?20, ?21, ?22)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot write the rollups");
	hg_buf costs, devices, facets;
	hg_buf_init(&costs);
	hg_buf_init(&devices);
	hg_buf_init(&facets);
	cost_hist_encode(&r->costs, &costs);
	device_set_encode(&r->devices, &devices);
	facets_encode(&r->facets, &facets);
	int err = costs.failed || devices.failed || facets.failed ? HG_ENOMEM : 0;
	if (!err) {
		if (rowid > 0)
			db_bind_int(st, 1, rowid);
		db_bind_text(st, 2, r->cluster);
		db_bind_text(st, 3, r->day);
		db_bind_text(st, 4, r->version);
		db_bind_int(st, 5, r->reports);
		db_bind_int(st, 6, r->no_device);
		if (r->cost_max >= 0)
			db_bind_int(st, 7, r->cost_max);
		db_bind_text(st, 8, *r->first ? r->first : NULL);
		db_bind_text(st, 9, *r->last ? r->last : NULL);
		db_bind_blob(st, 10, costs.data, costs.len);
		db_bind_blob(st, 11, devices.data, devices.len);
		const struct rollup_figs *f = &r->fig;
		const int64_t sums[] = {f->n, f->unmeasured, f->startups, f->cold, f->warm, f->fps_n};
		for (int i = 0; i < 6; i++)
			db_bind_int(st, 12 + i, sums[i]);
		db_bind_double(st, 18, f->fps);
		db_bind_int(st, 19, f->frames);
		db_bind_int(st, 20, f->frozen);
		db_bind_int(st, 21, f->high);
		if (facets.len) /* NULL: no facets (a row of days pruned before them) */
			db_bind_blob(st, 22, facets.data, facets.len);
		int rc = db_step(st);
		db_reset(st);
		err = store_check(store, rc, "cannot write the rollups");
	}
	db_reset(st);
	hg_buf_release(&costs);
	hg_buf_release(&devices);
	hg_buf_release(&facets);
	return err;
}

static int malformed(hg_store *store, const struct rollup *r)
{
	hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
		 "the rollup of cluster %s, day %s, version %s is malformed (hangar check"
		 " recomputes it)", r->cluster, r->day ? r->day : "unknown",
		 r->version ? r->version : "unknown");
	return HG_EIO;
}

/* The batch's rollups, each added to its stored row. */
int store_rollup_flush(hg_store *store)
{
	struct rollup_set *s = store->rollups;
	int err = 0;
	for (size_t i = 0; s && i < s->len && !err; i++) {
		struct rollup *r = &s->items[i];
		hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_GET,
			"SELECT rowid, " ROLLUP_COLUMNS " FROM rollups"
			" WHERE cluster = ?1 AND day IS ?2 AND version IS ?3");
		if (!st) {
			err = store_fail(store, HG_EIO, "cannot read the rollups");
			break;
		}
		db_bind_text(st, 1, r->cluster);
		db_bind_text(st, 2, r->day);
		db_bind_text(st, 3, r->version);
		int64_t rowid = 0;
		int rc = db_step(st);
		if (rc == DB_ROW) {
			rowid = db_col_int(st, 0);
			err = rollup_add_row(r, st, 1);
			if (err == HG_EINVAL)
				err = malformed(store, r);
		} else {
			err = store_check(store, rc, "cannot read the rollups");
		}
		db_reset(st);
		if (!err)
			err = write_rollup(store, r, rowid);
	}
	store_rollup_discard(store);
	return err;
}

/* The day of the store's pruned_before ("" when never pruned): rollups of
 * that day and before count reports that are gone. */
static int pruned_day(hg_store *store, char day[11])
{
	char value[64];
	int err = hg_store_meta_get(store, "pruned_before", value, sizeof value);
	day[0] = '\0';
	if (!err && strlen(value) >= 10) {
		memcpy(day, value, 10);
		day[10] = '\0';
	}
	return err == HG_EINVAL ? 0 : err;
}

int rollup_set_add_report_row(struct rollup_set *set, hg_db_stmt *st, bool with_facets)
{
	char day[11];
	const char *time = db_col_text(st, 1);
	struct rollup *r = rollup_set_get(set, db_col_text(st, 0) ? db_col_text(st, 0) : "",
					  day_of(time, day), db_col_text(st, 2));
	if (!r)
		return HG_ENOMEM;
	struct rollup_figs f;
	rollup_figs_columns(st, 6, &f);
	rollup_figs_add(&r->fig, &f, 1);
	struct report_facets facets;
	if (with_facets)
		rollup_facets_columns(st, ROLLUP_REPORT_FACETS_COL, time, &facets);
	return rollup_add_report(r, time, db_col_text(st, 3), db_col_int(st, 4),
				 db_col_int(st, 5) != 0, with_facets ? &facets : NULL);
}

int store_rollup_recompute(hg_store *store, const char *cluster, struct rollup_set *set)
{
	char pruned[11];
	int err = pruned_day(store, pruned);
	if (err)
		return err;
	hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_ROWS,
		"SELECT " ROLLUP_REPORT_FACETS_SQL " FROM reports r LEFT JOIN figures g ON g.report = r.id"
		" LEFT JOIN report_facts f ON f.report = r.id WHERE (?1 IS NULL OR r.cluster = ?1)"
		" AND (?2 IS NULL OR (r.time IS NOT NULL AND substr(r.time, 1, 10) > ?2))");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read reports");
	db_bind_text(st, 1, cluster);
	db_bind_text(st, 2, *pruned ? pruned : NULL);
	int rc;
	while (!err && (rc = db_step(st)) == DB_ROW)
		err = rollup_set_add_report_row(set, st, true);
	db_reset(st);
	if (!err && rc < 0)
		err = store_check(store, rc, "cannot read reports");
	return err;
}

int store_rollup_rebuild(hg_store *store, const char *cluster)
{
	struct rollup_set set = {0};
	char pruned[11];
	int err = pruned_day(store, pruned);
	if (!err)
		err = store_rollup_recompute(store, cluster, &set);
	hg_db_stmt *st = err ? NULL : db_stmt(store->db, S_ROLLUP_CLEAR,
		"DELETE FROM rollups WHERE (?1 IS NULL OR cluster = ?1)"
		" AND (?2 IS NULL OR (day IS NOT NULL AND day > ?2))");
	if (!err && !st)
		err = store_fail(store, HG_EIO, "cannot write the rollups");
	if (!err) {
		db_bind_text(st, 1, cluster);
		db_bind_text(st, 2, *pruned ? pruned : NULL);
		int rc = db_step(st);
		db_reset(st);
		err = store_check(store, rc, "cannot write the rollups");
	}
	for (size_t i = 0; !err && i < set.len; i++)
		err = write_rollup(store, &set.items[i], 0);
	rollup_set_release(&set);
	return err;
}

int store_cluster_counts_from_rollups(hg_store *store)
{
	int rc = db_exec(store->db,
		"UPDATE clusters SET count = coalesce(r.n, 0), first_seen = r.first,"
		" last_seen = r.last FROM (SELECT cluster, sum(reports) AS n, min(first) AS first,"
		"  max(last) AS last FROM rollups GROUP BY cluster) r WHERE r.cluster = clusters.hash");
	return store_check(store, rc, "cannot count the clusters' reports");
}
