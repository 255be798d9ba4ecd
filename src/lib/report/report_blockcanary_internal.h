/* What report_blockcanary.c (the log: header fields, CPU figures),
 * report_blockcanary_samples.c (the stack samples) and
 * report_blockcanary_findings.c (what the figures say) share (private). */
#ifndef HANGAR_LIB_REPORT_BLOCKCANARY_INTERNAL_H
#define HANGAR_LIB_REPORT_BLOCKCANARY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_internal.h"
#include "report_lines.h"
#include "core/core.h"

struct bc_line;  /* a frame line and its frame (report_blockcanary_samples.c) */
struct bc_stack; /* a sample's frames, kept once as a thread */

/* Open-addressing tables (power-of-two caps, or 0); free slots with free(). */
struct bc_line_table {
	struct bc_line **slots;   /* the lines live in the scratch arena */
	size_t cap, n;
};
struct bc_stack_table {
	struct bc_stack *slots;
	size_t cap, n;
};

/* One BlockCanary log being read. */
struct bc {
	const hg_ctx *ctx;
	hg_report *rep;
	struct read_error *err;
	size_t fields;            /* header fields read */
	bool in_cpu, in_stack, blank_before;
	bool has_time, has_thread_time;
	int64_t time, thread_time;
	const char *start, *end;  /* time-start, time-end ("MM-dd HH:mm:ss.SSS"), or NULL */
	const char *time_start;   /* time-start as written (any form), NULL: none */
	const char *first_sample; /* the first "stack = <time>", NULL: none */
	const char *write_time;   /* "2017-10-29 10:32:17(write log time)", NULL: none */
	int64_t year_ref;         /* ms: what year-less times were placed before */
	int cpu_busy;             /* cpu-busy: 1 true, 0 false, -1 absent or neither */
	size_t cpu_samples, cpu_in_block;
	int64_t cpu_sum[3];       /* cpu:, app:, ioWait: percentages of the samples in the block */
	size_t cpu_summed;        /* the samples in the block that gave all three */
	bool cpu_garbage;
	/* the stack samples (report_blockcanary_samples.c) */
	struct strcache names;    /* class, method and file names, one copy each */
	hg_arena *scratch;        /* the frame lines seen (struct bc_line) */
	struct bc_line_table lines;
	struct bc_stack_table stacks;
	bool sample_open;         /* a sample's time, or its first frame, was read */
	const char *sample_time;  /* its time as written (arena), or NULL */
	const struct bc_line **cur; /* its frame lines (malloc'd) */
	size_t n_cur, cap_cur;
	size_t samples;           /* samples with frames, kept or not */
	size_t dropped;           /* of them, past the frame budget: counted, not kept */
	size_t kept_frames;       /* frames of the threads samples keep */
	size_t skipped;
	long first_skipped, last_skipped;
	char first_skipped_text[64];
};

/* ---- report_blockcanary.c ---- */

/* Counts ln as skipped, neither a header field nor a stack frame (the
 * warning quotes the first). */
void bc_skip(struct bc *b, const struct line *ln);

/* "MM-dd HH:mm:ss.SSS", as BlockCanary's TIME_FORMATTER writes. */
bool bc_is_short_time(const char *s, size_t n);

/* ---- the stack samples (report_blockcanary_samples.c) ---- */

/* A sample's time: "10-29 10:32:13.403", "2017-10-29 10:32:13.403" or epoch
 * milliseconds "1508750380394". */
bool bc_is_timestamp(const char *s, size_t n);

/* A time of the log (a sample's, time-start) in ms since 1970, a year-less
 * one placed as the report's time is; -1 when it cannot be read. */
int64_t bc_time_ms(const struct bc *b, const char *t);

/* Ends the sample being read (if any) and opens one taken at time
 * s[0..n) (n 0: untimed); 0, HG_ELIMIT or HG_ENOMEM. */
int bc_new_sample(struct bc *b, const char *s, size_t n);

/* A line of the stack section: a sample's time, or one of its frames.  0,
 * HG_ELIMIT or HG_ENOMEM. */
int bc_stack_line(struct bc *b, const struct line *ln);

/* After the last line: the last sample ended, each sample's time in ms,
 * the dump interval, the heaviest path blamed as the main thread, the
 * "samples" figure, and warnings (no sample, samples past the frame
 * budget); 0 or HG_ENOMEM.  Frees the tables. */
int bc_samples_finish(struct bc *b);

/* Frees what reading the samples holds (also after a failure). */
void bc_samples_release(struct bc *b);

/* ---- what the figures say (report_blockcanary_findings.c) ---- */

/* A cpu-rate line's percentages, for the samples taken in the block. */
void bc_cpu_rates(struct bc *b, const struct line *ln);

/* The threshold the log implies, wall against thread time with cpu-busy,
 * the CPU rates in the block; 0 or HG_ENOMEM. */
int bc_findings(struct bc *b);

#endif
