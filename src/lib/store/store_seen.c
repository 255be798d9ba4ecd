/* What earlier runs already failed on: an input rejected with the same
 * bytes, an object whose fetch failed before.  A nightly run counts and
 * fails only on what is new, so that one file that can never be read is
 * said once, not every night. */
#include "core/core.h"
#include "store_internal.h"

int hg_store_rejected_known(hg_store *store, const char *source, long line, const char *text,
			    size_t len)
{
	unsigned char md[32];
	char hash[65];
	hg_sha256(text ? text : "", text ? len : 0, md);
	hg_hex_digest(md, 32, hash); /* as hg_store_add_rejected keys it */
	hg_db_stmt *st = db_stmt(store->db, S_REJECTED_KNOWN,
		"SELECT count(*) FROM rejected WHERE source = ?1 AND line = ?2 AND text_hash = ?3");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query rejected inputs");
	db_bind_text(st, 1, source ? source : "");
	db_bind_int(st, 2, line);
	db_bind_text(st, 3, hash);
	int rc = db_step(st);
	int known = rc == DB_ROW && db_col_int(st, 0) > 0;
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot query rejected inputs") : known;
}

int hg_store_object_failed_before(hg_store *store, const char *source, const char *key)
{
	hg_db_stmt *st = db_stmt(store->db, S_OBJECT_FAILED,
		"SELECT count(*) FROM objects WHERE source = ?1 AND key = ?2 AND status = 'failed'");
	if (!st)
		return store_fail(store, HG_EIO, "cannot query objects");
	db_bind_text(st, 1, source);
	db_bind_text(st, 2, key);
	int rc = db_step(st);
	int failed = rc == DB_ROW && db_col_int(st, 0) > 0;
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot query objects") : failed;
}
