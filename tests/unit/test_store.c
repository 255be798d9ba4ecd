/* The cluster store: schema creation and migration, refusal of foreign,
 * corrupt and newer files, idempotence, cluster aggregates, merged call
 * trees, rejected inputs, and two robustness runs with forked writers
 * (SIGKILL mid-ingest; two ingests at once).  Reports are read from small
 * JSON texts; signatures are filled by hand. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <sys/stat.h>

#include <openssl/evp.h>

#include "store_fixture.h"

/* ---- fixture ---- */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	char last_diag[512];
	size_t n_diags;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	f->n_diags++;
	snprintf(f->last_diag, sizeof f->last_diag, "%s", d->message);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	store_ctx_init(&f->ctx, on_diag, f);
	if (store_tmp_make(f->dir, f->path, "/tmp/hg-store-XXXXXX") != 0)
		return -1;
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

/* ---- reports and signatures ---- */

/* The first good report of text, read as mem.json; unlike read_report
 * (store_fixture.h), no report of text may fail. */
static hg_report *read_report_text(const char *text)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_int_equal(hg_reports_read(&ctx, "mem.json", text, strlen(text), keep_first, &rep), 0);
	assert_non_null(rep);
	return rep;
}

/* A slow-method report: dispatch (1) > 2 > leaf, costs as given. */
static char *method_json(int n, const char *stack, int cost, const char *version,
			 const char *device, const char *scene, const char *time)
{
	char *s = malloc(1024);
	assert_non_null(s);
	int rc = snprintf(s, 1024,
			  "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"NORMAL\","
			  "\"cost\":%d,\"stack\":\"%s\",\"scene\":\"%s\",\"process\":\"a.app\","
			  "\"appVersion\":\"%s\",\"model\":\"%s\",\"time\":\"%s\",\"n\":%d}}",
			  cost, stack, scene, version, device, time, n);
	assert_true(rc > 0 && rc < 1024);
	return s;
}

static const char *const frames2[] = {"a.B.c", "a.B.d", "q\"b\\c\x01"};

static hg_signature fake_sig(int which)
{
	hg_signature sig = {0};
	snprintf(sig.hash, sizeof sig.hash, "%08x%024x", 0xabc00000u + (unsigned)which, 0u);
	sig.family = which % 2 ? "lag" : "slow_method";
	sig.title = "a.B.d";
	sig.key_symbol = "a.B.d";
	sig.frames = (const char **)frames2;
	sig.n_frames = 3;
	sig.symbolicated = false;
	return sig;
}

static int add(hg_store *st, const char *text, int which, bool *dup)
{
	hg_report *rep = read_report_text(text);
	hg_signature sig = fake_sig(which);
	int rc = hg_store_add_report(st, rep, &sig, text, strlen(text), dup);
	hg_report_destroy(rep);
	return rc;
}

/* ---- opening ---- */

static void test_create_and_reopen(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *t = method_json(1, "0,1,1,100\\n1,2,1,90\\n", 100, "1.0", "P", "a.Main", "2024-01-01");
	bool dup = true;
	assert_int_equal(add(st, t, 0, &dup), 0);
	assert_false(dup);
	hg_store_close(st);

	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(hg_store_check(st), 0);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(hg_store_report_text(st, "", &text, &len), HG_EINVAL);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "PRAGMA application_id"), 0x48474152);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 1);
	assert_int_equal(sql_int(f->path, "SELECT length(content_hash) FROM reports"), 64);
	assert_int_equal(sql_int(f->path, "SELECT json_extract(frames, '$[2]') = "
				 "'q\"b\\c' || char(1) FROM clusters"), 1);
	assert_int_equal(f->n_diags, 0);
	free(t);
}

static void test_migrates_empty_files(void **state)
{
	struct fx *f = *state;
	write_file(f->path, "", 0); /* a zero-byte file is an empty SQLite database */
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name IN "
				 "('reports','clusters','trees','rejected','meta','symbols','tree',"
				 "'objects')"), 8);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM meta WHERE key = 'migrated_by'"), 1);
	assert_int_equal(sql_int(f->path, "PRAGMA page_size"), 65536); /* a new store's pages */

	/* An SQLite database at version 0 with no tables (pages written): its
	 * page size is fixed, and kept. */
	unlink(f->path);
	sql_exec(f->path, "PRAGMA page_size = 4096; VACUUM;");
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "PRAGMA page_size"), 4096);
	assert_string_equal(f->last_diag, "");
}

static void test_refuses_newer(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	hg_store_close(st);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", HG_STORE_SCHEMA_VERSION + 1);
	sql_exec(f->path, sql);
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), HG_EPARSE);
	assert_null(st);
	assert_contains(f->last_diag, "newer");
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION + 1);
}

