/* The options of hangar ingest that nightly shares, parsed into the
 * library's hg_ingest_opts, and one run over the library (hangar/ingest.h)
 * that prints what it tells: diagnostics and progress on stderr, the
 * summary (a line on stderr, or JSON / CSV on stdout). */
#ifndef HANGAR_CLI_INGEST_OPTS_H
#define HANGAR_CLI_INGEST_OPTS_H

#include <getopt.h>
#include <stdbool.h>

#include "cli.h"
#include "hangar/ingest.h"
#include "hangar/timezone.h"

struct ingest_cli {
	hg_ingest_opts opts;
	hg_ctx ctx;                          /* diagnostics on stderr, --max-input, --stack-dir */
	hg_timezone zone;                    /* --timezone (ctx.zone), UTC by default */
	const char *db_option;
	const char *proguard[HG_INGEST_MAX_PROGUARD];
	const char *symbol_dirs[HG_INGEST_MAX_SYMBOLS];
	int summary_format;                  /* hg_rows: table on stderr, json/csv on stdout */
	bool tty;                            /* stderr is a terminal: progress lines */
	hg_ingest_summary sum;               /* after ingest_cli_run */
};

/* The options of ingest that nightly shares: entries of a getopt_long
 * table (macros, as C cannot join two arrays statically), parsed by
 * ingest_option.  -m is 'm'; the rest have codes of their own. */
enum { OPT_DB = 900, OPT_PROGUARD, OPT_MAPPING_DIR, OPT_APP_VERSION, OPT_RULES,
       OPT_INPUT_FORMAT, OPT_STACK_DIR, OPT_SUMMARY_FORMAT, OPT_MAX_INPUT, OPT_APP, OPT_SYMBOLS,
       OPT_TIMEZONE };
#define INGEST_READ_OPTIONS                                                    \
	{"db", required_argument, NULL, OPT_DB},                               \
	{"mapping", required_argument, NULL, 'm'},                             \
	{"proguard", required_argument, NULL, OPT_PROGUARD},                   \
	{"mapping-dir", required_argument, NULL, OPT_MAPPING_DIR},             \
	{"symbols", required_argument, NULL, OPT_SYMBOLS},                     \
	{"app-version", required_argument, NULL, OPT_APP_VERSION},             \
	{"app", required_argument, NULL, OPT_APP},                             \
	{"rules", required_argument, NULL, OPT_RULES},                         \
	{"input-format", required_argument, NULL, OPT_INPUT_FORMAT},           \
	{"stack-dir", required_argument, NULL, OPT_STACK_DIR},                 \
	{"timezone", required_argument, NULL, OPT_TIMEZONE},                   \
	{"max-input", required_argument, NULL, OPT_MAX_INPUT}
#define INGEST_READ_USAGE                                                                  \
	"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"      \
	"  -m, --mapping FILE     methodMapping.txt for every report\n"                      \
	"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"   \
	"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"    \
	"                         DIR/<version>/mapping.txt\n"                               \
	"      --symbols DIR      .so files and dSYMs that name native frames, matched by\n" \
	"                         Build ID / UUID (repeatable; llvm-symbolizer)\n"          \
	"      --app-version V    the version of reports that do not say\n"                  \
	"      --app NAME         the app (package, bundle id) of reports that do not say\n" \
	"      --rules FILE       grouping rules (see hangar-formats(5))\n"                  \
	"      --input-format F   matrix, kscrash, metrickit, anr, logcat, tombstone,\n" \
	"                         blockcanary, watchdog, java or stack (default: detect)\n" \
	"      --stack-dir DIR    where APM reports' stack files are (default: beside the\n" \
	"                         report, in its folder or its bucket)\n"                   \
	"      --timezone ZONE    the zone of APM times written without one: UTC\n"       \
	"                         (default), +08:00, -0530 or Asia/Shanghai\n"              \
	"      --max-input BYTES  largest input that is not a stream of JSON values, and\n" \
	"                         largest report (default 1 GiB)\n"

/* The options of remote sources, shared the same way.  Codes from
 * OPT_REMOTE up. */
enum { OPT_REMOTE = 1000, OPT_ENDPOINT = OPT_REMOTE, OPT_REGION, OPT_ADDRESSING, OPT_CACERT,
       OPT_JOBS, OPT_ATTEMPTS, OPT_TIMEOUT, OPT_MAX_OBJECT, OPT_SHARD, OPT_CACHE_DIR,
       OPT_MAX_OBJECTS, OPT_LIST_TIMEOUT, OPT_REMOTE_END };
#define INGEST_REMOTE_OPTIONS                                                  \
	{"endpoint", required_argument, NULL, OPT_ENDPOINT},                   \
	{"region", required_argument, NULL, OPT_REGION},                       \
	{"addressing", required_argument, NULL, OPT_ADDRESSING},               \
	{"cacert", required_argument, NULL, OPT_CACERT},                       \
	{"jobs", required_argument, NULL, OPT_JOBS},                           \
	{"attempts", required_argument, NULL, OPT_ATTEMPTS},                   \
	{"timeout", required_argument, NULL, OPT_TIMEOUT},                     \
	{"max-object", required_argument, NULL, OPT_MAX_OBJECT},               \
	{"shard", required_argument, NULL, OPT_SHARD},                         \
	{"cache-dir", required_argument, NULL, OPT_CACHE_DIR},                 \
	{"max-objects", required_argument, NULL, OPT_MAX_OBJECTS},             \
	{"list-timeout", required_argument, NULL, OPT_LIST_TIMEOUT}
#define INGEST_REMOTE_USAGE                                                                \
	"      --endpoint URL     S3-compatible server (default: AWS for the region)\n"     \
	"      --region R         S3 region (default: $AWS_REGION, else us-east-1)\n"       \
	"      --addressing A     S3 URLs: path, virtual (host) or auto (default)\n"        \
	"      --cacert FILE      verify servers with this CA file (TLS is always verified)\n" \
	"      --jobs N           parallel transfers (default 8)\n"                         \
	"      --attempts N       tries per object before it counts as failed (default 5)\n" \
	"      --timeout S        seconds one transfer may take (default 120)\n"           \
	"      --max-object N     largest object, bytes after decompression (default 256 MiB)\n" \
	"      --shard K/N        only objects whose key hashes to shard K of N\n"           \
	"      --cache-dir DIR    where objects are staged (default: a private temp folder)\n" \
	"      --max-objects N    stop a listing past N objects (default 5000000); what it\n" \
	"                         listed is still fetched\n"                                \
	"      --list-timeout S   stop a listing after S seconds (default 3600), the time\n" \
	"                         it waits for transfers not counted\n"

/* Applies one of the remote options: EXIT_FINE, or EXIT_USAGE (said on stderr). */
int ingest_remote_option(struct ingest_cli *in, const char *cmd, int code, const char *arg);
/* Applies any of the options above (read or remote). */
int ingest_option(struct ingest_cli *in, const char *cmd, int code, const char *arg);

/* Defaults, and the diagnostics sink. */
void ingest_cli_init(struct ingest_cli *in);
/* Runs over the inputs (borrowed) and prints the summary; in->sum holds
 * the counts.  false when the store could not be opened (said on stderr,
 * nothing read, no summary). */
bool ingest_cli_run(struct ingest_cli *in, char **inputs, int n_inputs);

#endif
