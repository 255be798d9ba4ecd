/* Unit tests for ProGuard / R8 retrace (argv[1]: the testdata folder).
 * Goldens: rust-proguard's tests (byte for byte) and measure's retraced ANR
 * dumps (frame by frame; their inlined frames are listed outermost first,
 * see testdata/proguard/README.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/proguard.h"
#include "hangar/report.h"
#include "hangar/threads.h"
#include "report/report_internal.h"
#include "retrace/proguard_internal.h"

static const char *testdata;

/* ---- helpers ---- */

struct diags {
	int warnings, errors;
	long lines[64];
	char msgs[64][256];
	char sources[64][128];
};

static void collect(void *user, const hg_diag *d)
{
	struct diags *c = user;
	int n = c->warnings + c->errors;
	if (d->severity == HG_DIAG_ERROR)
		c->errors++;
	else
		c->warnings++;
	if (n < 64) {
		c->lines[n] = d->line;
		snprintf(c->msgs[n], sizeof c->msgs[n], "%s", d->message);
		snprintf(c->sources[n], sizeof c->sources[n], "%s", d->source ? d->source : "");
	}
}

static hg_ctx ctx_for(struct diags *c)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	if (c) {
		memset(c, 0, sizeof *c);
		ctx.diag = collect;
		ctx.diag_user = c;
	}
	return ctx;
}

