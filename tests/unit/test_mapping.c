/* Unit tests for methodMapping.txt (hg_mapping_*) and for the Java names a
 * developer reads (hg_format_java_method): the real mapping of Matrix's
 * sample app, every kind of malformed line with its warning and line number,
 * the cap on listed warnings, missing files, and a 200,000-line mapping built
 * in memory and written to a temporary file (the file reader indexes in
 * chunks), and overloads told apart.  argv[1] is testdata/matrix-sample/methodMapping.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/arena.h"
#include "hangar/hangar.h"
#include "hangar/mapping.h"

static const char *mapping_path;

/* ---- diagnostics, recorded so tests can assert on them ---- */

#define MAX_DIAGS 64

struct diag_rec {
	enum hg_severity severity;
	char *source;
	long line, col, report;
	char *message;
};

struct fixture {
	hg_ctx ctx;
	struct diag_rec diag[MAX_DIAGS];
	size_t n_diags;   /* recorded */
	size_t all_diags; /* received, recorded or not */
	hg_arena *arena;  /* holds looked-up entries */
};

static void record_diag(void *user, const hg_diag *d)
{
	struct fixture *f = user;
	f->all_diags++;
	if (f->n_diags == MAX_DIAGS)
		return;
	struct diag_rec *r = &f->diag[f->n_diags++];
	r->severity = d->severity;
	r->source = strdup(d->source ? d->source : "");
	r->line = d->line;
	r->col = d->col;
	r->report = d->report;
	r->message = strdup(d->message);
	assert_non_null(r->source);
	assert_non_null(r->message);
}

static void clear_diags(struct fixture *f)
{
	for (size_t i = 0; i < f->n_diags; i++) {
		free(f->diag[i].source);
		free(f->diag[i].message);
	}
	f->n_diags = f->all_diags = 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	hg_ctx_init(&f->ctx);
	f->ctx.diag = record_diag;
	f->ctx.diag_user = f;
	f->arena = hg_arena_create();
	*state = f;
	return f->arena ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	clear_diags(f);
	hg_arena_destroy(f->arena);
	free(f);
	return 0;
}

/* Asserts diagnostic i is a warning about `line` whose message holds needle. */
static void assert_warning(const struct fixture *f, size_t i, long line, const char *needle)
{
	assert_true(i < f->n_diags);
	const struct diag_rec *d = &f->diag[i];
	assert_int_equal(d->severity, HG_DIAG_WARNING);
	assert_string_equal(d->source, "mem.txt");
	assert_int_equal(d->line, line);
	assert_int_equal(d->report, 0);
	if (!strstr(d->message, needle))
		fail_msg("diagnostic %zu: \"%s\" does not contain \"%s\"", i, d->message, needle);
}

/* ---- helpers ---- */

static hg_mapping *load(struct fixture *f, const char *text)
{
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "mem.txt", text, strlen(text), &m), 0);
	assert_non_null(m);
	return m;
}

static void assert_symbol(const hg_mapping *m, int32_t id, const char *want)
{
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	const char *got = hg_mapping_symbol(m, id, arena);
	if (!got)
		fail_msg("id %d: no symbol, expected \"%s\"", id, want);
	assert_string_equal(got, want);
	hg_arena_destroy(arena);
}

/* Looks id up into *e, which must exist; its text lives in f's arena. */
static void lookup(struct fixture *f, const hg_mapping *m, int32_t id, hg_mapping_entry *e)
{
	assert_int_equal(hg_mapping_lookup(m, id, f->arena, e), 0);
}

static void assert_absent(const hg_mapping *m, int32_t id)
{
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	hg_mapping_entry e;
	assert_int_equal(hg_mapping_lookup(m, id, arena, &e), HG_EINVAL);
	assert_null(hg_mapping_symbol(m, id, arena));
	hg_arena_destroy(arena);
}

static void assert_slice(const char *s, size_t len, const char *want)
{
	assert_int_equal(len, strlen(want));
	assert_memory_equal(s, want, len);
}

static void assert_format(const char *cls, const char *method, const char *desc,
			  const char *want)
{
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	const char *got = hg_format_java_method(arena, cls, strlen(cls), method, strlen(method), desc,
						strlen(desc));
	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("\"%s\" \"%s\" \"%s\" gave \"%s\", expected \"%s\"", cls, method, desc, got,
			 want);
	hg_arena_destroy(arena);
}

/* A row of hg_format_java_method's table: class, method, descriptor, and
 * the name it must give. */
