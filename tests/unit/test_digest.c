/* The nightly digest: a store filled in two runs (the second's reports
 * after first_report_id), checked in Markdown (sections, counts, the new
 * and the regressed cluster, the StackKey path excerpt) and in JSON
 * (parsed back, fields and numbers exact); an empty store; a run that
 * stored nothing; hostile text escaped in both formats. */
#include "digest_fixture.h"
#include "json/json.h"

static const char *testdata = "testdata";

/* ---- Markdown ---- */

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
	has(md, "## Regressed clusters (at least 1 report in this run; count up 2x or p90 up more "
		"than 50%)\n");
	has(md, "| 1 | `d20000000000` | slow\\_method | two |");
	has(md, "| 1 → 3 | 200 → 220 |");
	/* The new cluster's 12-frame path: how many are above, then the last 4;
	 * the top list's clusters have none (hangar show has them). */
	has(md, "\n**1. `d40000000000`** StackKey path, 12 frames, the last 4 (reports, total ms):\n"
		"```\n       2       1584  #9\n");
	has(md, "       2       1578        #12   <- StackKey\n```\n");
	assert_null(strstr(md, "`d10000000000`** StackKey path"));
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

/* ---- JSON ---- */

struct json {
	hg_json_doc *doc;
	char *text;
};

static struct json parse(char *text)
{
	struct json j = {NULL, text};
	size_t end = 0;
	if (hg_json_parse(text, strlen(text), &j.doc, &end) != 0)
		fail_msg("not JSON at %zu:\n%s", end, text);
	assert_int_equal(hg_json_type(hg_json_root(j.doc)), HG_JSON_OBJECT);
	return j;
}

static void release(struct json *j)
{
	hg_json_doc_destroy(j->doc);
	free(j->text);
}

/* The node at a path of keys and [indexes]: "top.0.hash". */
static const hg_json *at(const struct json *j, const char *path)
{
	const hg_json *n = hg_json_root(j->doc);
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *save = NULL, *part = strtok_r(buf, ".", &save); part;
	     part = strtok_r(NULL, ".", &save)) {
		if (hg_json_type(n) == HG_JSON_ARRAY) {
			long i = strtol(part, NULL, 10);
			n = hg_json_first(n);
			while (n && i-- > 0)
				n = hg_json_next(n);
		} else {
			n = hg_json_get(n, part);
		}
		if (!n)
			fail_msg("no %s (at %s)", path, part);
	}
	return n;
}

static int64_t num(const struct json *j, const char *path)
{
	int64_t v = 0;
	if (hg_json_int64(j->doc, at(j, path), &v) != 0)
		fail_msg("%s is not an integer", path);
	return v;
}

static const char *str(const struct json *j, const char *path)
{
	const char *s = hg_json_string(at(j, path));
	if (!s)
		fail_msg("%s is not a string", path);
	return s;
}

static size_t count(const struct json *j, const char *path)
{
	return hg_json_count(at(j, path));
}

