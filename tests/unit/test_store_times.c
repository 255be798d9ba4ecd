/* Report times through the store, on the real corpus (testdata/anr,
 * blockcanary, java-stacks, kscrash: see their READMEs): every report
 * whose source carries a time keeps it; clusters' first/last seen are
 * report times, never the ingest time; --since leaves an old ANR and a
 * report of unknown time out; a version-6 store (times SQLite could not
 * read stored as unknown, last_seen the ingest time) is migrated. */
#include "store_fixture.h"

#include "hangar/cluster.h"
#include "hangar/report.h"

static const char *testdata = "testdata";

static int setup(void **state)
{
	return store_tmp_setup(state, "/tmp/hg-times-XXXXXX", 1);
}

/* Each corpus file with a time, and that time in UTC (worked out by hand
 * from the header quoted). */
static const struct {
	const char *file, *time;
} timed[] = {
	/* ----- pid 28941 at 2023-04-04 22:06:31.064728684+0200 ----- */
	{"anr/android13-emu-main-blocked-held-by-thread.txt", "2023-04-04T20:06:31.064Z"},
	{"anr/android13-emu-appexit-main-sleeping.txt", "2023-08-15T14:54:17.525Z"},
	{"anr/android12-emu-appexit-broadcast-receiver-sleeping.txt", "2023-10-05T10:11:47.498Z"},
	/* the pid section's time, not the Waiting Channels' before it */
	{"anr/android13-emu-native-only-waiting-channels.txt", "2023-07-04T12:51:23.352Z"},
	{"anr/android14-emu-appexit-input-dispatching-main-runnable-ondraw.txt",
	 "2024-02-13T10:43:44.465Z"},
	{"anr/android17-preview-emu-appexit-broadcast-r8-obfuscated.txt", "2026-08-13T01:17:28.450Z"},
	/* only "Waiting Channels: pid 12233 at 2024-11-13 19:48:09.980104540+0530" */
	{"anr/appexit-subject-input-dispatching-waiting-channels-only.txt",
	 "2024-11-13T14:18:09.980Z"},
	/* no fraction, no zone: taken as UTC */
	{"anr/android11-x86-emu-appexit-main-native-with-injected-notes.txt",
	 "2025-03-27T21:02:38.000Z"},
	/* xCrash: Crash time: '2019-10-12T03:25:25.645+0800' */
	{"anr/xcrash-android10-pixel-arm64-anr-tombstone.txt", "2019-10-11T19:25:25.645Z"},
	{"anr/xcrash-android10-pixel-armv7-anr-tombstone.txt", "2019-10-11T19:31:17.003Z"},
	{"java-stacks/xcrash-android10-pixel-java-crash-all-threads.txt", "2019-10-11T19:23:25.533Z"},
	/* time-start = 10-29 10:32:12.601, its year from "2017-10-29 10:32:17(write log time)" */
	{"blockcanary/issue113-mi3w-api19-excerpt.log", "2017-10-29T10:32:12.601Z"},
	{"blockcanary/issue114-t68-api23-excerpt.log", "2017-11-14T22:51:13.247Z"},
	/* KSCrash: ISO strings and integer microseconds; SentryCrash seconds */
	{"kscrash/kscrash-2.0-main-thread-deadlock-ios4-iphone4.json", "1970-01-17T18:49:14.000Z"},
	{"kscrash/kscrash-3.7-hang-ios26-sim.json", "2025-12-09T21:29:13.629Z"},
	{"kscrash/kscrash-3.7-watchdog-8badf00d-ios26-sim.json", "2025-12-09T21:23:41.501Z"},
	{"kscrash/kscrash-3.7-startup-profile-ios26-sim.json", "2025-12-18T17:57:39.071Z"},
	{"kscrash/sentrycrash-ios10-iphone7plus-user-report.json", "2016-12-14T14:53:27.000Z"},
	{"kscrash/sentrycrash-ios15-iphone12-swift-fatal-error.json", "2021-12-28T09:45:53.000Z"},
};
#define N_TIMED (sizeof timed / sizeof *timed)

/* The README's example of ANR-WatchDog: a Java stack with no time at all. */
#define UNTIMED "java-stacks/anr-watchdog-readme-deadlock-example.txt"

struct one {
	hg_report *rep;
};

static int keep(void *user, hg_report *rep)
{
	struct one *o = user;
	if (!o->rep && !rep->error)
		o->rep = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

/* Reads a corpus file from its path (as ingest does) and stores it; its
 * cluster's hash in hash. */
static void ingest(struct store_tmp *f, const char *rel, char hash[33])
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, rel);
	struct one o = {0};
	assert_true(hg_reports_read_path(&f->ctx, path, rel, HG_FORMAT_AUTO, keep, &o) >= 0);
	if (!o.rep)
		fail_msg("%s: no report read", rel);
	hg_signature sig;
	assert_int_equal(hg_signature_compute(o.rep, NULL, o.rep->arena, &sig), 0);
	bool dup = true;
	assert_non_null(o.rep->text);
	assert_int_equal(hg_store_add_report(f->store, o.rep, &sig, o.rep->text, o.rep->text_len,
					     &dup), 0);
	assert_false(dup);
	if (hash)
		snprintf(hash, 33, "%s", sig.hash);
	hg_report_destroy(o.rep);
}

