/* The store's queries: resolving a cluster hash, a cluster's counts and
 * its reports, the rejected inputs, meta values and times.  A cluster's
 * merged call tree is read in store_tree_read.c; the clusters' figures
 * (top, and show's one cluster) in store_top.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex/regex.h"
#include "report/report_time.h"
#include "store_internal.h"
#include "store_text.h"

bool store_scene_match(void *user, const char *text)
{
	hg_store *store = user;
	if (!store->scene_re)
		return true;
	return text && hg_regex_match(store->scene_re, text, strlen(text)) == 1;
}

/* The one value of a column whose text starts with prefix: 0, HG_EINVAL
 * (none) or HG_EPARSE (ambiguous). */
int hg_store_resolve(hg_store *store, const char *prefix, char hash[33])
{
	hash[0] = '\0';
	if (!prefix || !*prefix || strlen(prefix) > 32)
		return HG_EINVAL;
	hg_db_stmt *st = db_stmt(store->db, S_RESOLVE,
		"SELECT hash FROM clusters WHERE substr(hash, 1, length(?1)) = lower(?1) LIMIT 2");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query clusters");
	db_bind_text(st, 1, prefix);
	int n = 0, rc;
	while ((rc = db_step(st)) == DB_ROW) {
		const char *h = db_col_text(st, 0);
		if (n++ == 0 && h)
			snprintf(hash, 33, "%s", h);
	}
	db_reset(st);
	if (rc < 0)
		return store_check(store, rc, "cannot query clusters");
	if (n != 1)
		hash[0] = '\0';
	return n == 0 ? HG_EINVAL : n > 1 ? HG_EPARSE : 0;
}

/* Devices from the reports (the rollups keep how many, not which); the
 * other breakdowns from the rollups (store_page.c). */
int hg_store_cluster_counts(hg_store *store, const char *hash, const char *by, hg_count_fn fn,
			    void *user)
{
	if (!by || strcmp(by, "device"))
		return store_cluster_breakdown(store, hash, by, fn, user);
	hg_db_stmt *st = db_stmt(store->db, S_COUNTS_DEVICE,
		"SELECT device, count(*) FROM reports WHERE cluster = ?1 GROUP BY 1 ORDER BY 2 DESC, 1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query a cluster");
	db_bind_text(st, 1, hash);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW)
		if ((ret = fn(user, db_col_text(st, 0), db_col_int(st, 1))) != 0)
			break;
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query a cluster");
}

/* The newest reports of a cluster: chosen from the covering index alone,
 * then only those rows read (a big cluster's rows, texts and all, took
 * most of `hangar show`). */
int hg_store_reports(hg_store *store, const char *hash, long limit, hg_report_row_fn fn,
		     void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_REPORTS,
		"SELECT content_hash, source, line, time, version, device, scene, cost,"
		" coalesce((SELECT f.cost_known FROM figures f WHERE f.report = reports.id), 1)"
		" FROM reports WHERE id IN (SELECT id FROM reports"
		"  INDEXED BY reports_by_cluster WHERE cluster = ?1"
		"  ORDER BY time IS NULL, time DESC, id DESC LIMIT ?2)"
		" ORDER BY time IS NULL, time DESC, id DESC");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query reports");
	db_bind_text(st, 1, hash);
	db_bind_int(st, 2, limit > 0 ? limit : -1);
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_report_row row = {db_col_text(st, 0), db_col_text(st, 1), (long)db_col_int(st, 2),
				     db_col_text(st, 3), db_col_text(st, 4), db_col_text(st, 5),
				     db_col_text(st, 6), db_col_int(st, 7), db_col_int(st, 8) != 0};
		if ((ret = fn(user, &row)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query reports");
}

/* A copy of the last column of the statement's only row (malloc'd, NUL
 * after); with two columns, a report's id and stored text, decoded. */
static int blob_copy(hg_store *store, hg_db_stmt *st, int cols, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	int rc = db_step(st), n = 0, err = 0;
	for (; rc == DB_ROW; rc = db_step(st)) {
		if (n++)
			continue;
		size_t size = db_col_bytes(st, cols - 1);
		const void *p = db_col_blob(st, cols - 1);
		if (cols == 2) {
			if ((err = store_text_decode(store, db_col_int(st, 0), p, size, text, len)))
				break;
			continue;
		}
		if (!(*text = malloc(size + 1))) {
			err = HG_ENOMEM;
			break;
		}
		if (size)
			memcpy(*text, p, size);
		(*text)[size] = '\0';
		*len = size;
	}
	db_reset(st);
	if (!err && rc < 0)
		err = store_check(store, rc, "cannot read a stored text");
	if (!err && n != 1)
		err = n == 0 ? HG_EINVAL : HG_EPARSE;
	if (err) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return err;
}

int hg_store_report_text(hg_store *store, const char *content_hash, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	if (!content_hash || !*content_hash || strlen(content_hash) > 64)
		return HG_EINVAL;
	/* A prefix as a range of the UNIQUE index: every hash is lowercase
	 * hex, so those starting with p lie in [p, p || 'g').  substr() = p
	 * read the whole table for each report `hangar reports --text` shows. */
	hg_db_stmt *st = db_stmt(store->db, S_REPORT_TEXT,
		"SELECT id, text FROM reports"
		" WHERE content_hash >= lower(?1) AND content_hash < lower(?1) || 'g' LIMIT 2");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query reports");
	db_bind_text(st, 1, content_hash);
	return blob_copy(store, st, 2, text, len);
}

int hg_store_rejected(hg_store *store, hg_rejected_fn fn, void *user)
{
	hg_db_stmt *st = db_stmt(store->db, S_REJECTED,
		"SELECT id, source, line, reason, at, size, length(CAST(text AS BLOB)), text_hash,"
		" truncated FROM rejected ORDER BY id");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query rejected inputs");
	int rc, ret = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		hg_rejected_row row = {db_col_int(st, 0), db_col_text(st, 1), (long)db_col_int(st, 2),
				       db_col_text(st, 3), db_col_text(st, 4),
				       (size_t)db_col_int(st, 5), (size_t)db_col_int(st, 6),
				       db_col_text(st, 7), db_col_int(st, 8) != 0};
		if ((ret = fn(user, &row)) != 0)
			break;
	}
	db_reset(st);
	return ret ? ret : store_check(store, rc, "cannot query rejected inputs");
}

