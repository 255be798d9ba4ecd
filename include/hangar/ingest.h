/* Ingesting reports into the cluster store, as the library does it for any
 * front end: files, folders, streams (stdin, FIFOs) and remote sources
 * (s3://, http(s)://) read on one thread (parsed, named with mappings,
 * signed), stored on another in batches that a killed run loses at most
 * one of, the store's log checkpointed on a third.  Reports are named as
 * every command names them (hangar/namer.h); regroup and merge read stored
 * reports again the same way (hg_reread).
 *
 * Ownership: an hg_ingest run owns its threads, store handles, mappings
 * and counts, all freed by hg_ingest_destroy; the strings its options name
 * are borrowed and must outlive the run, inputs are copied.  A run prints
 * nothing: diagnostics go to the context's sink, progress to the progress
 * callback, and the counts are in its summary.
 */
#ifndef HANGAR_INGEST_H
#define HANGAR_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "fetch.h"
#include "hangar.h"
#include "namer.h"
#include "report.h"
#include "store.h"

#define HG_INGEST_MAX_PROGUARD HG_NAMER_MAX_PROGUARD  /* --proguard files for every report */
#define HG_INGEST_MAX_SYMBOLS HG_NAMER_MAX_SYMBOLS    /* --symbols folders */

/* What a progress callback is told. */
enum hg_ingest_phase {
	HG_INGEST_STORING,   /* reports are being stored: reports .. rejected */
	HG_INGEST_FETCHING,  /* a remote source's objects are being fetched: listed .. bytes */
	HG_INGEST_FETCHED,   /* that source is done (always told, not rate-limited) */
};

typedef struct hg_ingest_progress {
	enum hg_ingest_phase phase;
	/* HG_INGEST_STORING: what was read so far and how the store took it
	 * (the batch at hand included, not yet committed) */
	size_t reports, fresh, duplicate, rejected;
	/* HG_INGEST_FETCHING: objects listed by the source at hand, and of
	 * those to fetch: done, total, failed, in transfer; bytes fetched */
	size_t listed, done, total, failed, active;
	int64_t bytes;
} hg_ingest_progress;

/* Called from the run's threads, one call at a time; p is borrowed for
 * the call. */
typedef void (*hg_ingest_progress_fn)(void *user, const hg_ingest_progress *p);

/* Which thread prepares a report for the store (its content hash and its
 * tree): the result is the same either way, only the time differs. */
enum hg_ingest_prepare {
	HG_PREPARE_AUTO = 0, /* the writer while it waits for work, else the reader */
	HG_PREPARE_READER,
	HG_PREPARE_WRITER,
};

/* A run's options.  hg_ingest_opts_init fills the defaults (every field
 * zero or NULL, fetch options the library's). */
typedef struct hg_ingest_opts {
	const char *store_path;          /* the store; created when missing (required) */
	const char *mapping;             /* methodMapping.txt for every report, or NULL */
	const char *const *proguard;     /* n_proguard ProGuard/R8 mapping.txt for every report */
	int n_proguard;                  /* at most HG_INGEST_MAX_PROGUARD */
	const char *mapping_dir;         /* DIR/<version>/{methodMapping,mapping}.txt, or NULL */
	const char *const *symbol_dirs;  /* n_symbol_dirs folders of .so files and dSYMs that
	                                    name native frames (symbols.h), indexed once */
	int n_symbol_dirs;               /* at most HG_INGEST_MAX_SYMBOLS */
	const char *app_version;         /* of reports that name none, or NULL */
	const char *app;                 /* the app of reports that name none, or NULL */
	const char *rules;               /* grouping rules file (hangar-formats(5)), or NULL */
	enum hg_input_format format;     /* HG_FORMAT_AUTO: detect */
	hg_fetch_opts fetch;             /* remote sources: endpoint, region, jobs, attempts, ... */
	hg_ingest_progress_fn progress;  /* may be NULL */
	void *progress_user;
	long progress_ms;                /* HG_INGEST_STORING / FETCHING told at most this often */
	enum hg_ingest_prepare prepare_on; /* HG_PREPARE_AUTO; the others for tests */
} hg_ingest_opts;

/* Every count of a run, each counted once its batch was committed (a
 * batch the store failed to take is in not_stored, not in the others). */
