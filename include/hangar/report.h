/* The normalized report, and reading reports from the bytes of one input.
 *
 * An input holds one report, several reports as NDJSON (one JSON object per
 * line) or a JSON array of reports.  A report is a JSON object, bare or in
 * Matrix's issue wrapper {"tag","type","content":{...}}.  Its evidence is a
 * raw AppMethodBeat `buffer` (rebuilt as Matrix would) or a structured
 * `stack` of "depth,id,count,cost" lines.  Every other field is kept as
 * metadata, with its exact JSON text. */
#ifndef HANGAR_REPORT_H
#define HANGAR_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "hangar.h"
#include "mapping.h"
#include "stack.h"
#include "threads.h"

enum hg_report_kind {
	HG_KIND_UNKNOWN,
	HG_KIND_SLOW_METHOD,
	HG_KIND_LAG,
	HG_KIND_ANR,
	HG_KIND_SIGNAL_ANR,
	HG_KIND_STARTUP,
	HG_KIND_IDLE_HANDLER_LAG,
	HG_KIND_TOUCH_LAG,
	HG_KIND_PRIORITY_MODIFIED,
	HG_KIND_TIMERSLACK_MODIFIED,
	HG_KIND_FPS,
	HG_KIND_BLOCK,          /* BlockCanary */
	HG_KIND_IOS_HANG,
	HG_KIND_CRASH,          /* a crash report read for its threads */
	HG_KIND_CPU_EXCEPTION,  /* MetricKit: the app used too much CPU for too long */
	HG_KIND_THREAD_DUMP,    /* a stack dump that says no more (taken by hand: no ANR) */
	HG_KIND_ACTIVITY_ENTER, /* Matrix EvilMethod ENTER: an activity slow to enter */
	HG_KIND_NATIVE_CRASH,   /* a native crash tombstone (debuggerd, xCrash) */
};
/* The last kind: arrays indexed by kind have HG_KIND_LAST + 1 slots. */
#define HG_KIND_LAST HG_KIND_NATIVE_CRASH

/* What an input holds, detected from its content (never its name). */
enum hg_input_format {
	HG_FORMAT_AUTO,         /* detect */
	HG_FORMAT_MATRIX,       /* Matrix issues as JSON (and the custom APM JSON) */
	HG_FORMAT_KSCRASH,      /* iOS KSCrash JSON */
	HG_FORMAT_ANR_TRACES,   /* Android ART SIGQUIT dump, traces.txt */
	HG_FORMAT_BLOCKCANARY,  /* BlockCanary log */
	HG_FORMAT_JAVA_STACK,   /* plain Java stack dump (WatchDog, logcat) */
	HG_FORMAT_RAW,          /* bare AppMethodBeat buffer */
	HG_FORMAT_STACK,        /* bare depth,id,count,cost lines, Matrix's printed stack blocks */
	HG_FORMAT_METRICKIT,    /* iOS MetricKit JSON: a diagnostic payload or a call-stack tree */
	HG_FORMAT_WATCHDOG,     /* an ANR-WatchDog-style log: the main thread's frames logged
	                           with Log.d, no "at", with or without logcat prefixes */
	HG_FORMAT_LOGCAT,       /* logcat text with an ActivityManager "ANR in" block */
	HG_FORMAT_TOMBSTONE,    /* a native crash tombstone ("*** *** ***") */
};

/* "matrix", "kscrash", "anr", "blockcanary", "java", "raw", "stack", "metrickit",
 * "watchdog", "logcat", "tombstone" ("auto"). */
const char *hg_input_format_name(enum hg_input_format format);
/* The format named (as above); -1 when unknown. */
int hg_input_format_from_name(const char *name);

/* One figure of an FPS or startup report, e.g. group "dropLevel",
 * name "DROPPED_FROZEN", value "3".  Values are kept as written. */
typedef struct hg_stat {
	const char *group;
	const char *name;
	const char *value;
} hg_stat;

/* One exception of a crash: what was thrown, its message, and the thread
 * whose frames are its stack trace (a cause's frames are a thread flagged
 * HG_THREAD_CAUSE). */
typedef struct hg_exception {
	const char *type;       /* "java.lang.IllegalStateException", "NSRangeException" */
	const char *message;    /* may be NULL */
	long thread;            /* index into threads; -1 when it has no frames */
} hg_exception;

