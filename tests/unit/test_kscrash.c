/* Unit tests for kscrash (being written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hangar/hangar.h"

static void test_placeholder(void **state)
{
	(void)state;
	assert_string_equal(hg_strerror(HG_EPARSE), "malformed input");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placeholder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
