/* What the tombstone reader shares (private): report_tombstone.c (the
 * reader loop, its sections and the report's fields),
 * report_tombstone_frames.c (thread headers, native and Java frames, Build
 * IDs) and report_tombstone_crash.c (the signal, cause and abort message,
 * registers, memory map and open files). */
#ifndef HANGAR_LIB_REPORT_TOMBSTONE_INTERNAL_H
#define HANGAR_LIB_REPORT_TOMBSTONE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "report_internal.h"
#include "report_lines.h"
#include "report_native_image.h" /* native_build_id */
#include "report_tombstone.h"
#include "core/core.h"

#define TOMB_HANDLED 1        /* a line handler took the line */
#define TOMB_MAX_REGISTERS 8  /* registers kept as figures (a hostile tombstone repeats them) */
#define TOMB_MAX_ABORT 4096   /* bytes of an abort message kept */

/* Where in a tombstone the line at hand is. */
enum tomb_section {
	SEC_HEADER,     /* before the first thread: build, ABI, time, xCrash's keys */
	SEC_THREAD,     /* a thread's header: uid, signal, cause, abort message, registers */
	SEC_ABORT,      /* inside an abort message written over several lines */
	SEC_BACKTRACE,  /* "#00 pc ..." frames */
	SEC_JAVA,       /* xCrash's "java stacktrace:" */
	SEC_MAPS,       /* "memory map (N entries):" */
	SEC_FILES,      /* "open files:" */
	SEC_BUILD_IDS,  /* xCrash's "build id:" */
	SEC_BETWEEN,    /* after "--- --- ---", before the next thread's header */
	SEC_SKIP,       /* stack words, memory dumps, logs, memory info: passed over */
};

/* Lines of one kind that could not be read: the first of them, and how
 * many.  Each kind ends as one warning naming its first line. */
enum tomb_odd {
	ODD_LINE,       /* in a thread's header, none of its lines */
	ODD_REGISTER,   /* a register line with something that is no register value */
	ODD_FRAME,      /* in a backtrace, no frame */
	ODD_PC,         /* a pc of more than 64 bits */
	ODD_BUILD_ID,   /* a Build ID that is not whole bytes of hex */
	ODD_JAVA,       /* in a Java stack trace, no frame */
	ODD_DROPPED,    /* frames past --max-stack-lines */
	ODD_COUNT,
};

struct tomb_odd_rec {
	long line;
	size_t count;
	char text[72];
};

/* One tombstone being read. */
struct tomb {
	const hg_ctx *ctx;
	hg_report *rep;
	enum tomb_section sec;
	long line_no;              /* of the line at hand */
	const char *rest;          /* the text after it */
	size_t rest_len;
	long cur;                  /* the thread receiving frames; -1 */
	long crashed;              /* the crashing thread (the first one); -1 */
	long pid;                  /* the process's; -1 */
	bool xcrash;               /* xCrash's banner keys were seen */
	bool tail;                 /* past xCrash's "+++ +++ +++": its Java stack is the crash's */
	bool last_was_frame;       /* the last line read was a frame */
	const char *app_id, *proc, *cmdline, *api_level, *crash_time, *start_time, *timestamp;
	const char *abi, *revision, *uptime, *uid; /* kept as metadata, after the crash's */
	/* the crash, from the crashing thread's header */
	const char *signal_text;   /* the signal line as written, when it reads as no signal line */
	long signo, code;
	const char *sig_name, *code_name, *fault_addr;
	bool has_signal, has_fault;
	uint64_t fault;
	const char *cause;
	hg_buf abort;              /* the abort message (SEC_ABORT collects its lines) */
	bool has_abort, abort_cut;
	size_t n_registers;
	/* frames */
	size_t frames;             /* read, in all threads */
	long java_thread;          /* the thread xCrash's Java stack went to; -1 */
	size_t java_at;            /* ... the index of its first Java frame */
	long announced, announced_thread, announced_line; /* "N total frames" of a thread; -1 */
	long short_threads;        /* threads with fewer frames than they announced */
	long short_line, short_want, short_got; /* the first of them */
	const char *short_name;
	long abort_lines;          /* lines of the abort message so far */
	long abort_unclosed;       /* the line the tombstone went on without closing it; 0 */
	struct strcache names;     /* the frames' strings, past REPORT_CACHE_AFTER frames */
	strmap image_refs;         /* "path\nBuild ID" -> the image_ref of that image */
	strmap build_ids;          /* xCrash's "build id:" list: path -> 1 + index in ids */
	const char **ids;
	size_t n_ids, cap_ids;
	/* the memory map and open files */
	long maps, maps_announced; /* entries read; "memory map (N entries)"; -1 */
	bool maps_inclusive;       /* debuggerd writes a map's last byte, xCrash its end */
	bool fault_marked;         /* debuggerd marked the fault's map ("--->") */
	const char *fault_map;     /* the mapping the fault address lies in, or where it falls */
	long files, files_said;    /* open files read; xCrash's "(number of FDs: N)"; -1 */
	struct tomb_odd_rec odd[ODD_COUNT];
};

