/* hangar diff and hangar regroup in the store: new, regressed and gone
 * clusters by version, by time window, by ingest run (with the
 * threshold) and after a report id; counts by kind and by cluster after an
 * id; regrouping reports ingested without mappings into one
 * cluster with them, without losing a report, and a regroup that changes
 * nothing.  argv[1] is the testdata/ folder (testdata/regroup/). */
#include "hangar/input.h"
#include "store_fixture.h"

static const char *testdata = "testdata";

/* ---- fixture ---- */

static int setup(void **state)
{
	return store_tmp_setup(state, "/tmp/hg-diff-XXXXXX", 0);
}

/* ---- diff: reports with hand-made signatures ---- */

static const char *const frames[] = {"a.B.c"};

/* One report of cluster `which` (hash "c<which>000..."), version, cost, time. */
static void add(struct store_tmp *f, int which, const char *version, int cost, const char *time,
		int n)
{
	char text[512];
	snprintf(text, sizeof text,
		 "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"NORMAL\",\"cost\":%d,"
		 "\"stack\":\"0,1,1,%d\\n\",\"process\":\"a.app\",\"appVersion\":\"%s\","
		 "\"time\":\"%s\",\"n\":%d,\"c\":%d}}",
		 cost, cost, version, time, n, which);
	hg_report *rep = read_report("mem.json", text, strlen(text));
	hg_signature sig = {0};
	snprintf(sig.hash, sizeof sig.hash, "c%d%030d", which, 0);
	sig.family = "slow_method";
	sig.title = which == 1 ? "one" : which == 2 ? "two" : "three";
	sig.frames = (const char **)frames;
	sig.n_frames = 1;
	bool dup = true;
	assert_int_equal(hg_store_add_report(f->store, rep, &sig, text, strlen(text), &dup), 0);
	assert_false(dup);
	hg_report_destroy(rep);
}

struct rows {
	char status[8][12];
	char hash[8][33];
	int64_t old_count[8], new_count[8], old_p90[8], new_p90[8];
	size_t n;
};

static int take(void *user, const hg_diff_row *r)
{
	struct rows *rows = user;
	assert_true(rows->n < 8);
	snprintf(rows->status[rows->n], 12, "%s", r->status);
	snprintf(rows->hash[rows->n], 33, "%s", r->hash);
	rows->old_count[rows->n] = r->old_count;
	rows->new_count[rows->n] = r->new_count;
	rows->old_p90[rows->n] = r->old_p90;
	rows->new_p90[rows->n] = r->new_p90;
	rows->n++;
	return 0;
}

/* Cluster 1 only in 1.0 (gone), 2 in both with 1 -> 3 reports (regressed),
 * 3 only in 1.1 (new). */
static void add_two_versions(struct store_tmp *f)
{
	add(f, 1, "1.0", 100, "2024-01-01 10:00:00", 1);
	add(f, 1, "1.0", 100, "2024-01-01 11:00:00", 2);
	add(f, 2, "1.0", 200, "2024-01-01 12:00:00", 3);
	add(f, 2, "1.1", 200, "2024-02-01 10:00:00", 4);
	add(f, 2, "1.1", 210, "2024-02-01 11:00:00", 5);
	add(f, 2, "1.1", 220, "2024-02-01 12:00:00", 6);
	add(f, 3, "1.1", 300, "2024-02-02 10:00:00", 7);
}

static void assert_three(const struct rows *r)
{
	assert_int_equal(r->n, 3);
	assert_string_equal(r->status[0], "new");
	assert_true(r->hash[0][1] == '3');
	assert_int_equal(r->old_count[0], 0);
	assert_int_equal(r->new_count[0], 1);
	assert_int_equal(r->new_p90[0], 300);
	assert_string_equal(r->status[1], "regressed");
	assert_true(r->hash[1][1] == '2');
	assert_int_equal(r->old_count[1], 1);
	assert_int_equal(r->new_count[1], 3);
	assert_int_equal(r->old_p90[1], 200);
	assert_int_equal(r->new_p90[1], 220);
	assert_string_equal(r->status[2], "gone");
	assert_true(r->hash[2][1] == '1');
	assert_int_equal(r->old_count[2], 2);
	assert_int_equal(r->new_count[2], 0);
}

