/* hangar merge in the store: shards of one set of real Matrix reports
 * (testdata/matrix-mangatoon, one report in two shards) merged in every
 * order equal one store that ingested them all, by content: clusters, the
 * `tree` view, reports, rejected inputs and objects; merging twice changes
 * nothing; a cluster some of whose reports both stores hold gets the exact
 * tree when the callback names frames as ingest did (testdata/regroup with
 * its mappings), and a warning without one; bad shards are refused with
 * the store unchanged, and so is a merge whose callback fails midway.
 * argv[1] is the testdata/ folder. */
#include "hangar/input.h"
#include "store_fixture.h"

static const char *testdata = "testdata";

#define N_LINES 120 /* reports of the corpus used: fast under the sanitizers */

/* ---- fixture: a folder of stores ---- */

struct fx {
	hg_ctx ctx;
	char dir[64];
	char last_diag[512];
	char last_source[256];
	size_t n_warnings;
	char *corpus;      /* the first N_LINES lines of the corpus */
	size_t corpus_len;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	f->n_warnings += d->severity == HG_DIAG_WARNING;
	snprintf(f->last_diag, sizeof f->last_diag, "%s", d->message);
	snprintf(f->last_source, sizeof f->last_source, "%s", d->source ? d->source : "");
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	store_ctx_init(&f->ctx, on_diag, f);
	snprintf(f->dir, sizeof f->dir, "/tmp/hg-merge-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	char path[512];
	snprintf(path, sizeof path, "%s/matrix-mangatoon/reports.ndjson", testdata);
	if (hg_input_read(&f->ctx, path, &f->corpus, &f->corpus_len) != 0)
		return -1;
	size_t lines = 0;
	for (size_t i = 0; i < f->corpus_len; i++)
		if (f->corpus[i] == '\n' && ++lines == N_LINES) {
			f->corpus_len = i + 1;
			f->corpus[i + 1] = '\0';
			break;
		}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f->corpus);
	free(f);
	return 0;
}

static void store_path(struct fx *f, const char *name, char out[128])
{
	snprintf(out, 128, "%s/%s.db", f->dir, name);
}

static hg_store *open_named(struct fx *f, const char *name)
{
	char path[128];
	store_path(f, name, path);
	hg_store *st = NULL;
	assert_int_equal(hg_store_open(&f->ctx, path, &st), 0);
	return st;
}

/* ---- building shards from the corpus ---- */

struct pick {
	hg_store *store;
	long from, to;     /* lines [from, to] */
	long also;         /* and this one (0: none) */
	size_t added;
};

static int add_picked(void *user, hg_report *rep)
{
	struct pick *p = user;
	bool in = (rep->line >= p->from && rep->line <= p->to) || rep->line == p->also;
	if (in && !rep->error) {
		hg_signature sig;
		assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
		bool dup = false;
		assert_int_equal(hg_store_add_report(p->store, rep, &sig, rep->text, rep->text_len,
						     &dup), 0);
		p->added += !dup;
	}
	hg_report_destroy(rep);
	return 0;
}

/* A store `name` of the corpus lines [from, to] (and `also`), with one
 * rejected input and one object of its own and one shared with every store. */
static void build(struct fx *f, const char *name, long from, long to, long also)
{
	hg_ctx ctx = f->ctx;
	ctx.keep_text = 1;
	struct pick p = {open_named(f, name), from, to, also, 0};
	assert_int_equal(hg_store_begin(p.store), 0);
	assert_true(hg_reports_read(&ctx, "reports.ndjson", f->corpus, f->corpus_len, add_picked,
				    &p) >= 0);
	assert_int_equal(hg_store_commit(p.store), 0);
	assert_true(p.added > 0);
	char own[64];
	snprintf(own, sizeof own, "bad line of %ld", from);
	assert_int_equal(hg_store_add_rejected(p.store, "in.ndjson", from, "not JSON", own,
					       strlen(own)), 0);
	assert_int_equal(hg_store_add_rejected(p.store, "in.ndjson", 0, "not JSON", "shared", 6), 0);
	hg_object_row row = {"s3://b/p", own, "etag", 10, NULL, "ingested", 1, NULL, 0, NULL};
	assert_int_equal(hg_store_object_put(p.store, &row), 0);
	hg_store_close(p.store);
}

