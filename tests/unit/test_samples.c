/* Unit tests for the tree of a report's stack samples (hangar/samples.h,
 * src/lib/report/report_samples.c) on reports built by hand: frame
 * identity (Java by class, method, file and line; native by pc, image,
 * symbol and offset), weights, shared and empty sample threads, children
 * heaviest first in pre-order, the heaviest path's rule, ambiguous
 * retraces, the blamed thread it makes (inserted first, samples moved),
 * finding a thread's path, the sampling gap, the function a native frame
 * is named by (hg_frame_function), and a 100,000-frame chain with
 * 100,000 samples (no recursion, linear).  No argv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/samples.h"
#include "report/report_internal.h"

static hg_frame java(const char *cls, const char *method, long line)
{
	return (hg_frame){.kind = HG_FRAME_JAVA, .cls = cls, .method = method, .file = "F.java",
			  .line = line, .repeat = 1, .text = method};
}

static hg_frame native(uint64_t pc, const char *symbol)
{
	return (hg_frame){.kind = HG_FRAME_NATIVE, .pc = pc, .has_pc = true, .symbol = symbol,
			  .image = "libx.so", .line = -1, .repeat = 1, .text = symbol};
}

/* A sample thread of frames given outermost first (as read), kept
 * innermost first. */
static long add_stack(hg_report *r, const hg_frame *outer_first, size_t n)
{
	hg_thread *t = hg_threads_add(&r->threads, r->arena);
	assert_non_null(t);
	for (size_t i = n; i-- > 0;) {
		hg_frame *f = hg_thread_add_frame(t, r->arena);
		assert_non_null(f);
		*f = outer_first[i];
	}
	return (long)r->threads.n - 1;
}

static void sample(hg_report *r, long thread, int64_t weight, int64_t at)
{
	assert_int_equal(hg_report_add_sample(r, thread, weight, NULL, at), 0);
}

static void test_frame_identity(void **state)
{
	(void)state;
	hg_frame a = java("a.B", "m", 12), b = java("a.B", "m", 12);
	b.text = "other text";  /* not part of it */
	b.repeat = 7;
	assert_true(hg_frame_same(&a, &b));
	assert_int_equal(hg_frame_hash(&a), hg_frame_hash(&b));
	b.line = 13;
	assert_false(hg_frame_same(&a, &b));
	b = java("a.C", "m", 12);
	assert_false(hg_frame_same(&a, &b));
	b = a;
	b.file = NULL;
	assert_false(hg_frame_same(&a, &b));
	hg_frame n1 = native(0x1000, "f"), n2 = native(0x1000, "f");
	assert_true(hg_frame_same(&n1, &n2));
	n2.pc = 0x1004; /* the same function, another pc: another frame, as the tree view writes */
	assert_false(hg_frame_same(&n1, &n2));
	n2 = n1;
	n2.image = "liby.so";
	assert_false(hg_frame_same(&n1, &n2));
	assert_false(hg_frame_same(&a, &n1));
}

/* Stacks (outermost first): [A B C] x3, [A B D] x1, [A E] weight 2, and
 * an empty sample.  The tree: A 6 > B 4 > C 3, D 1; A > E 2. */
static hg_report *three_stacks(void)
{
	hg_report *r = report_new("mem", 1, 1);
	assert_non_null(r);
	hg_frame A = java("x.A", "a", 1), B = java("x.B", "b", 2), C = java("x.C", "c", 3),
		 D = java("x.D", "d", 4), E = java("x.E", "e", 5);
	long abd = add_stack(r, (hg_frame[]){A, B, D}, 3);
	long abc = add_stack(r, (hg_frame[]){A, B, C}, 3);
	long ae = add_stack(r, (hg_frame[]){A, E}, 2);
	long none = add_stack(r, NULL, 0);
	sample(r, abd, 1, 1000);
	sample(r, abc, 1, 1100);
	sample(r, ae, 2, 1200);
	sample(r, abc, 1, 1300);
	sample(r, none, 1, -1);
	sample(r, abc, 1, 1600);
	return r;
}

