/* hangar coverage: which app versions' reports lacked the mapping or
 * symbols that would name their frames, so a team knows what to upload. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store_cli.h"

static void coverage_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar coverage [OPTIONS]\n"
		"\n"
		"Per app version, newest first: its reports, and how many lacked a\n"
		"methodMapping for their method ids, a ProGuard/R8 mapping for their\n"
		"obfuscated Java frames, or symbols for the app's native images; with\n"
		"--images, those images by name and Build ID / UUID.  Reports stored by a\n"
		"hangar before this one count as unknown until 'hangar regroup' names them.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"      --version V        only reports of app version V\n"
		"      --since T          only reports at or after T (2024-04-25, an ISO time,\n"
		"                         epoch ms, or an age: 24h, 7d)\n"
		"      --until T          only reports before T\n"
		"      --images           the app's native images no symbols named, per version\n"
		"  -f, --format F         table (default), json (one object per line) or csv\n"
		"      --width N          fit the table to N columns (0: no limit; default: the\n"
		"                         terminal's width, no limit when not a terminal)\n"
		"  -h, --help             show this help\n");
}

static int on_version(void *user, const hg_coverage_row *r)
{
	hg_table *t = user;
	char n[6][24];
	const int64_t v[6] = {r->reports, r->lacking, r->method_mapping, r->proguard, r->symbols,
			      r->unknown};
	for (int i = 0; i < 6; i++)
		snprintf(n[i], sizeof n[i], "%" PRId64, v[i]);
	hg_table_cell cells[] = {
		{"version", r->version, HG_CELL_CUT, false},
		{"reports", n[0], HG_CELL_NUMBER, true},
		{"lacking", n[1], HG_CELL_NUMBER, true},
		{"no_method_mapping", n[2], HG_CELL_NUMBER, true},
		{"not_retraced", n[3], HG_CELL_NUMBER, true},
		{"no_symbols", n[4], HG_CELL_NUMBER, true},
		{"unknown", n[5], HG_CELL_NUMBER, true},
	};
	hg_table_row(t, cells, sizeof cells / sizeof *cells);
	return 0;
}

static int on_image(void *user, const hg_coverage_image *img)
{
	hg_table *t = user;
	char n[24];
	snprintf(n, sizeof n, "%" PRId64, img->reports);
	hg_table_cell cells[] = {
		{"version", img->version, HG_CELL_CUT, false},
		{"reports", n, HG_CELL_NUMBER, true},
		{"image", img->name, HG_CELL_CUT, false},
		{"id", img->id, HG_CELL_FIXED, false},
	};
	hg_table_row(t, cells, sizeof cells / sizeof *cells);
	return 0;
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},     {"version", required_argument, NULL, 'v'},
	{"since", required_argument, NULL, 'S'},  {"until", required_argument, NULL, 'U'},
	{"images", no_argument, NULL, 'i'},       {"format", required_argument, NULL, 'f'},
	{"width", required_argument, NULL, 'w'},  {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_coverage(int argc, char **argv)
{
	hg_top_query q = {0};
	const char *width_arg = NULL;
	bool images = false;
	int width = 0, c;
	struct store_cmd sc = {"coverage", coverage_usage, long_options, NULL, HG_ROWS_TABLE};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'v': q.version = optarg; break;
		case 'S': q.since = optarg; break;
		case 'U': q.until = optarg; break;
		case 'i': images = true; break;
		case 'w': width_arg = optarg; break;
		default: {
			int rc = store_cmd_option(&sc, c, argv);
			if (rc != STORE_CMD_NEXT)
				return rc;
		}
		}
	}
	if (optind < argc)
		return cli_usage_error("coverage", "unexpected argument '%s'", argv[optind]);
	if (!cli_text_width("coverage", width_arg, &width))
		return EXIT_USAGE;
	hg_store *store = open_store(sc.db);
	if (!store)
		return EXIT_SOME_FAILED;
	char window[2][32];
	int bad = cli_store_window(store, "coverage", &q.since, &q.until, window);
	if (bad != EXIT_FINE) {
		hg_store_close(store);
		return bad;
	}
	hg_table *t = cli_table_create(stdout, sc.format, width, store);
	int rc = HG_ENOMEM;
	if (t && images)
		rc = hg_store_coverage_images(store, &q, on_image, t);
	else if (t)
		rc = hg_store_coverage(store, &q, on_version, t);
	hg_table_destroy(t);
	if (rc == 0)
		cli_note_untimed(store, "coverage", q.since, q.until);
	hg_store_close(store);
	return rc != 0 ? cli_store_failed("coverage", rc) : EXIT_FINE;
}

const struct command cmd_coverage = {
	"coverage",
	"per app version: reports that lacked a mapping or symbols to name their frames",
	run_coverage,
	coverage_usage,
};