/* One stack sample of a sampled report (BlockCanary's dumps every interval,
 * a WatchDog's repeated logs, a KSCrash profile's stacks, a MetricKit
 * call-stack tree's paths): its frames are the thread `thread` (flagged
 * HG_THREAD_SAMPLE, so that retrace and symbols name them as any thread's),
 * innermost first.  The samples together are one call tree weighted by
 * samples (hg_report_sample_tree). */
typedef struct hg_sample {
	long thread;            /* index into threads */
	int64_t weight;         /* samples it stands for: 1, or a profile's count */
	const char *time;       /* when it was taken, as written; NULL when not said */
	int64_t at;             /* the same in ms (since 1970 UTC, or since the
	                           report's start when only that is known); -1 */
} hg_sample;

/* The crash handler's own crash while it wrote the report (KSCrash's
 * recrash: "Handler crashed while reporting"): why, said as hg_report.reason
 * is, the crash doctor's diagnosis of it, and its crashed thread, whose
 * frames lie in the report's images (hg_report.threads.images). */
typedef struct hg_recrash {
	const char *reason;     /* may be NULL */
	const char *diagnosis;  /* may be NULL */
	bool has_thread;
	hg_thread thread;       /* flagged HG_THREAD_CRASHED (it was writing the report) */
} hg_recrash;

/* The lowercase name users see ("slow_method", "anr", ...). */
const char *hg_report_kind_name(enum hg_report_kind kind);
/* The kind of a Matrix `detail` value (NORMAL, ANR, LAG_TOUCH, ...). */
enum hg_report_kind hg_report_kind_from_detail(const char *detail);

/* A metadata field: key and its JSON text exactly as in the input (numbers
 * keep every digit).  text is the unquoted string for JSON strings, else
 * the same as json. */
typedef struct hg_meta_field {
	const char *key;
	const char *json;
	const char *text;
} hg_meta_field;

typedef struct hg_report {
	hg_arena *arena;        /* owns everything below */

	/* identity */
	const char *source;     /* path, "-" for stdin */
	long line;              /* 1-based line of the report's first byte */
	long number;            /* 1-based report number within the source */
	const char *error;      /* non-NULL: the report could not be read; the
	                           fields below are unset */
	const char *text;       /* with ctx->keep_text: the report's own bytes as
	                           read (a JSON report's value, an array element
	                           without its comma; the bytes of an input that
	                           did not parse; a whole text dump); else NULL */
	size_t text_len;

	/* what */
	enum hg_input_format format;
	enum hg_report_kind kind;
	const char *platform;   /* "android", "ios"; may be NULL */
	const char *app_version;/* may be NULL */
	const char *device;     /* model / machine; may be NULL */
	const char *time;       /* when it happened, in the store's form: UTC ISO
	                           8601 with ms, "2023-04-04T20:06:31.064Z"
	                           (src/lib/report/report_time.h); NULL when the report
	                           gives none or one that cannot be read (then a
	                           warning says why) */
	const char *time_written; /* the same as the report wrote it; may be NULL */
	int foreground;         /* 1, 0, or -1 when unknown */
	const char *anr_type;   /* from an ANR "Subject:": "input dispatching", ... */
	const char *tag;        /* Matrix tag, e.g. "Trace_EvilMethod"; may be NULL */
	const char *detail;     /* Matrix detail; may be NULL */
	const char *scene;      /* may be NULL */
	const char *process;    /* may be NULL */
	int64_t cost;           /* message cost the device measured (0 if absent) */
	bool cost_unknown;      /* nobody measured a cost (set for every reader when cost
	                           <= 0 after reading; an FPS report: frames, not a
	                           duration): cost is 0 but means unknown, and the store's
	                           cost figures leave the report out (never "0 ms") */
	int64_t threshold;      /* ms: the monitor's threshold the cost was over (a
	                           RunLoop's 2 s, BlockCanary's block threshold); 0 unknown */
	const char *os_version; /* "iOS 26.1 (25B78)", Android "29" (its API level), ...;
	                           may be NULL */
	const char *device_class; /* Matrix's `machine`: the class DeviceUtil gives the
	                           device (BEST, HIGH, MIDDLE, LOW, BAD, UN_KNOW); may be NULL */

	/* evidence: a method stack (has_method_stack), thread stacks
	 * (threads.n > 0), or both */
	bool has_method_stack;
	bool from_buffer;       /* rebuilt from a raw buffer (else a structured stack) */
	size_t buffer_words;
	hg_method_stack full;    /* rebuilt stack, or the structured stack as sent */
	hg_method_stack trimmed; /* what Matrix reports (same as full for a structured stack) */
	int64_t stack_cost;      /* max(cost, largest trimmed cost) */
	long key_index;          /* StackKey item within trimmed, -1 when empty */
	const int64_t *item_begin; /* with ctx->want_times, a stack rebuilt from a
	                              buffer: item_begin[i] is when full.items[i]
	                              (first) began, ms after the stack's first
	                              entry; else NULL (a structured stack has
	                              no times) */
	bool has_device_key;
	const char *device_key;  /* the stackKey the device sent, verbatim */
	struct report_rebuild *rebuild; /* with ctx->defer_rebuild: the buffer waiting
	                              for hg_report_rebuild (full, trimmed, stack_cost,
	                              key_index and item_begin are unset until then) */

	hg_threads threads;
	/* a crash's exception chain: exceptions[0] was thrown, each next one
	 * caused the one before ("Caused by:"); the last is the root cause */
	hg_exception *exceptions;
	size_t n_exceptions, cap_exceptions;
	const char *reason;      /* why the app stopped, said plainly: a watchdog
	                            kill, a signal, a mach exception; may be NULL */
	const hg_recrash *recrash; /* the handler crashed while writing the report
	                            (KSCrash); NULL when it did not */
	bool sampled;            /* the threads are a sampled profile (KSCrash profiles,
	                            MetricKit call-stack trees): each frame's repeat is the
	                            samples that held it there, and flame graphs weigh by it */

	/* stack samples (sampled reports): the call tree that every sample is
	 * in, weighted by samples; none when n_samples is 0 */
	hg_sample *samples;
	size_t n_samples, cap_samples;
	int64_t sample_interval; /* ms between samples as the monitor took them; 0 */

	/* FPS and startup figures */
	hg_stat *stats;
	size_t n_stats, cap_stats;

	/* symbolication: symbols[i] names full.items[i], NULL when unknown */
	const char **symbols;
	size_t missing_ids;      /* distinct ids absent from the mapping */

	hg_meta_field *meta;
	size_t meta_len, cap_meta;
	hg_strlist warnings;
} hg_report;

