/* 581 real Matrix reports from a production app (testdata/matrix-mangatoon,
 * provenance in testdata/README.md): every one must read without error, and
 * on every one that carries the device's stackKey, hangar's recomputed
 * StackKey must be the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/input.h"
#include "hangar/report.h"

static const char *corpus_path;

struct tally {
	size_t reports, keyed, agree, errors, with_threads, good_threads;
};

static int on_report(void *user, hg_report *rep)
{
	struct tally *t = user;
	t->reports++;
	if (rep->error) {
		fprintf(stderr, "report %ld: %s\n", rep->number, rep->error);
		t->errors++;
	} else if (rep->threads.n) {
		t->with_threads++;
		if (rep->threads.n != 1 || rep->threads.items[0].n_frames == 0 ||
		    rep->threads.blamed != 0)
			fprintf(stderr, "report %ld: threadStack not read as one blamed thread\n",
				rep->number);
		else
			t->good_threads++;
	}
	if (!rep->error && rep->has_device_key) {
		t->keyed++;
		const char *mine = hg_report_stack_key_text(rep);
		if (strcmp(mine, rep->device_key) == 0)
			t->agree++;
		else
			fprintf(stderr, "line %ld: device stackKey %s, hangar %s\n", rep->line,
				rep->device_key, mine);
	}
	hg_report_destroy(rep);
	return 0;
}

static void test_stack_key_equals_device_on_every_report(void **state)
{
	(void)state;
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data;
	size_t len;
	assert_int_equal(hg_input_read(&ctx, corpus_path, &data, &len), 0);
	struct tally t = {0};
	assert_int_equal(hg_reports_read(&ctx, corpus_path, data, len, on_report, &t), 0);
	free(data);
	printf("corpus: %zu reports, %zu with a device stackKey, %zu agree\n", t.reports, t.keyed,
	       t.agree);
	assert_int_equal(t.reports, 581);
	assert_int_equal(t.errors, 0);
	assert_int_equal(t.with_threads, 103);
	assert_int_equal(t.good_threads, 103);
	assert_int_equal(t.keyed, 487);
	assert_int_equal(t.agree, t.keyed);
}

int main(int argc, char **argv)
{
	corpus_path = argc > 1 ? argv[1] : "testdata/matrix-mangatoon/reports.ndjson";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_key_equals_device_on_every_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
