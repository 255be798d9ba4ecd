/* What the store commands (ingest, top, show, reports, rejected) share:
 * finding the database, and printing rows as a table, CSV or JSON lines. */
#ifndef HANGAR_STORE_CLI_H
#define HANGAR_STORE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "hangar/ingest.h"
#include "hangar/render.h"
#include "hangar/store.h"
#include "hangar/text.h"

/* The CLI's names of hg_rows (hangar/render.h), the same values. */

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

/* Reads --sessions FILE (hangar/sessions.h) into *out (caller destroys
 * it): EXIT_FINE, or EXIT_SOME_FAILED after the file's problem is said on
 * stderr as "FILE:LINE:COL: error: what" (an input error). */
int cli_sessions_read(const char *path, hg_sessions **out);

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
	hg_rows format;
};
/* STORE_CMD_NEXT when c was one of those (go on reading options), else
 * the exit status to return now: EXIT_FINE after --help, EXIT_USAGE. */
#define STORE_CMD_NEXT (-1)
int store_cmd_option(struct store_cmd *cmd, int c, char **argv);

/* Parses a --format value for `cmd`; false (after a usage message) when
 * it is not table, json or csv. */
bool parse_row_format(const char *cmd, const char *value, hg_rows *out);

/* Checks a --kind value for `cmd`: a family that clusters are grouped
 * under (hg_signature_family of some kind).  false (after a usage message
 * listing the families, with the nearest one, or the family of a kind
 * given instead) when it is none. */
bool parse_kind(const char *cmd, const char *value);

/* One output row (hg_row_cell, hangar/render.h) rendered by
 * hg_render_row_header / hg_render_row and written on out (the table's
 * text through cli_write_text). */
void print_header(FILE *out, hg_rows f, const hg_row_cell *cells, size_t n);
void print_row(FILE *out, hg_rows f, const hg_row_cell *cells, size_t n);

/* An hg_table (hangar/render.h) writing on out: the table's text through
 * cli_write_text, CSV and JSON exactly.  NULL when out of memory. */
hg_table *cli_table_create(FILE *out, hg_rows f, int width, hg_store *store);

/* The width for a command's text: its --width (an arg, may be NULL), else
 * stdout's terminal's (TIOCGWINSZ, else $COLUMNS), and 0, no limit, when
 * stdout is no terminal, so that a pipe gets whole lines.  false (after a
 * usage message) when arg is not a number >= 0. */
bool cli_text_width(const char *cmd, const char *arg, int *width);

#endif
