/* Android ANRs, shared between their readers (private to the library):
 * report_anr.c (ART's SIGQUIT dumps: traces files, AppExitInfo, xCrash),
 * report_anr_thread.c (the threads of one process), report_anr_subject.c
 * (what an ANR's annotation says, and what the main thread did during the
 * wait), report_logcat.c and report_logcat_lines.c (ActivityManager's
 * "ANR in" blocks and am_anr events in logcat). */
#ifndef HANGAR_LIB_REPORT_ANR_H
#define HANGAR_LIB_REPORT_ANR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_internal.h"

/* ---- the rows of report_formats.c ---- */

/* ANR traces: one report per process ("----- pid N at ..." up to the next
 * process's section; a process's Waiting Channels stay with it). */
int report_from_anr_traces(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			   struct read_error *err);
size_t report_anr_split(const char *text, size_t len, size_t from);

/* Logcat with ActivityManager's "ANR in" block or an am_anr event: one
 * report per ANR (report_logcat.c; detection and cutting in
 * report_logcat_lines.c). */
bool report_detect_logcat(const char *head, size_t len, const char *all, size_t all_len);
size_t report_logcat_split(const char *text, size_t len, size_t from);
int report_from_logcat(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
		       struct read_error *err);

/* ---- the main thread's CPU figures ---- */

/* What a thread's "| state=S schedstat=( 324804784 183300334 997 ) utm=23
 * stm=8 core=3 HZ=100" line says: the kernel's state letter, the time it
 * ran and waited for a CPU (ns, from /proc/.../schedstat) and its user and
 * system clock ticks (from /proc/.../stat).  All count from the thread's
 * start, not from the ANR. */
struct anr_cpu {
	char state;             /* 'R', 'S', 'D', ...; 0 when not said */
	bool has_sched, has_ticks;
	int64_t run_ns, wait_ns;
	long utm, stm, hz;      /* hz: 100 when not said */
	long bad_line;          /* the input line of a figure that is no number or out of
	                           range (0: none), and its text */
	char bad_text[24];
};

/* ---- reading a dump ---- */

/* How report_anr_read reads text.  Lines: line k of text (1-based) is
 * line_map[k - 1] of the input when line_map is set (a dump picked out
 * of a logcat), else line_base + k - 1. */
struct anr_read_opts {
	const long *line_map;
	size_t n_map;
	long line_base;
	long prefer_pid;        /* read this process's section when there is one; -1 */
	bool keep_kind;         /* the caller (logcat) says what the report is: leave kind,
	                           anr_type, scene, cost and the busy/blocked finding to it */
	struct anr_cpu main_cpu;/* out: the blamed thread's figures */
	bool has_main_cpu;      /* out */
	long dump_pid;          /* out: the pid of the section read; -1 */
};

/* Reads a dump (the contract of report_from_anr_traces) as opts says. */
int report_anr_read(const hg_ctx *ctx, const char *text, size_t len, struct anr_read_opts *opts,
		    hg_report *rep, struct read_error *err);

/* The number of input line k of a text read with opts (see above). */
long anr_input_line(const struct anr_read_opts *opts, long k);

/* report_anr_thread.c: a thread header's kind (0 none, 1 a thread, 2 the
 * main thread), and the threads of text[start..end) into rep->threads
 * (line_no: the text line at start); cpu[i] gets thread i's figures (an
 * arena array of rep->threads.n, or NULL with no thread).  0 or HG_ENOMEM. */
int anr_header_kind(const char *s, size_t len);
int anr_read_threads(hg_report *rep, const char *text, size_t start, size_t end, long line_no,
		     const struct anr_read_opts *opts, struct anr_cpu **cpu);

/* ---- what an ANR's annotation says (report_anr_subject.c) ---- */

/* The annotation system_server wrote for an ANR: a traces file's
 * "Subject:", logcat's "Reason:", the last field of am_anr. */
struct anr_subject {
	bool is_anr;            /* an ANR's (not a Watchdog's "Blocked in ...") */
	const char *type;       /* static: "input dispatching", "broadcast", ...; NULL */
	const char *scene;      /* arena: the component it names, "com.example.app.MainActivity";
	                           NULL */
	int64_t wait_ms;        /* what it says was waited ("Waited 5001ms", "Wait queue head
	                           age: 5591.1ms"); -1 when it does not say */
};

/* Reads s[0..len), written at input line `line`; a wait it writes but that
 * cannot be read (too large, negative), or an input-dispatching annotation
 * that says no wait, is a warning naming the line.  0 or HG_ENOMEM. */
int anr_subject_read(hg_report *rep, const char *s, size_t len, long line,
		     struct anr_subject *out);

/* The component s names, as a class: "com.app/.ui.Main" ->
 * "com.app.ui.Main", "com.app/com.app.Main" -> "com.app.Main"; the first
 * such word of s (in an arena copy), or NULL. */
const char *anr_component_class(hg_arena *arena, const char *s, size_t len);

/* Warns what the main thread's CPU figures say of the wait (busy on the
 * CPU, or waiting), when they say it clearly (see the rule there).  0 or
 * HG_ENOMEM. */
int anr_busy_or_blocked(hg_report *rep, const struct anr_cpu *cpu, const char *java_state,
			int64_t wait_ms);

#endif
