/* What the fuzz targets share: the invariant check, touching strings so
 * that ASan reads them, a checked diagnostic sink, the input as a
 * NUL-terminated copy, and the checks every delivered report must pass.
 * Before including, define `static const char fuzz_target[]` (the target's
 * name, for the invariant line).  Functions are static: a target that does
 * not use one gets -Wunused-function, hence the attribute. */
#ifndef HANGAR_TESTS_FUZZ_FIXTURE_H
#define HANGAR_TESTS_FUZZ_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/report.h"

/* Invariants are checked with __builtin_trap() after a line on stderr. */
static __attribute__((unused)) void require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: invariant violated: %s\n", fuzz_target, what);
		__builtin_trap();
	}
}

static volatile size_t touched;

static __attribute__((unused)) void touch(const char *s)
{
	touched += s ? strlen(s) : 0; /* ASan reads the whole string */
}

/* A diagnostic's strings are set and short; its position is not negative. */
static __attribute__((unused)) void fuzz_diag_sink(void *user, const hg_diag *d)
{
	(void)user;
	require(d->message && d->source && strlen(d->message) < 1024, "diagnostic strings");
	require(d->line >= 0 && d->col >= 0, "diagnostic position");
}

/* A context for a text reader: fuzz_diag_sink, inputs up to 1 MiB. */
static __attribute__((unused)) void fuzz_ctx_init(hg_ctx *ctx)
{
	hg_ctx_init(ctx);
	ctx->diag = fuzz_diag_sink;
	ctx->limits.max_input_bytes = (size_t)1 << 20;
}

/* The input as a NUL-terminated copy (the caller frees it), or NULL when it
 * is over ctx's max_input_bytes or memory runs out. */
static __attribute__((unused)) char *fuzz_text(const hg_ctx *ctx, const uint8_t *data, size_t size)
{
	if (size > ctx->limits.max_input_bytes)
		return NULL;
	char *text = malloc(size + 1);
	if (!text)
		return NULL;
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* What any delivered report must hold: an arena, warnings with text, and an
 * error with text if it failed.  True if it was read (no error). */
static __attribute__((unused)) bool check_delivered(const hg_report *rep)
{
	require(rep && rep->arena, "a report with an arena");
	for (size_t i = 0; i < rep->warnings.len; i++)
		require(rep->warnings.items[i] && rep->warnings.items[i][0], "warning text");
	if (rep->error) {
		require(rep->error[0] != '\0', "error text");
		return false;
	}
	/* lock lines under frames that exist; exceptions on threads that do */
	for (size_t i = 0; i < rep->threads.n; i++) {
		const hg_thread *t = &rep->threads.items[i];
		for (size_t k = 0; k < t->n_locks; k++) {
			const hg_frame_lock *l = &t->locks[k];
			require(l->frame == HG_LOCK_NO_FRAME || l->frame < t->n_frames, "lock line's frame");
			require(l->lock.addr && l->lock.addr[0], "lock line's address");
			require(l->kind != HG_LOCK_WAITING_TO_LOCK || l->held_by >= -1, "lock holder");
		}
	}
	for (size_t i = 0; i < rep->n_exceptions; i++) {
		const hg_exception *e = &rep->exceptions[i];
		require(e->type != NULL, "exception type");
		require(e->thread >= -1 && e->thread < (long)rep->threads.n, "exception's thread");
	}
	require(!rep->reason || rep->reason[0], "reason text");
	return true;
}

/* What the sink of read_one_report is given as user: the context, and the
 * count of reports delivered, which the sink keeps. */
struct one_report {
	const hg_ctx *ctx;
	size_t count;
};

/* Reads text as format from source: it must be one report, read or failed,
 * delivered to sink. */
static __attribute__((unused)) void read_one_report(const hg_ctx *ctx, const char *source,
						    const char *text, size_t size,
						    enum hg_input_format format, hg_report_sink sink)
{
	struct one_report st = {ctx, 0};
	int rc = hg_reports_read_as(ctx, source, text, size, format, sink, &st);
	require(rc == 0 || rc == 1, "one report, read or failed");
	require(st.count == 1, "every input is one report");
}

#endif
