/* Matrix's FPS and startup figures and EvilMethod ENTER, as seed 002 (an
 * early TracePlugin walkthrough) defines them, from the reader to the
 * store: a startup's total worked out as StartUpTracer's allCost (or the
 * total the report gives), an FPS report's frames and frozen/high share,
 * bad figures warned about by name while the rest is read, ENTER's view
 * info and its older stackKey line; then the store's figures table: top's
 * startup totals and FPS frame rates (never a cost of 0 for FPS), by
 * version and scene, diff by version, and a schema-7 store migrated with
 * its figures read again.  argv[1] is the testdata/ folder
 * (testdata/seeds/matrix-android/). */
#include <math.h>

#include "hangar/cluster.h"
#include "store_fixture.h"

static const char *testdata = "testdata";

/* ---- reading ---- */

struct got {
	hg_report *rep[16];
	size_t n, errors;
};

static int keep_all(void *user, hg_report *rep)
{
	struct got *g = user;
	g->errors += rep->error != NULL;
	if (g->n < 16)
		g->rep[g->n++] = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void release(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		hg_report_destroy(g->rep[i]);
	g->n = 0;
}

/* Every report of a sample file (seeds/matrix-android/name). */
static void read_sample(const char *name, struct got *g)
{
	char path[512];
	snprintf(path, sizeof path, "%s/seeds/matrix-android/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	*g = (struct got){0};
	assert_true(hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, keep_all, g) >= 0);
	assert_int_equal(g->errors, 0);
}

static void read_text(const char *text, struct got *g)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	*g = (struct got){0};
	assert_true(hg_reports_read(&ctx, "mem.json", text, strlen(text), keep_all, g) >= 0);
}

static const char *stat_value(const hg_report *r, const char *group, const char *name)
{
	for (size_t i = 0; i < r->n_stats; i++)
		if (!strcmp(r->stats[i].group, group) && !strcmp(r->stats[i].name, name))
			return r->stats[i].value;
	return NULL;
}

static void assert_stat(const hg_report *r, const char *group, const char *name, const char *want)
{
	const char *v = stat_value(r, group, name);
	if (!v || strcmp(v, want) != 0)
		fail_msg("%s.%s: want \"%s\", got \"%s\"", group, name, want, v ? v : "(none)");
}

/* Whether some warning of r contains each needle. */
static void assert_warned(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return;
	fail_msg("no warning says \"%s\" (%zu warnings)", needle, r->warnings.len);
}

/* The article's own startup report: a cold start, its total the three
 * stages (allCost), the between stage kept as a figure too. */
static void test_startup_cold_total(void **state)
{
	(void)state;
	struct got g;
	read_sample("startup-cold.json", &g);
	assert_int_equal(g.n, 1);
	const hg_report *r = g.rep[0];
	assert_int_equal(r->kind, HG_KIND_STARTUP);
	assert_int_equal(r->cost, 655);
	assert_false(r->cost_unknown);
	assert_stat(r, "startup", "application_create", "415");
	assert_stat(r, "startup", "stage_between_app_and_activity", "0");
	assert_stat(r, "startup", "first_activity_create", "240");
	assert_stat(r, "startup", "start", "cold");
	assert_stat(r, "startup", "total", "655");
	assert_stat(r, "startup", "total_from",
		    "application_create + stage_between_app_and_activity + first_activity_create");
	assert_int_equal(r->warnings.len, 0);
	release(&g);
}

/* A warm start is its first activity's creation; a total the report
 * gives (later Matrix's startup_duration) wins over the stages. */
static void test_startup_warm_and_given_total(void **state)
{
	(void)state;
	struct got g;
	read_text("{\"tag\":\"Trace_StartUp\",\"scene\":\"a.Main\",\"application_create\":415,"
		  "\"stage_between_app_and_activity\":0,\"first_activity_create\":180,"
		  "\"is_warm_start_up\":true}\n"
		  "{\"tag\":\"Trace_StartUp\",\"scene\":\"a.Main\",\"application_create\":415,"
		  "\"first_activity_create\":1510,\"startup_duration\":2233,\"is_warm_start_up\":false}\n"
		  "{\"tag\":\"Trace_StartUp\",\"scene\":\"a.Main\",\"application_create\":415,"
		  "\"first_activity_create\":240}\n",
		  &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.rep[0]->cost, 180);
	assert_stat(g.rep[0], "startup", "start", "warm");
	assert_stat(g.rep[0], "startup", "total_from", "first_activity_create");
	assert_int_equal(g.rep[1]->cost, 2233);
	assert_stat(g.rep[1], "startup", "total_from", "startup_duration");
	/* no between stage and no start kind: the cold sum, the kind unknown */
	assert_int_equal(g.rep[2]->cost, 655);
	assert_null(stat_value(g.rep[2], "startup", "start"));
	release(&g);
}

