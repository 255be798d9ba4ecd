/* hangar ingest: read reports from files, folders and stdin into the
 * cluster store, grouping each by its stack signature. */
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "ingest.h"
#include "store_cli.h"

#define MAX_PROGUARD NAMER_MAX_PROGUARD

static void ingest_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar ingest [OPTIONS] INPUT...\n"
		"\n"
		"Read reports (files, folders searched recursively, '-' for stdin) into the\n"
		"cluster store, grouped by stack signature.  Re-reading an input changes\n"
		"nothing; a run killed at any moment and run again ends as one clean run.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"  -m, --mapping FILE     methodMapping.txt for every report\n"
		"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"
		"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"
		"                         DIR/<version>/mapping.txt\n"
		"      --app-version V    the version of reports that do not say\n"
		"      --rules FILE       grouping rules (see hangar-formats(5))\n"
		"      --input-format F   matrix, kscrash, anr, blockcanary, java (default: detect)\n"
		"      --stack-dir DIR    where APM reports' stack files are\n"
		"Remote sources (s3://bucket/prefix/, http(s):// folders or manifests):\n"
		INGEST_REMOTE_USAGE
		"  -h, --help             show this help\n"
		"\n"
		"Ends with one summary line on stderr.  Exit status: 0 nothing rejected,\n"
		"1 some input rejected (stored with its reason: see hangar rejected), 2 usage.\n");
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"mapping", required_argument, NULL, 'm'},
	{"proguard", required_argument, NULL, 'P'},
	{"mapping-dir", required_argument, NULL, 'M'},
	{"app-version", required_argument, NULL, 'V'},
	{"rules", required_argument, NULL, 'r'},
	{"input-format", required_argument, NULL, 'i'},
	{"stack-dir", required_argument, NULL, 's'},
	{"help", no_argument, NULL, 'h'},
	INGEST_REMOTE_OPTIONS,
	{NULL, 0, NULL, 0},
};

static void release(struct ingest *in)
{
	hg_store_close(in->store);
	hg_rules_destroy(in->rules);
	namer_release(&in->names);
	free(in->touched);
}

/* Reads on one thread (parse, name, sign) and writes on this one (the
 * store): on a machine with two cores the two halves overlap. */
static void run_threads(struct ingest *in)
{
	pthread_t reader;
	if (ingest_queue_init(&in->queue) != 0) {
		in->failed++;
		return;
	}
	if (pthread_create(&reader, NULL, ingest_reader, in) != 0) {
		ingest_reader(in); /* no thread: read everything first, then write */
		ingest_write_all(in);
	} else {
		ingest_write_all(in);
		pthread_join(reader, NULL);
	}
	ingest_queue_release(&in->queue);
}

static int run_ingest(int argc, char **argv)
{
	struct ingest in = {0};
	hg_ctx_init(&in.ctx);
	in.ctx.diag = cli_print_diag;
	in.ctx.diag_user = &in.diags;
	in.ctx.keep_text = 1;
	hg_ctx_init(&in.store_ctx);
	in.store_ctx.diag = cli_print_diag;
	in.store_ctx.diag_user = &in.store_diags;
	in.names.ctx = &in.ctx;
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
				return cli_usage_error("ingest", "at most %d --proguard files", MAX_PROGUARD);
			proguard[n_pg++] = optarg;
			break;
		case 'M': in.names.mapping_dir = optarg; break;
		case 'V': in.app_version = optarg; break;
		case 'r': rules = optarg; break;
		case 'i': {
			int f = hg_input_format_from_name(optarg);
			if (f < 0 || f == HG_FORMAT_RAW)
				return cli_usage_error("ingest", "unknown input format '%s'", optarg);
			in.format = (enum hg_input_format)f;
			break;
		}
		case 's': in.ctx.stack_dir = optarg; break;
		case 'h': ingest_usage(stdout); return EXIT_FINE;
		case ':': return cli_usage_error("ingest", "option '%s' needs a value", argv[optind - 1]);
		default:
			if (c >= OPT_REMOTE && c < OPT_REMOTE_END) {
				int bad = ingest_remote_option(&in, "ingest", c, optarg);
				if (bad != EXIT_FINE)
					return bad;
				break;
			}
			return cli_usage_error("ingest", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("ingest", "no input: give files, folders, or '-' for stdin");
	in.inputs = argv + optind;
	in.n_inputs = argc - optind;
	int status = EXIT_FINE;
	/* A file that fails is said on stderr; the run goes on without it. */
	if (rules && hg_rules_load(&in.ctx, rules, &in.rules) != 0)
		status = EXIT_SOME_FAILED;
	if (mapping && hg_mapping_open(&in.ctx, mapping, &in.names.mapping) != 0)
		status = EXIT_SOME_FAILED;
	for (int i = 0; i < n_pg; i++)
		if (hg_proguard_open(&in.ctx, proguard[i], &in.names.proguard[in.names.n_proguard]) == 0)
			in.names.n_proguard++;
		else
			status = EXIT_SOME_FAILED;
	in.db_path = store_path(db);
	if (hg_store_open(&in.store_ctx, in.db_path, &in.store) != 0 ||
	    hg_store_begin(in.store) != 0) {
		release(&in);
		return EXIT_SOME_FAILED;
	}
	hg_store_mark_ingest(in.store); /* written with the first new report, in its batch */
	double t0 = ingest_now();
	run_threads(&in);
	ingest_finish(&in);
	ingest_summary(&in, ingest_now() - t0);
	if (in.rejected || in.failed || in.names.bad_mappings || in.fetch_failed ||
	    in.sources_failed)
		status = EXIT_SOME_FAILED;
	release(&in);
	return status;
}

const struct command cmd_ingest = {
	"ingest",
	"read reports into the cluster store, grouped by stack signature",
	run_ingest,
	ingest_usage,
};