/* Who and where a report comes from, as the cluster page groups reports
 * (report_who.c): one OS label whatever the format wrote (Android's API
 * level "29" and a fingerprint's release "10" are both "Android 10 (API
 * 29)"; "iPhone OS 14.5 (18E182)" is "iOS 14.5"), the device model (a
 * build fingerprint's brand and device, "google redfin"; else the
 * report's device as written), Matrix's device class as written.  NULL
 * where the report does not say. */
typedef struct hg_report_who {
	const char *os;
	const char *model;
	const char *device_class;
} hg_report_who;
/* Strings borrowed from rep or made in arena.  0 or HG_ENOMEM. */
int hg_report_who_of(const hg_report *rep, hg_arena *arena, hg_report_who *out);

/* Options for reading a bare binary buffer (hangar stack --raw). */
typedef struct hg_raw_opts {
	bool strict;
	bool has_end_time;
	int64_t end_time;
	int64_t cost;
} hg_raw_opts;

/* Receives each report in input order and takes ownership of it (free with
 * hg_report_destroy).  Returning non-zero stops reading. */
typedef int (*hg_report_sink)(void *user, hg_report *report);

/* Reads every report in data[0..len) (NUL-terminated at data[len]).  A report
 * that cannot be read is still passed to the sink with `error` set, and the
 * error also goes to ctx's diagnostics.  Returns the number of failed reports
 * (>= 0), or HG_ENOMEM, or the sink's non-zero value when it stopped. */
int hg_reports_read(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		    hg_report_sink sink, void *user);

/* Same, reading the input as `format` (HG_FORMAT_AUTO: detect it). */
int hg_reports_read_as(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		       enum hg_input_format format, hg_report_sink sink, void *user);

/* The first report of data that reads without error (a stored report's
 * text read again): *out (caller owns it) or NULL when none does; the
 * others are freed.  0 or HG_ENOMEM. */
int hg_report_read_one(const hg_ctx *ctx, const char *source, const char *data, size_t len,
		       enum hg_input_format format, hg_report **out);

/* Reads every report of the file at path ("-": stdin), named source in
 * reports and diagnostics (NULL: path; e.g. the URL it was fetched from), as
 * hg_reports_read_as does, but a stream of JSON values (NDJSON, `jq .`
 * output, arrays) a few MiB at a time: memory is bounded by the largest
 * report (under ctx->limits.max_input_bytes), not by the file.  Other
 * inputs are read whole under the same cap.  A file that cannot be opened
 * or read, or a value over the cap, is a diagnostic naming path and
 * HG_EIO / HG_ELIMIT (reports before it were handed on). */
