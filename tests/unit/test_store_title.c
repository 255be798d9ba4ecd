/* Unit tests for the title of a cluster whose reports title it differently
 * (store_title.c): what they share is kept, and the answer is the same in
 * every order the titles come in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/store_internal.h"

static void assert_merged(const char *a, const char *b, const char *want)
{
	char *ab = store_title_merge(a, b), *ba = store_title_merge(b, a);
	assert_non_null(ab);
	assert_non_null(ba);
	assert_string_equal(ab, want);
	assert_string_equal(ba, want);
	free(ab);
	free(ba);
}

static void test_screens(void **state)
{
	(void)state;
	assert_merged("#41907 in DetailActivity", "#41907 in DetailActivity", "#41907 in DetailActivity");
	assert_merged("#41907 in DetailActivity", "#41907 in HomeActivity", "#41907 in several screens");
	assert_merged("#41907 in several screens", "#41907 in HomeActivity", "#41907 in several screens");
	assert_merged("Handler.dispatchMessage (the whole message) in A",
		      "Handler.dispatchMessage (the whole message) in B",
		      "Handler.dispatchMessage (the whole message) in several screens");
}

static void test_anr_types(void **state)
{
	(void)state;
	assert_merged("a.B.run (input dispatching ANR)", "a.B.run (broadcast ANR)", "a.B.run (ANR)");
	assert_merged("a.B.run (ANR)", "a.B.run (service ANR)", "a.B.run (ANR)");
	assert_merged("idle main thread (service ANR)", "idle main thread (broadcast ANR)",
		      "idle main thread (ANR)");
}

static void test_unrelated_and_order(void **state)
{
	(void)state;
	/* Different frames (no report pair should give these): the smaller. */
	assert_merged("#1 in A", "#2 in B", "#1 in A");
	assert_merged("x.Y.z", "x.Y.w", "x.Y.w");
	/* A scene-like tail with a blank is not a screen. */
	assert_merged("a in b c", "a in d", "a in b c");
	/* Every order of three titles gives one answer. */
	const char *t[3] = {"#7 in A", "#7 in B", "#7 in A"};
	int order[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	for (int i = 0; i < 6; i++) {
		char *x = store_title_merge(t[order[i][0]], t[order[i][1]]);
		char *y = store_title_merge(x, t[order[i][2]]);
		assert_string_equal(y, "#7 in several screens");
		free(x);
		free(y);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screens),
		cmocka_unit_test(test_anr_types),
		cmocka_unit_test(test_unrelated_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
