/* hangar check: SQLite's integrity check, then the rollups against a
 * recomputation from the report rows they sum (store_rollup.h).  A kill
 * at any moment leaves them equal, as they are written in the same
 * transactions as the reports; this is how a test, or a user in doubt,
 * sees it. */
#include <stdio.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup.h"

static int integrity(hg_store *store, hg_check_stats *stats)
{
	hg_db_stmt *st = db_stmt(store->db, S_INTEGRITY_FULL, "PRAGMA integrity_check(1)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot check the store's integrity");
	int rc = db_step(st);
	const char *msg = rc == DB_ROW && db_col_text(st, 0) ? db_col_text(st, 0) : "";
	stats->integrity_ok = !strcmp(msg, "ok");
	snprintf(stats->integrity, sizeof stats->integrity, "%s", msg);
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot check the store's integrity") : 0;
}

/* The stored rollups of the days recomputable from reports, into set; the
 * others counted as skipped. */
static int stored(hg_store *store, struct rollup_set *set, hg_check_stats *stats)
{
	hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_STORED,
		"SELECT cluster, day, version, " ROLLUP_COLUMNS ","
		" ?1 IS NOT NULL AND (day IS NULL OR day <= substr(?1, 1, 10)) FROM rollups");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read the rollups");
	db_bind_text(st, 1, *stats->pruned_before ? stats->pruned_before : NULL);
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		if (db_col_int(st, 3 + ROLLUP_N_COLUMNS)) {
			stats->skipped++;
			continue;
		}
		stats->rollups++;
		struct rollup *r = rollup_set_get(set, db_col_text(st, 0) ? db_col_text(st, 0) : "",
						  db_col_text(st, 1), db_col_text(st, 2));
		err = r ? rollup_add_row(r, st, 3) : HG_ENOMEM;
		if (err == HG_EINVAL) { /* a malformed blob: a difference, not a failure */
			r->reports = -1;
			err = 0;
		}
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot read the rollups") : 0;
}

static int compare(hg_store *store, struct rollup_set *have, struct rollup_set *want,
		   hg_check_fn fn, void *user, hg_check_stats *stats)
{
	(void)store;
	int err = 0;
	for (size_t i = 0; i < want->len && !err; i++) {
		struct rollup *w = &want->items[i];
		struct rollup *h = rollup_set_get(have, w->cluster, w->day, w->version);
		if (!h)
			return HG_ENOMEM;
		bool fresh = h->reports == 0 && !h->costs.len && !h->devices.len && !h->devices.hll;
		if (rollup_equal(h, w))
			continue;
		stats->differences++;
		hg_check_diff d = {w->cluster, w->day, w->version, fresh ? "missing" : "different",
				   fresh ? 0 : h->reports, w->reports};
		err = fn ? fn(user, &d) : 0;
	}
	/* what is stored and no report backs: the keys want lacks */
	for (size_t i = 0; i < have->len && !err; i++) {
		struct rollup *h = &have->items[i];
		struct rollup *w = rollup_set_get(want, h->cluster, h->day, h->version);
		if (!w)
			return HG_ENOMEM;
		if (w->reports || h->reports == 0)
			continue;
		stats->differences++;
		hg_check_diff d = {h->cluster, h->day, h->version, "extra", h->reports, 0};
		err = fn ? fn(user, &d) : 0;
	}
	return err;
}

int hg_store_verify(hg_store *store, bool repair, hg_check_fn fn, void *user,
		    hg_check_stats *stats)
{
	memset(stats, 0, sizeof *stats);
	if (store->in_batch)
		return HG_EINVAL;
	int err = integrity(store, stats);
	if (err)
		return err;
	if (hg_store_meta_get(store, "pruned_before", stats->pruned_before,
			      sizeof stats->pruned_before) != 0)
		stats->pruned_before[0] = '\0';
	struct rollup_set have = {0}, want = {0};
	err = stored(store, &have, stats);
	if (!err)
		err = store_rollup_recompute(store, NULL, &want);
	if (!err)
		err = compare(store, &have, &want, fn, user, stats);
	rollup_set_release(&have);
	rollup_set_release(&want);
	if (err || !repair || !stats->differences)
		return err;
	if ((err = hg_store_begin(store)) != 0)
		return err;
	err = store_rollup_rebuild(store, NULL);
	if (!err)
		err = store_cluster_counts_from_rollups(store);
	if (err) {
		hg_store_rollback(store);
		return err;
	}
	err = hg_store_commit(store);
	stats->repaired = !err;
	return err;
}