typedef struct hg_ingest_summary {
	size_t reports;          /* reports and unreadable inputs read */
	size_t fresh;            /* new reports */
	size_t duplicate;        /* reports the store had */
	size_t rejected;         /* unreadable reports and inputs, stored with their reason */
	size_t rejected_before;  /* rejected again with the same bytes (not in rejected) */
	size_t expired;          /* older than the store keeps reports (hg_store_expired):
	                            not stored, as prune dropped their like */
	size_t skipped;          /* folder entries that are not regular files */
	size_t links_followed;   /* symbolic links in folders that stay inside them */
	size_t links_skipped;    /* ones that leave their folder, lead nowhere or loop */
	size_t clusters_touched; /* distinct clusters the committed reports went to */
	size_t not_stored;       /* reports of the batch the store failed to take */
	int store_errors;        /* store failures (and reports that could not be prepared) */
	struct {
		size_t listed, fetched, skipped, failed;
		size_t failed_before;    /* of failed, objects an earlier run failed too */
		int64_t bytes;
	} objects;
	size_t sources_failed;   /* remote sources that could not be opened, listed or fetched */
	bool load_failed;        /* the rules, a mapping or the store did not load */
	int bad_mappings;        /* mappings in mapping_dir (or beside reports) that did not load */
	double seconds;          /* the run's wall time */
} hg_ingest_summary;

typedef struct hg_ingest hg_ingest;

void hg_ingest_opts_init(hg_ingest_opts *opts);

/* A run with opts (copied; the strings they point to are borrowed).  ctx
 * gives the diagnostics sink (called from the run's threads, one call at a
 * time), the limits and the stack dir; it is copied.  Returns 0 and *out
 * (caller owns; hg_ingest_destroy), HG_EINVAL (no store path, too many
 * --proguard files) or HG_ENOMEM.  Nothing is opened yet. */
int hg_ingest_create(const hg_ctx *ctx, const hg_ingest_opts *opts, hg_ingest **out);

/* Adds an input (copied): a file, a folder (searched recursively, in a
 * stable order), "-" for stdin, a FIFO, or an s3:// or http(s):// source.
 * 0, HG_ENOMEM, or HG_EINVAL after hg_ingest_run. */
int hg_ingest_add(hg_ingest *run, const char *input);

/* Whether an input is a remote source (s3://, http://, https://). */
bool hg_ingest_is_url(const char *input);

/* Loads the rules and mappings (one that fails is said and left out),
 * opens the store, reads every input into it and commits.  Once per run.
 * Returns 0 when the inputs were read (what failed among them is in the
 * summary), the store's error when it cannot be opened (nothing read), or
 * HG_EINVAL when run before. */
int hg_ingest_run(hg_ingest *run);

/* The counts so far (all of them after hg_ingest_run); borrowed. */
const hg_ingest_summary *hg_ingest_get_summary(const hg_ingest *run);

/* Whether the run failed on anything an earlier run did not: an input
 * rejected with other bytes, an object that had not failed, a source, a
 * mapping, the rules, the store. */
bool hg_ingest_failed_newly(const hg_ingest_summary *s);

/* Frees the run (and joins nothing: its threads end within hg_ingest_run).
 * Accepts NULL, and a run never run. */
void hg_ingest_destroy(hg_ingest *run);

/* Reading a stored report again, named and signed as ingest would
 * (regroup, merge): hg_reread_report is an hg_regroup_fn whose user is an
 * hg_reread (caller's storage; every pointer borrowed). */
typedef struct hg_reread {
	const hg_ctx *ctx;
	const hg_rules *rules;             /* may be NULL */
	hg_namer *names;
	const char *app_version;           /* for reports that name none; may be NULL */
	enum hg_input_format format;       /* HG_FORMAT_AUTO: detect */
	size_t unreadable;                 /* reports that could not be read again */
	/* NULL: the re-reading's diagnostics go to ctx as they come; else each
	 * report not read again is told here with its first error (why is
	 * borrowed for the call) and its diagnostics are not said. */
	void (*not_read)(void *user, const hg_regroup_item *item, const char *why);
	void *not_read_user;
} hg_reread;

/* Reports it cannot read again now (or whose stack was outside its text:
 * an APM report's --stack-dir) are left where they are (*out NULL). */
int hg_reread_report(void *reread, const hg_regroup_item *item, hg_report **out,
		     hg_signature *sig);

#endif
