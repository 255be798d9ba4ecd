/* The queue between ingest's reader thread (parsing, naming, signing) and
 * its writer (the store): bounded, so that a fast reader cannot fill the
 * memory, and in input order. */
#ifndef HANGAR_CLI_INGEST_QUEUE_H
#define HANGAR_CLI_INGEST_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "hangar/cluster.h"
#include "hangar/store.h"

/* One read report, signed and prepared; or an input that could not be
 * read (rep NULL, path and reason set); or a remote object whose reports
 * were all queued before it (object.source set: record it as ingested, or
 * failed when reason is set). */
struct ingest_item {
	hg_report *rep;
	hg_signature sig;       /* its strings live in rep's arena */
	hg_store_prep *prep;
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
void ingest_item_release(struct ingest_item *item);
/* Writer: hands n stored items back to be freed (freed here when the
 * reader is done or has not caught up); clears them. */
void ingest_queue_recycle(struct ingest_queue *q, struct ingest_item *items, size_t n);

#endif
