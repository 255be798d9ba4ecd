/* Module ingest (src/lib/ingest/): the ingestion pipeline, described below.
 * Public headers: ingest.h, namer.h.
 * Uses: cluster, core, fetch, mapping, report, retrace, store, symbols. */
/* Ingestion as a library (hangar/ingest.h).  This module owns a run: its
 * options and inputs, the reader thread (reader.c: files, folders,
 * streams; remote.c: s3:// and http(s):// sources), the writer on the
 * calling thread (writer.c: the store, in batches), the bounded queue
 * between them (queue.c), the checkpointer thread (checkpointer.c) and the
 * naming of reports (namer.c: hangar/namer.h, which every command uses);
 * it says everything through the caller's diagnostics sink and progress
 * callback, and counts it in the summary.
 * It uses the store (hangar/store.h), the report readers and the folder
 * listing (report.h, input.h), signatures and rules (cluster.h),
 * mappings (mapping.h, proguard.h) and remote sources (fetch.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

double ingest_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A thread's diagnostic: counted, kept, passed on one at a time. */
static void tap(void *user, const hg_diag *d)
{
	struct diag_tap *t = user;
	struct hg_ingest *in = t->run;
	t->errors += d->severity == HG_DIAG_ERROR;
	snprintf(t->last, sizeof t->last, "%s", d->message);
	if (!in->user.diag)
		return;
	pthread_mutex_lock(&in->said);
	in->user.diag(in->user.diag_user, d);
	pthread_mutex_unlock(&in->said);
}

void ingest_note(struct hg_ingest *in, const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	hg_diag d = {HG_DIAG_NOTE, "hangar ingest", 0, 0, 0, message};
	if (!in->user.diag)
		return;
	pthread_mutex_lock(&in->said);
	in->user.diag(in->user.diag_user, &d);
	pthread_mutex_unlock(&in->said);
}

void ingest_tell(struct hg_ingest *in, const hg_ingest_progress *p, double *last)
{
	if (!in->opts.progress)
		return;
	if (last) {
		double now = ingest_now();
		if (*last > 0 && (now - *last) * 1000.0 < (double)in->opts.progress_ms)
			return;
		*last = now;
	}
	pthread_mutex_lock(&in->said);
	in->opts.progress(in->opts.progress_user, p);
	pthread_mutex_unlock(&in->said);
}

void hg_ingest_opts_init(hg_ingest_opts *opts)
{
	*opts = (hg_ingest_opts){0};
}

bool hg_ingest_is_url(const char *input)
{
	return !strncmp(input, "s3://", 5) || !strncmp(input, "http://", 7) ||
	       !strncmp(input, "https://", 8);
}

int hg_ingest_create(const hg_ctx *ctx, const hg_ingest_opts *opts, hg_ingest **out)
{
	*out = NULL;
	if (!opts || !opts->store_path || opts->n_proguard < 0 ||
	    opts->n_proguard > HG_INGEST_MAX_PROGUARD || opts->n_symbol_dirs < 0 ||
	    opts->n_symbol_dirs > HG_INGEST_MAX_SYMBOLS)
		return HG_EINVAL;
	struct hg_ingest *in = calloc(1, sizeof *in);
	if (!in)
		return HG_ENOMEM;
	if (pthread_mutex_init(&in->said, NULL) != 0) {
		free(in);
		return HG_ENOMEM;
	}
	in->opts = *opts;
	if (ctx)
		in->user = *ctx;
	else
		hg_ctx_init(&in->user);
	in->ctx = in->user;
	in->ctx.diag = tap;
	in->ctx.diag_user = &in->diags;
	in->ctx.keep_text = 1;
	in->ctx.skip_meta = 1; /* the store keeps the text, not the fields */
	in->diags.run = in;
	hg_ctx_init(&in->store_ctx);
	in->store_ctx.diag = tap;
	in->store_ctx.diag_user = &in->store_diags;
	in->store_diags.run = in;
	in->names.ctx = &in->ctx;
	in->names.mapping_dir = opts->mapping_dir;
	*out = in;
	return 0;
}

int hg_ingest_add(hg_ingest *in, const char *input)
{
	if (in->ran || !input)
		return HG_EINVAL;
	if (in->n_inputs == in->cap_inputs) {
		int cap = in->cap_inputs ? in->cap_inputs * 2 : 8;
		char **t = realloc(in->inputs, (size_t)cap * sizeof *t);
		if (!t)
			return HG_ENOMEM;
		in->inputs = t;
		in->cap_inputs = cap;
	}
	if (!(in->inputs[in->n_inputs] = strdup(input)))
		return HG_ENOMEM;
	in->n_inputs++;
	return 0;
}

