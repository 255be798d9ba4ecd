/* Unit tests for the lock graph (hg_threads_analyse): the blamed thread's
 * chain of "held by" links, found by tid or by the locks threads hold;
 * cycles of waits anywhere in the dump, with their threads and locks in
 * order; the idle main thread; and bounded work on malformed graphs
 * (self-waits, unknown and duplicate tids, long chains and rings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/arena.h"
#include "hangar/hangar.h"
#include "hangar/threads.h"

struct world {
	hg_arena *arena;
	hg_threads ts;
	hg_strlist warnings;
};

static int setup(void **state)
{
	struct world *w = test_calloc(1, sizeof *w);
	w->arena = hg_arena_create();
	assert_non_null(w->arena);
	w->ts.blamed = -1;
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	hg_arena_destroy(w->arena);
	test_free(w);
	return 0;
}

/* Adds a thread; returns its index. */
static size_t thread(struct world *w, const char *name, long tid)
{
	hg_thread *t = hg_threads_add(&w->ts, w->arena);
	assert_non_null(t);
	t->name = hg_arena_strdup(w->arena, name);
	t->tid = tid;
	t->state = "Runnable";
	return w->ts.n - 1;
}

static void holds(struct world *w, size_t i, const char *addr)
{
	assert_int_equal(hg_thread_add_held(&w->ts.items[i], w->arena, addr, "java.lang.Object"), 0);
}

static void waits(struct world *w, size_t i, const char *addr, long held_by)
{
	hg_thread *t = &w->ts.items[i];
	t->waiting.addr = addr;
	t->waiting.cls = "java.lang.Object";
	t->waiting_held_by = held_by;
	t->state = "Blocked";
}

static void java(struct world *w, size_t i, const char *frame)
{
	hg_frame parsed;
	assert_int_equal(hg_frame_parse_java(frame, strlen(frame), w->arena, &parsed), 0);
	hg_frame *f = hg_thread_add_frame(&w->ts.items[i], w->arena);
	assert_non_null(f);
	*f = parsed;
}

static void native(struct world *w, size_t i, const char *symbol)
{
	hg_frame *f = hg_thread_add_frame(&w->ts.items[i], w->arena);
	assert_non_null(f);
	f->kind = HG_FRAME_NATIVE;
	f->has_pc = true;
	f->pc = 0x1000;
	f->symbol = f->method = symbol;
}

static void blame(struct world *w, size_t i)
{
	w->ts.blamed = (long)i;
	w->ts.items[i].flags |= HG_THREAD_MAIN | HG_THREAD_BLAMED;
}

static void analyse(struct world *w)
{
	assert_int_equal(hg_threads_analyse(&w->ts, w->arena, &w->warnings), 0);
}

static unsigned flags(struct world *w, size_t i)
{
	return w->ts.items[i].flags;
}

static void assert_chain(struct world *w, size_t n, const size_t *want)
{
	assert_int_equal(w->ts.n_chain, n);
	for (size_t k = 0; k < n; k++)
		assert_int_equal(w->ts.chain[k], want[k]);
}

static void assert_cycle(struct world *w, size_t c, size_t n, const size_t *threads,
			 const char *const *locks)
{
	assert_true(c < w->ts.n_cycles);
	const hg_lock_cycle *cy = &w->ts.cycles[c];
	assert_int_equal(cy->n, n);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(cy->threads[k], threads[k]);
		assert_string_equal(cy->locks[k]->addr, locks[k]);
		assert_ptr_equal(cy->locks[k], &w->ts.items[threads[k]].waiting);
		assert_true(flags(w, threads[k]) & HG_THREAD_DEADLOCKED);
	}
}

/* ---- chains ---- */

static void test_chain_by_held_by(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1), a = thread(w, "A", 7), b = thread(w, "B", 9),
	       idle = thread(w, "idle", 3);
	waits(w, main, "0x1", 7);
	holds(w, a, "0x1");
	waits(w, a, "0x2", 9);
	holds(w, b, "0x2");
	blame(w, main);
	analyse(w);
	assert_chain(w, 2, (size_t[]){a, b});
	assert_true(flags(w, a) & HG_THREAD_BLOCKS_MAIN);
	assert_true(flags(w, b) & HG_THREAD_BLOCKS_MAIN);
	assert_false(flags(w, idle) & HG_THREAD_BLOCKS_MAIN);
	assert_false(flags(w, main) & (HG_THREAD_BLOCKS_MAIN | HG_THREAD_DEADLOCKED | HG_THREAD_IDLE));
	assert_int_equal(w->ts.n_cycles, 0);
	assert_int_equal(w->warnings.len, 0);
}

