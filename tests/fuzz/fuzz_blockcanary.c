/* libFuzzer target: BlockCanary logs read as one report through
 * hg_reports_read_as(..., HG_FORMAT_BLOCKCANARY) (detection is fuzz_report's
 * business).  The sink checks the one main thread, its frames and their
 * repeat counts against the number of samples, the figures and warnings,
 * touches every string so that ASan sees them, and destroys the report.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/report.h"

#define SOURCE "fuzz-blockcanary.log"

static const char fuzz_target[] = "fuzz_blockcanary";
#include "fuzz_fixture.h"

/* The "block"/"samples" figure, or 0. */
static long samples(const hg_report *rep)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (rep->stats[i].group && strcmp(rep->stats[i].group, "block") == 0 &&
		    strcmp(rep->stats[i].name, "samples") == 0)
			return atol(rep->stats[i].value);
	return 0;
}

static void check_report(const hg_report *rep, const hg_ctx *ctx)
{
	require(rep->kind == HG_KIND_BLOCK, "kind is block");
	require(rep->platform && strcmp(rep->platform, "android") == 0, "platform");
	require(rep->cost >= 0, "cost is not negative");
	const char *strings[] = {rep->process, rep->time, rep->device, rep->app_version};
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
		touch(strings[i]);
	for (size_t i = 0; i < rep->n_stats; i++) {
		require(rep->stats[i].group && rep->stats[i].name && rep->stats[i].value, "figure");
		touch(rep->stats[i].name);
		touch(rep->stats[i].value);
	}
	const hg_threads *ts = &rep->threads;
	/* Thread 0 is the main thread (the heaviest path); the others are
	 * the samples' frames, each flagged a sample (report_samples.c). */
	size_t real = 0;
	for (size_t i = 0; i < ts->n; i++)
		real += !(ts->items[i].flags & HG_THREAD_SAMPLE);
	require(real <= 1, "one thread at most besides the samples");
	require(ts->blamed == (real ? 0 : -1), "the thread is blamed");
	for (size_t i = 0; i < rep->n_samples; i++) /* -1: a sample without frames */
		require(rep->samples[i].thread >= -1 && rep->samples[i].thread < (long)ts->n,
			"a sample's frames are a thread");
	if (real == 0)
		return;
	const hg_thread *t = &ts->items[0];
	require(t->name && strcmp(t->name, "main") == 0, "the main thread");
	require(t->flags & HG_THREAD_MAIN && t->flags & HG_THREAD_BLAMED, "main and blamed");
	require(t->n_frames > 0 && t->n_frames <= ctx->limits.max_stack_lines, "frame count");
	long n = samples(rep);
	require(n >= 1, "a thread comes from a sample");
	for (size_t k = 0; k < t->n_frames; k++) {
		const hg_frame *f = &t->frames[k];
		require(f->kind == HG_FRAME_JAVA && f->cls && f->method && f->text, "java frame");
		require(f->repeat >= 1 && f->repeat <= n, "repeat counts samples");
		require(!strchr(f->text, '\n'), "frame text is one line");
		touch(f->file);
		touch(f->text);
	}
}

static int sink(void *user, hg_report *rep)
{
	struct one_report *st = user;
	st->count++;
	if (check_delivered(rep))
		check_report(rep, st->ctx);
	hg_report_destroy(rep);
	return 0;
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
	read_one_report(&ctx, SOURCE, text, size, HG_FORMAT_BLOCKCANARY, sink);
	free(text);
	return 0;
}