/* The article's FPS report: its frames are dropLevel's counts (147; the
 * early tracer leaves DROPPED_FROZEN out), 4 of them high; no cost. */
static void test_fps_frames_and_share(void **state)
{
	(void)state;
	struct got g;
	read_sample("fps.json", &g);
	const hg_report *r = g.rep[0];
	assert_int_equal(r->kind, HG_KIND_FPS);
	assert_true(r->cost_unknown);
	assert_stat(r, "fps", "fps", "24.476625442504883");
	assert_stat(r, "fps", "frames", "147");
	assert_stat(r, "fps", "frozen_high_share", "0.0272");
	assert_stat(r, "dropLevel", "DROPPED_HIGH", "4");
	assert_stat(r, "dropSum", "DROPPED_MIDDLE", "96");
	release(&g);
}

/* Out of range and wrong-typed figures: a warning naming each field, the
 * rest read, no report lost. */
static void test_bad_figures_warned(void **state)
{
	(void)state;
	struct got g;
	read_sample("bad-figures.ndjson", &g);
	assert_int_equal(g.n, 6);
	hg_report **r = g.rep;
	assert_warned(r[0], "field \"application_create\": -415 ms is out of range");
	assert_warned(r[0], "the startup's total is unknown");
	assert_true(r[0]->cost_unknown);
	assert_stat(r[0], "startup", "first_activity_create", "240");
	assert_warned(r[1], "field \"first_activity_create\": 99999999999 ms is out of range");
	assert_warned(r[1], "field \"stage_between_app_and_activity\": expected whole ms, got \"0\"");
	assert_warned(r[1], "field \"is_warm_start_up\": expected true or false, got \"false\"");
	assert_stat(r[1], "startup", "application_create", "415");
	assert_warned(r[2], "field \"dropLevel\": expected an object of counts, got [4,12,18,113]");
	assert_warned(r[2], "field \"dropSum.DROPPED_MIDDLE\": expected a count");
	assert_warned(r[2], "field \"dropSum.DROPPED_NORMAL\": expected a count");
	assert_warned(r[2], "field \"fps\": expected a number, got \"NaN\"");
	assert_stat(r[2], "dropSum", "DROPPED_HIGH", "60");
	assert_null(stat_value(r[2], "fps", "frames"));
	assert_warned(r[3], "field \"fps\": -24.5 is out of range");
	assert_stat(r[3], "fps", "frames", "147");
	assert_warned(r[4], "field \"viewInfo.viewDeep\": expected a count");
	assert_warned(r[4], "field \"viewInfo.viewCount\": expected a count");
	assert_warned(r[4], "field \"viewInfo.activity\": expected an activity name");
	assert_int_equal(r[4]->kind, HG_KIND_ACTIVITY_ENTER);
	assert_true(r[4]->has_method_stack);
	assert_warned(r[5], "field \"viewInfo\": expected an object");
	release(&g);
}

/* EvilMethod ENTER: kind activity_enter, its view info as figures, the
 * activity as its scene, and the older stackKey "0,30,1,56\n" taken as the
 * line of the stack it is (method 30 at depth 0), without a warning. */
static void test_enter_view_info_and_old_key(void **state)
{
	(void)state;
	struct got g;
	read_sample("evil-method-enter.json", &g);
	const hg_report *r = g.rep[0];
	assert_int_equal(r->kind, HG_KIND_ACTIVITY_ENTER);
	assert_string_equal(hg_report_kind_name(r->kind), "activity_enter");
	assert_string_equal(r->scene, "TestFpsActivity");
	assert_stat(r, "viewInfo", "viewDeep", "10");
	assert_stat(r, "viewInfo", "viewCount", "6");
	assert_stat(r, "viewInfo", "activity", "TestFpsActivity");
	assert_int_equal(r->trimmed.len, 11);
	assert_true(r->key_index >= 0);
	const hg_method_item *k = &r->trimmed.items[r->key_index];
	assert_int_equal(k->id, 30);
	assert_int_equal(k->depth, 0);
	assert_string_equal(hg_report_stack_key_text(r), "30|");
	for (size_t i = 0; i < r->warnings.len; i++)
		assert_null(strstr(r->warnings.items[i], "stackKey"));
	release(&g);
	/* a key line the stack does not hold is said */
	read_text("{\"detail\":\"ENTER\",\"cost\":900,\"stack\":\"0,30,1,56\\n\","
		  "\"stackKey\":\"0,31,1,56\\n\",\"tag\":\"Trace_EvilMethod\"}", &g);
	assert_warned(g.rep[0], "a line the stack does not hold");
	release(&g);
}

