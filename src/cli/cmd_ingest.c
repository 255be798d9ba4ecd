/* hangar ingest: read reports from files, folders and stdin into the
 * cluster store, grouping each by its stack signature. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hangar/cluster.h"
#include "hangar/input.h"
#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "namer.h"
#include "store_cli.h"

#define BATCH_SECONDS 4.0      /* a transaction at most this long, */
#define BATCH_MAX 100000       /* with at most this many reports */
#define BATCH_MAX_PENDING 100000 /* and this many tree nodes held in memory */
#define MAX_PROGUARD NAMER_MAX_PROGUARD

static void ingest_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar ingest [OPTIONS] INPUT...\n"
		"\n"
		"Read reports (files, folders searched recursively, '-' for stdin) into the\n"
		"cluster store, grouped by stack signature.  Re-reading an input changes\n"
		"nothing; a run killed at any moment and run again ends as one clean run.\n"
		"\n"
		"Options:\n"
		"      --db FILE          the store (default: $HANGAR_DB, else ./hangar.db)\n"
		"  -m, --mapping FILE     methodMapping.txt for every report\n"
		"      --proguard FILE    ProGuard/R8 mapping.txt for every report (repeatable)\n"
		"      --mapping-dir DIR  per app version: DIR/<version>/methodMapping.txt and\n"
		"                         DIR/<version>/mapping.txt\n"
		"      --app-version V    the version of reports that do not say\n"
		"      --rules FILE       grouping rules (see hangar-formats(5))\n"
		"      --input-format F   matrix, kscrash, anr, blockcanary, java (default: detect)\n"
		"      --stack-dir DIR    where APM reports' stack files are\n"
		"  -h, --help             show this help\n"
		"\n"
		"Ends with one summary line on stderr.  Exit status: 0 nothing rejected,\n"
		"1 some input rejected (stored with its reason: see hangar rejected), 2 usage.\n");
}

struct ingest {
	hg_ctx ctx;
	struct cli_diag_sink diags;
	hg_store *store;
	hg_rules *rules;
	struct namer names;                  /* -m, --proguard, --mapping-dir */
	const char *app_version;
	enum hg_input_format format;
	const char *path;                    /* the input being read */
	size_t reports, fresh, duplicate, rejected, in_batch;
	double batch_started;                /* now_seconds() at the batch's start */
	char (*touched)[33];                 /* distinct cluster hashes */
	size_t n_touched, cap_touched;
	bool tty;
	time_t last_progress;
	int failed;                          /* store errors */
};

static void touch(struct ingest *in, const char *hash)
{
	for (size_t i = 0; i < in->n_touched; i++)
		if (!strcmp(in->touched[i], hash))
			return;
	if (in->n_touched == in->cap_touched) {
		size_t cap = in->cap_touched ? in->cap_touched * 2 : 64;
		char (*t)[33] = realloc(in->touched, cap * sizeof *t);
		if (!t)
			return;
		in->touched = t;
		in->cap_touched = cap;
	}
	memcpy(in->touched[in->n_touched++], hash, 33);
}

static void progress(struct ingest *in, bool final)
{
	if (!in->tty && !final)
		return;
	time_t now = time(NULL);
	if (!final && now == in->last_progress)
		return;
	in->last_progress = now;
	fprintf(stderr, "\ringest: %zu reports: %zu new, %zu duplicate, %zu rejected%s",
		in->reports, in->fresh, in->duplicate, in->rejected, final ? "" : "   ");
	fflush(stderr);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether to commit now.  Batches are cut by time and by the memory they
 * hold, not by a small count: each commit rewrites every tree node and
 * index page the batch touched, so frequent commits make a big ingest pay
 * that over and over.  A killed run loses at most the batch at hand, which
 * the rerun adds again. */
static bool batch_full(struct ingest *in)
{
	if (++in->in_batch >= BATCH_MAX)
		return true;
	if (in->in_batch % 64 != 0)
		return false;
	return hg_store_pending(in->store) >= BATCH_MAX_PENDING ||
	       now_seconds() - in->batch_started >= BATCH_SECONDS;
}

static int flush_batch(struct ingest *in, bool reopen)
{
	if (hg_store_commit(in->store) != 0 || (reopen && hg_store_begin(in->store) != 0)) {
		in->failed++;
		return -1;
	}
	in->in_batch = 0;
	in->batch_started = now_seconds();
	return 0;
}

static int on_report(void *user, hg_report *rep)
{
	struct ingest *in = user;
	in->reports++;
	int rc = 0;
	if (rep->error) {
		rc = hg_store_add_rejected(in->store, rep->source, rep->line, rep->error,
					   rep->text ? rep->text : "", rep->text ? rep->text_len : 0);
		in->rejected++;
	} else {
		namer_name(&in->names, rep, in->app_version, in->path);
		hg_signature sig;
		bool dup = false;
		rc = hg_signature_compute(rep, in->rules, rep->arena, &sig);
		if (rc == 0)
			rc = hg_store_add_report(in->store, rep, &sig, rep->text ? rep->text : "",
						 rep->text ? rep->text_len : 0, &dup);
		if (rc == 0) {
			dup ? in->duplicate++ : in->fresh++;
			touch(in, sig.hash);
		}
	}
	hg_report_destroy(rep);
	if (rc != 0) {
		fprintf(stderr, "hangar ingest: %s: cannot store a report: %s\n", in->path,
			hg_strerror(rc));
		in->failed++;
		return rc;
	}
	if (batch_full(in) && flush_batch(in, true) != 0)
		return HG_EIO;
	progress(in, false);
	return 0;
}

static void ingest_file(struct ingest *in, const char *path)
{
	in->path = path;
	int rc = hg_reports_read_path(&in->ctx, path, in->format, on_report, in);
	if ((rc == HG_EIO || rc == HG_ELIMIT) && !in->failed) {
		/* Unreadable (or the rest of it): recorded too, so nothing is
		 * lost without a trace. */
		hg_store_add_rejected(in->store, path, 0, in->diags.last, "", 0);
		in->rejected++;
	}
}

/* Folders are read in a stable order: their files, sorted. */
static char **found;
static size_t n_found, cap_found;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	if (base[0] == '.' || !strcmp(base, "methodMapping.txt") || !strcmp(base, "mapping.txt") ||
	    (n > 3 && !strcmp(base + n - 3, ".md")))
		return 0; /* hidden files, mappings and notes are not reports */
	if (n_found == cap_found) {
		size_t cap = cap_found ? cap_found * 2 : 256;
		char **f = realloc(found, cap * sizeof *f);
		if (!f)
			return -1;
		found = f;
		cap_found = cap;
	}
	found[n_found] = strdup(path);
	return found[n_found++] ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ingest_input(struct ingest *in, const char *path)
{
	struct stat st;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		n_found = 0;
		nftw(path, collect, 16, FTW_PHYS);
		qsort(found, n_found, sizeof *found, by_name);
		for (size_t i = 0; i < n_found; i++) {
			ingest_file(in, found[i]);
			free(found[i]);
		}
		free(found);
		found = NULL;
		n_found = cap_found = 0;
		return;
	}
	ingest_file(in, path);
}

