/* The ingest API (hangar/ingest.h) driven without the CLI: real reports
 * from testdata/ into a temporary store, the summary's counts checked
 * against the store's tables, the progress callback, diagnostics reaching
 * the context's sink, a second run counting duplicates, a bad input
 * rejected while the rest is stored, the per-version mappings of a
 * --mapping-dir, and runs destroyed without being run.
 * usage: test_ingest TESTDATA_DIR */
#include "store_fixture.h"

#include "hangar/ingest.h"
#include "hangar/text.h"

static const char *testdata = "testdata";

struct fx {
	char dir[64], path[96];
	hg_ctx ctx;
	int errors, warnings, notes;
	char first_error[512];
	size_t storing_calls, last_reports;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	if (d->severity == HG_DIAG_ERROR && !f->errors++)
		snprintf(f->first_error, sizeof f->first_error, "%s: %s", d->source, d->message);
	f->warnings += d->severity == HG_DIAG_WARNING;
	f->notes += d->severity == HG_DIAG_NOTE;
}

static void on_progress(void *user, const hg_ingest_progress *p)
{
	struct fx *f = user;
	if (p->phase != HG_INGEST_STORING)
		return;
	f->storing_calls++;
	assert_true(p->reports >= f->last_reports); /* counts only grow */
	assert_true(p->fresh + p->duplicate + p->rejected <= p->reports);
	f->last_reports = p->reports;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	assert_int_equal(store_tmp_make(f->dir, f->path, "/tmp/hg-ingest-XXXXXX"), 0);
	hg_ctx_init(&f->ctx);
	f->ctx.diag = on_diag;
	f->ctx.diag_user = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char p[160];
	snprintf(p, sizeof p, "%s/bad.ndjson", f->dir);
	unlink(p);
	store_tmp_remove(f->dir, f->path);
	free(f);
	return 0;
}

static void opts_for(struct fx *f, hg_ingest_opts *o)
{
	hg_ingest_opts_init(o);
	o->store_path = f->path;
	o->progress = on_progress;
	o->progress_user = f;
	o->progress_ms = 0; /* every report */
}

/* One run over inputs (n of them); returns its summary (copied). */
static hg_ingest_summary run_over(struct fx *f, const hg_ingest_opts *o, const char **inputs,
				  int n)
{
	hg_ingest *run = NULL;
	assert_int_equal(hg_ingest_create(&f->ctx, o, &run), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(hg_ingest_add(run, inputs[i]), 0);
	assert_int_equal(hg_ingest_run(run), 0);
	assert_int_equal(hg_ingest_run(run), HG_EINVAL);       /* once a run */
	assert_int_equal(hg_ingest_add(run, "x"), HG_EINVAL);  /* nothing to add after */
	hg_ingest_summary s = *hg_ingest_get_summary(run);
	hg_ingest_destroy(run);
	return s;
}

/* The Matrix reports of one app and a folder of ANR traces; then again. */
static void test_real_reports_then_duplicates(void **state)
{
	struct fx *f = *state;
	char ndjson[512], anr[512];
	snprintf(ndjson, sizeof ndjson, "%s/matrix-mangatoon/reports.ndjson", testdata);
	snprintf(anr, sizeof anr, "%s/anr", testdata);
	const char *inputs[] = {ndjson, anr};
	hg_ingest_opts o;
	opts_for(f, &o);
	hg_ingest_summary s = run_over(f, &o, inputs, 2);

	int64_t stored = sql_int(f->path, "SELECT count(*) FROM reports");
	int64_t rejected = sql_int(f->path, "SELECT count(*) FROM rejected");
	int64_t clusters = sql_int(f->path, "SELECT count(DISTINCT cluster) FROM reports");
	/* the NDJSON's 581 lines (15 of them the same report again), the traces */
	assert_int_equal(s.fresh + s.duplicate + s.rejected, 581 + 14);
	assert_int_equal(s.duplicate, 15);
	assert_int_equal((int64_t)s.fresh, stored);
	assert_int_equal((int64_t)s.rejected, rejected);
	assert_int_equal((int64_t)s.clusters_touched, clusters);
	assert_int_equal(s.reports, s.fresh + s.duplicate + s.rejected);
	assert_int_equal(s.store_errors, 0);
	assert_int_equal(s.not_stored, 0);
	assert_false(s.load_failed);
	assert_true(s.seconds > 0);
	/* told after each report, the last time with all of them */
	assert_int_equal(f->storing_calls, s.reports);
	assert_int_equal(f->last_reports, s.reports);
	assert_int_equal(f->notes, 0);
	/* said once through the sink: the traces name no app */
	assert_int_equal(f->warnings, 1);

	/* The same inputs again: every report a duplicate, nothing new. */
	f->storing_calls = f->last_reports = 0;
	hg_ingest_summary again = run_over(f, &o, inputs, 2);
	assert_int_equal(again.fresh, 0);
	assert_int_equal(again.duplicate, s.fresh + s.duplicate);
	assert_int_equal(again.rejected, 0);
	assert_int_equal(again.rejected_before, s.rejected);
	assert_int_equal(again.clusters_touched, s.clusters_touched);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), stored);
	assert_false(hg_ingest_failed_newly(&again));
}

