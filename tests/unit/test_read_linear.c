/* Reading stays linear in the input, whatever the number of reports and
 * the shape of the stream: the bytes the JSON reader looks at
 * (hg_json_bytes_touched) grow in proportion to the input from 1,000 to
 * 10,000 reports, and stay a small multiple of its size.  Nothing is timed.
 * Each shape is read whole (hg_reports_read) and in parts from a file
 * (hg_reports_read_path), good streams and streams full of errors alike;
 * and one big report from a pipe whose writer pauses after every 512
 * bytes, so that each part ends inside it. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/report.h"
#include "hangar/text.h"
#include "json/json.h"

/* A raw-buffer report: one dispatch message of `calls` calls, each an
 * entry and an exit word (bit 63 entry, bits 43..62 id, 0..42 ms). */
static void add_report(hg_buf *out, int n, int calls, bool pretty)
{
	const char *nl = pretty ? "\n  " : "";
	hg_buf_printf(out, "{%s\"tag\":\"Trace_EvilMethod\",%s\"content\":{\"detail\":\"NORMAL\","
		      "\"cost\":%d,\"scene\":\"r%d\",\"end_time\":%d,%s\"buffer\":[",
		      nl, nl, 2 * calls, n, 1000 + 2 * calls, nl);
	uint64_t entry = UINT64_C(1) << 63, dispatch = UINT64_C(1048574) << 43;
	hg_buf_printf(out, "%lld", (long long)(int64_t)(entry | dispatch | 1000));
	for (int c = 0; c < calls; c++) {
		uint64_t id = (uint64_t)(1 + (n + c) % 5000) << 43, t = (uint64_t)(1000 + 2 * c);
		hg_buf_printf(out, ",%lld,%lld", (long long)(int64_t)(entry | id | t),
			      (long long)(int64_t)(id | (t + 1)));
	}
	hg_buf_printf(out, ",%lld]}}", (long long)(int64_t)(dispatch | (uint64_t)(1000 + 2 * calls)));
}

enum shape { NDJSON, ARRAY, ARRAY_PRETTY, CONCATENATED, LOGCAT, NDJSON_BROKEN, NDJSON_CUT };

static const char *shape_name(enum shape s)
{
	static const char *const names[] = {"NDJSON", "array", "pretty array", "concatenated",
					    "logcat", "NDJSON, every other line broken",
					    "NDJSON, every other report cut in its buffer"};
	return names[s];
}

static void make_input(hg_buf *out, enum shape s, int reports)
{
	if (s == ARRAY || s == ARRAY_PRETTY)
		hg_buf_puts(out, s == ARRAY ? "[" : "[\n");
	for (int n = 0; n < reports; n++) {
		if (n && (s == ARRAY || s == ARRAY_PRETTY))
			hg_buf_puts(out, s == ARRAY ? "," : ",\n");
		if (s == LOGCAT)
			hg_buf_printf(out, "11-28 10:00:%02d.000  1234  1234 I Matrix.Tracer: noise\n"
				      "11-28 10:00:%02d.001  1234  1234 I Matrix: tag[Trace_EvilMethod]"
				      "type[0];key[%d];content[", n % 60, n % 60, n);
		if (s == NDJSON_BROKEN && n % 2) {
			hg_buf_puts(out, "{\"tag\":\"Trace_EvilMethod\",\"content\":{\"buffer\":[1,2,\n");
			continue;
		}
		size_t start = out->len;
		add_report(out, n, 6 + n % 5, s == ARRAY_PRETTY || s == CONCATENATED);
		if (s == NDJSON_CUT && n % 2)
			out->len = start + (out->len - start) / 2; /* inside its buffer */
		if (s == LOGCAT)
			hg_buf_puts(out, "]");
		if (s != ARRAY)
			hg_buf_puts(out, "\n");
	}
	if (s == ARRAY || s == ARRAY_PRETTY)
		hg_buf_puts(out, "]\n");
	assert_false(out->failed);
}

struct count {
	size_t reports, errors;
};

static int count_report(void *user, hg_report *r)
{
	struct count *c = user;
	c->reports++;
	c->errors += r->error != NULL;
	hg_report_destroy(r);
	return 0;
}

static void quiet(void *user, const hg_diag *d)
{
	(void)user;
	(void)d;
}

/* Bytes touched reading the input whole (parts 0) or in parts from a file. */
static size_t touched(const hg_buf *in, bool parts, struct count *c)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = quiet;
	size_t before = hg_json_bytes_touched();
	if (!parts) {
		hg_reports_read(&ctx, "in", in->data, in->len, count_report, c);
	} else {
		char path[] = "/tmp/hangar-linear-XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, in->data, in->len), (ssize_t)in->len);
		close(fd);
		hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, count_report, c);
		unlink(path);
	}
	return hg_json_bytes_touched() - before;
}

