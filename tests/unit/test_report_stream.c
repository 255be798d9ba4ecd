/* Reading a report file in parts (hg_reports_read_path): whatever the part
 * size, the reports handed on (numbers, lines, errors, kept bytes) and the
 * diagnostics (line:col) are those of reading the whole file at once; a
 * value over the cap is refused after the reports before it; text dumps
 * are read whole. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "report_fixture.h"

/* What one read produced, every report and diagnostic, as one text. */
struct transcript {
	char *text;
	size_t len, cap;
};

static void say(struct transcript *t, const char *fmt, ...) HG_PRINTF(2, 3);
static void say(struct transcript *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->text + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		t->cap = t->cap * 2 + (size_t)n + 1;
		t->text = realloc(t->text, t->cap);
		assert_non_null(t->text);
	}
}

static int record_report(void *user, hg_report *r)
{
	say(user, "#%ld line %ld: %s [%.*s]\n", r->number, r->line, r->error ? r->error : "ok",
	    (int)r->text_len, r->text ? r->text : "");
	hg_report_destroy(r);
	return 0;
}

static void record_diagnostic(void *user, const hg_diag *d)
{
	say(user, "%ld:%ld: report %ld: %s\n", d->line, d->col, d->report, d->message);
}

/* Reads path in parts of at most part bytes (or, part 0, text whole). */
static char *transcript_of(const char *path, const char *text, size_t len, size_t part)
{
	struct transcript t = {calloc(1, 64), 0, 64};
	assert_non_null(t.text);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.keep_text = 1;
	ctx.diag = record_diagnostic;
	ctx.diag_user = &t;
	int rc;
	if (part) {
		ctx.limits.max_input_bytes = part;
		rc = hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, record_report, &t);
	} else {
		rc = hg_reports_read(&ctx, path, text, len, record_report, &t);
	}
	say(&t, "rc=%d\n", rc);
	return t.text;
}

static const char *write_temp(const char *text, size_t len)
{
	static char path[] = "/tmp/hangar-stream-XXXXXX";
	strcpy(path, "/tmp/hangar-stream-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* A stream that has every shape between values: NDJSON lines, blank and
 * CRLF lines, a byte order mark, pretty-printed reports, an array, two
 * values on one line, garbage lines, a truncated value, a wrong type. */
static char *mixed_stream(size_t *len)
{
	size_t cap = 1 << 20;
	char *s = malloc(cap);
	assert_non_null(s);
	size_t n = 0;
	for (int i = 0; i < 120; i++) {
		const char *pieces[] = {
			"{\"buffer\":" SMALL_WORDS ",\"cost\":%d}\n",
			"\r\n\n{\"buffer\":" SMALL_WORDS ",\"cost\":%d}\r\n",
			"\xEF\xBB\xBF{\"buffer\":" SMALL_WORDS ",\"cost\":%d}\n",
			"{\n  \"buffer\": " SMALL_WORDS ",\n  \"cost\": %d\n}\n",
			"[{\"buffer\":" SMALL_WORDS ",\"cost\":%d}, {\"buffer\":[]}]\n",
			"{\"buffer\":" SMALL_WORDS ",\"cost\":%d} {\"buffer\":[]}\n",
			"not json at all %d\n",
			"{\"buffer\":[1,2,%d\n",
			"{\"buffer\":\"%d\"}\n",
		};
		n += (size_t)snprintf(s + n, cap - n, pieces[i % 9], 100 + i);
	}
	*len = n;
	return s;
}

static void test_parts_read_like_the_whole(void **state)
{
	(void)state;
	size_t len;
	char *text = mixed_stream(&len);
	const char *path = write_temp(text, len);
	char *whole = transcript_of(path, text, len, 0);
	assert_non_null(strstr(whole, "#130 line"));
	assert_non_null(strstr(whole, "expected a JSON report"));
	assert_non_null(strstr(whole, "invalid JSON"));

	/* Parts of many sizes, so that cuts fall everywhere: inside values,
	 * strings, the BOM, CRLF pairs, between two values on a line. */
	size_t sizes[] = {512, 600, 777, 1000, 1024, 1500, 2049, 3333, 4096, 65536};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		char *parts = transcript_of(path, text, len, sizes[k]);
		if (strcmp(whole, parts) != 0)
			fail_msg("parts of %zu bytes differ:\n--- whole\n%s\n--- parts\n%s", sizes[k],
				 whole, parts);
		free(parts);
	}
	unlink(path);
	free(whole);
	free(text);
}

static void test_value_over_the_cap(void **state)
{
	struct fixture *f = *state;
	char text[4096];
	int n = snprintf(text, sizeof text, "{\"buffer\":" SMALL_WORDS ",\"cost\":1}\n{\"buffer\":[");
	for (int i = 0; i < 300; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, "%d,", i);
	n += snprintf(text + n, sizeof text - (size_t)n, "0]}\n");
	const char *path = write_temp(text, (size_t)n);
	reset(f);
	f->ctx.limits.max_input_bytes = 700;
	assert_int_equal(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f), HG_ELIMIT);
	assert_int_equal(f->delivered, 1); /* the report before it */
	assert_null(f->rep[0]->error);
	assert_contains(f->diag[f->n_diags - 1].message, "a report is larger than the 700-byte limit");
	unlink(path);
}

static void test_text_dump_read_whole(void **state)
{
	struct fixture *f = *state;
	static const char dump[] =
		"\"main\" prio=5 tid=1 Blocked\n"
		"  at com.example.Foo.bar(Foo.java:10)\n"
		"  at android.os.Handler.dispatchMessage(Handler.java:106)\n";
	const char *path = write_temp(dump, sizeof dump - 1);
	reset(f);
	f->ctx.limits.max_input_bytes = 40; /* smaller than the dump: one piece, refused */
	assert_int_equal(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f), HG_ELIMIT);
	assert_contains(f->diag[0].message, "input is larger than the 40-byte limit");
	reset(f);
	f->ctx.limits.max_input_bytes = 1 << 20;
	assert_true(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f) >= 0);
	assert_int_equal(f->delivered, 1);
	unlink(path);
	reset(f);
	assert_int_equal(hg_reports_read_path(&f->ctx, "/nonexistent/r.json", NULL, HG_FORMAT_AUTO, sink, f),
			 HG_EIO);
	assert_contains(f->diag[0].message, "cannot open");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parts_read_like_the_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_over_the_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_dump_read_whole, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
