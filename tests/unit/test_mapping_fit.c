/* Whether a methodMapping is the app's own (hg_report_mapping_fit and the
 * warning hg_report_symbolicate gives, hg_mapping_has_package, and the
 * namer's once-per-mapping-and-package diagnostic): another app's mapping
 * that names every id (wrongly), one that lacks most of the ids, with and
 * without a package in the report; and what must stay quiet: the app's
 * own partial mapping, a stack of library classes, a stack of
 * dispatchMessage alone, too few ids to judge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/ingest.h"
#include "hangar/mapping.h"
#include "hangar/report.h"

struct fx {
	hg_ctx ctx;
	int warnings;
	char last[1024];
	hg_mapping *mapping;
	hg_report *rep;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct fx *f = user;
	if (d->severity != HG_DIAG_WARNING)
		return;
	f->warnings++;
	snprintf(f->last, sizeof f->last, "%s:%ld: %s", d->source, d->line, d->message);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	hg_ctx_init(&f->ctx);
	f->ctx.diag = on_diag;
	f->ctx.diag_user = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	hg_report_destroy(f->rep);
	hg_mapping_destroy(f->mapping);
	free(f);
	return 0;
}

static int keep_first(void *user, hg_report *rep)
{
	hg_report **out = user;
	if (!*out && !rep->error)
		*out = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

/* A slow-method report of process (NULL: none) and scene (NULL: none)
 * whose stack is dispatchMessage over the ids given (each a child of the
 * one before). */
static hg_report *report_of(const char *process, const char *scene, const int *ids, size_t n)
{
	char text[2048], *p = text;
	p += sprintf(p, "{\"stack\":\"0,1048574,1,1000\\n");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%zu,%d,1,%zu\\n", i + 1, ids[i], 900 - 10 * i);
	p += sprintf(p, "\"");
	if (process)
		p += sprintf(p, ",\"process\":\"%s\"", process);
	if (scene)
		p += sprintf(p, ",\"scene\":\"%s\"", scene);
	sprintf(p, "}");
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_true(hg_reports_read(&ctx, "r.json", text, strlen(text), keep_first, &rep) >= 0);
	assert_non_null(rep);
	return rep;
}

static hg_mapping *mapping_of(struct fx *f, const char *text)
{
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "other/methodMapping.txt", text,
						strlen(text), &m),
			 0);
	return m;
}

/* The report named with the mapping: its fit, and its one warning about
 * the mapping (or "" when it has none). */
static hg_mapping_fit name(struct fx *f, const char *process, const char *scene, const int *ids,
			   size_t n, const char *mapping)
{
	f->mapping = mapping_of(f, mapping);
	f->rep = report_of(process, scene, ids, n);
	size_t before = f->rep->warnings.len;
	assert_int_equal(hg_report_symbolicate(f->rep, f->mapping), 0);
	assert_true(f->rep->warnings.len <= before + 1);
	hg_mapping_fit fit;
	assert_int_equal(hg_report_mapping_fit(f->rep, f->mapping, &fit), 0);
	snprintf(f->last, sizeof f->last, "%s",
		 f->rep->warnings.len > before ? f->rep->warnings.items[before] : "");
	return fit;
}

#define OTHER_APP                                                                     \
	"10,1,com.other.chat.Inbox load ()V\n"                                        \
	"11,1,com.other.chat.Inbox draw (I)V\n"                                       \
	"12,1,com.other.db.Store query (Ljava.lang.String;)Ljava.util.List;\n"        \
	"13,1,com.other.db.Store close ()V\n"                                         \
	"14,1,com.other.net.Client get ()V\n"                                         \
	"15,1,com.other.net.Client put ()V\n"                                         \
	"1048574,1,android.os.Handler dispatchMessage (Landroid.os.Message;)V\n"

static const int six[] = {10, 11, 12, 13, 14, 15};

/* Another app's mapping that has every id: nothing is missing, every name
 * is wrong; the package tells. */