/* ---- comparing stores by content ---- */

static void dump_query(hg_db *db, int slot, const char *sql, FILE *out)
{
	hg_db_stmt *st = db_stmt(db, slot, sql);
	if (!st)
		fail_msg("%s: %s", sql, db_errmsg(db));
	int rc;
	while ((rc = db_step(st)) == DB_ROW) {
		/* Every query ends with the column 'end'. */
		for (int i = 0; i < 64; i++) {
			const char *t = db_col_text(st, i);
			if (t && !strcmp(t, "end"))
				break;
			fprintf(out, "%s|", t ? t : "NULL");
		}
		fputc('\n', out);
	}
	assert_int_equal(rc, DB_DONE);
	db_reset(st);
	fputs("--\n", out);
}

/* Everything a merge must get right, ids left out; malloc'd. */
static char *dump(struct fx *f, const char *name)
{
	char path[128], *text = NULL;
	size_t len = 0;
	store_path(f, name, path);
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	static const char *const queries[] = {
		"SELECT hash, kind, title, key_symbol, frames, count, first_seen, last_seen,"
		" symbolicated, 'end' FROM clusters ORDER BY hash",
		/* Each node by its cluster and path of symbols from the root. */
		"WITH RECURSIVE n AS MATERIALIZED (SELECT * FROM tree),"
		" p(cluster, id, path) AS (SELECT cluster, id, symbol FROM n WHERE parent = 0"
		" UNION ALL SELECT t.cluster, t.id, p.path || char(31) || t.symbol FROM p"
		"  JOIN n t ON t.cluster = p.cluster AND t.parent = p.id)"
		" SELECT p.cluster, p.path, t.reports, t.total_cost, t.max_cost, t.self_cost,"
		" t.on_key_path, 'end' FROM p JOIN n t ON t.cluster = p.cluster AND t.id = p.id"
		" ORDER BY 1, 2",
		"SELECT content_hash, cluster, kind, version, device, scene, time, cost,"
		" symbolicated, 'end' FROM reports ORDER BY content_hash",
		"SELECT source, line, text_hash, reason, 'end' FROM rejected ORDER BY 1, 2, 3",
		"SELECT source, key, status, etag, reports, 'end' FROM objects ORDER BY 1, 2",
	};
	for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
		dump_query(db, (int)i, queries[i], out);
	db_close(db);
	fclose(out);
	return text;
}

static void assert_same(struct fx *f, const char *a, const char *b)
{
	char *da = dump(f, a), *db = dump(f, b);
	if (strcmp(da, db) != 0) {
		size_t i = 0;
		while (da[i] && da[i] == db[i])
			i++;
		size_t from = i > 200 ? i - 200 : 0;
		fprintf(stderr, "=== %s\n%s=== %s\n%s", a, da, b, db);
		fail_msg("%s and %s differ at byte %zu:\n%.400s\n----\n%.400s", a, b, i, da + from,
			 db + from);
	}
	free(da);
	free(db);
}

static void merge(struct fx *f, const char *into, const char *shard, hg_merge_stats *s)
{
	char path[128];
	store_path(f, shard, path);
	hg_store *st = open_named(f, into);
	hg_merge_stats local;
	assert_int_equal(hg_store_merge(st, path, NULL, NULL, s ? s : &local), 0);
	hg_store_close(st);
}

