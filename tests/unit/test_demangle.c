/* Demangling (src/lib/demangle/): every line of Swift's own test vectors
 * (testdata/demangle/swift-manglings.txt, Swift 6.2.3) gives exactly
 * Swift's text or NULL, never another text, with at least the counts
 * reached so far demangled whole; unmangled suffixes; C++ vectors against
 * Debian's c++filt; hostile input: every prefix of every vector, deep
 * nesting, substitution loops, repeat counts, a 1 MB symbol, random bytes;
 * the memo; names in text.  argv[1] is the testdata/ directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/demangle.h"
#include "hangar/hangar.h"
#include "hangar/report.h"

static const char *testdata = "testdata";

/* The lines of testdata/demangle/<name>, malloc'd (free_lines). */
static char **read_lines(const char *name, size_t *n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/demangle/%s", testdata, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char **lines = NULL;
	size_t cap = 0;
	*n = 0;
	char buf[16384];
	while (fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, "\n")] = 0;
		if (!buf[0])
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			lines = realloc(lines, cap * sizeof *lines);
			assert_non_null(lines);
		}
		lines[(*n)++] = strdup(buf);
	}
	fclose(f);
	assert_true(*n > 0);
	return lines;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

static const char *demangle(hg_arena *a, const char *s, size_t len)
{
	const char *r = (const char *)1;
	assert_int_equal(hg_demangle(s, len, a, &r), 0);
	return r;
}

/* A line of Swift's manglings.txt, split as Swift's own test does
 * (test/Demangle/demangle.swift): the symbol before " ---> ", the text
 * after its last "---> ", less the classification note swift-demangle
 * -classify adds ("{T:...} ", "{C} "); false for a line without one. */
static bool split_vector(char *line, char **mangled, char **expected)
{
	char *sep = strstr(line, "--->"), *last = sep;
	if (!sep)
		return false;
	while ((sep = strstr(last + 4, "--->")))
		last = sep;
	char *end = strstr(line, "--->");
	while (end > line && end[-1] == ' ')
		end--;
	*end = 0;
	*mangled = line;
	*expected = last + 4;
	while (**expected == ' ')
		++*expected;
	if (**expected == '{') {
		char *close = strstr(*expected, "} ");
		assert_non_null(close);
		*expected = close + 2;
	}
	return true;
}

enum family { SWIFT5, MACRO, OLD, OTHER };

static enum family family_of(const char *s)
{
	if (strncmp(s, "@__swiftmacro_", 14) == 0)
		return MACRO;
	const char *t = s[0] == '_' ? s + 1 : s;
	if (t[0] == '$' && (t[1] == 's' || t[1] == 'S' || t[1] == 'e'))
		return SWIFT5;
	return strncmp(s, "_T", 2) == 0 ? OLD : OTHER;
}

/* Each line exact or NULL, never another text; an invalid mangling (Swift
 * gives it back as it is) NULL.  The counts demangled whole: all the
 * Swift 5 (and 4.2, and Embedded) names and macro expansion buffers, all
 * the older "_T" names, as reached when this was written; the task asked
 * for 167 of the 176 Swift 5 names at least. */
static void test_swift_manglings(void **state)
{
	(void)state;
	size_t n, lines_seen = 0, valid[4] = {0}, exact[4] = {0};
	char **lines = read_lines("swift-manglings.txt", &n);
	hg_arena *a = hg_arena_create();
	for (size_t i = 0; i < n; i++) {
		char *mangled, *expected;
		if (!split_vector(lines[i], &mangled, &expected))
			continue;
		lines_seen++;
		enum family f = family_of(mangled);
		bool invalid = strcmp(mangled, expected) == 0;
		const char *got = demangle(a, mangled, strlen(mangled));
		if (got && (invalid || strcmp(got, expected) != 0))
			fail_msg("%s\n   got %s\n  want %s", mangled, got, invalid ? "(null)" : expected);
		valid[f] += !invalid;
		exact[f] += got != NULL;
	}
	print_message("swift-manglings.txt: %zu lines; exact: Swift 5+ %zu/%zu, macro buffers %zu/%zu, "
		      "_T %zu/%zu\n", lines_seen, exact[SWIFT5], valid[SWIFT5], exact[MACRO], valid[MACRO],
		      exact[OLD], valid[OLD]);
	assert_int_equal(lines_seen, 495);
	assert_int_equal(valid[SWIFT5], 176);
	assert_true(exact[SWIFT5] >= 176);
	assert_true(exact[MACRO] >= 3);
	assert_true(exact[OLD] >= 246);
	assert_int_equal(exact[OTHER], 0);
	hg_arena_destroy(a);
	free_lines(lines, n);
}

