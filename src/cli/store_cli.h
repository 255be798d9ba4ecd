/* What the store commands (ingest, top, show, reports, rejected) share:
 * finding the database, and printing rows as a table, CSV or JSON lines. */
#ifndef HANGAR_STORE_CLI_H
#define HANGAR_STORE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "hangar/ingest.h"
#include "hangar/store.h"
#include "hangar/text.h"

enum row_format { ROWS_TABLE, ROWS_JSON, ROWS_CSV };

/* The mappings of regroup and merge (-m, --proguard, --mapping-dir,
 * --symbols) as an hg_namer in *out: false when one fails (said through
 * ctx, or on stderr as "hangar CMD: DIR: not a folder").  ctx must outlive
 * it. */
bool cli_namer_create(const hg_ctx *ctx, const char *cmd, const char *mapping,
		      const char *const *proguard, int n_proguard, const char *mapping_dir,
		      const char *const *symbol_dirs, int n_symbol_dirs, hg_namer **out);

/* --db FILE, else $HANGAR_DB, else ./hangar.db. */
const char *store_path(const char *option);

/* Opens that store for a reading command (read-only, never created),
 * errors said on stderr; NULL when it cannot be opened.  Close with
 * hg_store_close. */
hg_store *open_store(const char *option);

/* The same in a mode (hg_store_open_mode) with the context ctx, which
 * must outlive the store.  With no store at the path, says so and how to
 * make one: "PATH: error: no hangar store here; make one with 'hangar
 * ingest --db PATH REPORTS...'". */
hg_store *open_store_in(hg_ctx *ctx, const char *path, enum hg_store_mode mode);

/* A query that failed with rc: says so on stderr ("hangar CMD: ...") in
 * the store's words, not as bad input (the store said what failed, with
 * its path and SQLite's reason); returns EXIT_SOME_FAILED. */
int cli_store_failed(const char *cmd, int rc);

/* Reads the times of --since and --until (each may be NULL) into buf and
 * points *since / *until at them: EXIT_FINE or EXIT_USAGE (said on
 * stderr, naming cmd and the option). */
int cli_store_window(hg_store *store, const char *cmd, const char **since, const char **until,
		     char buf[2][32]);

/* With a time window (since or until set), says on stderr how many reports
 * of unknown time it leaves out, when there are any (time_note.c). */
void cli_note_untimed(hg_store *store, const char *cmd, const char *since, const char *until);

/* The options every store-reading command takes, handled in one place:
 * --db (getopt code 'D'), -f/--format, -h/--help, and getopt's ':' (a
 * missing value) and '?' (an unknown option, with the nearest suggested).
 * The command's getopt loop hands every code it does not know itself to
 * store_cmd_option. */
struct store_cmd {
	const char *name;                    /* "top" */
	void (*usage)(FILE *);
	const struct option *long_options;   /* the command's, for suggestions */
	const char *db;                      /* --db, or NULL */
	enum row_format format;
};
/* STORE_CMD_NEXT when c was one of those (go on reading options), else
 * the exit status to return now: EXIT_FINE after --help, EXIT_USAGE. */
#define STORE_CMD_NEXT (-1)
int store_cmd_option(struct store_cmd *cmd, int c, char **argv);

/* Parses a --format value for `cmd`; false (after a usage message) when
 * it is not table, json or csv. */
bool parse_row_format(const char *cmd, const char *value, enum row_format *out);

/* Checks a --kind value for `cmd`: a family that clusters are grouped
 * under (hg_signature_family of some kind).  false (after a usage message
 * listing the families, with the nearest one, or the family of a kind
 * given instead) when it is none. */
bool parse_kind(const char *cmd, const char *value);

/* How a column of a struct table fits the width (the table's text only:
 * CSV and JSON hold every value whole). */
