/* What report_kscrash.c (the report, its kind and whom to blame) and
 * report_kscrash_threads.c (threads, frames, binary images) share
 * (private). */
#ifndef HANGAR_LIB_REPORT_KSCRASH_INTERNAL_H
#define HANGAR_LIB_REPORT_KSCRASH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "report_internal.h"
#include "core/core.h"

struct image; /* one binary image (report_kscrash_threads.c) */

/* What the blame rules need to know of each thread. */
struct thread_info {
	bool crashed, current, handled, main_queue, main_name;
	long index; /* -1 when absent */
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
