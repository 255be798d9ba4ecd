/* Demangling (src/lib/demangle/): every supported line of Swift's own test
 * vectors (testdata/demangle/swift-manglings.txt) gives exactly Swift's
 * text, and every line of the same file this module does not support
 * gives NULL, never a wrong name; C++ vectors against Debian's c++filt;
 * hostile input: every prefix of every vector, deep nesting, a 1 MB
 * symbol, random bytes; the memo.  argv[1] is the testdata/ directory. */
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

/* "MANGLED ---> DEMANGLED", where DEMANGLED may start with the remangler's
 * note "{T:...} " (not part of the text). */
static void split_vector(char *line, char **mangled, char **expected)
{
	char *sep = strstr(line, " ---> ");
	assert_non_null(sep);
	*sep = 0;
	*mangled = line;
	*expected = sep + 6;
	if (**expected == '{') {
		char *end = strstr(*expected, "} ");
		assert_non_null(end);
		*expected = end + 2;
	}
}

static void test_swift_vectors(void **state)
{
	(void)state;
	size_t n;
	char **lines = read_lines("swift-manglings.txt", &n);
	hg_arena *a = hg_arena_create();
	for (size_t i = 0; i < n; i++) {
		char *mangled, *expected;
		split_vector(lines[i], &mangled, &expected);
		const char *got = demangle(a, mangled, strlen(mangled));
		if (!got || strcmp(got, expected) != 0)
			fail_msg("%s\n   got %s\n  want %s", mangled, got ? got : "(null)", expected);
	}
	hg_arena_destroy(a);
	free_lines(lines, n);
}

static void test_swift_unsupported_is_null(void **state)
{
	(void)state;
	size_t n;
	char **lines = read_lines("swift-manglings-unsupported.txt", &n);
	hg_arena *a = hg_arena_create();
	for (size_t i = 0; i < n; i++) {
		const char *got = demangle(a, lines[i], strlen(lines[i]));
		if (got)
			fail_msg("%s: expected NULL, got %s", lines[i], got);
	}
	hg_arena_destroy(a);
	free_lines(lines, n);
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
		"_T0", "_TtSi", "", "$sSi\xff", "Java_com_example_Native_call",
	};
	hg_arena *a = hg_arena_create();
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		assert_null(demangle(a, plain[i], strlen(plain[i])));
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
	static const char *const files[] = {"swift-manglings.txt", "swift-manglings-unsupported.txt",
					    "cxx-vectors.tsv", "cxx-invalid.txt"};
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
	/* A name glued to a word is not one; operator"" would break the JSON. */
	assert_string_equal(out.data,
			    "  native: #00 pc 0004f0a8  /system/lib64/libart.so (art::Thread::Dump()+24)\n"
			    "{\"symbol_name\":\"main.Foo.bar() -> ()\",\"x\":\"_Zli2_xPKc\"} _Z $s "
			    "x_ZN3FooD1Ev Foo::~Foo() Foo::~Foo()");
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
		cmocka_unit_test(test_swift_vectors),
		cmocka_unit_test(test_swift_unsupported_is_null),
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
