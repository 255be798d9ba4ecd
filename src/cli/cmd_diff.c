/* hangar diff: what is new, regressed or gone between two sets of reports
 * (two versions, two time windows, or the last ingest run and before). */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff_flame.h"
#include "regress_opts.h"
#include "store_cli.h"

#define TABLE_LIMIT 20  /* table rows of each status, by default */

static void diff_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar diff [OPTIONS]\n"
		"\n"
		"Compare two sets of reports cluster by cluster: new clusters (reports only\n"
		"in the new set), regressed ones (enough reports and a real rise in count or\n"
		"cost p90) and gone ones (reports only in the old set).  With no report in\n"
		"the old set, the new set is a baseline: nothing is new.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --since T          new set: reports at or after T (2024-04-25, ISO,\n"
		"                         epoch ms, or an age: 24h, 7d); old set: before T\n"
		"      --until T          new set: only reports before T\n"
		"      --baseline-version A  old set: reports of app version A (with --version)\n"
		"      --version B        new set: reports of app version B\n"
		REGRESS_USAGE
		"      --limit N          table: at most N rows of each status (default 20;\n"
		"                         0: all); json and csv: all unless given\n"
		"      --fail-on-new      exit 3 when there is a new cluster\n"
		"      --sessions FILE    each set's rate, reports per 1,000 sessions, from FILE\n"
		"                         (CSV: version,sessions or version,day,sessions)\n"
		"  -f, --format F         table (default), json (one object per line) or csv\n"
		"      --width N          fit the table to N columns (0: no limit; default: the\n"
		"                         terminal's width, no limit when not a terminal)\n"
		"  -h, --help             show this help\n"
		"\n"
		"One cluster's differential flame graph, between the same two sets (two\n"
		"versions, or before and from --since):\n"
		"      --flame HASH       an SVG of the cluster (a hash prefix) instead of the\n"
		"                         table: widths from the new set's reports, red where a\n"
		"                         call path's cost per report grew, blue where it\n"
		"                         shrank, hatched where it is new\n"
		"  -o, --output FILE      write the SVG there (default: stdout)\n"
		"      --width PX         with --flame: its width in pixels (default 1200)\n"
		"  -m, --mapping FILE     name frames as ingest did: methodMapping.txt,\n"
		"      --proguard FILE    ProGuard/R8 mapping.txt (repeatable),\n"
		"      --mapping-dir DIR  or DIR/<version>/ per app version\n"
		"\n"
		"Without --since or versions, the new set is the last ingest run's reports,\n"
		"the old set everything before it, and counts are compared with the run\n"
		"before.  Exit status: 0 fine, 1 error, 2 usage, 3 new clusters with\n"
		"--fail-on-new.\n");
}

struct diff_out {
	hg_rows format;
	hg_table *table;
	bool rates;                /* --sessions: the sets' rates */
	long limit;                /* rows of each status; <= 0: all */
	size_t rows, new_clusters;
	char status[12];           /* the status of the rows being counted */
	long of_status;            /* rows of it so far */
	int64_t left_out;          /* of it, beyond the limit */
};

/* "… 37 more new (--limit 0 lists all)": said in the table, on stderr
 * for json and csv (their stdout stays rows). */
static void say_left_out(const struct diff_out *d)
{
	if (!d->left_out)
		return;
	if (d->format != HG_ROWS_TABLE) {
		cli_fprintf(stderr, "hangar diff: … %" PRId64 " more %s (--limit 0 lists all)\n",
			    d->left_out, d->status);
		return;
	}
	char note[96];
	snprintf(note, sizeof note, "… %" PRId64 " more %s (--limit 0 lists all)\n", d->left_out,
		 d->status);
	hg_table_note(d->table, note);
}

static int on_row(void *user, const hg_diff_row *r)
{
	struct diff_out *d = user;
	d->new_clusters += !strcmp(r->status, "new");
	if (strcmp(r->status, d->status) != 0) {
		say_left_out(d);
		snprintf(d->status, sizeof d->status, "%s", r->status);
		d->of_status = 0;
		d->left_out = 0;
	}
	if (d->limit > 0 && d->of_status++ >= d->limit) {
		d->left_out++;
		return 0;
	}
	d->rows++;
	if (d->format == HG_ROWS_JSON) {
		hg_buf row;
		hg_buf_init(&row);
		hg_render_diff_row_json(&row, r);
		if (!row.failed)
			fwrite(row.data, 1, row.len, stdout);
		hg_buf_release(&row);
		return 0;
	}
	hg_render_diff_row(d->table, r, d->format == HG_ROWS_TABLE, d->rates);
	return 0;
}

