/* Stack signatures inside libhangar: the grouping rules as read from a
 * rules file (cluster_rules.c), and the state one signature is built in,
 * shared by cluster.c (the whole), cluster_frames.c (normalized names and
 * whose a frame is), cluster_method.c (method stacks) and
 * cluster_thread.c (thread dumps). */
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

struct hg_rules {
	hg_regex **app;         /* malloc'ed, each owned */
	size_t n_app, cap_app;
	hg_regex **ignore;
	size_t n_ignore, cap_ignore;
	int key_ancestors;
	int thread_frames;
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
/* Whose the Java frame "cls.method" (match: that text) is. */
enum frame_owner frame_owner_java(const struct sig *s, const hg_frame *f, const char *match);
/* Whose a methodMapping symbol is (method stacks). */
enum frame_owner frame_owner_symbol(const struct sig *s, const char *sym);
enum frame_owner frame_owner_native(const struct sig *s, const hg_frame *f);
/* 1 when a rules "ignore" pattern drops the frame, 0 when not, < 0 an error. */
int sig_ignored(const struct sig *s, const char *match, size_t len);
/* Appends a line to the signature; HG_ENOMEM when line is NULL or no room. */
int sig_add(struct sig *s, const char *line);

/* ---- cluster_method.c, cluster_thread.c ---- */

int sig_method_stack(struct sig *s);
int sig_thread_dump(struct sig *s);
/* Reports with neither a method stack nor threads (startup, FPS figures,
 * an ANR with waiting channels only). */
int sig_no_stack(struct sig *s);

#endif