static const struct option long_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"mapping", required_argument, NULL, 'm'},
	{"proguard", required_argument, NULL, 'P'},
	{"mapping-dir", required_argument, NULL, 'M'},
	{"app-version", required_argument, NULL, 'V'},
	{"rules", required_argument, NULL, 'r'},
	{"input-format", required_argument, NULL, 'i'},
	{"stack-dir", required_argument, NULL, 's'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void release(struct ingest *in)
{
	hg_store_close(in->store);
	hg_rules_destroy(in->rules);
	namer_release(&in->names);
	free(in->touched);
}

static int run_ingest(int argc, char **argv)
{
	struct ingest in = {0};
	hg_ctx_init(&in.ctx);
	in.ctx.diag = cli_print_diag;
	in.ctx.diag_user = &in.diags;
	in.ctx.keep_text = 1;
	in.names.ctx = &in.ctx;
	const char *db = NULL, *rules = NULL, *mapping = NULL;
	const char *proguard[MAX_PROGUARD];
	int n_pg = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'D': db = optarg; break;
		case 'm': mapping = optarg; break;
		case 'P':
			if (n_pg == MAX_PROGUARD)
				return cli_usage_error("ingest", "at most %d --proguard files", MAX_PROGUARD);
			proguard[n_pg++] = optarg;
			break;
		case 'M': in.names.mapping_dir = optarg; break;
		case 'V': in.app_version = optarg; break;
		case 'r': rules = optarg; break;
		case 'i': {
			int f = hg_input_format_from_name(optarg);
			if (f < 0 || f == HG_FORMAT_RAW)
				return cli_usage_error("ingest", "unknown input format '%s'", optarg);
			in.format = (enum hg_input_format)f;
			break;
		}
		case 's': in.ctx.stack_dir = optarg; break;
		case 'h': ingest_usage(stdout); return EXIT_FINE;
		case ':': return cli_usage_error("ingest", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("ingest", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("ingest", "no input: give files, folders, or '-' for stdin");
	int status = EXIT_FINE;
	/* A file that fails is said on stderr; the run goes on without it. */
	if (rules && hg_rules_load(&in.ctx, rules, &in.rules) != 0)
		status = EXIT_SOME_FAILED;
	if (mapping && hg_mapping_open(&in.ctx, mapping, &in.names.mapping) != 0)
		status = EXIT_SOME_FAILED;
	for (int i = 0; i < n_pg; i++)
		if (hg_proguard_open(&in.ctx, proguard[i], &in.names.proguard[in.names.n_proguard]) == 0)
			in.names.n_proguard++;
		else
			status = EXIT_SOME_FAILED;
	if (hg_store_open(&in.ctx, store_path(db), &in.store) != 0 || hg_store_begin(in.store) != 0) {
		release(&in);
		return EXIT_SOME_FAILED;
	}
	hg_store_mark_ingest(in.store); /* written with the first new report, in its batch */
	in.batch_started = now_seconds();
	in.tty = isatty(STDERR_FILENO);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = optind; i < argc && !in.failed; i++)
		ingest_input(&in, argv[i]);
	if (!in.failed)
		flush_batch(&in, false);
	else
		hg_store_rollback(in.store);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (in.tty)
		fputc('\r', stderr);
	fprintf(stderr, "ingest: %zu new, %zu duplicate, %zu rejected, %zu clusters touched, "
		"%.0f reports/s\n", in.fresh, in.duplicate, in.rejected, in.n_touched,
		secs > 0 ? (double)in.reports / secs : 0.0);
	if (in.rejected || in.failed || in.names.bad_mappings)
		status = EXIT_SOME_FAILED;
	release(&in);
	return status;
}

const struct command cmd_ingest = {
	"ingest",
	"read reports into the cluster store, grouped by stack signature",
	run_ingest,
	ingest_usage,
};
