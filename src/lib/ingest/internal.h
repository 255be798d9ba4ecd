/* Shared by the files of src/lib/ingest/ only: the run (run.c), its
 * reader thread (reader.c, remote.c), its writer (writer.c), the queue
 * between them (queue.c), the checkpointer thread (checkpointer.c) and the
 * namer (namer.c). */
#ifndef HANGAR_LIB_INGEST_INTERNAL_H
#define HANGAR_LIB_INGEST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "hangar/cluster.h"
#include "hangar/fetch.h"
#include "hangar/ingest.h"
#include "hangar/mapping.h"
#include "hangar/namer.h"
#include "hangar/proguard.h"
#include "hangar/report.h"
#include "hangar/store.h"
#include "hangar/symbols.h"

/* ---- the namer (namer.c; hangar/namer.h) ---- */

/* Versions (and folders beside reports) whose mappings stay loaded; past
 * that the one used longest ago is freed (and loaded again if asked). */
#define NAMER_MAX_VERSIONS 64
#define NAMER_MAX_FOREIGN 16  /* mappings said to be another app's, remembered */

struct namer_version {
	char *version;         /* or the folder, beside reports */
	hg_mapping *mapping;   /* NULL when the folder has none */
	hg_proguard *proguard;
	bool absent;           /* beside reports: the folder has no methodMapping.txt */
	unsigned long used;    /* hg_namer.uses when last used */
};

struct hg_namer {
	const hg_ctx *ctx;
	hg_mapping *mapping;                            /* for every report: owned */
	bool mapping_given;                             /* even when it did not load */
	hg_proguard *proguard[HG_NAMER_MAX_PROGUARD];   /* for every report: owned */
	int n_proguard;
	const char *mapping_dir;                        /* or NULL */
	struct namer_version versions[NAMER_MAX_VERSIONS];
	int n_versions;
	int bad_mappings;                               /* found, that would not load */
	/* without mapping_dir or mapping: methodMapping.txt beside the report
	 * (version = its folder), else $HANGAR_MAPPING */
	struct namer_version besides[NAMER_MAX_VERSIONS];
	int n_besides;
	unsigned long uses;                             /* versions and besides looked up */
	hg_mapping *env_mapping;
	bool env_tried;
	bool no_beside;       /* paths are object keys, not files: no mapping beside them */
	hg_symbols *symbols;  /* --symbols: native frames named; owned, or NULL */
	bool symbols_tried;   /* hg_namer_add_symbols was called */
	/* the mappings said to look like another app's, with the package of
	 * the report they were said for: once each, not once per report */
	struct namer_foreign {
		const hg_mapping *mapping;
		char package[96];
	} foreign[NAMER_MAX_FOREIGN];
	int n_foreign;
};

/* Frees every mapping the namer holds (the struct is the caller's). */
void namer_release(struct hg_namer *n);

/* ---- the queue (queue.c) ---- */

/* One read report, signed and prepared; or an input that could not be
 * read (rep NULL, path and reason set); or a remote object whose reports
 * were all queued before it (object.source set: record it as ingested, or
 * failed when reason is set). */
struct ingest_item {
	hg_report *rep;
	hg_signature sig;       /* its strings live in rep's arena */
	hg_store_prep *prep;
	bool prepare;           /* prep left to the writer (see ingest_on_report) */
	int err;                /* non-zero: signing or preparing failed */
	char *path, *reason;    /* unreadable input */
	hg_object_row object;   /* strings owned (malloc'd) when source is set */
};

#define INGEST_QUEUE_LEN 256
/* The writer is woken when this many items wait (or the reader is done):
 * waking it for every item made the two threads spend a fifth of their
 * time switching.  A reader slower than that (a network source) is still
 * followed within INGEST_QUEUE_WAIT_MS. */
#define INGEST_QUEUE_WAKE 64
#define INGEST_QUEUE_WAIT_MS 20

/* Bounded, so that a fast reader cannot fill the memory, and in input
 * order. */
struct ingest_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct ingest_item items[INGEST_QUEUE_LEN];
	size_t head, len;
	bool closed;            /* the reader is done */
	bool stopped;           /* the writer gave up: push refuses */
	bool writer_waits, reader_waits;
	/* Items the writer is done with, freed by the reader: memory goes back
	 * to the thread that took it (cheaper for malloc), and off the writer,
	 * the busier of the two. */
	struct ingest_item spent[INGEST_QUEUE_LEN];
	size_t n_spent;
};

int ingest_queue_init(struct ingest_queue *q);
void ingest_queue_release(struct ingest_queue *q);   /* frees items left */
/* Waits for room; false (item left to the caller) when stopped.  Frees
 * the items the writer handed back meanwhile (ingest_queue_recycle). */