/* ONE: lines 1..120; A: 1..40; B: 41..80 and line 35; C: 81..120. */
static void build_all(struct fx *f)
{
	build(f, "one", 1, N_LINES, 0);
	build(f, "a", 1, 40, 0);
	build(f, "b", 41, 80, 35);
	build(f, "c", 81, N_LINES, 0);
	/* ONE holds every rejected input and object the shards hold. */
	hg_store *one = open_named(f, "one");
	const long froms[] = {41, 81};
	for (size_t i = 0; i < 2; i++) {
		char own[64];
		snprintf(own, sizeof own, "bad line of %ld", froms[i]);
		assert_int_equal(hg_store_add_rejected(one, "in.ndjson", froms[i], "not JSON", own,
						       strlen(own)), 0);
		hg_object_row row = {"s3://b/p", own, "etag", 10, NULL, "ingested", 1, NULL, 0, NULL};
		assert_int_equal(hg_store_object_put(one, &row), 0);
	}
	hg_store_close(one);
}

/* ---- tests ---- */

static void test_equals_one_store(void **state)
{
	struct fx *f = *state;
	build_all(f);
	hg_merge_stats s;
	merge(f, "all", "a", &s);
	assert_int_equal(s.reports_present, 0);
	assert_true(s.reports_added > 0);
	assert_int_equal(s.clusters_created, s.clusters_touched);
	assert_int_equal(s.trees_rebuilt, 0);
	assert_int_equal(s.rejected_added, 2);
	assert_int_equal(s.objects_added, 1);
	merge(f, "all", "b", &s);
	assert_true(s.reports_present >= 1); /* line 35, and the corpus repeats itself */
	assert_int_equal(s.rejected_added, 1);  /* "shared" was there */
	assert_true(s.trees_rebuilt >= 1);      /* line 35's cluster */
	assert_true(f->n_warnings >= 1);        /* rebuilt without mappings */
	merge(f, "all", "c", &s);
	assert_same(f, "all", "one");

	/* Twice changes nothing. */
	char *before = dump(f, "all");
	merge(f, "all", "b", &s);
	assert_int_equal(s.reports_added, 0);
	assert_int_equal(s.clusters_created, 0);
	assert_int_equal(s.clusters_touched, 0);
	assert_int_equal(s.trees_rebuilt, 0);
	assert_int_equal(s.rejected_added, 0);
	assert_int_equal(s.objects_added, 0);
	char *after = dump(f, "all");
	assert_string_equal(before, after);
	free(before);
	free(after);

	/* A store merged into itself changes nothing either. */
	merge(f, "all", "all", &s);
	assert_int_equal(s.reports_added, 0);
	assert_same(f, "all", "one");
}

static void test_any_order(void **state)
{
	struct fx *f = *state;
	build_all(f);
	/* merge(A, merge(B, C)) */
	merge(f, "bc", "c", NULL);
	merge(f, "bc", "b", NULL);
	merge(f, "a_bc", "a", NULL);
	merge(f, "a_bc", "bc", NULL);
	assert_same(f, "a_bc", "one");
	/* merge(merge(A, B), C) */
	merge(f, "ab", "a", NULL);
	merge(f, "ab", "b", NULL);
	merge(f, "ab_c", "ab", NULL);
	merge(f, "ab_c", "c", NULL);
	assert_same(f, "ab_c", "one");
	/* Into a shard itself, the others in reverse. */
	merge(f, "a", "c", NULL);
	merge(f, "a", "b", NULL);
	assert_same(f, "a", "one");
	/* Merged stores merged again overlap everywhere. */
	merge(f, "ab_c", "a_bc", NULL);
	merge(f, "ab_c", "bc", NULL);
	assert_same(f, "ab_c", "one");
}

/* ---- a partial overlap, with and without the mappings ---- */

struct mappings {
	hg_mapping *v10, *v11;
	int calls;
	bool fail;
};

static const hg_mapping *mapping_of(struct mappings *m, const char *version)
{
	return !version ? NULL : !strcmp(version, "1.0") ? m->v10 : !strcmp(version, "1.1") ? m->v11
											: NULL;
}