void hg_ingest_destroy(hg_ingest *in)
{
	if (!in)
		return;
	hg_store_close(in->store);
	hg_rules_destroy(in->rules);
	namer_release(&in->names);
	ingest_sets_release(in);
	for (int i = 0; i < in->n_inputs; i++)
		free(in->inputs[i]);
	free(in->inputs);
	pthread_mutex_destroy(&in->said);
	free(in);
}

/* Reads on one thread (parse, name, sign) and writes on this one (the
 * store): on a machine with two cores the two halves overlap. */
static void run_threads(struct hg_ingest *in)
{
	pthread_t reader;
	in->symbols = hg_store_symtab_create(); /* NULL: symbols found by text */
	in->writer_symbols = hg_store_symtab_create();
	if (ingest_queue_init(&in->queue) != 0) {
		hg_store_symtab_destroy(in->symbols);
		hg_store_symtab_destroy(in->writer_symbols);
		in->symbols = in->writer_symbols = NULL;
		in->sum.store_errors++;
		return;
	}
	if (pthread_create(&reader, NULL, ingest_reader, in) != 0) {
		/* Not read on this thread instead: the bounded queue would fill
		 * with nobody to empty it. */
		ingest_note(in, "cannot start the reader thread");
		in->sum.store_errors++;
	} else {
		ingest_write_all(in);
		pthread_join(reader, NULL);
	}
	ingest_queue_release(&in->queue);
	hg_store_symtab_destroy(in->symbols);
	hg_store_symtab_destroy(in->writer_symbols);
	in->symbols = in->writer_symbols = NULL;
}

/* The rules and mappings: a file that fails is said; the run goes on
 * without it. */
static void load(struct hg_ingest *in)
{
	const hg_ingest_opts *o = &in->opts;
	if (o->rules && hg_rules_load(&in->ctx, o->rules, &in->rules) != 0)
		in->sum.load_failed = true;
	if (o->mapping && hg_namer_add_mapping(&in->names, o->mapping) != 0)
		in->sum.load_failed = true;
	for (int i = 0; i < o->n_proguard; i++)
		if (hg_namer_add_proguard(&in->names, o->proguard[i]) != 0)
			in->sum.load_failed = true;
	if (hg_namer_add_symbols(&in->names, o->symbol_dirs, o->n_symbol_dirs) != 0)
		in->sum.load_failed = true; /* said; native frames stay addresses */
}

int hg_ingest_run(hg_ingest *in)
{
	if (in->ran)
		return HG_EINVAL;
	in->ran = true;
	load(in);
	const char *db = in->opts.store_path;
	int rc = hg_store_open(&in->store_ctx, db, &in->store);
	if (rc == 0)
		rc = hg_store_begin(in->store);
	if (rc != 0) {
		in->sum.load_failed = true;
		return rc;
	}
	int64_t old = 0;
	if (hg_store_old_clusters(in->store, &old) == 0 && old > 0)
		hg_diagf(&in->store_ctx, HG_DIAG_WARNING, "hangar ingest", 0, 0, 0,
			 "%s: %lld clusters are grouped by an older signature (v1); new reports "
			 "are grouped by v%d, so a cause may show as two clusters: `hangar regroup "
			 "--db %s` moves the store to v%d, keeping every report", db, (long long)old,
			 HG_SIGNATURE_VERSION, db, HG_SIGNATURE_VERSION);
	hg_store_mark_ingest(in->store); /* written with the first new report, in its batch */
	hg_store_set_bulk(in->store, true); /* a store error rolls the whole batch back */
	double t0 = ingest_now();
	ingest_checkpointer_start(in);
	run_threads(in);
	ingest_finish(in);
	ingest_checkpointer_stop(in);
	in->sum.clusters_touched = in->touched.n;
	in->sum.bad_mappings = in->names.bad_mappings;
	in->sum.seconds = ingest_now() - t0;
	return 0;
}

const hg_ingest_summary *hg_ingest_get_summary(const hg_ingest *in)
{
	return &in->sum;
}

bool hg_ingest_failed_newly(const hg_ingest_summary *s)
{
	return s->load_failed || s->rejected || s->store_errors || s->bad_mappings ||
	       s->objects.failed > s->objects.failed_before || s->sources_failed;
}