static void test_by_version(void **state)
{
	struct store_tmp *f = *state;
	add_two_versions(f);
	struct rows r = {0};
	hg_diff_query q = {.baseline_version = "1.0", .version = "1.1", .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_three(&r);

	/* Count 1 -> 3 is not 4x; p90 200 -> 220 is +10%, not beyond 50%. */
	memset(&r, 0, sizeof r);
	q.min_rise = 4;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.status[0], "new");
	assert_string_equal(r.status[1], "gone");

	/* The other way round: 1 was gone, now new; 2 shrank, which is no
	 * regression; 3 is not gone: one report of 1.1's four predicts 0.75 of
	 * 1.0's three, under one, so its absence there says nothing. */
	memset(&r, 0, sizeof r);
	q.baseline_version = "1.1";
	q.version = "1.0";
	q.min_rise = 0;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.status[0], "new");
	assert_true(r.hash[0][1] == '1');

	/* Half a pair of versions is refused. */
	hg_diff_query bad = {.version = "1.1"};
	assert_int_equal(hg_store_diff(f->store, &bad, take, &r, NULL), HG_EINVAL);
}

static void test_by_time(void **state)
{
	struct store_tmp *f = *state;
	add_two_versions(f);
	struct rows r = {0};
	hg_diff_query q = {.since = "2024-02-01", .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_three(&r);

	/* A window [since, until) that ends before cluster 3's report. */
	memset(&r, 0, sizeof r);
	q.until = "2024-02-02";
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.status[0], "regressed");
	assert_string_equal(r.status[1], "gone");
}

static void test_by_ingest_run(void **state)
{
	struct store_tmp *f = *state;
	struct rows r = {0};
	hg_diff_query q = {.threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), HG_EINVAL); /* no run yet */

	assert_int_equal(hg_store_mark_ingest(f->store), 0);
	add(f, 1, "1.0", 100, "2024-03-01 10:00:00", 1);
	add(f, 2, "1.0", 100, "2024-03-01 10:00:00", 2);
	assert_int_equal(hg_store_mark_ingest(f->store), 0);
	/* In the second run's batch, as ingest calls it. */
	assert_int_equal(hg_store_begin(f->store), 0);
	assert_int_equal(hg_store_mark_ingest(f->store), 0);
	add(f, 2, "1.0", 100, "2024-01-01 10:00:00", 3); /* an old time: the run counts */
	add(f, 2, "1.0", 100, "2024-01-01 10:00:00", 4);
	add(f, 3, "1.0", 100, "2024-01-01 10:00:00", 5);
	assert_int_equal(hg_store_commit(f->store), 0);

	char buf[64];
	assert_int_equal(hg_store_meta_get(f->store, "last_ingest_report_id", buf, sizeof buf), 0);
	assert_string_equal(buf, "2");
	/* The run between stored nothing: it left no mark. */
	assert_int_equal(hg_store_meta_get(f->store, "previous_ingest_report_id", buf, sizeof buf), 0);
	assert_string_equal(buf, "0");
	assert_int_equal(hg_store_meta_get(f->store, "last_ingest_started", buf, sizeof buf), 0);
	assert_int_equal(strlen(buf), 24);
	/* Nor does one more run that stores nothing. */
	assert_int_equal(hg_store_mark_ingest(f->store), 0);
	assert_int_equal(hg_store_meta_get(f->store, "last_ingest_report_id", buf, sizeof buf), 0);
	assert_string_equal(buf, "2");
	assert_int_equal(hg_store_meta_get(f->store, "no_such_key", buf, sizeof buf), HG_EINVAL);

	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.status[0], "new");
	assert_true(r.hash[0][1] == '3');
	assert_string_equal(r.status[1], "regressed");
	assert_int_equal(r.old_count[1], 1);
	assert_int_equal(r.new_count[1], 2);
	assert_string_equal(r.status[2], "gone");
	assert_true(r.hash[2][1] == '1');
}

