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

/* The family a report of this kind is grouped under (hg_signature.family,
 * the clusters' kind column): a static string. */
const char *hg_signature_family(enum hg_report_kind kind);

/* ---- why a report has its signature ----
 * hg_signature_explain computes the signature as hg_signature_compute does
 * (the same code, the same hash) and records, for every frame it looked
 * at, whose it decided the frame is, the rule that decided, and whether
 * the frame was hashed.  The rule vocabulary is hangar-formats(5), STACK
 * SIGNATURES, Explanations.  hg_signature_compute records nothing and
 * words no rule: what ingest pays for explanations is a test per frame
 * (under 1% of a signature's instructions). */

/* Whose a frame is, as the signature decided. */
typedef enum hg_owner {
	HG_OWNER_APP,
	HG_OWNER_LIBRARY,
	HG_OWNER_PLATFORM,
	HG_OWNER_IGNORED,   /* left out before its owner mattered: an ignore rule, a
	                       second candidate of an ambiguous retrace */
} hg_owner;

/* What the signature did with a frame. */
typedef enum hg_frame_use {
	HG_USE_KEY,         /* hashed: the StackKey frame (taken whoever's it is) */
	HG_USE_TAKEN,       /* hashed */
	HG_USE_PAST_LIMIT,  /* would have been hashed, but key-ancestors or
	                       thread-frames frames were taken already */
	HG_USE_OTHER_OWNER, /* not of the owner whose frames are hashed (the app's;
	                       a library's or the platform's when no frame is the app's) */
	HG_USE_IGNORED,     /* an ignore rule left it out */
	HG_USE_DISPATCH,    /* Handler.dispatchMessage among a method stack's ancestors */
	HG_USE_CANDIDATE,   /* a second or later candidate of an ambiguous retrace */
} hg_frame_use;

/* What the signature's lines come from. */
typedef enum hg_basis {
	HG_BASIS_METHOD_STACK, /* the StackKey and its ancestors */
	HG_BASIS_THREAD,       /* a thread's innermost frames */
	HG_BASIS_NO_STACK,     /* neither: an ANR's waiting channel, a screen */
} hg_basis;

typedef struct hg_explain_frame {
	const char *frame;  /* as the report gives it: hg_frame.text (a retraced Java
	                       frame: "cls.method (retraced from: TEXT)"), a method
	                       stack's symbol or "#id" */
	hg_owner owner;
	const char *rule;   /* the rule that decided owner, in the words of
	                       hangar-formats(5), e.g. "platform prefix android." */
	hg_frame_use used;
	const char *line;   /* the line hashed for it (HG_USE_KEY, HG_USE_TAKEN); else NULL */
} hg_explain_frame;

typedef struct hg_explain {
	hg_signature sig;      /* the signature, as hg_signature_compute gives it */
	const char *app_from;  /* how sig.app was found: "process NAME", or "no process:
	                          the folder of the report's source" */
	const char *app_prefix; /* Java frames under it are the app's ("com.example."); or NULL */
	const char *app_image; /* iOS: the app's binary image name; or NULL */
	hg_basis basis;
	/* HG_BASIS_THREAD: the thread walked (an index of rep->threads), its
	 * name (or NULL) and why it was chosen: "blamed", "main" or "first". */
	long thread;
	const char *thread_name;
	const char *thread_why;
	/* Whose frames were hashed: HG_OWNER_APP, or HG_OWNER_LIBRARY or
	 * HG_OWNER_PLATFORM when no frame was the app's; HG_OWNER_IGNORED when
	 * no frame was (an idle main thread, the whole message, no stack). */
	hg_owner hashed_owner;
	const char *grouped_by; /* the same in words, for a person: "the StackKey and its
	                          nearest app ancestors, up to key-ancestors 3" */
	int key_ancestors, thread_frames; /* the limits applied (the rules' or the defaults) */
	/* Every frame looked at, in the order walked: a method stack's from
	 * the StackKey up its path to the root (ancestors past key-ancestors
	 * included), a thread's from the innermost. */
	hg_explain_frame *frames;
	size_t n_frames;
} hg_explain;

/* The signature of rep as hg_signature_compute makes it, in out->sig,
 * with why (the rest of *out).  rep, rules: as hg_signature_compute (a
 * store's report read again, hg_reread_report's, explains what regroup
 * would do).  Everything *out points to is owned by arena.  Returns 0,
 * HG_ENOMEM, or HG_EINVAL for a report with an error. */
int hg_signature_explain(const hg_report *rep, const hg_rules *rules, hg_arena *arena,
			 hg_explain *out);

/* "app", "library", "platform", "ignored". */
const char *hg_owner_name(hg_owner owner);
/* "key", "taken", "past-limit", "other-owner", "ignored", "dispatch", "candidate". */
const char *hg_frame_use_name(hg_frame_use use);
/* "method_stack", "thread", "no_stack". */
const char *hg_basis_name(hg_basis basis);

#endif
