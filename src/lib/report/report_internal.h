/* Shared between the report readers (private to the library). */
#ifndef HANGAR_LIB_REPORT_INTERNAL_H
#define HANGAR_LIB_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/demangle.h"
#include "hangar/report.h"
#include "json/json.h"
#include "threads/threads_internal.h"

#define NO_OFFSET ((size_t)-1)

/* One part of a stream of JSON values being read a piece at a time
 * (report_stream.c).  In: where the part starts (1-based line and column
 * of its first byte), the reports read before it, whether more text
 * follows it.  Out: how many bytes were read (the rest, a value cut at the
 * part's end, is to be read again with what follows), reports so far,
 * failed reports so far. */
/* A top-level array is read element by element, each a value of its own,
 * so that an array of a million reports needs the memory of one, and a
 * broken element spoils only itself (report_read.c).  Whether one is open,
 * what may come next in it (report_read.c's enum array_next), how many
 * elements it has had, where it opened. */
struct report_array {
	bool open;
	int next;
	long elements, line, col;
};

struct report_part {
	long line, col; /* in: of the part's first byte; out: of the byte at `consumed` */
	long reports;
	bool more;
	size_t consumed;
	long failed;
	/* In and out: the part starts on the line of a value that ended just
	 * before it (an array or not), so text there is "after the report". */
	bool after_value, after_array;
	/* In and out: a top-level array open at the part's start. */
	struct report_array array;
};

/* Reads the values of one part (see struct report_part) as
 * hg_reports_read_as reads a whole JSON input; 0, HG_ENOMEM or the sink's
 * non-zero value. */
int report_read_json_part(const hg_ctx *ctx, const char *source, const char *data, size_t len,
			  enum hg_input_format format, struct report_part *part, hg_report_sink sink,
			  void *user);

/* The value at the part's start fills the whole --max-input: it fails as
 * one report (numbered, at part->line), and the caller skips to the next
 * line that starts with '{' or '['.  0, HG_ENOMEM or the sink's value. */
int report_part_oversized(const hg_ctx *ctx, const char *source, struct report_part *part,
			  hg_report_sink sink, void *user);

/* Why a report could not be read, and where (an offset into the text the
 * document was parsed from, or NO_OFFSET). */
struct read_error {
	char msg[512];
	size_t offset;
};

/* A new empty report with its own arena; NULL on ENOMEM. */
hg_report *report_new(const char *source, long line, long number);
/* The same for a report read from bytes bytes: its arena starts small. */
hg_report *report_new_sized(const char *source, long line, long number, size_t bytes);

/* Fills rep from one report object of doc, read as `format` (AUTO: by its
 * shape: KSCrash, MetricKit, else Matrix).  Returns 0, HG_EPARSE/HG_ELIMIT
 * with *err filled, or HG_ENOMEM. */
int report_from_json(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
		     enum hg_input_format format, hg_report *rep, struct read_error *err);

/* Field helpers for JSON reports (report_json_fields.c). */
int report_fail(struct read_error *err, size_t offset, const char *fmt, ...) HG_PRINTF(3, 4);
/* A short quotation of a JSON value for error messages. */
void report_quote(const hg_json_doc *doc, const hg_json *v, char *out, size_t size);
/* Looks key up in content first, then in the wrapper. */
const hg_json *report_field(const hg_json *content, const hg_json *wrapper, const char *key);
/* An exact integer field, or HG_EPARSE naming key. */
int report_int_field(const hg_json_doc *doc, const hg_json *v, const char *key, int64_t *out,
		     struct read_error *err);
/* Keeps v as metadata `key` (exact JSON text; strings also unquoted). */
int report_add_json_meta(hg_report *rep, const hg_json_doc *doc, const char *key, const hg_json *v);

/* A string field copied into the report's arena, or NULL. */
const char *report_string_field(hg_report *rep, const hg_json *content, const hg_json *wrapper,
				const char *key);

/* Typed fields (report_json_fields.c).  A field is named by `where` (its
 * parent's path, "" at the top) and `key` ("" for an element named by
 * where alone).  Absent or null, it is empty: the getter returns 0 with
 * *out NULL, false or 0.  Of another type, the getter returns HG_EPARSE
 * with err filled: `field "<where>.<key>": expected <what>, got <value>`,
 * at the value's offset when it is a number.  Strings and objects are
 * borrowed from the document. */
struct json_fields {
	const hg_json_doc *doc;
	struct read_error *err;
};

/* HG_EPARSE: v, the field where.key, is not <what> ("an object", ...). */
int report_bad_field(const struct json_fields *jf, const char *where, const char *key,
		     const hg_json *v, const char *what);
/* The member key of obj when present and not null, else NULL. */
const hg_json *report_member(const hg_json *obj, const char *key);
int report_get_object(const struct json_fields *jf, const hg_json *obj, const char *where,
		      const char *key, const hg_json **out);
int report_get_array(const struct json_fields *jf, const hg_json *obj, const char *where,
		     const char *key, const hg_json **out);
int report_get_string(const struct json_fields *jf, const hg_json *obj, const char *where,
		      const char *key, const char **out);
int report_get_bool(const struct json_fields *jf, const hg_json *obj, const char *where,
		    const char *key, bool *out);
/* 0 ... 2^64-1 from the number's digits (never through a double); a
 * negative one, -2^63 ... -1, as its two's complement.  *has: present. */
int report_get_u64(const struct json_fields *jf, const hg_json *obj, const char *where,
		   const char *key, uint64_t *out, bool *has);
