/* An ingest run's writer: the items the reader prepared, into the store in
 * batches; the clusters touched; progress. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define BATCH_SECONDS 4.0         /* a transaction at most this long, */
#define BATCH_MAX 100000          /* with at most this many reports */
#define BATCH_MAX_PENDING 100000  /* and this many tree nodes held in memory (~70 B each) */

static size_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

static bool set_has(const struct hash_set *set, const char *hash)
{
	if (!set->cap)
		return false;
	for (size_t i = hash_of(hash) & (set->cap - 1); set->slots[i][0]; i = (i + 1) & (set->cap - 1))
		if (!strcmp(set->slots[i], hash))
			return true;
	return false;
}

/* Adds hash to the set (a count that stays low when memory runs out). */
static void set_add(struct hash_set *set, const char *hash)
{
	if (2 * (set->n + 1) > set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 1024;
		char (*t)[33] = calloc(cap, sizeof *t);
		if (!t)
			return;
		for (size_t i = 0; i < set->cap; i++) {
			if (!set->slots[i][0])
				continue;
			size_t j = hash_of(set->slots[i]) & (cap - 1);
			while (t[j][0])
				j = (j + 1) & (cap - 1);
			memcpy(t[j], set->slots[i], 33);
		}
		free(set->slots);
		set->slots = t;
		set->cap = cap;
	}
	size_t i = hash_of(hash) & (set->cap - 1);
	for (; set->slots[i][0]; i = (i + 1) & (set->cap - 1))
		if (!strcmp(set->slots[i], hash))
			return;
	memcpy(set->slots[i], hash, 33);
	set->n++;
}

static void set_clear(struct hash_set *set)
{
	if (set->n)
		memset(set->slots, 0, set->cap * sizeof *set->slots);
	set->n = 0;
}

/* A cluster the batch at hand touched, counted once committed. */
static void touch(struct hg_ingest *in, const char *hash)
{
	if (!set_has(&in->touched, hash))
		set_add(&in->touched_in_batch, hash);
}

/* The batch is in the store: its counts become the run's. */
static void batch_committed(struct hg_ingest *in)
{
	in->sum.fresh += in->batch.fresh;
	in->sum.duplicate += in->batch.duplicate;
	in->sum.rejected += in->batch.rejected;
	in->sum.rejected_before += in->batch.rejected_before;
	in->sum.expired += in->batch.expired;
	in->batch = (struct ingest_counts){0};
	for (size_t i = 0; i < in->touched_in_batch.cap; i++)
		if (in->touched_in_batch.slots[i][0])
			set_add(&in->touched, in->touched_in_batch.slots[i]);
	set_clear(&in->touched_in_batch);
}

/* The batch is not: nothing of it counts, and the summary says so. */
static void batch_lost(struct hg_ingest *in)
{
	in->sum.not_stored += in->batch.fresh + in->batch.duplicate + in->batch.rejected +
			  in->batch.expired + in->batch_failed_item;
	in->batch_failed_item = false;
	in->batch = (struct ingest_counts){0};
	set_clear(&in->touched_in_batch);
}

static void progress(struct hg_ingest *in)
{
	hg_ingest_progress p = {.phase = HG_INGEST_STORING, .reports = in->sum.reports,
				.fresh = in->sum.fresh + in->batch.fresh,
				.duplicate = in->sum.duplicate + in->batch.duplicate,
				.rejected = in->sum.rejected + in->batch.rejected};
	ingest_tell(in, &p, &in->last_progress);
}

/* Whether to commit now.  Batches are cut by time and by the memory they
 * hold, not by a small count: each commit rewrites every tree node and
 * index page the batch touched, so frequent commits make a big ingest pay
 * that over and over.  A killed run loses at most the batch at hand, which
 * the rerun adds again. */
static bool batch_full(struct hg_ingest *in)
{
	if (in->in_batch == 0)
		in->batch_started = ingest_now(); /* its age counts from its first item */
	if (++in->in_batch >= BATCH_MAX)
		return true;
	if (in->in_batch % 64 != 0)
		return false;
	return hg_store_pending(in->store) >= BATCH_MAX_PENDING ||
	       ingest_now() - in->batch_started >= BATCH_SECONDS;
}

/* Commits the batch; with reopen, begins the next one at once, else when
 * the next item comes (open_batch). */
static int flush_batch(struct hg_ingest *in, bool reopen)
{
	if (in->batch_closed) {
		in->batch_closed = !reopen;
		if (reopen && hg_store_begin(in->store) != 0) {
			in->sum.store_errors++;
			return -1;
		}
		return 0;
	}
	if (hg_store_commit(in->store) != 0) {
		in->batch_closed = true; /* rolled back by the commit */
		batch_lost(in);
		in->sum.store_errors++;
		return -1;
	}
	batch_committed(in);
	if (reopen && hg_store_begin(in->store) != 0) {
		in->batch_closed = true;
		in->sum.store_errors++;
		return -1;
	}
	in->batch_closed = !reopen;
	in->in_batch = 0;
	in->batch_started = ingest_now();
	ingest_checkpointer_poke(in);
	return 0;
}

/* The batch an item goes into, begun again after a commit made while the
 * reader waited (a FIFO without a writer, a slow network source): the
 * store's write lock is not held while nothing is written. */
static int open_batch(struct hg_ingest *in)
{
	if (!in->batch_closed)
		return 0;
	if (hg_store_begin(in->store) != 0) {
		in->sum.store_errors++;
		return -1;
	}
	in->batch_closed = false;
	return 0;
}

