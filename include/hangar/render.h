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
#include "hangar/store.h"
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

/* ---- a cluster's merged call tree (cluster_tree.c) ----
 * hangar show's tree: children in cost order (total cost, descending;
 * ties: more reports first, then by frame text), pruned by cost, depth and
 * a number of nodes (the costliest, best first), the StackKey path always
 * kept.  The nodes come from hg_store_cluster_tree_pruned (parents before
 * children), already pruned by cost, depth and max_nodes as they were
 * read, and are copied (the tree owns its copies); what the reading left
 * out comes with them (hg_cluster_tree_left) and is counted as what this
 * pruning leaves out. */

typedef struct hg_cluster_tree_opts {
	int64_t min_cost;   /* ms a node's total must reach; < 0: min_share of the tree's */
	double min_share;   /* with min_cost < 0: a fraction, 0.02 for 2% */
	long max_depth;     /* levels shown (roots: 1); <= 0: all */
	long limit;         /* nodes shown, the costliest (best first), the key path
			     * counted and always shown; <= 0: all */
	size_t max_nodes;   /* nodes read at most (hg_tree_prune); 0: all */
} hg_cluster_tree_opts;

/* Why a node's children were left out: bits (CAP: when the tree was read,
 * past max_nodes). */
enum { HG_PRUNED_COST = 1, HG_PRUNED_LIMIT = 2, HG_PRUNED_DEPTH = 4, HG_PRUNED_CAP = 8 };

typedef struct hg_cluster_node {
	int64_t id, parent, reports, total, max, self;
	bool key;                 /* on the StackKey path */
	char *symbol;
	size_t parent_at;         /* index of the parent; (size_t)-1 for a root */
	size_t first, n_children; /* this node's children: children[first..+n) */
	long depth;               /* 0 for a root */
	size_t subtree;           /* nodes in its subtree, itself included (and those
				   * left out when read) */
	bool keep;                /* on the StackKey path: shown whatever the limits */
	bool shown;
	int64_t hidden_nodes, hidden_cost; /* of its children's subtrees left out */
	unsigned hidden_why;      /* HG_PRUNED_* */
} hg_cluster_node;

typedef struct hg_cluster_tree {
	hg_cluster_node *nodes;
	size_t n, cap;
	size_t *children;         /* node indexes, grouped by parent, each group in cost order */
	size_t *roots, n_roots;   /* in cost order */
	int64_t total_cost;       /* of the roots */
	int64_t min_cost;         /* the threshold applied, ms */
	size_t shown;
	size_t stored;            /* nodes in the stored tree (the caller sets it from
				   * hg_tree_read; 0: n) */
	int64_t roots_hidden_nodes, roots_hidden_cost;
	unsigned roots_hidden_why;
	bool failed;              /* out of memory while adding */
} hg_cluster_tree;

/* Caller's storage: init, then release (frees the copies). */
void hg_cluster_tree_init(hg_cluster_tree *t);
void hg_cluster_tree_release(hg_cluster_tree *t);
/* An hg_tree_fn: copies the row (user is the hg_cluster_tree); 0, or
 * HG_ENOMEM / HG_EPARSE (a parent that did not come before its child). */
int hg_cluster_tree_add(void *user, const hg_tree_row *row);
/* An hg_tree_left_fn: what the reading left out under a node added (or
 * beside the roots), counted with it; 0, or HG_EPARSE for a node not
 * added. */
int hg_cluster_tree_left(void *user, const hg_tree_left *left);
/* Orders and prunes, after the last add: 0 or HG_ENOMEM. */
int hg_cluster_tree_prune(hg_cluster_tree *t, const hg_cluster_tree_opts *o);

/* Visits the shown nodes depth first in cost order: node for each, and
 * hidden after a node's shown children when some of its children were
 * left out (parent NULL: roots were). */
typedef struct hg_cluster_visitor {
	void (*node)(void *user, const hg_cluster_node *n);
	void (*hidden)(void *user, const hg_cluster_node *parent, long depth, int64_t nodes,
		       int64_t cost, unsigned why);
	void *user;
} hg_cluster_visitor;
int hg_cluster_tree_walk(const hg_cluster_tree *t, const hg_cluster_visitor *v);