static void test_refuses_foreign_and_garbage(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	sql_exec(f->path, "CREATE TABLE people(name TEXT); INSERT INTO people VALUES('x')");
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), HG_EPARSE);
	assert_null(st);
	assert_contains(f->last_diag, "not a hangar store");
	/* Left as it was: not migrated, not switched to WAL. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master"), 1);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 0);

	/* Another application's id, no tables. */
	unlink(f->path);
	sql_exec(f->path, "PRAGMA application_id = 1234; VACUUM;");
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), HG_EPARSE);
	assert_null(st);

	char junk[8192];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)("this is not a database\n"[i % 23]);
	unlink(f->path);
	write_file(f->path, junk, sizeof junk);
	f->last_diag[0] = '\0';
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), HG_EPARSE);
	assert_null(st);
	assert_contains(f->last_diag, "not a hangar store");

	/* An SQLite header followed by garbage. */
	memcpy(junk, "SQLite format 3", 16);
	unlink(f->path);
	write_file(f->path, junk, sizeof junk);
	assert_true(hg_store_open(&f->ctx, f->path, &st) < 0);
	assert_null(st);

	/* A directory that does not exist. */
	assert_int_equal(hg_store_open(&f->ctx, "/nonexistent-dir/h.db", &st), HG_EIO);
	assert_null(st);
}

/* ---- contents ---- */

struct rows {
	int n;
	hg_cluster_row first;
	char hash[33], kind[32], by_version[128], first_seen[32], last_seen[32];
};

static int take_row(void *user, const hg_cluster_row *row)
{
	struct rows *r = user;
	if (r->n++ == 0) {
		r->first = *row;
		snprintf(r->hash, sizeof r->hash, "%s", row->hash);
		snprintf(r->kind, sizeof r->kind, "%s", row->kind);
		snprintf(r->by_version, sizeof r->by_version, "%s", row->by_version);
		snprintf(r->first_seen, sizeof r->first_seen, "%s", row->first_seen);
		snprintf(r->last_seen, sizeof r->last_seen, "%s", row->last_seen);
	}
	return 0;
}

static void test_idempotent(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *t = method_json(1, "0,1,1,100\\n1,2,1,90\\n", 100, "1.0", "P", "a.Main", "2024-01-01");
	bool dup = false;
	assert_int_equal(add(st, t, 0, &dup), 0);
	assert_false(dup);
	assert_int_equal(add(st, t, 0, &dup), 0);
	assert_true(dup);
	/* In a batch too. */
	assert_int_equal(hg_store_begin(st), 0);
	assert_int_equal(add(st, t, 0, &dup), 0);
	assert_true(dup);
	assert_int_equal(hg_store_commit(st), 0);
	struct rows r = {0};
	assert_int_equal(hg_store_top(st, NULL, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.first.count, 1);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 1);
	assert_int_equal(sql_int(f->path, "SELECT count FROM clusters"), 1);
	assert_int_equal(sql_int(f->path, "SELECT max(reports) FROM tree"), 1);
	free(t);
}

static int count_cb(void *user, const char *value, int64_t count)
{
	char *out = user;
	size_t len = strlen(out);
	snprintf(out + len, 256 - len, "%s=%lld;", value ? value : "-", (long long)count);
	return 0;
}

static void test_cluster_aggregates(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	static const struct {
		int cost;
		const char *version, *device, *scene, *time;
		int which;
	} in[] = {
		{100, "1.0", "A", "a.Main", "2024-01-02", 0},
		{400, "2.0", "B", "a.Main", "2024-01-05", 0},
		{200, "1.0", "A", "a.Other", "2024-01-01", 0},
		{300, "2.0", "A", "a.Main", "2024-01-03", 0},
		{50, "2.0", "C", "b.Settings", "2024-01-04", 1},
	};
	assert_int_equal(hg_store_begin(st), 0);
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		char stack[64];
		snprintf(stack, sizeof stack, "0,1,1,%d\\n1,2,1,%d\\n", in[i].cost, in[i].cost - 1);
		char *t = method_json((int)i, stack, in[i].cost, in[i].version, in[i].device,
				      in[i].scene, in[i].time);
		bool dup = true;
		assert_int_equal(add(st, t, in[i].which, &dup), 0);
		assert_false(dup);
		free(t);
	}
	assert_int_equal(hg_store_commit(st), 0);

	struct rows r = {0};
	assert_int_equal(hg_store_top(st, NULL, take_row, &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.first.count, 4);
	assert_int_equal(r.first.devices, 2);
	/* Times in the store's one form (see STORE_TIME_SQL). */
	assert_string_equal(r.first_seen, "2024-01-01T00:00:00.000Z");
	assert_string_equal(r.last_seen, "2024-01-05T00:00:00.000Z");
	assert_int_equal(r.first.cost_p50, 200);
	assert_int_equal(r.first.cost_p90, 400);
	assert_int_equal(r.first.cost_p99, 400);
	assert_int_equal(r.first.cost_max, 400);
	assert_string_equal(r.by_version, "[{\"value\":\"1.0\",\"count\":2},{\"value\":\"2.0\",\"count\":2}]");
	assert_false(r.first.symbolicated);

	char hash[33];
	assert_int_equal(hg_store_resolve(st, "abc0000", hash), HG_EPARSE);
	assert_int_equal(hg_store_resolve(st, "abc00000", hash), 0);
	assert_string_equal(hash, r.hash);
	char none[33];
	assert_int_equal(hg_store_resolve(st, "ffff", none), HG_EINVAL);
	assert_string_equal(none, "");

	char counts[256] = "";
	assert_int_equal(hg_store_cluster_counts(st, hash, "device", count_cb, counts), 0);
	assert_string_equal(counts, "A=3;B=1;");
	counts[0] = '\0';
	assert_int_equal(hg_store_cluster_counts(st, hash, "scene", count_cb, counts), 0);
	assert_string_equal(counts, "a.Main=3;a.Other=1;");
	assert_int_equal(hg_store_cluster_counts(st, hash, "colour", count_cb, counts), HG_EINVAL);

	/* Filters and sorts. */
	hg_top_query q = {.version = "1.0"};
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_top(st, &q, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.first.count, 2);
	assert_int_equal(r.first.cost_p90, 200);
	q = (hg_top_query){.kind = "lag"};
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_top(st, &q, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.first.count, 1);
	q = (hg_top_query){.since = "2024-01-03", .until = "2024-01-04"};
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_top(st, &q, take_row, &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.first.count, 1);
	q = (hg_top_query){.scene_regex = "^b\\.Sett"};
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_top(st, &q, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.kind, "lag");
	q = (hg_top_query){.scene_regex = "("};
	assert_int_equal(hg_store_top(st, &q, take_row, &r), HG_EINVAL);
	q = (hg_top_query){.sort = "recent", .limit = 1};
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_top(st, &q, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.first.count, 4); /* last seen 2024-01-05 */
	q = (hg_top_query){.sort = "bogus"};
	assert_int_equal(hg_store_top(st, &q, take_row, &r), HG_EINVAL);

	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_cluster(st, hash, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.first.count, 4);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT sum(count) FROM clusters"), 5);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters WHERE first_seen = "
				 "'2024-01-01T00:00:00.000Z' AND last_seen = '2024-01-05T00:00:00.000Z'"), 1);
}

