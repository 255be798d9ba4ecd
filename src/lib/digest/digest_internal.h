/* The nightly digest's data, gathered once from the store (digest.c) and
 * written by each format (digest_md.c, digest_json.c), so that both hold
 * the same.  Everything lives in the digest's arena. */
#ifndef HANGAR_DIGEST_INTERNAL_H
#define HANGAR_DIGEST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/arena.h"
#include "hangar/digest.h"
#include "hangar/flame.h"

#define DIGEST_LIMIT 5        /* Markdown rows of each list, by default (hg_digest_run.limit) */
#define DIGEST_VERSIONS 10    /* versions shown per cluster */
#define DIGEST_PATH_TAIL 4    /* nodes of a StackKey path excerpt: the key and its nearest
			       * callers, where the causes differ (the root end is the
			       * framework's dispatch, the same for every cluster) */

/* One node of a StackKey path excerpt: depth from the root (0), so that a
 * first depth above 0 says how many frames are left out above. */
struct dg_node {
	const char *symbol;
	int64_t depth, reports, total_cost;
};

/* Reports of a cluster on one UTC day. */
struct dg_day {
	int64_t day;          /* days since 1970-01-01 */
	int64_t count;
};

struct dg_version {
	const char *version;  /* "unknown" for reports without one */
	bool unknown;         /* reports without one (JSON: null) */
	int64_t count;
	const hg_figures *fig; /* its FPS / startup figures; NULL: none */
};

struct dg_cluster {
	const char *hash, *kind, *title, *key_symbol; /* key_symbol may be NULL */
	const char *first_seen, *last_seen;           /* NULL: no report has a time */
	int64_t count, run_count;
	struct dg_version *versions;
	size_t n_versions;
	int64_t versions_other;     /* reports in versions not listed */
	struct dg_node *path;       /* the excerpt */
	size_t n_path;
	int64_t path_depth;         /* nodes on the whole path */
	bool key_at_end;            /* the last node is the StackKey symbol */
	const hg_figures *fig;      /* FPS / startup figures; NULL: none */
	hg_cluster_row row;         /* as the store gave it (strings in the arena):
	                             * the JSON's cluster keys, as top's, and its
	                             * costs (row.cost_reports 0: unknown, not 0) */
	int64_t old_count, new_count, old_p90, new_p90; /* regressed clusters */
	bool cost_unknown;          /* regressed: no measured cost, the p90s unknown */
	int64_t old_fps_reports, new_fps_reports; /* regressed FPS clusters: */
	double old_fps, new_fps, old_share, new_share; /* each set's frame rate */
	hg_cluster_page page;       /* who and where, blockers, variants (its own arena:
	                             * released with the digest) */
	bool has_page;
	/* Gathered for the HTML digest only: */
	struct dg_day *days;        /* in day order */
	size_t n_days;
	int64_t untimed;            /* reports without a time */
	hg_flame flame;             /* the merged call tree; n == 0 when none */
};

struct dg_list {
	struct dg_cluster *items;
	size_t n;
	int64_t total;              /* may be more than n: capped */
};

struct dg_kind {
	const char *kind;
	int64_t all, run;
};

struct dg_object {
	const char *source, *key, *error, *at;
	int64_t attempts;
};

struct dg_rejected {
	const char *source, *reason, *at;
	long line;
};

/* A version's rates (with sessions). */
struct dg_rate {
	const char *version;
	int64_t sessions, reports, anrs;
	double rate, anr_rate;      /* per 1,000 sessions; < 0: no sessions */
	bool over;                  /* anr_rate over the threshold */
};

/* An escalating cluster on the store's latest day. */
struct dg_escalation {
	const char *hash, *kind, *title;
	int64_t count, days;        /* reports that day; the days before counted */
	double mean;                /* their mean daily reports */
};

struct digest {
	hg_arena *arena;
	const hg_digest_run *run;
	int top_limit;
	int limit;                  /* Markdown and HTML rows of each list */
	bool pictures;              /* gather days and flames (HTML) */
	size_t list_max;            /* rows gathered of each list: limit, or HG_DIGEST_JSON_MAX */
	hg_diff_totals diff;        /* diff.baseline: nothing before the run to compare with */
	struct dg_kind *kinds;
	size_t n_kinds;
	int64_t all_total, run_total;
	struct dg_list top, fresh, regressed;
	struct dg_object *failed;
	size_t n_failed;
	int64_t failed_total;
	struct dg_rejected *rejected;
	size_t n_rejected;
	int64_t rejected_total;
	/* Rates by version (digest_rates.c), when the run has sessions: */
	double rate_threshold;
	struct dg_rate *rates;
	size_t n_rates;
	int64_t uncounted;          /* reports that count against no row */
	/* Escalating clusters of day (NULL: no timed report), by the rule: */
	hg_escalate_rule rule;
	const char *escalation_day;
	struct dg_escalation *escalating;
	size_t n_escalating;
	int64_t escalating_total;
	/* Versions whose reports lacked a mapping or symbols (digest_coverage.c),
	 * most lacking first: */
	struct dg_coverage *coverage;
	size_t n_coverage;
	int64_t coverage_total;     /* such versions, listed or not */
};

/* What a version's reports lacked to name their frames (hg_coverage_row). */
struct dg_coverage {
	const char *version;        /* NULL: reports that name none */
	int64_t reports, lacking, method_mapping, proguard, symbols;
};



/* Gathers the rates by version and the escalating clusters (digest_rates.c). */
int digest_gather_trends(struct digest *d, hg_store *store);
/* The Markdown, JSON and HTML of both (digest_md.c, digest_json.c, digest_html.c). */
/* What the rates are and the threshold, one sentence (plain ASCII but for
 * the apostrophes: no writer needs to escape it). */
void digest_rates_note(hg_buf *b, const struct digest *d);
void digest_md_rates(hg_buf *b, const struct digest *d);
void digest_md_escalating(hg_buf *b, const struct digest *d);
void digest_json_trends(hg_buf *b, const struct digest *d);
void digest_html_rates(hg_buf *b, const struct digest *d);
void digest_html_escalating(hg_buf *b, const struct digest *d);
/* "a cluster escalates with at least 10 reports that day and 3x its mean
 * daily reports over the 7 days before (since it was first seen)", the
 * rule in words (plain ASCII). */
void digest_escalation_rule(hg_buf *b, const struct digest *d);

void digest_markdown(const struct digest *d, hg_buf *out);
void digest_json(const struct digest *d, hg_buf *out);
void digest_html(const struct digest *d, hg_buf *out);

/* The figures in words, "24.5 fps, 2.7% frozen/high" (FPS) or "total p50
 * 655 ms, p90 700 ms; cold 3, warm 1" (startup); nothing when neither
 * (digest.c).  Plain ASCII: no writer needs to escape it. */
void digest_figures_text(hg_buf *b, const hg_figures *f);
/* A version's figures, short: "57.0 fps, 0.9% frozen/high" (FPS), "p50
 * 655 ms, p90 700 ms" (startup totals); nothing when neither. */
void digest_version_figures(hg_buf *b, const hg_figures *f);
/* How a writer puts text into its format (HTML or Markdown escaped), at
 * most max characters. */
typedef void (*digest_text_fn)(hg_buf *b, const char *s, size_t max);
/* A cluster's versions, "1.2.0: 40 (p50 655 ms, p90 700 ms), 1.1.0: 3,
 * other: 2", each text through text (digest.c). */
void digest_versions(hg_buf *b, const struct dg_cluster *c, digest_text_fn text);
/* Gathers the versions whose reports lacked something (digest_coverage.c);
 * the writers say them, each in its format: a Markdown or HTML section
 * (its text through text), JSON's "coverage" member. */
int digest_gather_coverage(struct digest *d, hg_store *store);
void digest_coverage_md(hg_buf *b, const struct digest *d, digest_text_fn text);
void digest_coverage_html(hg_buf *b, const struct digest *d, digest_text_fn text);
void digest_coverage_json(hg_buf *b, const struct digest *d);
/* What a cluster's title is followed by: its frame rate (FPS; before and
 * after, regressed), in parentheses; nothing for other clusters. */
void digest_title_figures(hg_buf *b, const struct dg_cluster *c, bool regressed);
/* A regressed FPS cluster's frame rate before and after, "57.0 fps, 0.9%
 * frozen/high → 31.5 fps, 15.6% frozen/high"; nothing for others. */
void digest_fps_change(hg_buf *b, const struct dg_cluster *c);
/* Labels of the page's dimensions (hg_page_dims) in the digest: "version",
 * "OS", "device model", "device class", "scene", "foreground", "ANR type". */
extern const char *const digest_dim_labels[HG_PAGE_DIMS];
/* A breakdown on one line, its first DIGEST_PAGE_VALUES values with
 * their shares: "Android 13 (API 33) 60%, Android 12 (API 31) 30%, other
 * 10%" (each value through text; "unknown" for reports that do not say). */
#define DIGEST_PAGE_VALUES 3
void digest_breakdown(hg_buf *b, const hg_breakdown *d, digest_text_fn text);
/* Days since 1970-01-01 of "YYYY-MM-DD..." (the store's time form), or
 * INT64_MIN when s does not start with a date (digest.c). */
int64_t digest_day_number(const char *s);
/* "YYYY-MM-DD" of a day number into buf (11 bytes). */
void digest_day_text(int64_t day, char buf[11]);

#endif