/* "below 2% of the cost, past the 5 costliest" into buf. */
void hg_cluster_tree_why(const hg_cluster_tree_opts *o, int64_t min_cost, unsigned why, char *buf,
			 size_t size);

/* ---- a cluster for a person (cluster_text.c), fitted to width (0: no
 * limit); each appends whole lines to out ---- */

/* The header: cluster, kind, title, StackKey, reports (and how many name
 * no device: c->no_device), seen, cost, the figures, signature. */
void hg_render_cluster_header(hg_buf *out, const hg_cluster_row *c, int width);
/* "  COUNT  value" of the by-version, -device and -scene lists. */
void hg_render_cluster_count(hg_buf *out, const char *value, int64_t count, int width);
/* A cluster's page (hg_cluster_page, store.h) for a person: a breakdown
 * per dimension some report names (counts and shares; the version's with
 * the first and last version seen), reports per day, what blocks the
 * blamed thread over all reports ("40 of 40 (100%)  lock held by ..."),
 * the variants when more than one; lines fitted to width (0: no limit). */
void hg_render_cluster_page(hg_buf *out, const hg_cluster_page *page, int width);
/* The same as JSON object members, each after a comma: "first_version",
 * "last_version", "breakdowns" {dim: [{"value","count","share"}]},
 * "per_day" [{"day","count"}], "blockers" [{"blocker","count","share"}],
 * "variants" [{"variant","count","share","entry","sample":{"content_hash",
 * "source","line"}}]; shares are of the cluster's reports, 0..1. */
void hg_render_cluster_page_json(hg_buf *b, const hg_cluster_page *page);
/* A node of the merged call tree: reports, total and max ms ("—" when
 * no report measured its cost), '*' on the StackKey path, the indent of
 * its depth, its frame. */
void hg_render_cluster_node(hg_buf *out, const hg_cluster_node *n, int width, bool cost_known);
/* "… N more nodes, WHY" where a node's children (depth) were left out,
 * under their cost (< 0: unknown, "—"). */
void hg_render_cluster_hidden(hg_buf *out, long depth, int64_t nodes, int64_t cost, const char *why,
			      int width);
/* A sample report: "  path:line  time  version  device  cost". */
void hg_render_cluster_sample(hg_buf *out, const hg_report_row *r, int width);

/* ---- rows: a table for a person, CSV or JSON lines ---- */

typedef enum hg_rows { HG_ROWS_TABLE, HG_ROWS_JSON, HG_ROWS_CSV } hg_rows;

/* One output row's cell (rows.c): a (column, value) pair printed as a
 * table line (values padded to width), a CSV line, or a JSON object.  A
 * value of NULL prints as empty / null; json marks a value that is JSON
 * already (objects, numbers).  The strings are borrowed. */
typedef struct hg_row_cell {
	const char *column;
	const char *value;
	int width;       /* table: pad to this; 0 = as is (last column) */
	bool json;       /* the value is JSON text (number, object, array) */
} hg_row_cell;

/* The header line (nothing for JSON), and one row, appended to out. */
void hg_render_row_header(hg_buf *out, hg_rows f, const hg_row_cell *cells, size_t n);
void hg_render_row(hg_buf *out, hg_rows f, const hg_row_cell *cells, size_t n);
/* A top row as its JSON line: the keys a cluster has in every output
 * (hg_cluster_json_members; schemas/top.schema.json). */
void hg_render_cluster_row_json(hg_buf *out, const hg_cluster_row *c);
/* A diff row as its JSON line: status, hash, kind, title, old, new
 * (hg_diff_sides_json), escalating, and rate {old, new} when rated
 * (schemas/diff.schema.json). */
void hg_render_diff_row_json(hg_buf *out, const hg_diff_row *r);
/* A rate (reports per 1,000 sessions) for a cell: "4.70" in a table,
 * six significant digits in CSV; "—" (table) or NULL (CSV empty) when
 * unknown (< 0).  Returns buf or NULL. */
const char *hg_render_rate_cell(char buf[24], double rate, bool table);

/* How a column of an hg_table fits the width (the table's text only:
 * CSV and JSON hold every value whole). */
