/* hangar check: is the store sound (SQLite's integrity check), and do its
 * rollups, what top, diff and show read, equal a recomputation from the
 * reports they sum?  --repair makes them so. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

static void check_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar check [OPTIONS]\n"
		"\n"
		"Checks the store: SQLite's integrity check, then every rollup (per\n"
		"cluster, day and version: the counts, costs and devices top, diff and show\n"
		"read) against a recomputation from the reports it sums.  Lists each\n"
		"difference; the rollups of days up to a prune's cutoff stand as they are\n"
		"(their reports are gone).  Exit status 0 when all is well, 1 when not.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --repair           replace the rollups by the recomputation (and the\n"
		"                         clusters' counts by theirs)\n"
		"  -f, --format F         table (default), json (one object per line) or csv\n"
		"  -h, --help             show this help\n");
}

static int on_diff(void *user, const hg_check_diff *d)
{
	hg_table *t = user;
	char n[2][24];
	snprintf(n[0], sizeof n[0], "%" PRId64, d->stored);
	snprintf(n[1], sizeof n[1], "%" PRId64, d->computed);
	hg_table_cell cells[] = {
		{"cluster", d->cluster, HG_CELL_FIXED, false},
		{"day", d->day, HG_CELL_FIXED, false},
		{"version", d->version, HG_CELL_CUT, false},
		{"what", d->what, HG_CELL_FIXED, false},
		{"stored", n[0], HG_CELL_NUMBER, true},
		{"computed", n[1], HG_CELL_NUMBER, true},
	};
	hg_table_row(t, cells, sizeof cells / sizeof *cells);
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},     {"repair", no_argument, NULL, 'r'},
	{"format", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The verdict on stderr, for a person and for a script's log. */
static void say(const char *path, const hg_check_stats *s)
{
	if (!s->integrity_ok)
		fprintf(stderr, "hangar check: %s: integrity check failed: %s\n", path, s->integrity);
	fprintf(stderr, "hangar check: %s: %" PRId64 " rollup%s compared, %" PRId64 " differ%s",
		path, s->rollups, s->rollups == 1 ? "" : "s", s->differences,
		s->differences == 1 ? "s" : "");
	if (s->differences && s->repaired)
		fprintf(stderr, " (repaired)");
	if (*s->pruned_before)
		fprintf(stderr, "; %" PRId64 " of days up to the prune at %s stand as they are",
			s->skipped, s->pruned_before);
	fprintf(stderr, "\n");
}

static int run_check(int argc, char **argv)
{
	bool repair = false;
	int c;
	struct store_cmd sc = {"check", check_usage, long_options, NULL, HG_ROWS_TABLE};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		if (c == 'r') {
			repair = true;
			continue;
		}
		int rc = store_cmd_option(&sc, c, argv);
		if (rc != STORE_CMD_NEXT)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error("check", "unexpected argument '%s'", argv[optind]);
	/* The store keeps its context for its whole life. */
	static hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = cli_print_diag;
	const char *path = store_path(sc.db);
	hg_store *store = open_store_in(&ctx, path, repair ? HG_STORE_EXISTING : HG_STORE_READ_ONLY);
	if (!store)
		return EXIT_SOME_FAILED;
	hg_table *t = cli_table_create(stdout, sc.format, 0, store);
	hg_check_stats stats;
	int rc = t ? hg_store_verify(store, repair, on_diff, t, &stats) : HG_ENOMEM;
	hg_table_destroy(t);
	hg_store_close(store);
	if (rc != 0)
		return cli_store_failed("check", rc);
	say(path, &stats);
	bool fine = stats.integrity_ok && (!stats.differences || stats.repaired);
	return fine ? EXIT_FINE : EXIT_SOME_FAILED;
}

const struct command cmd_check = {
	"check",
	"check the store's integrity and its rollups against its reports (--repair)",
	run_check,
	check_usage,
};
