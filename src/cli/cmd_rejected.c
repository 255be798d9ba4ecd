/* hangar rejected: what the store could not read, and why. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

static void rejected_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar rejected [OPTIONS] [ID]\n"
		"\n"
		"The inputs ingest rejected, with the reason; with an ID, that input's\n"
		"original bytes (the first MiB of a larger one: its size and SHA-256 are\n"
		"listed to find the rest).\n"
		"\n"
		"Options:\n"
		"      --db FILE      the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"  -f, --format F     table (default), json or csv\n"
		"      --width N      fit the table to N columns (0: no limit; default: the\n"
		"                     terminal's width, no limit when not a terminal)\n"
		"  -h, --help         show this help\n");
}

struct list {
	hg_rows format;
	hg_table *table;
};

static int on_rejected(void *user, const hg_rejected_row *r)
{
	struct list *l = user;
	char id[24], line[24], size[24], kept[24];
	snprintf(id, sizeof id, "%" PRId64, r->id);
	snprintf(line, sizeof line, "%ld", r->line);
	snprintf(size, sizeof size, "%zu", r->size);
	snprintf(kept, sizeof kept, "%zu", r->stored);
	bool j = l->format == HG_ROWS_JSON;
	/* The hash (to find the original of a cut input) is too wide for the
	 * table: json and csv only, with the flag. */
	bool wide = l->format != HG_ROWS_TABLE;
	hg_table_cell cells[9];
	size_t n = 0;
	cells[n++] = (hg_table_cell){"id", id, HG_CELL_NUMBER, j};
	cells[n++] = (hg_table_cell){"when", r->when, HG_CELL_TIME, false};
	cells[n++] = (hg_table_cell){"line", line, HG_CELL_NUMBER, j};
	cells[n++] = (hg_table_cell){"bytes", size, HG_CELL_NUMBER, j};
	cells[n++] = (hg_table_cell){"kept", kept, HG_CELL_NUMBER, j};
	if (wide) {
		const char *cut = r->truncated ? "true" : "false";
		cells[n++] = (hg_table_cell){"truncated", cut, HG_CELL_FIXED, j};
		cells[n++] = (hg_table_cell){"sha256", r->sha256, HG_CELL_FIXED, false};
	}
	cells[n++] = (hg_table_cell){"source", r->source, HG_CELL_PATH, false};
	cells[n++] = (hg_table_cell){"reason", r->reason, HG_CELL_CUT, false};
	hg_table_row(l->table, cells, n);
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"format", required_argument, NULL, 'f'},
	{"width", required_argument, NULL, 'w'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_rejected(int argc, char **argv)
{
	struct list l = {0};
	struct store_cmd sc = {"rejected", rejected_usage, long_options, NULL, HG_ROWS_TABLE};
	const char *width_arg = NULL;
	int c, width = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		if (c == 'w') {
			width_arg = optarg;
			continue;
		}
		int rc = store_cmd_option(&sc, c, argv);
		if (rc != STORE_CMD_NEXT)
			return rc;
	}
	l.format = sc.format;
	const char *db = sc.db;
	int64_t id = 0;
	if (optind < argc && (!cli_parse_int64(argv[optind], &id) || id <= 0 || optind + 1 < argc))
		return cli_usage_error("rejected", "ID must be one number from 'hangar rejected'");
	if (!cli_text_width("rejected", width_arg, &width))
		return EXIT_USAGE;
	hg_store *store = open_store(db);
	if (!store)
		return EXIT_SOME_FAILED;
	int rc;
	if (id) {
		char *text = NULL;
		size_t len = 0;
		rc = hg_store_rejected_text(store, id, &text, &len);
		if (rc == 0)
			cli_write_stored(stdout, text, len);
		else
			fprintf(stderr, "hangar rejected: no rejected input %" PRId64 "\n", id);
		free(text);
	} else if (!(l.table = cli_table_create(stdout, l.format, width, NULL))) {
		rc = HG_ENOMEM;
	} else {
		rc = hg_store_rejected(store, on_rejected, &l);
		hg_table_destroy(l.table);
	}
	hg_store_close(store);
	return rc != 0 ? EXIT_SOME_FAILED : EXIT_FINE;
}

const struct command cmd_rejected = {
	"rejected",
	"what ingest could not read, why, and the original bytes",
	run_rejected,
	rejected_usage,
};