typedef enum hg_cell_fit {
	HG_CELL_FIXED,   /* whole, padded: kinds, statuses, versions */
	HG_CELL_NUMBER,  /* whole, right-aligned: counts, costs, ids */
	HG_CELL_TIME,    /* whole; when the table cannot fit otherwise, to the
			  * minute ("2024-04-25 08:00", UTC), then the day */
	HG_CELL_HASH,    /* a cluster's hash: its short form (HG_TABLE_HASH_DIGITS,
			  * more when another cluster of the store starts with
			  * them) for the table's first rows, past them 12 digits,
			  * more where two of the table's rows would look alike */
	HG_CELL_DIGEST,  /* another hash (a report's content): 12 digits, more
			  * where two of the table's rows would look alike */
	HG_CELL_CUT,     /* text cut at its end with "…" to fit: titles, reasons */
	HG_CELL_PATH,    /* a path cut at its start with "…": its file name stays */
} hg_cell_fit;

/* ---- tables fitted to a width (table.c) ----
 * A table buffers its rows (the first HG_TABLE_BUFFER_ROWS of them),
 * measures each column from its values, and writes them fitted to the
 * width: short hashes, cut titles and paths, never a number or a time cut;
 * when the cut columns would keep fewer than 20 columns, times show to the
 * minute, then the day, then the last column (a title) goes on a line of
 * its own under its row.  Rows past the buffer are written in the widths
 * measured.  CSV and JSON rows are written as they come, whole (full
 * hashes).  The table hands each line it makes to a write function rather
 * than a FILE: the caller decides where bytes go and how a terminal sees
 * them (the CLI escapes text for one), and lines leave as they are made so
 * that a table of a million rows is never held whole. */
#define HG_TABLE_BUFFER_ROWS 1000
#define HG_TABLE_HASH_DIGITS 12  /* a short hash, as `git log --abbrev=12` */

typedef struct hg_table hg_table;
typedef void (*hg_table_write)(void *user, const char *s, size_t len);

/* A table of format f, fitted to width columns (0: no limit), written
 * through write(user, ...); store (may be NULL) is where HG_CELL_HASH
 * hashes are told apart, and must outlive the table.  NULL when out of
 * memory.  Destroy with hg_table_destroy. */
hg_table *hg_table_create(hg_rows f, int width, hg_store *store, hg_table_write write, void *user);
/* A cell of a table's row: an hg_row_cell that says how its column fits
 * instead of a width. */
typedef struct hg_table_cell {
	const char *column;
	const char *value;   /* NULL: empty / null */
	hg_cell_fit fit;
	bool json;           /* the value is JSON text */
} hg_table_cell;
/* A row: the first one names the columns and their fit; every row has
 * the same columns (at most 64).  Values are copied. */
void hg_table_row(hg_table *t, const hg_table_cell *cells, size_t n);
/* A line of text among the rows ("… 3 more new"), where it came (table
 * format only). */
void hg_table_note(hg_table *t, const char *text);
/* Writes what is buffered: call it before anything else goes to the
 * table's stream.  Rows after it are written as they come, in the widths
 * measured. */
void hg_table_flush(hg_table *t);
/* Flushes and frees; NULL is fine. */
void hg_table_destroy(hg_table *t);

/* A top row in t, a table (table true: short hashes, "p90ms", "per_1k",
 * "↑ " before an escalating cluster's title, an FPS cluster's frame
 * rate after it) or CSV (cost_p50, cost_p90, escalating; "rate" with
 * rates): hangar-top(1), OUTPUT. */
void hg_render_top_row(hg_table *t, const hg_cluster_row *c, bool table, bool rates);
/* A diff row in t, a table or CSV (old_rate, new_rate with rates;
 * escalating in CSV, the mark in a table): hangar-diff(1), OUTPUT. */
void hg_render_diff_row(hg_table *t, const hg_diff_row *r, bool table, bool rates);
/* The CSV header of diff's rows, for a diff with none. */
void hg_render_diff_csv_header(hg_buf *out, bool rates);

/* s[0..len) as text in avail columns (escaped as hg_buf_visible does),
 * whole when it fits (or avail <= 0), else cut with "…": its end, or with
 * keep_end its start (a path keeps its file name). */
void hg_render_fit_text(hg_buf *out, const char *s, size_t len, int avail, bool keep_end);

/* ---- FPS and startup figures (figures_text.c): the same words and JSON
 * names in top, show and diff ---- */

/* A cost figure for a cell: its digits, or, when no cost was measured,
 * "—" (table) or NULL (JSON null, CSV empty).  Returns buf or NULL. */