/* ---- words ---- */

static inline bool tb_starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static inline bool tb_ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static inline const char *tb_find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/* A decimal number of at most 9 digits at s[0..n), optionally negative;
 * *used gets the bytes read.  False when there is none. */
static inline bool tb_decimal(const char *s, size_t n, long *out, size_t *used)
{
	size_t i = n > 0 && s[0] == '-';
	long v = 0;
	size_t start = i;
	for (; i < n && is_digit(s[i]); i++) {
		if (i - start == 9)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (i == start)
		return false;
	*out = start ? -v : v;
	if (used)
		*used = i;
	return true;
}

/* ---- lines that could not be read (report_tombstone.c) ---- */

/* Counts ln as one of kind k (the first is kept for the warning). */
void tomb_odd(struct tomb *t, enum tomb_odd k, const struct line *ln);

/* The arena copy of s[0..n) (through the frame cache once the report is
 * big); NULL on ENOMEM. */
const char *tomb_dup(struct tomb *t, const char *s, size_t n);

/* ---- threads and frames (report_tombstone_frames.c) ---- */

/* "pid: 1, tid: 2, name: main  >>> com.example <<<": a new thread, the
 * first one the crashing thread.  TOMB_HANDLED, 0 when ln is no such line,
 * or HG_ENOMEM. */
int tomb_thread_header(struct tomb *t, const struct line *ln);

/* A thread that is no thread of the process: "deallocated by thread 5:",
 * "Guest thread information for tid: 7" (name as given).  0 or HG_ENOMEM. */
int tomb_aux_thread(struct tomb *t, const char *name, size_t n);

/* "#00 pc 000000000000b884  /path/libfoo.so (func+24) (BuildId: ...)" into
 * the current thread.  0 or HG_ENOMEM (a line that is no frame is counted). */
int tomb_native_frame(struct tomb *t, const struct line *ln);

/* "at a.b.C.m(C.java:12)" of xCrash's Java stack into the current thread. */
int tomb_java_frame(struct tomb *t, const struct line *ln);

/* "/path/libfoo.so (BuildId: 4133c0.... FileSize: ...)" of xCrash's
 * "build id:" list.  0 or HG_ENOMEM. */
int tomb_build_id_line(struct tomb *t, const struct line *ln);

/* Moves the Java frames of xCrash's "java stacktrace:", read after the
 * thread's native frames, to where the native stack enters the runtime:
 * after the JNI trampoline the innermost Java frame called (else before
 * the first libart.so frame, else they stay last).  Native frames inside
 * keep their order, and so do the Java frames. */
void tomb_place_java(struct tomb *t);

/* Gives the images frames named without a Build ID the one the "build id:"
 * list has for their path.  0 or HG_ENOMEM. */
int tomb_fill_build_ids(struct tomb *t);

/* ---- the crash (report_tombstone_crash.c) ---- */

/* A line of the crashing thread's header: the signal, "Cause:", "Abort
 * message:" (which may go on over several lines: SEC_ABORT), or
 * registers.  TOMB_HANDLED, 0 when it is none, or HG_ENOMEM. */
int tomb_crash_line(struct tomb *t, const struct line *ln);

/* A line inside a multi-line abort message.  0 or HG_ENOMEM. */
int tomb_abort_line(struct tomb *t, const struct line *ln);

/* A register line ("x0  0000000000000003  x1  ..."): the crashing
 * thread's registers become figures.  TOMB_HANDLED, 0 when the line does
 * not start like one, or HG_ENOMEM. */
int tomb_registers(struct tomb *t, const struct line *ln, bool keep);

/* Whether ln is a register line and nothing else (where an abort message
 * that never closed its quote must have ended). */
bool tomb_is_register_line(const struct line *ln);

/* A line of the memory map, of the open files.  0 or HG_ENOMEM. */
int tomb_map_line(struct tomb *t, const struct line *ln);
void tomb_file_line(struct tomb *t, const struct line *ln);

/* rep->reason said plainly, and the crash's metadata.  0 or HG_ENOMEM. */
int tomb_crash_fields(struct tomb *t);

#endif
