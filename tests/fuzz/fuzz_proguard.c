/* libFuzzer target for ProGuard / R8 mappings and retrace.
 *
 * Input: a mapping, then optionally a line "----" and text to retrace (else
 * the input is retraced against itself).  Runs hg_proguard_from_memory, the
 * text retrace (whole, and line by line through a stream), and
 * hg_report_retrace on the text's Java frames, and checks:
 *   - a load succeeds or says the input is not a mapping;
 *   - at most 10 line warnings at load (then one count), unknown ids once;
 *   - every class line of the mapping can be looked up by its obfuscated name;
 *   - retracing with no mapping gives the text back byte for byte, and the
 *     stream gives the same bytes as the one-call API;
 *   - retraced frames have a class, a method and a file; alternatives are
 *     retraced frames; one frame becomes at most HG_PROGUARD_MAX_FRAMES,
 *     and frames cut at that limit are warned about at most 11 times. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/proguard.h"
#include "hangar/report.h"
#include "hangar/threads.h"
#include "retrace/proguard_internal.h"
#include "report/report_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_target[] = "fuzz_proguard";
#include "fuzz_fixture.h"

struct counts {
	int line_warnings, summaries, ids, other, cuts;
};

static void count(void *user, const hg_diag *d)
{
	struct counts *c = user;
	if (strstr(d->message, "frame '") || strstr(d->message, "cut at the retrace limits"))
		c->cuts++;
	else if (strstr(d->message, "unknown R8 metadata"))
		c->ids++;
	else if (strstr(d->message, "mapping format version"))
		c->other++;
	else if (strstr(d->message, "malformed lines skipped in all"))
		c->summaries++;
	else if (d->line > 0 && d->severity == HG_DIAG_WARNING)
		c->line_warnings++;
	else
		c->other++;
}

/* Every class line names a class the mapping finds. */
static void check_classes(const hg_proguard *pg, const char *map, size_t len)
{
	for (size_t p = 0; p < len;) {
		const char *nl = memchr(map + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - map) : len;
		const char *line = map + p, *orig, *obf;
		size_t n = e - p, orig_len, obf_len;
		if (p == 0 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
			line += 3, n -= 3;
		if (n && (unsigned char)line[0] > ' ' && line[0] != '#' && n <= PG_MAX_LINE &&
		    !memchr(line, '\0', n) && pg_class_line(line, n, &orig, &orig_len, &obf, &obf_len))
			require(hg_proguard_class(pg, obf, obf_len) != NULL, "a class line is not found");
		p = e + 1;
	}
}

static void check_text(const hg_proguard *pg, const char *text, size_t len)
{
	hg_buf whole, none, streamed;
	hg_buf_init(&whole);
	hg_buf_init(&none);
	hg_buf_init(&streamed);
	require(hg_proguard_retrace_text(NULL, 0, text, len, &none) == 0, "retrace without maps failed");
	require(none.len == len && (len == 0 || memcmp(none.data, text, len) == 0),
		"retrace without maps changed the text");
	const hg_proguard *const maps[1] = {pg};
	if (hg_proguard_retrace_text(maps, 1, text, len, &whole) == 0) {
		hg_proguard_stream *s;
		if (hg_proguard_stream_create(maps, 1, &s) == 0) {
			int rc = 0;
			for (size_t p = 0; p < len && rc == 0;) {
				const char *nl = memchr(text + p, '\n', len - p);
				size_t e = nl ? (size_t)(nl - text) + 1 : len;
				rc = hg_proguard_stream_line(s, text + p, e - p, &streamed);
				p = e;
			}
			if (rc == 0 && hg_proguard_stream_finish(s, &streamed) == 0)
				require(streamed.len == whole.len &&
						(whole.len == 0 || memcmp(streamed.data, whole.data, whole.len) == 0),
					"the stream and the one-call retrace differ");
			hg_proguard_stream_destroy(s);
		}
	}
	hg_buf_release(&whole);
	hg_buf_release(&none);
	hg_buf_release(&streamed);
}

static void check_report(const hg_proguard *pg, const char *text, size_t len)
{
	hg_report *rep = report_new("fuzz", 1, 1);
	if (!rep)
		return;
	hg_thread *t = hg_threads_add(&rep->threads, rep->arena);
	for (size_t p = 0; t && p < len && t->n_frames < 256;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) : len;
		hg_frame f;
		if (hg_frame_parse_java(text + p, e - p, rep->arena, &f) == 0) {
			hg_frame *slot = hg_thread_add_frame(t, rep->arena);
			if (slot)
				*slot = f;
		}
		p = e + 1;
	}
	if (t) {
		hg_thread_add_held(t, rep->arena, "0x1", "java.lang.Class<a.b>");
		t->waiting.cls = "a[]";
	}
	const hg_proguard *const maps[1] = {pg};
	if (hg_report_retrace(rep, maps, 1) == 0 && t) {
		t = &rep->threads.items[0];
		size_t run = 0; /* frames from one obfuscated frame (one text) */
		for (size_t i = 0; i < t->n_frames; i++) {
			const hg_frame *f = &t->frames[i];
			run = i && f->retraced && f[-1].retraced && f->text == f[-1].text ? run + 1 : 1;
			require(run <= HG_PROGUARD_MAX_FRAMES, "a frame became too many frames");
			require(f->cls && f->method, "a frame lost its name");
			require(!f->retraced || f->file, "a retraced frame has no file");
			require(!f->alternative || f->retraced, "an alternative is not retraced");
		}
	}
	hg_report_destroy(rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	const char *in = (const char *)data;
	size_t map_len = size;
	const char *text = in;
	size_t text_len = size;
	for (size_t i = 0; i + 6 <= size; i++)
		if (memcmp(in + i, "\n----\n", 6) == 0) {
			map_len = i + 1;
			text = in + i + 6;
			text_len = size - i - 6;
			break;
		}
	struct counts c = {0};
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = count;
	ctx.diag_user = &c;
	ctx.limits.max_mapping_bytes = 1u << 20;
	hg_proguard *pg = NULL;
	int rc = hg_proguard_from_memory(&ctx, "fuzz", in, map_len, &pg);
	require(rc == 0 || rc == HG_EPARSE || rc == HG_ENOMEM, "unexpected load error");
	if (rc != 0)
		return 0;
	require(c.line_warnings <= 10 && c.summaries <= 1 && c.ids <= 32 && c.other <= 1,
		"too many load warnings");
	require(c.summaries == (hg_proguard_skipped(pg) > 10), "summary and skipped count disagree");
	check_classes(pg, in, map_len);
	check_text(pg, text, text_len);
	check_report(pg, text, text_len);
	require(c.cuts <= PG_MAX_WARNINGS + 1, "too many warnings about frames cut");
	hg_proguard_destroy(pg);
	return 0;
}
