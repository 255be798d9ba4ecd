/* Recording an input that could not be read as a report. */
#include "store_internal.h"

int hg_store_add_rejected(hg_store *store, const char *source, long line, const char *reason,
			  const char *text, size_t len)
{
	char hash[65];
	if (!text)
		len = 0;
	store_sha256_hex(text ? text : "", len, hash); /* of all of it: the same input is one row */
	size_t kept = len < HG_STORE_REJECTED_MAX_BYTES ? len : HG_STORE_REJECTED_MAX_BYTES;
	hg_db_stmt *st = db_stmt(store->db, S_INSERT_REJECTED,
		"INSERT INTO rejected(source, line, reason, text, text_hash, at, size, truncated)"
		" VALUES(?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?6, ?7)"
		" ON CONFLICT(source, line, text_hash) DO NOTHING");
	if (!st)
		return store_fail(store, HG_EIO, "cannot record a rejected input");
	db_bind_text(st, 1, source ? source : "");
	db_bind_int(st, 2, line);
	db_bind_text(st, 3, reason ? reason : "");
	db_bind_blob(st, 4, text, kept);
	db_bind_text(st, 5, hash);
	db_bind_int(st, 6, (int64_t)len);
	db_bind_int(st, 7, kept < len);
	int rc = db_step(st);
	db_reset(st);
	return store_check(store, rc, "cannot record a rejected input");
}