struct format_case {
	const char *cls, *method, *desc, *want;
};

static void assert_formats(const struct format_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_format(cases[i].cls, cases[i].method, cases[i].desc, cases[i].want);
}

/* Each id of the table must be absent from m. */
static void assert_all_absent(const hg_mapping *m, const int32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_absent(m, ids[i]);
}

/* Opening path fails with rc, and says so once, as an error naming path
 * whose message holds needle; *m is left NULL. */
static void assert_open_fails(struct fixture *f, const char *path, int rc, const char *needle)
{
	hg_mapping *m = (hg_mapping *)1;
	assert_int_equal(hg_mapping_open(&f->ctx, path, &m), rc);
	assert_null(m);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_ERROR);
	assert_string_equal(f->diag[0].source, path);
	assert_non_null(strstr(f->diag[0].message, needle));
}

/* ---- the real mapping file ---- */

static void test_real_file_loads(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_open(&f->ctx, mapping_path, &m), 0);
	assert_int_equal(hg_mapping_count(m), 131);
	assert_int_equal(hg_mapping_skipped(m), 0);
	assert_int_equal(f->all_diags, 0);
	assert_string_equal(hg_mapping_name(m), mapping_path);
	assert_symbol(m, 1048574, "android.os.Handler.dispatchMessage(Message)");
	/* An inner class, an object array, primitives. */
	assert_symbol(m, 1, "sample.tencent.matrix.trace.TestFpsActivity$3.<init>"
		      "(TestFpsActivity, Context, int, Object[])");
	assert_symbol(m, 6, "sample.tencent.matrix.trace.TestFpsActivity$2.doFrameAsync"
		      "(String, long, long, int, boolean)");
	assert_symbol(m, 18, "sample.tencent.matrix.config.DynamicConfigImplDemo.get(String, int)");
	assert_symbol(m, 52, "sample.tencent.matrix.issue.IssuesListActivity$Adapter.onBindViewHolder"
		      "(RecyclerView$ViewHolder, int)");
	assert_symbol(m, 2, "sample.tencent.matrix.trace.TestTraceFragmentActivity.<init>()");
	assert_absent(m, 0);
	assert_absent(m, 131);
	hg_mapping_destroy(m);
}

static void test_real_file_entry_fields(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_open(&f->ctx, mapping_path, &m), 0);
	hg_mapping_entry e;
	lookup(f, m, 1048574, &e);
	assert_slice(e.cls, e.cls_len, "android.os.Handler");
	assert_slice(e.method, e.method_len, "dispatchMessage");
	assert_slice(e.desc, e.desc_len, "(Landroid.os.Message;)V");
	assert_int_equal(e.access_flags, 1);
	lookup(f, m, 55, &e);
	assert_int_equal(e.access_flags, 4161);
	assert_slice(e.cls, e.cls_len, "sample.tencent.matrix.issue.IssuesListActivity$Adapter");
	assert_slice(e.method, e.method_len, "onCreateViewHolder");
	assert_slice(e.desc, e.desc_len,
		     "(Landroid.view.ViewGroup;I)Landroid.support.v7.widget.RecyclerView$ViewHolder;");
	hg_mapping_destroy(m);
}

/* ---- line syntax ---- */

static void test_crlf_lines(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "1,1,com.example.A run ()V\r\n"
				"\r\n"
				"2,9,com.example.B get (Ljava.lang.String;I)I\r\n"
				"3,257,com.example.C nativeInit\r\n");
	assert_int_equal(hg_mapping_count(m), 3);
	assert_int_equal(hg_mapping_skipped(m), 0);
	assert_int_equal(f->all_diags, 0);
	assert_symbol(m, 1, "com.example.A.run()");
	assert_symbol(m, 2, "com.example.B.get(String, int)");
	assert_symbol(m, 3, "com.example.C.nativeInit");
	hg_mapping_entry e;
	lookup(f, m, 2, &e);
	assert_slice(e.desc, e.desc_len, "(Ljava.lang.String;I)I");
	assert_int_equal(e.access_flags, 9);
	hg_mapping_destroy(m);
}

static void test_spaces_around_commas(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "  7 , 1 ,  com.example.A  run   (I)V  \n"
				"8\t,\t2\t,\tcom.example.B\tstop\t()V\n");
	assert_int_equal(hg_mapping_count(m), 2);
	assert_int_equal(f->all_diags, 0);
	assert_symbol(m, 7, "com.example.A.run(int)");
	assert_symbol(m, 8, "com.example.B.stop()");
	hg_mapping_entry e;
	lookup(f, m, 7, &e);
	assert_int_equal(e.access_flags, 1);
	assert_slice(e.desc, e.desc_len, "(I)V");
	hg_mapping_destroy(m);
}

