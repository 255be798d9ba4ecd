/* Adding a report: preparing it (its hash and call tree, no store
 * needed), then inserting it with its tree and cluster updates. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup.h"
#include "store_text.h"

/* A report's cost is measured when the device measured it, or when its
 * method stack's costs add up to some (a stack of depth,id,count,cost
 * lines without the message's cost). */
bool store_cost_known(const hg_report *rep)
{
	return !rep->cost_unknown || rep->stack_cost > 0;
}

/* A cost nobody measured is stored as 0, with a figures row that says so
 * (store_figures.c): the cost figures leave it out. */
static int64_t report_cost(const hg_report *rep)
{
	int64_t cost = rep->cost_unknown ? 0 : rep->cost;
	return rep->stack_cost > cost ? rep->stack_cost : cost;
}

/* Inserts the report unless its content hash is stored; *when is set to
 * when_buf, which gets its time in the store's form ("" when the report's
 * time is unknown: never the ingest time, which would make an old report
 * look new), or to NULL for a duplicate.  Both times are computed
 * here, not by SQL in the statement: per report, that was a good part of
 * a big ingest. */
static int insert_report(hg_store *store, const hg_report *rep, const hg_signature *sig,
			 const char *hash, const char *text, size_t len, char when_buf[32],
			 const char **when, struct report_facets *facets)
{
	*when = NULL;
	char time[32], now[32];
	int err = store_time_normalize(store, rep->time, time);
	if (err)
		return DB_ERROR;
	store_time_now(now);
	/* the text compressed (store_text.c); its hash stays the raw bytes' */
	void *packed;
	size_t packed_len;
	int rc = store_text_encode(store, sig->family ? sig->family : hg_report_kind_name(rep->kind),
				   text, len, &packed, &packed_len);
	if (rc < 0)
		return rc;
	hg_db_stmt *st = db_stmt(store->db, S_INSERT_REPORT,
		"INSERT INTO reports(content_hash, source, line, kind, app, version, device, scene,"
		" time, cost, foreground, cluster, symbolicated, text, ingested_at, time_written)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?15, ?10, ?11, ?12, ?13, ?14, ?16, ?9)"
		" ON CONFLICT(content_hash) DO NOTHING");
	if (!st) {
		free(packed);
		return DB_ERROR;
	}
	/* Every text here lives until the reset below. */
	db_bind_text_here(st, 1, hash);
	db_bind_text_here(st, 2, rep->source ? rep->source : "");
	db_bind_int(st, 3, rep->line);
	db_bind_text_here(st, 4, hg_report_kind_name(rep->kind));
	db_bind_text_here(st, 5, rep->process);
	db_bind_text_here(st, 6, rep->app_version);
	db_bind_text_here(st, 7, rep->device);
	db_bind_text_here(st, 8, rep->scene);
	db_bind_text_here(st, 9, rep->time_written ? rep->time_written : rep->time);
	db_bind_int(st, 10, report_cost(rep));
	if (rep->foreground >= 0)
		db_bind_int(st, 11, rep->foreground);
	db_bind_text_here(st, 12, sig->hash);
	db_bind_int(st, 13, sig->symbolicated);
	db_bind_blob(st, 14, packed ? packed : text, packed ? packed_len : len);
	db_bind_text_here(st, 15, time[0] ? time : NULL);
	db_bind_text_here(st, 16, now);
	rc = db_step(st);
	db_reset(st);
	free(packed);
	if (rc >= 0 && db_changes(store->db) > 0) {
		memcpy(when_buf, time, 32);
		*when = when_buf;
		int64_t id = db_last_rowid(store->db);
		rc = store_figures_add(store, id, rep);
		if (rc >= 0)
			rc = store_facts_add(store, id, rep, facets);
	}
	return rc;
}

struct hg_store_prep {
	char hash[65];                 /* SHA-256 of the text */
	struct store_tree_prep *tree;  /* NULL: no tree */
};

int hg_store_prepare(const hg_report *rep, const char *text, size_t len, hg_store_prep **out)
{
	return hg_store_prepare_with(rep, text, len, NULL, out);
}