static void test_chain_by_held_locks(void **state)
{
	struct world *w = *state;
	/* No "held by": the holder is the thread that lists the lock. */
	size_t other = thread(w, "other", 4), main = thread(w, "main", 1), holder = thread(w, "H", 12);
	holds(w, other, "0xaa");
	holds(w, holder, "0xbb");
	holds(w, holder, "0x1");
	waits(w, main, "0x1", -1);
	blame(w, main);
	analyse(w);
	assert_chain(w, 1, (size_t[]){holder});
	assert_false(flags(w, other) & HG_THREAD_BLOCKS_MAIN);
}

static void test_held_by_wins_over_stale_held(void **state)
{
	struct world *w = *state;
	/* A waiter in Object.wait still lists the monitor: "held by" decides. */
	size_t main = thread(w, "main", 1), stale = thread(w, "stale", 3), real = thread(w, "real", 5);
	holds(w, stale, "0x1");
	holds(w, real, "0x1");
	waits(w, main, "0x1", 5);
	blame(w, main);
	analyse(w);
	assert_chain(w, 1, (size_t[]){real});
}

static void test_holder_missing(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1), a = thread(w, "A", 2);
	waits(w, main, "0x1", 2);
	holds(w, a, "0x1");
	waits(w, a, "0x2", 42); /* thread 42 is not in the dump, nobody holds 0x2 */
	blame(w, main);
	analyse(w);
	assert_chain(w, 1, (size_t[]){a});
	assert_int_equal(w->warnings.len, 1);
	assert_string_equal(w->warnings.items[0],
			    "\"A\" waits for <0x2> held by thread 42, which is not in the dump");
}

static void test_holder_unknown_no_tid(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1);
	waits(w, main, "0x9", -1);
	blame(w, main);
	analyse(w);
	assert_int_equal(w->ts.n_chain, 0);
	assert_int_equal(w->warnings.len, 1);
	assert_string_equal(w->warnings.items[0],
			    "\"main\" waits for <0x9>, and no thread in the dump holds it");
}

static void test_held_by_unknown_tid_falls_back(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1), h = thread(w, "H", 8);
	holds(w, h, "0x1");
	waits(w, main, "0x1", 77);
	blame(w, main);
	analyse(w);
	assert_chain(w, 1, (size_t[]){h});
	assert_int_equal(w->warnings.len, 0);
}

/* ---- cycles ---- */

static void test_two_thread_deadlock_with_main(void **state)
{
	struct world *w = *state;
	size_t bg = thread(w, "DbWorker", 22), x = thread(w, "x", 3), main = thread(w, "main", 1);
	holds(w, main, "0x04c3d9f8");
	waits(w, main, "0x0b7a51e2", 22);
	holds(w, bg, "0x0b7a51e2");
	waits(w, bg, "0x04c3d9f8", 1);
	blame(w, main);
	analyse(w);
	assert_chain(w, 1, (size_t[]){bg});
	assert_int_equal(w->ts.n_cycles, 1);
	/* The cycle starts at the blamed thread. */
	assert_cycle(w, 0, 2, (size_t[]){main, bg},
		     (const char *const[]){"0x0b7a51e2", "0x04c3d9f8"});
	assert_false(flags(w, x) & HG_THREAD_DEADLOCKED);
	assert_int_equal(w->warnings.len, 1);
	assert_string_equal(w->warnings.items[0],
			    "deadlock: \"main\" waits for <0x0b7a51e2> (a java.lang.Object) held by "
			    "\"DbWorker\", which waits for <0x04c3d9f8> (a java.lang.Object) held by "
			    "\"main\"");
}

static void test_cycle_away_from_main(void **state)
{
	struct world *w = *state;
	/* main -> T1 -> T2 <-> T3: the chain stops where it meets the cycle. */
	size_t t3 = thread(w, "T3", 13), main = thread(w, "main", 1), t1 = thread(w, "T1", 11),
	       t2 = thread(w, "T2", 12);
	holds(w, t1, "0xc");
	holds(w, t2, "0xd");
	holds(w, t3, "0xe");
	waits(w, main, "0xc", 11);
	waits(w, t1, "0xd", 12);
	waits(w, t2, "0xe", 13);
	waits(w, t3, "0xd", 12);
	blame(w, main);
	analyse(w);
	assert_chain(w, 3, (size_t[]){t1, t2, t3});
	assert_int_equal(w->ts.n_cycles, 1);
	/* Not through main: it starts at its first thread in dump order. */
	assert_cycle(w, 0, 2, (size_t[]){t3, t2}, (const char *const[]){"0xd", "0xe"});
	assert_false(flags(w, main) & HG_THREAD_DEADLOCKED);
	assert_false(flags(w, t1) & HG_THREAD_DEADLOCKED);
	assert_int_equal(w->warnings.len, 1);
	assert_string_equal(w->warnings.items[0],
			    "deadlock: \"T3\" waits for <0xd> (a java.lang.Object) held by \"T2\", "
			    "which waits for <0xe> (a java.lang.Object) held by \"T3\"");
}