static void test_comments_and_blank_lines_ignored(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "# written by hand\n"
				"\n"
				"   \n"
				"  # indented comment, 1,1,not.An entry ()V\n"
				"\t\n"
				"5,1,com.example.A run ()V\n"
				"#6,1,com.example.B run ()V\n"
				"6,1,com.example.C run ()V"); /* no final newline */
	assert_int_equal(hg_mapping_count(m), 2);
	assert_int_equal(hg_mapping_skipped(m), 0);
	assert_int_equal(f->all_diags, 0);
	assert_absent(m, 1);
	assert_symbol(m, 5, "com.example.A.run()");
	assert_symbol(m, 6, "com.example.C.run()");
	hg_mapping_destroy(m);
}

static void test_native_method_without_descriptor(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "40,257,com.example.jni.Bridge nativeCall\n"
				"41,257,com.example.jni.Bridge nativeTrail   \n");
	assert_int_equal(hg_mapping_count(m), 2);
	hg_mapping_entry e;
	lookup(f, m, 40, &e);
	assert_int_equal(e.desc_len, 0);
	assert_int_equal(e.access_flags, 257);
	assert_symbol(m, 40, "com.example.jni.Bridge.nativeCall");
	assert_symbol(m, 41, "com.example.jni.Bridge.nativeTrail");
	hg_mapping_destroy(m);
}

static void test_malformed_lines_warned_and_skipped(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "1,1,com.example.Good first ()V\n"
				"2 1 com.example.Bad nocomma ()V\n"
				"x3,1,com.example.Bad nonnumeric ()V\n"
				"1048576,1,com.example.Bad toobig ()V\n"
				"5,1,\n"
				"6,1,   \r\n"
				"7,,com.example.Bad noflags ()V\n"
				"-8,1,com.example.Bad negative ()V\n"
				"9,1,com.example.Good second (J)V\n"
				"1048575,1,com.example.Good largest ()V\n");
	assert_int_equal(hg_mapping_count(m), 3);
	assert_int_equal(hg_mapping_skipped(m), 7);
	assert_int_equal(f->all_diags, 7);
	static const char shape[] = "expected 'id,accessFlags,class method descriptor'";
	/* Warning i: its line and what it says. */
	static const struct {
		long line;
		const char *needle;
	} warned[] = {
		{2, shape}, {3, shape}, {4, "method id 1048576 is out of range"},
		{5, "missing 'class method'"}, {6, "missing 'class method'"},
		{7, shape}, {8, shape},
	};
	for (size_t i = 0; i < sizeof warned / sizeof *warned; i++)
		assert_warning(f, i, warned[i].line, warned[i].needle);
	for (size_t i = 0; i < f->n_diags; i++) {
		assert_int_equal(f->diag[i].col, 0);
		assert_non_null(strstr(f->diag[i].message, "line skipped"));
	}
	assert_symbol(m, 1, "com.example.Good.first()");
	assert_symbol(m, 9, "com.example.Good.second(long)");
	assert_symbol(m, 1048575, "com.example.Good.largest()");
	static const int32_t skipped[] = {2, 5, 6, 7};
	assert_all_absent(m, skipped, sizeof skipped / sizeof *skipped);
	hg_mapping_destroy(m);
}

/* The numbers read at the widths mapping_number_comma takes (1 to 12
 * digits), whether or not the line is the usual one that mapping_index.c
 * reads both numbers of at once: blanks, short lines, a comma in the class
 * and 13-digit numbers go the general way, with the same results. */
