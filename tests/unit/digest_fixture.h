/* Shared by the digest tests (test_digest.c: Markdown and JSON;
 * test_digest_html.c: the HTML page): a store filled in two runs (the
 * second's reports after first_report_id) with made clusters, a failed
 * object and a rejected input; nights of real reports; a digest written
 * to a string. */
#ifndef HANGAR_TESTS_DIGEST_FIXTURE_H
#define HANGAR_TESTS_DIGEST_FIXTURE_H

#include <time.h>

#include "hangar/digest.h"
#include "hangar/input.h"
#include "store_fixture.h"

/* ---- fixture ---- */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	hg_store *store;
	int n;                 /* reports added: each text unique */
	char started[32];      /* the second run's start, store time form */
	const char *key;       /* when set, the StackKey symbol of the next reports */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	hg_ctx_init(&f->ctx);
	if (store_tmp_open(&f->ctx, f->dir, f->path, "/tmp/hg-digest-XXXXXX", &f->store) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	store_tmp_close(f->store, f->dir, f->path);
	free(f);
	return 0;
}

/* One report of cluster `which` (hash "d<which>000..."): Matrix detail
 * (NORMAL, LAG, ANR), a method stack `depth` frames deep (method ids 1..),
 * the signature's title as given, its StackKey as computed. */
static void add(struct fx *f, int which, const char *detail, const char *version, int cost,
		int depth, const char *title)
{
	char stack[1024] = "", text[2048];
	size_t used = 0;
	for (int i = 0; i < depth; i++)
		used += (size_t)snprintf(stack + used, sizeof stack - used, "%d,%d,1,%d\\n", i, i + 1,
					 cost - i);
	char ver[64] = "";
	if (version)
		snprintf(ver, sizeof ver, "\"appVersion\":\"%s\",", version);
	snprintf(text, sizeof text,
		 "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"%s\",\"cost\":%d,"
		 "\"stack\":\"%s\",\"process\":\"a.app\",%s"
		 "\"time\":\"2026-11-28 10:00:%02d\",\"n\":%d}}",
		 detail, cost, stack, ver, f->n % 60, f->n);
	f->n++;
	hg_report *rep = read_report("mem.json", text, strlen(text));
	hg_signature sig;
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
	int digits = which >= 100 ? 3 : which >= 10 ? 2 : 1; /* 32 hex digits in all */
	snprintf(sig.hash, sizeof sig.hash, "d%d%0*d", which, 31 - digits, 0);
	sig.title = title;
	if (f->key)
		sig.key_symbol = f->key;
	bool dup = true;
	assert_int_equal(hg_store_add_report(f->store, rep, &sig, text, strlen(text), &dup), 0);
	assert_false(dup);
	hg_report_destroy(rep);
}

static void now_ms(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

/* Run 1: cluster 1 (4 reports, 12 frames deep), 2 (1 report), 3 (an ANR).
 * Run 2 (after id 6): 1 once more, 2 three times (regressed), 4 new (two
 * LAG reports), a failed object and a rejected input.  Returns the first
 * run's last id. */
static int64_t two_runs(struct fx *f)
{
	for (int i = 0; i < 4; i++)
		add(f, 1, "NORMAL", "1.0", 100, 12, "deep one");
	add(f, 2, "NORMAL", "1.0", 200, 2, "two");
	add(f, 3, "ANR", "1.0", 5000, 3, "three");
	now_ms(f->started);
	assert_int_equal(hg_store_begin(f->store), 0);
	add(f, 1, "NORMAL", "1.1", 100, 12, "deep one");
	add(f, 2, "NORMAL", "1.1", 200, 2, "two");
	add(f, 2, "NORMAL", "1.1", 210, 2, "two");
	add(f, 2, "NORMAL", NULL, 220, 2, "two");
	add(f, 4, "LAG", "1.1", 700, 12, "four");
	add(f, 4, "LAG", "1.1", 900, 12, "four");
	hg_object_row o = {.source = "s3://bucket/prefix/", .key = "2026/11/28/x.json.gz",
			   .size = 10, .status = "failed", .error = "HTTP 503 | slow down"};
	assert_int_equal(hg_store_object_put(f->store, &o), 0);
	assert_int_equal(hg_store_commit(f->store), 0);
	const char bad[] = "{not json";
	assert_int_equal(hg_store_add_rejected(f->store, "s3://bucket/prefix/y.json", 7,
					       "expected a value", bad, sizeof bad - 1), 0);
	return 6;
}

static hg_digest_run run_of(struct fx *f, int64_t first)
{
	hg_digest_run run = {.source = "s3://bucket/prefix/", .remote = true, .started = f->started,
			     .finished = "2999-01-01T00:00:00.000Z", .first_report_id = first,
			     .new_reports = 6, .duplicates = 2, .rejected = 1,
			     .objects_listed = 9, .objects_fetched = 3, .objects_skipped = 5,
			     .objects_failed = 1, .top = 3, .min_count = 1, .min_rise = 2,
			     .threshold = 50, .compare_after_id = -1};
	return run;
}

static char *write_digest(struct fx *f, const hg_digest_run *run, enum hg_digest_format fmt,
			  int64_t *fresh)
{
	hg_buf b;
	hg_buf_init(&b);
	assert_int_equal(hg_digest_write(f->store, run, fmt, &b, fresh), 0);
	assert_false(b.failed);
	assert_non_null(b.data);
	if (getenv("HG_TEST_SHOW"))
		fputs(b.data, stderr);
	return b.data;
}

static void has(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("missing \"%s\" in:\n%s", what, text);
}

/* ---- the real corpus in two nights ---- */

static int add_real(void *user, hg_report *rep)
{
	struct fx *f = user;
	if (!rep->error) {
		hg_signature sig;
		assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
		bool dup;
		assert_int_equal(hg_store_add_report(f->store, rep, &sig, rep->text, rep->text_len,
						     &dup), 0);
	}
	hg_report_destroy(rep);
	return 0;
}

/* Lines [from, to) of testdata/matrix-mangatoon/reports.ndjson (581 real
 * Matrix reports) into the store, as one night's ingest. */
static void real_night(struct fx *f, const char *testdata, int from, int to)
{
	char path[512], *data = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/matrix-mangatoon/reports.ndjson", testdata);
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	const char *start = data, *end = data + len;
	for (int line = 1; line < from && start < end; line++)
		start = memchr(start, '\n', (size_t)(end - start)) + 1;
	const char *stop = start;
	for (int line = from; line < to && stop < end; line++)
		stop = memchr(stop, '\n', (size_t)(end - stop)) + 1;
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.keep_text = 1;
	assert_int_equal(hg_store_begin(f->store), 0);
	assert_int_equal(hg_reports_read(&ctx, path, start, (size_t)(stop - start), add_real, f), 0);
	assert_int_equal(hg_store_commit(f->store), 0);
	free(data);
}

static int64_t last_id(struct fx *f)
{
	int64_t id = -1;
	assert_int_equal(hg_store_last_report_id(f->store, &id), 0);
	return id;
}

#endif
