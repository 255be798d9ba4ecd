/* The symbols table: each distinct frame text stored once, merged-tree
 * nodes refer to it by id.  Ids already looked up are remembered for the
 * store's lifetime (a big ingest asks for the same few thousand symbols a
 * million times), and forgotten on rollback, which may undo the inserts
 * that gave them. */
#include "store_internal.h"

#define MEMO_MAX 1000000 /* entries; past this the memo starts over */

void store_symbols_forget(hg_store *store)
{
	store_numbers_forget(store);
	strmap_clear(&store->symbols);
}

static void remember(hg_store *store, const char *text, int64_t id)
{
	if (store->symbols.len >= MEMO_MAX)
		strmap_clear(&store->symbols);
	strmap_put(&store->symbols, text, id); /* not remembered on ENOMEM: looked up again */
}

/* One integer from a statement binding text as ?1; DB_DONE when no row. */
static int id_of(hg_store *store, int slot, const char *sql, const char *text, int64_t *id)
{
	hg_db_stmt *st = db_stmt(store->db, slot, sql);
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, text);
	int rc = db_step(st);
	if (rc == DB_ROW)
		*id = db_col_int(st, 0);
	db_reset(st);
	return rc;
}

int store_symbol_id(hg_store *store, const char *text, int64_t *id)
{
	if (strmap_get(&store->symbols, text, id))
		return 0;
	int rc = id_of(store, S_SYMBOL_ID, "SELECT id FROM symbols WHERE text = ?1", text, id);
	if (rc == DB_DONE) {
		/* Not "RETURNING id": RETURNING makes SQLite treat the insert as
		 * one that may write several rows, and with the UNIQUE index one
		 * that may abort halfway, so it opens a statement journal and
		 * copies every page the insert touches (64 KiB each) first.  That
		 * was half of the writer's time on a 10,000-report ingest. */
		rc = id_of(store, S_INSERT_SYMBOL, "INSERT INTO symbols(text) VALUES(?1)", text, id);
		if (rc == DB_DONE) {
			*id = db_last_rowid(store->db);
			rc = DB_ROW;
		}
	}
	if (rc != DB_ROW)
		return store_check(store, rc < 0 ? rc : DB_ERROR, "cannot store a symbol");
	remember(store, text, *id);
	return 0;
}

int store_cluster_id(hg_store *store, const char *hash, int64_t *id)
{
	int rc = id_of(store, S_CLUSTER_ID, "SELECT id FROM clusters WHERE hash = ?1", hash, id);
	if (rc != DB_ROW)
		return store_check(store, rc < 0 ? rc : DB_ERROR, "cannot find a cluster");
	return 0;
}
