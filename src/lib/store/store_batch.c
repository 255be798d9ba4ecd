/* Batches: the write transactions that reports are added in, with the
 * pending tree and cluster updates written at commit; checkpoints. */
#include <string.h>
#include <time.h>

#include "store_internal.h"
#include "store_rollup.h"
#include "store_text.h"

/* BEGIN IMMEDIATE takes the write lock at once (so that a reader never has
 * to upgrade and deadlock); the busy timeout waits for other writers, and
 * a few retries cover a writer that keeps the lock longer than that. */
int store_begin_immediate(hg_store *store)
{
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= STORE_BUSY_RETRIES; attempt++) {
		rc = db_exec(store->db, "BEGIN IMMEDIATE");
		if (rc != DB_EBUSY)
			break;
		struct timespec ts = {0, 50000000L * (attempt + 1)};
		nanosleep(&ts, NULL);
	}
	return rc;
}

int store_commit(hg_store *store)
{
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= STORE_BUSY_RETRIES && rc == DB_EBUSY; attempt++)
		rc = db_exec(store->db, "COMMIT");
	if (rc < 0 && db_in_transaction(store->db))
		db_exec(store->db, "ROLLBACK");
	return rc;
}

int hg_store_begin(hg_store *store)
{
	if (store->in_batch)
		return HG_EINVAL;
	int rc = store_begin_immediate(store);
	if (rc < 0)
		return store_check(store, rc, "cannot begin a batch");
	store->in_batch = true;
	store->pruned_read = false; /* a prune may have run since the last batch */
	return 0;
}

int hg_store_expired(hg_store *store, const hg_report *rep, bool *expired)
{
	*expired = false;
	if (!store->pruned_read) {
		int err = hg_store_meta_get(store, "pruned_before", store->pruned_before,
					    sizeof store->pruned_before);
		if (err == HG_EINVAL) /* never pruned */
			store->pruned_before[0] = '\0';
		else if (err)
			return err;
		store->pruned_read = true;
	}
	if (!store->pruned_before[0] || !rep->time)
		return 0;
	char time[32];
	int err = store_time_normalize(store, rep->time, time);
	if (!err)
		*expired = time[0] && strcmp(time, store->pruned_before) < 0;
	return err;
}

/* After some failures (a full disk, an I/O error, max_page_count) SQLite
 * rolls the whole transaction back itself: the batch is gone, and
 * ROLLBACK would fail ("cannot rollback - no transaction is active"). */
static bool batch_lost(hg_store *store)
{
	return !db_in_transaction(store->db);
}

int hg_store_commit(hg_store *store)
{
	if (!store->in_batch)
		return HG_EINVAL;
	store->in_batch = false;
	if (batch_lost(store)) {
		/* What is pending must not be written outside a transaction:
		 * the batch would land in part. */
		store_tree_discard(store);
		store_cluster_discard(store);
		store_rollup_discard(store);
		store_symbols_forget(store);
		store_text_forget(store);
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "cannot commit a batch: it was rolled back after an earlier error");
		return HG_EIO;
	}
	int err = store_cluster_flush(store);
	if (!err)
		err = store_rollup_flush(store);
	else
		store_rollup_discard(store);
	if (!err)
		err = store_tree_flush(store);
	else
		store_tree_discard(store);
	if (err) {
		store_symbols_forget(store);
		store_text_forget(store);
		if (!batch_lost(store))
			db_exec(store->db, "ROLLBACK");
		return err;
	}
	int rc = store_commit(store);
	if (rc < 0)
		store_text_forget(store); /* a dictionary trained in the batch is gone */
	return store_check(store, rc, "cannot commit a batch");
}

int hg_store_checkpoint(hg_store *store)
{
	return store_check(store, store_exec_cached(store, S_CHECKPOINT, "PRAGMA wal_checkpoint(PASSIVE)"),
			   "cannot copy the write-ahead log into the store");
}

void hg_store_set_bulk(hg_store *store, bool bulk)
{
	store->bulk = bulk;
}

int hg_store_rollback(hg_store *store)
{
	if (!store->in_batch)
		return HG_EINVAL;
	store->in_batch = false;
	store_tree_discard(store);
	store_cluster_discard(store);
	store_rollup_discard(store);
	store_symbols_forget(store);
	store_text_forget(store);
	if (batch_lost(store))
		return 0; /* undone already; its error was said when it happened */
	return store_check(store, db_exec(store->db, "ROLLBACK"), "cannot roll back a batch");
}