static void test_number_widths_both_ways(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "000000000012,1,com.x.A a ()V\n"
				"0000000000013,1,com.x.A b ()V\n"
				"14,000000000001,com.x.A c ()V\n"
				"15,0000000000001,com.x.A d ()V\n"
				"16 ,1,com.x.A e ()V\n"
				"17, 1 ,com.x.A f ()V\n"
				"18,1,a,b c ()V\n"
				"19,1,C d\n"
				"20,1,,x y ()V\n"
				"21,1,com.example.LongerClassName g (I)V\n"
				"22,x1,com.example.Bad h ()V\n");
	assert_int_equal(hg_mapping_count(m), 8);
	assert_int_equal(hg_mapping_skipped(m), 3);
	static const char shape[] = "expected 'id,accessFlags,class method descriptor'";
	assert_warning(f, 0, 2, shape);
	assert_warning(f, 1, 4, shape);
	assert_warning(f, 2, 11, shape);
	assert_symbol(m, 12, "com.x.A.a()");
	assert_symbol(m, 14, "com.x.A.c()");
	assert_symbol(m, 16, "com.x.A.e()");
	assert_symbol(m, 17, "com.x.A.f()");
	assert_symbol(m, 18, "a,b.c()");
	assert_symbol(m, 19, "C.d");
	assert_symbol(m, 20, ",x.y()");
	assert_symbol(m, 21, "com.example.LongerClassName.g(int)");
	static const int32_t skipped[] = {13, 15, 22};
	assert_all_absent(m, skipped, sizeof skipped / sizeof *skipped);
	hg_mapping_destroy(m);
}

static void test_duplicate_id_keeps_first(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "3,1,com.example.First run ()V\n"
				"4,1,com.example.Other run ()V\n"
				"3,1,com.example.Second run ()V\n");
	assert_int_equal(hg_mapping_count(m), 2);
	assert_int_equal(hg_mapping_skipped(m), 1);
	assert_int_equal(f->all_diags, 1);
	assert_warning(f, 0, 3, "duplicate method id 3 (first at line 1)");
	assert_symbol(m, 3, "com.example.First.run()");
	assert_symbol(m, 4, "com.example.Other.run()");
	hg_mapping_destroy(m);
}

/* n malformed lines, then one good line with id 1. */
static hg_mapping *load_malformed(struct fixture *f, int n)
{
	char text[2048];
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "broken line %d\n", i);
	snprintf(text + len, sizeof text - len, "1,1,com.example.A run ()V\n");
	return load(f, text);
}

static void test_only_first_ten_malformed_listed(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load_malformed(f, 12);
	assert_int_equal(hg_mapping_count(m), 1);
	assert_int_equal(hg_mapping_skipped(m), 12);
	assert_int_equal(f->all_diags, 11);
	for (long i = 0; i < 10; i++)
		assert_warning(f, (size_t)i, i + 1, "expected 'id,accessFlags");
	assert_warning(f, 10, 0, "12 malformed lines skipped in all (only the first 10 are listed)");
	hg_mapping_destroy(m);
}

static void test_ten_malformed_need_no_summary(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load_malformed(f, 10);
	assert_int_equal(hg_mapping_skipped(m), 10);
	assert_int_equal(f->all_diags, 10);
	assert_warning(f, 9, 10, "line skipped");
	hg_mapping_destroy(m);
	clear_diags(f);
	m = load_malformed(f, 11);
	assert_int_equal(f->all_diags, 11);
	assert_warning(f, 10, 0, "11 malformed lines skipped in all");
	hg_mapping_destroy(m);
}

static void test_empty_mapping(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "mem.txt", "", 0, &m), 0);
	assert_int_equal(hg_mapping_count(m), 0);
	assert_int_equal(hg_mapping_skipped(m), 0);
	assert_int_equal(f->all_diags, 0);
	assert_absent(m, 0);
	hg_mapping_destroy(m);
	hg_mapping_destroy(NULL);
}

/* ---- files ---- */

static void test_missing_file(void **state)
{
	struct fixture *f = *state;
	assert_open_fails(f, "/nonexistent/hangar-test/methodMapping.txt", HG_EIO,
			  "cannot open mapping");
}

static void test_directory_is_not_a_mapping(void **state)
{
	struct fixture *f = *state;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", mapping_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	assert_open_fails(f, dir, HG_EIO, "not a regular file");
}

static void test_file_over_the_limit(void **state)
{
	struct fixture *f = *state;
	f->ctx.limits.max_mapping_bytes = 100;
	assert_open_fails(f, mapping_path, HG_ELIMIT, "100-byte limit");
}

static void test_memory_over_the_limit(void **state)
{
	struct fixture *f = *state;
	f->ctx.limits.max_mapping_bytes = 10;
	const char *text = "1,1,com.example.A run ()V\n";
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "mem.txt", text, strlen(text), &m),
			 HG_ELIMIT);
	assert_null(m);
}

/* ---- lookups ---- */

