/* hangar ingest, shared by its parts: the reader thread (ingest_read.c:
 * files, folders, stdin; parsing, naming, signing), the writer (ingest_write.c:
 * the store, in batches) and the command (cmd_ingest.c: options, the run).
 * nightly runs the same. */
#ifndef HANGAR_CLI_INGEST_H
#define HANGAR_CLI_INGEST_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "cli.h"
#include "hangar/cluster.h"
#include "hangar/fetch.h"
#include "queue.h"
#include "namer.h"

/* The checkpointer thread (ingest_checkpoint.c) and its own store handle. */
struct ingest_checkpointer {
	hg_ctx ctx;
	hg_store *store;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running, poked, stop;
};

/* Cluster hashes (32 hex digits): open addressing, "" empty. */
struct hash_set {
	char (*slots)[33];
	size_t n, cap;
};

struct ingest {
	/* the options (ingest_option) */
	const char *db_option, *mapping, *rules_path;
	int summary_format;                  /* enum row_format: table on stderr, json/csv on stdout */
	const char *proguard_paths[NAMER_MAX_PROGUARD];
	int n_proguard_paths;

	/* the reader's */
	hg_ctx ctx;                          /* reading and naming */
	struct cli_diag_sink diags;
	hg_rules *rules;
	struct namer names;                  /* -m, --proguard, --mapping-dir */
	const char *app_version;
	const char *app;                     /* --app: of reports that name none */
	bool warned_no_app;                  /* said once a run that a report names no app */
	enum hg_input_format format;
	const char *path;                    /* the input being read */
	char **inputs;                       /* borrowed */
	int n_inputs;
	struct ingest_queue queue;
	hg_store_symtab *symbols;            /* numbers the reports' symbols for the writer */
	/* remote sources (ingest_remote.c) */
	hg_fetch_opts fetch;
	const char *db_path;                 /* the reader opens it too, to skip known objects */
	size_t files_skipped;                /* in folders: not regular files (warned) */
	size_t reports_of_object;            /* reports queued from the object at hand */
	size_t listed, fetched, skipped, fetch_failed, sources_failed;
	size_t fetch_failed_before;          /* of fetch_failed, objects failed by an earlier run */
	int64_t fetched_bytes;

	/* the writer's */
	hg_ctx store_ctx;
	struct cli_diag_sink store_diags;
	hg_store *store;
	size_t reports, in_batch;
	/* Counted when committed: a batch that the store fails to take is
	 * rolled back, and its reports are not in the summary's counts. */
	size_t fresh, duplicate, rejected;
	size_t rejected_before;              /* rejected again with the same bytes: not in rejected */
	struct ingest_counts { size_t fresh, duplicate, rejected, rejected_before; } batch;
	bool load_failed;                    /* a mapping or rules file, or the store, failed */
	double batch_started;                /* ingest_now() at the batch's first item */
	bool batch_closed;                   /* committed; begun again with the next item */
	struct hash_set touched;             /* distinct cluster hashes, committed */
	struct hash_set touched_in_batch;    /* and those of the batch at hand */
	size_t not_stored;                   /* reports of a batch the store failed */
	bool batch_failed_item;              /* an item the store failed, in that batch */
	bool tty;
	time_t last_progress;
	int failed;                          /* store errors */
	struct ingest_checkpointer checkpointer;
};

/* The options of ingest that nightly shares: entries of a getopt_long
 * table (macros, as C cannot join two arrays statically), parsed by
 * ingest_option.  -m is 'm'; the rest have codes of their own. */
enum { OPT_DB = 900, OPT_PROGUARD, OPT_MAPPING_DIR, OPT_APP_VERSION, OPT_RULES,
       OPT_INPUT_FORMAT, OPT_STACK_DIR, OPT_SUMMARY_FORMAT, OPT_MAX_INPUT, OPT_APP };
