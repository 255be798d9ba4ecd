/* What report_kscrash.c (the report, its kind and whom to blame),
 * report_kscrash_threads.c (threads, frames, binary images),
 * report_kscrash_reason.c (why the app stopped), report_kscrash_recrash.c
 * (which part is the report, and the handler's own crash) and
 * report_kscrash_htapm.c (an APM hang module's section) share (private). */
#ifndef HANGAR_LIB_REPORT_KSCRASH_INTERNAL_H
#define HANGAR_LIB_REPORT_KSCRASH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_internal.h"
#include "core/core.h"

/* One binary image of binary_images (report_kscrash_images.c). */
struct image {
	uint64_t addr, size; /* [addr, addr + size), which may end at 2^64 */
	uint64_t vmaddr;
	const char *name;   /* basename, in the arena */
	const char *path;   /* as written, in the arena */
	const char *uuid;   /* in the arena; may be NULL */
	uint32_t ref;       /* its hg_frame.image_ref once a frame lies in it; 0 */
};

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
	const char *prefix;   /* "" or "recrash_report.": where the part read lies */
	bool lenient;         /* a part written by a handler that crashed: a thread
				 that cannot be read is a warning, not the report's end */
	size_t dropped;       /* threads left out so (the first few are named) */
	size_t crash_infos;   /* crash_info messages shown (a few are) */
};

/* What crash.error says the report is (report_kscrash.c), and so how its
 * reason reads (report_kscrash_reason.c). */
struct error_info {
	const char *type;    /* error.type */
	bool hang;           /* a hang block, a watchdog kill, a deadlock */
	bool matrix;         /* a Matrix lag dump (user_reported.dump_type) */
	bool profile;
	bool watchdog;       /* exit reason 0x8badf00d */
	bool htapm;          /* an APM hang module's report (report_kscrash_htapm.c) */
	const hg_json *profile_obj;
	const hg_json *error;
	const hg_json *root;  /* the part read: its "process" (a zombie NSException) */
	const hg_json *crash; /* its "crash": the crashed thread's registers */
};

/* The parts of a report object (report_kscrash_recrash.c).  A report whose
 * crash handler crashed while writing it holds two: the report, and the
 * handler's own crash (a "minimal" report: its error and crashed_thread).
 * KSCrash 2.0 wrote the report outside and the handler's crash as
 * recrash_report; KSCrash 3 and SentryCrash the other way round. */
struct kscrash_parts {
	const hg_json *main;    /* the report read */
	const hg_json *handler; /* the handler's crash, or NULL */
	const hg_json *other;   /* the part main is not (its system and binary_images
				   stand in for main's missing ones), or NULL */
	bool inner;             /* main is recrash_report */
	bool incomplete;        /* written by a handler that crashed ("incomplete", a recrash) */
};
void kscrash_pick_parts(const hg_json *obj, struct kscrash_parts *p);
/* The handler's crash (part, whose fields lie under prefix) into
 * k->rep->recrash: its reason, diagnosis and crashed thread.  Whatever of
 * it cannot be read is a warning naming the field; the rest is kept.  Call
 * after kscrash_read_images, while k->strs is live.  0 or HG_ENOMEM. */
int kscrash_read_recrash(struct kx *k, const hg_json *part, const char *prefix);
/* err->msg of a field under root ("field \"system.machine\"") of a part
 * under prefix named from the report's root ("field
 * \"recrash_report.system.machine\""); kscrash_name_field does it for the
 * roots of a crash part, "crash" and "process". */
void kscrash_name_root(struct read_error *err, const char *root, const char *prefix);
void kscrash_name_field(struct read_error *err, const char *prefix);

/* A field read for the person only (an exception's reason, a crash_info
 * message): absent or null is NULL; of another type, a warning naming it
 * and NULL, never the report's end.  0 or HG_ENOMEM. */
int kscrash_soft_string(struct kx *k, const hg_json *obj, const char *where, const char *key,
			const char **out);
int kscrash_soft_object(struct kx *k, const hg_json *obj, const char *where, const char *key,
			const hg_json **out);
/* rc of a field read the same way: an HG_EPARSE becomes a warning of
 * k->f.err's words and 0 (k->f.err cleared); other codes pass. */
int kscrash_soften(struct kx *k, int rc);

/* s copied into the report's arena; NULL when s is (or on ENOMEM). */
static inline const char *kscrash_dup(struct kx *k, const char *s)
{
	return s ? hg_arena_strdup(k->rep->arena, s) : NULL;
}

/* Reads root's "binary_images" (root lies under prefix, "" or
 * "recrash_report.") into k->images, and their crash_info messages as
 * header lines (report_kscrash_images.c); 0, HG_EPARSE or HG_ENOMEM. */
int kscrash_read_images(struct kx *k, const hg_json *root, const char *prefix);
/* The image holding pc, or NULL. */
struct image *kscrash_find_image(const struct kx *k, uint64_t pc);
/* The report's hg_image for img (*ref), added when its first frame is
 * placed; 0 or HG_ENOMEM. */
int kscrash_image_ref(struct kx *k, struct image *img, uint32_t *ref);
/* An address or size bit-exact from a number's digits s[0..len): NULL and
 * *out set, or why it is none ("is negative", "is not an integer", ...). */
const char *kscrash_image_number(const char *s, size_t len, uint64_t *out);

/* Every thread of crash, or the minimal report's crashed_thread, into
 * k->rep->threads; *info gets one entry per thread read (in the arena).
 * With k->lenient a thread that cannot be read is left out with a
 * warning.  Call after kscrash_read_images.  0, HG_EPARSE, HG_ELIMIT or
 * HG_ENOMEM. */
int kscrash_read_threads(struct kx *k, const hg_json *crash, struct thread_info **info);
/* One thread object th (named where) appended to k->rep->threads; on an
 * error the thread stays as far as it was read.  0, HG_EPARSE, HG_ELIMIT
 * or HG_ENOMEM. */
int kscrash_read_thread(struct kx *k, const hg_json *th, const char *where,
			struct thread_info *info);

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

/* rep->reason from ei->error, said plainly (a watchdog kill, a hang, a
 * termination for memory, SIGTERM, a mach exception and signal), and an
 * NSException, C++ exception, user-reported exception or zombie
 * NSException as the report's exception (its thread -1: the caller places
 * it) (report_kscrash_reason.c).  0, HG_EPARSE or HG_ENOMEM. */
int kscrash_read_reason(struct kx *k, const struct error_info *ei);
/* "mach exception EXC_BAD_ACCESS (KERN_INVALID_ADDRESS), signal SIGSEGV
 * (SEGV_NOOP) at 0x10" of error (named "crash.error") appended to b.
 * 0, HG_EPARSE or HG_ENOMEM. */
int kscrash_crash_words(struct kx *k, const hg_json *error, hg_buf *b);
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