/* Objects of remote sources: known only when ingested with the same ETag
 * (or, without one, the same size and time); failures counted. */
static int count_object(void *user, const hg_object_row *row)
{
	int *n = user;
	(*n)++;
	assert_string_equal(row->status, "failed");
	assert_string_equal(row->error, "HTTP 503 after 5 attempts");
	assert_int_equal(row->attempts, 2);
	return 0;
}

static void test_objects(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	const char *src = "s3://reports/2024/";
	assert_int_equal(hg_store_object_known(st, src, "a.json", "e1", 10, NULL), 0);
	hg_object_row a = {src, "a.json", "e1", 10, "2024-01-01", "ingested", 3, NULL, 0, NULL};
	assert_int_equal(hg_store_object_put(st, &a), 0);
	assert_int_equal(hg_store_object_known(st, src, "a.json", "e1", 10, NULL), 1);
	assert_int_equal(hg_store_object_known(st, src, "a.json", "e2", 10, NULL), 0); /* changed */
	assert_int_equal(hg_store_object_known(st, "s3://other/", "a.json", "e1", 10, NULL), 0);
	hg_object_row h = {src, "h.json", NULL, 7, "Mon, 01 Jan 2024", "ingested", 1, NULL, 0, NULL};
	assert_int_equal(hg_store_object_put(st, &h), 0);
	assert_int_equal(hg_store_object_known(st, src, "h.json", NULL, 7, "Mon, 01 Jan 2024"), 1);
	assert_int_equal(hg_store_object_known(st, src, "h.json", NULL, 8, "Mon, 01 Jan 2024"), 0);
	hg_object_row b = {src, "b.json", "e3", -1, NULL, "failed", 0, "HTTP 503 after 5 attempts",
			   0, NULL};
	assert_int_equal(hg_store_object_put(st, &b), 0);
	assert_int_equal(hg_store_object_put(st, &b), 0);
	assert_int_equal(hg_store_object_known(st, src, "b.json", "e3", -1, NULL), 0); /* retried */
	int n = 0;
	assert_int_equal(hg_store_objects(st, src, "failed", count_object, &n), 0);
	assert_int_equal(n, 1);
	hg_object_row bad = {src, "c.json", NULL, -1, NULL, "maybe", 0, NULL, 0, NULL};
	assert_int_equal(hg_store_object_put(st, &bad), HG_EINVAL);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM objects"), 3);
}

/* Times written in different forms compare in one (STORE_TIME_SQL). */
static void test_times_in_one_form(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"1714000013443", "2024-04-24T23:06:53.443Z"},      /* epoch ms (Matrix) */
		{"1714000013", "2024-04-24T23:06:53.000Z"},         /* epoch seconds */
		{"1714000013443123", "2024-04-24T23:06:53.443Z"},   /* microseconds (KSCrash) */
		{"2024-04-25T01:06:53+02:00", "2024-04-24T23:06:53.000Z"},
		{"2024-04-24 23:06:53.5", "2024-04-24T23:06:53.500Z"},
		{"2024-04-24", "2024-04-24T00:00:00.000Z"},
	};
	char out[32];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(hg_store_time(st, cases[i].in, out), 0);
		assert_string_equal(out, cases[i].out);
	}
	assert_int_equal(hg_store_time(st, "yesterday", out), HG_EINVAL);
	assert_int_equal(hg_store_time(st, "", out), HG_EINVAL);
	assert_string_equal(out, "");

	/* Two reports an hour apart, one in ms, one in ISO with a zone: the
	 * window sees their real order, not the order of their texts. */
	char *a = method_json(1, "0,1,1,100\\n", 100, "1", "A", "s", "1714000013443");
	char *b = method_json(2, "0,1,1,100\\n", 100, "1", "A", "s", "2024-04-25T02:06:53+02:00");
	bool dup;
	assert_int_equal(add(st, a, 0, &dup), 0);
	assert_int_equal(add(st, b, 0, &dup), 0);
	struct rows r = {0};
	hg_top_query q = {.since = "2024-04-25T00:00:00Z"};
	assert_int_equal(hg_store_top(st, &q, take_row, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.first.count, 1);
	assert_string_equal(r.first_seen, "2024-04-25T00:06:53.000Z");
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports WHERE time_written = "
				 "'1714000013443'"), 1);
	free(a);
	free(b);
}