/* Unmangled suffixes (".1" of a partial apply thunk, ".llvm.123" of
 * LTO) print as Swift prints them, alone and in text: there quoted as
 * Swift quotes them, escaped inside a JSON string; a '.' ending a
 * sentence is not a suffix. */
static void test_suffixes(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	const char *s = "$s4main3fooyySiFyyXEfU_TA.1";
	assert_string_equal(demangle(a, s, strlen(s)),
			    "partial apply forwarder for closure #1 () -> () in main.foo(Swift.Int) -> () "
			    "with unmangled suffix \".1\"");
	s = "$s4main3FooV3baryyF.llvm.8432";
	assert_string_equal(demangle(a, s, strlen(s)),
			    "main.Foo.bar() -> () with unmangled suffix \".llvm.8432\"");
	hg_arena_destroy(a);
	hg_demangler *d = hg_demangler_create();
	hg_buf out;
	hg_buf_init(&out);
	static const char in[] =
		"3 Reader 0x1000 $s4main3fooyySiFyyXEfU_TA.1 + 20\n"
		"{\"symbol_name\":\"$s4main3fooyySiFyyXEfU_TA.1\",\"n\":1}\n"
		"in $s4main3FooV3baryyF. Then _TtSi.";
	assert_int_equal(hg_demangle_text(d, in, sizeof in - 1, &out), 0);
	assert_string_equal(out.data,
			    "3 Reader 0x1000 partial apply forwarder for closure #1 () -> () in "
			    "main.foo(Swift.Int) -> () with unmangled suffix \".1\" + 20\n"
			    "{\"symbol_name\":\"partial apply forwarder for closure #1 () -> () in "
			    "main.foo(Swift.Int) -> () with unmangled suffix \\\".1\\\"\",\"n\":1}\n"
			    "in main.Foo.bar() -> (). Then Swift.Int.");
	hg_buf_release(&out);
	hg_demangler_destroy(d);
}

/* One symbol made of head, unit times times, tail, and middle, unit2
 * times times: NULL or a name, quickly (the bounds: nodes, stack, depth,
 * repeats), never a crash. */
static void check_bounded(hg_arena *a, const char *head, const char *unit, size_t times,
			  const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * times + tl + 1);
	assert_non_null(s);
	memcpy(s, head, hl);
	for (size_t i = 0; i < times; i++)
		memcpy(s + hl + i * ul, unit, ul);
	memcpy(s + hl + ul * times, tail, tl + 1);
	const char *r = demangle(a, s, strlen(s));
	assert_true(!r || strlen(r) <= HG_DEMANGLE_MAX_OUTPUT);
	free(s);
}

static void test_hostile(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	/* 10,000 deep: tuples of tuples, optionals, function types, generic
	 * arguments of the older mangling, closures in closures, statics. */
	check_bounded(a, "$s", "yt", 10000, "");
	check_bounded(a, "$sSi", "Sg", 10000, "");
	check_bounded(a, "$sSi", "yc", 10000, "");
	check_bounded(a, "$s1a", "_", 10000, "t");
	check_bounded(a, "_TtGSq", "GSq", 10000, "Si___");
	check_bounded(a, "_TF", "FC1a", 5000, "1bFT_T_");
	check_bounded(a, "$s4main3fooyyF", "yyXEfU_", 5000, "");
	check_bounded(a, "$s4main3FooV", "Z", 10000, "");
	check_bounded(a, "$s", "SaySay", 5000, "Si");
	/* Substitutions naming themselves, what comes later, or far past the
	 * end; words past the 26. */
	static const char *const loops[] = {
		"$sAA", "$sAB", "$sAa", "$s1aAB", "$s1aA0_", "$s1aA999999999_", "$s1aA2147483647_",
		"$sSiA_", "$s0A", "$s1a0B", "_TtS_", "_TtS0_", "_TtGSqS__", "$s1a1bVAAAAAAAAAAAAAAAAAAA",
	};
	for (size_t i = 0; i < sizeof loops / sizeof *loops; i++)
		assert_null(demangle(a, loops[i], strlen(loops[i])));
	/* Repeat counts: at most 2,048 each, the stack at most 16,384. */
	assert_null(demangle(a, "$sSiA999999a", 12));
	assert_null(demangle(a, "$sS999999i", 10));
	check_bounded(a, "$sSi", "A2048a", 2000, "");
	check_bounded(a, "$s", "S2048i", 2000, "");
	check_bounded(a, "$s1a", "A2048a", 10, "t");
	/* Numbers past 32 bits, huge generic parameter counts. */
	assert_null(demangle(a, "$s99999999999999999999a", 23));
	check_bounded(a, "$s", "r999999999_", 3, "lSiD");
	check_bounded(a, "_Ttu", "4222222222222222222222222", 3, "_rW_2T_2TJ_");
	/* Punycode that is not: digits out of range, overflowing deltas. */
	assert_null(demangle(a, "$s0011abc_zzzzzzzzzyyF", 22));
	check_bounded(a, "$s00", "9", 1, "_999999999yyF");
	hg_arena_destroy(a);
}

