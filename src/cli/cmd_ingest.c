/* hangar ingest: read reports from files, folders, stdin and remote
 * sources into the cluster store, grouping each by its stack signature.
 * The work is the library's (hangar/ingest.h); this parses the options
 * (ingest_opts.c, shared with nightly) and prints. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ingest_opts.h"
#include "store_cli.h"

static void ingest_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar ingest [OPTIONS] INPUT...\n"
		"\n"
		"Read reports (files, folders searched recursively, '-' for stdin, s3:// and\n"
		"http(s):// sources) into the cluster store, grouped by stack signature.\n"
		"Re-reading an input changes nothing; a run killed at any moment and run\n"
		"again ends as one clean run; remote objects already read are not fetched.\n"
		"\n"
		"Options:\n"
		"  -f, --format F         the summary: table (a line on stderr, default), or\n"
		"                         json / csv on stdout\n"
		INGEST_READ_USAGE
		"Remote sources (s3://bucket/prefix/, http(s):// folders or manifests):\n"
		INGEST_REMOTE_USAGE
		"  -h, --help             show this help\n"
		"\n"
		"Ends with one summary line on stderr.  Exit status: 0 nothing rejected,\n"
		"1 some input rejected (stored with its reason: see hangar rejected) or some\n"
		"object not fetched (retried by the next run), 2 usage.\n");
}

static const struct option long_options[] = {
	{"format", required_argument, NULL, OPT_SUMMARY_FORMAT},
	INGEST_READ_OPTIONS,
	INGEST_REMOTE_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int run_ingest(int argc, char **argv)
{
	struct ingest_cli in;
	ingest_cli_init(&in);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': ingest_usage(stdout); return EXIT_FINE;
		case 'f':
		case OPT_SUMMARY_FORMAT: {
			hg_rows f;
			if (!parse_row_format("ingest", optarg, &f))
				return EXIT_USAGE;
			in.summary_format = (int)f;
			break;
		}
		case ':': return cli_usage_error("ingest", "option '%s' needs a value", argv[optind - 1]);
		case '?': return cli_unknown_option("ingest", long_options, argv, optind, optopt);
		default: {
			int bad = ingest_option(&in, "ingest", c, optarg);
			if (bad != EXIT_FINE)
				return bad;
		}
		}
	}
	if (optind >= argc)
		return cli_usage_error("ingest", "no input: give files, folders, URLs, or '-' for stdin");
	if (!ingest_cli_run(&in, argv + optind, argc - optind))
		return EXIT_SOME_FAILED;
	/* ingest says every rejected input, known or not (a person runs it), but
	 * fails only for what failed now: an input rejected by an earlier run,
	 * like a duplicate, was already counted there (as nightly does). */
	return hg_ingest_failed_newly(&in.sum) ? EXIT_SOME_FAILED : EXIT_FINE;
}

const struct command cmd_ingest = {
	"ingest",
	"read reports into the cluster store, grouped by stack signature",
	run_ingest,
	ingest_usage,
};
