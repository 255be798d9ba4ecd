/* Reports per app version against a sessions file, for the digest's rates
 * by version: the store's reports counted per version, UTC day and
 * whether they are ANRs (one query), then held against the file's rows as
 * hg_sessions_counts says. */
#include <stdlib.h>
#include <string.h>

#include "sessions_internal.h"
#include "store_internal.h"

static const char version_rates_sql[] =
	"SELECT version, substr(time, 1, 10), count(*), sum(kind IN ('anr', 'signal_anr'))"
	" FROM reports GROUP BY 1, 2";

struct counts {
	int64_t reports, anrs;
};

int hg_store_version_rates(hg_store *store, const hg_sessions *sessions, hg_version_rate_fn fn,
			   void *user, int64_t *uncounted)
{
	if (uncounted)
		*uncounted = 0;
	if (!sessions)
		return HG_EINVAL;
	struct counts *c = calloc(sessions->n_versions + 1, sizeof *c);
	if (!c)
		return HG_ENOMEM;
	hg_db_stmt *st = db_stmt(store->db, S_VERSION_RATES, version_rates_sql);
	if (!st) {
		free(c);
		return store_fail(store, HG_EIO, "cannot count reports per version");
	}
	int rc;
	int64_t other = 0;
	while ((rc = db_step(st)) == DB_ROW) {
		const char *version = db_col_text(st, 0);
		int64_t i, n = db_col_int(st, 2);
		if (!hg_sessions_counts(sessions, NULL, version, db_col_text(st, 1)) ||
		    !strmap_get(&sessions->index, version, &i)) {
			other += n;
			continue;
		}
		c[i].reports += n;
		c[i].anrs += db_col_int(st, 3);
	}
	db_reset(st);
	int ret = store_check(store, rc, "cannot count reports per version");
	for (size_t i = 0; !ret && i < sessions->n_versions; i++) {
		const struct sess_version *e = &sessions->versions[i];
		hg_version_rate v = {e->version, e->total, c[i].reports, c[i].anrs,
				     hg_rate_per_1k(c[i].reports, e->total),
				     hg_rate_per_1k(c[i].anrs, e->total)};
		ret = fn(user, &v);
	}
	free(c);
	if (!ret && uncounted)
		*uncounted = other;
	return ret;
}