static char *path_of(const char *rel)
{
	static char buf[4][1024];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, 1024, "%s/proguard/%s", testdata, rel);
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = malloc((size_t)n + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	data[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return data;
}

static hg_proguard *open_map(const char *rel)
{
	hg_ctx ctx = ctx_for(NULL);
	hg_proguard *pg = NULL;
	assert_int_equal(hg_proguard_open(&ctx, path_of(rel), &pg), 0);
	return pg;
}

static hg_proguard *mem_map(const char *text, struct diags *c)
{
	hg_ctx ctx = ctx_for(c);
	hg_proguard *pg = NULL;
	assert_int_equal(hg_proguard_from_memory(&ctx, "mem", text, strlen(text), &pg), 0);
	return pg;
}

/* Retraces text with maps; returns the output (free it). */
static char *retrace(hg_proguard **maps, size_t n, const char *text, size_t len)
{
	hg_buf out;
	hg_buf_init(&out);
	assert_int_equal(hg_proguard_retrace_text((const hg_proguard *const *)maps, n, text, len, &out),
			 0);
	char *s = out.data ? out.data : strdup("");
	return s;
}

static void expect_text(hg_proguard *pg, const char *in, const char *want)
{
	char *got = retrace(&pg, 1, in, strlen(in));
	assert_string_equal(got, want);
	free(got);
}

/* ---- rust-proguard goldens ---- */

static void golden(const char *name)
{
	char m[256], in[256], want[256];
	snprintf(m, sizeof m, "rust-proguard/mapping-%s.txt", name);
	snprintf(in, sizeof in, "rust-proguard/%s.obfuscated.txt", name);
	snprintf(want, sizeof want, "rust-proguard/%s.retraced-expected.txt", name);
	hg_proguard *pg = open_map(m);
	size_t in_len, want_len;
	char *input = slurp(path_of(in), &in_len);
	char *expected = slurp(path_of(want), &want_len);
	char *got = retrace(&pg, 1, input, in_len);
	assert_string_equal(got, expected);
	free(got);
	free(input);
	free(expected);
	hg_proguard_destroy(pg);
}

static void test_golden_inlines(void **state)
{
	(void)state;
	golden("inlines");
}

static void test_golden_outline_complex(void **state)
{
	(void)state;
	golden("outline-complex");
}

static void test_golden_zero_line_info(void **state)
{
	(void)state;
	golden("zero-line-info");
}

static void test_callback_extra_class(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("rust-proguard/mapping-callback-extra-class.txt");
	/* Upstream's fourth, synthesized frame is left out, as R8 does. */
	expect_text(pg, "    at io.sentry.samples.instrumentation.ui.g.onMenuItemClick(SourceFile:28)\n",
		    "    at io.sentry.samples.instrumentation.ui.TestSourceContext.test2(TestSourceContext.java:10)\n"
		    "    at io.sentry.samples.instrumentation.ui.TestSourceContext.test(TestSourceContext.java:6)\n"
		    "    at io.sentry.samples.instrumentation.ui.EditActivity.onCreate$lambda$1(EditActivity.java:38)\n");
	hg_proguard_destroy(pg);
}

static void test_classic_proguard(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("rust-proguard/mapping-proguard-classic.txt");
	const char *cls = "android.support.constraint.ConstraintLayout$a";
	assert_string_equal(hg_proguard_class(pg, cls, strlen(cls)),
			    "android.support.constraint.ConstraintLayout$LayoutParams");
	assert_null(hg_proguard_class(pg, "no.such.Class", 13));
	expect_text(pg, "\tat android.support.constraint.a.a.a(SourceFile:320)\n",
		    "\tat android.support.constraint.solver.ArrayLinkedVariables.remove(ArrayLinkedVariables.java:320)\n");
	expect_text(pg, "\tat android.support.constraint.a.a.a(SourceFile:200)\n",
		    "\tat android.support.constraint.solver.ArrayLinkedVariables.put(ArrayLinkedVariables.java:200)\n");
	/* No line: every method named `a` is a candidate. */
	char *got = retrace(&pg, 1, "\tat android.support.constraint.a.a.a(Unknown Source)\n", 52);
	assert_non_null(strstr(got, "\tat android.support.constraint.solver.ArrayLinkedVariables.put(ArrayLinkedVariables.java)\n"
				    "\t<OR> at android.support.constraint.solver.ArrayLinkedVariables.remove(ArrayLinkedVariables.java)\n"));
	free(got);
	assert_null(hg_proguard_map_id(pg));
	assert_true(hg_proguard_class_count(pg) > 500);
	assert_int_equal(hg_proguard_skipped(pg), 0);
	hg_proguard_destroy(pg);
}

/* ---- measure's ANR goldens, frame by frame ---- */

static size_t count_lines(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* The i-th line of the k lines at s (NUL-terminated copy in buf). */
static const char *nth_line(const char *s, size_t i, char *buf, size_t size)
{
	for (; i; i--)
		s = strchr(s, '\n') + 1;
	const char *e = strchr(s, '\n');
	size_t n = e ? (size_t)(e - s) : strlen(s);
	snprintf(buf, size, "%.*s", (int)(n < size - 1 ? n : size - 1), s);
	return buf;
}

static void measure_golden(const char *name, size_t want_reversed, size_t want_changed)
{
	hg_proguard *pg = open_map("measure-r8-8.13/mapping.txt");
	char in_name[256], gold_name[256];
	snprintf(in_name, sizeof in_name, "measure-r8-8.13/%s-obfuscated.txt", name);
	snprintf(gold_name, sizeof gold_name, "measure-r8-8.13/%s-retraced-expected.txt", name);
	size_t in_len, gold_len;
	char *in = slurp(path_of(in_name), &in_len);
	char *gold = slurp(path_of(gold_name), &gold_len);
	hg_proguard_stream *s;
	assert_int_equal(hg_proguard_stream_create((const hg_proguard *const *)&pg, 1, &s), 0);
	const char *g = gold;
	size_t reversed = 0, changed = 0;
	hg_buf out;
	hg_buf_init(&out);
	for (size_t p = 0; p < in_len;) {
		const char *nl = memchr(in + p, '\n', in_len - p);
		size_t e = nl ? (size_t)(nl - in) + 1 : in_len;
		hg_buf_reset(&out);
		assert_int_equal(hg_proguard_stream_line(s, in + p, e - p, &out), 0);
		size_t k = count_lines(out.data ? out.data : "", out.len);
		k += out.len && out.data[out.len - 1] != '\n'; /* the last line */
		assert_true(k >= 1);
		bool same = strncmp(g, out.data, out.len) == 0;
		changed += out.len != e - p || memcmp(out.data, in + p, out.len) != 0;
		if (!same) {
			/* An inlined frame: the golden lists the same lines reversed. */
			char a[1024], b[1024];
			assert_true(k > 1);
			for (size_t i = 0; i < k; i++)
				assert_string_equal(nth_line(out.data, i, a, sizeof a),
						    nth_line(g, k - 1 - i, b, sizeof b));
			reversed++;
		}
		g += out.len; /* the same lines, whatever their order */
		p = e;
	}
	hg_buf_reset(&out);
	assert_int_equal(hg_proguard_stream_finish(s, &out), 0);
	assert_int_equal(out.len, 0);
	assert_ptr_equal(g, gold + gold_len);
	assert_int_equal(reversed, want_reversed);
	assert_int_equal(changed, want_changed);
	hg_buf_release(&out);
	hg_proguard_stream_destroy(s);
	free(in);
	free(gold);
	hg_proguard_destroy(pg);
}

static void test_measure_anr_trimmed(void **state)
{
	(void)state;
	measure_golden("anr-trimmed", 6, 20);
}

static void test_measure_app_exit(void **state)
{
	(void)state;
	measure_golden("app-exit-trace", 6, 20);
}

/* ---- the report API ---- */

static hg_report *report_of(const char *const *frames, size_t n)
{
	hg_report *rep = report_new("test", 1, 1);
	assert_non_null(rep);
	hg_thread *t = hg_threads_add(&rep->threads, rep->arena);
	assert_non_null(t);
	t->name = "main";
	for (size_t i = 0; i < n; i++) {
		hg_frame *f = hg_thread_add_frame(t, rep->arena);
		assert_non_null(f);
		if (hg_frame_parse_java(frames[i], strlen(frames[i]), rep->arena, f) != 0) {
			f->kind = HG_FRAME_NATIVE;
			f->symbol = f->text = hg_arena_strdup(rep->arena, frames[i]);
		}
	}
	return rep;
}

static void test_report_outline_complex(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("rust-proguard/mapping-outline-complex.txt");
	size_t in_len, want_len;
	char *in = slurp(path_of("rust-proguard/outline-complex.obfuscated.txt"), &in_len);
	char *want = slurp(path_of("rust-proguard/outline-complex.retraced-expected.txt"), &want_len);
	const char *frames[32];
	size_t n = 0;
	for (char *line = strtok(in, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "at "))
			frames[n++] = line;
	assert_int_equal(n, 14);
	hg_report *rep = report_of(frames, n);
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	const hg_thread *t = &rep->threads.items[0];
	size_t k = 0;
	hg_arena *arena = hg_arena_create();
	for (char *line = strtok(want, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strstr(line, "at "))
			continue;
		hg_frame w;
		assert_int_equal(hg_frame_parse_java(line, strlen(line), arena, &w), 0);
		assert_true(k < t->n_frames);
		const hg_frame *f = &t->frames[k++];
		assert_string_equal(f->cls, w.cls);
		assert_string_equal(f->method, w.method);
		assert_string_equal(f->file, w.file);
		assert_int_equal(f->line, w.line);
		assert_false(f->alternative);
		assert_int_equal(f->retraced, strncmp(w.cls, "android.", 8) != 0);
	}
	assert_int_equal(k, 23);
	assert_int_equal(t->n_frames, 23);
	hg_arena_destroy(arena);
	hg_report_destroy(rep);
	free(in);
	free(want);
	hg_proguard_destroy(pg);
}

static void test_report_measure_main(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("measure-r8-8.13/mapping.txt");
	const char *frames[] = {
		"at bl.q0.run(r8-map-id-395c38ad35850b08fce2fc89e55363d510544d93c2dfa3e409521ade64f67e97:24)",
		"native: #00 pc 000000000004e0cc  /apex/com.android.runtime/lib64/bionic/libc.so (syscall+28)",
		"at android.os.Handler.handleCallback(Handler.java:959)",
		"at rj.a.run(r8-map-id-395c38ad35850b08fce2fc89e55363d510544d93c2dfa3e409521ade64f67e97:248)",
	};
	hg_report *rep = report_of(frames, 4);
	hg_thread *t = &rep->threads.items[0];
	const char *unknown_text = t->frames[2].text;
	hg_thread_add_held(t, rep->arena, "0x1", "java.lang.Class<bl.q>");
	hg_thread_add_held(t, rep->arena, "0x2", "bl.q[]");
	hg_thread_add_held(t, rep->arena, "0x3", "java.lang.Object");
	t->waiting.addr = "0x0cd03f02";
	t->waiting.cls = "bl.q";
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	static const struct {
		const char *cls, *method, *file;
		long line;
	} want[] = {
		{"sh.frankenstein.android.DeadlockToken", "waitForever", "NativeAndroidScreen.kt", 74},
		{"sh.frankenstein.android.NativeAndroidScreenKt", "NativeAndroidScreen$lambda$16$0$0",
		 "NativeAndroidScreen.kt", 209},
		{NULL, NULL, NULL, 0},
		{"android.os.Handler", "handleCallback", "Handler.java", 959},
		{"kotlinx.coroutines.scheduling.CoroutineScheduler$Worker", "park", "CoroutineScheduler.kt", 858},
		{"kotlinx.coroutines.scheduling.CoroutineScheduler$Worker", "tryPark", "CoroutineScheduler.kt", 806},
		{"kotlinx.coroutines.scheduling.CoroutineScheduler$Worker", "runWorker", "CoroutineScheduler.kt", 754},
		{"kotlinx.coroutines.scheduling.CoroutineScheduler$Worker", "run", "CoroutineScheduler.kt", 707},
	};
	assert_int_equal(t->n_frames, 8);
	for (size_t i = 0; i < 8; i++) {
		const hg_frame *f = &t->frames[i];
		if (!want[i].cls) {
			assert_int_equal(f->kind, HG_FRAME_NATIVE);
			continue;
		}
		assert_string_equal(f->cls, want[i].cls);
		assert_string_equal(f->method, want[i].method);
		assert_string_equal(f->file, want[i].file);
		assert_int_equal(f->line, want[i].line);
		assert_int_equal(f->retraced, i != 3);
		assert_false(f->alternative);
	}
	assert_ptr_equal(t->frames[3].text, unknown_text);
	assert_ptr_equal(t->frames[0].text, t->frames[1].text); /* one obfuscated frame */
	assert_string_equal(t->held[0].cls, "java.lang.Class<sh.frankenstein.android.DeadlockToken>");
	assert_string_equal(t->held[1].cls, "sh.frankenstein.android.DeadlockToken[]");
	assert_string_equal(t->held[2].cls, "java.lang.Object");
	assert_string_equal(t->waiting.cls, "sh.frankenstein.android.DeadlockToken");
	hg_report_destroy(rep);
	hg_proguard_destroy(pg);
}

static void test_report_alternatives(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("rust-proguard/mapping-proguard-classic.txt");
	const char *frames[] = {"at android.support.constraint.a.a.a(Unknown Source)",
				"at android.support.constraint.a.a.a(SourceFile:320)"};
	hg_report *rep = report_of(frames, 2);
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	const hg_thread *t = &rep->threads.items[0];
	assert_true(t->n_frames > 3);
	size_t alts = t->n_frames - 1;
	for (size_t i = 0; i < alts; i++) {
		assert_true(t->frames[i].alternative);
		assert_true(t->frames[i].retraced);
		assert_int_equal(t->frames[i].line, -1);
		assert_ptr_equal(t->frames[i].text, t->frames[0].text);
		/* Each one-frame candidate is numbered in order. */
		assert_int_equal(t->frames[i].candidate, (int)i + 1);
	}
	assert_string_equal(t->frames[0].method, "put");
	assert_string_equal(t->frames[1].method, "remove");
	const hg_frame *last = &t->frames[alts];
	assert_false(last->alternative);
	assert_int_equal(last->candidate, 0);
	assert_string_equal(last->method, "remove");
	assert_int_equal(last->line, 320);
	/* No mapping, or a failed report: nothing changes. */
	assert_int_equal(hg_report_retrace(rep, NULL, 0), 0);
	assert_int_equal(t->n_frames, alts + 1);
	hg_report_destroy(rep);
	hg_proguard_destroy(pg);
}

static void test_report_outline_not_consumed(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("rust-proguard/mapping-outline-complex.txt");
	const char *frames[] = {"at ev.h.b(SourceFile:3)", "at android.os.Handler.post(Handler.java:1)",
				"at ev.h.b(SourceFile:3)"};
	hg_report *rep = report_of(frames, 3);
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	const hg_thread *t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, 3);
	assert_string_equal(t->frames[0].cls, "ev.CanvasAttributeLayoutKt$$ExternalSyntheticOutline0");
	assert_string_equal(t->frames[0].method, "m");
	assert_int_equal(t->frames[0].line, 1);
	assert_string_equal(t->frames[1].cls, "android.os.Handler");
	assert_string_equal(t->frames[2].method, "m");
	hg_report_destroy(rep);
	hg_proguard_destroy(pg);
}

/* ---- text details ---- */

static const char small_map[] =
	"# compiler: R8\n"
	"# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n"
	"# pg_map_id: abc\n"
	"com.example.Foo -> a.a:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"Foo.kt\"}\n"
	"    int count -> c\n"
	"      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"I\"}\n"
	"    1:3:void bar(int):10:12 -> a\n"
	"    4:4:void com.example.Util.helper():5:5 -> a\n"
	"    4:4:void bar(int):13 -> a\n"
	"    void baz() -> b\n"
	"    void qux(int) -> b\n"
	"com.example.Boom -> a.b:\n"
	"com.example.Npe -> a.c:\n"
	"    4:4:void other.Class.inlinee():23:23 -> a\n"
	"    4:4:void caller():7 -> a\n"
	"    # {\"id\":\"com.android.tools.r8.rewriteFrame\",\"conditions\":[\"throws(Ljava/lang/NullPointerException;)\"],\"actions\":[\"removeInnerFrames(1)\"]}\n"
	"Top -> t:\n"
	"    1:1:void run():3:3 -> r\n";

static void test_text_frames(void **state)
{
	(void)state;
	struct diags c;
	hg_proguard *pg = mem_map(small_map, &c);
	assert_int_equal(c.warnings + c.errors, 0);
	assert_string_equal(hg_proguard_map_id(pg), "abc");
	assert_string_equal(hg_proguard_name(pg), "mem");
	assert_int_equal(hg_proguard_class_count(pg), 4);
	expect_text(pg, "\tat a.a.a(SourceFile:2)\r\n", "\tat com.example.Foo.bar(Foo.kt:11)\r\n");
	expect_text(pg, "I/x: \tat a.a.a(SourceFile:4) extra\n",
		    "I/x: \tat com.example.Util.helper(Util.kt:5) extra\n"
		    "I/x: \tat com.example.Foo.bar(Foo.kt:13) extra\n");
	expect_text(pg, "    at a.a.b(Unknown Source)\n",
		    "    at com.example.Foo.baz(Foo.kt)\n    <OR> at com.example.Foo.qux(Foo.kt)\n");
	expect_text(pg, "  at a.a.a(Native Method)\n", "  at com.example.Foo.bar(Native Method)\n");
	expect_text(pg, "  at a.a.a(Native method)\n", "  at com.example.Foo.bar(Native method)\n");
	expect_text(pg, "  at a.a.a(SourceFile:99)\n", "  at com.example.Foo.bar(Foo.kt)\n");
	expect_text(pg, "  at a.a.zz(SourceFile:7)\n", "  at com.example.Foo.zz(Foo.kt:7)\n");
	expect_text(pg, "a.a.a(SourceFile:2)\n", "com.example.Foo.bar(Foo.kt:11)\n");
	expect_text(pg, "at t.r(SourceFile:1)", "at Top.run(Top.java:3)");
	/* Not frames, or not known: every byte kept. */
	static const char *const same[] = {
		"hello a.a.a world\n", "at a.a.a\n", "  at x.y.z(SourceFile:1)\n", "\xff\xfe a.a(\n",
		"no newline at end", "\n", "", "   - locked <0x1> (a java.lang.Object)\n",
		"Subject: a: b\n", "at a.a.a(SourceFile:2\n",
	};
	for (size_t i = 0; i < sizeof same / sizeof *same; i++)
		expect_text(pg, same[i], same[i]);
	hg_proguard_destroy(pg);
}

static void test_text_exceptions_and_locks(void **state)
{
	(void)state;
	hg_proguard *pg = mem_map(small_map, NULL);
	expect_text(pg, "Caused by: a.b: boom\n", "Caused by: com.example.Boom: boom\n");
	expect_text(pg, "a.b\n", "com.example.Boom\n");
	expect_text(pg, "Exception in thread \"main\" a.b: x\n",
		    "Exception in thread \"main\" com.example.Boom: x\n");
	expect_text(pg, "\tSuppressed: a.b\n", "\tSuppressed: com.example.Boom\n");
	expect_text(pg, "  - waiting to lock <0x0c> (a a.b) held by thread 21\n",
		    "  - waiting to lock <0x0c> (a com.example.Boom) held by thread 21\n");
	expect_text(pg, "  - locked <@addr=0x20> (a java.lang.Class<a.b>)\n",
		    "  - locked <@addr=0x20> (a java.lang.Class<com.example.Boom>)\n");
	/* rewriteFrame: only right after a line that throws the type. */
	expect_text(pg, "java.lang.NullPointerException: Boom\n    at a.c.a(SourceFile:4)\n",
		    "java.lang.NullPointerException: Boom\n    at com.example.Npe.caller(Npe.java:7)\n");
	expect_text(pg, "java.lang.IllegalStateException: Boom\n    at a.c.a(SourceFile:4)\n",
		    "java.lang.IllegalStateException: Boom\n    at other.Class.inlinee(Class.java:23)\n"
		    "    at com.example.Npe.caller(Npe.java:7)\n");
	expect_text(pg, "    at a.c.a(SourceFile:4)\n",
		    "    at other.Class.inlinee(Class.java:23)\n    at com.example.Npe.caller(Npe.java:7)\n");
	hg_proguard_destroy(pg);
}

static void test_text_json(void **state)
{
	(void)state;
	hg_proguard *pg = mem_map(small_map, NULL);
	expect_text(pg,
		    "{\"threadStack\":\"a.a.a(SourceFile:4)\\nandroid.os.Handler.post(Handler.java:9)\\n"
		    "\\tat a.a.a(SourceFile:2)\",\"x\":\"a.a.a(SourceFile:1)\"}\n",
		    "{\"threadStack\":\"com.example.Util.helper(Util.kt:5)\\ncom.example.Foo.bar(Foo.kt:13)"
		    "\\nandroid.os.Handler.post(Handler.java:9)\\n\\tat com.example.Foo.bar(Foo.kt:11)\","
		    "\"x\":\"com.example.Foo.bar(Foo.kt:10)\"}\n");
	const char *other = "{\"a\":\"at a.a.q(SourceFile:1)\",\"b\":\"\\\\n\"}\n";
	expect_text(pg, other, "{\"a\":\"at com.example.Foo.q(Foo.kt:1)\",\"b\":\"\\\\n\"}\n");
	hg_proguard_destroy(pg);
}

static void test_text_outline_stream(void **state)
{
	(void)state;
	hg_proguard *pg = open_map("rust-proguard/mapping-outline-complex.txt");
	/* An outline frame waits for its caller; without one it is retraced
	 * as it is. */
	expect_text(pg, "    at ev.h.b(SourceFile:3)\nfoo\n",
		    "    at ev.CanvasAttributeLayoutKt$$ExternalSyntheticOutline0.m(CanvasAttributeLayout.kt:1)\nfoo\n");
	expect_text(pg, "    at ev.h.b(SourceFile:3)\n",
		    "    at ev.CanvasAttributeLayoutKt$$ExternalSyntheticOutline0.m(CanvasAttributeLayout.kt:1)\n");
	expect_text(pg, "    at ev.h.b(SourceFile:3)\n    at ev.h.b(SourceFile:6)\n    at uu0.k.l(SourceFile:43)\n",
		    "    at ev.CanvasAttributeLayoutKt$$ExternalSyntheticOutline0.m(CanvasAttributeLayout.kt:1)\n"
		    "    at com.example.projection.MapProjectionViewController.onProjectionView(MapProjectionViewController.kt:160)\n"
		    "    at com.example.projection.MapProjectionViewController.createProjectionMarkerInternal(MapProjectionViewController.kt:133)\n"
		    "    at com.example.projection.MapProjectionViewController.createProjectionMarker(MapProjectionViewController.kt:79)\n"
		    "    at com.example.MapAnnotations.createProjectionMarker(MapAnnotations.kt:63)\n");
	/* No mapping at all: the text as it is. */
	const char *in = "    at ev.h.b(SourceFile:3)\r\nx";
	char *got = retrace(NULL, 0, in, strlen(in));
	assert_string_equal(got, in);
	free(got);
	hg_proguard_destroy(pg);
}

static void test_map_order_and_id(void **state)
{
	(void)state;
	hg_proguard *maps[2];
	maps[0] = mem_map("# pg_map_id: 111\ncom.one.A -> x.a:\n    1:1:void m1():10:10 -> a\n", NULL);
	maps[1] = mem_map("# pg_map_id: 222\ncom.two.B -> x.a:\n    1:1:void m2():20:20 -> a\n"
			  "com.two.C -> y.b:\n",
			  NULL);
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"at x.a.a(SourceFile:1)\n", "at com.one.A.m1(A.java:10)\n"},
		{"at x.a.a(r8-map-id-222:1)\n", "at com.two.B.m2(B.java:20)\n"},
		{"at x.a.a(r8-map-id-999:1)\n", "at com.one.A.m1(A.java:10)\n"},
		{"at y.b.z(r8-map-id-111:5)\n", "at com.two.C.z(C.java:5)\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = retrace(maps, 2, cases[i].in, strlen(cases[i].in));
		assert_string_equal(got, cases[i].out);
		free(got);
	}
	hg_proguard_destroy(maps[0]);
	hg_proguard_destroy(maps[1]);
}