static void test_other_app_names_every_id(void **state)
{
	struct fx *f = *state;
	hg_mapping_fit fit = name(f, "com.example.reader:push", NULL, six, 6, OTHER_APP);
	assert_true(fit.foreign);
	assert_int_equal(fit.ids, 6);
	assert_int_equal(fit.missing, 0);
	assert_string_equal(fit.package, "com.example");
	assert_string_equal(fit.app, "com.example.reader");
	assert_false(fit.in_package);
	assert_false(fit.package_known);
	assert_string_equal(f->last, "methodMapping other/methodMapping.txt looks like another "
			    "app's: it has no class in com.example, the package of "
			    "com.example.reader; the names it gives are likely wrong");
}

/* Another app's mapping that lacks most ids: both said, the count instead
 * of the usual "N method id(s) not in" warning. */
static void test_other_app_lacks_most_ids(void **state)
{
	struct fx *f = *state;
	static const int ids[] = {10, 70, 71, 72, 73, 74};
	hg_mapping_fit fit = name(f, "com.example.reader", NULL, ids, 6, OTHER_APP);
	assert_true(fit.foreign);
	assert_int_equal(fit.missing, 5);
	assert_string_equal(f->last, "methodMapping other/methodMapping.txt looks like another "
			    "app's: it has no class in com.example, the package of "
			    "com.example.reader, and 5 of the report's 6 method ids are not in "
			    "it (shown as #<id>)");
}

/* Without a process, a scene that is a class names the package. */
static void test_scene_names_the_package(void **state)
{
	struct fx *f = *state;
	hg_mapping_fit fit = name(f, NULL, "com.example.ui.FeedActivity", six, 6, OTHER_APP);
	assert_true(fit.foreign);
	assert_string_equal(fit.package, "com.example");
	assert_string_equal(fit.app, "com.example.ui.FeedActivity");
}

/* A report that names no package: only the ids can tell, from 5 ids on. */
static void test_no_package_most_ids_missing(void **state)
{
	struct fx *f = *state;
	static const int ids[] = {10, 70, 71, 72, 73, 74};
	hg_mapping_fit fit = name(f, "CrashTest", "main", ids, 6, OTHER_APP);
	assert_true(fit.foreign);
	assert_null(fit.package);
	assert_string_equal(f->last, "methodMapping other/methodMapping.txt looks like another "
			    "app's: 5 of the 6 method ids of the report are not in it (shown as "
			    "#<id>)");
}

static void test_no_package_too_few_ids(void **state)
{
	struct fx *f = *state;
	static const int ids[] = {10, 70, 71, 72};
	hg_mapping_fit fit = name(f, NULL, NULL, ids, 4, OTHER_APP);
	assert_false(fit.foreign);
	assert_string_equal(f->last, "3 method id(s) not in other/methodMapping.txt; shown as #<id>");
}

/* The app's own mapping that lacks most of a report's ids (the APM seed's
 * does): one id named into the package clears it. */
static void test_own_partial_mapping(void **state)
{
	struct fx *f = *state;
	static const int ids[] = {10, 70, 71, 72, 73, 74};
	hg_mapping_fit fit = name(f, "com.other.chat", NULL, ids, 6, OTHER_APP);
	assert_false(fit.foreign);
	assert_true(fit.in_package);
	assert_string_equal(f->last, "5 method id(s) not in other/methodMapping.txt; shown as #<id>");
}

/* The app's own mapping, and a stack of library code only: the mapping
 * has classes of the package elsewhere, so it is the app's. */
static void test_own_mapping_library_stack(void **state)
{
	struct fx *f = *state;
	static const int ids[] = {20, 21, 22, 23, 24};
	hg_mapping_fit fit = name(f, "com.example.reader", NULL, ids, 5,
				  "20,1,androidx.recyclerview.widget.RecyclerView onLayout (ZIIII)V\n"
				  "21,1,androidx.recyclerview.widget.RecyclerView layout ()V\n"
				  "22,1,com.bumptech.glide.Glide with (Landroid.view.View;)V\n"
				  "23,1,com.bumptech.glide.Glide load ()V\n"
				  "24,1,okhttp3.Call execute ()V\n"
				  "99,1,com.example.reader.Feed bind ()V\n"
				  "1048574,1,android.os.Handler dispatchMessage (Landroid.os.Message;)V\n");
	assert_false(fit.foreign);
	assert_false(fit.in_package);
	assert_true(fit.package_known);
	assert_string_equal(f->last, "");
}

