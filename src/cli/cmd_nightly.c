/* hangar nightly: ingest what is new in the sources, then write the digest
 * a team reads in the morning (Markdown for people, JSON for machines, an
 * HTML page with charts and flame graphs for people who would rather
 * look): totals, top clusters, new and regressed ones, failed fetches,
 * rejected inputs.  One command for a cron job or a scheduler. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hangar/digest.h"
#include "hangar/text.h"
#include "ingest_opts.h"
#include "prune_cli.h"
#include "regress_opts.h"
#include "store_cli.h"

#define MAX_SOURCES 64
#define MAX_OUTS 3       /* one file per format */

static void nightly_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar nightly --source URL [--source URL...] [OPTIONS] [INPUT...]\n"
		"\n"
		"Ingest what is new in the sources (as hangar ingest does: objects already\n"
		"read are not fetched again), then write the digest: totals by kind, the\n"
		"top clusters, clusters new in this run, regressed ones (against the run\n"
		"before), failed fetches and rejected inputs.  The first run into an empty\n"
		"store is a baseline: nothing is new.\n"
		"\n"
		"Options:\n"
		"      --source URL       s3://bucket/prefix/, an http(s):// folder or manifest,\n"
		"                         or a local path (repeatable; INPUTs count too)\n"
		"      --out FILE         the digest: FILE.md Markdown, FILE.json JSON,\n"
		"                         FILE.html one page with charts and flame graphs\n"
		"                         (repeatable, one per format; the Markdown then\n"
		"                         links the HTML; default: Markdown on stdout)\n"
		"  -f, --format F         md, json or html (default: from --out, else md;\n"
		"                         with one --out at most)\n"
		"      --top N            clusters in the top list (default 10)\n"
		"      --limit N          Markdown: rows of each list (default 5; the JSON\n"
		"                         digest has them all)\n"
		REGRESS_USAGE
		"      --fail-on-new      exit 3 when new clusters appeared\n"
		"      --sessions FILE    rates by version, reports per 1,000 sessions, from FILE\n"
		"                         (CSV: version,sessions or version,day,sessions)\n"
		"      --rate-threshold R flag versions whose ANRs per 1,000 sessions are over R\n"
		"                         (default 4.7: Play's 0.47%% bad-behaviour threshold)\n"
		"      --keep-days N      after the digest, prune the reports older than N days\n"
		"                         (as hangar prune; what it dropped is said on stderr)\n"
		"      --keep-samples K   with --keep-days: keep each cluster's K newest older\n"
		"                         reports (default 3)\n"
		INGEST_READ_USAGE
		INGEST_REMOTE_USAGE
		"  -h, --help             show this help\n"
		"\n"
		"Exit status: 0 fine, 1 something newly rejected or not fetched (an input\n"
		"rejected before with the same bytes, an object that failed before, do not\n"
		"count; the digest is written all the same), 2 usage, 3 new clusters with\n"
		"--fail-on-new.\n");
}

enum { OPT_SOURCE = 800, OPT_OUT, OPT_TOP, OPT_LIMIT, OPT_THRESHOLD, OPT_MIN_COUNT,
       OPT_MIN_RISE, OPT_FAIL_ON_NEW, OPT_SESSIONS, OPT_RATE_THRESHOLD, OPT_KEEP_DAYS,
       OPT_KEEP_SAMPLES };

static const struct option long_options[] = {
	{"source", required_argument, NULL, OPT_SOURCE},
	{"out", required_argument, NULL, OPT_OUT},
	{"format", required_argument, NULL, 'f'},
	{"top", required_argument, NULL, OPT_TOP},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"threshold", required_argument, NULL, OPT_THRESHOLD},
	{"min-count", required_argument, NULL, OPT_MIN_COUNT},
	{"min-rise", required_argument, NULL, OPT_MIN_RISE},
	{"fail-on-new", no_argument, NULL, OPT_FAIL_ON_NEW},
	{"sessions", required_argument, NULL, OPT_SESSIONS},
	{"rate-threshold", required_argument, NULL, OPT_RATE_THRESHOLD},
	{"keep-days", required_argument, NULL, OPT_KEEP_DAYS},
	{"keep-samples", required_argument, NULL, OPT_KEEP_SAMPLES},
	INGEST_READ_OPTIONS,
	INGEST_REMOTE_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct nightly {
	char *sources[MAX_SOURCES];
	int n_sources;
	const char *outs[MAX_OUTS]; /* none: stdout */
	int formats[MAX_OUTS];
	int n_outs;
	int format;              /* -f; -1: from each --out's extension */
	int top, limit;
	struct regress_opts rules;
	bool fail_on_new;
	const char *sessions_path;  /* --sessions */
	bool rate_threshold;        /* --rate-threshold given */
	hg_prune_query prune;       /* --keep-days (-1: no prune), --keep-samples */
};

