/* hangar merge's rollups: the shard's, added to the store's, less the
 * reports both stores held (counted once).  Summing rollups rather than
 * recomputing them from the merged reports keeps the counts of the days a
 * store pruned; a report both stores held is known by its content hash
 * while either keeps its row, and counted twice only when both pruned it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup.h"

static int add_shard_rows(hg_store *store, struct rollup_set *set)
{
	hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_SHARD,
		"SELECT cluster, day, version, " ROLLUP_COLUMNS " FROM " STORE_SHARD ".rollups");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read the merged store's rollups");
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		struct rollup *r = rollup_set_get(set, db_col_text(st, 0) ? db_col_text(st, 0) : "",
						  db_col_text(st, 1), db_col_text(st, 2));
		err = r ? rollup_add_row(r, st, 3) : HG_ENOMEM;
		if (err == HG_EINVAL) {
			hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
				 "the merged store's rollup of cluster %s is malformed (run hangar"
				 " check on it)", db_col_text(st, 0));
			err = HG_EIO;
		}
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot read the merged store's rollups") : 0;
}

/* The shard's reports the store had already: out of the shard's sums. */
static int remove_known(hg_store *store, struct rollup_set *set)
{
	hg_db_stmt *st = db_stmt(store->db, S_ROLLUP_SHARD_KNOWN,
		"SELECT s.cluster, s.time, s.version, s.device, s.cost, coalesce(g.cost_known, 1), "
		ROLLUP_FIG_SQL("g") ", " ROLLUP_FACETS_SQL("s", "f") " FROM " STORE_SHARD ".reports s"
		" LEFT JOIN " STORE_SHARD ".figures g ON g.report = s.id"
		" LEFT JOIN " STORE_SHARD ".report_facts f ON f.report = s.id"
		" WHERE NOT EXISTS (SELECT 1 FROM temp.hg_merge_new n"
		"  WHERE n.content_hash = s.content_hash)");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read the merged store's reports");
	int rc, err = 0;
	while (!err && (rc = db_step(st)) == DB_ROW) {
		const char *time = db_col_text(st, 1);
		char day[11] = "";
		if (time && strlen(time) >= 10)
			memcpy(day, time, 10);
		struct rollup *r = rollup_set_get(set, db_col_text(st, 0) ? db_col_text(st, 0) : "",
						  *day ? day : NULL, db_col_text(st, 2));
		struct report_facets facets;
		rollup_facets_columns(st, ROLLUP_REPORT_FACETS_COL, time, &facets);
		err = r ? rollup_remove_report(r, db_col_text(st, 3), db_col_int(st, 4),
					       db_col_int(st, 5) != 0, &facets)
			: HG_ENOMEM;
		if (!err) { /* its figures out too */
			struct rollup_figs f;
			rollup_figs_columns(st, 6, &f);
			rollup_figs_add(&r->fig, &f, -1);
		}
	}
	db_reset(st);
	return err ? err : rc < 0 ? store_check(store, rc, "cannot read the merged store's reports") : 0;
}

/* The later of the two stores' pruned_before: the days before it hold
 * counts of reports neither store has now. */
static int keep_pruned_before(hg_store *store)
{
	return db_exec(store->db,
		"INSERT INTO main.meta(key, value) SELECT 'pruned_before', value FROM "
		STORE_SHARD ".meta WHERE key = 'pruned_before'"
		" ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)");
}

int store_rollup_merge_shard(hg_store *store)
{
	if (store->rollups)
		return HG_EINVAL; /* a batch's rollups are pending */
	struct rollup_set *set = calloc(1, sizeof *set);
	if (!set)
		return HG_ENOMEM;
	int err = add_shard_rows(store, set);
	if (!err)
		err = remove_known(store, set);
	/* the rows with nothing left (every report known) add nothing */
	size_t kept = 0;
	for (size_t i = 0; i < set->len; i++) {
		if (set->items[i].reports > 0 || err)
			set->items[kept++] = set->items[i];
		else
			rollup_release(&set->items[i]);
	}
	set->len = kept;
	strmap_clear(&set->index); /* no more lookups: flush walks the items */
	store->rollups = set;
	if (!err)
		err = store_rollup_flush(store);
	else
		store_rollup_discard(store);
	if (!err && keep_pruned_before(store) < 0)
		err = store_fail(store, HG_EIO, "cannot merge the stores' metadata");
	return err;
}