static int take_kind(void *user, const char *kind, int64_t all, int64_t after)
{
	int64_t *n = user;
	assert_string_equal(kind, "slow_method");
	n[0] += all;
	n[1] += after;
	return 0;
}

static void test_by_report_id(void **state)
{
	struct store_tmp *f = *state;
	add_two_versions(f); /* ids 1..7: 1 and 2 in cluster 1, 3..6 in 2, 7 in 3 */
	struct rows r = {0};
	/* After id 3: cluster 2 has 1 report before and 3 after (regressed),
	 * 3 only after (new), 1 only before (gone): no ingest run needed. */
	hg_diff_query q = {.by_report_id = true, .after_report_id = 3, .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_three(&r);

	/* After 0: nothing before to compare with, a baseline: nothing is
	 * new. */
	memset(&r, 0, sizeof r);
	q.after_report_id = 0;
	hg_diff_totals t;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, &t), 0);
	assert_int_equal(r.n, 0);
	assert_true(t.baseline);
	assert_int_equal(t.old_reports, 0);
	assert_int_equal(t.new_reports, 7);
	assert_int_equal(t.new_set_clusters, 3);
	assert_int_equal(t.fresh, 0);
	/* After the last: an empty new set says nothing is gone. */
	memset(&r, 0, sizeof r);
	q.after_report_id = 7;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	q.after_report_id = -1;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), HG_EINVAL);

	int64_t n[2] = {0};
	assert_int_equal(hg_store_kind_totals(f->store, 3, take_kind, n), 0);
	assert_int_equal(n[0], 7);
	assert_int_equal(n[1], 4);
	int64_t count = -1;
	char hash[33];
	snprintf(hash, sizeof hash, "c2%030d", 0);
	assert_int_equal(hg_store_cluster_count_after(f->store, hash, 3, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(hg_store_cluster_count_after(f->store, "nope", 0, &count), 0);
	assert_int_equal(count, 0);
}

/* ---- what counts as regressed ---- */

/* count reports of cluster which at cost, numbered from *n on. */
static void add_many(struct store_tmp *f, int which, int count, int cost, int *n)
{
	for (int i = 0; i < count; i++, (*n)++)
		add(f, which, "1.0", cost, "2024-03-01 10:00:00", *n);
}

static const struct rows *find(const struct rows *r, int which, const char **status)
{
	*status = NULL;
	for (size_t i = 0; i < r->n; i++)
		if (r->hash[i][1] == '0' + which)
			*status = r->status[i];
	return r;
}

static void test_regression_rules(void **state)
{
	struct store_tmp *f = *state;
	int n = 0;
	/* Before (ids 1..15): 1 once, 2 three times, 3 six times, 4 five
	 * times. */
	add_many(f, 1, 1, 100, &n);
	add_many(f, 2, 3, 100, &n);
	add_many(f, 3, 6, 100, &n);
	add_many(f, 4, 5, 100, &n);
	int64_t before = n;
	/* After: 1 twice (1 -> 2: no regression), 2 ten times (a real one), 3
	 * eight times but three times slower (its p90), 4 six times (same
	 * cost, not 2x). */
	add_many(f, 1, 2, 100, &n);
	add_many(f, 2, 10, 100, &n);
	add_many(f, 3, 8, 300, &n);
	add_many(f, 4, 6, 100, &n);
	struct rows r = {0};
	hg_diff_totals t;
	hg_diff_query q = {.by_report_id = true, .after_report_id = before, .min_count = 5,
			   .min_rise = 2, .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, &t), 0);
	const char *status;
	find(&r, 1, &status);
	assert_null(status);
	find(&r, 2, &status);
	assert_non_null(status);
	assert_string_equal(status, "regressed");
	find(&r, 3, &status);
	assert_non_null(status);
	assert_string_equal(status, "regressed");
	find(&r, 4, &status);
	assert_null(status);
	assert_int_equal(r.n, 2);
	assert_false(t.baseline);
	assert_int_equal(t.old_reports, 15);
	assert_int_equal(t.new_reports, 26);
	assert_int_equal(t.regressed, 2);
	assert_int_equal(t.fresh, 0);
	/* The order: the most reports in the new set first. */
	assert_true(r.hash[0][1] == '2');
	assert_int_equal(r.old_count[0], 3);
	assert_int_equal(r.new_count[0], 10);
	assert_int_equal(r.new_p90[1], 300);

	/* Without a minimum count and with any rise, 1 -> 2 is one. */
	memset(&r, 0, sizeof r);
	q.min_count = 0;
	q.min_rise = 0;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	find(&r, 1, &status);
	assert_non_null(status);
	assert_string_equal(status, "regressed");
	/* A cost rise needs min_count reports on both sides: 3 had 6 before. */
	memset(&r, 0, sizeof r);
	q.min_count = 7;
	q.min_rise = 100;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 0);
}

