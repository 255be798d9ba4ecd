/* hangar diff: what is new, regressed or gone between two sets of reports
 * (two versions, two time windows, or the last ingest run and before). */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

static void diff_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar diff [OPTIONS]\n"
		"\n"
		"Compare two sets of reports cluster by cluster: new clusters (reports only\n"
		"in the new set), regressed ones (count or cost p90 up by more than the\n"
		"threshold) and gone ones (reports only in the old set).\n"
		"\n"
		"Options:\n"
		"      --db FILE                the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --since T                new set: reports at or after T (2024-04-25, ISO,\n"
		"                               epoch ms, or an age: 24h, 7d); old set: before T\n"
		"      --until T                new set: only reports before T\n"
		"      --baseline-version A     old set: reports of app version A (with --version)\n"
		"      --version B              new set: reports of app version B\n"
		"      --threshold PCT          regressed above PCT percent growth (default 50)\n"
		"      --fail-on-new            exit 3 when there is a new cluster\n"
		"  -f, --format F               table (default), json (one object per line) or csv\n"
		"  -h, --help                   show this help\n"
		"\n"
		"Without --since or versions, the new set is the last ingest run's reports\n"
		"and the old set everything before it.  Exit status: 0 fine, 1 error,\n"
		"2 usage, 3 new clusters with --fail-on-new.\n");
}

struct diff_out {
	enum row_format format;
	size_t rows, new_clusters;
};

static int on_row(void *user, const hg_diff_row *r)
{
	struct diff_out *d = user;
	char oc[24], nc[24], op[24], np[24], hash[13];
	snprintf(oc, sizeof oc, "%" PRId64, r->old_count);
	snprintf(nc, sizeof nc, "%" PRId64, r->new_count);
	snprintf(op, sizeof op, "%" PRId64, r->old_p90);
	snprintf(np, sizeof np, "%" PRId64, r->new_p90);
	snprintf(hash, sizeof hash, "%.12s", r->hash);
	bool table = d->format == ROWS_TABLE, json = d->format == ROWS_JSON;
	struct cell cells[] = {
		{"status", r->status, 9, false},
		{"hash", table ? hash : r->hash, 12, false},
		{"kind", r->kind, 11, false},
		{table ? "old" : "old_count", oc, 5, json},
		{table ? "new" : "new_count", nc, 5, json},
		{"old_p90", op, 7, json},
		{"new_p90", np, 7, json},
		{"title", r->title, 0, false},
	};
	size_t n = sizeof cells / sizeof *cells;
	if (d->rows == 0)
		print_header(stdout, d->format, cells, n);
	print_row(stdout, d->format, cells, n);
	d->rows++;
	d->new_clusters += !strcmp(r->status, "new");
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"since", required_argument, NULL, 'S'},
	{"until", required_argument, NULL, 'U'},
	{"baseline-version", required_argument, NULL, 'B'},
	{"version", required_argument, NULL, 'v'},
	{"threshold", required_argument, NULL, 't'},
	{"fail-on-new", no_argument, NULL, 'n'},
	{"format", required_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static bool parse_percent(const char *s, double *out)
{
	char *end = NULL;
	double v = strtod(s, &end);
	if (!*s || !end || *end || !(v >= 0 && v < 1e9))
		return false;
	*out = v;
	return true;
}

static int check_sets(const hg_diff_query *q)
{
	if (!q->baseline_version != !q->version)
		return cli_usage_error("diff", "--baseline-version and --version go together");
	if (q->until && !q->since)
		return cli_usage_error("diff", "--until needs --since");
	if (q->version && q->since)
		return cli_usage_error("diff", "compare by time (--since) or by version, not both");
	return EXIT_FINE;
}

static int run_diff(int argc, char **argv)
{
	hg_diff_query q = {.threshold = 50};
	struct diff_out d = {ROWS_TABLE, 0, 0};
	const char *db = NULL;
	bool fail_on_new = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'D': db = optarg; break;
		case 'S': q.since = optarg; break;
		case 'U': q.until = optarg; break;
		case 'B': q.baseline_version = optarg; break;
		case 'v': q.version = optarg; break;
		case 't':
			if (!parse_percent(optarg, &q.threshold))
				return cli_usage_error("diff", "--threshold wants a percentage >= 0, not '%s'",
						       optarg);
			break;
		case 'n': fail_on_new = true; break;
		case 'f':
			if (!parse_row_format("diff", optarg, &d.format))
				return EXIT_USAGE;
			break;
		case 'h': diff_usage(stdout); return EXIT_FINE;
		case ':': return cli_usage_error("diff", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("diff", "unexpected argument '%s'", argv[optind]);
	int status = check_sets(&q);
	if (status != EXIT_FINE)
		return status;
	hg_store *store = open_store(db);
	if (!store)
		return EXIT_SOME_FAILED;
	char window[2][32];
	int bad = cli_store_window(store, "diff", &q.since, &q.until, window);
	if (bad != EXIT_FINE) {
		hg_store_close(store);
		return bad;
	}
	int rc = hg_store_diff(store, &q, on_row, &d, NULL);
	hg_store_close(store);
	if (rc != 0) {
		fprintf(stderr, "hangar diff: %s\n", hg_strerror(rc));
		return EXIT_SOME_FAILED;
	}
	return fail_on_new && d.new_clusters ? EXIT_NEW_CLUSTERS : EXIT_FINE;
}

const struct command cmd_diff = {
	"diff",
	"new, regressed and gone clusters between two versions or time windows",
	run_diff,
	diff_usage,
};
