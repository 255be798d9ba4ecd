/* hg_pipe (hangar/pipe.h): a reader thread's items taken in order, a
 * taker that stops (the reader's pushes fail, their items released), the
 * items left freed by hg_pipe_destroy, bad sizes refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hangar/hangar.h"
#include "hangar/pipe.h"

struct item {
	int *n;        /* heap: freed by release */
};

static int released;

static void release(void *arg)
{
	struct item *it = arg;
	free(it->n);
	it->n = NULL;
	released++;
}

struct reader {
	hg_pipe *pipe;
	int count, pushed, refused;
	bool close;
};

static void read_numbers(void *arg)
{
	struct reader *r = arg;
	for (int i = 0; i < r->count && !hg_pipe_stopped(r->pipe); i++) {
		struct item it = {malloc(sizeof(int))};
		assert_non_null(it.n);
		*it.n = i;
		if (hg_pipe_push(r->pipe, &it))
			r->pushed++;
		else
			r->refused++;
		assert_null(it.n); /* cleared either way */
	}
	if (r->close)
		hg_pipe_close(r->pipe);
}

static void test_in_order(void **state)
{
	(void)state;
	released = 0;
	hg_pipe *p = NULL;
	assert_int_equal(hg_pipe_create(sizeof(struct item), 8, release, &p), 0);
	struct reader r = {p, 1000, 0, 0, true};
	assert_int_equal(hg_pipe_start(p, read_numbers, &r), 0);
	struct item got[8];
	size_t n;
	int next = 0;
	while ((n = hg_pipe_take(p, got, 8)) > 0) {
		assert_true(n <= 8);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(*got[i].n, next++);
			release(&got[i]);
		}
	}
	hg_pipe_join(p);
	assert_int_equal(next, 1000);
	assert_int_equal(r.pushed, 1000);
	hg_pipe_destroy(p);
	assert_int_equal(released, 1000);
}

static void test_stopped_taker(void **state)
{
	(void)state;
	released = 0;
	hg_pipe *p = NULL;
	assert_int_equal(hg_pipe_create(sizeof(struct item), 4, release, &p), 0);
	struct reader r = {p, 100, 0, 0, false};
	assert_int_equal(hg_pipe_start(p, read_numbers, &r), 0);
	struct item got[2];
	size_t n = hg_pipe_take(p, got, 2);
	assert_true(n >= 1 && n <= 2);
	for (size_t i = 0; i < n; i++)
		release(&got[i]);
	hg_pipe_stop(p);
	hg_pipe_join(p);
	assert_true(r.pushed < 100);
	hg_pipe_destroy(p); /* frees what is left */
	assert_int_equal(released, r.pushed + r.refused);
}

static void test_create_refuses(void **state)
{
	(void)state;
	hg_pipe *p = NULL;
	assert_int_equal(hg_pipe_create(0, 8, NULL, &p), HG_EINVAL);
	assert_int_equal(hg_pipe_create(8, 0, NULL, &p), HG_EINVAL);
	assert_int_equal(hg_pipe_create((size_t)-1, 2, NULL, &p), HG_EINVAL);
	assert_null(p);
	assert_int_equal(hg_pipe_create(8, 2, NULL, &p), 0);
	hg_pipe_join(p); /* never started: nothing */
	hg_pipe_destroy(p);
	hg_pipe_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_stopped_taker),
		cmocka_unit_test(test_create_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
