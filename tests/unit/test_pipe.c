/* hg_pipe (hangar/pipe.h): a reader thread's items taken in order, a
 * taker that stops (the reader's pushes fail, their items released), the
 * items left freed by hg_pipe_destroy, bad sizes refused; on one CPU the
 * taker is woken per half queue, not per item, and an item that comes
 * alone is still taken. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

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

/* Takes everything from p in order. */
static void take_all(hg_pipe *p, int count)
{
	struct item got[64];
	size_t n;
	int next = 0;
	while ((n = hg_pipe_take(p, got, 64)) > 0)
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(*got[i].n, next++);
			release(&got[i]);
		}
	assert_int_equal(next, count);
}

/* Pins this thread, and so the reader it starts, to one CPU; the old
 * set in *old. */
static void pin_to_one_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	assert_int_equal(sched_getaffinity(0, sizeof *old, old), 0);
	int cpu = 0;
	while (!CPU_ISSET(cpu, old))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
}

/* A 64-slot pipe whose reader (reading count items with read) runs on
 * the one CPU this thread is pinned to; the old affinity in *old. */
static hg_pipe *start_on_one_cpu(cpu_set_t *old, struct reader *r, void (*read)(void *))
{
	pin_to_one_cpu(old);
	released = 0;
	assert_int_equal(hg_pipe_create(sizeof(struct item), 64, release, &r->pipe), 0);
	assert_int_equal(hg_pipe_start(r->pipe, read, r), 0);
	return r->pipe;
}

/* On one CPU the reader woke the taker whenever the queue had been empty:
 * 20,000 items through 64 slots woke it about 1,000 times here, each a
 * switch there and back.  Woken at half the queue, at most once per 32. */
static void test_one_cpu_wakes_per_half_queue(void **state)
{
	(void)state;
	cpu_set_t old;
	struct reader r = {NULL, 20000, 0, 0, true};
	hg_pipe *p = start_on_one_cpu(&old, &r, read_numbers);
	take_all(p, 20000);
	hg_pipe_join(p);
	size_t wakes = hg_pipe_wakes(p);
	hg_pipe_destroy(p);
	assert_int_equal(sched_setaffinity(0, sizeof old, &old), 0);
	assert_int_equal(released, 20000);
	print_message("one CPU: the taker was woken %zu times for 20000 items\n", wakes);
	assert_true(wakes <= 20000 / 32);
}

/* On more than one, every push into an empty queue wakes it (the taker
 * looks for items a while before it sleeps, so it is seldom asleep). */
static void test_wakes_counted(void **state)
{
	(void)state;
	released = 0;
	hg_pipe *p = NULL;
	assert_int_equal(hg_pipe_create(sizeof(struct item), 8, release, &p), 0);
	assert_int_equal(hg_pipe_wakes(p), 0);
	struct reader r = {p, 500, 0, 0, true};
	assert_int_equal(hg_pipe_start(p, read_numbers, &r), 0);
	take_all(p, 500);
	hg_pipe_join(p);
	assert_true(hg_pipe_wakes(p) >= 1 && hg_pipe_wakes(p) <= 500);
	hg_pipe_destroy(p);
}

/* One item and then a pause (a paused input): not half the queue, yet the
 * taker takes it after its timed wait, without the reader closing. */
static void read_one_then_wait(void *arg)
{
	struct reader *r = arg;
	struct item it = {malloc(sizeof(int))};
	assert_non_null(it.n);
	*it.n = 0;
	assert_true(hg_pipe_push(r->pipe, &it));
	r->pushed++;
	while (!hg_pipe_stopped(r->pipe)) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	hg_pipe_close(r->pipe);
}

static void test_one_cpu_lone_item_taken(void **state)
{
	(void)state;
	cpu_set_t old;
	struct reader r = {NULL, 1, 0, 0, false};
	hg_pipe *p = start_on_one_cpu(&old, &r, read_one_then_wait);
	struct item got[4];
	assert_int_equal(hg_pipe_take(p, got, 4), 1); /* returns while the reader waits */
	assert_int_equal(*got[0].n, 0);
	release(&got[0]);
	hg_pipe_stop(p);
	hg_pipe_join(p);
	hg_pipe_destroy(p);
	assert_int_equal(sched_setaffinity(0, sizeof old, &old), 0);
	assert_int_equal(released, 1);
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
		cmocka_unit_test(test_one_cpu_wakes_per_half_queue),
		cmocka_unit_test(test_wakes_counted),
		cmocka_unit_test(test_one_cpu_lone_item_taken),
		cmocka_unit_test(test_create_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