static int named_cb(void *user, const hg_regroup_item *item, hg_report **out, hg_signature *sig)
{
	struct mappings *m = user;
	if (m->fail && ++m->calls > 1)
		return HG_EIO;
	hg_report *rep = read_report(item->source, item->text, item->len);
	hg_report_symbolicate(rep, mapping_of(m, item->version));
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, sig), 0);
	*out = rep;
	return 0;
}

static void ingest_named(struct fx *f, struct mappings *m, const char *name, const char *rel)
{
	char path[512], *data = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/regroup/%s", testdata, rel);
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	hg_report *rep = read_report(rel, data, len);
	hg_report_symbolicate(rep, mapping_of(m, rep->app_version));
	hg_signature sig;
	assert_int_equal(hg_signature_compute(rep, NULL, rep->arena, &sig), 0);
	assert_true(sig.symbolicated);
	hg_store *st = open_named(f, name);
	bool dup = true;
	assert_int_equal(hg_store_add_report(st, rep, &sig, data, len, &dup), 0);
	hg_store_close(st);
	hg_report_destroy(rep);
	free(data);
}

static int64_t merge_with(struct fx *f, const char *into, const char *shard, hg_regroup_fn fn,
			  void *user, hg_merge_stats *s)
{
	char path[128];
	store_path(f, shard, path);
	hg_store *st = open_named(f, into);
	int rc = hg_store_merge(st, path, fn, user, s);
	hg_store_close(st);
	return rc;
}

static void test_partial_overlap(void **state)
{
	struct fx *f = *state;
	struct mappings m = {0};
	open_regroup_mappings(&f->ctx, testdata, &m.v10, &m.v11);
	/* Named with their mappings, both reports are one cluster. */
	ingest_named(f, &m, "one", "reports/1.0/slow.json");
	ingest_named(f, &m, "one", "reports/1.1/slow.json");
	ingest_named(f, &m, "a", "reports/1.0/slow.json");
	ingest_named(f, &m, "b", "reports/1.0/slow.json");
	ingest_named(f, &m, "b", "reports/1.1/slow.json");

	hg_merge_stats s;
	assert_int_equal(merge_with(f, "all", "a", named_cb, &m, &s), 0);
	assert_int_equal(s.trees_added, 1);
	assert_int_equal(merge_with(f, "all", "b", named_cb, &m, &s), 0);
	assert_int_equal(s.reports_added, 1);
	assert_int_equal(s.reports_present, 1);
	assert_int_equal(s.trees_rebuilt, 1);
	assert_int_equal(f->n_warnings, 0);
	assert_same(f, "all", "one");

	/* Without the callback: rebuilt without mappings, with a warning
	 * naming the cluster, and the tree is no longer the exact one. */
	assert_int_equal(merge_with(f, "plain", "a", NULL, NULL, &s), 0);
	assert_int_equal(merge_with(f, "plain", "b", NULL, NULL, &s), 0);
	assert_int_equal(s.trees_rebuilt, 1);
	assert_int_equal(f->n_warnings, 1);
	assert_non_null(strstr(f->last_diag, "without mappings"));
	char *plain = dump(f, "plain"), *one = dump(f, "one");
	assert_string_not_equal(plain, one);
	free(plain);
	free(one);

	/* A callback that fails midway: the store as before the shard. */
	assert_int_equal(merge_with(f, "failing", "a", named_cb, &m, &s), 0);
	char *before = dump(f, "failing");
	m.fail = true;
	assert_int_equal(merge_with(f, "failing", "b", named_cb, &m, &s), HG_EIO);
	assert_int_equal(s.reports_added, 0);
	char *after = dump(f, "failing");
	assert_string_equal(before, after);
	free(before);
	free(after);
	hg_mapping_destroy(m.v10);
	hg_mapping_destroy(m.v11);
}

