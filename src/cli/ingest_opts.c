/* What ingest and nightly share: the options that say how reports are read
 * and named, and one run over the library (hangar/ingest.h) with its
 * progress lines and summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest_opts.h"
#include "store_cli.h"

void ingest_cli_init(struct ingest_cli *in)
{
	*in = (struct ingest_cli){0};
	hg_ingest_opts_init(&in->opts);
	in->opts.proguard = in->proguard;
	in->opts.symbol_dirs = in->symbol_dirs;
	hg_ctx_init(&in->ctx);
	in->ctx.diag = cli_print_diag;
	char why[160];
	hg_timezone_init(&in->zone, "UTC", why, sizeof why);
	in->zone.who = "hangar ingest"; /* as the run's other notes, nightly's too */
	in->ctx.zone = &in->zone;
}

int ingest_option(struct ingest_cli *in, const char *cmd, int code, const char *arg)
{
	hg_ingest_opts *o = &in->opts;
	switch (code) {
	case OPT_DB: in->db_option = arg; return EXIT_FINE;
	case 'm': o->mapping = arg; return EXIT_FINE;
	case OPT_PROGUARD:
		if (o->n_proguard == HG_INGEST_MAX_PROGUARD)
			return cli_usage_error(cmd, "at most %d --proguard files", HG_INGEST_MAX_PROGUARD);
		in->proguard[o->n_proguard++] = arg;
		return EXIT_FINE;
	case OPT_MAPPING_DIR: o->mapping_dir = arg; return cli_need_folder(cmd, "--mapping-dir", arg);
	case OPT_SYMBOLS:
		if (cli_need_path(cmd, "--symbols", arg) != EXIT_FINE)
			return EXIT_USAGE;
		if (o->n_symbol_dirs == HG_INGEST_MAX_SYMBOLS)
			return cli_usage_error(cmd, "at most %d --symbols folders", HG_INGEST_MAX_SYMBOLS);
		in->symbol_dirs[o->n_symbol_dirs++] = arg;
		return EXIT_FINE;
	case OPT_APP_VERSION: o->app_version = arg; return EXIT_FINE;
	case OPT_RULES: o->rules = arg; return EXIT_FINE;
	case OPT_APP:
		if (!*arg)
			return cli_usage_error(cmd, "--app wants a name, such as com.example.app");
		o->app = arg;
		return EXIT_FINE;
	case OPT_INPUT_FORMAT: {
		int f = hg_input_format_from_name(arg);
		if (f < 0 || f == HG_FORMAT_RAW)
			return cli_usage_error(cmd, "unknown input format '%s' (matrix, kscrash, metrickit, "
					"anr, logcat, tombstone, blockcanary, watchdog, java, stack)", arg);
		o->format = (enum hg_input_format)f;
		return EXIT_FINE;
	}
	case OPT_STACK_DIR: in->ctx.stack_dir = arg; return cli_need_folder(cmd, "--stack-dir", arg);
	case OPT_TIMEZONE: {
		char why[160];
		if (hg_timezone_init(&in->zone, arg, why, sizeof why) != 0)
			return cli_usage_error(cmd, "--timezone: %s", why);
		in->zone.who = "hangar ingest";
		return EXIT_FINE;
	}
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

int ingest_remote_option(struct ingest_cli *in, const char *cmd, int code, const char *arg)
{
	int64_t v = 0;
	hg_fetch_opts *o = &in->opts.fetch;
	switch (code) {
	case OPT_ENDPOINT: o->endpoint = arg; return EXIT_FINE;
	case OPT_REGION: o->region = arg; return EXIT_FINE;
	case OPT_CACERT: o->cacert = arg; return EXIT_FINE;
	case OPT_CACHE_DIR: o->cache_dir = arg; return EXIT_FINE;
	case OPT_ADDRESSING:
		if (!strcmp(arg, "path"))
			o->addressing = HG_ADDR_PATH;
		else if (!strcmp(arg, "virtual"))
			o->addressing = HG_ADDR_VIRTUAL;
		else if (!strcmp(arg, "auto"))
			o->addressing = HG_ADDR_AUTO;
		else
			return cli_usage_error(cmd, "--addressing wants path, virtual or auto, not '%s'",
					       arg);
		return EXIT_FINE;
	case OPT_JOBS:
	case OPT_ATTEMPTS:
	case OPT_TIMEOUT:
		if (!cli_parse_int64(arg, &v) || v < 1 || v > 10000)
			return cli_usage_error(cmd, "a number from 1 to 10000, not '%s'", arg);
		if (code == OPT_JOBS)
			o->jobs = (int)v;
		else if (code == OPT_ATTEMPTS)
			o->attempts = (int)v;
		else
			o->timeout_ms = (long)v * 1000;
		return EXIT_FINE;
	case OPT_MAX_OBJECT:
		if (!cli_parse_int64(arg, &v) || v < 1)
			return cli_usage_error(cmd, "--max-object wants a size in bytes, not '%s'", arg);
		o->max_object = v;
		return EXIT_FINE;
	case OPT_MAX_OBJECTS:
		if (!cli_parse_int64(arg, &v) || v < 1)
			return cli_usage_error(cmd, "--max-objects wants a number of objects >= 1, "
					       "not '%s'", arg);
		o->max_objects = v;
		return EXIT_FINE;
	case OPT_LIST_TIMEOUT:
		if (!cli_parse_int64(arg, &v) || v < 1 || v > 1000000)
			return cli_usage_error(cmd, "--list-timeout wants seconds from 1 to 1000000, "
					       "not '%s'", arg);
		o->list_timeout_ms = (long)v * 1000;
		return EXIT_FINE;
	case OPT_SHARD: {
		unsigned k = 0, n = 0;
		char end = 0;
		if (sscanf(arg, "%u/%u%c", &k, &n, &end) != 2 || n == 0 || k >= n)
			return cli_usage_error(cmd, "--shard wants K/N with 0 <= K < N, not '%s'", arg);
		o->shard = k;
		o->shards = n;
		return EXIT_FINE;
	}
	default:
		return cli_usage_error(cmd, "unknown option");
	}
}

/* The progress lines, on a terminal only: the store's when the second
 * changed, the fetch's as often as the library tells them. */
static void on_progress(void *user, const hg_ingest_progress *p)
{
	time_t *last = user;
	switch (p->phase) {
	case HG_INGEST_STORING: {
		time_t now = time(NULL);
		if (now == *last)
			return;
		*last = now;
		cli_progress_printf("ingest: %zu reports: %zu new, %zu duplicate, %zu rejected",
				    p->reports, p->fresh, p->duplicate, p->rejected);
		break;
	}
	case HG_INGEST_FETCHING:
		cli_progress_printf("fetch: %zu listed, %zu/%zu fetched, %zu failed, %zu active, %.1f MB",
				    p->listed, p->done, p->total, p->failed, p->active,
				    (double)p->bytes / 1e6);
		break;
	case HG_INGEST_FETCHED:
		cli_progress_end();
		break;
	}
}

static void print_summary(const struct ingest_cli *in)
{
	const hg_ingest_summary *s = &in->sum;
	double rate = s->seconds > 0 ? (double)s->reports / s->seconds : 0.0;
	cli_progress_end();
	if (in->summary_format == HG_ROWS_JSON) {
		printf("{\"new\":%zu,\"duplicate\":%zu,\"rejected\":%zu,\"skipped\":%zu,"
		       "\"clusters_touched\":%zu,"
		       "\"reports_per_second\":%.0f,\"objects\":{\"listed\":%zu,\"fetched\":%zu,"
		       "\"skipped\":%zu,\"failed\":%zu,\"bytes\":%lld},\"failed_sources\":%zu,"
		       "\"store_errors\":%d,\"not_stored\":%zu,\"rejected_before\":%zu,"
		       "\"links_followed\":%zu,\"links_skipped\":%zu,\"expired\":%zu}\n",
		       s->fresh, s->duplicate, s->rejected, s->skipped, s->clusters_touched, rate,
		       s->objects.listed, s->objects.fetched, s->objects.skipped, s->objects.failed,
		       (long long)s->objects.bytes, s->sources_failed, s->store_errors, s->not_stored,
		       s->rejected_before, s->links_followed, s->links_skipped, s->expired);
		return;
	}
	if (in->summary_format == HG_ROWS_CSV) {
		printf("new,duplicate,rejected,skipped,clusters_touched,reports_per_second,"
		       "objects_listed,objects_fetched,objects_skipped,objects_failed,bytes,expired\n"
		       "%zu,%zu,%zu,%zu,%zu,%.0f,%zu,%zu,%zu,%zu,%lld,%zu\n",
		       s->fresh, s->duplicate, s->rejected, s->skipped, s->clusters_touched, rate,
		       s->objects.listed, s->objects.fetched, s->objects.skipped, s->objects.failed,
		       (long long)s->objects.bytes, s->expired);
		return;
	}
	fprintf(stderr, "ingest: %zu new, %zu duplicate, %zu rejected, ", s->fresh, s->duplicate,
		s->rejected);
	if (s->rejected_before) /* said only when there are, as skipped */
		fprintf(stderr, "%zu rejected before, ", s->rejected_before);
	if (s->skipped) /* said only when there are: the line scripts know stays */
		fprintf(stderr, "%zu skipped, ", s->skipped);
	if (s->expired) /* older than the store keeps (its last prune's cutoff) */
		fprintf(stderr, "%zu expired (older than the store keeps), ", s->expired);
	if (s->links_followed) /* symbolic links in folders, as skipped */
		fprintf(stderr, "%zu link%s followed, ", s->links_followed,
			s->links_followed == 1 ? "" : "s");
	if (s->links_skipped)
		fprintf(stderr, "%zu link%s skipped, ", s->links_skipped,
			s->links_skipped == 1 ? "" : "s");
	fprintf(stderr, "%zu clusters touched, %.0f reports/s", s->clusters_touched, rate);
	if (s->store_errors) /* what the counts leave out */
		fprintf(stderr, "; the store failed: its last batch (%zu report%s) was rolled back",
			s->not_stored, s->not_stored == 1 ? "" : "s");
	if (s->objects.listed || s->sources_failed)
		fprintf(stderr, "; objects: %zu listed, %zu fetched, %zu skipped, %zu failed, %.1f MB",
			s->objects.listed, s->objects.fetched, s->objects.skipped, s->objects.failed,
			(double)s->objects.bytes / 1e6);
	fputc('\n', stderr);
}

bool ingest_cli_run(struct ingest_cli *in, char **inputs, int n_inputs)
{
	in->tty = isatty(STDERR_FILENO);
	in->opts.store_path = store_path(in->db_option);
	time_t last_progress = 0;
	if (in->tty) {
		in->opts.progress = on_progress;
		in->opts.progress_user = &last_progress;
		in->opts.progress_ms = 0;
	}
	hg_ingest *run = NULL;
	int rc = hg_ingest_create(&in->ctx, &in->opts, &run);
	for (int i = 0; rc == 0 && i < n_inputs; i++)
		rc = hg_ingest_add(run, inputs[i]);
	if (rc == 0)
		rc = hg_ingest_run(run);
	else
		fprintf(stderr, "hangar ingest: %s\n", hg_strerror(rc));
	bool ran = rc == 0;
	in->sum = run ? *hg_ingest_get_summary(run) : (hg_ingest_summary){.load_failed = true};
	hg_ingest_destroy(run);
	if (ran)
		print_summary(in);
	return ran;
}
