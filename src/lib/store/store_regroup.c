/* hangar regroup: every stored report's signature computed again (after
 * mappings arrived or the rules changed), reports moved to their new
 * clusters, and the clusters touched rebuilt, in one transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/text.h"
#include "store_internal.h"
#include "store_rollup.h"
#include "store_text.h"

struct ids {
	int64_t *v;
	size_t len, cap;
};

static int counts(hg_store *store, int64_t *reports, int64_t *clusters)
{
	int rc = store_query_int(store, S_RG_COUNT_REPORTS, "SELECT count(*) FROM reports", reports);
	return rc < 0 ? rc : store_query_int(store, S_RG_COUNT_CLUSTERS, "SELECT count(*) FROM clusters",
				      clusters);
}

int hg_store_old_clusters(hg_store *store, int64_t *count)
{
	*count = 0;
	hg_db_stmt *st = db_stmt(store->db, S_RG_OLD_CLUSTERS,
				 "SELECT count(*) FROM clusters WHERE grouping_version < ?1");
	if (!st)
		return store_check(store, DB_ERROR, "cannot count the clusters");
	db_bind_int(st, 1, HG_SIGNATURE_VERSION);
	int rc = db_step(st);
	if (rc == DB_ROW)
		*count = db_col_int(st, 0);
	db_reset(st);
	return rc == DB_ROW ? 0 : store_check(store, rc < 0 ? rc : DB_ERROR, "cannot count the clusters");
}

/* The ids of every report, or of the reports of affected clusters. */
static int collect_ids(hg_store *store, int slot, const char *sql, struct ids *out)
{
	hg_db_stmt *st = db_stmt(store->db, slot, sql);
	if (!st)
		return DB_ERROR;
	int rc;
	while ((rc = db_step(st)) == DB_ROW) {
		if (out->len == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 256;
			int64_t *v = realloc(out->v, cap * sizeof *v);
			if (!v) {
				rc = DB_ENOMEM;
				break;
			}
			out->v = v;
			out->cap = cap;
		}
		out->v[out->len++] = db_col_int(st, 0);
	}
	db_reset(st);
	return rc < 0 ? rc : 0;
}

int store_reread(hg_store *store, int64_t id, hg_regroup_fn fn, void *user, char cluster[33],
		  hg_report **rep, hg_signature *sig)
{
	*rep = NULL;
	hg_db_stmt *st = db_stmt(store->db, S_RG_ITEM,
		"SELECT source, line, version, cluster, text, app FROM reports WHERE id = ?1");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	int rc = db_step(st);
	if (rc != DB_ROW) {
		db_reset(st);
		return rc < 0 ? rc : DB_ERROR;
	}
	/* Copies: fn may use the store (and the text wants a NUL after it). */
	size_t len = 0;
	char *text = NULL;
	int terr = store_text_decode(store, id, db_col_blob(st, 4), db_col_bytes(st, 4), &text, &len);
	const char *src = db_col_text(st, 0), *ver = db_col_text(st, 2), *cl = db_col_text(st, 3),
		   *ap = db_col_text(st, 5);
	char *source = strdup(src ? src : ""), *version = ver ? strdup(ver) : NULL,
	     *app = ap ? strdup(ap) : NULL;
	snprintf(cluster, 33, "%s", cl ? cl : "");
	long line = (long)db_col_int(st, 1);
	db_reset(st);
	int err = terr && terr != HG_ENOMEM ? DB_EBAD : DB_ENOMEM;
	if (text && source && (version || !ver) && (app || !ap)) {
		hg_regroup_item item = {id, source, line, version, app, cluster, text, len};
		err = fn(user, &item, rep, sig);
		if (err > 0)
			err = DB_ERROR;
	}
	free(text);
	free(source);
	free(version);
	free(app);
	if (err && *rep) {
		hg_report_destroy(*rep);
		*rep = NULL;
	}
	return err;
}

static int affect(hg_store *store, const char *hash)
{
	hg_db_stmt *st = db_stmt(store->db, S_RG_AFFECT,
		"INSERT INTO temp.hg_regroup_affected(hash) VALUES(?1) ON CONFLICT DO NOTHING");
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, hash);
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

/* A JSON array of strings (malloc'd), NULL on ENOMEM. */
static char *json_frames(const hg_signature *sig)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_putc(&b, '[');
	for (size_t i = 0; i < sig->n_frames; i++) {
		const char *f = sig->frames[i] ? sig->frames[i] : "";
		if (i)
			hg_buf_putc(&b, ',');
		hg_buf_json_string(&b, f, strlen(f));
	}
	hg_buf_putc(&b, ']');
	if (b.failed) {
		hg_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* Moves report id to sig's cluster, which is created (empty: its counts
 * are rebuilt at the end) when it does not exist. */
static int move(hg_store *store, int64_t id, const hg_report *rep, const hg_signature *sig)
{
	char *frames = json_frames(sig);
	if (!frames)
		return DB_ENOMEM;
	hg_db_stmt *st = db_stmt(store->db, S_RG_CLUSTER,
		"INSERT INTO clusters(hash, kind, title, key_symbol, frames, grouping_version,"
		" first_seen, last_seen, count, symbolicated)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, '', '', 0, ?7)"
		" ON CONFLICT(hash) DO UPDATE SET title = hangar_title(title, excluded.title)");
	int rc = DB_ERROR;
	if (st) {
		db_bind_text(st, 1, sig->hash);
		db_bind_text(st, 2, sig->family ? sig->family : hg_report_kind_name(rep->kind));
		db_bind_text(st, 3, sig->title ? sig->title : "");
		db_bind_text(st, 4, sig->key_symbol);
		db_bind_text(st, 5, frames);
		db_bind_int(st, 6, HG_SIGNATURE_VERSION);
		db_bind_int(st, 7, sig->symbolicated);
		rc = db_step(st);
		db_reset(st);
	}
	free(frames);
	if (rc < 0)
		return rc;
	st = db_stmt(store->db, S_RG_MOVE,
		     "UPDATE reports SET cluster = ?2, symbolicated = ?3 WHERE id = ?1");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, sig->hash);
	db_bind_int(st, 3, sig->symbolicated);
	rc = db_step(st);
	db_reset(st);
	return rc;
}