bool ingest_queue_push(struct ingest_queue *q, const struct ingest_item *item);
/* Waits for items and takes them all (at most max, in order) into out;
 * 0 when closed and empty, or when no item came in wait_ms (< 0: no
 * limit; then *timed_out is set, else cleared). */
size_t ingest_queue_pop_all(struct ingest_queue *q, struct ingest_item *out, size_t max,
			    long wait_ms, bool *timed_out);
void ingest_queue_close(struct ingest_queue *q);     /* reader: no more items */
void ingest_queue_stop(struct ingest_queue *q);      /* writer: take no more */
bool ingest_queue_stopped(struct ingest_queue *q);
/* Whether the writer keeps up: it waits for items, or fewer than half the
 * queue's places are taken. */
bool ingest_queue_writer_keeps_up(struct ingest_queue *q);
void ingest_item_release(struct ingest_item *item);
/* Writer: hands n stored items back to be freed (freed here when the
 * reader is done or has not caught up); clears them. */
void ingest_queue_recycle(struct ingest_queue *q, struct ingest_item *items, size_t n);

/* ---- the run ---- */

/* The checkpointer thread (checkpointer.c) and its own store handle. */
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

/* Between a thread's context and the caller's sink (run.c): counts the
 * errors, keeps the last message (an unreadable input's reason). */
struct diag_tap {
	struct hg_ingest *run;
	int errors;
	char last[512];
};

struct ingest_counts { size_t fresh, duplicate, rejected, rejected_before, expired; };

struct hg_ingest {
	hg_ingest_opts opts;
	hg_ctx user;                         /* the caller's context (its sink) */
	pthread_mutex_t said;                /* one callback at a time */
	char **inputs;                       /* owned */
	int n_inputs, cap_inputs;
	bool ran;
	hg_ingest_summary sum;               /* the counts (fresh .. of the writer) */

	/* the reader's */
	hg_ctx ctx;                          /* reading and naming */
	struct diag_tap diags;
	hg_rules *rules;
	struct hg_namer names;
	bool warned_no_app;                  /* said once a run that a report names no app */
	const char *path;                    /* the input being read */
	struct ingest_queue queue;
	hg_store_symtab *symbols;            /* numbers the reports' symbols for the writer */
	hg_store_symtab *writer_symbols;     /* the same for those the writer prepares */
	size_t reports_of_object;            /* reports queued from the object at hand */
	double last_fetch_progress;

	/* the writer's */
	hg_ctx store_ctx;
	struct diag_tap store_diags;
	hg_store *store;
	size_t in_batch;
	struct ingest_counts batch;          /* of the batch at hand */
	double batch_started;                /* ingest_now() at the batch's first item */
	bool batch_closed;                   /* committed; begun again with the next item */
	struct hash_set touched;             /* distinct cluster hashes, committed */
	struct hash_set touched_in_batch;    /* and those of the batch at hand */
	bool batch_failed_item;              /* an item the store failed, in that batch */
	double last_progress;
	struct ingest_checkpointer checkpointer;
};

/* run.c: says a note ("hangar ingest: ...") through the caller's sink;
 * tells the progress callback (phase FETCHING and STORING rate-limited). */
void ingest_note(struct hg_ingest *in, const char *fmt, ...) HG_PRINTF(2, 3);
void ingest_tell(struct hg_ingest *in, const hg_ingest_progress *p, double *last);
double ingest_now(void);

/* The reader thread: reads every input into the queue, then closes it. */
void *ingest_reader(void *ingest);
/* Reads one remote source (s3://, http://, https://) into the queue: lists
 * it, skips the objects already ingested, fetches the rest, queues their
 * reports and then the object itself. */
void ingest_remote(struct hg_ingest *in, const char *url);
/* The reader's sink (reader.c): names, signs, prepares, queues. */
int ingest_on_report(void *ingest, hg_report *rep);

/* The writer: takes items until the queue is closed and empty, storing
 * them in batches; on a store error it stops the queue and counts it. */
void ingest_write_all(struct hg_ingest *in);
/* Commits the last batch (or rolls it back after a failure). */
void ingest_finish(struct hg_ingest *in);
void ingest_sets_release(struct hg_ingest *in);

/* The checkpointer: started once the store is open, poked after each
 * commit, stopped before the store closes.  Without a thread (or a second
 * handle) it does nothing, and the close copies the whole log. */
void ingest_checkpointer_start(struct hg_ingest *in);
void ingest_checkpointer_poke(struct hg_ingest *in);
void ingest_checkpointer_stop(struct hg_ingest *in);

#endif
