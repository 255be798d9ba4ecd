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
		"  -h, --help         show this help\n");
}

struct list {
	enum row_format format;
	size_t rows;
};

static int on_rejected(void *user, const hg_rejected_row *r)
{
	struct list *l = user;
	char id[24], line[24], size[24], kept[24];
	snprintf(id, sizeof id, "%" PRId64, r->id);
	snprintf(line, sizeof line, "%ld", r->line);
	snprintf(size, sizeof size, "%zu", r->size);
	snprintf(kept, sizeof kept, "%zu", r->stored);
	bool j = l->format == ROWS_JSON;
	/* The hash (to find the original of a cut input) is too wide for the
	 * table: json and csv only, with the flag. */
	bool wide = l->format != ROWS_TABLE;
	struct cell cells[9];
	size_t n = 0;
	cells[n++] = (struct cell){"id", id, 5, j};
	cells[n++] = (struct cell){"when", r->when, 20, false};
	cells[n++] = (struct cell){"line", line, 6, j};
	cells[n++] = (struct cell){"bytes", size, 9, j};
	cells[n++] = (struct cell){"kept", kept, 8, j};
	if (wide) {
		cells[n++] = (struct cell){"truncated", r->truncated ? "true" : "false", 0, j};
		cells[n++] = (struct cell){"sha256", r->sha256, 0, false};
	}
	cells[n++] = (struct cell){"source", r->source, 30, false};
	cells[n++] = (struct cell){"reason", r->reason, 0, false};
	if (l->rows++ == 0)
		print_header(stdout, l->format, cells, n);
	print_row(stdout, l->format, cells, n);
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"format", required_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_rejected(int argc, char **argv)
{
	struct list l = {0};
	struct store_cmd sc = {"rejected", rejected_usage, long_options, NULL, ROWS_TABLE};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		int rc = store_cmd_option(&sc, c, argv);
		if (rc != STORE_CMD_NEXT)
			return rc;
	}
	l.format = sc.format;
	const char *db = sc.db;
	int64_t id = 0;
	if (optind < argc && (!cli_parse_int64(argv[optind], &id) || id <= 0 || optind + 1 < argc))
		return cli_usage_error("rejected", "ID must be one number from 'hangar rejected'");
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
	} else {
		rc = hg_store_rejected(store, on_rejected, &l);
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
