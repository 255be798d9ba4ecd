/* hangar top: the clusters of the store, most frequent first. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

static void top_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar top [OPTIONS]\n"
		"\n"
		"The clusters of the store: what hangs most, with their StackKey symbol.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --sort KEY         count (default), cost (p90), devices or recent\n"
		"      --kind FAMILY      slow_method, lag, anr, startup, ios_hang, ...\n"
		"      --version V        only reports of app version V\n"
		"      --since T          only reports at or after T (2024-04-25, an ISO time,\n"
		"                         epoch ms, or an age: 24h, 7d)\n"
		"      --until T          only reports before T\n"
		"      --scene REGEX      only clusters with a scene matching REGEX\n"
		"      --limit N          at most N clusters (default 20; 0: all)\n"
		"      --sessions FILE    each cluster's rate, reports per 1,000 sessions, from\n"
		"                         FILE (CSV: version,sessions or version,day,sessions)\n"
		"  -f, --format F         table (default), json (one object per line) or csv\n"
		"      --width N          fit the table to N columns (0: no limit; default: the\n"
		"                         terminal's width, no limit when not a terminal)\n"
		"  -h, --help             show this help\n");
}

struct top_out {
	hg_rows format;
	hg_table *table;    /* table and csv */
	bool rates;         /* --sessions: a rate column */
};

static int on_cluster(void *user, const hg_cluster_row *c)
{
	struct top_out *t = user;
	if (t->format != HG_ROWS_JSON) {
		hg_render_top_row(t->table, c, t->format == HG_ROWS_TABLE, t->rates);
		return 0;
	}
	hg_buf row;
	hg_buf_init(&row);
	hg_render_cluster_row_json(&row, c);
	if (!row.failed)
		fwrite(row.data, 1, row.len, stdout);
	hg_buf_release(&row);
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},   {"sort", required_argument, NULL, 's'},
	{"kind", required_argument, NULL, 'k'}, {"version", required_argument, NULL, 'v'},
	{"since", required_argument, NULL, 'S'}, {"until", required_argument, NULL, 'U'},
	{"scene", required_argument, NULL, 'c'}, {"limit", required_argument, NULL, 'l'},
	{"format", required_argument, NULL, 'f'}, {"width", required_argument, NULL, 'w'},
	{"sessions", required_argument, NULL, 'e'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_top(int argc, char **argv)
{
	hg_top_query q = {.sort = "count", .limit = 20};
	struct top_out t = {HG_ROWS_TABLE, NULL, false};
	const char *width_arg = NULL, *sessions_path = NULL;
	int width = 0;
	struct store_cmd sc = {"top", top_usage, long_options, NULL, HG_ROWS_TABLE};
	int64_t v;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strcmp(optarg, "count") && strcmp(optarg, "cost") && strcmp(optarg, "devices") &&
			    strcmp(optarg, "recent"))
				return cli_usage_error("top", "--sort wants count, cost, devices or recent");
			q.sort = optarg;
			break;
		case 'k':
			if (!parse_kind("top", optarg))
				return EXIT_USAGE;
			q.kind = optarg;
			break;
		case 'v': q.version = optarg; break;
		case 'S': q.since = optarg; break;
		case 'U': q.until = optarg; break;
		case 'c': q.scene_regex = optarg; break;
		case 'w': width_arg = optarg; break;
		case 'e': sessions_path = optarg; break;
		case 'l':
			if (!cli_parse_int64(optarg, &v) || v < 0)
				return cli_usage_error("top", "--limit wants a number >= 0, not '%s'", optarg);
			q.limit = (long)v;
			break;
		default: {
			int rc = store_cmd_option(&sc, c, argv);
			if (rc != STORE_CMD_NEXT)
				return rc;
		}
		}
	}
	t.format = sc.format;
	const char *db = sc.db;
	if (optind < argc)
		return cli_usage_error("top", "unexpected argument '%s'", argv[optind]);
	if (!cli_text_width("top", width_arg, &width))
		return EXIT_USAGE;
	char why[256];
	if (hg_top_query_check(&q, why, sizeof why) == HG_EINVAL)
		return cli_usage_error("top", "--scene \"%s\": %s", q.scene_regex, why);
	hg_sessions *sessions = NULL;
	if (sessions_path && cli_sessions_read(sessions_path, &sessions) != EXIT_FINE)
		return EXIT_SOME_FAILED;
	q.sessions = sessions;
	t.rates = sessions != NULL;
	hg_store *store = open_store(db);
	char window[2][32];
	int bad = store ? cli_store_window(store, "top", &q.since, &q.until, window)
			: EXIT_SOME_FAILED;
	if (bad != EXIT_FINE) {
		hg_store_close(store);
		hg_sessions_destroy(sessions);
		return bad;
	}
	t.table = t.format == HG_ROWS_JSON ? NULL : cli_table_create(stdout, t.format, width, store);
	int rc = HG_ENOMEM;
	if (t.format == HG_ROWS_JSON || t.table)
		rc = hg_store_top(store, &q, on_cluster, &t);
	hg_table_destroy(t.table); /* its rows before the note on stderr */
	if (rc == 0)
		cli_note_untimed(store, "top", q.since, q.until);
	hg_store_close(store);
	hg_sessions_destroy(sessions);
	if (rc != 0)
		return cli_store_failed("top", rc);
	return EXIT_FINE;
}

const struct command cmd_top = {
	"top",
	"the store's clusters, most frequent (or costly, widespread, recent) first",
	run_top,
	top_usage,
};