static void test_lookup_absent_and_negative_ids(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, "0,1,com.example.Zero run ()V\n"
				"2,1,com.example.Two run ()V\n");
	assert_symbol(m, 0, "com.example.Zero.run()");
	assert_symbol(m, 2, "com.example.Two.run()");
	static const int32_t absent[] = {1, 3, -1, -2, INT32_MIN, 0x100000, INT32_MAX};
	assert_all_absent(m, absent, sizeof absent / sizeof *absent);
	hg_arena *arena = hg_arena_create();
	assert_null(hg_mapping_symbol(NULL, 2, arena));
	hg_arena_destroy(arena);
	hg_mapping_destroy(m);
}

#define GENERATED_IDS 200000

/* A mapping of ids 0..GENERATED_IDS-1, except that every broken_every-th
 * line (when non-zero) is "broken line" instead.  Caller frees. */
static char *generate_mapping(int broken_every, size_t *len)
{
	size_t cap = (size_t)GENERATED_IDS * 64;
	char *text = malloc(cap);
	assert_non_null(text);
	*len = 0;
	for (int i = 0; i < GENERATED_IDS; i++) {
		if (broken_every && i > 0 && i % broken_every == 0)
			*len += (size_t)snprintf(text + *len, cap - *len, "broken line\n");
		else
			*len += (size_t)snprintf(text + *len, cap - *len,
						 "%d,%d,com.example.gen.C%d m%d (I[Ljava/lang/String;)V\n",
						 i, i % 16, i / 100, i);
	}
	return text;
}

static void assert_generated(struct fixture *f, const hg_mapping *m)
{
	assert_symbol(m, 0, "com.example.gen.C0.m0(int, String[])");
	assert_symbol(m, 123457, "com.example.gen.C1234.m123457(int, String[])");
	assert_symbol(m, 199999, "com.example.gen.C1999.m199999(int, String[])");
	assert_absent(m, GENERATED_IDS);
	hg_mapping_entry e;
	lookup(f, m, 99999, &e);
	assert_int_equal(e.access_flags, 99999 % 16);
	assert_slice(e.method, e.method_len, "m99999");
}

static void test_large_generated_mapping(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = generate_mapping(0, &len);
	hg_mapping *m = NULL;
	assert_int_equal(hg_mapping_from_memory(&f->ctx, "mem.txt", text, len, &m), 0);
	free(text); /* the mapping keeps its own copy */
	assert_int_equal(hg_mapping_count(m), GENERATED_IDS);
	assert_int_equal(hg_mapping_skipped(m), 0);
	assert_int_equal(f->all_diags, 0);
	assert_generated(f, m);
	assert_symbol(m, 123456, "com.example.gen.C1234.m123456(int, String[])");
	hg_mapping_destroy(m);
}

/* Writes data to a new temporary file; returns its path (caller unlinks
 * and frees). */
static char *write_temp_file(const char *data, size_t len)
{
	const char *dir = getenv("TMPDIR");
	size_t n = strlen(dir ? dir : "/tmp") + 32;
	char *path = malloc(n);
	assert_non_null(path);
	snprintf(path, n, "%s/hangar-mapping-XXXXXX", dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, data + done, len - done);
		assert_true(w > 0);
		done += (size_t)w;
	}
	close(fd);
	return path;
}

/* Writes text (freed here) to a temporary file and opens it as a mapping,
 * which must succeed; the file is unlinked, *path (caller frees) names it. */
static hg_mapping *open_as_file(struct fixture *f, char *text, size_t len, char **path)
{
	*path = write_temp_file(text, len);
	free(text);
	hg_mapping *m = NULL;
	int rc = hg_mapping_open(&f->ctx, *path, &m);
	unlink(*path);
	assert_int_equal(rc, 0);
	return m;
}

/* The file reader indexes in chunks: lines across chunk ends, and warnings
 * far into the file, must come out as from memory. */
static void test_large_generated_file(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = generate_mapping(50000, &len);
	char *path;
	hg_mapping *m = open_as_file(f, text, len, &path);
	assert_int_equal(hg_mapping_count(m), GENERATED_IDS - 3);
	assert_int_equal(hg_mapping_skipped(m), 3);
	assert_int_equal(f->all_diags, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(f->diag[i].source, path);
		assert_int_equal(f->diag[i].line, 50001 * (long)(i + 1) - (long)i);
		assert_non_null(strstr(f->diag[i].message, "expected 'id,accessFlags"));
	}
	assert_generated(f, m);
	assert_absent(m, 50000);
	assert_absent(m, 150000);
	assert_symbol(m, 149999, "com.example.gen.C1499.m149999(int, String[])");
	assert_symbol(m, 150001, "com.example.gen.C1500.m150001(int, String[])");
	hg_mapping_destroy(m);
	free(path);
}