/* What a store holds, as one text: clusters, reports (but when they were
 * ingested), and trees with their symbols' texts. */
static char *store_contents(const char *path)
{
	static const char *const queries[] = {
		"SELECT group_concat(r, char(10)) FROM (SELECT hash || '|' || kind || '|' || title || '|'"
		" || coalesce(key_symbol, '') || '|' || frames || '|' || count || '|' ||"
		" coalesce(first_seen, '') || '|' || coalesce(last_seen, '') AS r FROM clusters"
		" ORDER BY hash)",
		"SELECT group_concat(r, char(10)) FROM (SELECT content_hash || '|' || cluster || '|' ||"
		" kind || '|' || cost || '|' || coalesce(time, '') || '|' || symbolicated || '|' ||"
		" length(text) AS r FROM reports ORDER BY id)",
		"SELECT group_concat(r, char(10)) FROM (SELECT cluster || '|' || id || '|' ||"
		" coalesce(parent, '') || '|' || symbol || '|' || reports || '|' || total_cost || '|' ||"
		" self_cost || '|' || on_key_path AS r FROM tree ORDER BY cluster, id)",
	};
	size_t size = 16u << 20;
	char *all = malloc(3 * size);
	assert_non_null(all);
	for (size_t q = 0; q < 3; q++) {
		sql_text(path, queries[q], all + q * size, size);
		assert_true(strlen(all + q * size) > 100);
		assert_true(strlen(all + q * size) < size - 1); /* not cut */
	}
	for (size_t q = 0; q < 2; q++) /* one text */
		all[q * size + strlen(all + q * size)] = '\n';
	return all;
}

/* Preparing reports on the reader, on the writer or on whichever is free
 * stores the same clusters, reports and trees. */
static void test_prepared_anywhere_same_store(void **state)
{
	struct fx *f = *state;
	char ndjson[512], anr[512], raw[512];
	snprintf(ndjson, sizeof ndjson, "%s/matrix-mangatoon/reports.ndjson", testdata);
	snprintf(anr, sizeof anr, "%s/anr", testdata);
	snprintf(raw, sizeof raw, "%s/regroup/reports", testdata);
	const char *inputs[] = {ndjson, anr, raw};
	const enum hg_ingest_prepare modes[] = {HG_PREPARE_READER, HG_PREPARE_WRITER,
						HG_PREPARE_AUTO};
	char *first = NULL;
	for (size_t m = 0; m < 3; m++) {
		unlink(f->path);
		f->storing_calls = f->last_reports = 0;
		hg_ingest_opts o;
		opts_for(f, &o);
		o.prepare_on = modes[m];
		hg_ingest_summary s = run_over(f, &o, inputs, 3);
		assert_int_equal(s.store_errors, 0);
		assert_true(s.fresh > 500);
		char *got = store_contents(f->path);
		if (!first)
			first = got;
		else {
			assert_string_equal(got, first);
			free(got);
		}
	}
	free(first);
}