/* ---- bad mappings ---- */

static void test_malformed_lines(void **state)
{
	(void)state;
	struct diags c;
	hg_proguard *pg = mem_map("    1:1:void orphan() -> a\n"      /* 1: before any class */
				  "com.a.A -> a:\n"                    /* 2 */
				  "    1:2:void ok():5:6 -> a\n"        /* 3 */
				  "garbage line\n"                     /* 4 */
				  "com.b.B -> b\n"                     /* 5: no colon */
				  "com.c.C -> c:\n"                    /* 6 */
				  "    1:x:void bad() -> a\n"           /* 7: lazily */
				  "    void noarrow()\n"                /* 8: lazily */
				  "    2:2:void good():9:9 -> a\n"      /* 9 */
				  "    3:3:void f(:1 -> b\n",           /* 10: lazily */
				  &c);
	assert_int_equal(c.errors, 0);
	assert_int_equal(c.warnings, 3);
	assert_int_equal(c.lines[0], 1);
	assert_int_equal(c.lines[1], 4);
	assert_int_equal(c.lines[2], 5);
	assert_non_null(strstr(c.msgs[0], "before any class"));
	assert_int_equal(hg_proguard_class_count(pg), 2);
	expect_text(pg, "at a.a(SourceFile:2)\n", "at com.a.A.ok(A.java:6)\n");
	assert_int_equal(c.warnings, 3); /* com.a.A had no bad line */
	expect_text(pg, "at c.a(SourceFile:2)\n", "at com.c.C.good(C.java:9)\n");
	assert_int_equal(c.warnings, 6);
	assert_int_equal(c.lines[3], 7);
	assert_int_equal(c.lines[4], 8);
	assert_int_equal(c.lines[5], 10);
	assert_int_equal(hg_proguard_skipped(pg), 6);
	expect_text(pg, "at c.a(SourceFile:2)\n", "at com.c.C.good(C.java:9)\n");
	assert_int_equal(c.warnings, 6); /* expanded once */
	hg_proguard_destroy(pg);
}

