/* hangar merge: the stores of a sharded ingest (one per machine) added
 * into one, each shard in its own transaction. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/ingest.h"
#include "store_cli.h"

#define MAX_PROGUARD HG_INGEST_MAX_PROGUARD

static void merge_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar merge --into FILE [OPTIONS] SHARD...\n"
		"\n"
		"Add the stores SHARD... (each from one machine of a sharded ingest) into the\n"
		"store FILE, created if missing.  Reports count once by content; merging a\n"
		"shard twice, or in any order, gives the same store.  Each shard is merged in\n"
		"one transaction; a shard that fails is said on stderr and the others merged.\n"
		"\n"
		"Options:\n"
		"      --into FILE        the store to merge into (required)\n"
		"  -f, --format F         the summary line per shard on stdout: table (default),\n"
		"                         json (one object per line) or csv\n"
		"  -m, --mapping FILE     methodMapping.txt for every report\n"
		"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"
		"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"
		"                         DIR/<version>/mapping.txt\n"
		"      --app-version V    the version of reports that do not say\n"
		"      --rules FILE       grouping rules (see hangar-formats(5))\n"
		"  -h, --help             show this help\n"
		"\n"
		"The mappings name the frames of call trees that must be rebuilt from report\n"
		"texts (a cluster some of whose reports both stores hold); without them such\n"
		"trees are rebuilt without mappings, with a warning naming the cluster.\n"
		"Exit status: 0 all merged, 1 some shard failed, 2 usage.\n");
}

static const struct option long_options[] = {
	{"into", required_argument, NULL, 'I'},
	{"format", required_argument, NULL, 'f'},
	{"mapping", required_argument, NULL, 'm'},
	{"proguard", required_argument, NULL, 'P'},
	{"mapping-dir", required_argument, NULL, 'M'},
	{"app-version", required_argument, NULL, 'V'},
	{"rules", required_argument, NULL, 'r'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void print_stats(hg_rows f, const char *shard, const hg_merge_stats *s, bool first)
{
	char v[7][24];
	const int64_t n[7] = {s->reports_added,    s->reports_present, s->clusters_created,
			      s->clusters_touched, s->trees_rebuilt,   s->rejected_added,
			      s->objects_added};
	for (int i = 0; i < 7; i++)
		snprintf(v[i], sizeof v[i], "%" PRId64, n[i]);
	hg_row_cell cells[] = {
		{"reports_added", v[0], 13, true},    {"reports_present", v[1], 15, true},
		{"clusters_created", v[2], 16, true}, {"clusters_touched", v[3], 16, true},
		{"trees_rebuilt", v[4], 13, true},    {"rejected_added", v[5], 14, true},
		{"objects_added", v[6], 13, true},    {"shard", shard, 0, false},
	};
	size_t nc = sizeof cells / sizeof *cells;
	if (f == HG_ROWS_JSON) {
		/* The shard first, as documented. */
		hg_row_cell ordered[8];
		ordered[0] = cells[7];
		memcpy(ordered + 1, cells, 7 * sizeof *cells);
		print_row(stdout, f, ordered, nc);
		return;
	}
	if (first)
		print_header(stdout, f, cells, nc);
	print_row(stdout, f, cells, nc);
}

struct merge_opts {
	const char *into, *rules, *mapping;
	const char *proguard[MAX_PROGUARD];
	int n_pg;
	hg_rows format;
};

static int parse(int argc, char **argv, struct merge_opts *o, const char **mapping_dir,
		 const char **app_version)
{
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:m:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'I': o->into = optarg; break;
		case 'f':
			if (!parse_row_format("merge", optarg, &o->format))
				return EXIT_USAGE;
			break;
		case 'm': o->mapping = optarg; break;
		case 'P':
			if (o->n_pg == MAX_PROGUARD)
				return cli_usage_error("merge", "at most %d --proguard files", MAX_PROGUARD);
			o->proguard[o->n_pg++] = optarg;
			break;
		case 'M': *mapping_dir = optarg; break;
		case 'V': *app_version = optarg; break;
		case 'r': o->rules = optarg; break;
		case 'h': merge_usage(stdout); return -1;
		case ':': return cli_usage_error("merge", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_unknown_option("merge", long_options, argv, optind, optopt);
		}
	}
	if (!o->into)
		return cli_usage_error("merge", "--into FILE is required");
	if (optind >= argc)
		return cli_usage_error("merge", "no shard: give the stores to merge");
	return EXIT_FINE;
}

/* Errors about the shard being merged are kept, to be said in one line
 * "hangar merge: SHARD: reason"; the rest is printed as usual. */
struct merge_diag {
	const char *shard;
	char reason[512];
};

static void on_diag(void *user, const hg_diag *d)
{
	struct merge_diag *m = user;
	if (m->shard && d->severity == HG_DIAG_ERROR && d->source && !strcmp(d->source, m->shard) &&
	    !m->reason[0])
		snprintf(m->reason, sizeof m->reason, "%s", d->message);
	else
		cli_print_diag(NULL, d);
}

static int run_merge(int argc, char **argv)
{
	/* The store keeps its context for its whole life. */
	static hg_ctx ctx;
	static struct merge_diag diag;
	hg_ctx_init(&ctx);
	ctx.diag = on_diag;
	ctx.diag_user = &diag;
	memset(&diag, 0, sizeof diag);
	hg_namer *names = NULL;
	const char *mapping_dir = NULL;
	struct merge_opts o = {.format = HG_ROWS_TABLE};
	hg_reread reread = {&ctx, NULL, NULL, NULL, HG_FORMAT_AUTO, 0, NULL, NULL};
	int status = parse(argc, argv, &o, &mapping_dir, &reread.app_version);
	if (status != EXIT_FINE)
		return status < 0 ? EXIT_FINE : status;
	hg_rules *rules = NULL;
	hg_store *store = NULL;
	if ((o.rules && hg_rules_load(&ctx, o.rules, &rules) != 0) ||
	    !cli_namer_create(&ctx, "merge", o.mapping, o.proguard, o.n_pg, mapping_dir, NULL, 0,
				  &names) ||
	    hg_store_open(&ctx, o.into, &store) != 0) {
		hg_rules_destroy(rules);
		hg_namer_destroy(names);
		return EXIT_SOME_FAILED;
	}
	reread.rules = rules;
	reread.names = names;
	/* Without mappings the library's own re-reading (and its warning). */
	bool named = o.mapping || o.n_pg || mapping_dir;
	bool first = true;
	for (int i = optind; i < argc; i++) {
		hg_merge_stats s;
		diag.shard = argv[i];
		diag.reason[0] = '\0';
		int rc = hg_store_merge(store, argv[i], named ? hg_reread_report : NULL, &reread, &s);
		diag.shard = NULL;
		if (rc != 0) {
			fprintf(stderr, "hangar merge: %s: %s\n", argv[i],
				diag.reason[0] ? diag.reason : hg_strerror(rc));
			status = EXIT_SOME_FAILED;
			continue;
		}
		print_stats(o.format, argv[i], &s, first);
		first = false;
	}
	fflush(stdout);
	if (reread.unreadable)
		fprintf(stderr, "hangar merge: %zu reports could not be read again; the call trees"
			" rebuilt leave them out\n", reread.unreadable);
	hg_store_close(store);
	hg_rules_destroy(rules);
	hg_namer_destroy(names);
	return status;
}

const struct command cmd_merge = {
	"merge",
	"add the stores of a sharded ingest into one store",
	run_merge,
	merge_usage,
};