static void test_json(void **state)
{
	struct fx *f = *state;
	hg_digest_run run = run_of(f, two_runs(f));
	int64_t fresh = -1;
	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, &fresh));
	assert_int_equal(fresh, 1);
	assert_int_equal(num(&j, "digest_version"), 3);
	assert_false(hg_json_true(at(&j, "baseline")));
	assert_int_equal(num(&j, "min_count"), 1);
	assert_int_equal(num(&j, "run.rejected_before"), 0);
	assert_string_equal(str(&j, "source"), "s3://bucket/prefix/");
	assert_string_equal(str(&j, "started"), f->started);
	assert_string_equal(str(&j, "finished"), "2999-01-01T00:00:00.000Z");
	assert_int_equal(num(&j, "first_report_id"), 6);
	assert_int_equal(num(&j, "top_limit"), 3);
	assert_int_equal(num(&j, "threshold"), 50);
	assert_int_equal(num(&j, "run.new_reports"), 6);
	assert_int_equal(num(&j, "run.duplicates"), 2);
	assert_int_equal(num(&j, "run.rejected"), 1);
	assert_int_equal(num(&j, "run.objects.listed"), 9);
	assert_int_equal(num(&j, "run.objects.fetched"), 3);
	assert_int_equal(num(&j, "run.objects.skipped"), 5);
	assert_int_equal(num(&j, "run.objects.failed"), 1);

	assert_int_equal(num(&j, "totals.run"), 6);
	assert_int_equal(num(&j, "totals.all"), 12);
	assert_int_equal(count(&j, "totals.by_kind"), 3);
	assert_string_equal(str(&j, "totals.by_kind.0.kind"), "slow_method");
	assert_int_equal(num(&j, "totals.by_kind.0.run"), 4);
	assert_int_equal(num(&j, "totals.by_kind.0.all"), 9);
	assert_string_equal(str(&j, "totals.by_kind.2.kind"), "anr");
	assert_int_equal(num(&j, "totals.by_kind.2.run"), 0);

	assert_int_equal(count(&j, "top.clusters"), 3);
	assert_int_equal(num(&j, "top.total"), 3);
	char hash[33];
	snprintf(hash, sizeof hash, "d1%030d", 0);
	assert_string_equal(str(&j, "top.clusters.0.hash"), hash);
	assert_string_equal(str(&j, "top.clusters.0.kind"), "slow_method");
	assert_string_equal(str(&j, "top.clusters.0.title"), "deep one");
	assert_string_equal(str(&j, "top.clusters.0.stack_key.symbol"), "#12");
	assert_int_equal(num(&j, "top.clusters.0.count"), 5);
	assert_int_equal(num(&j, "top.clusters.0.run_count"), 1);
	assert_int_equal(count(&j, "top.clusters.0.by_version"), 2);
	assert_string_equal(str(&j, "top.clusters.0.by_version.0.value"), "1.0");
	assert_int_equal(num(&j, "top.clusters.0.by_version.0.count"), 4);
	assert_string_equal(str(&j, "top.clusters.0.by_version.1.value"), "1.1");
	assert_int_equal(num(&j, "top.clusters.0.by_version.1.count"), 1);
	assert_string_equal(str(&j, "top.clusters.0.first_seen"), "2026-11-28T10:00:00.000Z");
	assert_int_equal(num(&j, "top.clusters.0.cost.p50"), 100);
	assert_int_equal(num(&j, "top.clusters.0.cost.p90"), 100);
	assert_int_equal(num(&j, "top.clusters.0.key_path.depth"), 12);
	assert_int_equal(count(&j, "top.clusters.0.key_path.nodes"), 4);
	assert_int_equal(num(&j, "top.clusters.0.key_path.nodes.0.depth"), 8);
	assert_int_equal(num(&j, "top.clusters.0.key_path.nodes.3.depth"), 11);
	assert_string_equal(str(&j, "top.clusters.0.key_path.nodes.3.symbol"), "#12");
	assert_int_equal(num(&j, "top.clusters.0.key_path.nodes.3.reports"), 5);
	assert_int_equal(num(&j, "top.clusters.0.key_path.nodes.3.total_cost"), 445);
	assert_true(hg_json_true(at(&j, "top.clusters.0.key_path.ends_at_stack_key")));
	/* the unknown version is null, not a version named "unknown" */
	assert_int_equal(count(&j, "top.clusters.1.by_version"), 3);
	assert_string_equal(str(&j, "top.clusters.1.by_version.0.value"), "1.1");
	assert_null(hg_json_string(at(&j, "top.clusters.1.by_version.2.value")));
	assert_int_equal(num(&j, "top.clusters.1.by_version.2.count"), 1);
	assert_null(hg_json_get(at(&j, "top.clusters.0"), "old"));

	assert_int_equal(num(&j, "new.total"), 1);
	snprintf(hash, sizeof hash, "d4%030d", 0);
	assert_string_equal(str(&j, "new.clusters.0.hash"), hash);
	assert_int_equal(num(&j, "new.clusters.0.count"), 2);
	assert_int_equal(num(&j, "new.clusters.0.run_count"), 2);
	assert_int_equal(num(&j, "new.clusters.0.cost.p90"), 900);
	assert_int_equal(num(&j, "regressed.total"), 1);
	snprintf(hash, sizeof hash, "d2%030d", 0);
	assert_string_equal(str(&j, "regressed.clusters.0.hash"), hash);
	assert_int_equal(num(&j, "regressed.clusters.0.old.count"), 1);
	assert_int_equal(num(&j, "regressed.clusters.0.new.count"), 3);
	assert_int_equal(num(&j, "regressed.clusters.0.old.cost.p90"), 200);
	assert_int_equal(num(&j, "regressed.clusters.0.new.cost.p90"), 220);

	assert_int_equal(num(&j, "failed_objects.total"), 1);
	assert_string_equal(str(&j, "failed_objects.objects.0.key"), "2026/11/28/x.json.gz");
	assert_string_equal(str(&j, "failed_objects.objects.0.error"), "HTTP 503 | slow down");
	assert_int_equal(num(&j, "failed_objects.objects.0.attempts"), 1);
	assert_int_equal(num(&j, "rejected.total"), 1);
	assert_string_equal(str(&j, "rejected.inputs.0.source"), "s3://bucket/prefix/y.json");
	assert_int_equal(num(&j, "rejected.inputs.0.line"), 7);
	assert_string_equal(str(&j, "rejected.inputs.0.reason"), "expected a value");
	release(&j);
}