static void test_cxx_vectors(void **state)
{
	(void)state;
	size_t n;
	char **lines = read_lines("cxx-vectors.tsv", &n);
	hg_arena *a = hg_arena_create();
	for (size_t i = 0; i < n; i++) {
		char *tab = strchr(lines[i], '\t');
		assert_non_null(tab);
		*tab = 0;
		const char *got = demangle(a, lines[i], strlen(lines[i]));
		if (!got || strcmp(got, tab + 1) != 0)
			fail_msg("%s\n   got %s\n  want %s", lines[i], got ? got : "(null)", tab + 1);
		/* Mach-O writes one more '_': the same name. */
		char apple[16384];
		snprintf(apple, sizeof apple, "_%s", lines[i]);
		const char *again = demangle(a, apple, strlen(apple));
		assert_non_null(again);
		assert_string_equal(again, tab + 1);
	}
	hg_arena_destroy(a);
	free_lines(lines, n);
	lines = read_lines("cxx-invalid.txt", &n);
	a = hg_arena_create();
	for (size_t i = 0; i < n; i++)
		assert_null(demangle(a, lines[i], strlen(lines[i])));
	hg_arena_destroy(a);
	free_lines(lines, n);
}

static void test_not_mangled(void **state)
{
	(void)state;
	static const char *const plain[] = {
		"-[UIApplication _run]", "+[NSThread sleepForTimeInterval:]", "main", "__pthread_start",
		"mach_msg_trap", "GCC_except_table763", "art::Thread::Dump", "$", "$s", "_$s", "_Z", "__Z",
		"_T0", "_T", "_Tt", "", "$sSi\xff", "Java_com_example_Native_call", "_TIFFReadDirectory",
		"_Trace", "_TtTest", "@__swiftmacro_", "$e", "_$e",
	};
	hg_arena *a = hg_arena_create();
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		assert_null(demangle(a, plain[i], strlen(plain[i])));
	/* The older manglings, as ObjC metadata still names Swift classes. */
	assert_string_equal(demangle(a, "_TtSi", 5), "Swift.Int");
	{
		const char *c = "_TtC5Hello11ViewControl";
		assert_string_equal(demangle(a, c, strlen(c)), "Hello.ViewControl");
	}
	/* Control bytes in an identifier: never a real name. */
	assert_null(demangle(a, "$s1a3a\033bV", 10));
	assert_string_equal(demangle(a, "$s1a3abcV", 9), "a.abc");
	/* A NUL inside: not one symbol. */
	assert_null(demangle(a, "$sSi\0SS", 7));
	/* len bounds the symbol, no NUL needed. */
	const char *r = demangle(a, "$sSiXXXX", 4);
	assert_non_null(r);
	assert_string_equal(r, "Swift.Int");
	hg_arena_destroy(a);
}

/* Every prefix of every vector: NULL or a name, never a crash (ASan and
 * UBSan watch), and never longer than the bound. */
static void check_prefixes(hg_arena *a, const char *s)
{
	size_t len = strlen(s);
	for (size_t k = 0; k <= len; k++) {
		const char *r = demangle(a, s, k);
		assert_true(!r || strlen(r) <= HG_DEMANGLE_MAX_OUTPUT);
	}
}

static void test_truncated(void **state)
{
	(void)state;
	static const char *const files[] = {"swift-manglings.txt", "cxx-vectors.tsv", "cxx-invalid.txt"};
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		size_t n;
		char **lines = read_lines(files[f], &n);
		for (size_t i = 0; i < n; i++) {
			hg_arena *a = hg_arena_create();
			lines[i][strcspn(lines[i], " \t")] = 0;
			check_prefixes(a, lines[i]);
			hg_arena_destroy(a);
		}
		free_lines(lines, n);
	}
}

