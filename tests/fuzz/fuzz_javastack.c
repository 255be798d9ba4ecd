/* libFuzzer target: Java stack dumps (WatchDog and logcat pastes, ANR-WatchDog
 * reports, xCrash Java tombstones) read as one report through
 * hg_reports_read_as(..., HG_FORMAT_JAVA_STACK) (detection is fuzz_report's
 * business), and the same bytes as Matrix's `threadStack` text through
 * report_thread_from_frames (a Matrix JSON wrapper would only fuzz the JSON
 * reader).  The checks cover threads, frames, locks and the blamed thread;
 * every string is touched so that ASan sees it, and every report destroyed.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/report.h"
#include "report/report_internal.h"

#define SOURCE "fuzz-javastack.txt"

static const char fuzz_target[] = "fuzz_javastack";
#include "fuzz_fixture.h"

static size_t check_threads(const hg_threads *ts)
{
	size_t frames = 0, mains = 0;
	require(ts->blamed >= 0 && ts->blamed < (long)ts->n, "a thread is blamed");
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		require(t->name && t->name[0], "thread name");
		touch(t->name);
		touch(t->state);
		mains += (t->flags & HG_THREAD_MAIN) != 0;
		require(!(t->flags & HG_THREAD_BLAMED) || (long)i == ts->blamed, "one blamed thread");
		require(t->n_frames <= t->cap_frames && t->n_held <= t->cap_held, "counts");
		for (size_t k = 0; k < t->n_frames; k++) {
			const hg_frame *f = &t->frames[k];
			require(f->kind == HG_FRAME_JAVA && f->cls && f->method && f->text, "java frame");
			require(f->repeat == 1, "one sample");
			require(!strchr(f->text, '\n'), "frame text is one line");
			touch(f->cls);
			touch(f->method);
			touch(f->file);
		}
		frames += t->n_frames;
		for (size_t k = 0; k < t->n_held; k++) {
			require(t->held[k].addr != NULL, "held lock address");
			touch(t->held[k].addr);
			touch(t->held[k].cls);
		}
		touch(t->waiting.addr);
		touch(t->waiting.cls);
	}
	require(mains >= 1, "the blamed thread is main");
	return frames;
}

static int sink(void *user, hg_report *rep)
{
	struct one_report *st = user;
	st->count++;
	if (check_delivered(rep)) {
		require(rep->kind == HG_KIND_ANR || rep->kind == HG_KIND_THREAD_DUMP ||
			rep->kind == HG_KIND_CRASH, "kind");
		require(rep->platform && strcmp(rep->platform, "android") == 0, "platform");
		const char *strings[] = {rep->process, rep->time, rep->device, rep->app_version};
		for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
			touch(strings[i]);
		for (size_t i = 0; i < rep->n_stats; i++)
			require(rep->stats[i].name && rep->stats[i].value, "figure");
		size_t frames = check_threads(&rep->threads);
		require(frames > 0 && frames <= st->ctx->limits.max_stack_lines, "frame count");
	}
	hg_report_destroy(rep);
	return 0;
}

/* The bytes as a Matrix threadStack, added to a report twice. */
static void thread_stack(const char *text, size_t size)
{
	hg_report *rep = report_new(SOURCE, 1, 1);
	if (!rep)
		return;
	struct read_error err;
	for (int round = 0; round < 2; round++) {
		size_t before = rep->threads.n;
		int rc = report_thread_from_frames(rep, "main", text, size, &err);
		require(rc == 0 || rc == HG_EPARSE, "threadStack: read or refused");
		if (rc == HG_EPARSE) {
			require(err.msg[0] != '\0' && rep->threads.n == before, "refused: no thread added");
			continue;
		}
		require(rep->threads.n == before + 1 && rep->threads.blamed == (long)before,
			"one blamed thread added");
		check_threads(&rep->threads);
	}
	hg_report_destroy(rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	fuzz_ctx_init(&ctx);
	ctx.limits.max_stack_lines = (size_t)16 << 10;
	char *text = fuzz_text(&ctx, data, size);
	if (!text)
		return 0;
	read_one_report(&ctx, SOURCE, text, size, HG_FORMAT_JAVA_STACK, sink);
	thread_stack(text, size);
	free(text);
	return 0;
}
