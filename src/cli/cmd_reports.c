/* hangar reports: the reports of one cluster, or their original texts
 * (NDJSON) to pipe into hangar stack. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

static void reports_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar reports [OPTIONS] HASH\n"
		"\n"
		"The reports of a cluster (a unique prefix of its hash is enough), newest first:\n"
		"time, version, device, cost, line, content_hash, source.  With --text, their texts\n"
		"one per line instead, ready for 'hangar stack -'.\n"
		"\n"
		"Options:\n"
		"      --db FILE      the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --text         print the stored texts (NDJSON for JSON reports)\n"
		"      --limit N      at most N reports (default: all)\n"
		"  -f, --format F     table (default), json or csv\n"
		"      --width N      fit the table to N columns (0: no limit; default: the\n"
		"                     terminal's width, no limit when not a terminal)\n"
		"  -h, --help         show this help\n");
}

struct list {
	hg_store *store;
	hg_rows format;
	hg_table *table;
	bool text;
	int failed;
};

static int on_report(void *user, const hg_report_row *r)
{
	struct list *l = user;
	if (l->text) {
		char *text = NULL;
		size_t len = 0;
		if (hg_store_report_text(l->store, r->content_hash, &text, &len) != 0) {
			l->failed++;
			return 0;
		}
		cli_write_stored(stdout, text, len);
		if (!len || text[len - 1] != '\n')
			fputc('\n', stdout);
		free(text);
		return 0;
	}
	char line[24], buf[24];
	snprintf(line, sizeof line, "%ld", r->line);
	bool j = l->format == HG_ROWS_JSON;
	/* a cost nobody measured: null, "—", never 0 */
	const char *cost = hg_render_cost_cell(buf, r->cost, r->cost_known, l->format == HG_ROWS_TABLE);
	hg_table_cell cells[] = {
		{"time", r->time ? r->time : l->format == HG_ROWS_TABLE ? "unknown" : NULL, HG_CELL_TIME,
		 false},
		{"version", r->version, HG_CELL_FIXED, false},
		{"device", r->device, HG_CELL_CUT, false},
		{"cost", cost, HG_CELL_NUMBER, j},
		{"line", line, HG_CELL_NUMBER, j},
		{"content_hash", r->content_hash, HG_CELL_DIGEST, false},
		{"source", r->source, HG_CELL_PATH, false},
	};
	hg_table_row(l->table, cells, sizeof cells / sizeof *cells);
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},   {"text", no_argument, NULL, 't'},
	{"limit", required_argument, NULL, 'l'}, {"format", required_argument, NULL, 'f'},
	{"width", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_reports(int argc, char **argv)
{
	struct list l = {0};
	struct store_cmd sc = {"reports", reports_usage, long_options, NULL, l.format};
	long limit = 0;
	const char *width_arg = NULL;
	int width = 0;
	int64_t v;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 't': l.text = true; break;
		case 'w': width_arg = optarg; break;
		case 'l':
			if (!cli_parse_int64(optarg, &v) || v < 0)
				return cli_usage_error("reports", "--limit wants a number >= 0");
			limit = (long)v;
			break;
		default: {
			int rc = store_cmd_option(&sc, c, argv);
			if (rc != STORE_CMD_NEXT)
				return rc;
		}
		}
	}
	l.format = sc.format;
	const char *db = sc.db;
	if (optind + 1 != argc)
		return cli_usage_error("reports", "give one cluster HASH (or a unique prefix of it)");
	if (!cli_text_width("reports", width_arg, &width))
		return EXIT_USAGE;
	if (!(l.store = open_store(db)))
		return EXIT_SOME_FAILED;
	char hash[33];
	int rc = hg_store_resolve(l.store, argv[optind], hash);
	if (rc != 0)
		fprintf(stderr, "hangar reports: %s cluster '%s'\n", rc == HG_EPARSE ? "more than one" : "no",
			argv[optind]);
	else if (!l.text && !(l.table = cli_table_create(stdout, l.format, width, l.store)))
		rc = HG_ENOMEM;
	else
		rc = hg_store_reports(l.store, hash, limit, on_report, &l);
	hg_table_destroy(l.table);
	hg_store_close(l.store);
	return rc != 0 || l.failed ? EXIT_SOME_FAILED : EXIT_FINE;
}

const struct command cmd_reports = {
	"reports",
	"the reports of a cluster, or their texts to pipe into hangar stack",
	run_reports,
	reports_usage,
};