/* The store failed to take an item: it said why (its path and SQLite's
 * reason) unless it ran out of memory; this says where the run stopped.
 * The input is not blamed: it was read. */
static void store_failed(struct hg_ingest *in, int said_before, int rc, const char *source,
			 long line)
{
	if (in->store_diags.errors == said_before)
		hg_diagf(&in->store_ctx, HG_DIAG_ERROR, in->opts.store_path, 0, 0, 0, "%s",
			 hg_strerror(rc));
	if (line > 0)
		ingest_note(in, "stopped at %s:%ld: the store failed", source, line);
	else
		ingest_note(in, "stopped at %s: the store failed", source);
	in->batch_failed_item = true;
	in->sum.store_errors++;
}

/* A rejected input, counted as rejected only when no earlier run
 * rejected the same bytes (those are counted apart: a file that can never
 * be read is not news every night).  Counted in the batch, as the rest. */
static int add_rejected(struct hg_ingest *in, const char *source, long line, const char *reason,
			const char *text, size_t len)
{
	int known = hg_store_rejected_known(in->store, source, line, text, len);
	if (known < 0)
		return known;
	if (known) {
		in->batch.rejected_before++;
		return 0;
	}
	int rc = hg_store_add_rejected(in->store, source, line, reason, text, len);
	in->batch.rejected += rc == 0;
	return rc;
}

static void store_item(struct hg_ingest *in, const struct ingest_item *item)
{
	int rc = 0;
	const hg_report *rep = item->rep;
	if (open_batch(in) != 0)
		return;
	int said = in->store_diags.errors;
	if (item->object.source) {
		hg_object_row row = item->object;
		row.error = item->reason;
		if (!strcmp(row.status, "failed") &&
		    hg_store_object_failed_before(in->store, row.source, row.key) == 1)
			in->sum.objects.failed_before++;
		rc = hg_store_object_put(in->store, &row);
		if (rc != 0) {
			store_failed(in, said, rc, row.key, 0);
			return;
		}
		if (batch_full(in))
			flush_batch(in, true);
		return;
	}
	in->sum.reports++;
	hg_store_prep *prep = item->prep; /* made here when the reader left it to the writer */
	int err = item->err;
	if (rep && !rep->error && !err && item->prepare)
		err = hg_store_prepare_with(rep, rep->text ? rep->text : "",
					    rep->text ? rep->text_len : 0, in->writer_symbols, &prep);
	if (rep && !rep->error && err) {
		/* Naming, signing or preparing it failed (out of memory), not the store. */
		ingest_note(in, "%s:%ld: cannot prepare a report: %s", rep->source, rep->line,
			    hg_strerror(err));
		in->sum.store_errors++;
		return;
	}
	if (!rep || rep->error) {
		rc = add_rejected(in, rep ? rep->source : item->path, rep ? rep->line : 0,
				  rep ? rep->error : item->reason, rep && rep->text ? rep->text : "",
				  rep && rep->text ? rep->text_len : 0);
	} else {
		bool dup = false, expired = false;
		rc = hg_store_expired(in->store, rep, &expired);
		if (rc == 0 && expired) /* counted and pruned already, or would be */
			in->batch.expired++;
		else if (rc == 0)
			rc = hg_store_add_prepared(in->store, rep, &item->sig,
						   rep->text ? rep->text : "",
						   rep->text ? rep->text_len : 0, prep, &dup);
		if (prep != item->prep)
			hg_store_prep_destroy(prep);
		if (rc == 0 && !expired) {
			dup ? in->batch.duplicate++ : in->batch.fresh++;
			touch(in, item->sig.hash);
		}
	}
	if (rc != 0) {
		store_failed(in, said, rc, rep ? rep->source : item->path, rep ? rep->line : 0);
		return;
	}
	if (batch_full(in) && flush_batch(in, true) != 0)
		return;
	progress(in);
}

void ingest_write_all(struct hg_ingest *in)
{
	in->batch_started = ingest_now();
	struct ingest_item items[INGEST_QUEUE_LEN];
	for (;;) {
		/* A batch with items is committed BATCH_SECONDS after its first,
		 * even when no more come: what was read is not held back by a
		 * reader that waits. */
		long wait_ms = -1;
		if (in->in_batch && !in->sum.store_errors) {
			double left = BATCH_SECONDS - (ingest_now() - in->batch_started);
			wait_ms = left > 0 ? (long)(left * 1000.0) + 1 : 0;
		}
		bool timed_out;
		size_t n = ingest_queue_pop_all(&in->queue, items, INGEST_QUEUE_LEN, wait_ms, &timed_out);
		if (n == 0 && !timed_out)
			break; /* closed and empty */
		for (size_t i = 0; i < n && !in->sum.store_errors; i++) {
			store_item(in, &items[i]);
			if (in->sum.store_errors)
				ingest_queue_stop(&in->queue); /* the reader stops, the rest drains */
		}
		ingest_queue_recycle(&in->queue, items, n);
		if (!in->sum.store_errors && in->in_batch &&
		    ingest_now() - in->batch_started >= BATCH_SECONDS && flush_batch(in, false) != 0)
			ingest_queue_stop(&in->queue);
	}
}

void ingest_finish(struct hg_ingest *in)
{
	if (!in->sum.store_errors) {
		flush_batch(in, false);
	} else if (!in->batch_closed) {
		hg_store_rollback(in->store);
		in->batch_closed = true;
		batch_lost(in);
	}
}

void ingest_sets_release(struct hg_ingest *in)
{
	free(in->touched.slots);
	free(in->touched_in_batch.slots);
	in->touched = in->touched_in_batch = (struct hash_set){0};
}