/* Gone needs a new set big enough to miss the cluster: 10 of 20 reports
 * before, none in a new set of 2 (predicts 1, under min_count 5) is not
 * gone; none in a new set of 20 (predicts 10) is. */
static void test_gone_needs_a_big_enough_set(void **state)
{
	struct store_tmp *f = *state;
	int n = 0;
	add_many(f, 1, 10, 100, &n);
	add_many(f, 2, 10, 100, &n);
	int64_t before = n;
	add_many(f, 2, 2, 100, &n);
	struct rows r = {0};
	hg_diff_query q = {.by_report_id = true, .after_report_id = before, .min_count = 5,
			   .min_rise = 3, .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	add_many(f, 2, 18, 100, &n);
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.status[0], "gone");
	assert_true(r.hash[0][1] == '1');
	assert_int_equal(r.old_count[0], 10);
}

/* One night against the night before, not against all the history. */
static void test_compare_previous_run(void **state)
{
	struct store_tmp *f = *state;
	int n = 0;
	add_many(f, 5, 20, 100, &n); /* weeks of history */
	int64_t previous = n;
	add_many(f, 5, 3, 100, &n); /* last night */
	add_many(f, 6, 4, 100, &n);
	int64_t tonight = n;
	add_many(f, 5, 9, 100, &n); /* tonight: 3 -> 9 */
	add_many(f, 7, 5, 100, &n); /* never seen: new */
	struct rows r = {0};
	hg_diff_query q = {.by_report_id = true, .after_report_id = tonight, .min_count = 5,
			   .min_rise = 2, .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	/* Against all 23 before, 9 is no rise; 6 is not gone: 4 of the 27
	 * before predict 2 of tonight's 14, under min_count. */
	assert_int_equal(r.n, 1);
	assert_string_equal(r.status[0], "new");
	assert_true(r.hash[0][1] == '7');

	memset(&r, 0, sizeof r);
	q.compare_after_id = previous;
	assert_int_equal(hg_store_diff(f->store, &q, take, &r, NULL), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.status[0], "new");
	assert_string_equal(r.status[1], "regressed");
	assert_true(r.hash[1][1] == '5');
	assert_int_equal(r.old_count[1], 3);
	assert_int_equal(r.new_count[1], 9);
	assert_string_equal(r.status[2], "gone");

	/* By ingest run, the run before the last is the comparison. */
	sql_exec(f->path, "INSERT OR REPLACE INTO meta(key, value) VALUES"
			  " ('last_ingest_report_id', '27'), ('previous_ingest_report_id', '20')");
	memset(&r, 0, sizeof r);
	hg_diff_query by_run = {.min_count = 5, .min_rise = 2, .threshold = 50};
	assert_int_equal(hg_store_diff(f->store, &by_run, take, &r, NULL), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.status[1], "regressed");
	assert_int_equal(r.old_count[1], 3);
}

/* ---- regroup: reports ingested without mappings ---- */

struct mappings {
	hg_mapping *v10, *v11;
	int calls;
	bool use;          /* false: signatures by ids, as without mappings */
};

static int regroup_cb(void *user, const hg_regroup_item *item, hg_report **out,
		      hg_signature *sig)
{
	struct mappings *m = user;
	m->calls++;
	hg_report *rep = read_report(item->source, item->text, item->len);
	const hg_mapping *map = !m->use || !item->version ? NULL
				: !strcmp(item->version, "1.0") ? m->v10
				: !strcmp(item->version, "1.1") ? m->v11 : NULL;
	hg_report_symbolicate(rep, map);
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, sig), 0);
	*out = rep;
	return 0;
}