static const char *format_label(int format)
{
	return format == HG_DIGEST_JSON ? "JSON" : format == HG_DIGEST_HTML ? "HTML" : "Markdown";
}

/* The format -f names; -1 when none. */
static int format_named(const char *name)
{
	return !strcmp(name, "md") || !strcmp(name, "markdown") ? HG_DIGEST_MARKDOWN
	     : !strcmp(name, "json") ? HG_DIGEST_JSON
	     : !strcmp(name, "html") ? HG_DIGEST_HTML : -1;
}

/* The format of an --out file by its extension (Markdown when it has no
 * known one, as before HTML existed). */
static int format_of_path(const char *path)
{
	return hg_str_ends_with(path, ".json") ? HG_DIGEST_JSON
	     : hg_str_ends_with(path, ".html") || hg_str_ends_with(path, ".htm") ? HG_DIGEST_HTML
	     : HG_DIGEST_MARKDOWN;
}

/* Each output's format: -f for the one output (or stdout), else each
 * file's extension; two files of one format are a usage error. */
static int choose_formats(struct nightly *n)
{
	if (n->format >= 0 && n->n_outs > 1)
		return cli_usage_error("nightly", "--format goes with one --out at most; with "
				       "several, each file's extension names its format");
	if (!n->n_outs) {
		n->formats[0] = n->format >= 0 ? n->format : HG_DIGEST_MARKDOWN;
		return EXIT_FINE;
	}
	for (int i = 0; i < n->n_outs; i++) {
		n->formats[i] = n->format >= 0 ? n->format : format_of_path(n->outs[i]);
		for (int k = 0; k < i; k++)
			if (n->formats[k] == n->formats[i])
				return cli_usage_error("nightly", "--out %s and --out %s are both %s: "
						       "give one file per format", n->outs[k],
						       n->outs[i], format_label(n->formats[i]));
	}
	return EXIT_FINE;
}

