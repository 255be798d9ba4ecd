/* hangar prune: retention.  The reports older than N days are dropped but
 * for a few samples per cluster; clusters, their merged trees and the
 * rollups stay, so top, show and the digest still count them. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "prune_cli.h"
#include "store_cli.h"

static void prune_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar prune --keep-days N [OPTIONS]\n"
		"\n"
		"Drop the reports older than N days (by their time; by when they were\n"
		"ingested when they have none), except the newest few of each cluster, and\n"
		"the rejected inputs recorded before then.  Clusters, their merged trees and\n"
		"rollups stay: top, show and the digest still count what was dropped.  The\n"
		"store file shrinks; the first prune of a store made before prune existed\n"
		"rewrites it once.  Safe to kill and run again.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --keep-days N      keep the reports of the last N days (required)\n"
		"      --keep-samples K   and the K newest older reports of each cluster\n"
		"                         (default %d)\n"
		"      --now T            count the days back from T (ISO 8601), not from now\n"
		"      --dry-run          say what would be dropped; change nothing\n"
		"      --batch N          report ids per transaction (default %d): a kill\n"
		"                         loses one batch, and writers wait at most one\n"
		"  -f, --format F         text (default) or json\n"
		"  -h, --help             show this help\n"
		"\n"
		"Exit status: 0 fine, 1 the store could not be pruned, 2 usage.\n",
		PRUNE_DEFAULT_SAMPLES, HG_PRUNE_BATCH);
}

enum { OPT_KEEP_DAYS = 900, OPT_KEEP_SAMPLES, OPT_NOW, OPT_DRY_RUN, OPT_BATCH };

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"keep-days", required_argument, NULL, OPT_KEEP_DAYS},
	{"keep-samples", required_argument, NULL, OPT_KEEP_SAMPLES},
	{"now", required_argument, NULL, OPT_NOW},
	{"dry-run", no_argument, NULL, OPT_DRY_RUN},
	{"batch", required_argument, NULL, OPT_BATCH},
	{"format", required_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int parse_bounded(const char *cmd, const char *option, const char *what,
			 const char *value, int64_t max, int64_t *out)
{
	if (!cli_parse_int64(value, out) || *out < 0 || *out > max)
		return cli_usage_error(cmd, "%s wants %s, 0 to %lld, not '%s'", option, what,
				       (long long)max, value);
	return EXIT_FINE;
}

int prune_parse_days(const char *cmd, const char *value, int64_t *out)
{
	return parse_bounded(cmd, "--keep-days", "a number of days", value, PRUNE_MAX_DAYS, out);
}

int prune_parse_samples(const char *cmd, const char *value, int64_t *out)
{
	return parse_bounded(cmd, "--keep-samples", "a number of reports per cluster", value,
			     PRUNE_MAX_SAMPLES, out);
}

/* Bytes for a person: kB under a megabyte, else MB (decimal, as df -H). */
static void print_size(FILE *out, int64_t bytes)
{
	if (bytes < 1000000)
		fprintf(out, "%.1f kB", (double)bytes / 1e3);
	else
		fprintf(out, "%.1f MB", (double)bytes / 1e6);
}

/* "lag 20, anr 3", each after sep then ", ". */
static void print_kinds(FILE *out, const hg_prune_stats *s, const char *sep)
{
	for (size_t i = 0; i < s->n_kinds; i++) {
		fprintf(out, "%s", i ? ", " : sep);
		cli_fprintf(out, "%s", s->kinds[i].kind[0] ? s->kinds[i].kind : "unknown");
		fprintf(out, " %lld", (long long)s->kinds[i].reports);
	}
}

void prune_print_line(FILE *out, const hg_prune_query *q, const hg_prune_stats *s)
{
	fprintf(out, "pruned %lld reports older than %lld day%s (%s)", (long long)s->reports,
		(long long)q->keep_days, q->keep_days == 1 ? "" : "s", s->cutoff);
	print_kinds(out, s, ": ");
	fprintf(out, "; %lld rejected inputs; kept %lld samples; store ", (long long)s->rejected,
		(long long)s->samples);
	print_size(out, s->bytes_before);
	fprintf(out, " -> ");
	print_size(out, s->bytes_after);
	if (s->rewritten)
		fprintf(out, " (rewritten once: made before prune existed)");
}

/* A few lines for a person. */
static void print_text(const char *path, const hg_prune_query *q, const hg_prune_stats *s)
{
	cli_printf("prune%s: %s\n", q->dry_run ? " (dry run: nothing is changed)" : "", path);
	printf("cutoff: %s, %lld day%s before %s\n", s->cutoff, (long long)q->keep_days,
	       q->keep_days == 1 ? "" : "s", s->now);
	printf("%s: %lld reports", q->dry_run ? "would drop" : "dropped", (long long)s->reports);
	print_kinds(stdout, s, " (");
	printf("%s, ", s->n_kinds ? ")" : "");
	print_size(stdout, s->text_bytes);
	printf(" of texts, %lld rejected inputs\n", (long long)s->rejected);
	printf("%s: %lld samples (at most %lld per cluster), %lld clusters with only samples, "
	       "%lld reports in all\n", q->dry_run ? "would keep" : "kept", (long long)s->samples,
	       (long long)q->keep_samples, (long long)s->sample_clusters,
	       (long long)s->reports_left);
	printf("store: ");
	print_size(stdout, s->bytes_before);
	if (q->dry_run) {
		printf(" (a dry run frees nothing)\n");
		return;
	}
	printf(" -> ");
	print_size(stdout, s->bytes_after);
	printf("%s\n", s->rewritten ? " (rewritten once, as it was made before prune existed: "
				      "later prunes free pages as they go)" : "");
}

