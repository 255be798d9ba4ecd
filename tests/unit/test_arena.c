/* hg_arena (hangar/arena.h): zeroed, aligned blocks; regrow keeps what a
 * block held; chunks given back by hg_arena_destroy on one thread serve
 * arenas made on another, zeroed again, and no more than the bound is
 * kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/arena.h"
#include "hangar/hangar.h"
#include "hangar/pipe.h"

#define KEPT_AT_MOST 16

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void test_blocks_zeroed_and_aligned(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	assert_non_null(a);
	size_t sizes[] = {1, 3, 16, 100, 4000, 16384, 16385, 70000, 1 << 20, 3 << 20};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		unsigned char *p = hg_arena_alloc(a, sizes[i]);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		assert_true(all_zero(p, sizes[i]));
		memset(p, 0xAB, sizes[i]);
	}
	hg_arena_destroy(a);
}

/* A block of 2 MiB or more is on huge pages (hg_big_alloc), zeroed by hand:
 * one that malloc hands back after a filled one was freed is zero too. */
static void test_big_block_reused_is_zeroed(void **state)
{
	(void)state;
	size_t size = (size_t)5 << 20;
	for (int round = 0; round < 3; round++) {
		hg_arena *a = hg_arena_create();
		assert_non_null(a);
		unsigned char *p = hg_arena_alloc(a, size);
		assert_non_null(p);
		assert_true(all_zero(p, size));
		memset(p, 0xCD, size);
		unsigned char *q = hg_arena_alloc_unzeroed(a, size);
		assert_non_null(q);
		memset(q, 0x11, size);
		assert_int_equal(p[size - 1], 0xCD);
		hg_arena_destroy(a);
	}
}

static void test_regrow_keeps_contents(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	int *v = NULL;
	size_t cap = 0;
	for (int i = 0; i < 1000000; i++) { /* to 4 MiB: past the huge-page size */
		if ((size_t)i == cap) {
			size_t grown = cap ? cap * 2 : 4;
			v = hg_arena_regrow(a, v, cap * sizeof *v, grown * sizeof *v);
			assert_non_null(v);
			assert_true(all_zero((unsigned char *)(v + cap), (grown - cap) * sizeof *v));
			cap = grown;
		}
		v[i] = i * 7;
	}
	for (int i = 0; i < 1000000; i++)
		assert_int_equal(v[i], i * 7);
	hg_arena_destroy(a);
}

/* What the reading thread hands on: an arena whose chunks hold a pattern
 * of its own. */
struct filled {
	hg_arena *arena;
	unsigned char **blocks;
	size_t nblocks;
	unsigned char mark;
};

#define BLOCK 3000
#define BLOCKS 60 /* about three 64 KiB chunks */

static void release(void *item)
{
	struct filled *f = item;
	hg_arena_destroy(f->arena);
	f->arena = NULL;
}

struct maker {
	hg_pipe *pipe;
	int count;
};

static void make_arenas(void *user)
{
	struct maker *m = user;
	for (int i = 0; i < m->count; i++) {
		struct filled f = {hg_arena_create(), NULL, BLOCKS, (unsigned char)(i % 250 + 1)};
		assert_non_null(f.arena);
		f.blocks = hg_arena_alloc(f.arena, BLOCKS * sizeof *f.blocks);
		assert_non_null(f.blocks);
		for (size_t b = 0; b < BLOCKS; b++) {
			/* a reused chunk comes back zeroed where it is handed out */
			f.blocks[b] = hg_arena_alloc(f.arena, BLOCK);
			assert_non_null(f.blocks[b]);
			assert_true(all_zero(f.blocks[b], BLOCK));
			memset(f.blocks[b], f.mark, BLOCK);
		}
		if (!hg_pipe_push(m->pipe, &f))
			break;
	}
	hg_pipe_close(m->pipe);
}

static void test_chunks_pass_between_threads(void **state)
{
	(void)state;
	hg_arena_free_cached();
	assert_int_equal(hg_arena_cached_chunks(), 0);
	hg_pipe *p = NULL;
	assert_int_equal(hg_pipe_create(sizeof(struct filled), 4, release, &p), 0);
	struct maker m = {p, 3000};
	assert_int_equal(hg_pipe_start(p, make_arenas, &m), 0);
	struct filled got[4];
	size_t n, seen = 0, most = 0;
	while ((n = hg_pipe_take(p, got, 4)) > 0) {
		for (size_t k = 0; k < n; k++) {
			/* nothing another arena wrote shows through */
			for (size_t b = 0; b < got[k].nblocks; b++)
				for (size_t i = 0; i < BLOCK; i++)
					if (got[k].blocks[b][i] != got[k].mark)
						fail_msg("arena %zu block %zu byte %zu: %u, not %u", seen, b, i,
							 got[k].blocks[b][i], got[k].mark);
			hg_arena_destroy(got[k].arena);
			seen++;
			size_t kept = hg_arena_cached_chunks();
			most = kept > most ? kept : most;
		}
	}
	hg_pipe_join(p);
	hg_pipe_destroy(p);
	assert_int_equal(seen, 3000);
	/* Chunks were kept for reuse, and never more than the bound. */
	assert_true(most > 0);
	assert_true(most <= KEPT_AT_MOST);
	hg_arena_free_cached();
	assert_int_equal(hg_arena_cached_chunks(), 0);
}

/* Many arenas destroyed at once keep the bound; what is over is freed
 * (LeakSanitizer would see it lost otherwise). */
static void test_kept_chunks_bounded(void **state)
{
	(void)state;
	hg_arena_free_cached();
	hg_arena *many[200];
	for (size_t i = 0; i < 200; i++) {
		many[i] = hg_arena_create();
		for (int b = 0; b < 50; b++)
			assert_non_null(hg_arena_alloc_unzeroed(many[i], BLOCK));
	}
	for (size_t i = 0; i < 200; i++)
		hg_arena_destroy(many[i]);
	assert_int_equal(hg_arena_cached_chunks(), KEPT_AT_MOST);
	/* and they serve the next arenas */
	hg_arena *a = hg_arena_create();
	unsigned char *p = hg_arena_alloc(a, 5000);
	assert_non_null(p);
	assert_true(all_zero(p, 5000));
	assert_int_equal(hg_arena_cached_chunks(), KEPT_AT_MOST - 1);
	hg_arena_destroy(a);
	assert_int_equal(hg_arena_cached_chunks(), KEPT_AT_MOST);
	hg_arena_free_cached();
	/* Arenas that start small grow through 4, 8, 16, 32 and 64 KiB
	 * chunks: each size is kept up to the bound. */
	for (size_t i = 0; i < 200; i++) {
		many[i] = hg_arena_create_sized(4096);
		for (int b = 0; b < 300; b++)
			assert_non_null(hg_arena_alloc_unzeroed(many[i], 500));
	}
	for (size_t i = 0; i < 200; i++)
		hg_arena_destroy(many[i]);
	assert_int_equal(hg_arena_cached_chunks(), 5 * KEPT_AT_MOST);
	hg_arena_free_cached();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks_zeroed_and_aligned),
		cmocka_unit_test(test_big_block_reused_is_zeroed),
		cmocka_unit_test(test_regrow_keeps_contents),
		cmocka_unit_test(test_chunks_pass_between_threads),
		cmocka_unit_test(test_kept_chunks_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