static void test_three_cycle_and_second_cycle_without_blamed(void **state)
{
	struct world *w = *state;
	size_t a = thread(w, "A", 2), b = thread(w, "B", 3), c = thread(w, "C", 4),
	       d = thread(w, "D", 5), e = thread(w, "E", 6);
	holds(w, a, "0xa");
	holds(w, b, "0xb");
	holds(w, c, "0xc");
	holds(w, d, "0xd");
	holds(w, e, "0xe");
	waits(w, a, "0xb", -1);
	waits(w, b, "0xc", -1);
	waits(w, c, "0xa", -1);
	waits(w, d, "0xe", 6);
	waits(w, e, "0xd", 5);
	analyse(w); /* nothing blamed: cycles are still found */
	assert_int_equal(w->ts.n_chain, 0);
	assert_int_equal(w->ts.n_cycles, 2);
	assert_cycle(w, 0, 3, (size_t[]){a, b, c}, (const char *const[]){"0xb", "0xc", "0xa"});
	assert_cycle(w, 1, 2, (size_t[]){d, e}, (const char *const[]){"0xe", "0xd"});
	assert_int_equal(w->warnings.len, 2);
	assert_string_equal(w->warnings.items[0],
			    "deadlock: \"A\" waits for <0xb> (a java.lang.Object) held by \"B\", which "
			    "waits for <0xc> (a java.lang.Object) held by \"C\", which waits for <0xa> "
			    "(a java.lang.Object) held by \"A\"");
}

/* ---- malformed graphs ---- */

static void test_self_wait_and_bad_tids(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1), dup1 = thread(w, "dup", 7), dup2 = thread(w, "dup2", 7),
	       neg = thread(w, "neg", -5);
	holds(w, main, "0x1");
	waits(w, main, "0x1", 1); /* waits for itself */
	holds(w, dup1, "0x2");
	waits(w, dup1, "0x2", 7);
	waits(w, dup2, "0x3", -1);
	waits(w, neg, "0x4", -9);
	blame(w, main);
	analyse(w);
	assert_int_equal(w->ts.n_chain, 0);
	assert_int_equal(w->ts.n_cycles, 0);
	for (size_t i = 0; i < w->ts.n; i++)
		assert_false(flags(w, i) & (HG_THREAD_DEADLOCKED | HG_THREAD_BLOCKS_MAIN));
	assert_int_equal(w->warnings.len, 1);
	assert_string_equal(w->warnings.items[0],
			    "\"main\" waits for <0x1>, which the dump says it holds itself");
}

static void test_duplicate_tid_takes_first(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1), first = thread(w, "first", 7), second = thread(w, "second", 7);
	waits(w, main, "0x1", 7);
	holds(w, second, "0x1");
	blame(w, main);
	analyse(w);
	assert_chain(w, 1, (size_t[]){first});
	(void)second;
}

static void test_blamed_out_of_range(void **state)
{
	struct world *w = *state;
	size_t a = thread(w, "a", 1);
	java(w, a, "at android.os.MessageQueue.nativePollOnce(Native method)");
	w->ts.blamed = 5;
	analyse(w);
	assert_int_equal(w->ts.n_chain, 0);
	assert_int_equal(flags(w, a), 0);
	assert_int_equal(w->warnings.len, 0);
}

static void test_empty(void **state)
{
	struct world *w = *state;
	analyse(w);
	assert_int_equal(w->ts.n_chain, 0);
	assert_int_equal(w->ts.n_cycles, 0);
	assert_null(w->ts.chain);
}

static void test_long_chain_and_ring(void **state)
{
	struct world *w = *state;
	enum { N = 20000 };
	char addr[24];
	/* A line of N threads (each waits for the next), then a ring of N. */
	for (size_t i = 0; i < 2 * N; i++) {
		char name[24];
		snprintf(name, sizeof name, "t%zu", i);
		thread(w, name, (long)i + 1);
		snprintf(addr, sizeof addr, "0x%zx", i);
		holds(w, i, hg_arena_strdup(w->arena, addr));
	}
	for (size_t i = 0; i + 1 < N; i++)
		waits(w, i, w->ts.items[i + 1].held[0].addr, (long)i + 2);
	for (size_t i = N; i < 2 * N; i++) {
		size_t next = i + 1 < 2 * N ? i + 1 : N;
		waits(w, i, w->ts.items[next].held[0].addr, -1);
	}
	blame(w, 0);
	analyse(w);
	assert_int_equal(w->ts.n_chain, N - 1);
	assert_int_equal(w->ts.chain[N - 2], N - 1);
	assert_int_equal(w->ts.n_cycles, 1);
	assert_int_equal(w->ts.cycles[0].n, N);
	assert_int_equal(w->ts.cycles[0].threads[0], N);
	assert_int_equal(w->ts.cycles[0].threads[N - 1], 2 * N - 1);
}

