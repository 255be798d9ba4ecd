/* The namer (hangar/namer.h), the one naming stage of stack and ingest:
 * a report read with its rebuild left for later is rebuilt and named; the
 * methodMapping beside each report is used past the namer's cache of 64
 * folders (the one used longest ago is let go and loaded again when asked);
 * a methodMapping given that does not load is never replaced by the one
 * beside the report.  The mappings and folders are made here, in a
 * temporary folder; the sample report comes from testdata (argv[1]). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "hangar/namer.h"
#include "hangar/report.h"

static const char *testdata;

struct fx {
	hg_ctx ctx;
	int errors;
	char dir[64];
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	f->errors += d->severity == HG_DIAG_ERROR;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	hg_ctx_init(&f->ctx);
	f->ctx.diag = on_diag;
	f->ctx.diag_user = f;
	snprintf(f->dir, sizeof f->dir, "/tmp/hg-namer-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A report whose stack is dispatchMessage over method id 7. */
static hg_report *report_of_7(const hg_ctx *ctx, const char *source)
{
	static const char text[] = "{\"stack\":\"0,1048574,1,900\\n1,7,1,890\\n\","
				   "\"process\":\"com.example.app\"}";
	hg_report *rep = NULL;
	assert_int_equal(hg_report_read_one(ctx, source, text, sizeof text - 1, HG_FORMAT_AUTO,
					    &rep), 0);
	assert_non_null(rep);
	assert_false(rep->error);
	return rep;
}

/* The symbol of the first item of id (NULL when unnamed). */
static const char *symbol_of(const hg_report *rep, int32_t id)
{
	for (size_t i = 0; i < rep->full.len; i++)
		if (rep->full.items[i].id == id)
			return rep->symbols ? rep->symbols[i] : NULL;
	fail_msg("no item of id %d", id);
	return NULL;
}

static void test_deferred_rebuild_named(void **state)
{
	struct fx *f = *state;
	char path[4096], mapping[4096];
	snprintf(path, sizeof path, "%s/sample/jank.json", testdata);
	snprintf(mapping, sizeof mapping, "%s/sample/methodMapping.txt", testdata);
	char *data = NULL;
	size_t len = 0;
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), 0);
	hg_ctx reading = f->ctx;
	reading.defer_rebuild = 1;
	hg_report *rep = NULL;
	assert_int_equal(hg_report_read_one(&reading, path, data, len, HG_FORMAT_AUTO, &rep), 0);
	free(data);
	assert_non_null(rep);
	assert_int_equal(rep->full.len, 0); /* left for later */
	hg_namer_opts o = {.mapping = mapping};
	hg_namer *n = NULL;
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), 0);
	assert_int_equal(hg_namer_name(n, rep, NULL, path), 0);
	assert_true(rep->key_index >= 0);
	assert_string_equal(symbol_of(rep, 96),
			    "sample.tencent.matrix.trace.TestTraceMainActivity.testInnerSleep()");
	hg_report_destroy(rep);
	hg_namer_destroy(n);
	assert_int_equal(f->errors, 0);
}

static void test_beside_past_the_cache(void **state)
{
	struct fx *f = *state;
	hg_namer_opts o = {0};
	hg_namer *n = NULL;
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), 0);
	/* 70 folders, each with its own name for id 7; the first ones asked
	 * for again once the cache has let them go. */
	enum { FOLDERS = 70 };
	char path[256], text[128], want[64];
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < FOLDERS; i++) {
			snprintf(path, sizeof path, "%s/d%02d", f->dir, i);
			if (round == 0) {
				assert_int_equal(mkdir(path, 0700), 0);
				snprintf(path, sizeof path, "%s/d%02d/methodMapping.txt", f->dir, i);
				snprintf(text, sizeof text, "7,1,com.example.app.F%02d run ()V\n", i);
				write_file(path, text);
			}
			snprintf(path, sizeof path, "%s/d%02d/r.json", f->dir, i);
			hg_report *rep = report_of_7(&f->ctx, path);
			assert_int_equal(hg_namer_name(n, rep, NULL, path), 0);
			snprintf(want, sizeof want, "com.example.app.F%02d.run()", i);
			assert_non_null(symbol_of(rep, 7));
			assert_string_equal(symbol_of(rep, 7), want);
			hg_report_destroy(rep);
		}
	assert_int_equal(hg_namer_bad_mappings(n), 0);
	hg_namer_destroy(n);
	assert_int_equal(f->errors, 0);
}

static void test_given_mapping_not_replaced(void **state)
{
	struct fx *f = *state;
	char path[256];
	snprintf(path, sizeof path, "%s/methodMapping.txt", f->dir);
	write_file(path, "7,1,com.example.app.Beside run ()V\n");
	hg_namer_opts o = {0};
	hg_namer *n = NULL;
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), 0);
	snprintf(path, sizeof path, "%s/missing.txt", f->dir);
	assert_int_not_equal(hg_namer_add_mapping(n, path), 0);
	assert_int_equal(f->errors, 1); /* said */
	assert_int_equal(hg_namer_add_mapping(n, path), HG_EINVAL); /* once */
	snprintf(path, sizeof path, "%s/r.json", f->dir);
	hg_report *rep = report_of_7(&f->ctx, path);
	assert_int_equal(hg_namer_name(n, rep, NULL, path), 0);
	assert_null(symbol_of(rep, 7));
	hg_report_destroy(rep);
	hg_symbols_stats st;
	assert_false(hg_namer_symbols_stats(n, &st)); /* no --symbols */
	hg_namer_destroy(n);
	/* Without it, the one beside the report names it. */
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), 0);
	rep = report_of_7(&f->ctx, path);
	assert_int_equal(hg_namer_name(n, rep, NULL, path), 0);
	assert_string_equal(symbol_of(rep, 7), "com.example.app.Beside.run()");
	hg_report_destroy(rep);
	hg_namer_destroy(n);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_namer TESTDATA_DIR\n");
		return 2;
	}
	testdata = argv[1];
	unsetenv("HANGAR_MAPPING");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_deferred_rebuild_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_beside_past_the_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_given_mapping_not_replaced, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
