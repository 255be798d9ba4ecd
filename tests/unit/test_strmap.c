/* The store's string map (strmap.c): absent keys, values set and set
 * again, growth past many keys, keys that differ late or are empty, and
 * clearing (after which the map is usable again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/strmap.h"

static void test_put_get_grow_clear(void **state)
{
	(void)state;
	strmap m = {0};
	int64_t v = -1;
	assert_false(strmap_get(&m, "a", &v)); /* empty, never grown */
	char key[64];
	for (int i = 0; i < 10000; i++) {
		snprintf(key, sizeof key, "com.example.reader.Class%d.method", i);
		assert_int_equal(strmap_put(&m, key, i), 0);
	}
	assert_int_equal(m.len, 10000);
	for (int i = 0; i < 10000; i += 7) {
		snprintf(key, sizeof key, "com.example.reader.Class%d.method", i);
		assert_true(strmap_get(&m, key, &v));
		assert_int_equal(v, i);
	}
	assert_false(strmap_get(&m, "com.example.reader.Class10000.method", &v));
	assert_int_equal(strmap_put(&m, "com.example.reader.Class5.method", -5), 0); /* set again */
	assert_int_equal(m.len, 10000);
	assert_true(strmap_get(&m, "com.example.reader.Class5.method", &v));
	assert_int_equal(v, -5);
	assert_int_equal(strmap_put(&m, "", INT64_MAX), 0);
	assert_true(strmap_get(&m, "", &v));
	assert_int_equal(v, INT64_MAX);
	strmap_clear(&m);
	assert_int_equal(m.len, 0);
	assert_false(strmap_get(&m, "", &v));
	assert_int_equal(strmap_put(&m, "again", 1), 0);
	assert_true(strmap_get(&m, "again", &v));
	strmap_clear(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_grow_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
