/* hangar ingest, shared by its parts: the reader thread (ingest_read.c:
 * files, folders, stdin; parsing, naming, signing), the writer (ingest_write.c:
 * the store, in batches) and the command (cmd_ingest.c: options, the run).
 * nightly runs the same. */
#ifndef HANGAR_CLI_INGEST_H
#define HANGAR_CLI_INGEST_H

#include <stdbool.h>
#include <time.h>

#include "cli.h"
#include "hangar/cluster.h"
#include "ingest_queue.h"
#include "namer.h"

struct ingest {
	/* the reader's */
	hg_ctx ctx;                          /* reading and naming */
	struct cli_diag_sink diags;
	hg_rules *rules;
	struct namer names;                  /* -m, --proguard, --mapping-dir */
	const char *app_version;
	enum hg_input_format format;
	const char *path;                    /* the input being read */
	char **inputs;                       /* borrowed */
	int n_inputs;
	struct ingest_queue queue;

	/* the writer's */
	hg_ctx store_ctx;
	struct cli_diag_sink store_diags;
	hg_store *store;
	size_t reports, fresh, duplicate, rejected, in_batch;
	double batch_started;                /* ingest_now() at the batch's start */
	char (*touched)[33];                 /* distinct cluster hashes: a hash set */
	size_t n_touched, cap_touched;
	bool tty;
	time_t last_progress;
	int failed;                          /* store errors */
};

/* The reader thread: reads every input into the queue, then closes it. */
void *ingest_reader(void *ingest);

/* The writer: takes items until the queue is closed and empty, storing
 * them in batches; on a store error it stops the queue and counts failed. */
void ingest_write_all(struct ingest *in);
/* Commits the last batch (or rolls it back after a failure). */
void ingest_finish(struct ingest *in);
/* The summary line on stderr; the progress line on a terminal. */
void ingest_summary(struct ingest *in, double seconds);
double ingest_now(void);

#endif
