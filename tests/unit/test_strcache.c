/* The string cache (strcache.c): equal bytes give the one copy, different
 * bytes (also a prefix, or the same bytes of another length) their own, NUL
 * terminated; strings that collide in a slot stay correct; long strings
 * are copied each time; the copies outlive the cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/arena.h"
#include "core/strcache.h"

static void test_shared_copies(void **state)
{
	(void)state;
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	struct strcache c;
	strcache_init(&c, arena);
	char buf[] = "UIKitCore 0x00000001820c4010 -[UIApplication sendEvent:] + 272";
	const char *a = strcache_get(&c, buf, strlen(buf));
	assert_non_null(a);
	assert_ptr_not_equal(a, buf);
	buf[0] = 'X'; /* the copy is the cache's own */
	assert_string_equal(a, "UIKitCore 0x00000001820c4010 -[UIApplication sendEvent:] + 272");
	buf[0] = 'U';
	assert_ptr_equal(strcache_get(&c, buf, strlen(buf)), a);
	const char *prefix = strcache_get(&c, buf, 9);
	assert_string_equal(prefix, "UIKitCore");
	assert_ptr_not_equal(prefix, a);
	assert_string_equal(strcache_get(&c, "", 0), "");
	/* Far more strings than slots: every one reads back right. */
	char key[64];
	const char *first = NULL;
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof key, "sym%d", i);
		const char *s = strcache_get(&c, key, (size_t)n);
		assert_non_null(s);
		assert_string_equal(s, key);
		if (i == 0)
			first = s;
	}
	assert_string_equal(first, "sym0");
	static char big[10000];
	memset(big, 'a', sizeof big - 1);
	const char *b1 = strcache_get(&c, big, sizeof big - 1), *b2 = strcache_get(&c, big, sizeof big - 1);
	assert_ptr_not_equal(b1, b2);
	assert_int_equal(strlen(b1), sizeof big - 1);
	strcache_release(&c);
	strcache_release(&c); /* twice is harmless */
	assert_string_equal(a, "UIKitCore 0x00000001820c4010 -[UIApplication sendEvent:] + 272");
	hg_arena_destroy(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