/* ---- idle ---- */

static void test_idle_main(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1);
	native(w, main, "__epoll_pwait");
	native(w, main, "android::Looper::pollOnce(int, int*, int*, void**)");
	java(w, main, "at android.os.MessageQueue.nativePollOnce(Native method)");
	java(w, main, "at android.os.MessageQueue.next(MessageQueue.java:335)");
	java(w, main, "at android.os.Looper.loop(Looper.java:288)");
	blame(w, main);
	analyse(w);
	assert_true(flags(w, main) & HG_THREAD_IDLE);
	assert_int_equal(w->warnings.len, 1);
	assert_string_equal(w->warnings.items[0],
			    "the main thread was idle in MessageQueue.nativePollOnce when the dump "
			    "was taken: the dump missed the cause of the ANR");
}

static void test_not_idle(void **state)
{
	struct world *w = *state;
	/* Busy in a message: nativePollOnce is not the innermost Java frame. */
	size_t busy = thread(w, "main", 1);
	java(w, busy, "at com.example.Feed.load(Feed.java:12)");
	java(w, busy, "at android.os.MessageQueue.nativePollOnce(Native method)");
	/* Waiting for a lock is not idle, whatever the frames say. */
	size_t blocked = thread(w, "other", 2);
	java(w, blocked, "at android.os.MessageQueue.nativePollOnce(Native method)");
	waits(w, blocked, "0x1", -1);
	/* Only native frames. */
	size_t bare = thread(w, "bare", 3);
	native(w, bare, "android::android_os_MessageQueue_nativePollOnce");
	blame(w, busy);
	analyse(w);
	assert_false(flags(w, busy) & HG_THREAD_IDLE);
	assert_int_equal(w->warnings.len, 0);
	w->warnings.len = 0;
	w->ts.items[busy].flags = 0;
	blame(w, blocked);
	analyse(w);
	assert_false(flags(w, blocked) & HG_THREAD_IDLE);
	w->warnings.len = 0;
	blame(w, bare);
	analyse(w);
	assert_false(flags(w, bare) & HG_THREAD_IDLE);
	assert_int_equal(w->warnings.len, 0);
}

static void test_reanalyse_resets_results(void **state)
{
	struct world *w = *state;
	size_t main = thread(w, "main", 1), a = thread(w, "A", 2);
	waits(w, main, "0x1", 2);
	waits(w, a, "0x2", 1);
	holds(w, a, "0x1");
	holds(w, main, "0x2");
	blame(w, main);
	analyse(w);
	analyse(w);
	assert_int_equal(w->ts.n_chain, 1);
	assert_int_equal(w->ts.n_cycles, 1);
}

/* A reserved array is filled in place: frames keep their addresses, and
 * what was there before is kept. */
static void test_reserve_frames(void **state)
{
	struct world *w = *state;
	size_t i = thread(w, "main", 1);
	hg_thread *t = &w->ts.items[i];
	hg_frame *first = hg_thread_add_frame(t, w->arena);
	assert_non_null(first);
	first->text = "first";
	assert_int_equal(hg_thread_reserve_frames(t, w->arena, 1000), 0);
	assert_int_equal(t->cap_frames, 1001);
	assert_string_equal(t->frames[0].text, "first");
	hg_frame *base = t->frames;
	for (int k = 0; k < 1000; k++)
		assert_non_null(hg_thread_add_frame(t, w->arena));
	assert_ptr_equal(t->frames, base);
	assert_int_equal(t->n_frames, 1001);
	assert_int_equal(t->frames[1000].line, -1);
	assert_int_equal(t->frames[1000].repeat, 1);
	assert_int_equal(hg_thread_reserve_frames(t, w->arena, 0), 0);
	assert_int_equal(hg_thread_reserve_frames(t, w->arena, SIZE_MAX / 2), HG_ENOMEM);
	assert_non_null(hg_thread_add_frame(t, w->arena)); /* grows past the reservation */
	assert_int_equal(t->n_frames, 1002);
	assert_string_equal(t->frames[0].text, "first");
}

