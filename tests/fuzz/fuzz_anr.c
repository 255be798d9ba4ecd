/* libFuzzer target: Android ANR traces (ART SIGQUIT dumps, AppExitInfo and
 * dropbox entries, xCrash tombstones) read, one report per process, through
 * hg_reports_read_as(..., HG_FORMAT_ANR_TRACES) (detection is fuzz_report's
 * business).  The sink checks the threads, frames, locks, the
 * blamed thread, the chain of threads blocking it and the lock cycles, and
 * touches every string so that ASan sees them.
 *
 * Invariants are checked with __builtin_trap() after a line on stderr. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/report.h"

#define SOURCE "fuzz-anr.txt"

static const char fuzz_target[] = "fuzz_anr";
#include "fuzz_fixture.h"

static void check_frame(const hg_frame *f)
{
	require(f->text != NULL, "frame text");
	touch(f->text);
	if (f->kind == HG_FRAME_JAVA) {
		require(f->cls && f->method && f->cls[0] && f->method[0], "java frame names");
		touch(f->file);
		return;
	}
	require(f->kind == HG_FRAME_NATIVE, "frame kind");
	require(f->has_pc, "native frame has a pc");
	require(!f->has_offset || f->symbol, "an offset comes with a symbol");
	require(!f->method || f->symbol, "a native method comes from a symbol");
	touch(f->image);
	touch(f->symbol);
	touch(f->method);
}

static void check_threads(const hg_threads *ts)
{
	require(ts->blamed >= -1 && ts->blamed < (long)ts->n, "blamed in range");
	size_t mains = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		require(t->name != NULL, "thread name");
		touch(t->name);
		touch(t->state);
		if (t->flags & HG_THREAD_MAIN) {
			mains++;
			require((long)i == ts->blamed && (t->flags & HG_THREAD_BLAMED), "main is blamed");
		}
		require(t->n_frames <= t->cap_frames && t->n_held <= t->cap_held, "counts");
		for (size_t k = 0; k < t->n_frames; k++)
			check_frame(&t->frames[k]);
		for (size_t k = 0; k < t->n_held; k++) {
			require(t->held[k].addr && t->held[k].addr[0], "held lock address");
			touch(t->held[k].cls);
		}
		if (t->waiting.addr) {
			require(t->waiting.addr[0] != '\0', "waiting lock address");
			touch(t->waiting.cls);
		}
		require(!(t->flags & HG_THREAD_IDLE) || !t->waiting.addr, "idle threads wait for no lock");
	}
	require(mains == (ts->blamed >= 0 ? 1u : 0u), "one main thread when blamed");
	require(ts->n_chain <= ts->n, "chain length");
	for (size_t k = 0; k < ts->n_chain; k++) {
		size_t i = ts->chain[k];
		require(i < ts->n && (long)i != ts->blamed, "chain index");
		require(ts->items[i].flags & HG_THREAD_BLOCKS_MAIN, "chain threads are tagged");
		for (size_t j = 0; j < k; j++)
			require(ts->chain[j] != i, "chain threads are distinct");
	}
	size_t in_cycles = 0;
	for (size_t c = 0; c < ts->n_cycles; c++) {
		const hg_lock_cycle *cy = &ts->cycles[c];
		require(cy->n >= 2, "a cycle has two threads or more");
		in_cycles += cy->n;
		for (size_t k = 0; k < cy->n; k++) {
			size_t i = cy->threads[k];
			require(i < ts->n, "cycle index");
			require(cy->locks[k] == &ts->items[i].waiting && cy->locks[k]->addr,
				"cycle lock is what its thread waits for");
			require(ts->items[i].flags & HG_THREAD_DEADLOCKED, "cycle threads are tagged");
		}
	}
	require(in_cycles <= ts->n, "each thread is in one cycle at most");
}

static int sink(void *user, hg_report *rep)
{
	size_t *count = user;
	(*count)++;
	if (check_delivered(rep) && rep->format == HG_FORMAT_ANR_TRACES) {
		require(rep->kind == HG_KIND_ANR || rep->kind == HG_KIND_THREAD_DUMP,
			"kind is anr or thread_dump");
		require(rep->kind == HG_KIND_ANR || (!rep->anr_type && !rep->scene && !rep->cost),
			"a thread dump has no ANR type, scene or cost");
		require(rep->cost >= 0, "cost");
		require(rep->platform && strcmp(rep->platform, "android") == 0, "platform");
		const char *strings[] = {rep->process, rep->time, rep->device, rep->app_version,
					 rep->anr_type};
		for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
			touch(strings[i]);
		for (size_t i = 0; i < rep->meta_len; i++)
			require(rep->meta[i].key && rep->meta[i].json && rep->meta[i].text, "metadata");
		check_threads(&rep->threads);
	}
	hg_report_destroy(rep);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	fuzz_ctx_init(&ctx);
	char *text = fuzz_text(&ctx, data, size);
	if (!text)
		return 0;
	size_t count = 0;
	int rc = hg_reports_read_as(&ctx, SOURCE, text, size, HG_FORMAT_ANR_TRACES, sink, &count);
	require(rc == HG_ENOMEM || (rc >= 0 && count >= 1 && (size_t)rc <= count),
		"one report per process, failed or not");
	free(text);
	return 0;
}