static void ingest_file(struct store_tmp *f, const char *rel, char hash[33])
{
	char path[512], *data = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/regroup/%s", testdata, rel);
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	hg_report *rep = read_report(path, data, len);
	hg_signature sig;
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
	assert_false(sig.symbolicated);
	bool dup = true;
	assert_int_equal(hg_store_add_report(f->store, rep, &sig, data, len, &dup), 0);
	assert_false(dup);
	snprintf(hash, 33, "%s", sig.hash);
	hg_report_destroy(rep);
	free(data);
}

static int count_clusters(void *user, const hg_cluster_row *row)
{
	int64_t *n = user;
	n[0]++;
	n[1] += row->count;
	n[2] += row->symbolicated;
	return 0;
}

static int tree_root(void *user, const hg_tree_row *row)
{
	int64_t *reports = user;
	if (row->parent == 0)
		*reports += row->reports;
	return 0;
}

struct biggest {
	char hash[33];
	int64_t count;
};

static int take_biggest(void *user, const hg_cluster_row *row)
{
	struct biggest *b = user;
	if (row->count > b->count) {
		snprintf(b->hash, sizeof b->hash, "%s", row->hash);
		b->count = row->count;
	}
	return 0;
}

static void test_regroup_merges(void **state)
{
	struct store_tmp *f = *state;
	char h10[33], h11[33];
	ingest_file(f, "reports/1.0/slow.json", h10);
	ingest_file(f, "reports/1.1/slow.json", h11);
	assert_string_not_equal(h10, h11); /* renumbered ids: two clusters */
	add(f, 1, "1.0", 100, "2024-03-01 10:00:00", 1); /* another cause, left alone */

	struct mappings m = {0};
	open_regroup_mappings(&f->ctx, testdata, &m.v10, &m.v11);
	hg_regroup_stats s;
	/* Without mappings nothing moves. */
	assert_int_equal(hg_store_regroup(f->store, regroup_cb, &m, &s), 0);
	assert_int_equal(s.reports, 3);
	assert_int_equal(s.clusters_before, 3);
	assert_int_equal(s.clusters_after, 3);
	assert_int_equal(s.moved, 1); /* the hand-made signature of the third one */

	m.use = true;
	assert_int_equal(hg_store_regroup(f->store, regroup_cb, &m, &s), 0);
	assert_int_equal(s.reports, 3);
	assert_int_equal(s.clusters_before, 3);
	assert_int_equal(s.clusters_after, 2);
	assert_int_equal(s.moved, 2);
	assert_int_equal(s.kept, 0);

	int64_t n[3] = {0};
	assert_int_equal(hg_store_top(f->store, NULL, count_clusters, n), 0);
	assert_int_equal(n[0], 2);
	assert_int_equal(n[1], 3); /* no report lost */
	assert_int_equal(n[2], 1); /* the merged one; the other cause has no mapping */
	char hash[33];
	assert_int_equal(hg_store_resolve(f->store, h10, hash), HG_EINVAL); /* deleted */
	assert_int_equal(hg_store_resolve(f->store, h11, hash), HG_EINVAL);

	/* The merged cluster's tree holds both reports. */
	struct biggest b = {{0}, 0};
	assert_int_equal(hg_store_top(f->store, NULL, take_biggest, &b), 0);
	assert_int_equal(b.count, 2);
	int64_t through_roots = 0;
	assert_int_equal(hg_store_cluster_tree(f->store, b.hash, tree_root, &through_roots), 0);
	assert_int_equal(through_roots, 2);

	/* Again: nothing to move. */
	assert_int_equal(hg_store_regroup(f->store, regroup_cb, &m, &s), 0);
	assert_int_equal(s.moved, 0);
	assert_int_equal(s.clusters_after, 2);
	hg_mapping_destroy(m.v10);
	hg_mapping_destroy(m.v11);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_by_version, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_by_time, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_by_ingest_run, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_by_report_id, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_regression_rules, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_gone_needs_a_big_enough_set, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_compare_previous_run, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_regroup_merges, setup, store_tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