static void test_many_malformed_lines(void **state)
{
	(void)state;
	struct diags c;
	char text[4096] = "com.a.A -> a:\n";
	for (int i = 0; i < 25; i++)
		strcat(text, "not a class line\n");
	strcat(text, "com.b.B -> b:\n");
	hg_proguard *pg = mem_map(text, &c);
	assert_int_equal(c.warnings, 11); /* ten, then the count */
	assert_int_equal(c.lines[9], 11);
	assert_int_equal(c.lines[10], 0);
	assert_non_null(strstr(c.msgs[10], "25 malformed lines"));
	assert_int_equal(hg_proguard_class_count(pg), 2);
	hg_proguard_destroy(pg);
}

static void test_unknown_metadata(void **state)
{
	(void)state;
	struct diags c;
	hg_proguard *pg = mem_map("# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"3.0\"}\n"
				  "com.a.A -> a:\n"
				  "# {\"id\":\"com.example.future\",\"x\":[1,{\"y\":2}]}\n"
				  "    1:1:void m():3:3 -> a\n"
				  "      # {'id':'com.example.future'}\n"
				  "      # {\"id\":\"other\"}\n"
				  "      # {\"noid\":1}\n"
				  "      # {\"id\":\"sourceFile\",\"fileName\":\"A.kt\"}\n"
				  "      # just a comment\n",
				  &c);
	/* At load: what starts a line (file and class metadata). */
	assert_int_equal(c.errors, 0);
	assert_int_equal(c.warnings, 2);
	assert_int_equal(c.lines[0], 3);
	assert_non_null(strstr(c.msgs[0], "'com.example.future'"));
	assert_int_equal(c.lines[1], 1);
	assert_non_null(strstr(c.msgs[1], "version 3.0"));
	/* A member's metadata is the member's: read (and its file name is the
	 * class's, not this sourceFile) when the class is expanded; an id
	 * already reported is not reported again. */
	expect_text(pg, "at a.a(SourceFile:1)\n", "at com.a.A.m(A.java:3)\n");
	assert_int_equal(c.warnings, 4);
	assert_int_equal(c.lines[2], 6);
	assert_non_null(strstr(c.msgs[2], "'other'"));
	assert_int_equal(c.lines[3], 7);
	assert_non_null(strstr(c.msgs[3], "without an \"id\""));
	expect_text(pg, "at a.a(SourceFile:1)\n", "at com.a.A.m(A.java:3)\n");
	assert_int_equal(c.warnings, 4);
	hg_proguard_destroy(pg);
}