/* A store written by schema 1 (hashes and texts in tree_nodes, times as
 * written) is migrated in place: same clusters, trees and reports. */
static void test_migrates_schema_1(void **state)
{
	struct fx *f = *state;
	sql_exec(f->path,
		"PRAGMA application_id = 1212629330; PRAGMA user_version = 1;"
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
		"CREATE TABLE clusters (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL,"
		" key_symbol TEXT, frames TEXT NOT NULL, grouping_version INTEGER NOT NULL,"
		" first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0,"
		" symbolicated INTEGER NOT NULL);"
		"CREATE TABLE reports (id INTEGER PRIMARY KEY, content_hash TEXT NOT NULL UNIQUE,"
		" source TEXT NOT NULL, line INTEGER NOT NULL, kind TEXT NOT NULL, app TEXT,"
		" version TEXT, device TEXT, scene TEXT, time TEXT, cost INTEGER NOT NULL,"
		" foreground INTEGER, cluster TEXT NOT NULL, symbolicated INTEGER NOT NULL,"
		" text BLOB NOT NULL, ingested_at TEXT NOT NULL);"
		"CREATE INDEX reports_by_cluster ON reports(cluster, cost);"
		"CREATE TABLE tree_nodes (id INTEGER PRIMARY KEY, cluster TEXT NOT NULL,"
		" parent INTEGER NOT NULL, symbol TEXT NOT NULL, reports INTEGER NOT NULL,"
		" total_cost INTEGER NOT NULL, max_cost INTEGER NOT NULL, self_cost INTEGER NOT NULL,"
		" on_key_path INTEGER NOT NULL, UNIQUE(cluster, parent, symbol));"
		"CREATE TABLE rejected (id INTEGER PRIMARY KEY, source TEXT NOT NULL,"
		" line INTEGER NOT NULL, reason TEXT NOT NULL, text BLOB NOT NULL,"
		" text_hash TEXT NOT NULL, at TEXT NOT NULL, UNIQUE(source, line, text_hash));"
		"INSERT INTO clusters VALUES('aa', 'lag', 't', 'a.B.c', '[]', 1, '1714000013443',"
		" '2024-04-25', 2, 1);"
		"INSERT INTO reports VALUES(1, 'h1', 's', 1, 'lag', 'a', '1', 'P', 'x',"
		" '1714000013443', 10, 1, 'aa', 1, '{}', '2024-05-01T00:00:00Z');"
		"INSERT INTO tree_nodes VALUES(1, 'aa', 0, 'a.Main.run', 2, 30, 20, 0, 1);"
		"INSERT INTO tree_nodes VALUES(2, 'aa', 1, 'a.B.c', 2, 30, 20, 30, 1);"
		"INSERT INTO rejected VALUES(1, 'r.json', 3, 'bad', CAST('abcd' AS BLOB), 'h',"
		" '2024-05-01T00:00:00Z');");
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), HG_STORE_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM tree WHERE cluster = 'aa' AND"
				 " ((id = 1 AND parent = 0 AND symbol = 'a.Main.run') OR"
				 "  (id = 2 AND parent = 1 AND symbol = 'a.B.c' AND self_cost = 30))"), 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM symbols"), 2);
	/* 3 -> 4: the clusters' index covers what top reads of each report. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM pragma_index_info('reports_by_cluster')"),
			 6);
	/* 6 -> 7: first and last seen are the reports' own times (its one
	 * report's here), not what the cluster row said. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters WHERE count = 2 AND"
				 " first_seen = '2024-04-24T23:06:53.443Z' AND"
				 " last_seen = '2024-04-24T23:06:53.443Z'"), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports WHERE"
				 " time = '2024-04-24T23:06:53.443Z' AND time_written = '1714000013443'"),
			 1);
	/* 5 -> 6: a rejected input's whole size, and not cut. */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM rejected WHERE size = 4 AND"
				 " truncated = 0 AND text_hash = 'h'"), 1);
}

struct tree {
	int n;
	char lines[16][96];
};

static int tree_cb(void *user, const hg_tree_row *row)
{
	struct tree *t = user;
	if (t->n < 16)
		snprintf(t->lines[t->n], sizeof t->lines[0], "%s r%lld t%lld m%lld s%lld%s",
			 row->symbol, (long long)row->reports, (long long)row->total_cost,
			 (long long)row->max_cost, (long long)row->self_cost,
			 row->on_key_path ? " key" : "");
	t->n++;
	return 0;
}

