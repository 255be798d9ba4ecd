/* hg_input_list_folder: the report files of a folder as ingest and stack
 * read it (testdata/cluster, argv[1]: real reports beside their mappings,
 * rules files and a README), and what it skips in a folder made here (a
 * FIFO, a symbolic link, hidden files, stores). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/input.h"

static const char *cluster_dir; /* argv[1] */

struct diags {
	char text[1024];
	size_t n;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct diags *g = user;
	g->n++;
	size_t at = strlen(g->text);
	snprintf(g->text + at, sizeof g->text - at, "%s: %s: %s\n", d->source,
		 d->severity == HG_DIAG_ERROR ? "error" : "warning", d->message);
}

static void test_reports_beside_mappings(void **state)
{
	(void)state;
	struct diags g = {{0}, 0};
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = on_diag;
	ctx.diag_user = &g;
	assert_true(hg_input_is_folder(cluster_dir));
	hg_path_list list;
	assert_int_equal(hg_input_list_folder(&ctx, cluster_dir, &list), 0);
	/* Not the README, the rules files nor the mappings; sorted. */
	static const char *const want[] = {"build-a/anr.txt", "build-a/slow-method.json",
					   "build-b/anr.txt", "build-b/slow-method.json"};
	assert_int_equal(list.n, 4);
	for (size_t i = 0; i < 4; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", cluster_dir, want[i]);
		assert_string_equal(list.paths[i], path);
	}
	assert_int_equal(list.skipped, 0);
	assert_int_equal(g.n, 0);
	hg_path_list_release(&list);
	assert_null(list.paths);
	assert_false(hg_input_is_folder("-"));
	char file[512];
	snprintf(file, sizeof file, "%s/build-a/anr.txt", cluster_dir);
	assert_false(hg_input_is_folder(file));
}

static void touch(const char *dir, const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{}\n", fp);
	fclose(fp);
}

static void test_only_regular_report_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/hg-folder-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[256], fifo[256], link[256];
	snprintf(sub, sizeof sub, "%s/z", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	touch(dir, "b.json");
	touch(dir, "a.ndjson");
	touch(sub, "c.txt");
	touch(dir, ".hidden.json");
	touch(dir, "hangar.db");
	touch(dir, "notes.md");
	touch(dir, "methodMapping.txt");
	snprintf(fifo, sizeof fifo, "%s/pipe.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(link, sizeof link, "%s/link.json", dir);
	assert_int_equal(symlink("b.json", link), 0);

	struct diags g = {{0}, 0};
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = on_diag;
	ctx.diag_user = &g;
	hg_path_list list;
	assert_int_equal(hg_input_list_folder(&ctx, dir, &list), 0);
	assert_int_equal(list.n, 3);
	char want[256];
	snprintf(want, sizeof want, "%s/a.ndjson", dir);
	assert_string_equal(list.paths[0], want);
	snprintf(want, sizeof want, "%s/b.json", dir);
	assert_string_equal(list.paths[1], want);
	snprintf(want, sizeof want, "%s/z/c.txt", dir);
	assert_string_equal(list.paths[2], want);
	/* The FIFO is skipped, said and counted; the link is not followed. */
	assert_int_equal(list.skipped, 1);
	char said[320];
	snprintf(said, sizeof said, "%s: warning: skipped: a FIFO, not a regular file\n", fifo);
	assert_string_equal(g.text, said);
	hg_path_list_release(&list);

	const char *names[] = {"b.json", "a.ndjson", ".hidden.json", "hangar.db", "notes.md",
			       "methodMapping.txt", "pipe.json", "link.json", "z/c.txt"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s testdata/cluster\n", argv[0]);
		return 2;
	}
	cluster_dir = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reports_beside_mappings),
		cmocka_unit_test(test_only_regular_report_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