static void test_not_a_mapping(void **state)
{
	(void)state;
	struct diags c;
	hg_ctx ctx = ctx_for(&c);
	hg_proguard *pg = (hg_proguard *)1;
	char path[1024];
	snprintf(path, sizeof path, "%s/matrix-sample/methodMapping.txt", testdata);
	assert_int_equal(hg_proguard_open(&ctx, path, &pg), HG_EPARSE);
	assert_null(pg);
	assert_int_equal(c.errors, 1);
	assert_int_equal(hg_proguard_open(&ctx, "/nonexistent/mapping.txt", &pg), HG_EIO);
	assert_int_equal(hg_proguard_open(&ctx, testdata, &pg), HG_EIO);
	ctx.limits.max_mapping_bytes = 10;
	assert_int_equal(hg_proguard_open(&ctx, path_of("measure-r8-8.13/mapping.txt"), &pg), HG_ELIMIT);
	assert_int_equal(hg_proguard_from_memory(&ctx, "m", small_map, strlen(small_map), &pg), HG_ELIMIT);
	ctx.limits.max_mapping_bytes = 1 << 20;
	/* Empty, or comments only: nothing to retrace, not an error. */
	assert_int_equal(hg_proguard_from_memory(&ctx, "m", "", 0, &pg), 0);
	assert_int_equal(hg_proguard_class_count(pg), 0);
	expect_text(pg, "at a.b(SourceFile:1)\n", "at a.b(SourceFile:1)\n");
	hg_proguard_destroy(pg);
	assert_int_equal(hg_proguard_from_memory(&ctx, "m", "# x\n", 4, &pg), 0);
	hg_proguard_destroy(pg);
	hg_proguard_destroy(NULL);
}

static void test_duplicates_bom_crlf(void **state)
{
	(void)state;
	struct diags c;
	hg_proguard *pg = mem_map("\xEF\xBB\xBF" "com.a.A -> a:\r\n"
				  "    1:1:void m():3:3 -> a\r\n"
				  "com.b.B -> a:\r\n"
				  "    1:1:void n():4:4 -> a\r\n",
				  &c);
	assert_int_equal(c.warnings, 1);
	assert_int_equal(c.lines[0], 3);
	assert_non_null(strstr(c.msgs[0], "mapped again"));
	expect_text(pg, "at a.a(SourceFile:1)\r\n", "at com.a.A.m(A.java:3)\r\n");
	hg_proguard_destroy(pg);
}

/* Every prefix of a real mapping loads (or is refused) and retraces a
 * dump without harm. */