static void test_merged_tree(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *a = method_json(1, "0,1,1,100\\n1,2,1,90\\n2,3,1,80\\n", 100, "1", "A", "s", "t1");
	char *b = method_json(2, "0,1,1,50\\n1,2,1,40\\n2,4,1,30\\n", 50, "1", "A", "s", "t2");
	/* Method 2 called twice from 1: one node, this report counted once. */
	char *c = method_json(3, "0,1,1,60\\n1,2,1,30\\n1,2,1,20\\n", 60, "1", "A", "s", "t3");
	bool dup;
	assert_int_equal(add(st, a, 0, &dup), 0);
	assert_int_equal(add(st, b, 0, &dup), 0);
	assert_int_equal(add(st, c, 0, &dup), 0);
	hg_signature sig = fake_sig(0);
	struct tree t = {0};
	assert_int_equal(hg_store_cluster_tree(st, sig.hash, tree_cb, &t), 0);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.lines[0], "#1 r3 t210 m100 s30 key");
	assert_string_equal(t.lines[1], "#2 r3 t180 m90 s70 key");
	assert_string_equal(t.lines[2], "#3 r1 t80 m80 s80 key");
	assert_string_equal(t.lines[3], "#4 r1 t30 m30 s30 key");

	/* A thread-stack report: the blamed thread from root to top frame. */
	const char *ts = "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"detail\":\"LAG\","
			 "\"cost\":700,\"process\":\"a.app\",\"threadStack\":"
			 "\"a.B.top(B.java:3)\\na.B.mid(B.java:2)\\nandroid.os.Looper.loop(Looper.java:1)\\n\"}}";
	assert_int_equal(add(st, ts, 1, &dup), 0);
	memset(&t, 0, sizeof t);
	assert_int_equal(hg_store_cluster_tree(st, fake_sig(1).hash, tree_cb, &t), 0);
	assert_int_equal(t.n, 3);
	assert_string_equal(t.lines[0], "android.os.Looper.loop r1 t700 m700 s0 key");
	assert_string_equal(t.lines[1], "a.B.mid r1 t700 m700 s0 key");
	assert_string_equal(t.lines[2], "a.B.top r1 t700 m700 s700 key");
	hg_store_close(st);
	free(a);
	free(b);
	free(c);
}

/* Adds text as ingest does: prepared with a symbol table, then added. */
static void add_numbered(hg_store *st, const char *text, int which, hg_store_symtab *tab)
{
	hg_report *rep = read_report_text(text);
	hg_signature sig = fake_sig(which);
	hg_store_prep *prep = NULL;
	bool dup;
	assert_int_equal(hg_store_prepare_with(rep, text, strlen(text), tab, &prep), 0);
	assert_int_equal(hg_store_add_prepared(st, rep, &sig, text, strlen(text), prep, &dup), 0);
	hg_store_prep_destroy(prep);
	hg_report_destroy(rep);
}

/* Reports prepared with a symbol table (as ingest's reader does) give the
 * same trees, symbol ids included, as reports added one by one: across
 * a rolled-back batch (the numbers it learnt are forgotten with its
 * symbols) and a second table (other numbers for the same texts). */
static void test_symtab_same_trees(void **state)
{
	struct fx *f = *state;
	char path2[128];
	snprintf(path2, sizeof path2, "%s/two.db", f->dir);
	char *texts[] = {
		method_json(1, "0,1,1,100\\n1,2,1,90\\n2,3,1,80\\n", 100, "1", "A", "s", "t1"),
		method_json(2, "0,1,1,50\\n1,2,1,40\\n2,4,1,30\\n", 50, "1", "A", "s", "t2"),
		method_json(3, "0,1,1,60\\n1,2,1,30\\n1,2,1,20\\n", 60, "1", "A", "s", "t3"),
		method_json(4, "0,5,1,60\\n1,2,1,30\\n", 60, "1", "A", "s", "t4")};
	hg_store *one = NULL, *two = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &one), 0);
	assert_int_equal(hg_store_open(&f->ctx, path2, &two), 0);
	hg_store_symtab *tab = hg_store_symtab_create(), *tab2 = hg_store_symtab_create();
	assert_non_null(tab);
	assert_non_null(tab2);
	bool dup;
	/* A batch rolled back: its symbols and their numbers are gone. */
	assert_int_equal(hg_store_begin(two), 0);
	for (int i = 3; i > 0; i -= 2) /* symbols in another order than below */
		add_numbered(two, texts[i], i % 2, tab);
	assert_int_equal(hg_store_rollback(two), 0);
	assert_int_equal(sql_int(path2, "SELECT count(*) FROM symbols"), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(add(one, texts[i], i % 2, &dup), 0);
		assert_int_equal(hg_store_begin(two), 0);
		add_numbered(two, texts[i], i % 2, i == 2 ? tab2 : tab);
		assert_int_equal(hg_store_commit(two), 0);
	}
	hg_store_symtab_destroy(tab);
	hg_store_symtab_destroy(tab2);
	for (int which = 0; which < 2; which++) {
		struct tree a = {0}, b = {0};
		assert_int_equal(hg_store_cluster_tree(one, fake_sig(which).hash, tree_cb, &a), 0);
		assert_int_equal(hg_store_cluster_tree(two, fake_sig(which).hash, tree_cb, &b), 0);
		assert_true(a.n > 0);
		assert_int_equal(a.n, b.n);
		for (int k = 0; k < a.n && k < 16; k++)
			assert_string_equal(a.lines[k], b.lines[k]);
	}
	hg_store_close(one);
	hg_store_close(two);
	/* Byte for byte: the rows, and the symbol ids they hold. */
	const char *q = "SELECT group_concat(x, ' ') FROM (SELECT c.hash || ':' || t.nodes AS x"
			" FROM trees t JOIN clusters c ON c.id = t.cluster UNION ALL SELECT id || '='"
			" || text FROM symbols ORDER BY 1)";
	char rows1[4096], rows2[4096];
	sql_text(f->path, q, rows1, sizeof rows1);
	sql_text(path2, q, rows2, sizeof rows2);
	assert_true(strlen(rows1) > 100);
	assert_string_equal(rows1, rows2);
	for (int i = 0; i < 4; i++)
		free(texts[i]);
	const char *suffix[] = {"", "-wal", "-shm"};
	for (int i = 0; i < 3; i++) {
		char p2[160];
		snprintf(p2, sizeof p2, "%s%s", path2, suffix[i]);
		unlink(p2);
	}
}

