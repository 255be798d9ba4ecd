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
		"  -f, --format F         table (default), json (one object per line) or csv\n"
		"      --width N          fit the table to N columns (0: no limit; default: the\n"
		"                         terminal's width, no limit when not a terminal)\n"
		"  -h, --help             show this help\n");
}

struct top_out {
	hg_rows format;
	hg_table *table;    /* table and csv */
};

static int on_cluster(void *user, const hg_cluster_row *c)
{
	struct top_out *t = user;
	char count[24], b50[24], b90[24];
	snprintf(count, sizeof count, "%" PRId64, c->count);
	/* A cluster whose costs nobody measured (FPS) has none: not 0. */
	bool known = c->cost_reports > 0, table = t->format == HG_ROWS_TABLE;
	const char *p50 = hg_render_cost_cell(b50, c->cost_p50, known, table);
	const char *p90 = hg_render_cost_cell(b90, c->cost_p90, known, table);
	if (t->format == HG_ROWS_JSON) {
		hg_buf row;
		hg_buf_init(&row);
		hg_render_cluster_row_json(&row, c);
		if (!row.failed)
			fwrite(row.data, 1, row.len, stdout);
		hg_buf_release(&row);
	} else {
		/* The table says an FPS cluster's frame rate after its title
		 * (CSV keeps its columns). */
		hg_buf title;
		hg_buf_init(&title);
		hg_buf_puts(&title, c->title);
		if (table && c->figures && c->figures->fps_reports) {
			hg_buf_puts(&title, "  (");
			hg_render_fps_text(&title, c->figures->fps_mean, c->figures->frozen_high_share);
			hg_buf_putc(&title, ')');
		}
		const char *seen = c->last_seen ? c->last_seen : table ? "unknown" : "";
		/* CSV names its costs as JSON does; the table says p90 only */
		hg_table_cell cells[7] = {
			{"hash", c->hash, HG_CELL_HASH, false},
			{"kind", c->kind, HG_CELL_FIXED, false},
			{"count", count, HG_CELL_NUMBER, false},
		};
		size_t n = 3;
		if (!table)
			cells[n++] = (hg_table_cell){"cost_p50", p50, HG_CELL_NUMBER, false};
		cells[n++] = (hg_table_cell){table ? "p90ms" : "cost_p90", p90, HG_CELL_NUMBER, false};
		cells[n++] = (hg_table_cell){"last_seen", seen, HG_CELL_TIME, false};
		cells[n++] = (hg_table_cell){"title", title.failed ? c->title : title.data, HG_CELL_CUT,
						 false};
		hg_table_row(t->table, cells, n);
		hg_buf_release(&title);
	}
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},   {"sort", required_argument, NULL, 's'},
	{"kind", required_argument, NULL, 'k'}, {"version", required_argument, NULL, 'v'},
	{"since", required_argument, NULL, 'S'}, {"until", required_argument, NULL, 'U'},
	{"scene", required_argument, NULL, 'c'}, {"limit", required_argument, NULL, 'l'},
	{"format", required_argument, NULL, 'f'}, {"width", required_argument, NULL, 'w'},
	{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
};

static int run_top(int argc, char **argv)
{
	hg_top_query q = {.sort = "count", .limit = 20};
	struct top_out t = {HG_ROWS_TABLE, NULL};
	const char *width_arg = NULL;
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
	hg_store *store = open_store(db);
	if (!store)
		return EXIT_SOME_FAILED;
	char window[2][32];
	int bad = cli_store_window(store, "top", &q.since, &q.until, window);
	if (bad != EXIT_FINE) {
		hg_store_close(store);
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