int hg_reports_read_path(const hg_ctx *ctx, const char *path, const char *source,
			 enum hg_input_format format, hg_report_sink sink, void *user);

/* Appends a metadata field unless one named key exists: json is its exact
 * JSON text, text its plain form (NULL: json).  Strings are copied into the
 * report's arena.  0 or HG_ENOMEM. */
int hg_report_add_meta(hg_report *report, const char *key, const char *json, const char *text);

/* Appends a figure (strings copied into the report's arena); 0 or HG_ENOMEM. */
int hg_report_add_stat(hg_report *report, const char *group, const char *name, const char *value);

/* Appends a sample (time borrowed: the report's arena, or NULL) whose
 * frames are thread `thread`, and flags that thread HG_THREAD_SAMPLE;
 * 0, HG_EINVAL (no such thread) or HG_ENOMEM. */
int hg_report_add_sample(hg_report *report, long thread, int64_t weight, const char *time,
			 int64_t at);

/* Appends an exception to the chain (strings borrowed: the report's arena);
 * 0 or HG_ENOMEM. */
int hg_report_add_exception(hg_report *report, const char *type, const char *message,
			    long thread);

/* Same for a bare binary buffer of big-endian int64 words: one report. */
int hg_reports_read_raw(const hg_ctx *ctx, const char *source, const unsigned char *data,
			size_t len, const hg_raw_opts *opts, hg_report_sink sink, void *user);

/* Frees a report and its arena.  Accepts NULL. */
void hg_report_destroy(hg_report *report);

/* Fills report->symbols from mapping (borrowed; may be NULL: then nothing is
 * resolved) and warns once: that the mapping looks like another app's
 * (hg_report_mapping_fit), else with the count of ids the mapping lacks. */
/* Rebuilds the stack of a report read with ctx->defer_rebuild, as the
 * reader would have (its warnings where the reader would have put them);
 * nothing for any other.  0 or HG_ENOMEM. */
int hg_report_rebuild(hg_report *report);
int hg_report_symbolicate(hg_report *report, const hg_mapping *mapping);
/* The name of a method stack's item: its mapping's (hg_report_symbolicate),
 * else Matrix's own name for the ids it fixes (Handler.dispatchMessage,
 * HG_BEAT_DISPATCH_ID), else NULL ("#<id>" in every output). */
const char *hg_report_item_symbol(const hg_report *rep, const hg_method_item *item);

/* Whether the methodMapping that named a report is the app's own.  The
 * app's package is the first two words of the report's process
 * ("com.example" of "com.example.reader"), else of its scene when that is
 * a class.  The mapping looks like another app's (foreign) when none of
 * the report's ids is named into that package and the mapping has no
 * class in it, or most of the report's ids are missing (more than half of
 * at least 5 distinct ids) and none is named into the package (or the
 * report names no package).  Strings live in the report's arena. */
typedef struct hg_mapping_fit {
	size_t ids;           /* distinct method ids of the report, but Matrix's fixed
	                         dispatchMessage id (every mapping has it): none, nothing
	                         is foreign */
	size_t missing;       /* of them, not in the mapping */
	const char *package;  /* "com.example", or NULL when the report names none */
	const char *app;      /* what the package was read from ("com.example.reader") */
	bool in_package;      /* an id of the report is named into the package */
	bool package_known;   /* the mapping has classes in the package (looked up only
	                         when no id is named into it) */
	bool foreign;         /* the mapping looks like another app's */
} hg_mapping_fit;

/* Fills *fit for report, named with mapping by hg_report_symbolicate
 * (both borrowed; reads the mapping's file once per package: not from two
 * threads at once).  Nothing is foreign without symbols.  0 or HG_ENOMEM. */
int hg_report_mapping_fit(const hg_report *report, const hg_mapping *mapping,
			  hg_mapping_fit *fit);

/* The warning that says fit is foreign, naming the mapping's file and the
 * report's app ("methodMapping m.txt looks like another app's: 40 of the 42
 * method ids of com.example.reader are not in it (shown as #<id>)"); NULL
 * when fit is not foreign, or on ENOMEM.  Owned by arena. */
const char *hg_mapping_fit_warning(const hg_mapping_fit *fit, const hg_mapping *mapping,
				   hg_arena *arena);

/* The StackKey item's id as Matrix prints it ("<id>|"), or "" (arena). */
const char *hg_report_stack_key_text(const hg_report *report);

#endif