/* A checkpoint from a second handle copies the committed log into the
 * store file while the first handle stays open (and may go on writing). */
static void test_checkpoint_from_second_handle(void **state)
{
	struct fx *f = *state;
	hg_store *writer = NULL, *other = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &writer), 0);
	assert_int_equal(hg_store_begin(writer), 0);
	bool dup;
	for (int i = 0; i < 40; i++) {
		char *text = method_json(i, "0,1,1,100\\n1,2,1,90\\n", 100 + i, "1", "A", "s", "t");
		assert_int_equal(add(writer, text, i % 3, &dup), 0);
		free(text);
	}
	assert_int_equal(hg_store_commit(writer), 0);
	struct stat before, after;
	assert_int_equal(stat(f->path, &before), 0);
	assert_int_equal(hg_store_open(&f->ctx, f->path, &other), 0);
	assert_int_equal(hg_store_checkpoint(other), 0);
	assert_int_equal(stat(f->path, &after), 0);
	assert_true(after.st_size > before.st_size); /* the reports' pages are in the file */
	assert_int_equal(hg_store_begin(writer), 0); /* the writer goes on */
	char *text = method_json(99, "0,1,1,100\\n", 100, "1", "A", "s", "t");
	assert_int_equal(add(writer, text, 0, &dup), 0);
	free(text);
	assert_int_equal(hg_store_commit(writer), 0);
	assert_int_equal(hg_store_checkpoint(other), 0);
	hg_store_close(other);
	hg_store_close(writer);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 41);
}

/* A stored tree that is not readable (written behind the store's back) is
 * an error naming its cluster when a report would add to it; the batch is
 * rolled back and the other clusters are untouched. */
static void test_corrupt_tree_row(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *a = method_json(1, "0,1,1,100\\n1,2,1,90\\n", 100, "1", "A", "s", "t1");
	char *b = method_json(2, "0,1,1,50\\n1,2,1,40\\n", 50, "1", "A", "s", "t2");
	char *c = method_json(3, "0,1,1,60\\n1,3,1,30\\n", 60, "1", "A", "s", "t3");
	bool dup;
	assert_int_equal(add(st, a, 0, &dup), 0);
	assert_int_equal(add(st, c, 2, &dup), 0);
	hg_store_close(st);
	static const char *const bad[] = {
		"[[1,0,1,1,100,100,10,1],[2,1",        /* truncated */
		"[[1,0,1,1,100,100,10,1],[2,7,2,1,90,90,90,1]]", /* parent not there */
		"[[1,0,1,1,100,100,10,1],[1,0,2,1,90,90,90,1]]", /* id twice */
		"[[1,0,1,-1,100,100,10,1]]",            /* negative count */
		"[[1,0,1,1,100,100,10,1,9]]",           /* a field too many */
		"[[1,0,\"x\",1,100,100,10,1]]",         /* a string */
		"[[1,0,1,1,1e2,100,10,1]]",             /* not an integer */
		"[[1,0,1,1,99999999999999999999,1,1,1]]", /* past int64 */
		"{}", "", "garbage"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char sql[256];
		snprintf(sql, sizeof sql, "UPDATE trees SET nodes = '%s' WHERE cluster ="
			 " (SELECT id FROM clusters WHERE hash = '%s')", bad[i], fake_sig(0).hash);
		sql_exec(f->path, sql);
		assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
		f->n_diags = 0;
		assert_int_equal(add(st, b, 0, &dup), HG_EPARSE);
		assert_true(f->n_diags > 0);
		assert_contains(f->last_diag, "cluster abc00000");
		assert_contains(f->last_diag, "its stored call tree (trees.nodes) is not readable");
		hg_store_close(st);
		assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), 2); /* rolled back */
	}
	/* Another cluster's tree is read as before. */
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	struct tree t = {0};
	assert_int_equal(hg_store_cluster_tree(st, fake_sig(2).hash, tree_cb, &t), 0);
	assert_int_equal(t.n, 2);
	hg_store_close(st);
	free(a);
	free(b);
	free(c);
}

static int reports_cb(void *user, const hg_report_row *row)
{
	char *out = user;
	size_t len = strlen(out);
	snprintf(out + len, 256 - len, "%s:%ld:%s:%lld;", row->source, row->line, row->time,
		 (long long)row->cost);
	return 0;
}

