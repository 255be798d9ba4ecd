/* hangar regroup: compute every stored report's signature again, with
 * mappings that arrived after ingest or changed rules, and move reports to
 * their new clusters without losing any. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/cluster.h"
#include "hangar/ingest.h"
#include "reread_failures.h"
#include "store_cli.h"

#define MAX_PROGUARD HG_INGEST_MAX_PROGUARD

static void regroup_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar regroup [OPTIONS]\n"
		"\n"
		"Compute every stored report's signature again from its stored text (after\n"
		"mappings arrived, or the rules changed), move reports to their new clusters\n"
		"and rebuild the clusters touched, in one transaction.  No report is lost.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"  -m, --mapping FILE     methodMapping.txt for every report\n"
		"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"
		"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"
		"                         DIR/<version>/mapping.txt\n"
		"      --symbols DIR      .so files and dSYMs that name native frames, matched by\n"
		"                         Build ID / UUID (repeatable): clusters re-signed\n"
		"      --rules FILE       grouping rules (see hangar-formats(5))\n"
		"      --input-format F   read stored texts as matrix, kscrash, metrickit, anr,\n"
		"                         logcat, tombstone, blockcanary, watchdog, java or\n"
		"                         stack (default: detect, as ingest did)\n"
		"      --stack-dir DIR    where APM reports' stack files are\n"
		"  -h, --help             show this help\n"
		"\n"
		"Ends with one summary line on stderr.  Exit status: 0 fine, 1 error, 2 usage.\n");
}

struct regroup {
	hg_ctx ctx;
	hg_rules *rules;
	hg_namer *names; /* -m, --proguard, --mapping-dir, as ingest */
	const char *mapping_dir;
	const char *symbol_dirs[HG_INGEST_MAX_SYMBOLS];
	int n_symbol_dirs;
	enum hg_input_format format;
};

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"mapping", required_argument, NULL, 'm'},
	{"proguard", required_argument, NULL, 'P'},
	{"mapping-dir", required_argument, NULL, 'M'},
	{"symbols", required_argument, NULL, 'Y'},
	{"rules", required_argument, NULL, 'r'},
	{"input-format", required_argument, NULL, 'i'},
	{"stack-dir", required_argument, NULL, 's'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void release(struct regroup *g)
{
	hg_rules_destroy(g->rules);
	hg_namer_destroy(g->names);
}

/* Loads what the options name; false (said on stderr) when one fails:
 * regrouping with a missing mapping would undo the grouping it should fix. */
static bool load(struct regroup *g, const char *rules, const char *mapping,
		 const char *const *proguard, int n_pg)
{
	if (rules && hg_rules_load(&g->ctx, rules, &g->rules) != 0)
		return false;
	return cli_namer_create(&g->ctx, "regroup", mapping, proguard, n_pg, g->mapping_dir,
				g->symbol_dirs, g->n_symbol_dirs, &g->names);
}

static void not_read(void *user, const hg_regroup_item *item, const char *why)
{
	reread_failures_add(user, item, why);
}

static int run_regroup(int argc, char **argv)
{
	struct regroup g = {0};
	hg_ctx_init(&g.ctx);
	g.ctx.diag = cli_print_diag;
	const char *db = NULL, *rules = NULL, *mapping = NULL;
	const char *proguard[MAX_PROGUARD];
	int n_pg = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'D': db = optarg; break;
		case 'm': mapping = optarg; break;
		case 'P':
			if (n_pg == MAX_PROGUARD)
				return cli_usage_error("regroup", "at most %d --proguard files", MAX_PROGUARD);
			proguard[n_pg++] = optarg;
			break;
		case 'M':
			if (cli_need_folder("regroup", "--mapping-dir", optarg) != EXIT_FINE)
				return EXIT_USAGE;
			g.mapping_dir = optarg;
			break;
		case 'Y':
			if (g.n_symbol_dirs == HG_INGEST_MAX_SYMBOLS)
				return cli_usage_error("regroup", "at most %d --symbols folders",
						       HG_INGEST_MAX_SYMBOLS);
			if (cli_need_path("regroup", "--symbols", optarg) != EXIT_FINE)
				return EXIT_USAGE;
			g.symbol_dirs[g.n_symbol_dirs++] = optarg;
			break;
		case 'r': rules = optarg; break;
		case 'i': {
			int f = hg_input_format_from_name(optarg);
			if (f < 0 || f == HG_FORMAT_RAW)
				return cli_usage_error("regroup", "unknown input format '%s' (matrix, kscrash, "
					       "metrickit, anr, logcat, tombstone, blockcanary, watchdog, "
					       "java, stack)", optarg);
			g.format = (enum hg_input_format)f;
			break;
		}
		case 's':
			if (cli_need_folder("regroup", "--stack-dir", optarg) != EXIT_FINE)
				return EXIT_USAGE;
			g.ctx.stack_dir = optarg;
			break;
		case 'h': regroup_usage(stdout); return EXIT_FINE;
		case ':': return cli_usage_error("regroup", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_unknown_option("regroup", long_options, argv, optind, optopt);
		}
	}
	if (optind < argc)
		return cli_usage_error("regroup", "unexpected argument '%s'", argv[optind]);
	hg_store *store = NULL;
	if (!load(&g, rules, mapping, proguard, n_pg) ||
	    !(store = open_store_in(&g.ctx, store_path(db), HG_STORE_EXISTING))) {
		release(&g);
		return EXIT_SOME_FAILED;
	}
	hg_regroup_stats s;
	struct reread_failures failures = {0};
	hg_reread reread = {&g.ctx, g.rules, g.names, NULL, g.format, 0, not_read, &failures};
	int rc = hg_store_regroup(store, hg_reread_report, &reread, &s);
	hg_store_close(store);
	release(&g);
	if (rc != 0) {
		reread_failures_release(&failures);
		fprintf(stderr, "hangar regroup: %s\n", hg_strerror(rc));
		return EXIT_SOME_FAILED;
	}
	/* Each report not read again by name (the first REREAD_LISTED), then
	 * the summary with their count. */
	reread_failures_print(&failures, "regroup", stderr);
	reread_failures_release(&failures);
	fprintf(stderr, "regroup: %lld reports, %lld clusters before, %lld after, moved %lld\n",
		(long long)s.reports, (long long)s.clusters_before, (long long)s.clusters_after,
		(long long)s.moved);
	if (s.kept)
		fprintf(stderr, "regroup: %lld report%s could not be read again and kept %s cluster\n",
			(long long)s.kept, s.kept == 1 ? "" : "s", s.kept == 1 ? "its" : "their");
	return EXIT_FINE;
}

const struct command cmd_regroup = {
	"regroup",
	"compute signatures again (mappings arrived, rules changed) and merge clusters",
	run_regroup,
	regroup_usage,
};