/* A rate-limited callback is told less often, and at least once. */
static void test_progress_rate_limited(void **state)
{
	struct fx *f = *state;
	char ndjson[512];
	snprintf(ndjson, sizeof ndjson, "%s/matrix-mangatoon/reports.ndjson", testdata);
	const char *inputs[] = {ndjson};
	hg_ingest_opts o;
	opts_for(f, &o);
	o.progress_ms = 60000;
	hg_ingest_summary s = run_over(f, &o, inputs, 1);
	assert_int_equal(s.fresh, 566);
	assert_int_equal(f->storing_calls, 1);
}

/* A line that is no report is rejected with its reason, said through the
 * context's sink; the good lines around it are stored. */
static void test_bad_input_rejected_rest_stored(void **state)
{
	struct fx *f = *state;
	char ndjson[512], bad[160], *text = NULL;
	snprintf(ndjson, sizeof ndjson, "%s/matrix-mangatoon/reports.ndjson", testdata);
	snprintf(bad, sizeof bad, "%s/bad.ndjson", f->dir);
	FILE *in = fopen(ndjson, "rb");
	assert_non_null(in);
	size_t cap = 0;
	ssize_t n1;
	/* the first two reports, a broken line between them */
	hg_buf b;
	hg_buf_init(&b);
	for (int i = 0; i < 2 && (n1 = getline(&text, &cap, in)) > 0; i++) {
		hg_buf_add(&b, text, (size_t)n1);
		if (i == 0)
			hg_buf_puts(&b, "{\"stack\": not json at all\n");
	}
	free(text);
	fclose(in);
	write_file(bad, b.data, b.len);
	hg_buf_release(&b);

	const char *inputs[] = {bad};
	hg_ingest_opts o;
	opts_for(f, &o);
	hg_ingest_summary s = run_over(f, &o, inputs, 1);
	assert_int_equal(s.fresh, 2);
	assert_int_equal(s.rejected, 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM rejected"), 1);
	assert_int_equal(sql_int(f->path, "SELECT line FROM rejected"), 2);
	assert_true(f->errors >= 1);
	assert_contains(f->first_error, "bad.ndjson");
	assert_true(hg_ingest_failed_newly(&s));

	/* Again: the same bytes rejected before, not newly. */
	f->last_reports = 0;
	hg_ingest_summary again = run_over(f, &o, inputs, 1);
	assert_int_equal(again.rejected, 0);
	assert_int_equal(again.rejected_before, 1);
	assert_int_equal(again.duplicate, 2);
	assert_false(hg_ingest_failed_newly(&again));
}

/* A missing input and a missing mapping: said, counted, the run goes on. */
static void test_missing_files_said(void **state)
{
	struct fx *f = *state;
	char ndjson[512];
	snprintf(ndjson, sizeof ndjson, "%s/matrix-mangatoon/reports.ndjson", testdata);
	const char *inputs[] = {"/nonexistent/reports.json", ndjson};
	hg_ingest_opts o;
	opts_for(f, &o);
	o.mapping = "/nonexistent/methodMapping.txt";
	hg_ingest_summary s = run_over(f, &o, inputs, 2);
	assert_true(s.load_failed);
	assert_int_equal(s.fresh, 566);
	assert_int_equal(s.rejected, 1); /* the missing input, recorded */
	assert_true(f->errors >= 2);
	assert_contains(f->first_error, "/nonexistent/methodMapping.txt");
}

/* The two reports of testdata/regroup, one cause in versions 1.0 and 1.1:
 * named by their versions' mappings they are one cluster, by ids two. */
static void test_mapping_dir_per_version(void **state)
{
	struct fx *f = *state;
	char reports[512], mappings[512];
	snprintf(reports, sizeof reports, "%s/regroup/reports", testdata);
	snprintf(mappings, sizeof mappings, "%s/regroup/mappings", testdata);
	const char *inputs[] = {reports};
	hg_ingest_opts o;
	opts_for(f, &o);
	o.mapping_dir = mappings;
	hg_ingest_summary s = run_over(f, &o, inputs, 1);
	assert_int_equal(s.fresh, 2);
	assert_int_equal(s.clusters_touched, 1);
	assert_int_equal(s.bad_mappings, 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports WHERE symbolicated"), 2);
	assert_int_equal(sql_int(f->path, "SELECT count(DISTINCT cluster) FROM reports"), 1);
}

static void test_without_mappings_two_clusters(void **state)
{
	struct fx *f = *state;
	char reports[512];
	snprintf(reports, sizeof reports, "%s/regroup/reports", testdata);
	const char *inputs[] = {reports};
	hg_ingest_opts o;
	opts_for(f, &o);
	hg_ingest_summary s = run_over(f, &o, inputs, 1);
	assert_int_equal(s.fresh, 2);
	assert_int_equal(s.clusters_touched, 2);
}

/* Runs never run: nothing opened, nothing leaked (ASan), no store made. */
static void test_destroy_never_run(void **state)
{
	struct fx *f = *state;
	hg_ingest_opts o;
	opts_for(f, &o);
	hg_ingest *run = NULL;
	assert_int_equal(hg_ingest_create(&f->ctx, &o, &run), 0);
	hg_ingest_destroy(run);
	assert_int_equal(hg_ingest_create(NULL, &o, &run), 0);
	for (int i = 0; i < 20; i++) /* grows the input list */
		assert_int_equal(hg_ingest_add(run, "some/input.json"), 0);
	hg_ingest_destroy(run);
	hg_ingest_destroy(NULL);
	assert_int_equal(access(f->path, F_OK), -1);

	o.store_path = NULL;
	assert_int_equal(hg_ingest_create(&f->ctx, &o, &run), HG_EINVAL);
	assert_null(run);
	o.store_path = f->path;
	o.n_proguard = HG_INGEST_MAX_PROGUARD + 1;
	assert_int_equal(hg_ingest_create(&f->ctx, &o, &run), HG_EINVAL);
}

/* A store that cannot be opened: the run's error, nothing read. */
static void test_store_not_opened(void **state)
{
	struct fx *f = *state;
	hg_ingest_opts o;
	opts_for(f, &o);
	o.store_path = "/nonexistent/dir/h.db";
	hg_ingest *run = NULL;
	assert_int_equal(hg_ingest_create(&f->ctx, &o, &run), 0);
	assert_int_equal(hg_ingest_add(run, "-"), 0);
	assert_true(hg_ingest_run(run) < 0);
	assert_true(hg_ingest_get_summary(run)->load_failed);
	assert_int_equal(hg_ingest_get_summary(run)->reports, 0);
	assert_true(f->errors >= 1);
	hg_ingest_destroy(run);
}

static void test_is_url(void **state)
{
	(void)state;
	assert_true(hg_ingest_is_url("s3://bucket/prefix/"));
	assert_true(hg_ingest_is_url("https://example.com/reports/"));
	assert_true(hg_ingest_is_url("http://127.0.0.1:8080/m.json"));
	assert_false(hg_ingest_is_url("s3:/bucket"));
	assert_false(hg_ingest_is_url("reports/http://x"));
}

/* The namer on its own: a mapping dir that is no folder is HG_ENOENT. */
static void test_namer(void **state)
{
	struct fx *f = *state;
	char mappings[512];
	snprintf(mappings, sizeof mappings, "%s/regroup/mappings", testdata);
	hg_namer *n = NULL;
	hg_namer_opts o = {NULL, NULL, 0, "/nonexistent/mappings"};
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), HG_ENOENT);
	assert_null(n);
	o.mapping_dir = mappings;
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), 0);
	assert_int_equal(hg_namer_bad_mappings(n), 0);
	hg_namer_destroy(n);
	hg_namer_destroy(NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_real_reports_then_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress_rate_limited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepared_anywhere_same_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_rejected_rest_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_files_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapping_dir_per_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_mappings_two_clusters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_never_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_not_opened, setup, teardown),
		cmocka_unit_test(test_is_url),
		cmocka_unit_test_setup_teardown(test_namer, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