/* ---- nothing to tell ---- */

static void test_empty_store(void **state)
{
	struct fx *f = *state;
	hg_digest_run run = {.first_report_id = 0};
	int64_t fresh = -1;
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	assert_int_equal(fresh, 0);
	has(md, "- **Source:** (none)\n");
	has(md, "No new reports in this run.\n");
	has(md, "The store holds no reports yet.\n");
	has(md, "## Top 10 clusters (all time, by count)\n\nNo clusters yet.\n");
	/* Nothing before: a baseline, and a local source says no objects. */
	has(md, "## Baseline\n\n0 clusters, baseline: the store held no reports before this run");
	assert_null(strstr(md, "## New clusters"));
	assert_null(strstr(md, "**Objects:**"));
	has(md, "## Failed fetches\n\nNone.\n");
	has(md, "## Rejected inputs\n\nNone.\n");
	free(md);

	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	assert_int_equal(hg_json_type(at(&j, "source")), HG_JSON_NULL);
	assert_int_equal(num(&j, "top_limit"), 10);
	assert_true(hg_json_true(at(&j, "baseline")));
	assert_int_equal(hg_json_type(at(&j, "run.objects")), HG_JSON_NULL);
	assert_int_equal(num(&j, "totals.all"), 0);
	assert_int_equal(count(&j, "totals.by_kind"), 0);
	assert_int_equal(count(&j, "top.clusters"), 0);
	assert_int_equal(num(&j, "new.total"), 0);
	assert_int_equal(num(&j, "regressed.total"), 0);
	assert_int_equal(num(&j, "failed_objects.total"), 0);
	assert_int_equal(num(&j, "rejected.total"), 0);
	release(&j);

	hg_buf b;
	hg_buf_init(&b);
	run.first_report_id = -1;
	assert_int_equal(hg_digest_write(f->store, &run, HG_DIGEST_JSON, &b, NULL), HG_EINVAL);
	run.first_report_id = 0;
	run.threshold = -1;
	assert_int_equal(hg_digest_write(f->store, &run, HG_DIGEST_JSON, &b, NULL), HG_EINVAL);
	run.threshold = 0;
	assert_int_equal(hg_digest_write(f->store, &run, (enum hg_digest_format)7, &b, NULL),
			 HG_EINVAL);
	hg_buf_release(&b);
}

/* A run that stored nothing new: first_report_id is the last id. */
static void test_nothing_new(void **state)
{
	struct fx *f = *state;
	two_runs(f);
	hg_digest_run run = run_of(f, 12);
	run.new_reports = 0;
	int64_t fresh = -1;
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	assert_int_equal(fresh, 0);
	has(md, "No new reports in this run.\n");
	has(md, "| **total** | 0 | 12 |\n");
	has(md, "| 1 | `d10000000000` |"); /* the top list is all time */
	has(md, "No new clusters in this run.\n");
	has(md, "No regressions in this run.\n");
	free(md);
	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	assert_int_equal(num(&j, "totals.run"), 0);
	assert_int_equal(num(&j, "top.clusters.0.run_count"), 0);
	assert_int_equal(num(&j, "new.total"), 0);
	release(&j);
}

/* ---- a digest a person reads: bounded, and a baseline first ---- */

