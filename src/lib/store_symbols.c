/* The symbols table: each distinct frame text stored once, merged-tree
 * nodes refer to it by id.  Ids already looked up are remembered for the
 * store's lifetime (a big ingest asks for the same few thousand symbols a
 * million times), and forgotten on rollback, which may undo the inserts
 * that gave them. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define MEMO_MAX 1000000 /* entries; past this the memo starts over */

struct symbol_memo {
	char **texts;          /* owned */
	int64_t *ids;
	size_t mask, len;      /* open addressing, texts[i] NULL: empty */
};

static size_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

void store_symbols_forget(hg_store *store)
{
	store_numbers_forget(store);
	struct symbol_memo *m = store->symbols;
	if (!m)
		return;
	for (size_t i = 0; m->texts && i <= m->mask; i++)
		free(m->texts[i]);
	free(m->texts);
	free(m->ids);
	free(m);
	store->symbols = NULL;
}

static int grow(struct symbol_memo *m)
{
	size_t cap = m->texts ? (m->mask + 1) * 2 : 4096;
	char **texts = calloc(cap, sizeof *texts);
	int64_t *ids = malloc(cap * sizeof *ids);
	if (!texts || !ids) {
		free(texts);
		free(ids);
		return HG_ENOMEM;
	}
	for (size_t i = 0; m->texts && i <= m->mask; i++) {
		if (!m->texts[i])
			continue;
		size_t j = hash_text(m->texts[i]) & (cap - 1);
		while (texts[j])
			j = (j + 1) & (cap - 1);
		texts[j] = m->texts[i];
		ids[j] = m->ids[i];
	}
	free(m->texts);
	free(m->ids);
	m->texts = texts;
	m->ids = ids;
	m->mask = cap - 1;
	return 0;
}

static void remember(hg_store *store, const char *text, int64_t id)
{
	if (store->symbols && store->symbols->len >= MEMO_MAX)
		store_symbols_forget(store);
	struct symbol_memo *m = store->symbols;
	if (!m && !(m = store->symbols = calloc(1, sizeof *m)))
		return;
	if ((!m->texts || 2 * (m->len + 1) > m->mask + 1) && grow(m) != 0)
		return;
	char *copy = strdup(text);
	if (!copy)
		return;
	size_t i = hash_text(text) & m->mask;
	while (m->texts[i])
		i = (i + 1) & m->mask;
	m->texts[i] = copy;
	m->ids[i] = id;
	m->len++;
}

static bool recall(const hg_store *store, const char *text, int64_t *id)
{
	const struct symbol_memo *m = store->symbols;
	if (!m || !m->texts)
		return false;
	for (size_t i = hash_text(text) & m->mask; m->texts[i]; i = (i + 1) & m->mask)
		if (strcmp(m->texts[i], text) == 0) {
			*id = m->ids[i];
			return true;
		}
	return false;
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
	if (recall(store, text, id))
		return 0;
	int rc = id_of(store, S_SYMBOL_ID, "SELECT id FROM symbols WHERE text = ?1", text, id);
	if (rc == DB_DONE)
		rc = id_of(store, S_INSERT_SYMBOL, "INSERT INTO symbols(text) VALUES(?1) RETURNING id",
			   text, id);
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
