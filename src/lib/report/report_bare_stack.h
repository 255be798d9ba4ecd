/* Bare structured stacks and Matrix's printed stack blocks (private to the
 * report module): how report_bare_stack.c and report_bare_lines.c share a
 * line's meaning, and how report_read.c hands the blocks on. */
#ifndef HANGAR_LIB_REPORT_BARE_STACK_H
#define HANGAR_LIB_REPORT_BARE_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_internal.h"

/* What one line of the input says (report_bare_lines.c). */
enum bare_line {
	BL_OTHER,      /* none of the below: no part of a stack */
	BL_BLANK,
	BL_HEADER,     /* ">>>... maybe happens Jankiness!(856ms) <<<" (printEvil, printAnr) */
	BL_OLD_HEADER, /* Matrix 0.5's "[analyse result] " */
	BL_FOOTER,     /* "=====...": the end of a printed block */
	BL_KEY,        /* "StackKey: 96|", bare or as "|*\t\tStackKey: 96|" */
	BL_OLD_KEY,    /* Matrix 0.5's "[analyse key] 101" */
	BL_TRACE,      /* "|*\t\tTraceStack:" or "|*\t\t[id count cost]": items follow */
	BL_SCENE,      /* "|*\t\tScene: X" (val: X) */
	BL_FOREGROUND, /* "|*\t\tForeground: true" */
	BL_FIELD,      /* another "|*" line ("|* [Status]", "|*\t\tPriority: ...") */
	BL_ITEM,       /* an item: MethodItem.toString()'s "depth,id,count,cost", or
			  print()'s depth dots and "id count cost" (maybe behind "|*") */
	BL_NUMBER,     /* digits alone: a continued Matrix 0.5 key */
	BL_FRAME,      /* "at a.B:c(12)", bare or behind "|*": the ANR block's thread */
};

/* One line: where it is, its message (after any logcat prefix, blanks
 * trimmed), and what it says. */
struct bare_msg {
	const char *raw;    /* the line's first byte */
	size_t raw_len;     /* without its line break */
	long no;            /* 1-based */
	const char *s;      /* the message */
	size_t len;
	const char *prefix; /* the logcat prefix ("11-29 10:32:13.403  1234 ..."), or NULL */
	size_t prefix_len;
	size_t stamp_len;   /* of the time that starts the prefix ("11-29 10:32:13"), or 0 */
	enum bare_line kind;
	const char *val;    /* BL_KEY, BL_OLD_KEY, BL_SCENE, BL_FOREGROUND: the value;
			       BL_ITEM, BL_FRAME: the item or frame text */
	size_t val_len;
	/* BL_HEADER: the tracer's kind and the cost it printed */
	enum hg_report_kind header_kind;
	bool header_cost;
	int64_t cost;
};

/* Reads the line at *pos of text[0..len) into *m (m->no counts up from its
 * value) and moves *pos past it; false at the end.  in_trace: items are
 * expected (a printed block's trace), so that "|*" lines starting with a
 * digit or a dot are items, not figures. */
bool bare_next_line(const char *text, size_t len, size_t *pos, bool in_trace,
		    struct bare_msg *m);

/* Parses an item line (BL_ITEM, m->val) into *it; on error
 * returns HG_EPARSE with *why and *col (1-based, in the raw line) set.
 * Fields are Java ints, as Matrix prints them: a value beyond int32 is an
 * error, as in hg_stack_parse. */
int bare_parse_item(const struct bare_msg *m, hg_method_item *it, const char **why, long *col);

/* Whether text[0..len) is, beyond doubt, bare stack lines or Matrix's
 * printed blocks (report_detect.c asks; report_bare_lines.c answers). */
bool bare_stack_detect(const char *text, size_t len);

/* One block read: a report (rep non-NULL, the caller takes it) or a failed
 * one (rep NULL; msg and where it went wrong).  start/end: the block's
 * bytes in the input, number: its 1-based report number, line: its first
 * line. */
struct bare_out {
	hg_report *rep;
	size_t start, end;
	long number, line;
	long err_line, err_col;
	const char *msg;
};

/* Hands a block on; non-zero stops the reading (and is returned). */
typedef int (*bare_emit_fn)(void *user, const struct bare_out *out);

/* Reads every block of text[0..len) in input order (report_bare_stack.c);
 * a text with none is one failed block.  0, HG_ENOMEM or emit's value. */
int report_read_bare_stacks(const hg_ctx *ctx, const char *source, const char *text, size_t len,
			    bare_emit_fn emit, void *user);

#endif
