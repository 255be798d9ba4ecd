/* hangar top's figures (store_top.c, computed in C) against their SQL
 * definition: counts, distinct devices, first/last seen, nearest-rank
 * percentiles and the versions object, over a random store, for every
 * sort, the kind, version and time filters, and limits. */
#include "store_fixture.h"

#include "store/store_internal.h"

/* The definition, as SQL: what store_top.c computes. */
static const char reference_sql[] =
	"WITH f AS MATERIALIZED ("
	"  SELECT r.cluster, r.cost, r.device, r.version, r.time AS t"
	"  FROM reports r JOIN clusters c ON c.hash = r.cluster"
	"  WHERE (?1 IS NULL OR c.kind = ?1) AND (?2 IS NULL OR r.version = ?2)"
	"    AND (?3 IS NULL OR r.time >= " STORE_TIME_SQL("?3") ")"
	"    AND (?4 IS NULL OR r.time <= " STORE_TIME_SQL("?4") ")),"
	" ranked AS (SELECT cluster, cost, row_number() OVER (PARTITION BY cluster ORDER BY cost)"
	"  AS rn, count(*) OVER (PARTITION BY cluster) AS n FROM f),"
	" pct AS (SELECT cluster, max(CASE WHEN rn = (n * 50 + 99) / 100 THEN cost END) AS p50,"
	"  max(CASE WHEN rn = (n * 90 + 99) / 100 THEN cost END) AS p90,"
	"  max(CASE WHEN rn = (n * 99 + 99) / 100 THEN cost END) AS p99, max(cost) AS pmax"
	"  FROM ranked GROUP BY cluster),"
	" agg AS (SELECT cluster, count(*) AS cnt, count(DISTINCT device) AS devices,"
	"  count(*) - count(device) AS no_device,"
	"  min(t) AS first_seen, max(t) AS last_seen FROM f GROUP BY cluster),"
	" ver AS (SELECT cluster, json_group_array(json_object('value', v, 'count', n)) AS versions"
	"  FROM (SELECT cluster, version AS v, count(*) AS n FROM f"
	"   GROUP BY cluster, v ORDER BY cluster, n DESC, v IS NULL, v) GROUP BY cluster)"
	" SELECT printf('%s|%s|%s|%s|%d|%d|%d|%s|%s|%d|%d|%d|%d|%s|%s|%d', c.hash, c.kind, c.title,"
	"  coalesce(c.key_symbol, '-'), agg.cnt, agg.devices, agg.no_device, agg.first_seen, agg.last_seen,"
	"  pct.p50, pct.p90, pct.p99, pct.pmax, ver.versions, c.frames, c.symbolicated)"
	" FROM agg JOIN clusters c ON c.hash = agg.cluster JOIN pct ON pct.cluster = agg.cluster"
	"  JOIN ver ON ver.cluster = agg.cluster"
	" ORDER BY CASE ?6 WHEN 'cost' THEN pct.p90 WHEN 'devices' THEN agg.devices"
	"  WHEN 'recent' THEN agg.last_seen ELSE agg.cnt END DESC, agg.cnt DESC, c.hash"
	" LIMIT ?7";

struct rows {
	char *text;
	size_t len, cap;
	int n;
};

static void add_line(struct rows *r, const char *line)
{
	size_t n = strlen(line);
	if (r->len + n + 2 > r->cap) {
		r->cap = (r->len + n + 2) * 2;
		r->text = realloc(r->text, r->cap);
		assert_non_null(r->text);
	}
	memcpy(r->text + r->len, line, n);
	r->len += n;
	r->text[r->len++] = '\n';
	r->text[r->len] = '\0';
	r->n++;
}

static int take(void *user, const hg_cluster_row *c)
{
	char line[2048];
	snprintf(line, sizeof line, "%s|%s|%s|%s|%lld|%lld|%lld|%s|%s|%lld|%lld|%lld|%lld|%s|%s|%d",
		 c->hash, c->kind, c->title, c->key_symbol ? c->key_symbol : "-",
		 (long long)c->count, (long long)c->devices, (long long)c->no_device, c->first_seen, c->last_seen,
		 (long long)c->cost_p50, (long long)c->cost_p90, (long long)c->cost_p99,
		 (long long)c->cost_max, c->by_version, c->frames, c->symbolicated);
	add_line(user, line);
	return 0;
}

