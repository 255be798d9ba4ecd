/* What ingest and nightly share: the options that say how reports are read
 * and named, and one whole run (load mappings and rules, open the store,
 * read on one thread and write on this one, commit, say the summary). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "internal.h"
#include "store_cli.h"

void ingest_init(struct ingest *in)
{
	*in = (struct ingest){0};
	hg_ctx_init(&in->ctx);
	in->ctx.diag = cli_print_diag;
	in->ctx.diag_user = &in->diags;
	in->ctx.keep_text = 1;
	in->ctx.skip_meta = 1; /* the store keeps the text, not the fields */
	hg_ctx_init(&in->store_ctx);
	in->store_ctx.diag = cli_print_diag;
	in->store_ctx.diag_user = &in->store_diags;
	in->names.ctx = &in->ctx;
}

int ingest_option(struct ingest *in, const char *cmd, int code, const char *arg)
{
	switch (code) {
	case OPT_DB: in->db_option = arg; return EXIT_FINE;
	case 'm': in->mapping = arg; return EXIT_FINE;
	case OPT_PROGUARD:
		if (in->n_proguard_paths == NAMER_MAX_PROGUARD)
			return cli_usage_error(cmd, "at most %d --proguard files", NAMER_MAX_PROGUARD);
		in->proguard_paths[in->n_proguard_paths++] = arg;
		return EXIT_FINE;
	case OPT_MAPPING_DIR: in->names.mapping_dir = arg; return EXIT_FINE;
	case OPT_APP_VERSION: in->app_version = arg; return EXIT_FINE;
	case OPT_RULES: in->rules_path = arg; return EXIT_FINE;
	case OPT_APP:
		if (!*arg)
			return cli_usage_error(cmd, "--app wants a name, such as com.example.app");
		in->app = arg;
		return EXIT_FINE;
	case OPT_INPUT_FORMAT: {
		int f = hg_input_format_from_name(arg);
		if (f < 0 || f == HG_FORMAT_RAW)
			return cli_usage_error(cmd, "unknown input format '%s'", arg);
		in->format = (enum hg_input_format)f;
		return EXIT_FINE;
	}
	case OPT_STACK_DIR: in->ctx.stack_dir = arg; return EXIT_FINE;
	case OPT_MAX_INPUT: {
		int64_t v;
		if (!cli_parse_int64(arg, &v) || v <= 0)
			return cli_usage_error(cmd, "--max-input wants a byte count > 0, not '%s'", arg);
		in->ctx.limits.max_input_bytes = (size_t)v;
		return EXIT_FINE;
	}
	default:
		if (code >= OPT_REMOTE && code < OPT_REMOTE_END)
			return ingest_remote_option(in, cmd, code, arg);
		return cli_usage_error(cmd, "unknown option");
	}
}

void ingest_release(struct ingest *in)
{
	hg_store_close(in->store);
	in->store = NULL;
	hg_rules_destroy(in->rules);
	in->rules = NULL;
	namer_release(&in->names);
	free(in->touched.slots);
	free(in->touched_in_batch.slots);
	in->touched = in->touched_in_batch = (struct hash_set){0};
}

/* Reads on one thread (parse, name, sign) and writes on this one (the
 * store): on a machine with two cores the two halves overlap. */
static void run_threads(struct ingest *in)
{
	pthread_t reader;
	in->symbols = hg_store_symtab_create(); /* NULL: symbols found by text */
	if (ingest_queue_init(&in->queue) != 0) {
		hg_store_symtab_destroy(in->symbols);
		in->symbols = NULL;
		in->failed++;
		return;
	}
	if (pthread_create(&reader, NULL, ingest_reader, in) != 0) {
		/* Not read on this thread instead: the bounded queue would fill
		 * with nobody to empty it. */
		fprintf(stderr, "hangar ingest: cannot start the reader thread\n");
		in->failed++;
	} else {
		ingest_write_all(in);
		pthread_join(reader, NULL);
	}
	ingest_queue_release(&in->queue);
	hg_store_symtab_destroy(in->symbols);
	in->symbols = NULL;
}

int ingest_run(struct ingest *in, char **inputs, int n_inputs)
{
	in->inputs = inputs;
	in->n_inputs = n_inputs;
	/* A file that fails is said on stderr; the run goes on without it. */
	if (in->rules_path && hg_rules_load(&in->ctx, in->rules_path, &in->rules) != 0)
		in->load_failed = true;
	if (in->mapping && hg_mapping_open(&in->ctx, in->mapping, &in->names.mapping) != 0)
		in->load_failed = true;
	for (int i = 0; i < in->n_proguard_paths; i++)
		if (hg_proguard_open(&in->ctx, in->proguard_paths[i],
				     &in->names.proguard[in->names.n_proguard]) == 0)
			in->names.n_proguard++;
		else
			in->load_failed = true;
	in->db_path = store_path(in->db_option);
	if (hg_store_open(&in->store_ctx, in->db_path, &in->store) != 0 ||
	    hg_store_begin(in->store) != 0) {
		in->load_failed = true;
		return EXIT_SOME_FAILED;
	}
	int64_t old = 0;
	if (hg_store_old_clusters(in->store, &old) == 0 && old > 0)
		fprintf(stderr, "hangar ingest: warning: %s: %lld clusters are grouped by an older "
			"signature (v1); new reports are grouped by v%d, so a cause may show as two "
			"clusters: `hangar regroup --db %s` moves the store to v%d, keeping every "
			"report\n", in->db_path, (long long)old, HG_SIGNATURE_VERSION, in->db_path,
			HG_SIGNATURE_VERSION);
	hg_store_mark_ingest(in->store); /* written with the first new report, in its batch */
	hg_store_set_bulk(in->store, true); /* a store error rolls the whole batch back */
	double t0 = ingest_now();
	ingest_checkpointer_start(in);
	run_threads(in);
	ingest_finish(in);
	ingest_checkpointer_stop(in);
	ingest_summary(in, ingest_now() - t0);
	/* ingest says every rejected input, known or not: a person runs it. */
	return ingest_failed_newly(in) || in->rejected_before || in->fetch_failed_before
	       ? EXIT_SOME_FAILED : EXIT_FINE;
}

bool ingest_failed_newly(const struct ingest *in)
{
	return in->load_failed || in->rejected || in->failed || in->names.bad_mappings ||
	       in->fetch_failed > in->fetch_failed_before || in->sources_failed;
}
