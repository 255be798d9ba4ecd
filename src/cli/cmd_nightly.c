/* hangar nightly: ingest what is new in the sources, then write the digest
 * a team reads in the morning (Markdown for people, JSON for machines):
 * totals, top clusters, new and regressed ones, failed fetches, rejected
 * inputs.  One command for a cron job or a scheduler. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hangar/digest.h"
#include "hangar/text.h"
#include "ingest_opts.h"
#include "regress_opts.h"
#include "store_cli.h"

#define MAX_SOURCES 64

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
		"      --out FILE         the digest: FILE.md Markdown, FILE.json JSON\n"
		"                         (default: Markdown on stdout)\n"
		"  -f, --format F         md or json (default: from --out, else md)\n"
		"      --top N            clusters in the top list (default 10)\n"
		"      --limit N          Markdown: rows of each list (default 5; the JSON\n"
		"                         digest has them all)\n"
		REGRESS_USAGE
		"      --fail-on-new      exit 3 when new clusters appeared\n"
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
       OPT_MIN_RISE, OPT_FAIL_ON_NEW };

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
	INGEST_READ_OPTIONS,
	INGEST_REMOTE_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct nightly {
	char *sources[MAX_SOURCES];
	int n_sources;
	const char *out;
	int format;              /* -1: from --out */
	int top, limit;
	struct regress_opts rules;
	bool fail_on_new;
};

static int parse(int argc, char **argv, struct nightly *n, struct ingest_cli *in)
{
	int c;
	int64_t v;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:f:h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_SOURCE:
			if (n->n_sources == MAX_SOURCES)
				return cli_usage_error("nightly", "at most %d sources", MAX_SOURCES);
			n->sources[n->n_sources++] = optarg;
			break;
		case OPT_OUT: n->out = optarg; break;
		case 'f':
			if (!strcmp(optarg, "md") || !strcmp(optarg, "markdown"))
				n->format = HG_DIGEST_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				n->format = HG_DIGEST_JSON;
			else
				return cli_usage_error("nightly", "--format wants md or json, not '%s'", optarg);
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
	if (n->format < 0)
		n->format = n->out && hg_str_ends_with(n->out, ".json") ? HG_DIGEST_JSON : HG_DIGEST_MARKDOWN;
	return EXIT_FINE;
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

static int digest(struct ingest_cli *in, const struct nightly *n, hg_digest_run *run)
{
	hg_store *store = NULL;
	if (hg_store_open(&in->ctx, in->opts.store_path, &store) != 0)
		return EXIT_SOME_FAILED;
	char finished[32];
	now_time(store, finished);
	run->finished = finished;
	run->compare_after_id = compare_after(store, run->first_report_id);
	const hg_ingest_summary *s = &in->sum;
	run->new_reports = (int64_t)s->fresh;
	run->duplicates = (int64_t)s->duplicate;
	run->rejected = (int64_t)s->rejected;
	run->rejected_before = (int64_t)s->rejected_before;
	run->objects_listed = (int64_t)s->objects.listed;
	run->objects_fetched = (int64_t)s->objects.fetched;
	run->objects_skipped = (int64_t)s->objects.skipped;
	run->objects_failed = (int64_t)s->objects.failed;
	hg_buf b;
	hg_buf_init(&b);
	int64_t new_clusters = 0;
	int rc = hg_digest_write(store, run, n->format, &b, &new_clusters);
	hg_store_close(store);
	int status = EXIT_FINE;
	if (rc != 0 || b.failed) {
		fprintf(stderr, "hangar nightly: cannot write the digest: %s\n", hg_strerror(rc ? rc : HG_ENOMEM));
		status = EXIT_SOME_FAILED;
	} else if (write_out(n->out, &b) != 0) {
		fprintf(stderr, "hangar nightly: %s: cannot write: %s\n", n->out, strerror(errno));
		status = EXIT_SOME_FAILED;
	} else if (n->fail_on_new && new_clusters > 0) {
		status = EXIT_NEW_CLUSTERS;
	}
	/* An empty store before the run: the digest is a baseline. */
	if (n->out && status != EXIT_SOME_FAILED && run->first_report_id == 0)
		fprintf(stderr, "nightly: digest in %s (baseline: nothing to compare with yet)\n",
			n->out);
	else if (n->out && status != EXIT_SOME_FAILED)
		fprintf(stderr, "nightly: digest in %s (%lld new clusters)\n", n->out,
			(long long)new_clusters);
	hg_buf_release(&b);
	return status;
}

static int run_nightly(int argc, char **argv)
{
	struct ingest_cli in;
	ingest_cli_init(&in);
	struct nightly n = {.format = -1, .top = 10, .rules = REGRESS_OPTS_DEFAULT};
	int status = parse(argc, argv, &n, &in);
	if (status != EXIT_FINE)
		return status < 0 ? EXIT_FINE : status;
	/* Where this run starts: its reports are those with a larger id. */
	hg_store *store = NULL;
	int64_t first = 0;
	char started[32] = "";
	if (hg_store_open(&in.ctx, store_path(in.db_option), &store) != 0 ||
	    hg_store_last_report_id(store, &first) != 0) {
		hg_store_close(store);
		return EXIT_SOME_FAILED;
	}
	now_time(store, started);
	hg_store_close(store);
	/* Exit 1 only for what failed newly: a file that can never be read
	 * is in the digest once, not a failed job every night. */
	ingest_cli_run(&in, n.sources, n.n_sources);
	status = hg_ingest_failed_newly(&in.sum) ? EXIT_SOME_FAILED : EXIT_FINE;
	hg_digest_run run = {.source = n.sources[0], .started = started, .first_report_id = first,
			     .top = n.top, .limit = n.limit, .min_count = n.rules.min_count,
			     .min_rise = n.rules.min_rise, .threshold = n.rules.threshold};
	for (int i = 0; i < n.n_sources; i++)
		run.remote = run.remote || hg_ingest_is_url(n.sources[i]);
	/* Every source, each without its credentials, for the heading. */
	hg_buf names;
	hg_buf_init(&names);
	for (int i = 0; i < n.n_sources; i++) {
		char *r = hg_redact_url(n.sources[i]);
		if (i)
			hg_buf_add(&names, ", ", 2);
		hg_buf_add(&names, r ? r : "(source)", strlen(r ? r : "(source)"));
		free(r);
	}
	hg_buf_putc(&names, '\0');
	run.source = names.failed || !names.data ? "(sources)" : names.data;
	int dstatus = digest(&in, &n, &run);
	hg_buf_release(&names);
	if (dstatus == EXIT_SOME_FAILED)
		return EXIT_SOME_FAILED;
	return dstatus == EXIT_NEW_CLUSTERS ? EXIT_NEW_CLUSTERS : status;
}

const struct command cmd_nightly = {
	"nightly",
	"ingest what is new in the sources, then write the morning digest",
	run_nightly,
	nightly_usage,
};