static void ingest_all(struct store_tmp *f)
{
	for (size_t i = 0; i < N_TIMED; i++)
		ingest(f, timed[i].file, NULL);
	ingest(f, UNTIMED, NULL);
}

static void report_time(struct store_tmp *f, const char *rel, char out[64])
{
	char sql[600];
	snprintf(sql, sizeof sql, "SELECT coalesce(time, 'NULL') FROM reports WHERE source = '%s'",
		 rel);
	sql_text(f->path, sql, out, 64);
}

static void test_corpus_times_kept(void **state)
{
	struct store_tmp *f = *state;
	ingest_all(f);
	for (size_t i = 0; i < N_TIMED; i++) {
		char got[64];
		report_time(f, timed[i].file, got);
		if (strcmp(got, timed[i].time) != 0)
			fail_msg("%s: stored time %s, want %s", timed[i].file, got, timed[i].time);
	}
	char got[64];
	report_time(f, UNTIMED, got);
	assert_string_equal(got, "NULL");
	/* As written, too. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports WHERE time_written ="
				 " '2023-04-04 22:06:31.064728684+0200'"), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports WHERE time_written ="
				 " '10-29 10:32:12.601'"), 1);
	/* Every cluster's first and last seen are its reports' times, NULL
	 * when none has one: never the ingest time. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters c WHERE"
				 " first_seen IS NOT (SELECT min(time) FROM reports r WHERE r.cluster = c.hash)"
				 " OR last_seen IS NOT (SELECT max(time) FROM reports r WHERE r.cluster = c.hash)"),
			 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters c WHERE last_seen IN"
				 " (SELECT ingested_at FROM reports)"), 0);
}

struct listed {
	const char *hash;
	bool seen;
	const char *last_seen;
	char last[40];
};

static int find(void *user, const hg_cluster_row *row)
{
	struct listed *l = user;
	if (strcmp(row->hash, l->hash) == 0) {
		l->seen = true;
		snprintf(l->last, sizeof l->last, "%s", row->last_seen ? row->last_seen : "NULL");
	}
	return 0;
}

static bool listed(struct store_tmp *f, const char *hash, const char *since, const char *until,
		   char last[40])
{
	struct listed l = {.hash = hash};
	hg_top_query q = {.since = since, .until = until};
	assert_int_equal(hg_store_top(f->store, &q, find, &l), 0);
	if (last)
		snprintf(last, 40, "%s", l.last);
	return l.seen;
}

/* top --since 7d must not list a 2023 ANR: here --since 2024-01-01 (a
 * fixed date, so the test does not age). */
static void test_since_leaves_old_reports_out(void **state)
{
	struct store_tmp *f = *state;
	char old[33], recent[33], untimed[33], last[40];
	ingest(f, "anr/android13-emu-main-blocked-held-by-thread.txt", old);
	ingest(f, "anr/android14-emu-appexit-input-dispatching-main-runnable-ondraw.txt", recent);
	ingest(f, UNTIMED, untimed);
	assert_string_not_equal(old, recent);
	assert_true(listed(f, old, NULL, NULL, last));
	assert_string_equal(last, "2023-04-04T20:06:31.064Z");
	assert_false(listed(f, old, "2024-01-01", NULL, NULL));
	assert_true(listed(f, recent, "2024-01-01", NULL, last));
	assert_string_equal(last, "2024-02-13T10:43:44.465Z");
	assert_true(listed(f, old, "2023-04-04T20:06:31.064Z", "2023-04-05", NULL));
	assert_false(listed(f, recent, NULL, "2023-12-31", NULL));
	/* --since in a report's own form, zone and nanoseconds (the CLI
	 * reads it with hg_store_time) */
	char since[32];
	assert_int_equal(hg_store_time(f->store, "2023-04-04 22:06:31.064728684+0200", since), 0);
	assert_string_equal(since, "2023-04-04T20:06:31.064Z");
	assert_true(listed(f, old, since, NULL, NULL));
	assert_int_equal(hg_store_time(f->store, "2023-04-04 22:06:31.065+0200", since), 0);
	assert_false(listed(f, old, since, NULL, NULL));
	/* unknown time: listed without a window (last_seen NULL), in none */
	assert_true(listed(f, untimed, NULL, NULL, last));
	assert_string_equal(last, "NULL");
	assert_false(listed(f, untimed, "1970-01-01", NULL, NULL));
	assert_false(listed(f, untimed, NULL, "9999-01-01", NULL));
}

struct sides {
	const char *hash;
	int64_t old_n, new_n;
	bool seen;
};

static int diff_row(void *user, const hg_diff_row *row)
{
	struct sides *s = user;
	if (strcmp(row->hash, s->hash) == 0) {
		s->seen = true;
		s->old_n = row->old_count;
		s->new_n = row->new_count;
	}
	return 0;
}

/* diff by time windows: a report of unknown time is in neither. */
static void test_diff_windows(void **state)
{
	struct store_tmp *f = *state;
	char old[33], untimed[33];
	ingest(f, "anr/android13-emu-main-blocked-held-by-thread.txt", old);
	ingest(f, UNTIMED, untimed);
	hg_diff_query q = {.since = "2024-01-01"};
	struct sides s = {.hash = old};
	hg_diff_totals t;
	assert_int_equal(hg_store_diff(f->store, &q, diff_row, &s, &t), 0);
	assert_int_equal(t.old_reports, 1); /* the dated one, before since */
	assert_int_equal(t.new_reports, 0); /* not the untimed one */
	assert_false(s.seen); /* an empty new set says nothing is gone */
	s = (struct sides){.hash = untimed};
	assert_int_equal(hg_store_diff(f->store, &q, diff_row, &s, NULL), 0);
	assert_false(s.seen);
}

/* A version-6 store, as hangar wrote it before times were read: ART and
 * xCrash times unknown (time NULL, the text in time_written), first/last
 * seen the ingest time, NOT NULL.  Opening it migrates it. */
static void test_migrates_schema_6(void **state)
{
	struct store_tmp *f = *state;
	char art[33], untimed[33];
	ingest(f, "anr/android13-emu-main-blocked-held-by-thread.txt", art);
	ingest(f, "anr/xcrash-android10-pixel-arm64-anr-tombstone.txt", NULL);
	ingest(f, UNTIMED, untimed);
	hg_store_close(f->store);
	f->store = NULL;
	sql_exec(f->path,
		"UPDATE reports SET time = NULL, ingested_at = '2026-11-30T10:00:00.000Z'"
		"  WHERE time_written LIKE '%+0%';"
		"DROP VIEW tree;"
		"CREATE TABLE c6 (id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE,"
		"  kind TEXT NOT NULL, title TEXT NOT NULL, key_symbol TEXT, frames TEXT NOT NULL,"
		"  grouping_version INTEGER NOT NULL, first_seen TEXT NOT NULL,"
		"  last_seen TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0,"
		"  symbolicated INTEGER NOT NULL);"
		"INSERT INTO c6 SELECT id, hash, kind, title, key_symbol, frames, grouping_version,"
		"  '2026-11-30T10:00:00.000Z', '2026-11-30T10:00:00.000Z', count, symbolicated"
		"  FROM clusters;"
		"DROP TABLE clusters;"
		"ALTER TABLE c6 RENAME TO clusters;"
		"CREATE VIEW tree AS SELECT json_extract(n.value, '$[0]') AS id, c.hash AS cluster,"
		"  json_extract(n.value, '$[1]') AS parent, s.text AS symbol,"
		"  json_extract(n.value, '$[3]') AS reports, json_extract(n.value, '$[4]') AS total_cost,"
		"  json_extract(n.value, '$[5]') AS max_cost, json_extract(n.value, '$[6]') AS self_cost,"
		"  json_extract(n.value, '$[7]') AS on_key_path"
		"  FROM trees t JOIN clusters c ON c.id = t.cluster JOIN json_each(t.nodes) n"
		"  JOIN symbols s ON s.id = json_extract(n.value, '$[2]');"
		"PRAGMA user_version = 6;");
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports WHERE time IS NULL"), 3);
	int64_t nodes = sql_int(f->path, "SELECT count(*) FROM tree");
	assert_true(nodes > 0);

	assert_int_equal(hg_store_open(&f->ctx, f->path, &f->store), 0);
	assert_int_equal(hg_store_check(f->store), 0);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
	/* the times read again from what was written */
	char got[64];
	report_time(f, "anr/android13-emu-main-blocked-held-by-thread.txt", got);
	assert_string_equal(got, "2023-04-04T20:06:31.064Z");
	report_time(f, "anr/xcrash-android10-pixel-arm64-anr-tombstone.txt", got);
	assert_string_equal(got, "2019-10-11T19:25:25.645Z");
	report_time(f, UNTIMED, got);
	assert_string_equal(got, "NULL");
	/* first/last seen from them; the untimed cluster's unknown */
	char sql[200], seen[64];
	snprintf(sql, sizeof sql, "SELECT first_seen || ' ' || last_seen FROM clusters WHERE hash = '%s'",
		 art);
	sql_text(f->path, sql, seen, sizeof seen);
	assert_string_equal(seen, "2023-04-04T20:06:31.064Z 2023-04-04T20:06:31.064Z");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM clusters WHERE hash = '%s' AND"
		 " first_seen IS NULL AND last_seen IS NULL", untimed);
	assert_int_equal(sql_int(f->path, sql), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters WHERE"
				 " last_seen = '2026-11-30T10:00:00.000Z'"), 0);
	/* the columns may be NULL now; ids and trees kept */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM pragma_table_info('clusters')"
				 " WHERE name IN ('first_seen', 'last_seen') AND \"notnull\" = 0"), 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM tree"), nodes);
	/* and the store takes new reports */
	ingest(f, "kscrash/kscrash-3.7-hang-ios26-sim.json", NULL);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 4);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_corpus_times_kept, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_since_leaves_old_reports_out, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_diff_windows, setup, store_tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrates_schema_6, setup, store_tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
