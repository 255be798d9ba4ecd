/* Rendering: a model to bytes, in the library, for every command.  A
 * report (stack) renders as a tree for a person, JSON, Matrix's own
 * fields or a flame graph; a cluster's merged tree (show) as a flame
 * graph.  One table of output formats, hg_output_formats, says which
 * formats render what: `stack -f` and `show -f` both look names up in it,
 * and a new format is one row (and its writer).  Renderers write into an
 * hg_buf; the caller decides where the bytes go, and the stream, colour,
 * width and exit status. */
#ifndef HANGAR_RENDER_H_PUBLIC
#define HANGAR_RENDER_H_PUBLIC

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/report.h"
#include "hangar/text.h"

struct hg_flame;

typedef enum hg_output {
	HG_OUT_TREE,       /* a report for a person (stack) */
	HG_OUT_TABLE,      /* a cluster for a person (show) */
	HG_OUT_JSON,
	HG_OUT_CSV,        /* a cluster's merged tree as rows (show) */
	HG_OUT_MATRIX,     /* Matrix's own {"stack","stackKey","cost"} (stack) */
	HG_OUT_FOLDED,     /* flame graphs: FlameGraph's collapsed stacks, */
	HG_OUT_SPEEDSCOPE, /* speedscope's file format, */
	HG_OUT_CHROME,     /* Chrome's Trace Event Format (Perfetto UI), */
	HG_OUT_SVG,        /* an interactive SVG */
} hg_output;

/* What a format renders (bits of hg_output_format.renders). */
enum { HG_RENDERS_REPORT = 1, HG_RENDERS_CLUSTER = 2 };

typedef struct hg_output_format {
	const char *name;  /* as -f takes it */
	hg_output id;
	unsigned renders;  /* HG_RENDERS_* */
	bool flame;        /* a flame graph export (hg_render_flame) */
	bool single;       /* one document per file: one report at most */
	bool timed;        /* draws items' begin times (hg_ctx.want_times) */
	bool text;         /* text for a person: colour and width apply */
} hg_output_format;

/* The table, in the order usage messages list them. */
extern const hg_output_format hg_output_formats[];
extern const size_t hg_n_output_formats;

/* The format called name among those that render `renders`; NULL when
 * none is. */
const hg_output_format *hg_output_format_find(const char *name, unsigned renders);
/* "tree, json, matrix, folded, speedscope, chrome or svg": the names of
 * the formats that render `renders`, for a usage message. */
void hg_output_format_names(hg_buf *out, unsigned renders);

typedef struct hg_render_opts {
	bool no_trim;      /* show the whole rebuilt stack */
	bool all_threads;  /* show every thread, not only the blamed one and its blockers */
	bool ascii;        /* plain ASCII tree guides */
	bool color;        /* ANSI colour */
	int width;         /* columns of the text output (--width); 0 = no limit */
	long max_depth;    /* fold frames deeper than this; -1 = no limit */
	int64_t min_cost;  /* fold frames cheaper than this (ms) */
	/* Called between frames or threads with the output so far, once it
	 * holds HG_RENDER_FLUSH_BYTES: it writes out what the buffer holds and
	 * empties it, so that a big report's text is never held whole.  NULL:
	 * the buffer only grows. */
	void (*flush)(hg_buf *out, void *user);
	void *flush_user;
} hg_render_opts;

#define HG_RENDER_FLUSH_BYTES ((size_t)1 << 20)
#define HG_RENDER_MAX_WIDTH 100000 /* a width this wide or wider is no limit */
#define HG_RENDER_MIN_ROOM 20       /* text columns a wrapped line keeps, however narrow */

/* Renders rep as format f (one that renders reports) into out: 0;
 * HG_EINVAL when a flame graph has nothing to draw (no stack, no
 * threads); HG_ELIMIT when a folded export would be over max_bytes;
 * HG_ENOMEM. */
int hg_render_report(hg_buf *out, const hg_report *rep, const hg_output_format *f,
		     const hg_render_opts *opts, size_t max_bytes);
/* The line a report that failed gives in the JSON formats: its identity
 * (source, line, report) and "error". */
void hg_render_report_error(hg_buf *out, const hg_report *rep);
/* Writes flame fl as format f (a flame format) into out. */
void hg_render_flame(hg_buf *out, const struct hg_flame *fl, const hg_output_format *f);

/* ---- fitting text to a width (render_width.c), for every text view ---- */

/* lead + a symbol "a.b.C.m(args)" (a method stack's frame) in avail
 * columns if it can be done by shortening its package ("com.example.Foo"
 * -> "c.e.Foo" -> "…Foo", ellipsis standing for "…"), then dropping
 * lead; never the class or method name (avail <= 0: no limit). */
void hg_render_fit_symbol(hg_buf *out, const char *lead, const char *sym, int avail,
			  const char *ellipsis);
/* A native function's name (C++ or Swift, demangled) shortened by level:
 * 0 whole; 1 its argument lists as "(…)"; 2 its template arguments as
 * "<…>" too; 3 its qualifiers too ("…Execute(…)").  Never the function's
 * own name. */
void hg_render_native_name(hg_buf *out, const char *name, int level, const char *ellipsis);
/* first + s[0..len) wrapped at blanks to width columns (0: one line), the
 * lines after the first starting with cont; each line ends with '\n'. */
void hg_render_wrap(hg_buf *out, const char *first, const char *cont, const char *s, size_t len,
		    int width);

#endif