static void test_reports_and_text(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	char *a = method_json(1, "0,1,1,100\\n", 100, "1", "A", "s", "2024-01-01");
	char *b = method_json(2, "0,1,1,70\\n", 70, "1", "A", "s", "2024-01-02");
	bool dup;
	assert_int_equal(add(st, a, 0, &dup), 0);
	assert_int_equal(add(st, b, 0, &dup), 0);
	char out[256] = "";
	assert_int_equal(hg_store_reports(st, fake_sig(0).hash, 0, reports_cb, out), 0);
	assert_string_equal(out, "mem.json:1:2024-01-02T00:00:00.000Z:70;"
				 "mem.json:1:2024-01-01T00:00:00.000Z:100;");
	char hash[65];
	hg_db *db = NULL;
	assert_int_equal(db_open(f->path, 1000, &db), 0);
	hg_db_stmt *q = db_stmt(db, 0, "SELECT content_hash FROM reports WHERE cost = 100");
	assert_int_equal(db_step(q), DB_ROW);
	snprintf(hash, sizeof hash, "%s", db_col_text(q, 0));
	db_close(db);
	hash[12] = '\0';
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(hg_store_report_text(st, hash, &text, &len), 0);
	assert_int_equal(len, strlen(a));
	assert_memory_equal(text, a, len);
	free(text);
	assert_int_equal(hg_store_report_text(st, "zz", &text, &len), HG_EINVAL);
	assert_null(text);
	hg_store_close(st);
	free(a);
	free(b);
}

struct rej {
	int n;
	int64_t last_id;
	char reason[64];
	size_t size, stored;
	char sha256[65];
	bool truncated;
};

static int rej_cb(void *user, const hg_rejected_row *row)
{
	struct rej *r = user;
	r->n++;
	r->last_id = row->id;
	r->size = row->size;
	r->stored = row->stored;
	r->truncated = row->truncated;
	snprintf(r->sha256, sizeof r->sha256, "%s", row->sha256 ? row->sha256 : "");
	snprintf(r->reason, sizeof r->reason, "%s", row->reason);
	return 0;
}

static void test_rejected_once(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	const char bytes[] = "{\"broken\": '\0x";
	size_t len = sizeof bytes - 1;
	assert_int_equal(hg_store_add_rejected(st, "in.ndjson", 3, "bad json", bytes, len), 0);
	assert_int_equal(hg_store_add_rejected(st, "in.ndjson", 3, "bad json", bytes, len), 0);
	struct rej r = {0};
	assert_int_equal(hg_store_rejected(st, rej_cb, &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.reason, "bad json");
	assert_int_equal(r.size, len);
	char *text = NULL;
	size_t got = 0;
	assert_int_equal(hg_store_rejected_text(st, r.last_id, &text, &got), 0);
	assert_int_equal(got, len);
	assert_memory_equal(text, bytes, len); /* NUL byte kept */
	free(text);
	assert_int_equal(hg_store_rejected_text(st, 999, &text, &got), HG_EINVAL);
	assert_int_equal(hg_store_add_rejected(st, "in.ndjson", 4, "bad json", bytes, len), 0);
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_rejected(st, rej_cb, &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.stored, len);
	assert_false(r.truncated);
	hg_store_close(st);
}

/* A rejected input over HG_STORE_REJECTED_MAX_BYTES: its first bytes are
 * kept, with its whole size and the SHA-256 of all of it; the same input
 * again is the same row, one that differs after the cap another. */
static void test_rejected_capped(void **state)
{
	struct fx *f = *state;
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	size_t len = 3 * HG_STORE_REJECTED_MAX_BYTES + 5;
	char *big = malloc(len);
	assert_non_null(big);
	for (size_t i = 0; i < len; i++)
		big[i] = (char)('a' + i % 26);
	assert_int_equal(hg_store_add_rejected(st, "big.json", 1, "too big", big, len), 0);
	assert_int_equal(hg_store_add_rejected(st, "big.json", 1, "too big", big, len), 0);
	struct rej r = {0};
	assert_int_equal(hg_store_rejected(st, rej_cb, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.size, len);
	assert_int_equal(r.stored, HG_STORE_REJECTED_MAX_BYTES);
	assert_true(r.truncated);
	char want[65];
	unsigned char md[32];
	unsigned int n = 0;
	assert_true(EVP_Digest(big, len, md, &n, EVP_sha256(), NULL));
	for (unsigned i = 0; i < 32; i++)
		snprintf(want + 2 * i, 3, "%02x", md[i]);
	assert_string_equal(r.sha256, want);
	char *text = NULL;
	size_t got = 0;
	assert_int_equal(hg_store_rejected_text(st, r.last_id, &text, &got), 0);
	assert_int_equal(got, HG_STORE_REJECTED_MAX_BYTES);
	assert_memory_equal(text, big, got);
	free(text);
	big[len - 1] = '!'; /* differs only beyond the cap */
	assert_int_equal(hg_store_add_rejected(st, "big.json", 1, "too big", big, len), 0);
	memset(&r, 0, sizeof r);
	assert_int_equal(hg_store_rejected(st, rej_cb, &r), 0);
	assert_int_equal(r.n, 2);
	hg_store_close(st);
	free(big);
}

/* ---- forked writers ---- */

#define N_REPORTS 2000
#define N_CAUSES 7

struct corpus {
	char *text[N_REPORTS];
	hg_report *rep[N_REPORTS];
};

static struct corpus *corpus_create(void)
{
	struct corpus *c = calloc(1, sizeof *c);
	assert_non_null(c);
	for (int i = 0; i < N_REPORTS; i++) {
		char stack[96], time[32];
		snprintf(stack, sizeof stack, "0,1,1,%d\\n1,%d,1,%d\\n", 100 + i % 50, 2 + i % N_CAUSES,
			 90 + i % 50);
		snprintf(time, sizeof time, "2024-01-%02d", 1 + i % 28);
		c->text[i] = method_json(i, stack, 100 + i % 50, i % 2 ? "1.0" : "2.0",
					 i % 3 ? "A" : "B", "a.Main", time);
		c->rep[i] = read_report_text(c->text[i]);
	}
	return c;
}

static void corpus_destroy(struct corpus *c)
{
	for (int i = 0; i < N_REPORTS; i++) {
		free(c->text[i]);
		hg_report_destroy(c->rep[i]);
	}
	free(c);
}

/* Adds reports [from, to) in batches; 0 when all went in. */
static int ingest(const hg_ctx *ctx, const char *path, struct corpus *c, int from, int to,
		  int batch)
{
	hg_store *st = NULL;
	int rc = hg_store_open(ctx, path, &st);
	for (int i = from; rc == 0 && i < to; i += batch) {
		rc = hg_store_begin(st);
		for (int j = i; rc == 0 && j < to && j < i + batch; j++) {
			hg_signature sig = fake_sig(j % N_CAUSES);
			bool dup;
			rc = hg_store_add_report(st, c->rep[j], &sig, c->text[j], strlen(c->text[j]),
						 &dup);
		}
		if (rc == 0)
			rc = hg_store_commit(st);
	}
	hg_store_close(st);
	return rc;
}

static pid_t spawn_ingest(struct fx *f, struct corpus *c, int from, int to, int batch)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc = ingest(&f->ctx, f->path, c, from, to, batch);
		if (rc != 0) /* say why: the parent only sees the status */
			fprintf(stderr, "ingest of %d..%d failed: %s; last: %s\n", from, to,
				hg_strerror(rc), f->n_diags ? f->last_diag : "-");
		_exit(rc == 0 ? 0 : 1);
	}
	return pid;
}