/* After the rows: what was left out, a baseline said as one, and an empty
 * result said as one (in the table; on stderr for json and csv). */
static void say_totals(const struct diff_out *d, const hg_diff_totals *t)
{
	say_left_out(d);
	hg_table_flush(d->table);
	if (d->rows == 0 && d->format == HG_ROWS_CSV) { /* a script reads the columns either way */
		hg_buf head;
		hg_buf_init(&head);
		hg_render_diff_csv_header(&head, d->rates);
		if (!head.failed && head.len)
			fwrite(head.data, 1, head.len, stdout);
		hg_buf_release(&head);
	}
	FILE *out = d->format == HG_ROWS_TABLE ? stdout : stderr;
	const char *who = d->format == HG_ROWS_TABLE ? "" : "hangar diff: ";
	if (t->baseline) {
		fprintf(out, "%s%" PRId64 " cluster%s, baseline: the old set has no reports, so "
			"nothing is new, regressed or gone\n", who, t->new_set_clusters,
			t->new_set_clusters == 1 ? "" : "s");
	} else if (d->rows == 0 && !d->left_out) {
		fprintf(out, "%snothing new, regressed or gone: %" PRId64 " report%s in the new set "
			"(%" PRId64 " cluster%s), %" PRId64 " in the old\n", who, t->new_reports,
			t->new_reports == 1 ? "" : "s", t->new_set_clusters,
			t->new_set_clusters == 1 ? "" : "s", t->old_reports);
	}
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"since", required_argument, NULL, 'S'},
	{"until", required_argument, NULL, 'U'},
	{"baseline-version", required_argument, NULL, 'B'},
	{"version", required_argument, NULL, 'v'},
	{"threshold", required_argument, NULL, 't'},
	{"min-count", required_argument, NULL, 'c'},
	{"min-rise", required_argument, NULL, 'r'},
	{"limit", required_argument, NULL, 'l'},
	{"fail-on-new", no_argument, NULL, 'n'},
	{"sessions", required_argument, NULL, 'e'},
	{"format", required_argument, NULL, 'f'},
	{"flame", required_argument, NULL, 'F'},
	{"output", required_argument, NULL, 'o'},
	{"width", required_argument, NULL, 'w'},
	{"mapping", required_argument, NULL, 'm'},
	{"proguard", required_argument, NULL, 'P'},
	{"mapping-dir", required_argument, NULL, 'M'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

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

/* --flame and the options that go with it. */
static int flame_option(struct diff_flame_opts *fl, int c, const char *arg)
{
	switch (c) {
	case 'F': fl->cluster = arg; break;
	case 'o': fl->output = arg; break;
	case 'm': fl->mapping = arg; break;
	case 'M': fl->mapping_dir = arg; break;
	case 'P':
		if (fl->n_proguard == DIFF_FLAME_MAX_PROGUARD)
			return cli_usage_error("diff", "at most %d --proguard files",
					       DIFF_FLAME_MAX_PROGUARD);
		fl->proguard[fl->n_proguard++] = arg;
		break;
	}
	return EXIT_FINE;
}

/* --width: the SVG's pixels with --flame, else the table's columns. */
static int width_option(struct diff_flame_opts *fl, const char *arg, int *columns)
{
	int64_t v;
	if (!fl->cluster)
		return cli_text_width("diff", arg, columns) ? EXIT_FINE : EXIT_USAGE;
	if (!arg)
		return EXIT_FINE;
	if (!cli_parse_int64(arg, &v) || v < 300 || v > 100000)
		return cli_usage_error("diff", "--width wants pixels, 300 to 100000, not '%s'", arg);
	fl->width = (int)v;
	return EXIT_FINE;
}

/* --flame: the two sets must be named (a picture of "the last ingest run"
 * would change under the reader's feet), and the table's options do not
 * apply. */
static int run_flame(struct diff_flame_opts *fl, const hg_diff_query *q, const struct store_cmd *sc)
{
	if (!q->version && !q->since)
		return cli_usage_error("diff", "--flame needs the two sets: --baseline-version A "
				       "--version B, or --since T");
	if (sc->format != HG_ROWS_TABLE)
		return cli_usage_error("diff", "--flame writes an SVG; -f does not go with it");
	fl->db = sc->db;
	fl->baseline_version = q->baseline_version;
	fl->version = q->version;
	fl->since = q->since;
	fl->until = q->until;
	return diff_flame_run(fl);
}

/* The table (or CSV, JSON) of the changed clusters: an exit status. */
static int table_diff(hg_diff_query *q, const struct regress_opts *rules, struct diff_out *d,
		      const struct store_cmd *sc, int columns, const hg_sessions *sessions)
{
	if (d->limit < 0) /* a person reads the table; scripts get every row */
		d->limit = d->format == HG_ROWS_TABLE ? TABLE_LIMIT : 0;
	q->min_count = rules->min_count;
	q->min_rise = rules->min_rise;
	q->threshold = rules->threshold;
	q->sessions = sessions;
	d->rates = sessions != NULL;
	hg_store *store = open_store(sc->db);
	if (!store)
		return EXIT_SOME_FAILED;
	char window[2][32];
	int bad = cli_store_window(store, "diff", &q->since, &q->until, window);
	if (bad != EXIT_FINE) {
		hg_store_close(store);
		return bad;
	}
	hg_diff_totals totals;
	d->table = cli_table_create(stdout, d->format, columns, store);
	int rc = d->table ? hg_store_diff(store, q, on_row, d, &totals) : HG_ENOMEM;
	if (rc == 0 && !q->version)
		cli_note_untimed(store, "diff", q->since, q->until);
	if (rc == 0)
		say_totals(d, &totals);
	hg_table_destroy(d->table);
	hg_store_close(store);
	return rc != 0 ? cli_store_failed("diff", rc) : EXIT_FINE;
}

static int run_diff(int argc, char **argv)
{
	hg_diff_query q = {0};
	struct regress_opts rules = REGRESS_OPTS_DEFAULT;
	struct diff_out d = {.format = HG_ROWS_TABLE, .table = NULL, .limit = -1};
	struct store_cmd sc = {"diff", diff_usage, long_options, NULL, HG_ROWS_TABLE};
	bool fail_on_new = false;
	int c, bad, columns = 0;
	int64_t v;
	const char *width_arg = NULL, *sessions_path = NULL;
	optind = 1;
	opterr = 0;
	struct diff_flame_opts fl = {0};
	while ((c = getopt_long(argc, argv, ":f:ho:m:", long_options, NULL)) != -1) {
		switch (c) {
		case 'F':
		case 'o':
		case 'm':
		case 'M':
		case 'P':
			if ((bad = flame_option(&fl, c, optarg)) != EXIT_FINE)
				return bad;
			break;
		case 'w': width_arg = optarg; break;
		case 'S': q.since = optarg; break;
		case 'U': q.until = optarg; break;
		case 'B': q.baseline_version = optarg; break;
		case 'v': q.version = optarg; break;
		case 't':
		case 'c':
		case 'r':
			bad = regress_option(&rules, "diff", c == 't' ? "threshold" : c == 'c'
					     ? "min-count" : "min-rise", optarg);
			if (bad != EXIT_FINE)
				return bad;
			break;
		case 'l':
			if (!cli_parse_int64(optarg, &v) || v < 0 || v > 1000000)
				return cli_usage_error("diff", "--limit wants a count >= 0, not '%s'", optarg);
			d.limit = (long)v;
			break;
		case 'n': fail_on_new = true; break;
		case 'e': sessions_path = optarg; break;
		default: {
			int rc = store_cmd_option(&sc, c, argv);
			if (rc != STORE_CMD_NEXT)
				return rc;
		}
		}
	}
	d.format = sc.format;
	if (optind < argc)
		return cli_usage_error("diff", "unexpected argument '%s'", argv[optind]);
	int status = check_sets(&q);
	if (status == EXIT_FINE)
		status = width_option(&fl, width_arg, &columns);
	if (status != EXIT_FINE)
		return status;
	if (fl.cluster && sessions_path)
		return cli_usage_error("diff", "--sessions goes with the table, not --flame");
	if (fl.cluster)
		return run_flame(&fl, &q, &sc);
	if (fl.output || fl.mapping || fl.mapping_dir || fl.n_proguard)
		return cli_usage_error("diff", "-o and the mapping options go with --flame");
	hg_sessions *sessions = NULL;
	if (sessions_path && cli_sessions_read(sessions_path, &sessions) != EXIT_FINE)
		return EXIT_SOME_FAILED;
	status = table_diff(&q, &rules, &d, &sc, columns, sessions);
	hg_sessions_destroy(sessions);
	return status == EXIT_FINE && fail_on_new && d.new_clusters ? EXIT_NEW_CLUSTERS : status;
}

const struct command cmd_diff = {
	"diff",
	"new, regressed and gone clusters between two versions or time windows",
	run_diff,
	diff_usage,
};
