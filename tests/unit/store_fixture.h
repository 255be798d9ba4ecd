/* Shared by the store tests (test_store.c, test_store_diff.c,
 * test_store_merge.c, test_digest.c): a store file in a fresh temporary
 * folder and its removal (store_tmp_make/remove; with the store opened and
 * closed, store_tmp_open/close; as a whole cmocka fixture, struct store_tmp),
 * one report read from memory ("keep the first
 * report" sink), the regroup mappings of testdata/regroup, the database
 * read and written behind the store's back, a file written whole, and
 * assert_contains.  Each test keeps its own struct fx, diagnostics
 * recorder and report-making helpers: those differ from test to test. */
#ifndef HANGAR_TESTS_STORE_FIXTURE_H
#define HANGAR_TESTS_STORE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/db.h"
#include "hangar/mapping.h"
#include "hangar/store.h"

/* ---- a store file in a temporary folder ---- */

/* Makes the folder from pattern ("/tmp/hg-...-XXXXXX") in dir and names
 * the store file path = dir/h.db; -1 when the folder cannot be made. */
static inline int store_tmp_make(char dir[64], char path[96], const char *pattern)
{
	snprintf(dir, 64, "%s", pattern);
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, 96, "%s/h.db", dir);
	return 0;
}

/* Removes the store file, its -wal, -shm and -journal, and the folder. */
static inline void store_tmp_remove(const char *dir, const char *path)
{
	const char *suffix[] = {"", "-wal", "-shm", "-journal"};
	char p[128];
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", path, suffix[i]);
		unlink(p);
	}
	rmdir(dir);
}

/* For a store whose reports a test wrote with SQL behind the store's back:
 * its rollups recomputed from them (hg_store_verify, repair), as the
 * store's own writes keep them. */
static inline void store_tmp_rollups(const char *path)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_store *st = NULL;
	hg_check_stats stats;
	assert_int_equal(hg_store_open(&ctx, path, &st), 0);
	assert_int_equal(hg_store_verify(st, true, NULL, NULL, &stats), 0);
	assert_true(stats.integrity_ok);
	hg_store_close(st);
}

/* hg_ctx_init, with diagnostics going to diag(user, ...). */
static inline void store_ctx_init(hg_ctx *ctx, hg_diag_fn diag, void *user)
{
	hg_ctx_init(ctx);
	ctx->diag = diag;
	ctx->diag_user = user;
}

/* store_tmp_make, then the store opened in it with ctx into *store: 0, or
 * -1 when either fails. */
static inline int store_tmp_open(const hg_ctx *ctx, char dir[64], char path[96], const char *pattern,
				 hg_store **store)
{
	if (store_tmp_make(dir, path, pattern) != 0)
		return -1;
	return hg_store_open(ctx, path, store) != 0 ? -1 : 0;
}

/* Closes store (NULL is fine) and removes its folder (store_tmp_remove). */
static inline void store_tmp_close(hg_store *store, const char *dir, const char *path)
{
	hg_store_close(store);
	store_tmp_remove(dir, path);
}

/* A store in a fresh temporary folder and the context it was opened with:
 * the whole fixture of the tests that need no more (test_store_diff.c,
 * test_store_times.c), made and removed by store_tmp_setup/teardown. */
struct store_tmp {
	hg_ctx ctx;
	char dir[64];
	char path[96];
	hg_store *store;
};

/* The cmocka setup: *state is a new struct store_tmp, its folder made from
 * pattern and the store opened there; keep_text is the context's. */
static inline int store_tmp_setup(void **state, const char *pattern, int keep_text)
{
	struct store_tmp *f = calloc(1, sizeof *f);
	assert_non_null(f);
	hg_ctx_init(&f->ctx);
	f->ctx.keep_text = keep_text;
	assert_int_equal(store_tmp_open(&f->ctx, f->dir, f->path, pattern, &f->store), 0);
	*state = f;
	return 0;
}

/* The cmocka teardown of store_tmp_setup. */
static inline int store_tmp_teardown(void **state)
{
	struct store_tmp *f = *state;
	store_tmp_close(f->store, f->dir, f->path);
	free(f);
	return 0;
}

/* ---- reports ---- */

/* A sink for hg_reports_read: keeps the first report read without error
 * in *(hg_report **)user, destroys the others. */
static inline int keep_first(void *user, hg_report *rep)
{
	hg_report **out = user;
	if (!*out && !rep->error)
		*out = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

/* The first good report of text[0..len), read as source. */
static inline hg_report *read_report(const char *source, const char *text, size_t len)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_true(hg_reports_read(&ctx, source, text, len, keep_first, &rep) >= 0);
	assert_non_null(rep);
	return rep;
}

/* The method mappings of versions 1.0 and 1.1 in testdata/regroup. */
static inline void open_regroup_mappings(const hg_ctx *ctx, const char *testdata,
					 hg_mapping **v10, hg_mapping **v11)
{
	char path[512];
	snprintf(path, sizeof path, "%s/regroup/mappings/1.0/methodMapping.txt", testdata);
	assert_int_equal(hg_mapping_open(ctx, path, v10), 0);
	snprintf(path, sizeof path, "%s/regroup/mappings/1.1/methodMapping.txt", testdata);
	assert_int_equal(hg_mapping_open(ctx, path, v11), 0);
}

/* ---- the database behind the store's back ---- */

/* The one row of sql on a fresh connection to path: column 0 as an
 * integer (*v) or a text (into out, NULL: ""). */
static inline void sql_row(const char *path, const char *sql, int64_t *v, char *out, size_t size)
{
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	hg_db_stmt *st = db_stmt(db, 0, sql);
	if (!st)
		fail_msg("%s: %s", sql, db_errmsg(db));
	assert_int_equal(db_step(st), DB_ROW);
	if (v)
		*v = db_col_int(st, 0);
	if (out)
		snprintf(out, size, "%s", db_col_text(st, 0) ? db_col_text(st, 0) : "");
	db_reset(st);
	db_close(db);
}

static inline int64_t sql_int(const char *path, const char *sql)
{
	int64_t v = 0;
	sql_row(path, sql, &v, NULL, 0);
	return v;
}

static inline void sql_text(const char *path, const char *sql, char *out, size_t size)
{
	sql_row(path, sql, NULL, out, size);
}

static inline void sql_exec(const char *path, const char *sql)
{
	hg_db *db = NULL;
	assert_int_equal(db_open(path, 30000, &db), 0);
	if (db_exec(db, sql) < 0)
		fail_msg("%s: %s", sql, db_errmsg(db));
	db_close(db);
}

/* ---- files and text ---- */

static inline void write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	fclose(fp);
}

static inline void assert_contains(const char *s, const char *needle)
{
	if (!strstr(s, needle))
		fail_msg("\"%s\" does not contain \"%s\"", s, needle);
}

#endif
