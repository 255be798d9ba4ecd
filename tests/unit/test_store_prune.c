/* hangar prune in the store (store_prune.c): a store of reports over 30
 * days in four clusters, pruned to 7 days with 2 samples per cluster at a
 * fixed now: exactly the expected reports are left (the samples are each
 * cluster's newest old ones, ties by id; a report without a time is aged
 * by its ingest time), their report_facts and figures rows go with them,
 * every other table (clusters, trees, symbols, objects, rollups, ...) is
 * untouched, pruned_before is set and never moves back, a second run drops
 * nothing, a dry run changes nothing, and small batches give the same
 * store.  Then the file shrinks: a new store by incremental vacuum, a
 * store made without it (auto_vacuum NONE) by one VACUUM. */
#include <sys/stat.h>

#include "store_fixture.h"

#define NOW "2024-06-01T00:00:00.000Z"
#define NOW_MS 1717200000000LL /* NOW in epoch milliseconds */
#define DAY_MS 86400000LL
#define HOUR_MS 3600000LL

struct fx {
	hg_ctx ctx;
	char dir[64], path[96];
	char labels[4096];  /* every report added, in id order: "id:label " */
	int n;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	hg_ctx_init(&f->ctx);
	assert_int_equal(store_tmp_make(f->dir, f->path, "/tmp/hg-prune-XXXXXX"), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	store_tmp_remove(f->dir, f->path);
	free(f);
	return 0;
}

/* ---- reports ---- */

/* Adds one slow method of cluster c (its StackKey: method 100 + c) at
 * time ms (0: none) labelled label (its scene), padded with pad bytes that
 * do not compress. */
static void add(struct fx *f, hg_store *st, int c, int64_t ms, const char *label, size_t pad)
{
	char *noise = calloc(1, pad + 1);
	assert_non_null(noise);
	static uint64_t x = 88172645463325252ULL;
	for (size_t i = 0; i < pad; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		noise[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[x % 36];
	}
	char time[48] = "";
	if (ms)
		snprintf(time, sizeof time, ",\"time\":%lld", (long long)ms);
	size_t cap = pad + 1024;
	char *text = malloc(cap);
	assert_non_null(text);
	int len = snprintf(text, cap,
		"{\"tag\":\"Trace_EvilMethod\",\"type\":0,\"content\":{\"detail\":\"NORMAL\","
		"\"cost\":900,\"scene\":\"%s\",\"stack\":\"0,1048574,1,900\\n1,%d,1,880\\n2,%d,1,800\\n\","
		"\"stackKey\":\"%d|\",\"process\":\"com.example\",\"noise\":\"%s\"%s}}",
		label, 50 + c, 100 + c, 100 + c, noise, time);
	hg_report *rep = read_report("r.json", text, (size_t)len);
	hg_signature sig;
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
	bool dup = true;
	assert_int_equal(hg_store_add_report(st, rep, &sig, text, (size_t)len, &dup), 0);
	assert_false(dup);
	hg_report_destroy(rep);
	free(text);
	free(noise);
	size_t used = strlen(f->labels);
	snprintf(f->labels + used, sizeof f->labels - used, "%d:%s ", ++f->n, label);
}

/* An FPS report (a figures row) at ms, all of one cluster (FPS reports
 * are grouped by scene). */
static void add_fps(struct fx *f, hg_store *st, int64_t ms, const char *label)
{
	char text[512];
	int len = snprintf(text, sizeof text,
		"{\"tag\":\"Trace_FPS\",\"type\":0,\"content\":{\"scene\":\"Feed\",\"fps\":41.5,"
		"\"dropLevel\":{\"DROPPED_FROZEN\":1,\"DROPPED_HIGH\":2,\"DROPPED_BEST\":50},"
		"\"process\":\"com.example\",\"time\":%lld}}", (long long)ms);
	hg_report *rep = read_report("fps.json", text, (size_t)len);
	hg_signature sig;
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
	bool dup = true;
	assert_int_equal(hg_store_add_report(st, rep, &sig, text, (size_t)len, &dup), 0);
	hg_report_destroy(rep);
	size_t used = strlen(f->labels);
	snprintf(f->labels + used, sizeof f->labels - used, "%d:%s ", ++f->n, label);
}

/* d days and an hour before NOW: d <= 6 is within 7 days of it. */
static int64_t days_ago(int d)
{
	return NOW_MS - d * DAY_MS - HOUR_MS;
}

/* The store: clusters A and B with a report each day 0..29 (B three on
 * day 7, at the same time: a tie), C only from day 10 on (all old), an FPS
 * cluster on days 20..22, and in A two reports without a time, one
 * ingested long ago (set behind the store's back) and one now; two
 * rejected inputs, one recorded long ago; an object. */
static void fill(struct fx *f)
{
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(hg_store_begin(st), 0);
	char label[32];
	for (int d = 29; d >= 0; d--) {
		snprintf(label, sizeof label, "A%02d", d);
		add(f, st, 0, days_ago(d), label, 0);
		snprintf(label, sizeof label, "B%02d", d);
		add(f, st, 1, days_ago(d), label, 0);
		if (d == 7) { /* three at one time: the two added last are newest */
			add(f, st, 1, days_ago(d), "B07b", 0);
			add(f, st, 1, days_ago(d), "B07c", 0);
		}
		if (d >= 10) {
			snprintf(label, sizeof label, "C%02d", d);
			add(f, st, 2, days_ago(d), label, 0);
		}
		if (d >= 20 && d <= 22) {
			snprintf(label, sizeof label, "F%02d", d);
			add_fps(f, st, days_ago(d), label);
		}
	}
	add(f, st, 0, 0, "Aold", 0);
	add(f, st, 0, 0, "Anew", 0);
	assert_int_equal(hg_store_commit(st), 0);
	assert_int_equal(hg_store_add_rejected(st, "bad.json", 1, "not JSON", "x{", 2), 0);
	assert_int_equal(hg_store_add_rejected(st, "bad.json", 2, "not JSON", "y{", 2), 0);
	hg_object_row o = {"s3://b/", "k.json", "e", 10, NULL, "ingested", 3, NULL, 0, NULL};
	assert_int_equal(hg_store_object_put(st, &o), 0);
	hg_store_close(st);
	sql_exec(f->path, "UPDATE reports SET ingested_at = '2024-04-01T00:00:00.000Z'"
			  " WHERE scene = 'Aold';"
			  "UPDATE rejected SET at = '2024-04-01T00:00:00Z' WHERE line = 1");
}

/* ---- the database as text ---- */

/* Every row of table (that passes where), each column quoted, in rowid
 * order. */
static char *dump_table(const char *path, const char *table, const char *where)
{
	char sql[512], cols[2048];
	snprintf(sql, sizeof sql, "SELECT group_concat('quote(' || name || ')', \" || '|' || \")"
		 " FROM pragma_table_info('%s')", table);
	sql_text(path, sql, cols, sizeof cols);
	size_t n = strlen(cols) + 256;
	char *q = malloc(n);
	assert_non_null(q);
	snprintf(q, n, "SELECT coalesce(group_concat(%s, char(10)), '') FROM"
		 " (SELECT * FROM \"%s\" WHERE %s ORDER BY rowid)", cols, table, where);
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	hg_db_stmt *st = db_stmt(db, 0, q);
	if (!st)
		fail_msg("%s: %s", q, db_errmsg(db));
	assert_int_equal(db_step(st), DB_ROW);
	char *out = strdup(db_col_text(st, 0) ? db_col_text(st, 0) : "");
	assert_non_null(out);
	db_reset(st);
	db_close(db);
	free(q);
	return out;
}

/* Every table (all: true) or those prune must not touch, as one text:
 * each table's name and rows; meta without pruned_before; then the
 * schema. */
static char *dump(const char *path, bool all)
{
	hg_buf b;
	hg_buf_init(&b);
	char names[2048];
	sql_text(path, "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master"
		       " WHERE type = 'table' ORDER BY name)", names, sizeof names);
	for (char *t = strtok(names, " "); t; t = strtok(NULL, " ")) {
		bool pruned = !strcmp(t, "reports") || !strcmp(t, "report_facts") ||
			      !strcmp(t, "figures") || !strcmp(t, "rejected");
		if (pruned && !all)
			continue;
		char *rows = dump_table(path, t, !all && !strcmp(t, "meta")
						 ? "key != 'pruned_before'" : "true");
		hg_buf_printf(&b, "== %s\n%s\n", t, rows);
		free(rows);
	}
	char schema[32768];
	sql_text(path, "SELECT group_concat(type || ' ' || name || ' ' || coalesce(sql, ''), char(10))"
		       " FROM (SELECT * FROM sqlite_master ORDER BY name)", schema, sizeof schema);
	hg_buf_printf(&b, "== schema\n%s\n", schema);
	assert_false(b.failed);
	return b.data;
}

/* The reports left, as "id:label " in id order (the labels f gave them
 * as they were added, ids counting from 1). */
static char *labels_left(const struct fx *f)
{
	char ids[4096];
	sql_text(f->path, "SELECT group_concat(id, ' ') FROM (SELECT id FROM reports ORDER BY id)",
		 ids, sizeof ids);
	char *out = calloc(1, 4096);
	assert_non_null(out);
	for (char *t = strtok(ids, " "); t; t = strtok(NULL, " ")) {
		char key[32];
		snprintf(key, sizeof key, " %s:", t);
		char all[sizeof f->labels + 1];
		snprintf(all, sizeof all, " %s", f->labels);
		const char *at = strstr(all, key);
		assert_non_null(at);
		size_t n = strcspn(at + 1, " "), used = strlen(out);
		snprintf(out + used, 4096 - used, "%.*s ", (int)n, at + 1);
	}
	return out;
}

/* The labels of f's reports that a prune at NOW, 7 days, 2 samples
 * leaves: A and B of days 0..6 and their two newest older ones (A07, A08;
 * of B's three on day 7, the two with the larger ids), C's two newest
 * (C10, C11), F20 and F21, and
 * Anew (ingested now); not Aold (ingested long ago, older than A08). */
static bool kept(const char *label)
{
	static const char *const samples[] = {"A07", "A08", "B07b", "B07c", "C10", "C11",
					      "F20", "F21", "Anew"};
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
		if (!strcmp(label, samples[i]))
			return true;
	return (label[0] == 'A' || label[0] == 'B') && label[1] == '0' && label[2] <= '6' &&
	       label[3] == '\0';
}

static void expected_left(const struct fx *f, char *out, size_t size)
{
	char all[4096];
	snprintf(all, sizeof all, "%s", f->labels);
	out[0] = '\0';
	for (char *t = strtok(all, " "); t; t = strtok(NULL, " "))
		if (kept(strchr(t, ':') + 1)) {
			size_t used = strlen(out);
			snprintf(out + used, size - used, "%s ", t);
		}
}

static void prune(struct fx *f, const hg_prune_query *q, hg_prune_stats *s)
{
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(hg_store_prune(st, q, s), 0);
	hg_store_close(st);
}

/* ---- tests ---- */

static void test_prune_keeps_samples(void **state)
{
	struct fx *f = *state;
	fill(f);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters"), 4);
	char *kept_before = dump(f->path, false), *all_before = dump(f->path, true);
	char expect[4096];
	expected_left(f, expect, sizeof expect);

	/* A dry run counts and changes nothing. */
	hg_prune_query q = {.now = NOW, .keep_days = 7, .keep_samples = 2, .dry_run = true};
	hg_prune_stats dry, s;
	prune(f, &q, &dry);
	char *all_after_dry = dump(f->path, true);
	assert_string_equal(all_before, all_after_dry);
	assert_int_equal(dry.bytes_after, -1);

	q.dry_run = false;
	q.batch = 7; /* many batches, samples on their edges */
	prune(f, &q, &s);
	assert_string_equal(s.cutoff, "2024-05-25T00:00:00.000Z");
	assert_string_equal(s.now, NOW);
	char *left = labels_left(f);
	assert_string_equal(left, expect);
	/* A: days 7..29 but 2, and Aold; B: days 7..29, B07b and B07c but
	 * 2; C: days 10..29 but 2; F: 3 but 2. */
	int64_t dropped = 22 + 23 + 18 + 1;
	assert_int_equal(s.reports, dropped);
	assert_int_equal(s.samples, 8);
	assert_int_equal(s.sample_clusters, 2); /* C and the FPS cluster */
	assert_int_equal(s.rejected, 1);
	assert_int_equal(s.reports_left, sql_int(f->path, "SELECT count(*) FROM reports"));
	assert_int_equal(s.n_kinds, 2);
	assert_string_equal(s.kinds[0].kind, "slow_method");
	assert_int_equal(s.kinds[0].reports, dropped - 1);
	assert_string_equal(s.kinds[1].kind, "fps");
	assert_int_equal(s.kinds[1].reports, 1);
	assert_true(s.text_bytes > 0);
	assert_false(s.rewritten);
	/* The dry run said the same. */
	assert_int_equal(dry.reports, s.reports);
	assert_int_equal(dry.text_bytes, s.text_bytes);
	assert_int_equal(dry.samples, s.samples);
	assert_int_equal(dry.sample_clusters, s.sample_clusters);
	assert_int_equal(dry.rejected, s.rejected);
	assert_int_equal(dry.reports_left, s.reports_left);
	assert_int_equal(dry.n_kinds, s.n_kinds);

	/* Their rows went with them; nothing else changed. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM report_facts"), s.reports_left);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM report_facts WHERE report NOT IN"
					  " (SELECT id FROM reports)"), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM figures"), 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM figures WHERE report NOT IN"
					  " (SELECT id FROM reports)"), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM rejected WHERE line = 2"), 1);
	char *kept_after = dump(f->path, false);
	assert_string_equal(kept_before, kept_after);
	char mark[64];
	sql_text(f->path, "SELECT value FROM meta WHERE key = 'pruned_before'", mark, sizeof mark);
	assert_string_equal(mark, "2024-05-25T00:00:00.000Z");

	/* Again: nothing more goes, the same samples stay. */
	hg_prune_stats again;
	q.batch = 0;
	prune(f, &q, &again);
	assert_int_equal(again.reports, 0);
	assert_int_equal(again.rejected, 0);
	assert_int_equal(again.samples, 8);
	char *left_again = labels_left(f);
	assert_string_equal(left_again, expect);

	/* An earlier cutoff never moves pruned_before back. */
	hg_prune_stats earlier;
	q.keep_days = 20;
	prune(f, &q, &earlier);
	sql_text(f->path, "SELECT value FROM meta WHERE key = 'pruned_before'", mark, sizeof mark);
	assert_string_equal(mark, "2024-05-25T00:00:00.000Z");

	hg_prune_stats_release(&dry);
	hg_prune_stats_release(&s);
	hg_prune_stats_release(&again);
	hg_prune_stats_release(&earlier);
	free(kept_before);
	free(all_before);
	free(all_after_dry);
	free(kept_after);
	free(left);
	free(left_again);
}

/* No samples: every old report goes, and clusters left without any
 * count as holding only samples (none). */
static void test_no_samples(void **state)
{
	struct fx *f = *state;
	fill(f);
	hg_prune_query q = {.now = NOW, .keep_days = 7, .keep_samples = 0};
	hg_prune_stats s;
	prune(f, &q, &s);
	assert_int_equal(s.samples, 0);
	assert_int_equal(s.sample_clusters, 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 2 * 7 + 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters"), 4);
	hg_prune_stats_release(&s);
}

static void test_refuses_bad_queries(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	hg_prune_stats s;
	hg_prune_query q = {.now = "yesterday", .keep_days = 7};
	assert_int_equal(hg_store_prune(st, &q, &s), HG_EINVAL);
	q = (hg_prune_query){.keep_days = -1};
	assert_int_equal(hg_store_prune(st, &q, &s), HG_EINVAL);
	q = (hg_prune_query){.keep_days = 1};
	assert_int_equal(hg_store_begin(st), 0);
	assert_int_equal(hg_store_prune(st, &q, &s), HG_EINVAL);
	assert_int_equal(hg_store_rollback(st), 0);
	hg_store_close(st);
}

static int64_t file_size(const char *path)
{
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	return (int64_t)sb.st_size;
}

/* Most of a store of big texts pruned: the file is smaller after. */
static void shrinks(struct fx *f, bool old_store)
{
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(hg_store_begin(st), 0);
	char label[32];
	for (int i = 0; i < 500; i++) {
		snprintf(label, sizeof label, "S%d", i);
		add(f, st, i % 3, days_ago(i % 30), label, 12000);
	}
	assert_int_equal(hg_store_commit(st), 0);
	hg_store_close(st);
	if (old_store) /* as a store made before prune: no incremental vacuum */
		sql_exec(f->path, "PRAGMA auto_vacuum = NONE; VACUUM");
	assert_int_equal(sql_int(f->path, "PRAGMA auto_vacuum"), old_store ? 0 : 2);
	int64_t before = file_size(f->path);
	hg_prune_query q = {.now = NOW, .keep_days = 3, .keep_samples = 1};
	hg_prune_stats s;
	prune(f, &q, &s);
	int64_t after = file_size(f->path);
	print_message("%s store: %lld -> %lld bytes (%lld -> %lld by pages)\n",
		      old_store ? "an old" : "a new", (long long)before, (long long)after,
		      (long long)s.bytes_before, (long long)s.bytes_after);
	assert_true(s.reports > 400);
	assert_int_equal(s.rewritten, old_store);
	/* What is left is mostly the tables' and indexes' first pages. */
	assert_true(s.bytes_after < s.bytes_before / 2);
	assert_true(after < before / 2);
	assert_int_equal(sql_int(f->path, "PRAGMA auto_vacuum"), 2);
	assert_int_equal(sql_int(f->path, "PRAGMA freelist_count"), 0);
	char ok[16];
	sql_text(f->path, "PRAGMA integrity_check", ok, sizeof ok);
	assert_string_equal(ok, "ok");
	hg_prune_stats_release(&s);
}

static void test_new_store_shrinks(void **state)
{
	shrinks(*state, false);
}

static void test_old_store_rewritten(void **state)
{
	shrinks(*state, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prune_keeps_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_bad_queries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_store_shrinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_store_rewritten, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
