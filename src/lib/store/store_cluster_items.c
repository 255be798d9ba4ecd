/* A cluster's stored reports with their texts, in one pass over the
 * cluster's index, for reading them again outside a regroup (hangar diff
 * --flame rebuilds a version's or a window's tree from them): one query
 * instead of one hg_store_report_text per report. */
#include <stdlib.h>

#include "store_internal.h"
#include "store_text.h"

int hg_store_cluster_items(hg_store *store, const char *hash, hg_item_fn fn, void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_CLUSTER_ITEMS,
		"SELECT id, source, line, version, app, cluster, text, time FROM reports"
		" WHERE cluster = ?1 ORDER BY id");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query reports");
	db_bind_text(st, 1, hash);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		char *text;
		size_t len;
		int64_t id = db_col_int(st, 0);
		ret = store_text_decode(store, id, db_col_blob(st, 6), db_col_bytes(st, 6), &text, &len);
		if (ret)
			break;
		hg_regroup_item item = {id, db_col_text(st, 1), (long)db_col_int(st, 2),
					db_col_text(st, 3), db_col_text(st, 4), db_col_text(st, 5),
					text, len};
		ret = fn(user, &item, db_col_text(st, 7));
		free(text);
		if (ret != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query reports");
}