static size_t lines_of(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A big night: 40 new clusters, 40 regressed ones, 40 rejected inputs and
 * 40 failed objects, all with deep paths.  The Markdown stays within two
 * screens and says how many more the JSON holds; the JSON holds them all. */
static void test_length_bound(void **state)
{
	struct fx *f = *state;
	for (int c = 0; c < 40; c++)
		add(f, 100 + c, "NORMAL", "1.0", 100, 30, "old");
	int64_t before = f->n;
	now_ms(f->started);
	assert_int_equal(hg_store_begin(f->store), 0);
	for (int c = 0; c < 40; c++)
		for (int k = 0; k < 3; k++)
			add(f, 100 + c, "NORMAL", "1.1", 100, 30, "old"); /* 1 -> 3 */
	for (int c = 0; c < 40; c++)
		add(f, 200 + c, "LAG", "1.1", 700, 30, "fresh");
	char key[32], text[32];
	for (int i = 0; i < 40; i++) {
		snprintf(key, sizeof key, "2026/11/28/%02d.json.gz", i);
		hg_object_row o = {.source = "s3://b/", .key = key, .size = 1, .status = "failed",
				   .error = "HTTP 500"};
		assert_int_equal(hg_store_object_put(f->store, &o), 0);
		snprintf(text, sizeof text, "{bad %d", i);
		assert_int_equal(hg_store_add_rejected(f->store, "s3://b/x.json", i + 1, "not JSON",
						       text, strlen(text)), 0);
	}
	assert_int_equal(hg_store_commit(f->store), 0);
	hg_digest_run run = run_of(f, before);
	run.top = 10; /* the CLI's default: Markdown shows 5 of them */
	int64_t fresh = -1;
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	assert_int_equal(fresh, 40);
	size_t lines = lines_of(md);
	if (lines > 160) /* 150 before the missing-mappings section */
		fail_msg("the digest is %zu lines:\n%s", lines, md);
	has(md, "…and 35 more (every one is in the JSON digest");
	assert_non_null(strstr(md, "| 5 | `d20400000000` |"));
	assert_null(strstr(md, "| 6 | `d20500000000` |"));
	free(md);

	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	assert_int_equal(num(&j, "new.total"), 40);
	assert_int_equal(count(&j, "new.clusters"), 40);
	assert_int_equal(num(&j, "regressed.total"), 40);
	assert_int_equal(count(&j, "regressed.clusters"), 40);
	assert_int_equal(count(&j, "rejected.inputs"), 40);
	assert_int_equal(count(&j, "failed_objects.objects"), 40);
	release(&j);
}

/* The first run into an empty store is a baseline: nothing new, nothing
 * regressed, whatever --fail-on-new would say. */
static void test_baseline(void **state)
{
	struct fx *f = *state;
	two_runs(f);
	hg_digest_run run = run_of(f, 0);
	int64_t fresh = -1;
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	assert_int_equal(fresh, 0);
	has(md, "## Baseline\n\n4 clusters, baseline: the store held no reports before this run");
	assert_null(strstr(md, "## New clusters"));
	assert_null(strstr(md, "## Regressed"));
	has(md, "| 1 | `d10000000000` |"); /* the top list is there */
	free(md);
	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	assert_true(hg_json_true(at(&j, "baseline")));
	assert_int_equal(num(&j, "new.total"), 0);
	assert_int_equal(num(&j, "regressed.total"), 0);
	assert_int_equal(num(&j, "totals.run"), 12);
	release(&j);
}

/* ---- the real corpus in two nights ---- */

/* The hash of a cluster with `before` reports up to id first and `after`
 * reports past it (the first such, by hash), or "" when there is none. */
static void cluster_with(struct fx *f, int64_t first, int before, int after, char hash[33])
{
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT coalesce((SELECT cluster FROM reports GROUP BY cluster"
		 " HAVING sum(id <= %lld) = %d AND sum(id > %lld) = %d ORDER BY cluster LIMIT 1), '')",
		 (long long)first, before, (long long)first, after);
	sql_text(f->path, sql, hash, 33);
}

static void test_real_nights(void **state)
{
	struct fx *f = *state;
	/* Night 1: a baseline, whatever it holds. */
	real_night(f, testdata, 1, 301);
	int64_t first = last_id(f);
	assert_true(first > 250);
	hg_digest_run run = {.source = "reports/", .first_report_id = 0, .compare_after_id = -1,
			     .min_count = 5, .min_rise = 2, .threshold = 50};
	int64_t fresh = -1;
	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	assert_int_equal(fresh, 0);
	has(md, "## Baseline\n\n");
	has(md, " clusters, baseline: the store held no reports before this run");
	assert_null(strstr(md, "## New clusters"));
	assert_null(strstr(md, "## Regressed"));
	free(md);

	/* Night 2: new and regressed clusters, cut to fit a screen or two. */
	real_night(f, testdata, 301, 582);
	run.first_report_id = first;
	md = write_digest(f, &run, HG_DIGEST_MARKDOWN, &fresh);
	size_t lines = lines_of(md);
	if (lines > 160) /* 150 before the missing-mappings section */
		fail_msg("the digest is %zu lines:\n%s", lines, md);
	has(md, "## New clusters\n");
	has(md, "## Regressed clusters (at least 5 reports in this run; count up 2x or p90 up more "
		"than 50%)\n");
	has(md, "more (every one is in the JSON digest");
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT cluster FROM reports GROUP BY cluster"
		 " HAVING min(id) > %lld)", (long long)first);
	assert_int_equal(fresh, sql_int(f->path, sql));
	assert_true(fresh > 5);
	free(md);

	/* The JSON keeps every one, and each regressed one obeys the rule. */
	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	assert_int_equal(num(&j, "new.total"), fresh);
	assert_int_equal(count(&j, "new.clusters"), (size_t)fresh);
	int64_t regressed = num(&j, "regressed.total");
	assert_true(regressed > 0);
	assert_int_equal(count(&j, "regressed.clusters"), (size_t)regressed);
	char path[64];
	for (int64_t i = 0; i < regressed; i++) {
		snprintf(path, sizeof path, "regressed.clusters.%lld", (long long)i);
		const hg_json *c = at(&j, path);
		int64_t old_n = 0, new_n = 0, old_p90 = 0, new_p90 = 0;
		hg_json_int64(j.doc, hg_json_get(hg_json_get(c, "old"), "count"), &old_n);
		hg_json_int64(j.doc, hg_json_get(hg_json_get(c, "new"), "count"), &new_n);
		hg_json_int64(j.doc, hg_json_get(hg_json_get(hg_json_get(c, "old"), "cost"), "p90"), &old_p90);
		hg_json_int64(j.doc, hg_json_get(hg_json_get(hg_json_get(c, "new"), "cost"), "p90"), &new_p90);
		assert_true(new_n >= 5);
		assert_true(new_n >= 2 * old_n || (old_n >= 5 && 2 * new_p90 > 3 * old_p90));
	}
	/* A real cluster with 1 report before and 2 in the run: no regression
	 * with the defaults, one with --min-count 1. */
	char hash[33];
	cluster_with(f, first, 1, 2, hash);
	assert_int_equal(strlen(hash), 32);
	assert_null(strstr(j.text, hash));
	release(&j);
	run.min_count = 1;
	j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	assert_non_null(strstr(j.text, hash));
	release(&j);
}

/* ---- hostile text ---- */

static const char hostile[] = "a|b`c\nd\"e\\f\x01g<h>*i_[j]\r\t\x7f\xff end";

static void test_hostile(void **state)
{
	struct fx *f = *state;
	f->key = hostile;
	add(f, 1, "NORMAL", "1.0", 100, 2, hostile);
	f->key = NULL;
	assert_int_equal(hg_store_add_rejected(f->store, "x|y`\n.json", 1, hostile, "z", 1), 0);
	hg_object_row o = {.source = "s3://b/", .key = hostile, .size = -1, .status = "failed",
			   .error = hostile};
	assert_int_equal(hg_store_object_put(f->store, &o), 0);
	hg_digest_run run = {.source = "s3://b/|`x`", .first_report_id = 0, .threshold = 50};

	char *md = write_digest(f, &run, HG_DIGEST_MARKDOWN, NULL);
	const char escaped[] = "a\\|b\\`c d\"e\\\\f\xef\xbf\xbdg\\<h\\>\\*i\\_\\[j\\]  "
			       "\xef\xbf\xbd\xef\xbf\xbd end";
	has(md, "- **Source:** s3://b/\\|\\`x\\`\n");
	has(md, escaped);
	has(md, "| x\\|y\\` .json | 1 | ");
	/* Every table row has its header's columns: no cell leaks a | or a
	 * line break.  A header is a table line after a line that is not. */
	size_t expect = 0;
	for (const char *line = md; *line;) {
		const char *eol = strchr(line, '\n');
		assert_non_null(eol);
		size_t bars = 0;
		for (const char *p = line; p < eol; p++)
			bars += *p == '|' && (p == line || p[-1] != '\\');
		if (*line != '|')
			expect = 0;
		else if (!expect)
			expect = bars;
		else
			assert_int_equal(bars, expect);
		line = eol + 1;
	}
	for (const char *p = md; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\n');
	free(md);

	struct json j = parse(write_digest(f, &run, HG_DIGEST_JSON, NULL));
	/* Read back as written but for the bytes that are not UTF-8. */
	const char back[] = "a|b`c\nd\"e\\f\x01g<h>*i_[j]\r\t\x7f\xef\xbf\xbd end";
	assert_string_equal(str(&j, "top.clusters.0.title"), back);
	assert_string_equal(str(&j, "top.clusters.0.stack_key.symbol"), back);
	assert_string_equal(str(&j, "failed_objects.objects.0.key"), back);
	assert_string_equal(str(&j, "failed_objects.objects.0.error"), back);
	assert_string_equal(str(&j, "rejected.inputs.0.reason"), back);
	assert_string_equal(str(&j, "rejected.inputs.0.source"), "x|y`\n.json");
	assert_string_equal(str(&j, "source"), "s3://b/|`x`");
	release(&j);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_markdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_length_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_nights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