#define INGEST_READ_OPTIONS                                                    \
	{"db", required_argument, NULL, OPT_DB},                               \
	{"mapping", required_argument, NULL, 'm'},                             \
	{"proguard", required_argument, NULL, OPT_PROGUARD},                   \
	{"mapping-dir", required_argument, NULL, OPT_MAPPING_DIR},             \
	{"app-version", required_argument, NULL, OPT_APP_VERSION},             \
	{"app", required_argument, NULL, OPT_APP},                             \
	{"rules", required_argument, NULL, OPT_RULES},                         \
	{"input-format", required_argument, NULL, OPT_INPUT_FORMAT},           \
	{"stack-dir", required_argument, NULL, OPT_STACK_DIR},                 \
	{"max-input", required_argument, NULL, OPT_MAX_INPUT}
#define INGEST_READ_USAGE                                                                  \
	"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"      \
	"  -m, --mapping FILE     methodMapping.txt for every report\n"                      \
	"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"   \
	"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"    \
	"                         DIR/<version>/mapping.txt\n"                               \
	"      --app-version V    the version of reports that do not say\n"                  \
	"      --app NAME         the app (package, bundle id) of reports that do not say\n" \
	"      --rules FILE       grouping rules (see hangar-formats(5))\n"                  \
	"      --input-format F   matrix, kscrash, anr, blockcanary, java (default: detect)\n" \
	"      --stack-dir DIR    where APM reports' stack files are\n"                     \
	"      --max-input BYTES  largest input that is not a stream of JSON values, and\n" \
	"                         largest report (default 1 GiB)\n"

/* The options of remote sources, shared the same way.  Codes from
 * OPT_REMOTE up. */
enum { OPT_REMOTE = 1000, OPT_ENDPOINT = OPT_REMOTE, OPT_REGION, OPT_ADDRESSING, OPT_CACERT,
       OPT_JOBS, OPT_ATTEMPTS, OPT_TIMEOUT, OPT_MAX_OBJECT, OPT_SHARD, OPT_CACHE_DIR,
       OPT_REMOTE_END };
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
	{"cache-dir", required_argument, NULL, OPT_CACHE_DIR}
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
	"      --cache-dir DIR    where objects are staged (default: a private temp folder)\n"
/* Applies one of those options: EXIT_FINE, or EXIT_USAGE (said on stderr). */
int ingest_remote_option(struct ingest *in, const char *cmd, int code, const char *arg);
/* Applies any of the options above (read or remote). */
int ingest_option(struct ingest *in, const char *cmd, int code, const char *arg);

/* ingest_run.c: a zeroed run with its diagnostics set up; one whole run
 * (mappings, rules, store, threads, summary) returning the exit status
 * (EXIT_FINE, or EXIT_SOME_FAILED when anything was rejected or failed);
 * release frees what the run holds (the store too).  inputs borrowed. */
void ingest_init(struct ingest *in);
int ingest_run(struct ingest *in, char **inputs, int n_inputs);
/* After ingest_run: whether it failed on anything an earlier run did not
 * (an input rejected with other bytes, an object that had not failed, a
 * source, a mapping, the store) -- nightly's exit status 1. */
bool ingest_failed_newly(const struct ingest *in);
void ingest_release(struct ingest *in);

/* The reader thread: reads every input into the queue, then closes it. */
void *ingest_reader(void *ingest);
/* Reads one remote source (s3://, http://, https://) into the queue: lists
 * it, skips the objects already ingested, fetches the rest, queues their
 * reports and then the object itself. */
void ingest_remote(struct ingest *in, const char *url);
bool ingest_is_url(const char *input);
/* The reader's sink (ingest_read.c): names, signs, prepares, queues. */
int ingest_on_report(void *ingest, hg_report *rep);

/* The writer: takes items until the queue is closed and empty, storing
 * them in batches; on a store error it stops the queue and counts failed. */
void ingest_write_all(struct ingest *in);
/* The checkpointer: started once the store is open, poked after each
 * commit, stopped before the store closes.  Without a thread (or a second
 * handle) it does nothing, and the close copies the whole log. */
void ingest_checkpointer_start(struct ingest *in);
void ingest_checkpointer_poke(struct ingest *in);
void ingest_checkpointer_stop(struct ingest *in);
/* Commits the last batch (or rolls it back after a failure). */
void ingest_finish(struct ingest *in);
/* The summary line on stderr; the progress line on a terminal. */
void ingest_summary(struct ingest *in, double seconds);
double ingest_now(void);

#endif
