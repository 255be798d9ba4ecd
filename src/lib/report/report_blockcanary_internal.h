/* What report_blockcanary.c (the log: header fields, CPU figures) and
 * report_blockcanary_samples.c (the stack samples) share (private). */
#ifndef HANGAR_LIB_REPORT_BLOCKCANARY_INTERNAL_H
#define HANGAR_LIB_REPORT_BLOCKCANARY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_internal.h"
#include "report_lines.h"

struct seen; /* a frame line and the samples holding it (report_blockcanary_samples.c) */

/* The frame lines seen in every sample, to count repeats; free slots with
 * free(). */
struct seen_table {
	struct seen *slots;
	size_t cap, n;    /* cap: a power of two, or 0 */
};

/* One BlockCanary log being read. */
struct bc {
	const hg_ctx *ctx;
	hg_report *rep;
	struct read_error *err;
	hg_arena *scratch;        /* frames of samples other than the thread's */
	struct seen_table seen;
	size_t fields;            /* header fields read */
	bool in_cpu, in_stack, blank_before;
	bool has_time, has_thread_time;
	int64_t time, thread_time;
	const char *start, *end;  /* time-start, time-end */
	const char *time_start;   /* time-start as written (any form), NULL: none */
	const char *first_sample; /* the first "stack = <time>", NULL: none */
	const char *write_time;   /* "2017-10-29 10:32:17(write log time)", NULL: none */
	size_t cpu_samples, cpu_in_block;
	bool cpu_garbage;
	long sample;              /* current stack sample, -1 before the first */
	bool sample_has_frames;
	long samples;             /* samples that hold frames */
	long base;                /* the sample whose frames the thread has; -1 */
	long thread;              /* index in rep->threads; -1 */
	struct src { const char *s; size_t n; } *src; /* each thread frame's line */
	size_t cap_src;
	size_t skipped;
	long first_skipped;
	char first_skipped_text[64];
};

/* ---- report_blockcanary.c ---- */

/* Counts ln as skipped, neither a header field nor a stack frame (the
 * warning quotes the first). */
void bc_skip(struct bc *b, const struct line *ln);

/* ---- the stack samples (report_blockcanary_samples.c) ---- */

/* A sample's time: "10-29 10:32:13.403", "2017-10-29 10:32:13.403" or epoch
 * milliseconds "1508750380394". */
bool bc_is_timestamp(const char *s, size_t n);

/* Starts the next stack sample; 0 or HG_ENOMEM. */
int bc_new_sample(struct bc *b);

/* A line of the stack section: a sample's time, or one of its frames.  The
 * first sample with frames gives the thread its frames; the others are
 * only counted against them.  0, HG_ELIMIT or HG_ENOMEM. */
int bc_stack_line(struct bc *b, const struct line *ln);

/* After the last line: each frame's repeat (the samples that hold its
 * line), the blamed thread and the "samples" figure, or a warning that
 * there is no sample; 0 or HG_ENOMEM. */
int bc_thread_figures(struct bc *b);

#endif