/* ---- the store ---- */

static int setup(void **state)
{
	return store_tmp_setup(state, "/tmp/hg-figures-XXXXXX", 0);
}

/* Ingests a sample's reports with their real signatures. */
static void ingest(struct store_tmp *f, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/seeds/matrix-android/%s", testdata, name);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	char line[4096];
	while (fgets(line, sizeof line, fp)) {
		size_t len = strlen(line);
		hg_report *rep = read_report(name, line, len);
		hg_arena *arena = hg_arena_create();
		hg_signature sig;
		assert_int_equal(hg_signature_compute(rep, NULL, arena, &sig), 0);
		bool dup = true;
		assert_int_equal(hg_store_add_report(f->store, rep, &sig, line, len, &dup), 0);
		assert_false(dup);
		hg_arena_destroy(arena);
		hg_report_destroy(rep);
	}
	fclose(fp);
}

struct clusters {
	char kind[4][16];
	int64_t count[4], cost_reports[4], p50[4], p90[4];
	bool has_fig[4];
	hg_figures fig[4];
	size_t n;
};

static int take_cluster(void *user, const hg_cluster_row *c)
{
	struct clusters *s = user;
	assert_true(s->n < 4);
	snprintf(s->kind[s->n], 16, "%s", c->kind);
	s->count[s->n] = c->count;
	s->cost_reports[s->n] = c->cost_reports;
	s->p50[s->n] = c->cost_p50;
	s->p90[s->n] = c->cost_p90;
	if ((s->has_fig[s->n] = c->figures != NULL))
		s->fig[s->n] = *c->figures;
	s->n++;
	return 0;
}

/* The startup and FPS clusters of startups.ndjson and fps.ndjson. */
static void top_two(struct store_tmp *f, struct clusters *c, const char *version)
{
	*c = (struct clusters){0};
	hg_top_query q = {.sort = "count", .version = version};
	assert_int_equal(hg_store_top(f->store, &q, take_cluster, c), 0);
	assert_int_equal(c->n, 2);
	assert_string_equal(c->kind[0], "startup"); /* 7 reports, then 4 */
	assert_string_equal(c->kind[1], "fps");
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-6)
		fail_msg("want %.6f, got %.6f", want, got);
}

/* Totals 180 642 655 824 | 210 1078 1170; fps 24.48 55.2 | 18.3 21.1. */
static void assert_all_figures(const struct clusters *c)
{
	assert_int_equal(c->count[0], 7);
	assert_int_equal(c->cost_reports[0], 7);
	assert_int_equal(c->p50[0], 655);
	assert_int_equal(c->p90[0], 1170);
	assert_true(c->has_fig[0]);
	assert_int_equal(c->fig[0].startups, 7);
	assert_int_equal(c->fig[0].cold, 5);
	assert_int_equal(c->fig[0].warm, 2);
	assert_int_equal(c->fig[0].total_p90, 1170);
	/* FPS: no cost, never 0 ms */
	assert_int_equal(c->count[1], 4);
	assert_int_equal(c->cost_reports[1], 0);
	assert_int_equal(c->fig[1].unmeasured, 4);
	assert_int_equal(c->fig[1].fps_reports, 4);
	assert_near(c->fig[1].fps_mean, (24.476625442504883 + 55.2 + 18.3 + 21.1) / 4);
	assert_int_equal(c->fig[1].frames, 147 + 308 + 126 + 130);
	assert_int_equal(c->fig[1].frozen, 4);
	assert_int_equal(c->fig[1].high, 20);
	assert_near(c->fig[1].frozen_high_share, 24.0 / 711);
}

static void test_store_top_figures(void **state)
{
	struct store_tmp *f = *state;
	ingest(f, "startups.ndjson");
	ingest(f, "fps.ndjson");
	struct clusters c;
	top_two(f, &c, NULL);
	assert_all_figures(&c);
	/* one version: its own totals and frame rate */
	top_two(f, &c, "1.0.0");
	assert_int_equal(c.p50[0], 642);
	assert_int_equal(c.p90[0], 824);
	assert_near(c.fig[1].fps_mean, (24.476625442504883 + 55.2) / 2);
}

struct groups {
	char value[4][64];
	hg_figures f[4];
	size_t n;
};

static int take_group(void *user, const char *value, const hg_figures *fig)
{
	struct groups *g = user;
	assert_true(g->n < 4);
	snprintf(g->value[g->n], 64, "%s", value ? value : "(none)");
	g->f[g->n++] = *fig;
	return 0;
}

static const char *cluster_of(struct store_tmp *f, const char *kind, char hash[33])
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT hash FROM clusters WHERE kind = '%s'", kind);
	sql_text(f->path, sql, hash, 33);
	return hash;
}

