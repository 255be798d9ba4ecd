/* An ingest run's remote sources: an S3 prefix, an HTTP folder or a
 * manifest.  Objects already ingested (same ETag, or size and time) are
 * not fetched again; the others are fetched in parallel while the listing
 * goes on (hg_source_list_fetch: a listing that never ends still gets its
 * objects ingested until the listing's caps stop it), their reports
 * queued, then the object itself, so that the writer records it after its
 * reports.  A batch cut in between costs nothing: the rerun fetches the
 * object again and its reports are duplicates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hangar/input.h"
#include "internal.h"

struct listing {
	struct hg_ingest *in;
	hg_store *known;              /* a second connection, for reading only */
	const char *source;           /* the source's redacted name */
	hg_source *src;
	const hg_object *current;     /* the object whose reports are being read */
};

/* 1: fetch the object, 0: an earlier run ingested it as it is. */
static int on_listed(void *user, const hg_object *obj)
{
	struct listing *l = user;
	l->in->sum.objects.listed++;
	int known = l->known ? hg_store_object_known(l->known, l->source, obj->key, obj->etag,
						     obj->size, obj->last_modified)
			     : 0;
	if (known > 0) {
		l->in->sum.objects.skipped++;
		return 0;
	}
	return 1;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Queues the object's row after its reports (reason: why it failed). */
static int queue_object(struct hg_ingest *in, const char *source, const hg_object *obj,
			const char *reason, int64_t reports)
{
	struct ingest_item item = {0};
	item.object = (hg_object_row){dup_or_null(source), dup_or_null(obj->key),
				      dup_or_null(obj->etag), obj->size,
				      dup_or_null(obj->last_modified),
				      reason ? "failed" : "ingested", reports, NULL, 0, NULL};
	item.reason = dup_or_null(reason);
	if (!item.object.source || !item.object.key || (reason && !item.reason)) {
		ingest_item_release(&item);
		return HG_ENOMEM;
	}
	if (!ingest_queue_push(&in->queue, &item)) {
		ingest_item_release(&item);
		return HG_EIO;
	}
	return 0;
}

/* A fetched object about to be read: counted, its key kept for the
 * version folder of the key. */
static void object_begins(struct hg_ingest *in, const hg_object *obj, int64_t len)
{
	in->sum.objects.fetched++;
	in->sum.objects.bytes += len;
	in->reports_of_object = 0;
	in->path = obj->key;
}

/* A fetched object read (rc): queued after its reports, or as failed to
 * retry later when its bytes could not be read. */
static int object_read(struct listing *l, const hg_object *obj, int rc)
{
	struct hg_ingest *in = l->in;
	if (ingest_queue_stopped(&in->queue))
		return HG_EIO;
	if (rc == HG_EIO || rc == HG_ELIMIT) {
		in->sum.objects.fetched--;
		in->sum.objects.failed++;
		return queue_object(in, l->source, obj, in->diags.last, 0);
	}
	return queue_object(in, l->source, obj, NULL, (int64_t)in->reports_of_object);
}

/* ---- a file a fetched report names (an APM report's stack_file) ---- */

struct beside_read {
	const hg_ctx *ctx;
	char **data;
	size_t *len;
	char *why;
	size_t why_size;
	int rc;
};

static void keep_reason(void *user, const hg_diag *d)
{
	struct beside_read *b = user;
	snprintf(b->why, b->why_size, "%s", d->message);
}

/* Read under --max-input, as a report object is. */
static int beside_done(void *user, const hg_object *obj, const char *path, int64_t len)
{
	(void)obj;
	(void)len;
	struct beside_read *b = user;
	hg_ctx quiet = *b->ctx;
	quiet.diag = keep_reason;
	quiet.diag_user = b;
	b->rc = hg_input_read(&quiet, path, b->data, b->len);
	return 0;
}

static int beside_failed(void *user, const hg_object *obj, const char *reason)
{
	struct beside_read *b = user;
	snprintf(b->why, b->why_size, "%s: %s", obj->url, reason);
	b->rc = HG_EIO;
	return 0;
}

/* hg_ctx.fetch_beside while the objects of a source are read: the file
 * beside the object at hand, fetched by the same source (its caps,
 * retries and credentials), its bytes under --max-input. */
static int fetch_beside(void *user, const char *name, char **data, size_t *len, char *why,
			size_t why_size)
{
	struct listing *l = user;
	struct beside_read b = {&l->in->ctx, data, len, why, why_size, HG_EIO};
	if (!l->current) {
		snprintf(why, why_size, "no fetched report to look beside");
		return HG_EIO;
	}
	hg_fetch_callbacks cb = {.done = beside_done, .failed = beside_failed};
	int rc = hg_source_fetch_beside(l->src, l->current, name, &cb, &b);
	if (rc == HG_EINVAL)
		snprintf(why, why_size, "not a relative path of plain names");
	else if (rc == HG_EIO)
		snprintf(why, why_size, "cannot stage the file");
	return rc != 0 ? rc : b.rc;
}

static int on_fetched(void *user, const hg_object *obj, const char *path, int64_t len)
{
	struct listing *l = user;
	object_begins(l->in, obj, len);
	l->current = obj;
	int rc = hg_reports_read_path(&l->in->ctx, path, obj->url, l->in->opts.format,
				      ingest_on_report, l->in);
	l->current = NULL;
	l->in->path = NULL; /* the key goes with the object */
	return object_read(l, obj, rc);
}

/* The same for an object held in memory: read as hg_reports_read_path
 * reads its staged file, whose time would be now. */
static int on_fetched_data(void *user, const hg_object *obj, const char *data, size_t len)
{
	struct listing *l = user;
	object_begins(l->in, obj, (int64_t)len);
	hg_ctx with_time = l->in->ctx;
	struct timespec now;
	if (clock_gettime(CLOCK_REALTIME, &now) == 0)
		with_time.file_time_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	l->current = obj;
	int rc = hg_reports_read_as(&with_time, obj->url, data, len, l->in->opts.format,
				    ingest_on_report, l->in);
	l->current = NULL;
	l->in->path = NULL; /* the key goes with the object */
	return object_read(l, obj, rc);
}

static int on_failed(void *user, const hg_object *obj, const char *reason)
{
	struct listing *l = user;
	l->in->sum.objects.failed++; /* the library said why, naming the object */
	return queue_object(l->in, l->source, obj, reason, 0);
}

static void on_progress(void *user, const hg_fetch_progress *p)
{
	struct listing *l = user;
	hg_ingest_progress t = {.phase = HG_INGEST_FETCHING, .listed = l->in->sum.objects.listed,
				.done = p->done, .total = p->total, .failed = p->failed,
				.active = p->active, .bytes = p->bytes};
	ingest_tell(l->in, &t, &l->in->last_fetch_progress);
}

void ingest_remote(struct hg_ingest *in, const char *url)
{
	hg_source *src = NULL;
	/* A report file of up to 1 MiB is read from memory, not from a staged
	 * file (never more than a whole input may be). */
	hg_fetch_opts fetch = in->opts.fetch;
	if (fetch.memory_max == 0)
		fetch.memory_max = (int64_t)(in->ctx.limits.max_input_bytes < ((size_t)1 << 20)
						     ? in->ctx.limits.max_input_bytes
						     : ((size_t)1 << 20));
	if (hg_source_open(&in->ctx, url, &fetch, &src) != 0) {
		in->sum.sources_failed++;
		return;
	}
	struct listing l = {.in = in, .source = hg_source_name(src), .src = src};
	/* The writer's connection belongs to its thread: the reader asks its
	 * own (it sees what earlier runs committed, which is what counts). */
	hg_ctx quiet;
	hg_ctx_init(&quiet);
	quiet.diag = in->ctx.diag;
	quiet.diag_user = in->ctx.diag_user;
	if (hg_store_open(&quiet, in->opts.store_path, &l.known) != 0)
		l.known = NULL;
	in->names.no_beside = true;
	if (!in->ctx.stack_dir) { /* --stack-dir, when given, holds them all */
		in->ctx.fetch_beside = fetch_beside;
		in->ctx.fetch_beside_user = &l;
	}
	hg_fetch_callbacks cb = {.done = on_fetched, .failed = on_failed, .progress = on_progress,
				 .done_data = on_fetched_data, .listed = on_listed};
	int list_rc = 0;
	int rc = hg_source_list_fetch(src, &cb, &l, &list_rc);
	in->ctx.fetch_beside = NULL;
	in->ctx.fetch_beside_user = NULL;
	in->names.no_beside = false;
	hg_store_close(l.known);
	hg_ingest_progress done = {.phase = HG_INGEST_FETCHED, .listed = in->sum.objects.listed};
	ingest_tell(in, &done, NULL);
	/* What was listed before a listing error or cap was fetched all the
	 * same: the next run lists again and skips it.  A cap was said
	 * naming it: "cannot list" would say less, and wrongly. */
	if (list_rc != 0 && list_rc != rc) {
		if (list_rc != HG_ELIMIT)
			ingest_note(in, "%s: cannot list: %s", l.source, hg_strerror(list_rc));
		in->sum.sources_failed++;
	}
	if (rc != 0 && !ingest_queue_stopped(&in->queue)) {
		ingest_note(in, "%s: cannot fetch: %s", l.source, hg_strerror(rc));
		in->sum.sources_failed++;
	}
	hg_source_destroy(src);
}
