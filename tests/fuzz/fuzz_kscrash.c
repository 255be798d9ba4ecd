/* libFuzzer target: KSCrash reports (iOS hang, crash, profile and Matrix lag
 * dumps; one object or an array) through hg_reports_read, detected from the
 * content, and again through hg_reports_read_as(HG_FORMAT_KSCRASH), which
 * sends any JSON object to the KSCrash reader.  The sink checks each report
 * and destroys it.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/report.h"
#include "hangar/threads.h"

#define SOURCE "fuzz.json"

static const char fuzz_target[] = "fuzz_kscrash";
#include "fuzz_fixture.h"

static void diag_sink(void *user, const hg_diag *d)
{
	(void)user;
	require(d->message != NULL && strlen(d->message) > 0, "diagnostic message");
	require(d->line >= 0 && d->col >= 0 && d->report >= 1, "diagnostic position");
}

struct state {
	size_t reports, errors;
	bool forced;
	size_t max_frames;
};

static void check_threads(const struct state *st, const hg_report *rep)
{
	const hg_threads *ts = &rep->threads;
	require(ts->n == 0 || ts->items != NULL, "threads are set");
	require(ts->blamed >= -1 && ts->blamed < (long)ts->n, "blamed thread in range");
	size_t mains = 0, frames = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		touch(t->name);
		touch(t->state);
		mains += (t->flags & HG_THREAD_MAIN) != 0;
		require(((t->flags & HG_THREAD_BLAMED) != 0) == ((long)i == ts->blamed),
			"only the blamed thread is flagged blamed");
		require(!((t->flags & HG_THREAD_BLAMED) && (t->flags & HG_THREAD_CRASHED)),
			"the thread that wrote the report is never blamed");
		require(t->tid >= -1, "tid is an index or -1");
		require(t->n_frames == 0 || t->frames != NULL, "frames are set");
		frames += t->n_frames;
		for (size_t j = 0; j < t->n_frames; j++) {
			const hg_frame *f = &t->frames[j];
			require(f->kind == HG_FRAME_NATIVE, "KSCrash frames are native");
			require(f->text && strlen(f->text) > 0, "frame text");
			require(f->repeat >= 0, "repeat count is not negative");
			require(f->method == f->symbol, "a native frame's method is its symbol");
			require(!f->has_offset || f->image, "an offset comes with an image");
			require(!f->has_offset || (f->has_pc && f->offset <= f->pc),
				"an offset lies below the pc");
			touch(f->image);
			touch(f->symbol);
		}
	}
	require(mains <= 1, "at most one main thread");
	require(frames + ts->n <= st->max_frames, "frames and threads capped");
}

static int sink(void *user, hg_report *rep)
{
	struct state *st = user;
	st->reports++;
	require(rep->number >= 1 && (size_t)rep->number == st->reports, "report number");
	if (rep->error) {
		st->errors++;
		require(strlen(rep->error) > 0 && strlen(rep->error) < 512, "error text");
	} else if (rep->format == HG_FORMAT_KSCRASH) {
		require(rep->platform && strcmp(rep->platform, "ios") == 0, "platform is ios");
		require(rep->cost >= 0 && rep->stack_cost == rep->cost, "cost");
		require(!rep->has_method_stack && rep->full.len == 0, "no method stack");
		require(rep->key_index == -1, "no StackKey");
		touch(rep->device);
		touch(rep->process);
		touch(rep->app_version);
		touch(rep->time);
		touch(rep->detail);
		check_threads(st, rep);
		for (size_t i = 0; i < rep->meta_len; i++)
			require(rep->meta[i].key && rep->meta[i].json && rep->meta[i].text, "metadata");
	} else {
		require(!st->forced, "a forced read yields KSCrash reports only");
	}
	for (size_t i = 0; i < rep->warnings.len; i++)
		require(rep->warnings.items[i] && strlen(rep->warnings.items[i]) > 0, "warning text");
	hg_report_destroy(rep);
	return 0;
}

static void check_result(const struct state *st, int rc)
{
	if (rc == HG_ENOMEM)
		return;
	require(rc >= 0, "reading returns a count");
	require(st->reports >= 1, "every input yields a report");
	require((size_t)rc == st->errors, "the count is the number of failed reports");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = diag_sink;
	ctx.limits.max_stack_lines = (size_t)1 << 14;
	ctx.limits.max_input_bytes = (size_t)1 << 20;
	char *text = fuzz_text(&ctx, data, size);
	if (!text)
		return 0;
	struct state st = {0, 0, false, ctx.limits.max_stack_lines};
	check_result(&st, hg_reports_read(&ctx, SOURCE, text, size, sink, &st));
	struct state forced = {0, 0, true, ctx.limits.max_stack_lines};
	check_result(&forced, hg_reports_read_as(&ctx, SOURCE, text, size, HG_FORMAT_KSCRASH, sink,
						 &forced));
	free(text);
	return 0;
}