static void reference(const char *path, const hg_top_query *q, struct rows *out)
{
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	hg_db_stmt *st = db_stmt(db, 0, reference_sql);
	if (!st)
		fail_msg("%s", db_errmsg(db));
	db_bind_text(st, 1, q->kind);
	db_bind_text(st, 2, q->version);
	db_bind_text(st, 3, q->since);
	db_bind_text(st, 4, q->until);
	db_bind_text(st, 6, q->sort ? q->sort : "count");
	db_bind_int(st, 7, q->limit > 0 ? q->limit : -1);
	int rc;
	while ((rc = db_step(st)) == DB_ROW)
		add_line(out, db_col_text(st, 0));
	assert_int_equal(rc, DB_DONE);
	db_reset(st);
	db_close(db);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A store of 3,000 reports in 40 clusters of three kinds: costs with ties,
 * devices and versions sometimes missing (and one version "unknown", one
 * with a quote and a control character), times sometimes missing. */
static void fill(const char *path)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&ctx, path, &st), 0);
	hg_store_close(st);
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	assert_true(db_exec(db, "BEGIN") >= 0);
	static const char *const kinds[] = {"slow_method", "lag", "anr"};
	for (int c = 0; c < 40; c++) {
		char sql[512];
		snprintf(sql, sizeof sql,
			 "INSERT INTO clusters(hash, kind, title, key_symbol, frames, grouping_version,"
			 " first_seen, last_seen, count, symbolicated) VALUES("
			 "printf('%%032x', %d), '%s', 'title %d', %s, '[\"a.B.c%d\"]', 1, '', '', 0, %d)",
			 c * 7919, kinds[c % 3], c, c % 5 ? "'a.B.c'" : "NULL", c, c % 2);
		assert_true(db_exec(db, sql) >= 0);
	}
	static const char *const versions[] = {"1.0", "1.1", "2.0", "unknown", "v\\\"q\x01"};
	static const char *const devices[] = {"Pixel 7", "SM-G991B", "Mi 11", "moto g"};
	for (int i = 0; i < 3000; i++) {
		int c = (int)(next() % 40);
		if (c > 30 && next() % 4)
			c = (int)(next() % 5); /* some clusters much bigger */
		char version[32], device[32], time[40], sql[768];
		unsigned v = (unsigned)(next() % 7), d = (unsigned)(next() % 6);
		snprintf(version, sizeof version, v < 5 ? "'%s'" : "NULL", v < 5 ? versions[v] : "");
		snprintf(device, sizeof device, d < 4 ? "'%s'" : "NULL", d < 4 ? devices[d] : "");
		snprintf(time, sizeof time, next() % 10 ? "'2024-05-%02dT%02d:00:00.000Z'" : "NULL",
			 1 + (int)(next() % 28), (int)(next() % 24));
		snprintf(sql, sizeof sql,
			 "INSERT INTO reports(content_hash, source, line, kind, version, device, scene,"
			 " time, cost, cluster, symbolicated, text, ingested_at) VALUES("
			 "'h%d', 'r.json', %d, 'lag', %s, %s, 's', %s, %d, printf('%%032x', %d), 1, 'x',"
			 " '2024-06-01T00:00:%02d.000Z')",
			 i, i, version, device, time, (int)(next() % 50) * 10, c * 7919, i % 60);
		assert_true(db_exec(db, sql) >= 0);
	}
	assert_true(db_exec(db, "COMMIT") >= 0);
	db_close(db);
	store_tmp_rollups(path);
}

static void test_top_matches_its_definition(void **state)
{
	(void)state;
	char dir[64], path[96];
	assert_int_equal(store_tmp_make(dir, path, "/tmp/hg-top-XXXXXX"), 0);
	fill(path);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&ctx, path, &st), 0);
	static const hg_top_query queries[] = {
		{0},
		{.sort = "cost"},
		{.sort = "devices"},
		{.sort = "recent"},
		{.sort = "count", .limit = 7},
		{.sort = "recent", .limit = 3},
		{.kind = "lag"},
		{.kind = "anr", .sort = "cost"},
		{.version = "1.1"},
		{.version = "unknown"},
		{.version = "9.9"},
		{.since = "2024-05-10", .until = "2024-05-20T12:00:00Z"},
		{.since = "2024-05-27T12:00:00.000Z", .sort = "devices"},
		{.kind = "slow_method", .version = "2.0", .since = "2024-05-05", .limit = 2},
	};
	for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
		struct rows want = {0}, got = {0};
		reference(path, &queries[i], &want);
		assert_int_equal(hg_store_top(st, &queries[i], take, &got), 0);
		if (want.n == 0 && got.n == 0)
			continue;
		if (!want.text || !got.text || strcmp(want.text, got.text) != 0)
			fail_msg("query %zu: want\n%s\ngot\n%s", i, want.text ? want.text : "",
				 got.text ? got.text : "");
		free(want.text);
		free(got.text);
	}
	/* One cluster, as show asks for it: the same figures as its top row. */
	struct rows all = {0}, one = {0};
	assert_int_equal(hg_store_top(st, NULL, take, &all), 0);
	char hash[33];
	snprintf(hash, sizeof hash, "%.32s", all.text);
	assert_int_equal(hg_store_cluster(st, hash, take, &one), 0);
	assert_int_equal(one.n, 1);
	assert_memory_equal(one.text, all.text, one.len);
	free(all.text);
	free(one.text);
	store_tmp_close(st, dir, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_matches_its_definition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