/* dispatchMessage alone: every mapping has it; nothing at stake. */
static void test_dispatch_alone(void **state)
{
	struct fx *f = *state;
	hg_mapping_fit fit = name(f, "com.example.reader", NULL, NULL, 0, OTHER_APP);
	assert_false(fit.foreign);
	assert_int_equal(fit.ids, 0);
	assert_string_equal(f->last, "");
}

/* In a file read a chunk at a time (1 MiB): a class name cut by a
 * chunk's end is found; a package named only in descriptors
 * ("Lcom.example.") is not a class of the mapping. */
static void test_has_package_in_a_file(void **state)
{
	struct fx *f = *state;
	char path[] = "/tmp/hg-fit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *out = fdopen(fd, "w");
	assert_non_null(out);
	const size_t chunk = (size_t)1 << 20;
	size_t at = 0, id = 1;
	for (; at + 200 < chunk; id++)
		at += (size_t)fprintf(out, "%zu,1,com.other.B m%zu (Lcom.example.X;)V\n", id, id);
	/* a comment long enough that the next class starts 3 bytes before
	 * the chunk's end */
	char head[32];
	size_t head_len = (size_t)snprintf(head, sizeof head, "%zu,1,", id);
	size_t pad = chunk - 3 - head_len - at;
	assert_true(pad >= 2 && pad < 300);
	fprintf(out, "#%.*s\n", (int)(pad - 2), "......................................................"
		".................................................................................."
		".................................................................................."
		"...........................................................");
	at += pad;
	assert_int_equal(at, chunk - 3 - head_len);
	fprintf(out, "%scom.example.reader.Feed bind ()V\n", head);
	assert_int_equal(fclose(out), 0);
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_open(&f->ctx, path, &m), 0);
	assert_int_equal(hg_mapping_count(m), id);
	assert_true(hg_mapping_has_package(m, "com.example.reader", 11));
	assert_true(hg_mapping_has_package(m, "com.other", 9));
	assert_false(hg_mapping_has_package(m, "com.exam", 8));
	assert_false(hg_mapping_has_package(m, "org.example", 11));
	assert_false(hg_mapping_has_package(m, "org.example", 11)); /* remembered */
	hg_mapping_destroy(m);
	/* without that line, only descriptors name com.example */
	assert_int_equal(truncate(path, (off_t)at), 0);
	assert_int_equal(hg_mapping_open(&f->ctx, path, &m), 0);
	assert_false(hg_mapping_has_package(m, "com.example", 11));
	assert_true(hg_mapping_has_package(m, "com.other", 9));
	hg_mapping_destroy(m);
	unlink(path);
}

/* The namer of ingest says it once per mapping and package, naming the
 * report it first saw it in. */
static void test_namer_says_it_once(void **state)
{
	struct fx *f = *state;
	char path[] = "/tmp/hg-fit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, OTHER_APP, strlen(OTHER_APP)), (ssize_t)strlen(OTHER_APP));
	close(fd);
	hg_namer_opts o = {.mapping = path};
	hg_namer *n = NULL;
	assert_int_equal(hg_namer_create(&f->ctx, &o, &n), 0);
	static const char *const apps[] = {"com.example.reader", "com.example.reader",
					   "com.example.reader:push", "org.sample.app",
					   "com.other.chat", "org.sample.app"};
	static const int said[] = {1, 1, 1, 2, 2, 2};
	for (int i = 0; i < 6; i++) {
		hg_report *rep = report_of(apps[i], NULL, six, 6);
		hg_namer_name(n, rep, NULL, "-");
		assert_int_equal(f->warnings, said[i]);
		if (i == 0) {
			char want[256];
			snprintf(want, sizeof want, "r.json:1: methodMapping %s looks like another "
				 "app's: it has no class in com.example, the package of "
				 "com.example.reader; the names it gives are likely wrong", path);
			assert_string_equal(f->last, want);
		}
		hg_report_destroy(rep);
	}
	hg_namer_destroy(n);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_other_app_names_every_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_app_lacks_most_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scene_names_the_package, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_package_most_ids_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_package_too_few_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_partial_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_mapping_library_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_has_package_in_a_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_namer_says_it_once, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