/* Arrays outgrown by one thread's frames serve the next thread's
 * (hg_arena_regrow): every thread keeps its own frames intact. */
static void test_frames_recycled(void **state)
{
	struct world *w = *state;
	static const char *const texts[] = {"a", "b", "c"};
	for (size_t k = 0; k < 3; k++) {
		size_t i = thread(w, texts[k], (long)k + 1);
		for (int n = 0; n < 40 + (int)k * 30; n++) {
			hg_frame *f = hg_thread_add_frame(&w->ts.items[i], w->arena);
			assert_non_null(f);
			assert_null(f->text); /* zeroed, even when recycled */
			f->text = texts[k];
			f->line = n;
		}
	}
	for (size_t k = 0; k < 3; k++) {
		const hg_thread *t = &w->ts.items[w->ts.n - 3 + k];
		assert_int_equal(t->n_frames, 40 + k * 30);
		for (size_t n = 0; n < t->n_frames; n++) {
			assert_string_equal(t->frames[n].text, texts[k]);
			assert_int_equal(t->frames[n].line, (long)n);
		}
	}
}

/* A thread of many frames outgrows the arena's chunk size: its array then
 * has a chunk of its own, realloc'd as it doubles, while small strings and
 * other big blocks are allocated around it (the chunk list stays linked:
 * ASan checks the arena's teardown). */
static void test_big_thread_grows_in_place(void **state)
{
	struct world *w = *state;
	size_t a = thread(w, "big-a", 1), b = thread(w, "big-b", 2);
	for (long n = 0; n < 20000; n++) {
		hg_thread *t = &w->ts.items[n % 3 ? a : b];
		hg_frame *f = hg_thread_add_frame(t, w->arena);
		assert_non_null(f);
		assert_null(f->text);
		f->text = hg_arena_printf(w->arena, "frame %ld", n);
		assert_non_null(f->text);
		f->line = n;
		if (n % 5000 == 0)
			assert_non_null(hg_arena_alloc(w->arena, 100000)); /* another big block */
	}
	assert_int_equal(hg_thread_reserve_frames(&w->ts.items[a], w->arena, 50000), 0);
	for (size_t k = 0; k < 2; k++) {
		const hg_thread *t = &w->ts.items[k ? b : a];
		size_t seen = 0;
		for (long n = 0; n < 20000; n++) {
			if ((n % 3 != 0) != (k == 0))
				continue;
			char want[32];
			snprintf(want, sizeof want, "frame %ld", n);
			assert_string_equal(t->frames[seen].text, want);
			assert_int_equal(t->frames[seen].line, n);
			seen++;
		}
		assert_int_equal(t->n_frames, seen);
	}
}

/* A million-frame report holds a million frames: the image index and the
 * symbolication flags must not make one bigger (LP64). */
static void test_frame_size_and_images(void **state)
{
	(void)state;
	if (sizeof(void *) == 8)
		assert_int_equal(sizeof(hg_frame), 96);
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	hg_threads ts = {0};
	uint32_t ref[20];
	for (uint32_t i = 0; i < 20; i++) {
		hg_image im = {.kind = HG_IMAGE_ELF, .name = "libx.so", .load_addr = i};
		assert_int_equal(hg_threads_add_image(&ts, arena, &im, &ref[i]), 0);
		assert_int_equal(ref[i], i + 1);
	}
	hg_frame f = {.image_ref = 7};
	assert_int_equal(hg_frame_image(&ts, &f)->load_addr, 6); /* grown, copied */
	f.image_ref = 21;
	assert_null(hg_frame_image(&ts, &f));
	f.image_ref = 0;
	assert_null(hg_frame_image(&ts, &f));
	hg_arena_destroy(arena);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_frame_size_and_images),
		T(test_chain_by_held_by),
		T(test_chain_by_held_locks),
		T(test_held_by_wins_over_stale_held),
		T(test_holder_missing),
		T(test_holder_unknown_no_tid),
		T(test_held_by_unknown_tid_falls_back),
		T(test_two_thread_deadlock_with_main),
		T(test_cycle_away_from_main),
		T(test_three_cycle_and_second_cycle_without_blamed),
		T(test_self_wait_and_bad_tids),
		T(test_duplicate_tid_takes_first),
		T(test_blamed_out_of_range),
		T(test_empty),
		T(test_long_chain_and_ring),
		T(test_idle_main),
		T(test_not_idle),
		T(test_reanalyse_resets_results),
		T(test_reserve_frames),
		T(test_frames_recycled),
		T(test_big_thread_grows_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
#undef T
}
