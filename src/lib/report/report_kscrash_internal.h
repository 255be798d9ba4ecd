/* What report_kscrash.c (the report, its kind and whom to blame),
 * report_kscrash_threads.c (threads, frames, binary images) and
 * report_kscrash_htapm.c (an APM hang module's section) share (private). */
#ifndef HANGAR_LIB_REPORT_KSCRASH_INTERNAL_H
#define HANGAR_LIB_REPORT_KSCRASH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_internal.h"
#include "core/core.h"

struct image; /* one binary image (report_kscrash_threads.c) */

/* What the blame rules need to know of each thread. */
struct thread_info {
	bool crashed, current, handled, main_queue, main_name;
	bool htapm_main; /* the htapm scene item flagged is_main_thread points here */
	long index; /* -1 when absent */
};

/* What an APM's hang module (the report's "htapm" section, module "hang")
 * said, for report_kscrash.c (report_kscrash_htapm.c). */
struct htapm {
	bool hang;           /* module "hang": the report is an iOS hang */
	bool has_cost, has_threshold;
	int64_t cost_ms, threshold_ms;
	const char *detector;  /* "matrix"; in the document, or NULL */
};

/* One report object being read. */
struct kx {
	const hg_ctx *ctx;
	struct json_fields f; /* the document, and where errors go */
	hg_report *rep;
	struct image *images; /* sorted by addr */
	size_t n_images;
	size_t frames;        /* frames and threads read, against max_stack_lines */
	size_t disagree;      /* frames whose own names contradict binary_images */
	const char *disagree_example; /* the first of them, for the warning (arena) */
	struct strcache strs; /* image names, symbols and frame texts, one copy each */
};

/* s copied into the report's arena; NULL when s is (or on ENOMEM). */
static inline const char *kscrash_dup(struct kx *k, const char *s)
{
	return s ? hg_arena_strdup(k->rep->arena, s) : NULL;
}

/* Reads root's "binary_images" into k->images; 0, HG_EPARSE or HG_ENOMEM. */
int kscrash_read_images(struct kx *k, const hg_json *root);

/* Every thread of crash, or the minimal report's crashed_thread, into
 * k->rep->threads; *info gets one entry per thread read (in the arena).
 * Call after kscrash_read_images.  0, HG_EPARSE, HG_ELIMIT or HG_ENOMEM. */
int kscrash_read_threads(struct kx *k, const hg_json *crash, struct thread_info **info);

/* The frames of array `contents` (named where, e.g.
 * "crash.threads[0].backtrace.contents") appended to thread ti, counted
 * against max_stack_lines; with `addresses`, an element may also be a bare
 * instruction address.  *repeats: some frame had repeat_count.  0,
 * HG_EPARSE, HG_ELIMIT or HG_ENOMEM. */
int kscrash_read_contents(struct kx *k, const hg_json *contents, const char *where, size_t ti,
			  bool addresses, bool *repeats);
/* The same for th's "backtrace" object (its contents and skipped). */
int kscrash_read_backtrace(struct kx *k, const hg_json *th, const char *where, size_t ti,
			   bool *repeats);

/* The "htapm" section of root (report_kscrash_htapm.c): with module "hang",
 * the cost and threshold into k->rep, the scene's main thread flagged in
 * (*info)[i].htapm_main, its threads' identifiers, the representative
 * main-thread stack as a thread marked handled (appended to the threads,
 * *info grown to match), and header lines saying what it holds.  Bad
 * fields are warnings naming them; the rest is read.  Call after
 * kscrash_read_threads, while k->strs is live.  0 or HG_ENOMEM. */
int kscrash_read_htapm(struct kx *k, const hg_json *root, struct thread_info **info,
		       struct htapm *out);
/* The reason of an htapm hang ("the main thread's RunLoop was busy for
 * ..."), when the report gave none; 0 or HG_ENOMEM. */
int kscrash_htapm_reason(struct kx *k, const struct htapm *h);

/* rep->reason from crash.error (of error.type `type`; `watchdog`: the exit
 * reason was 0x8badf00d), and an NSException or C++ exception as the
 * report's exception (its thread -1: the caller places it) (report_kscrash_reason.c).
 * 0, HG_EPARSE or HG_ENOMEM. */
int kscrash_read_reason(struct kx *k, const hg_json *error, const char *type, bool watchdog);
/* The OS, model and report id, readable, as figures of group "header". */
int kscrash_header_fields(struct kx *k, const hg_json *sys, const hg_json *rep_info);

/* One frame object e (named where in errors) appended to t, placed in
 * binary_images as a backtrace's frames are (report_kscrash_threads.c).
 * 0, HG_EPARSE or HG_ENOMEM. */
int kscrash_read_frame(struct kx *k, const hg_json *e, const char *where, hg_thread *t);

/* A sampled profile (crash.error.profile) as threads: its heaviest stack,
 * then its other stacks (report_kscrash_profile.c).  Call after
 * kscrash_read_images.  0, HG_EPARSE, HG_ELIMIT or HG_ENOMEM. */
int kscrash_read_profile(struct kx *k, const hg_json *profile);

#endif