static void check_shape(enum shape s, bool parts)
{
	hg_buf small, large;
	hg_buf_init(&small);
	hg_buf_init(&large);
	make_input(&small, s, 1000);
	make_input(&large, s, 10000);
	struct count cs = {0}, cl = {0};
	size_t ts = touched(&small, parts, &cs), tl = touched(&large, parts, &cl);
	print_message("%-45s %-6s 1k: %zu bytes in, %zu touched; 10k: %zu in, %zu touched "
		      "(%zu reports, %zu failed)\n", shape_name(s), parts ? "parts" : "whole",
		      small.len, ts, large.len, tl, cl.reports, cl.errors);
	/* Every report was read, the broken ones as errors. */
	size_t want_errors = s == NDJSON_BROKEN || s == NDJSON_CUT ? 5000 : 0;
	assert_int_equal(cl.reports, 10000);
	assert_int_equal(cl.errors, want_errors);
	/* Linear: per input byte, the large input costs what the small one
	 * does (a quadratic reader touches ~10x more per byte at 10k). */
	double per_small = (double)ts / (double)small.len, per_large = (double)tl / (double)large.len;
	assert_true(per_large <= 1.2 * per_small + 0.01);
	/* and a small multiple of the input: the scan, and the text shown to
	 * cJSON twice (json.c); a broken NDJSON line is read on into the next
	 * report, which may be its next element, so that twice */
	assert_true(per_large <= 6.0);
	hg_buf_release(&small);
	hg_buf_release(&large);
}

static void test_streams_are_linear(void **state)
{
	(void)state;
	for (enum shape s = NDJSON; s <= NDJSON_CUT; s++) {
		check_shape(s, false);
		check_shape(s, true);
	}
}

/* A million blank lines, then one report: nothing quadratic, and the
 * report is found on its line. */
static void test_blank_lines(void **state)
{
	(void)state;
	hg_buf in;
	hg_buf_init(&in);
	for (int i = 0; i < 1000000; i++)
		hg_buf_puts(&in, "\n");
	add_report(&in, 1, 3, false);
	struct count c = {0};
	size_t t = touched(&in, true, &c);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.errors, 0);
	assert_true(t < 4096);
	hg_buf_release(&in);
}

struct slow_writer {
	int fd;
	const hg_buf *text;
};

/* Writes 512 bytes at a time, each time waiting until the reader has
 * taken all that the pipe holds: the reader always finds it paused. */
static void *write_slowly(void *arg)
{
	struct slow_writer *w = arg;
	for (size_t at = 0; at < w->text->len;) {
		size_t n = w->text->len - at < 512 ? w->text->len - at : 512;
		ssize_t put = write(w->fd, w->text->data + at, n);
		if (put <= 0)
			break;
		at += (size_t)put;
		int queued = 1;
		while (ioctl(w->fd, FIONREAD, &queued) == 0 && queued > 0)
			usleep(20);
	}
	close(w->fd);
	return NULL;
}

/* A report of ~1 MB from a paced input is cut by every part: it is read
 * again from its start only when the buffer has doubled (report_stream.c),
 * so the bytes touched stay a small multiple of its size, not its size
 * times the ~2,000 pieces it came in. */
static void test_paced_pipe_is_linear(void **state)
{
	(void)state;
	hg_buf in;
	hg_buf_init(&in);
	add_report(&in, 1, 25000, false);
	hg_buf_puts(&in, "\n");
	add_report(&in, 2, 3, false);
	hg_buf_puts(&in, "\n");
	assert_false(in.failed);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	struct slow_writer w = {fds[1], &in};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, write_slowly, &w), 0);
	char path[32];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = quiet;
	struct count c = {0};
	size_t before = hg_json_bytes_touched();
	hg_reports_read_path(&ctx, path, NULL, HG_FORMAT_AUTO, count_report, &c);
	size_t t_bytes = hg_json_bytes_touched() - before;
	pthread_join(t, NULL);
	close(fds[0]);
	print_message("paced pipe: %zu bytes in, %zu touched\n", in.len, t_bytes);
	assert_int_equal(c.reports, 2);
	assert_int_equal(c.errors, 0);
	assert_true(t_bytes <= 6 * in.len); /* as check_shape's bound */
	hg_buf_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streams_are_linear),
		cmocka_unit_test(test_blank_lines),
		cmocka_unit_test(test_paced_pipe_is_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
