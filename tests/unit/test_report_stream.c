/* Reading a report file in parts (hg_reports_read_path): whatever the part
 * size, the reports handed on (numbers, lines, errors, kept bytes) and the
 * diagnostics (line:col) are those of reading the whole file at once; a
 * value over the cap is refused after the reports before it; text dumps
 * are read whole, refused from their size when over the cap; devices,
 * sockets and folders are refused unopened, FIFOs read as streams. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hangar/input.h"

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
	n += snprintf(text + n, sizeof text - (size_t)n, "0]}\n  {\"indented\":1}\n");
	n += snprintf(text + n, sizeof text - (size_t)n, "{\"buffer\":" SMALL_WORDS ",\"cost\":2}\n");
	const char *path = write_temp(text, (size_t)n);
	reset(f);
	f->ctx.limits.max_input_bytes = 700;
	/* The value over the cap fails alone, its bytes passed over unheld;
	 * the reports before and after it are read. */
	assert_int_equal(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f), 1);
	assert_int_equal(f->delivered, 3);
	assert_null(f->rep[0]->error);
	assert_non_null(f->rep[1]->error);
	assert_int_equal(f->rep[1]->line, 2);
	assert_int_equal(f->rep[1]->number, 2);
	assert_contains(f->rep[1]->error, "a report larger than the 700-byte limit");
	assert_null(f->rep[2]->error);
	assert_int_equal(f->rep[2]->line, 4);
	assert_int_equal(f->rep[2]->number, 3);
	assert_int_equal(f->rep[2]->cost, 2);
	assert_int_equal(f->n_diags, 1);
	assert_int_equal(f->diag[0].line, 2);
	/* With a cap smaller than every report: each fails alone. */
	reset(f);
	f->ctx.limits.max_input_bytes = 100;
	assert_int_equal(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f), 3);
	assert_int_equal(f->delivered, 3);
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
	/* A file: refused from its size, which the message gives. */
	assert_contains(f->diag[0].message, "input is 124 bytes, larger than the 40-byte limit");
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

static long peak_rss_kb(void)
{
	struct rusage ru;
	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

/* A 50 MB sparse file over a 20 MiB cap: refused from its size by both
 * readers, with the size and the limit, without reading it whole (the
 * peak memory grows by the stream's first part at most; it grew by 32 MB
 * when hg_input_read doubled its buffer past the cap). */
static void test_file_over_the_cap_not_read(void **state)
{
	struct fixture *f = *state;
	char path[] = "/tmp/hangar-sparse-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 50 << 20), 0);
	close(fd);
	f->ctx.limits.max_input_bytes = 20 << 20;
	long before = peak_rss_kb();
	char *data = (char *)1;
	size_t len = 1;
	reset(f);
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), HG_ELIMIT);
	assert_null(data);
	assert_int_equal(f->all_diags, 1);
	assert_string_equal(f->diag[0].source, path);
	assert_contains(f->diag[0].message,
			"input is 52428800 bytes, larger than the 20971520-byte limit (see --max-input)");
	reset(f);
	assert_int_equal(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f), HG_ELIMIT);
	assert_int_equal(f->delivered, 0);
	assert_contains(f->diag[0].message, "input is 52428800 bytes, larger than the 20971520-byte");
	assert_true(peak_rss_kb() - before < 12 * 1024);
	unlink(path);
}

/* Devices, sockets and folders are not report files: refused, never read. */
static void test_refused_kinds(void **state)
{
	struct fixture *f = *state;
	char *data = NULL;
	size_t len = 0;
	reset(f);
	assert_int_equal(hg_input_read(&f->ctx, "/dev/zero", &data, &len), HG_EIO);
	assert_string_equal(f->diag[0].source, "/dev/zero");
	assert_string_equal(f->diag[0].message, "is a device, not a report file");
	reset(f);
	assert_int_equal(hg_reports_read_path(&f->ctx, "/dev/zero", NULL, HG_FORMAT_AUTO, sink, f),
			 HG_EIO);
	assert_string_equal(f->diag[0].message, "is a device, not a report file");
	reset(f);
	assert_int_equal(hg_reports_read_path(&f->ctx, "/tmp", NULL, HG_FORMAT_AUTO, sink, f), HG_EIO);
	assert_string_equal(f->diag[0].message, "is a directory, not a report file");

	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof addr.sun_path, "/tmp/hangar-sock-%ld", (long)getpid());
	int sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sock >= 0);
	unlink(addr.sun_path);
	assert_int_equal(bind(sock, (struct sockaddr *)&addr, sizeof addr), 0);
	reset(f);
	assert_int_equal(hg_reports_read_path(&f->ctx, addr.sun_path, NULL, HG_FORMAT_AUTO, sink, f),
			 HG_EIO);
	assert_string_equal(f->diag[0].source, addr.sun_path);
	assert_string_equal(f->diag[0].message, "is a socket, not a report file");
	close(sock);
	unlink(addr.sun_path);
}

struct fifo_writer {
	const char *path;
	const char *text;
};

static void *write_fifo(void *arg)
{
	struct fifo_writer *w = arg;
	int fd = open(w->path, O_WRONLY);
	if (fd >= 0) {
		size_t len = strlen(w->text);
		ssize_t n = write(fd, w->text, len);
		(void)n;
		close(fd);
	}
	return NULL;
}

/* A FIFO is a stream: its reports are read as it is written, and over
 * the cap it is refused once the bytes read pass it. */
static void test_fifo_read_as_a_stream(void **state)
{
	struct fixture *f = *state;
	char path[64];
	snprintf(path, sizeof path, "/tmp/hangar-fifo-%ld", (long)getpid());
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	signal(SIGPIPE, SIG_IGN); /* the writer of a refused stream */
	struct fifo_writer w = {path, "{\"buffer\":" SMALL_WORDS ",\"cost\":1}\n"};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, write_fifo, &w), 0);
	reset(f);
	assert_int_equal(hg_reports_read_path(&f->ctx, path, NULL, HG_FORMAT_AUTO, sink, f), 0);
	pthread_join(t, NULL);
	assert_int_equal(f->delivered, 1);
	assert_null(f->rep[0]->error);

	static char dump[4096];
	memset(dump, 'x', sizeof dump - 1);
	w.text = dump;
	f->ctx.limits.max_input_bytes = 1000;
	assert_int_equal(pthread_create(&t, NULL, write_fifo, &w), 0);
	char *data = (char *)1;
	size_t len = 1;
	reset(f);
	assert_int_equal(hg_input_read(&f->ctx, path, &data, &len), HG_ELIMIT);
	pthread_join(t, NULL);
	assert_null(data);
	assert_contains(f->diag[0].message, "input is larger than the 1000-byte limit");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parts_read_like_the_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_over_the_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_dump_read_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_over_the_cap_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_read_as_a_stream, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