/* A file this large is indexed by two workers, one per half: a duplicate
 * across the halves, and one inside the second, keep the first line and are
 * named with absolute line numbers, in file order. */
static void test_large_file_duplicates_across_halves(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = generate_mapping(0, &len);
	const char *tail = "5,1,com.example.Dup late ()V\n150000,1,com.example.Dup later ()V\n";
	text = realloc(text, len + strlen(tail) + 1);
	assert_non_null(text);
	memcpy(text + len, tail, strlen(tail) + 1);
	len += strlen(tail);
	assert_true(len > ((size_t)8 << 20)); /* over the split size */
	char *path;
	hg_mapping *m = open_as_file(f, text, len, &path);
	assert_int_equal(hg_mapping_count(m), GENERATED_IDS);
	assert_int_equal(hg_mapping_skipped(m), 2);
	assert_int_equal(f->all_diags, 2);
	assert_int_equal(f->diag[0].line, GENERATED_IDS + 1);
	assert_non_null(strstr(f->diag[0].message, "duplicate method id 5 (first at line 6)"));
	assert_int_equal(f->diag[1].line, GENERATED_IDS + 2);
	assert_non_null(strstr(f->diag[1].message,
			       "duplicate method id 150000 (first at line 150001)"));
	assert_symbol(m, 5, "com.example.gen.C0.m5(int, String[])");
	assert_symbol(m, 150000, "com.example.gen.C1500.m150000(int, String[])");
	hg_mapping_destroy(m);
	free(path);
}

/* ---- hg_format_java_method ---- */

static void test_format_dots_and_slashes(void **state)
{
	(void)state;
	static const struct format_case cases[] = {
		/* Dots and slashes give the same name. */
		{"com.example.db.UserRepository", "query", "(Ljava.lang.String;I)V",
		 "com.example.db.UserRepository.query(String, int)"},
		{"com/example/db/UserRepository", "query", "(Ljava/lang/String;I)V",
		 "com.example.db.UserRepository.query(String, int)"},
		{"com/example/Outer$Inner", "run", "(Lcom/example/Outer$Inner;)V",
		 "com.example.Outer$Inner.run(Outer$Inner)"},
		{"Plain", "run", "(LNoPackage;)V", "Plain.run(NoPackage)"},
	};
	assert_formats(cases, sizeof cases / sizeof *cases);
}

static void test_format_primitives_and_void(void **state)
{
	(void)state;
	static const struct format_case cases[] = {
		{"a.B", "all", "(BCDFIJSZ)V",
		 "a.B.all(byte, char, double, float, int, long, short, boolean)"},
		/* The return type is not shown, whatever it is. */
		{"a.B", "v", "()V", "a.B.v()"},
		{"a.B", "i", "()I", "a.B.i()"},
		{"a.B", "s", "()[Ljava/lang/String;", "a.B.s()"},
	};
	assert_formats(cases, sizeof cases / sizeof *cases);
}

static void test_format_arrays(void **state)
{
	(void)state;
	static const struct format_case cases[] = {
		{"a.B", "m", "([I)V", "a.B.m(int[])"},
		{"a.B", "m", "([[I)V", "a.B.m(int[][])"},
		{"a.B", "m", "([[[J[Ljava/lang/Object;Z)V",
		 "a.B.m(long[][][], Object[], boolean)"},
		{"a.B", "m", "([[Ljava.lang.String;)V", "a.B.m(String[][])"},
	};
	assert_formats(cases, sizeof cases / sizeof *cases);
}

static void test_format_malformed_descriptor_verbatim(void **state)
{
	(void)state;
	static const struct format_case cases[] = {
		{"a.B", "m", "(Ljava/lang/String", "a.B.m (Ljava/lang/String"},
		{"a.B", "m", "(I", "a.B.m (I"},
		{"a.B", "m", "(", "a.B.m ("},
		{"a.B", "m", "(V)V", "a.B.m (V)V"},
		{"a.B", "m", "(Q)V", "a.B.m (Q)V"},
		{"a.B", "m", "([)V", "a.B.m ([)V"},
		{"a.B", "m", "(L;)V", "a.B.m (L;)V"},
		{"a.B", "m", "(Lpkg/;)V", "a.B.m (Lpkg/;)V"},
		{"a.B", "m", "I", "a.B.m I"},
		{"a/B", "m", "garbage here", "a.B.m garbage here"},
	};
	assert_formats(cases, sizeof cases / sizeof *cases);
}