enum cell_fit {
	CELL_FIXED,   /* whole, padded: kinds, statuses, versions */
	CELL_NUMBER,  /* whole, right-aligned: counts, costs, ids */
	CELL_TIME,    /* whole; when the table cannot fit otherwise, to the
		       * minute ("2024-04-25 08:00", UTC), then the day */
	CELL_HASH,    /* a cluster's hash: its short form (cli_short_hash) for
		       * the table's first rows, past them 12 digits, more
		       * where two of the table's rows would look alike */
	CELL_DIGEST,  /* another hash (a report's content): 12 digits, more
		       * where two of the table's rows would look alike */
	CELL_CUT,     /* text cut at its end with "…" to fit: titles, reasons */
	CELL_PATH,    /* a path cut at its start with "…": its file name stays */
};

/* One output row: a list of (column, value) pairs printed as a table line
 * (values padded to the widths given), a CSV line, or a JSON object.  A
 * value of NULL prints as empty / null; `json` marks a value that is JSON
 * already (objects, numbers). */
struct cell {
	const char *column;
	const char *value;
	int width;       /* table: pad to this; 0 = as is (last column) */
	bool json;       /* the value is JSON text (number, object, array) */
};

void print_header(FILE *out, enum row_format f, const struct cell *cells, size_t n);
void print_row(FILE *out, enum row_format f, const struct cell *cells, size_t n);

/* ---- tables fitted to --width (store_table.c) ----
 * A table buffers its rows (the first TABLE_BUFFER_ROWS of them), measures
 * each column from its values, and prints them fitted to the width: short
 * hashes, cut titles and paths, never a number or a time cut; when the cut
 * columns would keep fewer than 20 columns, times show to the minute, then
 * the day, then the last column (a title) goes on a line of its own under
 * its row.  Rows past the buffer print in the widths measured.  CSV and
 * JSON rows print as they come, whole (full hashes). */
#define TABLE_BUFFER_ROWS 1000
#define TABLE_HASH_DIGITS 12  /* a short hash, as `git log --abbrev=12` */

struct table;

/* A table on out in format f, fitted to width columns (0: no limit);
 * store (may be NULL) is where CELL_HASH hashes are told apart, and must
 * outlive the table.  NULL when out of memory. */
struct table *table_create(FILE *out, enum row_format f, int width, hg_store *store);
/* A cell of a struct table's row: a struct cell that says how its column
 * fits instead of a width. */
struct table_cell {
	const char *column;
	const char *value;   /* NULL: empty / null */
	enum cell_fit fit;
	bool json;           /* the value is JSON text */
};
/* A row: the first one names the columns and their fit; every row has
 * the same columns (at most 64).  Values are copied. */
void table_row(struct table *t, const struct table_cell *cells, size_t n);
/* A line of text among the rows ("… 3 more new"), where it came (table
 * format only). */
void table_note(struct table *t, const char *text);
/* Prints what is buffered: call it before anything else goes to the
 * table's stream.  Rows after it print as they come, in the widths
 * measured. */
void table_flush(struct table *t);
/* Flushes and frees; NULL is fine. */
void table_destroy(struct table *t);

/* The width for a command's text: its --width (an arg, may be NULL), else
 * stdout's terminal's (TIOCGWINSZ, else $COLUMNS), and 0, no limit, when
 * stdout is no terminal, so that a pipe gets whole lines.  false (after a
 * usage message) when arg is not a number >= 0. */
bool cli_text_width(const char *cmd, const char *arg, int *width);

/* The short form of a cluster's hash: TABLE_HASH_DIGITS digits, more when
 * another cluster of the store starts with them (the same for a cluster
 * in every table, and always a prefix `show` and `reports` take).  *len
 * gets the digits; 0, or the store's error code.  Each call reads the
 * whole clusters table (hg_store_resolve cannot use its index): a table
 * asks it for its first 64 rows only. */
int cli_short_hash(hg_store *store, const char *hash, size_t *len);

/* s[0..len) as text in avail columns (escaped as hg_buf_visible does),
 * whole when it fits (or avail <= 0), else cut with "…": its end, or with
 * keep_end its start (a path keeps its file name). */
void cli_fit_text(hg_buf *out, const char *s, size_t len, int avail, bool keep_end);

#endif