static void test_truncated(void **state)
{
	(void)state;
	size_t len, in_len;
	char *map = slurp(path_of("measure-r8-8.13/mapping.txt"), &len);
	char *in = slurp(path_of("measure-r8-8.13/anr-trimmed-obfuscated.txt"), &in_len);
	hg_ctx ctx = ctx_for(NULL);
	size_t loaded = 0;
	for (size_t cut = 0; cut <= len; cut += cut < 4096 ? 61 : 2039) {
		hg_proguard *pg = NULL;
		int rc = hg_proguard_from_memory(&ctx, "cut", map, cut, &pg);
		assert_true(rc == 0 || rc == HG_EPARSE);
		if (rc)
			continue;
		loaded++;
		char *out = retrace(&pg, 1, in, in_len);
		assert_true(strlen(out) >= in_len / 2);
		free(out);
		hg_proguard_destroy(pg);
	}
	assert_true(loaded > 100);
	free(map);
	free(in);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t next_rand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

/* Random byte mutations of a real R8 mapping, then retrace. */
static void test_mutations(void **state)
{
	(void)state;
	size_t len, in_len;
	char *map = slurp(path_of("rust-proguard/mapping-outline-complex.txt"), &len);
	char *in = slurp(path_of("rust-proguard/outline-complex.obfuscated.txt"), &in_len);
	char *copy = malloc(len + 64);
	static const char alphabet[] = "\n\n  ::-->#{}\"'0123456789()[],.abcz$\r\t\xff";
	hg_ctx ctx = ctx_for(NULL);
	for (int round = 0; round < 150; round++) {
		memcpy(copy, map, len);
		size_t n = len;
		for (int k = 1 + (int)(next_rand() % 24); k > 0; k--) {
			size_t at = next_rand() % n;
			switch (next_rand() % 3) {
			case 0: copy[at] = alphabet[next_rand() % (sizeof alphabet - 1)]; break;
			case 1: memmove(copy + at, copy + at + 1, n - at - 1); n--; break;
			default:
				if (n < len + 63) {
					memmove(copy + at + 1, copy + at, n - at);
					copy[at] = alphabet[next_rand() % (sizeof alphabet - 1)];
					n++;
				}
			}
		}
		hg_proguard *pg = NULL;
		int rc = hg_proguard_from_memory(&ctx, "mut", copy, n, &pg);
		assert_true(rc == 0 || rc == HG_EPARSE);
		if (rc)
			continue;
		char *out = retrace(&pg, 1, in, in_len);
		free(out);
		out = retrace(&pg, 1, copy, n < 20000 ? n : 20000);
		free(out);
		hg_proguard_destroy(pg);
	}
	free(copy);
	free(map);
	free(in);
}

/* A generated 20 MB mapping read from a file (two workers) and from memory
 * (one): the same classes, and the same line in a warning. */
static void test_big_generated(void **state)
{
	(void)state;
	char path[] = "/tmp/hangar-proguard-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	const int classes = 40000;
	long line = 0, bad_line = 0;
	for (int i = 0; i < classes; i++) {
		fprintf(f, "com.example.generated.pkg%d.SomeClassName%d -> g%d.c:\n", i % 97, i, i);
		line++;
		fprintf(f, "# {\"id\":\"sourceFile\",\"fileName\":\"SomeClassName%d.kt\"}\n", i);
		line++;
		for (int m = 0; m < 10; m++, line++)
			fprintf(f, "    %d:%d:java.lang.String someMethodName%d(int,java.lang.String,long):%d:%d -> %c\n",
				m * 5 + 1, m * 5 + 5, m, 100 + m * 10, 104 + m * 10, 'a' + m);
		if (i == classes * 3 / 4) {
			fprintf(f, "this line is broken\n");
			bad_line = ++line;
		}
	}
	fclose(f);
	size_t len;
	char *data = slurp(path, &len);
	assert_true(len > 20u << 20);
	struct diags c1, c2;
	hg_ctx ctx1 = ctx_for(&c1), ctx2 = ctx_for(&c2);
	hg_proguard *maps[2];
	assert_int_equal(hg_proguard_open(&ctx1, path, &maps[0]), 0);
	assert_int_equal(hg_proguard_from_memory(&ctx2, "mem", data, len, &maps[1]), 0);
	for (int k = 0; k < 2; k++) {
		struct diags *c = k ? &c2 : &c1;
		assert_int_equal(hg_proguard_class_count(maps[k]), (size_t)classes);
		assert_int_equal(c->warnings, 1);
		assert_int_equal(c->lines[0], bad_line);
		int picks[] = {0, 1, classes / 2 - 1, classes / 2, classes / 2 + 1, classes * 3 / 4,
			       classes - 1};
		for (size_t p = 0; p < sizeof picks / sizeof *picks; p++) {
			char in[128], want[256];
			int i = picks[p];
			snprintf(in, sizeof in, "\tat g%d.c.d(SourceFile:17)\n", i);
			snprintf(want, sizeof want,
				 "\tat com.example.generated.pkg%d.SomeClassName%d.someMethodName3(SomeClassName%d.kt:131)\n",
				 i % 97, i, i);
			char *got = retrace(&maps[k], 1, in, strlen(in));
			assert_string_equal(got, want);
			free(got);
		}
	}
	hg_proguard_destroy(maps[0]);
	hg_proguard_destroy(maps[1]);
	free(data);
	unlink(path);
}

/* Member lines over PG_MAX_LINE (64 KiB) are skipped, as the warning says
 * (it names the file and the line): the members they map are not used,
 * and the lines after them still are.  One line sits between 64 and 128
 * KiB (the file reader's chunk), one above; and a class line over the
 * limit takes its members with it.  From a file and from memory alike. */
static void test_overlong_member_lines(void **state)
{
	(void)state;
	char path[] = "/tmp/hangar-proguard-long-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	const size_t sizes[] = {100u << 10, 200u << 10};
	fprintf(f, "com.a.A -> a:\n");                             /* 1 */
	fprintf(f, "    1:1:void first():10:10 -> a\n");           /* 2 */
	for (int k = 0; k < 2; k++) {                              /* 3, 4 */
		fprintf(f, "    %d:%d:void huge", 2 + k, 2 + k);
		for (size_t i = 0; i < sizes[k]; i++)
			fputc('x', f);
		fprintf(f, "():20:20 -> %c\n", 'b' + k);
	}
	fprintf(f, "    5:5:void after():30:30 -> d\n");           /* 5 */
	fprintf(f, "com.b.B -> b:\n");                             /* 6 */
	fprintf(f, "    1:1:void bee():5:5 -> a\n");               /* 7 */
	fprintf(f, "com.c.");                                      /* 8: a class line too long */
	for (size_t i = 0; i < sizes[1]; i++)
		fputc('C', f);
	fprintf(f, " -> c:\n");
	fprintf(f, "    1:1:void orphan():5:5 -> e\n");            /* 9: its member */
	fclose(f);
	size_t len;
	char *data = slurp(path, &len);
	struct diags c1, c2;
	hg_ctx ctx1 = ctx_for(&c1), ctx2 = ctx_for(&c2);
	hg_proguard *maps[2];
	assert_int_equal(hg_proguard_open(&ctx1, path, &maps[0]), 0);
	assert_int_equal(hg_proguard_from_memory(&ctx2, "mem", data, len, &maps[1]), 0);
	for (int k = 0; k < 2; k++) {
		struct diags *c = k ? &c2 : &c1;
		const char *name = k ? "mem" : path;
		expect_text(maps[k], "at a.a(SourceFile:1)\n", "at com.a.A.first(A.java:10)\n");
		expect_text(maps[k], "at a.b(SourceFile:2)\n", "at com.a.A.b(A.java:2)\n");
		expect_text(maps[k], "at a.c(SourceFile:3)\n", "at com.a.A.c(A.java:3)\n");
		expect_text(maps[k], "at a.d(SourceFile:5)\n", "at com.a.A.after(A.java:30)\n");
		expect_text(maps[k], "at b.a(SourceFile:1)\n", "at com.b.B.bee(B.java:5)\n");
		/* The long class line went, and its member with it: not B's. */
		expect_text(maps[k], "at b.e(SourceFile:1)\n", "at com.b.B.e(B.java:1)\n");
		assert_int_equal(hg_proguard_class_count(maps[k]), 2);
		assert_int_equal(c->errors, 0);
		assert_int_equal(c->warnings, 3); /* once each, however often expanded */
		const long want_lines[] = {3, 4, 8};
		for (int w = 0; w < 3; w++) {
			assert_int_equal(c->lines[w], want_lines[w]);
			assert_string_equal(c->sources[w], name);
			assert_non_null(strstr(c->msgs[w], "longer than 65536 bytes; skipped"));
		}
		assert_int_equal(hg_proguard_skipped(maps[k]), 3);
	}
	hg_proguard_destroy(maps[0]);
	hg_proguard_destroy(maps[1]);
	free(data);
	unlink(path);
}

/* ---- untrusted mappings: the work of a frame is bounded ---- */

/* A mapping whose a.a.a is one inlining stack of `depth` lines (mapping
 * lines 2 to depth + 1: Deep.inner0 at line 10, inner1 at 11, ...), then
 * an ordinary method a.a.b. */
static hg_proguard *deep_map(int depth, struct diags *c)
{
	hg_buf m;
	hg_buf_init(&m);
	hg_buf_puts(&m, "com.example.Hostile -> a.a:\n");
	hg_buf_puts(&m, "    1:1:void com.example.Deep.inner0():10:10 -> a\n");
	for (int i = 1; i < depth - 1; i++)
		hg_buf_printf(&m, "    1:1:void com.example.Deep.inner%d():%d -> a\n", i, 10 + i);
	hg_buf_puts(&m, "    1:1:void outer():5 -> a\n");
	hg_buf_puts(&m, "    3:3:void fine():8:8 -> b\n");
	hg_buf_putc(&m, '\0');
	assert_false(m.failed);
	hg_proguard *pg = mem_map(m.data, c);
	hg_buf_release(&m);
	return pg;
}

static size_t lines_of(const char *s)
{
	return count_lines(s, strlen(s));
}

static size_t steps_of(hg_proguard *pg)
{
	return atomic_load(&pg->steps);
}

/* "at a.a.a" n times, then "at a.a.b": an ANR thread's frames. */
static char *deep_stack(int n, size_t *len)
{
	hg_buf t;
	hg_buf_init(&t);
	hg_buf_puts(&t, "\"main\" prio=5 tid=1 Runnable\n");
	for (int i = 0; i < n; i++)
		hg_buf_puts(&t, "  at a.a.a(SourceFile:1)\n");
	hg_buf_puts(&t, "  at a.a.b(SourceFile:3)\n");
	assert_false(t.failed);
	*len = t.len;
	hg_buf_putc(&t, '\0');
	return t.data;
}

/* A 20,000-line inlining stack and 3,000 frames through it: each frame
 * becomes the innermost HG_PROGUARD_MAX_FRAMES frames, with a warning
 * (the first 10 frames, then one line), and the work is those frames and a
 * few steps each, the same for a stack of 1,000 lines. */
static void test_hostile_inline_stack(void **state)
{
	(void)state;
	const int frames = 3000;
	struct diags c;
	hg_proguard *pg = deep_map(20000, &c);
	size_t len;
	char *text = deep_stack(frames, &len);
	char *got = retrace(&pg, 1, text, len);
	assert_int_equal(lines_of(got), 1 + (size_t)frames * HG_PROGUARD_MAX_FRAMES + 1);
	const char *p = strchr(got, '\n') + 1;
	assert_memory_equal(p, "  at com.example.Deep.inner0(Deep.java:10)\n"
			       "  at com.example.Deep.inner1(Deep.java:11)\n", 86);
	const char *second = strstr(p, "  at com.example.Deep.inner255(Deep.java:265)\n"
				       "  at com.example.Deep.inner0(Deep.java:10)\n");
	assert_ptr_equal(second, strstr(p, "inner255") - 22); /* the first frame's end */
	assert_non_null(strstr(got, "  at com.example.Deep.inner255(Deep.java:265)\n"
				    "  at com.example.Hostile.fine(Hostile.java:8)\n"));
	assert_null(strstr(got, "inner256"));
	assert_int_equal(c.warnings, PG_MAX_WARNINGS + 1);
	assert_int_equal(c.errors, 0);
	for (int w = 0; w < PG_MAX_WARNINGS; w++) {
		assert_int_equal(c.lines[w], 2);
		assert_string_equal(c.sources[w], "mem");
		assert_string_equal(c.msgs[w], "frame 'a.a.a(SourceFile:1)': the inlining stack here has "
					       "20000 frames, over the limit of 256; only the innermost "
					       "256 are kept");
	}
	assert_int_equal(c.lines[PG_MAX_WARNINGS], 0);
	assert_non_null(strstr(c.msgs[PG_MAX_WARNINGS], "are not listed"));
	size_t steps = steps_of(pg);
	assert_true(steps <= (size_t)(frames + 1) * (HG_PROGUARD_MAX_FRAMES + 4));
	free(got);

	/* A report's thread (hangar stack, ingest) of 1,000 such frames: 256
	 * frames each. */
	const int in_report = 1000;
	free(text);
	text = deep_stack(in_report, &len);
	hg_report *rep = report_new("test", 1, 1);
	assert_non_null(rep);
	hg_thread *t = hg_threads_add(&rep->threads, rep->arena);
	assert_non_null(t);
	for (const char *l = strchr(text, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
		hg_frame *f = hg_thread_add_frame(t, rep->arena);
		assert_non_null(f);
		assert_int_equal(hg_frame_parse_java(l, (size_t)(strchr(l, '\n') - l), rep->arena, f), 0);
	}
	assert_int_equal(t->n_frames, (size_t)in_report + 1);
	assert_int_equal(hg_report_retrace(rep, (const hg_proguard *const *)&pg, 1), 0);
	t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, (size_t)in_report * HG_PROGUARD_MAX_FRAMES + 1);
	assert_string_equal(t->frames[HG_PROGUARD_MAX_FRAMES - 1].method, "inner255");
	assert_string_equal(t->frames[HG_PROGUARD_MAX_FRAMES].method, "inner0");
	assert_false(t->frames[0].alternative);
	assert_string_equal(t->frames[t->n_frames - 1].method, "fine");
	assert_true(steps_of(pg) - steps <= (size_t)(in_report + 1) * (HG_PROGUARD_MAX_FRAMES + 4));
	hg_report_destroy(rep);
	free(text);
	hg_proguard_destroy(pg);

	/* The work does not grow with the stack. */
	struct diags c2;
	hg_proguard *small = deep_map(1000, &c2);
	char *short_text = deep_stack(100, &len);
	got = retrace(&small, 1, short_text, len);
	assert_int_equal(lines_of(got), 1 + 100 * HG_PROGUARD_MAX_FRAMES + 1);
	size_t small_steps = steps_of(small);
	free(got);
	hg_proguard_destroy(small);
	hg_proguard *big = deep_map(20000, &c2);
	got = retrace(&big, 1, short_text, len);
	assert_int_equal(steps_of(big), small_steps);
	free(got);
	free(short_text);
	hg_proguard_destroy(big);
}

/* Many candidates: 20,000 methods without a range (a frame without a
 * line keeps the first 256), 20,000 one-line ranges (each line finds its
 * one method through the index, in a few dozen steps), 20,000 identical
 * lines (the search stops at PG_MAX_STEPS), and 20,000 ranges of three
 * methods (a frame without a line finds the three at once). */
static void test_hostile_candidates(void **state)
{
	(void)state;
	const int n = 20000;
	hg_buf m;
	hg_buf_init(&m);
	hg_buf_puts(&m, "com.example.Many -> m.m:\n");
	for (int i = 0; i < n; i++)
		hg_buf_printf(&m, "    void m%d() -> a\n", i);          /* lines 2.. */
	for (int i = 1; i <= n; i++)
		hg_buf_printf(&m, "    %d:%d:void r%d():%d -> b\n", i, i, i, i + 1000);
	for (int i = 0; i < n; i++)
		hg_buf_puts(&m, "    void same() -> c\n");
	for (int i = 1; i <= n; i++)
		hg_buf_printf(&m, "    %d:%d:void f%d():%d -> d\n", i, i, i % 3, i);
	hg_buf_putc(&m, '\0');
	assert_false(m.failed);
	struct diags c;
	hg_proguard *pg = mem_map(m.data, &c);
	hg_buf_release(&m);

	char *got = retrace(&pg, 1, "at m.m.a(Unknown Source)\n", 25);
	assert_int_equal(lines_of(got), HG_PROGUARD_MAX_FRAMES);
	assert_memory_equal(got, "at com.example.Many.m0(Many.java)\n"
				 "<OR> at com.example.Many.m1(Many.java)\n", 73);
	assert_non_null(strstr(got, "<OR> at com.example.Many.m255(Many.java)\n"));
	assert_int_equal(c.warnings, 1);
	assert_int_equal(c.lines[0], 2 + HG_PROGUARD_MAX_FRAMES);
	assert_non_null(strstr(c.msgs[0], "frame 'm.m.a(Unknown Source)': its candidates come to "
					  "more than 256 frames"));
	assert_true(steps_of(pg) <= PG_MAX_STEPS);
	free(got);

	for (int k = 1; k <= n; k += 997) {
		char in[64], want[128];
		snprintf(in, sizeof in, "at m.m.b(SourceFile:%d)\n", k);
		snprintf(want, sizeof want, "at com.example.Many.r%d(Many.java:%d)\n", k, k + 1000);
		size_t before = steps_of(pg);
		expect_text(pg, in, want);
		assert_true(steps_of(pg) - before <= 64);
	}
	size_t before = steps_of(pg);
	expect_text(pg, "at m.m.d(Unknown Source)\n",
		    "at com.example.Many.f1(Many.java)\n<OR> at com.example.Many.f2(Many.java)\n"
		    "<OR> at com.example.Many.f0(Many.java)\n");
	assert_true(steps_of(pg) - before <= 8);
	assert_int_equal(c.warnings, 1);

	before = steps_of(pg);
	expect_text(pg, "at m.m.c(Unknown Source)\n", "at com.example.Many.same(Many.java)\n");
	assert_true(steps_of(pg) - before <= PG_MAX_STEPS);
	assert_int_equal(c.warnings, 2);
	assert_non_null(strstr(c.msgs[1], "frame 'm.m.c(Unknown Source)': retrace stopped here after "
					  "4096 steps"));
	hg_proguard_destroy(pg);
}

int main(int argc, char **argv)
{
	testdata = argc > 1 ? argv[1] : "testdata";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_inlines),
		cmocka_unit_test(test_golden_outline_complex),
		cmocka_unit_test(test_golden_zero_line_info),
		cmocka_unit_test(test_callback_extra_class),
		cmocka_unit_test(test_classic_proguard),
		cmocka_unit_test(test_measure_anr_trimmed),
		cmocka_unit_test(test_measure_app_exit),
		cmocka_unit_test(test_report_outline_complex),
		cmocka_unit_test(test_report_measure_main),
		cmocka_unit_test(test_report_alternatives),
		cmocka_unit_test(test_report_outline_not_consumed),
		cmocka_unit_test(test_text_frames),
		cmocka_unit_test(test_text_exceptions_and_locks),
		cmocka_unit_test(test_text_json),
		cmocka_unit_test(test_text_outline_stream),
		cmocka_unit_test(test_map_order_and_id),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_many_malformed_lines),
		cmocka_unit_test(test_unknown_metadata),
		cmocka_unit_test(test_not_a_mapping),
		cmocka_unit_test(test_duplicates_bom_crlf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_big_generated),
		cmocka_unit_test(test_overlong_member_lines),
		cmocka_unit_test(test_hostile_inline_stack),
		cmocka_unit_test(test_hostile_candidates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
