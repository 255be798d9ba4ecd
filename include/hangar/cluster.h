/* Stack signatures: what makes two reports the same problem.  A signature
 * is built from symbols, never method ids where a mapping names them (ids
 * change with every build): the app, the report's family, the frame that
 * explains it and its nearest ancestors (method stacks), or the blamed
 * thread's innermost app frames (thread stacks), normalized so that
 * compiler numbering does not split a cause; reports with no app frame are
 * grouped by their own frames, never into one bucket.  Its hash is 128
 * bits, printed as 32 hex digits.  The algorithm is documented, with its
 * version, in hangar-formats(5); stores keep each cluster's version, and
 * `hangar regroup` moves a store to the current one. */
#ifndef HANGAR_CLUSTER_H
#define HANGAR_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "hangar.h"
#include "report.h"

#define HG_SIGNATURE_VERSION 2

/* Grouping rules: which frames belong to the app, which to ignore, how
 * many frames to take.  Loaded from a rules file (--rules). */
typedef struct hg_rules hg_rules;

/* Reads a rules file; lines (# comments and blank lines ignored):
 *   app REGEX            a frame's "class.method" matching is in-app (repeatable)
 *   ignore REGEX         a frame matching is left out (repeatable)
 *   key-ancestors N      in-app ancestors of the key frame (default 3)
 *   thread-frames N      top in-app frames of a blamed thread (default 5)
 * REGEX is PCRE2.  Errors name path:line and the reason.  Caller owns
 * *out (hg_rules_destroy). */
int hg_rules_load(const hg_ctx *ctx, const char *path, hg_rules **out);
void hg_rules_destroy(hg_rules *rules);

typedef struct hg_signature {
	char hash[33];          /* 32 lowercase hex digits and a NUL */
	int version;            /* HG_SIGNATURE_VERSION */
	const char *app;        /* the process up to ':' (Android: the package; iOS: the
	                           bundle id); else "unknown app in FOLDER" (the folder of
	                           the report's source) */
	bool app_known;         /* false: the report named no process */
	const char *family;     /* slow_method, lag, anr, startup, fps, ios_hang, crash, thread_dump */
	const char *title;      /* for a person: the key frame, with the scene or ANR type
	                           where the frame alone does not tell clusters apart */
	const char *key_symbol; /* the StackKey's symbol (method stacks) or the top blamed frame; may be NULL */
	const char **frames;    /* the lines hashed after the family: "app ...", then the
	                           normalized frames (and markers), in order */
	size_t n_frames;
	bool symbolicated;      /* false when some frame is an unmapped "#id" */
	bool no_app_frame;      /* grouped by library or platform frames: none is the app's */
} hg_signature;

/* The signature of rep (symbols must be set already: hg_report_symbolicate,
 * hg_report_retrace).  rules (borrowed) may be NULL: the defaults (which
 * frames are the app's: hangar-formats(5), STACK SIGNATURES).  Every string of *out, and the frames array, is owned
 * by arena; rep is only read, so a rules set and a report may be shared by
 * threads.  Returns 0 or HG_ENOMEM (HG_EINVAL for a report with an error). */
int hg_signature_compute(const hg_report *rep, const hg_rules *rules, hg_arena *arena,
			 hg_signature *out);

#endif