static void test_format_empty_parts(void **state)
{
	(void)state;
	static const struct format_case cases[] = {
		{"a.B", "", "", "a.B"},
		{"a/b/C", "", "", "a.b.C"},
		{"a.B", "m", "", "a.B.m"},
		{"", "", "", ""},
	};
	assert_formats(cases, sizeof cases / sizeof *cases);
}

/* Lines over 64 KiB are warned of as skipped, and are: their ids are
 * absent and the lines after them read.  One line is under the file
 * reader's 128 KiB chunk, one over it; from memory and from a file. */
static void test_overlong_lines_skipped(void **state)
{
	struct fixture *f = *state;
	const size_t sizes[] = {100u << 10, 200u << 10};
	size_t cap = sizes[0] + sizes[1] + 4096, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "1,1,com.a.A first ()V\n");
	for (int k = 0; k < 2; k++) {
		len += (size_t)snprintf(text + len, cap - len, "%d,1,com.a.A huge", 2 + k);
		memset(text + len, 'x', sizes[k]);
		len += sizes[k];
		len += (size_t)snprintf(text + len, cap - len, " ()V\n");
	}
	len += (size_t)snprintf(text + len, cap - len, "4,1,com.a.A after ()V\n");
	char *path = write_temp_file(text, len);
	for (int from_file = 0; from_file < 2; from_file++) {
		clear_diags(f);
		hg_mapping *m = NULL;
		if (from_file)
			assert_int_equal(hg_mapping_open(&f->ctx, path, &m), 0);
		else
			assert_int_equal(hg_mapping_from_memory(&f->ctx, "mem.txt", text, len, &m), 0);
		assert_int_equal(hg_mapping_count(m), 2);
		assert_int_equal(hg_mapping_skipped(m), 2);
		assert_int_equal(f->all_diags, 2);
		for (size_t i = 0; i < 2; i++) {
			assert_string_equal(f->diag[i].source, from_file ? path : "mem.txt");
			assert_int_equal(f->diag[i].line, (long)i + 2);
			assert_non_null(strstr(f->diag[i].message, "longer than 65536 bytes; line skipped"));
		}
		assert_symbol(m, 1, "com.a.A.first()");
		assert_absent(m, 2);
		assert_absent(m, 3);
		assert_symbol(m, 4, "com.a.A.after()");
		hg_mapping_destroy(m);
	}
	unlink(path);
	free(path);
	free(text);
}

/* ---- overloads ---- */

/* testdata/seeds/matrix-android/overloads/methodMapping.txt (written from
 * seed 002's ENTER report): a generic method and its bridge, a method and
 * the bridge that differs only in return type, two parameters whose simple
 * names agree. */
static const char overloads[] =
	"30,1,sample.tencent.matrix.trace.TestFpsActivity onCreate (Landroid.os.Bundle;)V\n"
	"33,4161,com.example.chat.ChatFragment$1 onChanged (Ljava.lang.Object;)V\n"
	"195,1,com.example.chat.ChatFragment$1 onChanged (Lcom.example.chat.UserIntimacyWrapper;)V\n"
	"206,1,com.example.db.UserModelDao get (ILjava.lang.String;)Lcom.example.db.UserModelEntity;\n"
	"161,4161,com.example.db.UserModelDao get (ILjava.lang.String;)"
	"Lio.objectbox.internal.ObjectBoxEntityImpl;\n"
	"180,1,com.example.ui.ItemBinder bind (Lcom.example.feed.Item;)V\n"
	"169,1,com.example.ui.ItemBinder bind (Lcom.example.chat.Item;)V\n"
	"96,1,com.example.ui.ItemBinder bind (Lcom.example.feed.Item;I)V\n"
	"7,1,com.example.other.ItemBinder bind (Lcom.example.feed.Item;)V\n"
	"8,1,com.example.db.UserModelDao get (ILjava.lang.String;)Lcom.example.db.UserModelEntity;\n"
	"9,1,com.x.R ret ()Lcom.a.Thing;\n"
	"10,1,com.x.R ret ()Lcom.b.Thing;\n"
	"11,1,com.x.R ret ()V\n"
	/* a descriptor with junk after its return type (found by fuzz_mapping):
	 * its overload's return type does not read */
	"12,1,z.Z z ()VispatchMessage (Landroid.os.Message;)V\n"
	"13,1,z.Z z ()I\n";

