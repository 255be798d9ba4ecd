/* Stack signatures inside libhangar: the grouping rules as read from a
 * rules file (cluster_rules.c), and the state one signature is built in,
 * shared by cluster.c (the whole), cluster_frames.c (normalized names and
 * whose a frame is; cluster_apple.c, iOS names), cluster_method.c (method
 * stacks), cluster_thread.c (thread dumps) and cluster_explain.c (what
 * hg_signature_explain records). */
#ifndef HANGAR_LIB_CLUSTER_INTERNAL_H
#define HANGAR_LIB_CLUSTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hangar/cluster.h"
#include "hangar/report.h"
#include "regex/regex.h"

#define HG_DEFAULT_KEY_ANCESTORS 3
#define HG_DEFAULT_THREAD_FRAMES 5
#define HG_MAX_KEY_ANCESTORS 64
#define HG_MAX_THREAD_FRAMES 64

/* One app or ignore rule: its pattern, and where it was written (for an
 * explanation to name it). */
struct rule_pattern {
	hg_regex *re;           /* owned */
	char *text;             /* the pattern as written; owned */
	long line;              /* its line in the rules file */
};

struct hg_rules {
	struct rule_pattern *app; /* malloc'ed */
	size_t n_app, cap_app;
	struct rule_pattern *ignore;
	size_t n_ignore, cap_ignore;
	int key_ancestors;
	int thread_frames;
	char *path;             /* the rules file, as named; owned */
};

/* Whose a frame is, from the most to the least telling. */
enum frame_owner {
	OWNER_APP,        /* the app's own code (see frame_owner_java) */
	OWNER_LIBRARY,    /* other code shipped in the app: an SDK, a library */
	OWNER_SYSTEM,     /* the platform: framework prefixes, system images */
};

struct sig {
	const hg_report *rep;
	hg_arena *arena;
	const hg_rules *rules;
	int key_ancestors, thread_frames;
	const char *package;    /* Android: the process up to ':' ("a.b.c"); or NULL */
	const char *prefix;     /* its first two segments and a dot ("a.b."); or NULL */
	size_t prefix_len;
	bool ios;               /* native frames are an iOS app's */
	const char *main_image; /* iOS: the app binary's name; or NULL */
	const char **frames;    /* the lines hashed after the header, in order */
	size_t n_frames, cap_frames;
	bool symbolicated;
	bool no_app_frame;      /* grouped by frames none of which is the app's */
	const char *title;
	const char *key_symbol;
	/* hg_signature_explain's record; NULL for hg_signature_compute, which
	 * then makes no text of why (every "why" argument below is NULL). */
	hg_explain *ex;
	size_t cap_ex;          /* room in ex->frames */
};

/* ---- cluster_frames.c ---- */

/* "cls.method" with compiler numbering normalized (method may be NULL). */
const char *sig_java_frame(hg_arena *arena, const char *cls, const char *method);
/* A methodMapping symbol "a.b.C$1.run(int, String)", normalized likewise. */
const char *sig_method_symbol(hg_arena *arena, const char *sym);
/* "image!symbol", "image+0xOFFSET" or "image": the image's file name,
 * with what is not a name (a dex entry's "]", a "(deleted)") taken off. */
const char *sig_native_frame(hg_arena *arena, const hg_frame *f);
/* The same frame for a person: its readable name when it was demangled. */
const char *sig_native_title(hg_arena *arena, const hg_frame *f);
/* The title of an iOS frame no binary image places: its readable name
 * without Swift's "static ", "class " or "@objc " ("static Foo.bar()" ->
 * "Foo.bar()"), not "???!name". */
const char *sig_unplaced_title(hg_arena *arena, const hg_frame *f);
/* A class's simple name, "a.b.Outer$Inner" -> "Outer$Inner". */
const char *sig_simple_name(const char *cls);
/* Whose a frame is.  Each sets *why (when why is not NULL: explaining) to
 * the rule that decided, in the arena; NULL when out of memory. */
/* The Java frame "cls.method" (match: that text; NULL when no rules). */
enum frame_owner frame_owner_java(const struct sig *s, const hg_frame *f, const char *match,
				  const char **why);
/* A methodMapping symbol (method stacks). */
enum frame_owner frame_owner_symbol(const struct sig *s, const char *sym, const char **why);
enum frame_owner frame_owner_native(const struct sig *s, const hg_frame *f, const char **why);
/* 1 when a rules "ignore" pattern drops the frame (*why: that rule, when
 * why is not NULL), 0 when not, < 0 an error.  Inline: without ignore
 * rules (most runs) it is one test per frame. */
int sig_ignored_by_rules(const struct sig *s, const char *match, size_t len, const char **why);
static inline int sig_ignored(const struct sig *s, const char *match, size_t len, const char **why)
{
	return s->rules && s->rules->n_ignore ? sig_ignored_by_rules(s, match, len, why) : 0;
}
/* Appends a line to the signature; HG_ENOMEM when line is NULL or no room. */
int sig_add(struct sig *s, const char *line);

/* ---- cluster_apple.c ---- */

/* Which rule finds the readable name of an iOS frame no image places the
 * platform's (APPLE_NOT: none does, it is the app's). */
enum apple_why {
	APPLE_NOT,
	APPLE_OBJC,           /* an Objective-C method of Apple's class */
	APPLE_MANGLED_SWIFT,  /* mangled Swift of Apple's module */
	APPLE_C_FUNCTION,     /* a C function */
	APPLE_CXX,            /* C++ in Apple's namespace */
	APPLE_SWIFT,          /* Swift of Apple's module or type, or a thunk */
};
enum apple_why sig_apple_name(const char *name);
/* The rule in words: "Apple's Objective-C class". */
const char *sig_apple_why(enum apple_why why);

/* ---- cluster_explain.c: only called when explaining (s->ex set) ---- */

/* The public name of an owner. */
hg_owner sig_owner(enum frame_owner o);
/* Room for n frames in s->ex->frames; 0 or HG_ENOMEM. */
int sig_explain_room(struct sig *s, size_t n);
/* The next frame of the record, text as the report gives it,
 * used HG_USE_OTHER_OWNER until said otherwise; NULL when out of room. */
hg_explain_frame *sig_explain_frame(struct sig *s, const char *text);
/* What the lines come from, in words (hg_explain.grouped_by); 0 or
 * HG_ENOMEM. */
int sig_explain_grouping(struct sig *s, const char *fmt, ...) HG_PRINTF(2, 3);

/* ---- cluster_method.c, cluster_thread.c ---- */

int sig_method_stack(struct sig *s);
int sig_thread_dump(struct sig *s);
/* Reports with neither a method stack nor threads (startup, FPS figures,
 * an ANR with waiting channels only). */
int sig_no_stack(struct sig *s);

#endif
