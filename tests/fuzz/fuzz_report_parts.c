/* libFuzzer target, differential: a report file read in parts
 * (hg_reports_read_path, a part size chosen by the input's first byte) must
 * hand on exactly the reports reading it whole (hg_reports_read) does: the
 * same numbers, lines, kept bytes, and which of them failed; unless a value
 * is larger than a part, which is refused (HG_ELIMIT) after what came
 * before it.  The wording and column of an error in malformed text cut at
 * a part's end may differ (the parser sees less of what follows); whole
 * transcripts, diagnostics included, are compared on well-cut inputs by
 * tests/unit/test_report_stream.c.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hangar/hangar.h"
#include "hangar/report.h"
#include "hangar/text.h"

static const char fuzz_target[] = "fuzz_report_parts";
#include "fuzz_fixture.h"

static void sayf(hg_buf *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	hg_buf_add(b, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

#define OVER_THE_PART "failed: larger than a part"

static int record_report(void *user, hg_report *r)
{
	hg_buf *b = user;
	sayf(b, "#%ld line %ld: %s [", r->number, r->line,
	     !r->error ? "ok" : strstr(r->error, "-byte limit (see --max-input)") ? OVER_THE_PART
									: "failed");
	for (size_t i = 0; r->text && i < r->text_len; i++) /* NUL bytes shown, not ending it */
		hg_buf_putc(b, r->text[i] ? r->text[i] : '@');
	hg_buf_add(b, "]\n", 2);
	hg_report_destroy(r);
	return 0;
}

static void record_diag(void *user, const hg_diag *d)
{
	(void)user;
	require(d->message && d->source && d->line >= 0 && d->col >= 0, "a diagnostic is sane");
}

static char *read_with(const char *path, const uint8_t *data, size_t len, size_t part, int *rc)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.keep_text = 1;
	ctx.diag = record_diag;
	ctx.diag_user = &b;
	if (part) {
		ctx.limits.max_input_bytes = part;
		*rc = hg_reports_read_path(&ctx, path, "fuzz.json", HG_FORMAT_AUTO, record_report, &b);
	} else {
		char *copy = malloc(len + 1);
		require(copy != NULL, "memory");
		memcpy(copy, data, len);
		copy[len] = '\0';
		*rc = hg_reports_read(&ctx, "fuzz.json", copy, len, record_report, &b);
		free(copy);
	}
	hg_buf_putc(&b, '\0');
	require(!b.failed, "transcript memory");
	return b.data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[] = "/tmp/fuzz-report-parts-XXXXXX";
	static int fd = -1;
	if (size < 1 || size > (1 << 16))
		return 0;
	if (fd < 0) {
		fd = mkstemp(path);
		require(fd >= 0, "a temporary file");
		unlink(path); /* gone when the process ends; read through /proc */
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	size_t part = 32 + (size_t)data[0] * 4; /* 32 .. 1052 bytes */
	data++;
	size--;
	/* NUL bytes: no JSON text has them, and the JSON parser stops at one
	 * differently when the part ends near it; left to fuzz_report. */
	if (memchr(data, '\0', size))
		return 0;
	require(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size, "write");
	int whole_rc = 0, parts_rc = 0;
	char *whole = read_with(path, data, size, 0, &whole_rc);
	char *parts = read_with(path, data, size, part, &parts_rc);
	/* A value larger than a part fails alone when read in parts (and
	 * not when read whole): nothing to compare then. */
	if (parts_rc != HG_ELIMIT && !strstr(parts, OVER_THE_PART)) {
		if (strcmp(whole, parts) != 0 || whole_rc != parts_rc) {
			fprintf(stderr, "--- whole (%d)\n%s\n--- parts of %zu (%d)\n%s\n", whole_rc, whole,
				part, parts_rc, parts);
			require(false, "reading in parts hands on what reading whole does");
		}
	}
	free(whole);
	free(parts);
	return 0;
}