static void test_tree(void **state)
{
	(void)state;
	hg_report *r = three_stacks();
	for (size_t i = 0; i < r->threads.n; i++)
		assert_int_equal(r->threads.items[i].flags, HG_THREAD_SAMPLE);
	hg_sample_tree t;
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_int_equal(t.samples, 6);
	assert_int_equal(t.total, 7);
	assert_int_equal(t.empty, 1);
	assert_int_equal(t.timed, 5);
	assert_int_equal(t.first_at, 1000);
	assert_int_equal(t.last_at, 1600);
	/* pre-order, heaviest first: A, B, C, D, E */
	static const struct {
		const char *method;
		int64_t total, self;
		size_t parent, depth;
	} want[] = {{"a", 6, 0, HG_SAMPLE_NONE, 0}, {"b", 4, 0, 0, 1}, {"c", 3, 3, 1, 2},
		    {"d", 1, 1, 1, 2}, {"e", 2, 2, 0, 1}};
	assert_int_equal(t.n, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(t.nodes[i].frame->method, want[i].method);
		assert_int_equal(t.nodes[i].total, want[i].total);
		assert_int_equal(t.nodes[i].self, want[i].self);
		assert_int_equal(t.nodes[i].parent, want[i].parent);
		assert_int_equal(t.nodes[i].depth, want[i].depth);
	}
	assert_int_equal(t.nodes[0].first_child, 1);
	assert_int_equal(t.nodes[1].next_sibling, 4);
	assert_int_equal(t.nodes[2].next_sibling, 3);
	assert_int_equal(t.nodes[3].next_sibling, HG_SAMPLE_NONE);
	assert_int_equal(t.nodes[0].next_sibling, HG_SAMPLE_NONE); /* one root */
	/* the frame a node stands for: the first sampled thread's */
	assert_int_equal(t.nodes[0].thread, 0);
	assert_int_equal(t.nodes[2].thread, 1);
	assert_int_equal(t.nodes[2].frame_index, 0);
	/* heaviest path A > B > C */
	assert_int_equal(t.heaviest, 2);
	assert_true(t.nodes[0].heaviest && t.nodes[1].heaviest && t.nodes[2].heaviest);
	assert_false(t.nodes[3].heaviest || t.nodes[4].heaviest);
	assert_int_equal(hg_sample_tree_find(&t, &r->threads.items[0]), 3);
	assert_int_equal(hg_sample_tree_find(&t, &r->threads.items[3]), HG_SAMPLE_NONE);
	hg_thread other = {0};
	hg_frame z = java("x.Z", "z", 9);
	other.frames = &z;
	other.n_frames = 1;
	assert_int_equal(hg_sample_tree_find(&t, &other), HG_SAMPLE_NONE);
	/* a sample of no thread is refused */
	assert_int_equal(hg_report_add_sample(r, 99, 1, NULL, -1), HG_EINVAL);
	assert_int_equal(hg_report_sample_gap(r), 100); /* gaps 100 100 100 300 */
	hg_report_destroy(r);
}

/* The heaviest path stops where more samples end than go on, and ties go
 * to the child sampled first. */
static void test_heaviest_rule(void **state)
{
	(void)state;
	hg_report *r = report_new("mem", 1, 1);
	hg_frame A = java("x.A", "a", 1), B = java("x.B", "b", 2), C = java("x.C", "c", 3);
	long a = add_stack(r, (hg_frame[]){A}, 1), ab = add_stack(r, (hg_frame[]){A, B}, 2),
	     ac = add_stack(r, (hg_frame[]){A, C}, 2);
	sample(r, ab, 1, -1);
	sample(r, ac, 1, -1);
	sample(r, a, 2, -1);
	hg_sample_tree t;
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_int_equal(t.heaviest, 0); /* 2 end at A: more than B's or C's 1 */
	assert_string_equal(t.nodes[1].frame->method, "b"); /* tie: B sampled first */
	sample(r, a, -5, -1); /* a negative weight counts nothing */
	sample(r, ab, 1, -1);
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_int_equal(t.total, 5);
	assert_string_equal(t.nodes[t.heaviest].frame->method, "a"); /* 2 end at A, B holds 2 */
	sample(r, ab, 1, -1);
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_string_equal(t.nodes[t.heaviest].frame->method, "b"); /* 3 > 2 */
	hg_report_destroy(r);
}

/* The other candidates of an ambiguous retrace are not the tree's. */
static void test_candidates(void **state)
{
	(void)state;
	hg_report *r = report_new("mem", 1, 1);
	hg_frame A = java("x.A", "a", 1), B1 = java("x.B", "one", 2), B2 = java("x.B", "two", 2);
	B1.candidate = 1;
	B2.candidate = 2;
	B2.alternative = true;
	sample(r, add_stack(r, (hg_frame[]){A, B1, B2}, 3), 1, -1);
	hg_sample_tree t;
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.nodes[1].frame->method, "one");
	hg_report_destroy(r);
}

static void test_blame_heaviest(void **state)
{
	(void)state;
	hg_report *r = three_stacks();
	assert_int_equal(hg_report_blame_heaviest(r, "main", HG_THREAD_MAIN), 0);
	assert_int_equal(r->threads.n, 5);
	assert_int_equal(r->threads.blamed, 0);
	const hg_thread *t = &r->threads.items[0];
	assert_string_equal(t->name, "main");
	assert_int_equal(t->flags, HG_THREAD_MAIN | HG_THREAD_BLAMED);
	assert_int_equal(t->n_frames, 3);
	static const char *const methods[] = {"c", "b", "a"};
	static const long repeats[] = {3, 4, 6};
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(t->frames[i].method, methods[i]);
		assert_int_equal(t->frames[i].repeat, repeats[i]);
	}
	/* the samples moved with their threads */
	assert_int_equal(r->samples[0].thread, 1);
	assert_int_equal(r->samples[1].thread, 2);
	assert_string_equal(r->threads.items[r->samples[1].thread].frames[0].method, "c");
	/* the tree is the same, and holds the blamed thread's path */
	hg_sample_tree tr;
	assert_int_equal(hg_report_sample_tree(r, r->arena, &tr), 0);
	assert_int_equal(tr.n, 5);
	assert_int_equal(hg_sample_tree_find(&tr, t), tr.heaviest);
	hg_report_destroy(r);
	/* nothing to blame: no samples, or none with frames */
	r = report_new("mem", 1, 1);
	assert_int_equal(hg_report_blame_heaviest(r, "main", 0), 0);
	assert_int_equal(r->threads.n, 0);
	sample(r, add_stack(r, NULL, 0), 1, -1);
	assert_int_equal(hg_report_blame_heaviest(r, "main", 0), 0);
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.blamed, -1);
	assert_int_equal(hg_report_sample_gap(r), 0);
	hg_report_destroy(r);
}