static int parse(int argc, char **argv, struct nightly *n, struct ingest_cli *in)
{
	int c;
	int64_t v;
	bool keep_samples = false;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:f:h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_SOURCE:
			if (n->n_sources == MAX_SOURCES)
				return cli_usage_error("nightly", "at most %d sources", MAX_SOURCES);
			n->sources[n->n_sources++] = optarg;
			break;
		case OPT_OUT:
			if (n->n_outs == MAX_OUTS)
				return cli_usage_error("nightly", "at most %d --out files, one per format",
						       MAX_OUTS);
			n->outs[n->n_outs++] = optarg;
			break;
		case 'f':
			if ((n->format = format_named(optarg)) < 0)
				return cli_usage_error("nightly", "--format wants md, json or html, not '%s'",
						       optarg);
			break;
		case OPT_TOP:
			if (!cli_parse_int64(optarg, &v) || v < 1 || v > 1000)
				return cli_usage_error("nightly", "--top wants 1 to 1000, not '%s'", optarg);
			n->top = (int)v;
			break;
		case OPT_LIMIT:
			if (!cli_parse_int64(optarg, &v) || v < 1 || v > 1000)
				return cli_usage_error("nightly", "--limit wants 1 to 1000, not '%s'", optarg);
			n->limit = (int)v;
			break;
		case OPT_THRESHOLD:
		case OPT_MIN_COUNT:
		case OPT_MIN_RISE: {
			int bad = regress_option(&n->rules, "nightly", c == OPT_THRESHOLD ? "threshold"
						 : c == OPT_MIN_COUNT ? "min-count" : "min-rise", optarg);
			if (bad != EXIT_FINE)
				return bad;
			break;
		}
		case OPT_FAIL_ON_NEW: n->fail_on_new = true; break;
		case OPT_SESSIONS: n->sessions_path = optarg; break;
		case OPT_RATE_THRESHOLD: {
			int bad = regress_option(&n->rules, "nightly", "rate-threshold", optarg);
			if (bad != EXIT_FINE)
				return bad;
			n->rate_threshold = true;
			break;
		}
		case OPT_KEEP_DAYS: {
			int bad = prune_parse_days("nightly", optarg, &n->prune.keep_days);
			if (bad != EXIT_FINE)
				return bad;
			break;
		}
		case OPT_KEEP_SAMPLES: {
			int bad = prune_parse_samples("nightly", optarg, &n->prune.keep_samples);
			if (bad != EXIT_FINE)
				return bad;
			keep_samples = true;
			break;
		}
		case 'h': nightly_usage(stdout); return -1;
		case ':': return cli_usage_error("nightly", "option '%s' needs a value", argv[optind - 1]);
		case '?': return cli_unknown_option("nightly", long_options, argv, optind, optopt);
		default: {
			int bad = ingest_option(in, "nightly", c, optarg);
			if (bad != EXIT_FINE)
				return bad;
		}
		}
	}
	for (int i = optind; i < argc; i++) {
		if (n->n_sources == MAX_SOURCES)
			return cli_usage_error("nightly", "at most %d sources", MAX_SOURCES);
		n->sources[n->n_sources++] = argv[i];
	}
	if (!n->n_sources)
		return cli_usage_error("nightly", "no source: give --source URL");
	if (n->rate_threshold && !n->sessions_path)
		return cli_usage_error("nightly", "--rate-threshold goes with --sessions FILE");
	if (keep_samples && n->prune.keep_days < 0)
		return cli_usage_error("nightly", "--keep-samples goes with --keep-days N");
	return choose_formats(n);
}