/* Startup totals p50/p90 and FPS frame rates per version and per scene. */
static void test_store_figures_by_version(void **state)
{
	struct store_tmp *f = *state;
	ingest(f, "startups.ndjson");
	ingest(f, "fps.ndjson");
	char hash[33];
	struct groups g = {0};
	assert_int_equal(hg_store_cluster_figures(f->store, cluster_of(f, "startup", hash),
						  "version", take_group, &g), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.value[0], "1.0.0");
	assert_int_equal(g.f[0].total_p50, 642);
	assert_int_equal(g.f[0].total_p90, 824);
	assert_int_equal(g.f[0].warm, 1);
	assert_string_equal(g.value[1], "1.1.0");
	assert_int_equal(g.f[1].total_p50, 1078);
	assert_int_equal(g.f[1].total_p90, 1170);
	g = (struct groups){0};
	assert_int_equal(hg_store_cluster_figures(f->store, cluster_of(f, "fps", hash), "scene",
						  take_group, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.value[0], "sample.tencent.matrix.trace.TestFpsActivity");
	assert_int_equal(g.f[0].frames, 711);
	assert_int_equal(hg_store_cluster_figures(f->store, hash, "device", take_group, &g),
			 HG_EINVAL);
}

struct diffs {
	char kind[4][16];
	hg_diff_row row[4];
	size_t n;
};

static int take_diff(void *user, const hg_diff_row *r)
{
	struct diffs *d = user;
	assert_true(d->n < 4);
	snprintf(d->kind[d->n], 16, "%s", r->kind);
	d->row[d->n] = *r;
	d->row[d->n++].hash = NULL; /* borrowed */
	return 0;
}

/* 1.0.0 -> 1.1.0: the startup's p90 total rose (824 -> 1170), the frame
 * rate fell (39.8 -> 19.7 fps) and its frozen/high share rose. */
static void test_store_diff_figures(void **state)
{
	struct store_tmp *f = *state;
	ingest(f, "startups.ndjson");
	ingest(f, "fps.ndjson");
	hg_diff_query q = {.baseline_version = "1.0.0", .version = "1.1.0", .min_count = 1,
			   .min_rise = 2, .threshold = 20};
	struct diffs d = {0};
	assert_int_equal(hg_store_diff(f->store, &q, take_diff, &d, NULL), 0);
	assert_int_equal(d.n, 2);
	for (size_t i = 0; i < 2; i++) {
		const hg_diff_row *r = &d.row[i];
		assert_string_equal(r->status, "regressed");
		if (!strcmp(d.kind[i], "startup")) {
			assert_false(r->cost_unknown);
			assert_int_equal(r->old_p90, 824);
			assert_int_equal(r->new_p90, 1170);
		} else {
			assert_true(r->cost_unknown);
			assert_int_equal(r->old_fps_reports, 2);
			assert_near(r->old_fps, (24.476625442504883 + 55.2) / 2);
			assert_near(r->new_fps, 19.7);
			assert_near(r->old_share, 5.0 / 455);
			assert_near(r->new_share, 19.0 / 256);
		}
	}
}

static int take_sample(void *user, const hg_report_row *r)
{
	int *unknown = user;
	*unknown += !r->cost_known;
	return 0;
}

/* A store of schema 7 (no figures table; startups stored with cost 0)
 * migrates: every count kept, the figures read again from the reports'
 * texts, a startup's total its cost again. */
static void test_migrate_schema_7(void **state)
{
	struct store_tmp *f = *state;
	ingest(f, "startups.ndjson");
	ingest(f, "fps.ndjson");
	hg_store_close(f->store);
	f->store = NULL;
	sql_exec(f->path, "DROP TABLE figures; UPDATE reports SET cost = 0;"
			  " PRAGMA user_version = 7;");
	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 11);
	assert_int_equal(sql_int(f->path, "SELECT sum(count) FROM clusters"), 11);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM figures"), 11);
	struct clusters c;
	top_two(f, &c, NULL);
	assert_all_figures(&c);
	char hash[33];
	int unknown = 0;
	assert_int_equal(hg_store_reports(f->store, cluster_of(f, "fps", hash), 10, take_sample,
					  &unknown), 0);
	assert_int_equal(unknown, 4);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_startup_cold_total),
		cmocka_unit_test(test_startup_warm_and_given_total),
		cmocka_unit_test(test_fps_frames_and_share),
		cmocka_unit_test(test_bad_figures_warned),
		cmocka_unit_test(test_enter_view_info_and_old_key),
		cmocka_unit_test_setup_teardown(test_store_top_figures, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_store_figures_by_version, setup,
						store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_store_diff_figures, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_schema_7, setup, store_tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
