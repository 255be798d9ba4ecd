/* A cluster's page (store_page.c, schema 9's report_facts): breakdowns
 * with their unknowns and the values past a cap summed as other, ties in
 * a fixed order, days in day order with the untimed first, variants with
 * their newest report as sample, first and last version by time; and the
 * same counts as hg_store_cluster_counts gives for the dimensions both
 * know.  Reports are small Matrix JSON texts, all in one cluster. */
#include "store_fixture.h"

/* A slow-method report of path 1 > 2 > (3 or 4): the variant. */
static void add(struct store_tmp *f, int n, const char *machine, int api, const char *version,
		const char *time, int leaf)
{
	char text[1024];
	char api_field[32] = "";
	if (api)
		snprintf(api_field, sizeof api_field, "\"api-level\":%d,", api);
	snprintf(text, sizeof text,
		 "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"NORMAL\",\"cost\":900,"
		 "\"stack\":\"0,1,1,900\\n1,2,1,800\\n2,%d,1,700\\n\",\"scene\":\"a.S\","
		 "\"process\":\"a.app\",%s%s%s%s\"appVersion\":\"%s\",\"time\":\"%s\",\"n\":%d}}",
		 leaf, api_field, machine ? "\"machine\":\"" : "", machine ? machine : "",
		 machine ? "\"," : "", version, time, n);
	hg_report *rep = read_report("mem.json", text, strlen(text));
	assert_non_null(rep);
	hg_signature sig = {0};
	snprintf(sig.hash, sizeof sig.hash, "%032x", 7u);
	const char *frames[] = {"a.B.c"};
	sig.family = "slow_method";
	sig.title = sig.key_symbol = "a.B.c";
	sig.frames = frames;
	sig.n_frames = 1;
	bool dup;
	assert_int_equal(hg_store_add_report(f->store, rep, &sig, text, strlen(text), &dup), 0);
	assert_false(dup);
	hg_report_destroy(rep);
}

static const hg_breakdown *dim(const hg_cluster_page *p, const char *by)
{
	for (size_t i = 0; i < HG_PAGE_DIMS; i++)
		if (!strcmp(hg_page_dims[i], by))
			return &p->dims[i];
	fail_msg("no dimension %s", by);
	return NULL;
}

static void want_value(const hg_breakdown *b, size_t i, const char *value, int64_t count)
{
	assert_true(i < b->n);
	if (value)
		assert_string_equal(b->values[i].value, value);
	else
		assert_null(b->values[i].value);
	assert_int_equal(b->values[i].count, count);
}

static void test_page(void **state)
{
	struct store_tmp *f = *state;
	char hash[33];
	snprintf(hash, sizeof hash, "%032x", 7u);
	/* classes: 3 BAD, 2 HIGH, 2 LOW, 1 MIDDLE, 1 unknown; API 29 x4, 33 x3,
	 * none x2; versions 1.0 (the older times) and 1.1; variants: leaf 3 x5,
	 * leaf 4 x4; one report without a time */
	add(f, 1, "BAD", 29, "1.0", "2026-11-01T10:00:00Z", 3);
	add(f, 2, "BAD", 29, "1.0", "2026-11-01T11:00:00Z", 3);
	add(f, 3, "BAD", 33, "1.0", "2026-11-02T10:00:00Z", 4);
	add(f, 4, "HIGH", 33, "1.1", "2026-11-03T10:00:00Z", 3);
	add(f, 5, "HIGH", 29, "1.1", "2026-11-03T11:00:00Z", 4);
	add(f, 6, "LOW", 33, "1.1", "2026-11-03T12:00:00Z", 3);
	add(f, 7, "LOW", 29, "1.1", "2026-11-03T13:00:00Z", 4);
	add(f, 8, "MIDDLE", 0, "1.1", "2026-11-03T14:00:00Z", 3);
	add(f, 9, NULL, 0, "1.1", "", 4);
	hg_cluster_page p;
	assert_int_equal(hg_store_cluster_page(f->store, hash, 2, &p), 0);
	assert_int_equal(p.count, 9);
	const hg_breakdown *cls = dim(&p, "device_class");
	/* BAD 3, then HIGH and LOW tied at 2 by name; MIDDLE and unknown past the cap */
	assert_int_equal(cls->n, 2);
	want_value(cls, 0, "BAD", 3);
	want_value(cls, 1, "HIGH", 2);
	assert_int_equal(cls->other, 4);
	assert_int_equal(cls->unknown, 1);
	assert_int_equal(cls->total, 9);
	const hg_breakdown *os = dim(&p, "os");
	want_value(os, 0, "Android 10 (API 29)", 4);
	want_value(os, 1, "Android 13 (API 33)", 3);
	assert_int_equal(os->other, 2);
	const hg_breakdown *ver = dim(&p, "version");
	want_value(ver, 0, "1.1", 6);
	want_value(ver, 1, "1.0", 3);
	assert_string_equal(p.first_version, "1.0");
	assert_string_equal(p.last_version, "1.1");
	/* days: untimed first, then in order (not by count) */
	assert_int_equal(p.days.n, 4);
	want_value(&p.days, 0, NULL, 1);
	want_value(&p.days, 1, "2026-11-01", 2);
	want_value(&p.days, 3, "2026-11-03", 5);
	/* no dump: no blocker, every report unknown */
	assert_int_equal(p.blockers.unknown, 9);
	/* variants: 3 > 4 by count; the sample is each one's newest report */
	assert_int_equal(p.n_variants, 2);
	assert_int_equal(p.variants[0].count, 5);
	assert_int_equal(p.variants[1].count, 4);
	assert_int_equal(p.variants[0].sample_line, 1);
	assert_non_null(p.variants[0].entry);
	assert_string_not_equal(p.variants[0].variant, p.variants[1].variant);
	hg_cluster_page_release(&p);

	/* no cap: every value, each as hg_store_cluster_counts counts it */
	assert_int_equal(hg_store_cluster_page(f->store, hash, 0, &p), 0);
	assert_int_equal(dim(&p, "device_class")->n, 5);
	want_value(dim(&p, "device_class"), 4, "MIDDLE", 1);
	want_value(dim(&p, "device_class"), 3, NULL, 1); /* unknown first among equals */
	hg_cluster_page_release(&p);

	/* a cluster with no report: an empty page, not an error */
	assert_int_equal(hg_store_cluster_page(f->store, "00000000000000000000000000000000", 0, &p), 0);
	assert_int_equal(p.count, 0);
	assert_int_equal(p.n_variants, 0);
	assert_null(p.first_version);
	hg_cluster_page_release(&p);
}

static int setup(void **state)
{
	return store_tmp_setup(state, "/tmp/hg-page-XXXXXX", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_page, setup, store_tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