int hg_store_rejected_text(hg_store *store, int64_t id, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	hg_db_stmt *st = db_stmt(store->db, S_REJECTED_TEXT, "SELECT text FROM rejected WHERE id = ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query rejected inputs");
	db_bind_int(st, 1, id);
	return blob_copy(store, st, 1, text, len);
}

/* ---- meta values and ingest runs ---- */

int hg_store_time(hg_store *store, const char *text, char out[32])
{
	int err = store_time_normalize(store, text, out);
	/* Also the readers' forms SQLite cannot read ("+0200", nanoseconds):
	 * a time copied from a report works as --since. */
	const char *why;
	if (!err && !out[0] && text && report_time_parse(text, strlen(text), out, &why) != 0)
		out[0] = '\0';
	return err ? err : out[0] ? 0 : HG_EINVAL;
}

int hg_store_count_untimed(hg_store *store, int64_t *n)
{
	int rc = store_query_int(store, S_UNTIMED, "SELECT count(*) FROM reports WHERE time IS NULL", n);
	return store_check(store, rc, "cannot count the reports of unknown time");
}

int hg_store_meta_get(hg_store *store, const char *key, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	hg_db_stmt *st = db_stmt(store->db, S_META_GET, "SELECT value FROM meta WHERE key = ?1");
	if (!st)
		return store_fail(store, HG_EIO, "cannot read the store's metadata");
	db_bind_text(st, 1, key);
	int rc = db_step(st), err = HG_EINVAL;
	if (rc == DB_ROW && !db_col_null(st, 0)) {
		snprintf(buf, size, "%s", db_col_text(st, 0));
		err = 0;
	}
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot read the store's metadata") : err;
}

static int meta_put(hg_store *store, const char *key, const char *value)
{
	hg_db_stmt *st = db_stmt(store->db, S_META_PUT,
				 "INSERT INTO meta(key, value) VALUES(?1, ?2) "
				 "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
	if (!st)
		return DB_ERROR;
	db_bind_text(st, 1, key);
	db_bind_text(st, 2, value);
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

/* Called by hg_store_add_report right after the run's first new report
 * was inserted: the run's reports are those from that one on. */
int store_mark_ingest_now(hg_store *store)
{
	/* First, while last_insert_rowid() is still the report's: the meta
	 * upserts below change it. */
	char started[64], first[32], now[64], before[32];
	hg_db_stmt *st = db_stmt(store->db, S_MAX_REPORT_ID,
				 "SELECT coalesce(max(id), 0), " STORE_NOW_SQL
				 " FROM reports WHERE id < last_insert_rowid()");
	if (!st)
		return DB_ERROR;
	int rc = db_step(st);
	if (rc == DB_ROW) {
		snprintf(before, sizeof before, "%lld", (long long)db_col_int(st, 0));
		snprintf(now, sizeof now, "%s", db_col_text(st, 1) ? db_col_text(st, 1) : "");
	}
	db_reset(st);
	if (rc != DB_ROW)
		return rc < 0 ? rc : DB_ERROR;
	if (hg_store_meta_get(store, "last_ingest_started", started, sizeof started) == 0 &&
	    hg_store_meta_get(store, "last_ingest_report_id", first, sizeof first) == 0) {
		rc = meta_put(store, "previous_ingest_started", started);
		if (rc >= 0)
			rc = meta_put(store, "previous_ingest_report_id", first);
		if (rc < 0)
			return rc;
	}
	rc = meta_put(store, "last_ingest_started", now);
	return rc < 0 ? rc : meta_put(store, "last_ingest_report_id", before);
}

int hg_store_mark_ingest(hg_store *store)
{
	store->mark_pending = true;
	return 0;
}