/* Now in the store's time form. */
static void now_time(hg_store *store, char out[32])
{
	char ms[32];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(ms, sizeof ms, "%lld", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	if (hg_store_time(store, ms, out) != 0)
		out[0] = '\0';
}

/* Writes the digest to path through a temporary file renamed over it, so
 * that a reader never sees half a digest. */
static int write_out(const char *path, const hg_buf *b)
{
	if (!path) {
		fwrite(b->data, 1, b->len, stdout);
		return fflush(stdout) == 0 ? 0 : -1;
	}
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return -1;
	bool ok = fwrite(b->data, 1, b->len, f) == b->len;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

/* What this run's regressions are measured against: the ingest run
 * before it (the store's marks; see hg_store_mark_ingest), when the marks
 * are this run's (a run that stored nothing, or another writer between,
 * leaves them elsewhere): -1, the whole history, otherwise. */
static int64_t compare_after(hg_store *store, int64_t first)
{
	char last[32], previous[32];
	if (hg_store_meta_get(store, "last_ingest_report_id", last, sizeof last) != 0 ||
	    strtoll(last, NULL, 10) != first ||
	    hg_store_meta_get(store, "previous_ingest_report_id", previous, sizeof previous) != 0)
		return -1;
	return strtoll(previous, NULL, 10);
}

/* The HTML file's name as the Markdown file links it: its base name when
 * both are in one folder, else its path as given. */
static const char *html_link(const struct nightly *n, char *buf, size_t size)
{
	const char *md = NULL, *html = NULL;
	for (int i = 0; i < n->n_outs; i++) {
		if (n->formats[i] == HG_DIGEST_MARKDOWN)
			md = n->outs[i];
		if (n->formats[i] == HG_DIGEST_HTML)
			html = n->outs[i];
	}
	if (!md || !html)
		return NULL;
	const char *md_base = strrchr(md, '/'), *html_base = strrchr(html, '/');
	size_t md_dir = md_base ? (size_t)(md_base - md) : 0;
	size_t html_dir = html_base ? (size_t)(html_base - html) : 0;
	if (md_dir == html_dir && strncmp(md, html, md_dir) == 0)
		return html_base ? html_base + 1 : html;
	snprintf(buf, size, "%s", html);
	return buf;
}

/* Writes one digest in format to path (NULL: stdout); *new_clusters as
 * hg_digest_write gives it.  0, or -1 after saying why. */
static int write_digest(hg_store *store, const hg_digest_run *run, int format, const char *path,
			int64_t *new_clusters)
{
	hg_buf b;
	hg_buf_init(&b);
	int rc = hg_digest_write(store, run, format, &b, new_clusters);
	int ret = 0;
	if (rc != 0 || b.failed) {
		fprintf(stderr, "hangar nightly: cannot write the %s digest: %s\n", format_label(format),
			hg_strerror(rc ? rc : HG_ENOMEM));
		ret = -1;
	} else if (write_out(path, &b) != 0) {
		fprintf(stderr, "hangar nightly: %s: cannot write: %s\n", path ? path : "stdout",
			strerror(errno));
		ret = -1;
	}
	hg_buf_release(&b);
	return ret;
}

static int digest(struct ingest_cli *in, const struct nightly *n, hg_digest_run *run)
{
	hg_store *store = NULL;
	if (hg_store_open(&in->ctx, in->opts.store_path, &store) != 0)
		return EXIT_SOME_FAILED;
	char finished[32], link[4200];
	now_time(store, finished);
	run->finished = finished;
	run->compare_after_id = compare_after(store, run->first_report_id);
	const hg_ingest_summary *s = &in->sum;
	run->new_reports = (int64_t)s->fresh;
	run->duplicates = (int64_t)s->duplicate;
	run->rejected = (int64_t)s->rejected;
	run->rejected_before = (int64_t)s->rejected_before;
	run->expired = (int64_t)s->expired;
	run->objects_listed = (int64_t)s->objects.listed;
	run->objects_fetched = (int64_t)s->objects.fetched;
	run->objects_skipped = (int64_t)s->objects.skipped;
	run->objects_failed = (int64_t)s->objects.failed;
	run->html_name = html_link(n, link, sizeof link);
	int64_t new_clusters = 0;
	bool failed = false;
	for (int i = 0; i < (n->n_outs ? n->n_outs : 1); i++)
		failed |= write_digest(store, run, n->formats[i], n->n_outs ? n->outs[i] : NULL,
				       &new_clusters) != 0;
	hg_store_close(store);
	if (failed)
		return EXIT_SOME_FAILED;
	if (n->n_outs) {
		fprintf(stderr, "nightly: digest in ");
		for (int i = 0; i < n->n_outs; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", n->outs[i]);
		/* An empty store before the run: the digest is a baseline. */
		if (run->first_report_id == 0)
			fprintf(stderr, " (baseline: nothing to compare with yet)\n");
		else
			fprintf(stderr, " (%lld new clusters)\n", (long long)new_clusters);
	}
	return n->fail_on_new && new_clusters > 0 ? EXIT_NEW_CLUSTERS : EXIT_FINE;
}

/* Whether every --out can be written, said before anything is ingested:
 * a digest that cannot be written is found out before the night's work,
 * not after it (the temporary file goes beside the digest). */
static bool outs_writable(const struct nightly *n)
{
	for (int i = 0; i < n->n_outs; i++) {
		const char *slash = strrchr(n->outs[i], '/');
		char dir[4096];
		if (!slash)
			snprintf(dir, sizeof dir, ".");
		else
			snprintf(dir, sizeof dir, "%.*s", slash == n->outs[i] ? 1 : (int)(slash - n->outs[i]),
				 n->outs[i]);
		if (access(dir, W_OK) != 0) {
			fprintf(stderr, "hangar nightly: --out %s: cannot write in %s: %s\n", n->outs[i], dir,
				strerror(errno));
			return false;
		}
	}
	return true;
}

/* --keep-days: the prune, after the digest (which compares this night
 * with the one before: their reports are read while still there).  What
 * it dropped is said on stderr with nightly's other notes, the digest
 * being written by then.  EXIT_FINE or EXIT_SOME_FAILED. */
static int prune_after(struct ingest_cli *in, const struct nightly *n)
{
	if (n->prune.keep_days < 0)
		return EXIT_FINE;
	hg_store *store = NULL;
	if (hg_store_open(&in->ctx, in->opts.store_path, &store) != 0)
		return EXIT_SOME_FAILED;
	hg_prune_stats s;
	int rc = hg_store_prune(store, &n->prune, &s);
	hg_store_close(store);
	if (rc == 0) {
		fprintf(stderr, "nightly: ");
		prune_print_line(stderr, &n->prune, &s);
		fprintf(stderr, "\n");
	} else {
		fprintf(stderr, "hangar nightly: the prune stopped after dropping %lld reports: %s\n",
			(long long)s.reports, hg_strerror(rc));
	}
	hg_prune_stats_release(&s);
	return rc == 0 ? EXIT_FINE : EXIT_SOME_FAILED;
}

/* The night's work: ingest, the digest, the prune.  An exit status. */
static int night(struct ingest_cli *in, struct nightly *n, const hg_sessions *sessions)
{
	/* Where this run starts: its reports are those with a larger id. */
	hg_store *store = NULL;
	int64_t first = 0;
	char started[32] = "";
	if (hg_store_open(&in->ctx, store_path(in->db_option), &store) != 0 ||
	    hg_store_last_report_id(store, &first) != 0) {
		hg_store_close(store);
		return EXIT_SOME_FAILED;
	}
	now_time(store, started);
	hg_store_close(store);
	/* Exit 1 only for what failed newly: a file that can never be read
	 * is in the digest once, not a failed job every night. */
	ingest_cli_run(in, n->sources, n->n_sources);
	int status = hg_ingest_failed_newly(&in->sum) ? EXIT_SOME_FAILED : EXIT_FINE;
	hg_digest_run run = {.source = n->sources[0], .started = started, .first_report_id = first,
			     .top = n->top, .limit = n->limit, .min_count = n->rules.min_count,
			     .min_rise = n->rules.min_rise, .threshold = n->rules.threshold,
			     .sessions = sessions, .rate_threshold = n->rules.rate_threshold};
	for (int i = 0; i < n->n_sources; i++)
		run.remote = run.remote || hg_ingest_is_url(n->sources[i]);
	/* Every source, each without its credentials, for the heading. */
	hg_buf names;
	hg_buf_init(&names);
	for (int i = 0; i < n->n_sources; i++) {
		char *r = hg_redact_url(n->sources[i]);
		if (i)
			hg_buf_add(&names, ", ", 2);
		hg_buf_add(&names, r ? r : "(source)", strlen(r ? r : "(source)"));
		free(r);
	}
	hg_buf_putc(&names, '\0');
	run.source = names.failed || !names.data ? "(sources)" : names.data;
	int dstatus = digest(in, n, &run);
	hg_buf_release(&names);
	if (prune_after(in, n) != EXIT_FINE || dstatus == EXIT_SOME_FAILED)
		return EXIT_SOME_FAILED;
	return dstatus == EXIT_NEW_CLUSTERS ? EXIT_NEW_CLUSTERS : status;
}

static int run_nightly(int argc, char **argv)
{
	struct ingest_cli in;
	ingest_cli_init(&in);
	struct nightly n = {.format = -1, .top = 10, .rules = REGRESS_OPTS_DEFAULT,
			    .prune = {.keep_days = -1, .keep_samples = PRUNE_DEFAULT_SAMPLES}};
	int status = parse(argc, argv, &n, &in);
	if (status != EXIT_FINE)
		return status < 0 ? EXIT_FINE : status;
	if (!outs_writable(&n))
		return EXIT_USAGE;
	/* A sessions file that cannot be read stops the run before the
	 * night's work, as an --out that cannot be written does. */
	hg_sessions *sessions = NULL;
	if (n.sessions_path && cli_sessions_read(n.sessions_path, &sessions) != EXIT_FINE)
		return EXIT_SOME_FAILED;
	status = night(&in, &n, sessions);
	hg_sessions_destroy(sessions);
	return status;
}

const struct command cmd_nightly = {
	"nightly",
	"ingest what is new in the sources, then write the morning digest",
	run_nightly,
	nightly_usage,
};