/* Pass 1: every report's new signature; moved ones mark both clusters. */
static int regroup_reports(hg_store *store, hg_regroup_fn fn, void *user, hg_regroup_stats *stats)
{
	struct ids all = {0};
	int rc = collect_ids(store, S_RG_IDS, "SELECT id FROM reports ORDER BY id", &all);
	for (size_t i = 0; rc >= 0 && i < all.len; i++) {
		char old[33];
		hg_report *rep;
		hg_signature sig;
		rc = store_reread(store, all.v[i], fn, user, old, &rep, &sig);
		if (rc < 0)
			break;
		if (!rep) {
			stats->kept++;
			continue;
		}
		/* named again: its facts too (a migrated report's variant and
		 * what it lacked become known) */
		rc = store_facts_add(store, all.v[i], rep, NULL);
		if (rc >= 0 && strcmp(old, sig.hash) != 0) {
			rc = move(store, all.v[i], rep, &sig);
			if (rc >= 0)
				rc = affect(store, old);
			if (rc >= 0)
				rc = affect(store, sig.hash);
			stats->moved++;
		}
		hg_report_destroy(rep);
	}
	free(all.v);
	return rc;
}

/* Pass 2: the clusters touched, counted again from their reports; the
 * empty ones deleted; their merged trees rebuilt report by report. */
static int rebuild(hg_store *store, hg_regroup_fn fn, void *user)
{
	int rc = db_exec(store->db,
		"DELETE FROM trees WHERE cluster IN (SELECT id FROM clusters"
		"  WHERE hash IN (SELECT hash FROM temp.hg_regroup_affected));"
		"UPDATE clusters SET"
		" count = (SELECT count(*) FROM reports r WHERE r.cluster = clusters.hash),"
		" first_seen = (SELECT min(r.time) FROM reports r WHERE r.cluster = clusters.hash),"
		" last_seen = (SELECT max(r.time) FROM reports r WHERE r.cluster = clusters.hash),"
		" symbolicated = coalesce((SELECT min(r.symbolicated) FROM reports r"
		"   WHERE r.cluster = clusters.hash), symbolicated)"
		" WHERE hash IN (SELECT hash FROM temp.hg_regroup_affected);"
		"DELETE FROM clusters WHERE count = 0"
		" AND hash IN (SELECT hash FROM temp.hg_regroup_affected);");
	struct ids ids = {0};
	if (rc >= 0)
		rc = collect_ids(store, S_RG_AFFECTED_IDS,
				 "SELECT id FROM reports WHERE cluster IN"
				 " (SELECT hash FROM temp.hg_regroup_affected) ORDER BY id", &ids);
	for (size_t i = 0; rc >= 0 && i < ids.len; i++) {
		char cluster[33];
		hg_report *rep;
		hg_signature sig;
		rc = store_reread(store, ids.v[i], fn, user, cluster, &rep, &sig);
		if (rc >= 0 && rep) {
			int err = store_tree_add(store, rep, cluster);
			rc = err == HG_ENOMEM ? DB_ENOMEM : err ? DB_ERROR : 0;
		}
		hg_report_destroy(rep);
	}
	free(ids.v);
	return rc;
}

int hg_store_regroup(hg_store *store, hg_regroup_fn fn, void *user, hg_regroup_stats *stats)
{
	memset(stats, 0, sizeof *stats);
	if (store->in_batch || !fn)
		return HG_EINVAL;
	int err = hg_store_begin(store);
	if (err)
		return err;
	int64_t reports_after = 0;
	int rc = db_exec(store->db,
			 "CREATE TEMP TABLE IF NOT EXISTS hg_regroup_affected(hash TEXT PRIMARY KEY);"
			 "DELETE FROM temp.hg_regroup_affected;");
	if (rc >= 0)
		rc = counts(store, &stats->reports, &stats->clusters_before);
	if (rc >= 0)
		rc = regroup_reports(store, fn, user, stats);
	if (rc >= 0)
		rc = rebuild(store, fn, user);
	/* the rollups of the clusters as they now are, and their counts from
	 * them (those of pruned days included) */
	if (rc >= 0)
		rc = store_rollup_rebuild(store, NULL) || store_cluster_counts_from_rollups(store)
			     ? DB_ERROR : 0;
	if (rc >= 0)
		rc = counts(store, &reports_after, &stats->clusters_after);
	if (rc >= 0 && reports_after != stats->reports) {
		hg_diagf(store->ctx, HG_DIAG_ERROR, store->path, 0, 0, 0,
			 "regroup would change the number of reports (%lld, then %lld): rolled back",
			 (long long)stats->reports, (long long)reports_after);
		hg_store_rollback(store);
		return HG_EIO;
	}
	if (rc < 0) {
		err = store_check(store, rc, "cannot regroup the store");
		hg_store_rollback(store);
		return err ? err : HG_EIO;
	}
	return hg_store_commit(store);
}