/* Overloads name alike only where they must not: by their return type
 * when only it differs, by whole classes when simple names agree; any
 * other method keeps its usual name. */
static void test_overloads_told_apart(void **state)
{
	struct fixture *f = *state;
	hg_mapping *m = load(f, overloads);
	assert_symbol(m, 30, "sample.tencent.matrix.trace.TestFpsActivity.onCreate(Bundle)");
	/* the simple names already differ: as ever */
	assert_symbol(m, 33, "com.example.chat.ChatFragment$1.onChanged(Object)");
	assert_symbol(m, 195, "com.example.chat.ChatFragment$1.onChanged(UserIntimacyWrapper)");
	assert_symbol(m, 206, "com.example.db.UserModelDao.get(int, String) -> UserModelEntity");
	assert_symbol(m, 161, "com.example.db.UserModelDao.get(int, String) -> ObjectBoxEntityImpl");
	/* id 8 is the same method as 206 (the same descriptor): no help there */
	assert_symbol(m, 8, "com.example.db.UserModelDao.get(int, String) -> UserModelEntity");
	assert_symbol(m, 180, "com.example.ui.ItemBinder.bind(com.example.feed.Item)");
	assert_symbol(m, 169, "com.example.ui.ItemBinder.bind(com.example.chat.Item)");
	assert_symbol(m, 96, "com.example.ui.ItemBinder.bind(Item, int)");
	/* another class of the same simple name is not an overload */
	assert_symbol(m, 7, "com.example.other.ItemBinder.bind(Item)");
	/* return types alike by simple name: whole */
	assert_symbol(m, 9, "com.x.R.ret() -> com.a.Thing");
	assert_symbol(m, 10, "com.x.R.ret() -> com.b.Thing");
	assert_symbol(m, 11, "com.x.R.ret() -> void");
	/* what tells an overload apart does not read: named as any method,
	 * never the raw descriptor */
	assert_symbol(m, 12, "z.Z.z()");
	assert_symbol(m, 13, "z.Z.z() -> int");
	hg_mapping_destroy(m);
}

/* Indexing a big file takes two halves at once: namesakes in different
 * halves are found all the same. */
static void test_overloads_across_halves(void **state)
{
	struct fixture *f = *state;
	size_t len;
	char *text = generate_mapping(0, &len);
	char *more = realloc(text, len + 128);
	assert_non_null(more);
	len += (size_t)snprintf(more + len, 128, "%d,1,com.example.gen.C0 m0 (I[Ljava/lang/String;)I\n",
				GENERATED_IDS);
	char *path;
	hg_mapping *m = open_as_file(f, more, len, &path);
	assert_int_equal(hg_mapping_count(m), GENERATED_IDS + 1);
	assert_symbol(m, 0, "com.example.gen.C0.m0(int, String[]) -> void");
	assert_symbol(m, GENERATED_IDS, "com.example.gen.C0.m0(int, String[]) -> int");
	assert_symbol(m, 1, "com.example.gen.C0.m1(int, String[])");
	hg_mapping_destroy(m);
	free(path);
}

int main(int argc, char **argv)
{
	mapping_path = argc > 1 ? argv[1] : "testdata/matrix-sample/methodMapping.txt";
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_real_file_loads),
		T(test_real_file_entry_fields),
		T(test_crlf_lines),
		T(test_spaces_around_commas),
		T(test_comments_and_blank_lines_ignored),
		T(test_native_method_without_descriptor),
		T(test_malformed_lines_warned_and_skipped),
		T(test_number_widths_both_ways),
		T(test_duplicate_id_keeps_first),
		T(test_only_first_ten_malformed_listed),
		T(test_ten_malformed_need_no_summary),
		T(test_empty_mapping),
		T(test_missing_file),
		T(test_directory_is_not_a_mapping),
		T(test_file_over_the_limit),
		T(test_memory_over_the_limit),
		T(test_lookup_absent_and_negative_ids),
		T(test_large_generated_mapping),
		T(test_large_generated_file),
		T(test_large_file_duplicates_across_halves),
		T(test_overlong_lines_skipped),
		T(test_format_dots_and_slashes),
		T(test_format_primitives_and_void),
		T(test_format_arrays),
		T(test_format_malformed_descriptor_verbatim),
		T(test_format_empty_parts),
		T(test_overloads_told_apart),
		T(test_overloads_across_halves),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