/* Native frames merge by pc, not by name. */
static void test_native(void **state)
{
	(void)state;
	hg_report *r = report_new("mem", 1, 1);
	hg_frame m = native(0x100, "main"), f1 = native(0x200, "f"), f2 = native(0x204, "f");
	sample(r, add_stack(r, (hg_frame[]){m, f1}, 2), 1, -1);
	sample(r, add_stack(r, (hg_frame[]){m, f2}, 2), 1, -1);
	sample(r, add_stack(r, (hg_frame[]){m, f1}, 2), 1, -1);
	hg_sample_tree t;
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.nodes[1].frame->pc, 0x200);
	assert_int_equal(t.nodes[1].total, 2);
	assert_int_equal(t.nodes[2].frame->pc, 0x204);
	hg_report_destroy(r);
}

/* The function every output names a native frame by: the symbol files'
 * name, the demangled name with the offset the symbol was written with,
 * the symbol as written, the method; none for a Java frame. */
static void test_frame_function(void **state)
{
	(void)state;
	const char *rest;
	hg_frame f = native(0x100, "_ZN3art3FooEv+24");
	f.mangled = "_ZN3art3FooEv";
	f.method = "art::Foo()";
	assert_string_equal(hg_frame_function(&f, &rest), "art::Foo()");
	assert_string_equal(rest, "+24");
	f.symbol = "$s6Reader8FeedViewC4loadyyF"; /* the symbol is not the mangled name's */
	assert_string_equal(hg_frame_function(&f, &rest), "art::Foo()");
	assert_string_equal(rest, "");
	f.symbolicated = true; /* symbol files name it: their name, nothing after */
	f.method = "Reader.FeedView.load() -> ()";
	f.mangled = NULL;
	assert_string_equal(hg_frame_function(&f, &rest), "Reader.FeedView.load() -> ()");
	assert_string_equal(rest, "");
	hg_frame g = native(0x200, "art::Thread::DumpStack() const+370");
	assert_string_equal(hg_frame_function(&g, &rest), "art::Thread::DumpStack() const+370");
	g.symbol = NULL;
	assert_null(hg_frame_function(&g, &rest));
	g.method = "f";
	assert_string_equal(hg_frame_function(&g, &rest), "f");
	hg_frame j = java("a.B", "m", 12);
	assert_null(hg_frame_function(&j, &rest));
	assert_string_equal(rest, "");
}

/* A chain 100,000 frames deep sampled 100,000 times (one thread): built
 * and walked without recursion; every sample counted. */
static void test_deep_and_many(void **state)
{
	(void)state;
	enum { DEPTH = 100000, SAMPLES = 100000 };
	hg_report *r = report_new("mem", 1, 1);
	hg_thread *th = hg_threads_add(&r->threads, r->arena);
	assert_int_equal(hg_thread_reserve_frames(th, r->arena, DEPTH), 0);
	for (long i = 0; i < DEPTH; i++)
		th->frames[th->n_frames++] = java("x.Deep", "step", i + 1);
	for (int i = 0; i < SAMPLES; i++)
		sample(r, 0, 1, 1000 + 10 * (int64_t)i);
	hg_sample_tree t;
	assert_int_equal(hg_report_sample_tree(r, r->arena, &t), 0);
	assert_int_equal(t.n, DEPTH);
	assert_int_equal(t.total, SAMPLES);
	assert_int_equal(t.nodes[DEPTH - 1].depth, DEPTH - 1);
	assert_int_equal(t.nodes[DEPTH - 1].self, SAMPLES);
	assert_int_equal(t.heaviest, DEPTH - 1);
	assert_int_equal(t.nodes[0].frame->line, DEPTH); /* the outermost: kept last */
	assert_int_equal(hg_report_sample_gap(r), 10);
	assert_int_equal(hg_report_blame_heaviest(r, "main", 0), 0);
	assert_int_equal(r->threads.items[0].n_frames, DEPTH);
	assert_int_equal(r->samples[SAMPLES - 1].thread, 1);
	hg_report_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_identity),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_heaviest_rule),
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_blame_heaviest),
		cmocka_unit_test(test_native),
		cmocka_unit_test(test_frame_function),
		cmocka_unit_test(test_deep_and_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