const char *hg_render_cost_cell(char buf[24], int64_t ms, bool known, bool table);
/* Appends f said in words: "24.5 fps, 2.7% frozen/high of 147 frames"
 * (FPS), "total p50 655 ms, p90 655 ms; cold 3, warm 1" (startup);
 * nothing when f has neither. */
void hg_render_figures_text(hg_buf *b, const hg_figures *f);
/* An fps and a frozen/high share (< 0: unknown) in words, "24.5 fps,
 * 2.7% frozen/high". */
void hg_render_fps_text(hg_buf *b, double fps, double share);
/* hangar show: a cluster's figures by version, then by scene (startup
 * total p50/p90, FPS mean fps and frozen/high share, per group): table
 * lines, or ,"figures_by_version":[...] and ,"figures_by_scene":[...],
 * appended to out.  0 or an hg error. */
int hg_render_cluster_figures(hg_buf *out, hg_store *store, const char *hash, hg_rows format);

/* ---- a cluster's differential flame graph (cluster_diff.c) ---- */

struct hg_reread;
struct hg_flame_svg_opts;

/* The two sets of a cluster's reports compared, as hg_diff_query has them:
 * two versions, or before since against [since, until) (until may be
 * NULL).  Strings borrowed. */
typedef struct hg_cluster_sets {
	const char *baseline_version, *version;
	const char *since, *until;
} hg_cluster_sets;

typedef struct hg_cluster_diff_counts {
	int64_t drawn[2];   /* reports drawn: the old set, the new one */
	size_t nothing;     /* reports read with nothing to draw */
} hg_cluster_diff_counts;

/* "1.2 → 1.3" or "before T → T to U": the sets in words, appended to b. */
void hg_cluster_sets_text(hg_buf *b, const hg_cluster_sets *sets);
/* Reads the cluster's stored reports of each set again through reread
 * (named as ingest names them; those not read go to reread's not_read),
 * merges each set's flames path by path, and appends the differential SVG
 * to svg (widths: the new set's; colours: cost per report against the old
 * set's), titled title.  0; HG_EINVAL when a set has no report to draw
 * (counts say which); HG_ENOMEM, or the store's error. */
int hg_render_cluster_flame_diff(hg_buf *svg, hg_store *store, const char *hash,
				 struct hg_reread *reread, const hg_cluster_sets *sets,
				 const char *title, const struct hg_flame_svg_opts *so,
				 hg_cluster_diff_counts *counts);

/* ---- a cluster as JSON and CSV (cluster_json.c), appended to b; first:
 * the first of its list (no comma before it; CSV: the header too) ---- */

/* {"value":..,"count":..}: a row of by_version, by_device, by_scene. */
void hg_render_cluster_count_json(hg_buf *b, const char *value, int64_t count, bool first);
/* A merged tree node as a JSON object or (f HG_ROWS_CSV) a CSV row; costs
 * null / empty when !cost_known. */
void hg_render_cluster_node_row(hg_buf *b, hg_rows f, const hg_cluster_node *n, bool cost_known,
				bool first);
/* ],"tree_pruned":{...}: closes the tree's array, then what was shown of
 * it, what the pruning o left out, and (read_why: hg_tree_read.why) what
 * the reading did. */
void hg_render_cluster_pruned_json(hg_buf *b, const hg_cluster_tree *t,
				   const hg_cluster_tree_opts *o, unsigned read_why);
/* {"source","line","cost","content_hash"} of a sample report. */
void hg_render_cluster_sample_json(hg_buf *b, const hg_report_row *r, bool first);

/* ---- why a report has its signature (explain.c) ---- */

struct hg_explain;

/* hg_signature_explain's record (hangar/cluster.h) for a person, fitted
 * to width (0: no limit): the signature's parts and the lines hashed, then
 * a line per frame looked at: used, owner, rule, frame. */
void hg_render_explain(hg_buf *out, const struct hg_explain *ex, int width);
/* The same as one JSON object: {"hash","version","app",...,"lines",
 * "frames":[{"frame","owner","rule","used","line"}]} (hangar-formats(5),
 * JSON OUTPUT; schemas/stack.schema.json, explain). */
void hg_render_explain_json(hg_buf *out, const struct hg_explain *ex);

#endif
