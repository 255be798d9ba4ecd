/* The store's space for hangar prune (store_prune.h): the connection set
 * up for a big delete, and the freed pages given back to the file system. */
#include <stdio.h>

#include "store_internal.h"
#include "store_prune.h"

/* Pages given back per incremental_vacuum transaction (64 KiB pages: 256
 * MiB), so that a writer waiting for the store gets a turn. */
#define VACUUM_STEP "4096"
/* The page cache of a prune (KiB), four times the store's: the pages of
 * the indexes a batch deletes from are spread over them, and with 16 MiB
 * they were evicted and read again several times a batch (400,000
 * reports, 90% dropped: 20 s with 16 MiB, 12 s with 64 MiB, no better
 * with 256 MiB; store_prune.c). */
#define PRUNE_CACHE_KIB "65536"

int prune_conn_begin(hg_store *store, struct prune_conn *c)
{
	*c = (struct prune_conn){0};
	int rc = store_query_int(store, S_PR_CACHE, "PRAGMA cache_size", &c->cache_size);
	if (rc >= 0)
		rc = store_query_int(store, S_PR_SECURE, "PRAGMA secure_delete", &c->secure_delete);
	/* Debian's SQLite zeroes what is deleted (secure_delete on), which
	 * writes every page a delete frees to the log; FAST zeroes only in
	 * pages written anyway (400,000 reports, 90% dropped: 1.5 s less).
	 * The freed pages leave the file as prune ends (incremental vacuum),
	 * their content with them. */
	if (rc >= 0)
		rc = db_exec(store->db, "PRAGMA secure_delete = FAST;"
					" PRAGMA cache_size = -" PRUNE_CACHE_KIB);
	c->set = rc >= 0;
	return store_check(store, rc, "cannot set the store up for pruning");
}

void prune_conn_end(hg_store *store, const struct prune_conn *c)
{
	if (!c->set)
		return;
	char sql[96];
	snprintf(sql, sizeof sql, "PRAGMA secure_delete = %lld; PRAGMA cache_size = %lld",
		 (long long)c->secure_delete, (long long)c->cache_size);
	db_exec(store->db, sql);
}

int prune_store_bytes(hg_store *store, int64_t *bytes)
{
	return store_check(store, store_query_int(store, S_PR_PAGES,
		"SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", bytes),
		"cannot read the store's size");
}

/* A statement run again while the store is busy (VACUUM and
 * incremental_vacuum take the write lock as they start). */
static int exec_retried(hg_store *store, const char *sql)
{
	int rc = DB_EBUSY;
	for (int attempt = 0; attempt <= STORE_BUSY_RETRIES && rc == DB_EBUSY; attempt++)
		rc = db_exec(store->db, sql);
	return rc;
}

int prune_shrink(hg_store *store, bool *rewritten)
{
	int64_t mode = 0, free_pages = 0;
	int rc = store_query_int(store, S_PR_AUTO_VACUUM, "PRAGMA auto_vacuum", &mode);
	if (rc >= 0)
		rc = store_query_int(store, S_PR_FREELIST, "PRAGMA freelist_count", &free_pages);
	if (rc >= 0 && mode == 0 && free_pages > 0) {
		/* Once: the VACUUM that turns incremental vacuum on.  Its copy
		 * goes to a temporary file, not to memory as the store's
		 * temporary tables do. */
		rc = exec_retried(store, "PRAGMA temp_store = FILE; PRAGMA auto_vacuum = INCREMENTAL;"
					 " VACUUM");
		db_exec(store->db, "PRAGMA temp_store = MEMORY");
		*rewritten = rc >= 0;
	}
	while (rc >= 0 && mode == 2 && free_pages > 0) {
		rc = exec_retried(store, "PRAGMA incremental_vacuum(" VACUUM_STEP ")");
		int64_t left = 0;
		if (rc >= 0)
			rc = store_query_int(store, S_PR_FREELIST, "PRAGMA freelist_count", &left);
		free_pages = left < free_pages ? left : 0; /* stop when it gets no further */
	}
	if (rc >= 0) /* the file shrinks as the log is copied back; a reader may delay it */
		rc = store_exec_cached(store, S_CHECKPOINT, "PRAGMA wal_checkpoint(PASSIVE)");
	return store_check(store, rc, "cannot give the freed pages back to the file system");
}
