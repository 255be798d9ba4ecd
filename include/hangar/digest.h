/* The nightly digest: what one ingest run brought into the store, written
 * for people (GitHub-flavoured Markdown) or for machines (one JSON object,
 * documented in hangar-formats(5) DIGEST).  Both formats hold the same
 * data: the run's counts, report totals by kind, the top clusters, the
 * clusters new in this run, the regressed ones, failed fetches and the
 * inputs this run rejected.  The Markdown lists are cut to a few rows so
 * that the digest fits on a screen or two, saying how many more the JSON
 * holds; the JSON lists are whole (up to HG_DIGEST_JSON_MAX rows each).
 * A run into a store that held no reports before is a baseline: nothing
 * is new or regressed.  Every digest lists the escalating clusters of the
 * store's latest day (hg_store_escalations); with sessions, each app
 * version's rates (hg_store_version_rates), those whose ANR rate is over
 * a threshold flagged.  The HTML digest holds the Markdown's rows and
 * pictures of them. */
#ifndef HANGAR_DIGEST_H
#define HANGAR_DIGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "text.h"

/* What the nightly run did.  Strings borrowed; times in the store's form
 * (hg_store_time), e.g. 2026-11-29T02:00:00.000Z. */
typedef struct hg_digest_run {
	const char *source;           /* the source URL(s) read, redacted; NULL: none */
	bool remote;                  /* some source is remote: the objects counts are said */
	const char *started, *finished; /* NULL: unknown (then every rejected input is listed) */
	int64_t first_report_id;      /* >= 0: reports with a larger id were stored by this run */
	int64_t compare_after_id;     /* regressions against reports with a larger id (up to
				       * first_report_id): the previous run's; -1: all before */
	int64_t new_reports, duplicates, rejected;
	int64_t rejected_before;      /* inputs rejected again with the bytes an earlier run
				       * rejected: not in rejected */
	int64_t expired;              /* reports older than the store keeps: not stored */
	int64_t objects_listed, objects_fetched, objects_skipped, objects_failed;
	int top;                      /* clusters in the top list; <= 0: 10 */
	int limit;                    /* Markdown: rows of each list; <= 0: 5 (JSON: all) */
	/* Regressed, as hg_store_diff says (hg_diff_query): at least min_count
	 * reports in the run, and a count min_rise times the earlier one
	 * (>= 0) or a p90 up by more than threshold percent (>= 0). */
	int64_t min_count;
	double min_rise;
	double threshold;
	/* Markdown: the HTML digest written beside it (its name as a link
	 * relative to the Markdown's folder), said at the top; NULL: none. */
	const char *html_name;
	/* Rates by version against these sessions (borrowed; NULL: none), an
	 * ANR rate over rate_threshold flagged (reports per 1,000 sessions;
	 * <= 0: HG_DIGEST_RATE_THRESHOLD). */
	const hg_sessions *sessions;
	double rate_threshold;
} hg_digest_run;

/* Play's bad-behaviour threshold for the user-perceived ANR rate, 0.47%
 * of daily sessions, per 1,000 sessions.  hangar counts ANR reports, not
 * sessions with an ANR, so its rate is an upper bound of Play's. */
#define HG_DIGEST_RATE_THRESHOLD 4.7

/* The most rows of each JSON list (its total is said all the same). */
#define HG_DIGEST_JSON_MAX 10000

/* HTML: one self-contained page (no script, style, font or picture from
 * elsewhere; a Content-Security-Policy that forbids fetching any) with the
 * Markdown's lists, each listed cluster's reports per day as a small chart
 * and its merged call tree as a flame graph (hg_flame_write_svg). */
enum hg_digest_format { HG_DIGEST_MARKDOWN, HG_DIGEST_JSON, HG_DIGEST_HTML };

/* Appends the digest of run to out (caller-owned; on an error out may hold
 * part of it).  *new_clusters (may be NULL) gets the number of clusters all
 * of whose reports came from this run (0 for a baseline; the CLI's
 * --fail-on-new exits 3 when > 0).  0, HG_EINVAL (bad run fields or
 * format), HG_ENOMEM, or the store's error.  An empty store or a run that stored nothing gives a
 * digest saying so, not an error. */
int hg_digest_write(hg_store *store, const hg_digest_run *run, enum hg_digest_format fmt,
		    hg_buf *out, int64_t *new_clusters);

#endif