/* A count or an index: an integer >= 0 that fits a long; *out is left
 * alone when absent.  *has: present. */
int report_get_count(const struct json_fields *jf, const hg_json *obj, const char *where,
		     const char *key, long *out, bool *has);

/* The other Matrix tracers (report_tracers.c) and the custom APM format
 * (report_apm.c). */
int report_common_fields(const hg_json_doc *doc, const hg_json *content, const hg_json *wrapper,
			 hg_report *rep, struct read_error *err);
bool report_is_fps(const hg_report *rep, const hg_json *content);
int report_fps(const hg_json_doc *doc, const hg_json *content, hg_report *rep,
	       struct read_error *err);
bool report_is_startup(const hg_report *rep, const hg_json *content);
int report_startup(const hg_json_doc *doc, const hg_json *content, hg_report *rep,
		   struct read_error *err);
bool report_is_apm(const hg_json *content);
int report_from_apm(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *content,
		    hg_report *rep, struct read_error *err);

/* Puts rep->time, as a reader left it (as written), into the store's form
 * (report_time.h), keeping the written text in rep->time_written; a time
 * that cannot be read becomes NULL with a warning that quotes it and says
 * why.  A reader that converts a time itself (BlockCanary's year-less
 * times) sets time_written too, and is left alone.  0 or HG_ENOMEM. */
int report_settle_time(hg_report *rep);

/* Gives the native frames of rep's threads their readable names: a frame
 * whose name (method, else symbol) is mangled C++ or Swift gets the
 * demangled name in method and the mangled one in mangled; symbol stays as
 * written.  *names is the memo of the reading at hand, created on first
 * use (the caller destroys it).  0 or HG_ENOMEM. */
int report_demangle_frames(hg_report *rep, hg_demangler **names);

/* Rebuilds, trims and keys a raw buffer into rep (Matrix's AnalyseTask);
 * with want_times also rep->item_begin. */
int report_analyse_buffer(hg_report *rep, const int64_t *words, size_t n, bool strict,
			  bool has_end_time, int64_t end_time, bool want_times);

/* The same, later (hg_report_rebuild): the words copied into rep and
 * what the rebuild needs kept.  0 or HG_ENOMEM. */
int report_defer_rebuild(hg_report *rep, const int64_t *words, size_t n, bool strict,
			 bool has_end_time, int64_t end_time, bool want_times);

/* Keys a structured stack already in rep->full. */
void report_analyse_structured(hg_report *rep);

/* The text formats: each fills rep from a whole input text[0..len).
 * Return 0, HG_EPARSE with *err filled (err->offset into text), or
 * HG_ENOMEM.  One file each: report_anr.c, report_blockcanary.c,
 * report_javastack.c. */
int report_from_anr_traces(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			   struct read_error *err);
int report_from_blockcanary(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			    struct read_error *err);
int report_from_java_stack(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			   struct read_error *err);

/* The frames a reader copies before it shares their strings through a
 * strcache (a small report does without its table). */
#define REPORT_CACHE_AFTER 512

/* Matrix's `threadStack` text (one frame per line) as the frames of a new
 * thread named `name` in rep->threads; 0, HG_EPARSE or HG_ENOMEM. */
int report_thread_from_frames(hg_report *rep, const char *name, const char *text, size_t len,
			      struct read_error *err);

/* An iOS KSCrash report object (report_kscrash.c). */
int report_from_kscrash(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
			hg_report *rep, struct read_error *err);

/* Whether obj looks like a KSCrash report ("crash" with "threads" or
 * "error", and "report" or "binary_images"). */
bool report_is_kscrash(const hg_json *obj);

/* iOS MetricKit JSON: a diagnostic payload, one diagnostic or a bare
 * call-stack tree (report_metrickit.c); same contract as above. */
int report_from_metrickit(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
			  hg_report *rep, struct read_error *err);

/* Whether obj looks like MetricKit JSON: "callStacks" with
 * "callStackPerThread", a "callStackTree", or a payload's diagnostics
 * arrays ("hangDiagnostics", ...). */
bool report_is_metrickit(const hg_json *obj);

/* A text format (report_formats.c: the table of them).  detect looks at
 * head (the input's first 64 KiB) or, when it must, at all of it; split
 * (NULL: the whole input is one report) gives the end of the report that
 * starts at text[from], so that an input of several reports (a traces file
 * of several processes) is read as several; read fills rep from one
 * report's text (the contract of report_from_anr_traces above).  A row
 * without read (bare stacks) is read its own way. */
struct report_text_format {
	enum hg_input_format format;
	bool (*detect)(const char *head, size_t head_len, const char *all, size_t all_len);
	size_t (*split)(const char *text, size_t len, size_t from);
	int (*read)(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
		    struct read_error *err);
};

/* The row of format, or NULL when it is no text format. */
const struct report_text_format *report_text_format(enum hg_input_format format);
/* The text format of an input that is not JSON, from its content: the
 * first row that detects it; HG_FORMAT_AUTO when none does. */
enum hg_input_format report_detect_text(const char *text, size_t len);

/* Markers (report_detect.c): whether some line of text[0..len) starts
 * (after blanks) with prefix; whether text holds needle; and the tests of
 * the formats that use only markers. */
bool report_has_line_starting(const char *text, size_t len, const char *prefix);
bool report_contains(const char *text, size_t len, const char *needle);
bool report_detect_anr_traces(const char *head, size_t len);
bool report_detect_blockcanary(const char *head, size_t len);
bool report_detect_java_stack(const char *head, size_t len);

#endif