static void assert_consistent(struct fx *f)
{
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
	assert_int_equal(hg_store_check(st), 0);
	hg_store_close(st);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM reports"), N_REPORTS);
	assert_int_equal(sql_int(f->path, "SELECT count(DISTINCT content_hash) FROM reports"),
			 N_REPORTS);
	assert_int_equal(sql_int(f->path, "SELECT sum(count) FROM clusters"), N_REPORTS);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters"), N_CAUSES);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM clusters c WHERE count <> "
				 "(SELECT count(*) FROM reports r WHERE r.cluster = c.hash)"), 0);
	/* Every report passes once through its cluster's root. */
	assert_int_equal(sql_int(f->path, "SELECT sum(reports) FROM tree WHERE parent = 0"),
			 N_REPORTS);
}

static void test_crash_safety(void **state)
{
	struct fx *f = *state;
	struct corpus *c = corpus_create();
	srand(20240601);
	int killed = 0;
	for (int round = 0; round < 4; round++) {
		pid_t pid = spawn_ingest(f, c, 0, N_REPORTS, 100);
		struct timespec ts = {0, (long)(5 + rand() % 1200) * 1000000L};
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		killed += WIFSIGNALED(status);
		if (!WIFSIGNALED(status))
			assert_int_equal(WEXITSTATUS(status), 0);
		hg_store *st = NULL;
		assert_int_equal(hg_store_open(&f->ctx, f->path, &st), 0);
		assert_int_equal(hg_store_check(st), 0);
		hg_store_close(st);
		int64_t n = sql_int(f->path, "SELECT count(*) FROM reports");
		print_message("  killed run %d: %lld reports stored\n", round, (long long)n);
		assert_true(n % 100 == 0); /* whole batches only */
		assert_int_equal(sql_int(f->path, "SELECT coalesce(sum(count), 0) FROM clusters"), n);
	}
	print_message("crash safety: %d of 4 runs killed mid-way\n", killed);
	assert_int_equal(ingest(&f->ctx, f->path, c, 0, N_REPORTS, 100), 0);
	assert_consistent(f);
	/* Once more: nothing changes. */
	assert_int_equal(ingest(&f->ctx, f->path, c, 0, N_REPORTS, 250), 0);
	assert_consistent(f);
	corpus_destroy(c);
}

static void test_concurrent_ingests(void **state)
{
	struct fx *f = *state;
	struct corpus *c = corpus_create();
	pid_t a = spawn_ingest(f, c, 0, 1200, 50);
	pid_t b = spawn_ingest(f, c, 800, N_REPORTS, 50);
	int sa = 0, sb = 0;
	assert_int_equal(waitpid(a, &sa, 0), a);
	assert_int_equal(waitpid(b, &sb, 0), b);
	assert_true(WIFEXITED(sa) && WEXITSTATUS(sa) == 0);
	assert_true(WIFEXITED(sb) && WEXITSTATUS(sb) == 0);
	assert_consistent(f);
	corpus_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_and_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_empty_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_schema_1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_times_in_one_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_newer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_foreign_and_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idempotent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cluster_aggregates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merged_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_tree_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symtab_same_trees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_from_second_handle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reports_and_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejected_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejected_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_safety, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_ingests, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