/* One object (schemas/prune.schema.json). */
static void print_json(const char *path, const hg_prune_query *q, const hg_prune_stats *s)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{\"store\":");
	hg_buf_json_string(&b, path, strlen(path));
	hg_buf_printf(&b, ",\"dry_run\":%s,\"now\":\"%s\",\"cutoff\":\"%s\",\"keep_days\":%lld,"
		      "\"keep_samples\":%lld,\"reports_dropped\":%lld,\"by_kind\":{",
		      q->dry_run ? "true" : "false", s->now, s->cutoff, (long long)q->keep_days,
		      (long long)q->keep_samples, (long long)s->reports);
	for (size_t i = 0; i < s->n_kinds; i++) {
		if (i)
			hg_buf_putc(&b, ',');
		hg_buf_json_string(&b, s->kinds[i].kind, strlen(s->kinds[i].kind));
		hg_buf_printf(&b, ":%lld", (long long)s->kinds[i].reports);
	}
	hg_buf_printf(&b, "},\"text_bytes\":%lld,\"rejected_dropped\":%lld,\"samples_kept\":%lld,"
		      "\"clusters_only_samples\":%lld,\"reports_left\":%lld,\"bytes_before\":%lld,",
		      (long long)s->text_bytes, (long long)s->rejected, (long long)s->samples,
		      (long long)s->sample_clusters, (long long)s->reports_left,
		      (long long)s->bytes_before);
	if (q->dry_run)
		hg_buf_puts(&b, "\"bytes_after\":null");
	else
		hg_buf_printf(&b, "\"bytes_after\":%lld", (long long)s->bytes_after);
	hg_buf_printf(&b, ",\"rewritten\":%s}\n", s->rewritten ? "true" : "false");
	if (!b.failed)
		fwrite(b.data, 1, b.len, stdout);
	hg_buf_release(&b);
}

struct prune_opts {
	const char *db, *now;
	bool have_days, json;
	hg_prune_query q;
};

static int parse(int argc, char **argv, struct prune_opts *o)
{
	int c, bad;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'D': o->db = optarg; break;
		case OPT_KEEP_DAYS:
			if ((bad = prune_parse_days("prune", optarg, &o->q.keep_days)) != EXIT_FINE)
				return bad;
			o->have_days = true;
			break;
		case OPT_KEEP_SAMPLES:
			if ((bad = prune_parse_samples("prune", optarg, &o->q.keep_samples)) != EXIT_FINE)
				return bad;
			break;
		case OPT_NOW: o->now = optarg; break;
		case OPT_DRY_RUN: o->q.dry_run = true; break;
		case OPT_BATCH:
			if (!cli_parse_int64(optarg, &o->q.batch) || o->q.batch < 1 ||
			    o->q.batch > 100000000)
				return cli_usage_error("prune", "--batch wants 1 to 100000000 report ids, "
						       "not '%s'", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				return cli_usage_error("prune", "unknown format '%s' (text, json)", optarg);
			o->json = !strcmp(optarg, "json");
			break;
		case 'h': prune_usage(stdout); return -1;
		case ':': return cli_usage_error("prune", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_unknown_option("prune", long_options, argv, optind, optopt);
		}
	}
	if (optind < argc)
		return cli_usage_error("prune", "unexpected argument '%s'", argv[optind]);
	if (!o->have_days)
		return cli_usage_error("prune", "--keep-days N is required: the reports of the last N "
				       "days are kept");
	return EXIT_FINE;
}

static int run_prune(int argc, char **argv)
{
	/* The store keeps its context for its whole life. */
	static hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = cli_print_diag;
	struct prune_opts o = {.q = {.keep_samples = PRUNE_DEFAULT_SAMPLES}};
	int status = parse(argc, argv, &o);
	if (status != EXIT_FINE)
		return status < 0 ? EXIT_FINE : status;
	const char *path = store_path(o.db);
	/* A dry run only reads: a store it may not write will do. */
	hg_store *store = open_store_in(&ctx, path, o.q.dry_run ? HG_STORE_READ_ONLY
							    : HG_STORE_EXISTING);
	if (!store)
		return EXIT_SOME_FAILED;
	char now[32];
	if (o.now && hg_store_time(store, o.now, now) != 0) {
		hg_store_close(store);
		return cli_usage_error("prune", "--now wants a time (ISO 8601, e.g. "
				       "2026-11-29T06:00:00Z), not '%s'", o.now);
	}
	o.q.now = o.now ? now : NULL;
	hg_prune_stats s;
	int rc = hg_store_prune(store, &o.q, &s);
	hg_store_close(store);
	if (rc == 0) {
		if (o.json)
			print_json(path, &o.q, &s);
		else
			print_text(path, &o.q, &s);
		fflush(stdout);
	} else {
		/* The store said why; what was done before stays done. */
		if (o.q.dry_run)
			fprintf(stderr, "hangar prune: %s: %s\n", path, hg_strerror(rc));
		else
			fprintf(stderr, "hangar prune: %s: stopped after dropping %lld reports: %s\n",
				path, (long long)s.reports, hg_strerror(rc));
	}
	hg_prune_stats_release(&s);
	return rc == 0 ? EXIT_FINE : EXIT_SOME_FAILED;
}

const struct command cmd_prune = {
	"prune",
	"drop the reports older than N days, keeping samples, clusters and rollups",
	run_prune,
	prune_usage,
};