static char *repeat(const char *head, const char *unit, size_t times, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * times + tl + 1);
	assert_non_null(s);
	memcpy(s, head, hl);
	for (size_t i = 0; i < times; i++)
		memcpy(s + hl + i * ul, unit, ul);
	memcpy(s + hl + ul * times, tail, tl + 1);
	return s;
}

/* "$sSaySay...SiG...G": an Array of Arrays, depth deep. */
static char *nested_arrays(size_t depth)
{
	char *s = repeat("$s", "Say", depth, "Si");
	size_t len = strlen(s);
	s = realloc(s, len + depth + 1);
	assert_non_null(s);
	memset(s + len, 'G', depth);
	s[len + depth] = 0;
	return s;
}

static void test_deep_and_huge(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	char *s;
	/* [[[...[Int]...]]]: Array of Array, 3000 deep (past the printer's
	 * depth bound), and 100 deep (within it). */
	s = nested_arrays(3000);
	assert_null(demangle(a, s, strlen(s)));
	free(s);
	s = nested_arrays(100);
	const char *r = demangle(a, s, strlen(s));
	assert_non_null(r);
	assert_int_equal(strlen(r), strlen("Swift.Int") + 200);
	assert_memory_equal(r, "[[[", 3);
	free(s);
	/* a<X, X> where X is the previous such type, through substitutions:
	 * the name doubles at each step, 2^24 times "a" in the end; bounded,
	 * so NULL, and quickly. */
	char doubling[256] = "$s1a1bV_"; /* a.b, the first of a tuple */
	for (char l = 'C'; l <= 'Y'; l++) {
		char step[9] = {'A', 'C', 'y', 'A', l, 'A', l, 'G', 0};
		strcat(doubling, step);
	}
	strcat(doubling, "t");
	assert_null(demangle(a, doubling, strlen(doubling)));
	/* Two steps print in full. */
	r = demangle(a, "$s1a1bV_ACyACACGACyADADGt", 25);
	assert_non_null(r);
	assert_string_equal(r, "(a.b, a.b<a.b, a.b>, a.b<a.b<a.b, a.b>, a.b<a.b, a.b>>)");
	/* C++ nesting past libiberty's recursion limit. */
	s = repeat("_Z1fP", "PFv", 20000, "E");
	assert_null(demangle(a, s, strlen(s)));
	free(s);
	/* 1 MB symbols: refused by size, whatever they hold. */
	s = repeat("$s", "3foo", 262144, "yyF");
	assert_null(demangle(a, s, strlen(s)));
	free(s);
	s = repeat("_Z", "N3foo", 200000, "Ev");
	assert_null(demangle(a, s, strlen(s)));
	free(s);
	/* Just under the size bound: a name still comes out, or NULL when
	 * too long to print, but no crash. */
	s = repeat("$s", "1a", (HG_DEMANGLE_MAX_SYMBOL - 10) / 2, "V");
	(void)demangle(a, s, strlen(s));
	free(s);
	hg_arena_destroy(a);
}

static void test_random(void **state)
{
	(void)state;
	uint64_t x = 0x9E3779B97F4A7C15u;
	static const char alphabet[] = "$_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.";
	char buf[256];
	for (int round = 0; round < 20000; round++) {
		hg_arena *a = hg_arena_create();
		size_t len = 2 + (size_t)(x % 120);
		const char *head = round % 3 == 0 ? "$s" : round % 3 == 1 ? "_Z" : "_$s";
		size_t hl = strlen(head);
		memcpy(buf, head, hl);
		for (size_t i = hl; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = round % 5 == 4 ? (char)(x & 0xff) : alphabet[x % (sizeof alphabet - 1)];
		}
		(void)demangle(a, buf, len);
		hg_arena_destroy(a);
	}
}

static void test_memo(void **state)
{
	(void)state;
	hg_demangler *d = hg_demangler_create();
	assert_non_null(d);
	hg_arena *a = hg_arena_create();
	const char *r1, *r2, *r3;
	assert_int_equal(hg_demangler_get(d, "$s4main3FooV3baryyF", a, &r1), 0);
	assert_int_equal(hg_demangler_get(d, "$s4main3FooV3baryyF", a, &r2), 0);
	assert_string_equal(r1, "main.Foo.bar() -> ()");
	assert_string_equal(r2, r1);
	assert_ptr_not_equal(r1, r2); /* each copy in the caller's arena */
	assert_int_equal(hg_demangler_get(d, "-[Foo bar]", a, &r3), 0);
	assert_null(r3);
	assert_int_equal(hg_demangler_get(d, "-[Foo bar]", a, &r3), 0);
	assert_null(r3);
	/* Past the memo's size it starts over, answers unchanged. */
	char sym[64];
	for (int i = 0; i < 70000; i++) {
		snprintf(sym, sizeof sym, "_Z1fi%d", i);
		assert_int_equal(hg_demangler_get(d, sym, a, &r3), 0);
	}
	assert_int_equal(hg_demangler_get(d, "$s4main3FooV3baryyF", a, &r3), 0);
	assert_string_equal(r3, "main.Foo.bar() -> ()");
	hg_arena_destroy(a);
	hg_demangler_destroy(d);
	hg_demangler_destroy(NULL);
}

