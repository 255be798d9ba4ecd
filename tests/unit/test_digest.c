/* The nightly digest: a store filled in two runs (the second's reports
 * after first_report_id), checked in Markdown (sections, counts, the new
 * and the regressed cluster, the StackKey path excerpt) and in JSON
 * (parsed back, fields and numbers exact); an empty store; a run that
 * stored nothing; hostile text escaped in both formats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/digest.h"
#include "hangar/store.h"
#include "json.h"

/* ---- fixture ---- */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	hg_store *store;
	int n;                 /* reports added: each text unique */
	char started[32];      /* the second run's start, store time form */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	hg_ctx_init(&f->ctx);
	snprintf(f->dir, sizeof f->dir, "/tmp/hg-digest-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof f->path, "%s/h.db", f->dir);
	if (hg_store_open(&f->ctx, f->path, &f->store) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	hg_store_close(f->store);
	const char *suffix[] = {"", "-wal", "-shm", "-journal"};
	char p[128];
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", f->path, suffix[i]);
		unlink(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static int keep_first(void *user, hg_report *rep)
{
	hg_report **out = user;
	if (!*out && !rep->error)
		*out = rep;
	else
		hg_report_destroy(rep);
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
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_true(hg_reports_read(&ctx, "mem.json", text, strlen(text), keep_first, &rep) >= 0);
	assert_non_null(rep);
	hg_signature sig;
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
	snprintf(sig.hash, sizeof sig.hash, "d%d%030d", which, 0);
	sig.title = title;
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
	add(f, 4, "LAG", "1.1", 700, 3, "four");
	add(f, 4, "LAG", "1.1", 900, 3, "four");
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
	hg_digest_run run = {.source = "s3://bucket/prefix/", .started = f->started,
			     .finished = "2999-01-01T00:00:00.000Z", .first_report_id = first,
			     .new_reports = 6, .duplicates = 2, .rejected = 1,
			     .objects_listed = 9, .objects_fetched = 3, .objects_skipped = 5,
			     .objects_failed = 1, .top = 3, .threshold = 50};
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

/* ---- Markdown ---- */

static void has(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("missing \"%s\" in:\n%s", what, text);
}

static void test_markdown(void **state)
{
	struct fx *f = *state;
	hg_digest_run run = run_of(f, two_runs(f));
	int64_t fresh = -1;
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	assert_int_equal(fresh, 1);
	has(md, "# hangar nightly digest\n");
	has(md, "- **Source:** s3://bucket/prefix/\n");
	has(md, "- **This run:** 6 new reports, 2 duplicates, 1 rejected\n");
	has(md, "- **Objects:** 9 listed, 3 fetched, 5 skipped, 1 failed\n");
	has(md, "## Totals by kind\n\n| kind | this run | all time |\n");
	has(md, "| slow\\_method | 4 | 9 |\n");
	has(md, "| lag | 2 | 2 |\n");
	has(md, "| anr | 0 | 1 |\n");
	has(md, "| **total** | 6 | 12 |\n");
	has(md, "## Top 3 clusters (all time, by count)\n");
	/* Cluster 1 leads (5), 2 next (4), then 4 (2); 3 is left out. */
	has(md, "| 1 | `d10000000000` | slow\\_method | deep one |");
	has(md, "| 5 | 1 | 1.0: 4, 1.1: 1 |");
	has(md, "| 2 | `d20000000000` |");
	has(md, "| 4 | 3 | 1.1: 2, unknown: 1, 1.0: 1 |");
	has(md, "| 3 | `d40000000000` |");
	assert_null(strstr(md, "`d30000000000`"));
	has(md, "## New clusters\n\n");
	has(md, "| 1 | `d40000000000` | lag | four |");
	has(md, "## Regressed clusters (count or p90 up more than 50%)\n");
	has(md, "| 1 | `d20000000000` | slow\\_method | two |");
	has(md, "| 1 → 3 | 200 → 220 |");
	/* The 12-frame path: 4 from the root, the elision, the last 3. */
	has(md, "**1. `d10000000000`** StackKey path (12 frames):\n\n```\n");
	has(md, "… 5 more\n");
	has(md, "   <- StackKey\n```\n");
	has(md, "## Failed fetches\n\n| source | key | error | attempts |\n");
	has(md, "| s3://bucket/prefix/ | 2026/11/28/x.json.gz | HTTP 503 \\| slow down | 1 |\n");
	has(md, "## Rejected inputs\n\n| source | line | reason |\n");
	has(md, "| s3://bucket/prefix/y.json | 7 | expected a value |\n");
	free(md);

	/* A run that started later: none of the rejections are its own. */
	run.started = "2999-01-01T00:00:00.000Z";
	md = write_digest(f, &run, HG_DIGEST_MARKDOWN, NULL);
	has(md, "## Rejected inputs\n\nNone.\n");
	free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_markdown, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