int hg_store_prepare_with(const hg_report *rep, const char *text, size_t len,
			  hg_store_symtab *tab, hg_store_prep **out)
{
	*out = NULL;
	if (!rep || rep->error || !text)
		return HG_EINVAL;
	hg_store_prep *p = calloc(1, sizeof *p);
	if (!p)
		return HG_ENOMEM;
	store_sha256_hex(text, len, p->hash);
	int err = store_tree_prepare(rep, tab, &p->tree);
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

void hg_store_prep_destroy(hg_store_prep *p)
{
	if (!p)
		return;
	store_tree_prep_destroy(p->tree);
	free(p);
}

int hg_store_add_report(hg_store *store, const hg_report *rep, const hg_signature *sig,
			const char *text, size_t len, bool *duplicate)
{
	*duplicate = false;
	hg_store_prep *prep;
	int err = hg_store_prepare(rep, text, len, &prep);
	if (!err)
		err = hg_store_add_prepared(store, rep, sig, text, len, prep, duplicate);
	hg_store_prep_destroy(prep);
	return err;
}

/* One report, all or nothing: a savepoint inside the caller's batch, or a
 * transaction of its own. */
int hg_store_add_prepared(hg_store *store, const hg_report *rep, const hg_signature *sig,
			  const char *text, size_t len, const hg_store_prep *prep, bool *duplicate)
{
	*duplicate = false;
	if (!rep || rep->error || !sig || !text || !prep)
		return HG_EINVAL;
	const char *hash = prep->hash;
	bool own = !store->in_batch;
	int err = own ? hg_store_begin(store) : 0;
	if (err)
		return err;
	char when_buf[32];
	const char *when = NULL;
	struct report_facets facets = {.lacks = -1};
	bool savepoint = !store->bulk || own;
	int rc = savepoint ? store_exec_cached(store, S_SAVEPOINT, "SAVEPOINT hg_add") : 0;
	if (rc >= 0)
		rc = insert_report(store, rep, sig, hash, text, len, when_buf, &when, &facets);
	if (rc >= 0 && !when)
		*duplicate = true;
	bool marked = false;
	if (rc >= 0 && when && store->mark_pending) {
		rc = store_mark_ingest_now(store);
		marked = rc >= 0;
	}
	if (rc >= 0 && !*duplicate) {
		/* Both in memory until commit; the cluster last, as it cannot
		 * fail but for ENOMEM (after which the batch is rolled back). */
		err = store_tree_add_prepared(store, prep->tree, sig->hash);
		if (!err)
			err = store_cluster_add(store, rep, sig, when[0] ? when : NULL);
		if (!err) { /* the facts' facets and the row's */
			facets.value[FACET_KIND] = hg_report_kind_name(rep->kind);
			facets.value[FACET_SCENE] = rep->scene;
			facets.value[FACET_FOREGROUND] = rep->foreground == 1 ? "foreground"
							 : rep->foreground == 0 ? "background" : NULL;
			facets.time = when[0] ? when : NULL;
			facets.content_hash = hash;
			err = store_rollup_add(store, rep, sig->hash, when[0] ? when : NULL,
					       report_cost(rep), &facets);
		}
		rc = err ? DB_ERROR : 0;
	}
	if (rc >= 0 && savepoint)
		rc = store_exec_cached(store, S_RELEASE, "RELEASE hg_add");
	if (rc >= 0) {
		store->mark_pending = store->mark_pending && !marked;
	} else {
		if (!err)
			err = store_check(store, rc, "cannot add a report");
		if (savepoint) {
			store_exec_cached(store, S_ROLLBACK_TO, "ROLLBACK TO hg_add");
			store_exec_cached(store, S_RELEASE, "RELEASE hg_add");
		}
		store_symbols_forget(store); /* ids it gave may be rolled back */
		store_text_forget(store);    /* and a dictionary it trained */
		*duplicate = false;
	}
	if (own) {
		int cerr = err ? hg_store_rollback(store) : hg_store_commit(store);
		err = err ? err : cerr;
	}
	return err;
}