static void test_text(void **state)
{
	(void)state;
	hg_demangler *d = hg_demangler_create();
	hg_buf out;
	hg_buf_init(&out);
	static const char in[] =
		"  native: #00 pc 0004f0a8  /system/lib64/libart.so (_ZN3art6Thread4DumpEv+24)\n"
		"{\"symbol_name\":\"$s4main3FooV3baryyF\",\"x\":\"_Zli2_xPKc\"} _Z $s x_ZN3FooD1Ev "
		"__ZN3FooD1Ev _ZN3FooD1Ev";
	assert_int_equal(hg_demangle_text(d, in, sizeof in - 1, &out), 0);
	/* A name glued to a word is not one; operator"" inside a JSON string
	 * has its quotes escaped. */
	assert_string_equal(out.data,
			    "  native: #00 pc 0004f0a8  /system/lib64/libart.so (art::Thread::Dump()+24)\n"
			    "{\"symbol_name\":\"main.Foo.bar() -> ()\",\"x\":\"operator\\\"\\\" _x(char const*)\"} "
			    "_Z $s x_ZN3FooD1Ev Foo::~Foo() Foo::~Foo()");
	hg_buf_reset(&out);
	assert_int_equal(hg_demangle_text(d, "plain text", 10, &out), 0);
	assert_string_equal(out.data, "plain text");
	hg_buf_release(&out);
	hg_demangler_destroy(d);
}

static int keep(void *user, hg_report *rep)
{
	hg_report **out = user;
	assert_null(*out);
	*out = rep;
	return 0;
}

/* Once read, a report's native frames carry the readable name in method
 * and the mangled one beside it; the symbol stays as written; names that
 * are not mangled are untouched; the same name twice in a frame list is
 * demangled alike. */
static void test_report_frames(void **state)
{
	(void)state;
	char path[4096];
	snprintf(path, sizeof path, "%s/demangle/kscrash-hang-swift-cxx.json", testdata);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char buf[16384];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_int_equal(hg_reports_read(&ctx, path, buf, n, keep, &rep), 0);
	assert_non_null(rep);
	assert_null(rep->error);
	const hg_thread *t = &rep->threads.items[0];
	assert_true(t->n_frames == 8);
	static const struct {
		const char *symbol, *method;
		bool mangled;
	} want[] = {
		{"__semwait_signal", "__semwait_signal", false},
		{"_ZNSt3__111this_thread9sleep_forERKNS_6chrono8durationIxNS_5ratioILl1ELl1000000000EEEEE",
		 "std::__1::this_thread::sleep_for(std::__1::chrono::duration<long long, "
		 "std::__1::ratio<1l, 1000000000l> > const&)", true},
		{"$s6Reader8FeedViewC13reloadStories4fromySaySSG_tF",
		 "Reader.FeedView.reloadStories(from: [Swift.String]) -> ()", true},
		{"$s6Reader8FeedViewC13reloadStories4fromySaySSG_tFTo",
		 "@objc Reader.FeedView.reloadStories(from: [Swift.String]) -> ()", true},
		{"-[UIApplication _run]", "-[UIApplication _run]", false},
		{"$s7SwiftUI3AppPAAE4mainyyFZ", "static (extension in SwiftUI):SwiftUI.App.main() -> ()",
		 true},
		{"$s6Reader0A3AppV5$mainyyFZ", "static Reader.ReaderApp.$main() -> ()", true},
		{"main", "main", false},
	};
	for (size_t i = 0; i < 8; i++) {
		const hg_frame *fr = &t->frames[i];
		assert_string_equal(fr->symbol, want[i].symbol);
		assert_string_equal(fr->method, want[i].method);
		if (want[i].mangled)
			assert_string_equal(fr->mangled, want[i].symbol);
		else
			assert_null(fr->mangled);
	}
	hg_report_destroy(rep);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swift_manglings),
		cmocka_unit_test(test_suffixes),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_cxx_vectors),
		cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_deep_and_huge),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_report_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