/* ---- bad shards ---- */

static void assert_refused(struct fx *f, const char *name, const char *why)
{
	char path[128];
	store_path(f, name, path);
	char *before = dump(f, "all");
	hg_store *st = open_named(f, "all");
	hg_merge_stats s;
	f->last_diag[0] = '\0';
	int rc = hg_store_merge(st, path, NULL, NULL, &s);
	hg_store_close(st);
	if (rc == 0)
		fail_msg("%s was merged", name);
	assert_string_equal(f->last_source, path);
	if (!strstr(f->last_diag, why))
		fail_msg("%s: \"%s\" does not say \"%s\"", name, f->last_diag, why);
	assert_int_equal(s.reports_added, 0);
	char *after = dump(f, "all");
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_refuses_bad_shards(void **state)
{
	struct fx *f = *state;
	build(f, "all", 1, 10, 0);
	char path[128];

	store_path(f, "garbage", path);
	char junk[4096];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 7 + 3);
	write_file(path, junk, sizeof junk);
	assert_refused(f, "garbage", "not a hangar store");

	store_path(f, "empty", path);
	write_file(path, "", 0);
	assert_refused(f, "empty", "an empty database");

	store_path(f, "foreign", path);
	sql_exec(path, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
	assert_refused(f, "foreign", "another application");

	store_path(f, "newer", path);
	hg_store_close(open_named(f, "newer"));
	sql_exec(path, "PRAGMA user_version = 99;");
	assert_refused(f, "newer", "newer than this hangar's");

	store_path(f, "older", path);
	hg_store_close(open_named(f, "older"));
	sql_exec(path, "PRAGMA user_version = 2;");
	assert_refused(f, "older", "open it once with this hangar");

	assert_refused(f, "missing", "cannot open");

	/* A real store whose pages were damaged. */
	build(f, "damaged", 11, 40, 0);
	store_path(f, "damaged", path);
	FILE *fp = fopen(path, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long size = ftell(fp);
	assert_true(size > 8192);
	for (long at = 4096; at < size; at += 4096) {
		assert_int_equal(fseek(fp, at + 100, SEEK_SET), 0);
		assert_int_equal(fwrite(junk, 1, 200, fp), 200);
	}
	fclose(fp);
	assert_refused(f, "damaged", "");

	/* Inside a batch: refused before anything. */
	hg_store *st = open_named(f, "all");
	assert_int_equal(hg_store_begin(st), 0);
	store_path(f, "one", path);
	assert_int_equal(hg_store_merge(st, path, NULL, NULL, NULL), HG_EINVAL);
	assert_int_equal(hg_store_rollback(st), 0);
	hg_store_close(st);
}

/* Objects: the ingested row wins, whichever store holds it. */
static void test_objects_prefer_ingested(void **state)
{
	struct fx *f = *state;
	hg_object_row failed = {"s3://b/p", "k", NULL, 10, NULL, "failed", 0, "boom", 0, NULL};
	hg_object_row done = {"s3://b/p", "k", "e1", 10, NULL, "ingested", 3, NULL, 0, NULL};
	hg_store *st = open_named(f, "x");
	assert_int_equal(hg_store_object_put(st, &failed), 0);
	hg_store_close(st);
	st = open_named(f, "y");
	assert_int_equal(hg_store_object_put(st, &done), 0);
	hg_store_close(st);
	hg_merge_stats s;
	merge(f, "xy", "x", &s);
	assert_int_equal(s.objects_added, 1);
	merge(f, "xy", "y", &s);
	assert_int_equal(s.objects_added, 1); /* replaced */
	merge(f, "yx", "y", &s);
	merge(f, "yx", "x", &s);
	assert_int_equal(s.objects_added, 0); /* kept */
	assert_same(f, "xy", "yx");
	assert_same(f, "xy", "y");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_equals_one_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_any_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_bad_shards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_objects_prefer_ingested, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
