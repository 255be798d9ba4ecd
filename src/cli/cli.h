/* What the CLI's files share: the command table entry and stderr reporting. */
#ifndef HANGAR_CLI_H
#define HANGAR_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "hangar/hangar.h"
#include "hangar/text.h"

/* Exit statuses, the same for every command. */
enum {
	EXIT_FINE = 0,
	EXIT_SOME_FAILED = 1,  /* some input failed; the rest was done */
	EXIT_USAGE = 2,
	EXIT_NEW_CLUSTERS = 3, /* --fail-on-new */
};

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);  /* argv[0] is the command name */
	void (*usage)(FILE *out);
};

extern const struct command cmd_check;
extern const struct command cmd_coverage;
extern const struct command cmd_diff;
extern const struct command cmd_ingest;
extern const struct command cmd_merge;
extern const struct command cmd_nightly;
extern const struct command cmd_prune;
extern const struct command cmd_regroup;
extern const struct command cmd_rejected;
extern const struct command cmd_reports;
extern const struct command cmd_show;
extern const struct command cmd_stack;
extern const struct command cmd_symbolicate;
extern const struct command cmd_top;

/* What cli_print_diag keeps: the count of errors and the last message. */
struct cli_diag_sink {
	int errors;
	char last[512];
};

/* A diagnostics sink printing "path:line:col: error: report N: message" on
 * stderr; user may be NULL or a struct cli_diag_sink to fill. */
void cli_print_diag(void *user, const hg_diag *diag);
/* The same line, appended to out (sink may be NULL). */
void cli_format_diag(hg_buf *out, struct cli_diag_sink *sink, const hg_diag *diag);

/* A progress line on stderr (a terminal's), rewritten in place with \r.
 * cli_progress_end ends it (erases it) so that what follows, a diagnostic
 * or the summary, starts a line of its own; cli_print_diag calls it. */
void cli_progress_printf(const char *fmt, ...) HG_PRINTF(1, 2);
void cli_progress_end(void);

/* Reports a usage error on stderr ("hangar CMD: ...") and returns EXIT_USAGE. */
/* A folder an option names (--mapping-dir, --stack-dir) must be one, and
 * what --symbols names must exist (a folder or one file): otherwise a usage
 * error naming the option ("hangar ingest: --mapping-dir /x: No such file or
 * directory"), EXIT_USAGE, before anything is done; else EXIT_FINE. */
int cli_need_folder(const char *cmd, const char *option, const char *path);
int cli_need_path(const char *cmd, const char *option, const char *path);

int cli_usage_error(const char *cmd, const char *fmt, ...) HG_PRINTF(2, 3);
/* "unknown format 'x' (tree, json, ... or svg)": the formats of
 * hg_output_formats that render `renders` (hangar/render.h); EXIT_USAGE. */
int cli_format_error(const char *cmd, const char *name, unsigned renders);

/* Parses a non-negative or signed integer option value; false if invalid. */
bool cli_parse_int64(const char *s, int64_t *out);

/* Whether to colour output on stream: --color=always/never/auto, NO_COLOR. */
enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
bool cli_use_color(enum color_mode mode, FILE *stream);

/* text_out.c: text on stdout and stderr with every byte a terminal would
 * obey shown as an escape (hg_buf_visible_as, keeping newlines and tabs);
 * stdout keeps hangar's own colour sequences once cli_text_colour(true)
 * said it is coloured.  Data formats (JSON, CSV, SVG...) use fwrite. */
void cli_text_colour(bool on);
void cli_write_text(FILE *to, const char *s, size_t len);
void cli_printf(const char *fmt, ...) HG_PRINTF(1, 2);
void cli_fprintf(FILE *to, const char *fmt, ...) HG_PRINTF(2, 3);
void cli_fputs(const char *s, FILE *to);
/* A stored report's or rejected input's own bytes: exactly, for a pipe
 * (`hangar reports --text | hangar stack -`), as text on a terminal. */
void cli_write_stored(FILE *to, const char *s, size_t len);

/* suggest.c: near misses.  The edit distance of a and b (adjacent
 * transpositions count one); the candidate nearest to word, or NULL when
 * none is near enough to be a slip. */
size_t cli_edit_distance(const char *a, const char *b);
const char *cli_nearest(const char *word, const char *const *candidates, size_t n);

/* The usage error for what getopt_long refused ('?'), given the command's
 * long options and getopt's optind and optopt: "unknown option '--colour';
 * did you mean '--color'?", an ambiguous prefix with its options, a value
 * given to an option that takes none.  Returns EXIT_USAGE. */
struct option;
int cli_unknown_option(const char *cmd, const struct option *opts, char **argv, int optind_now,
		       int optopt_now);

/* text_width.c: the width for fd: a terminal's (TIOCGWINSZ, else
 * $COLUMNS, else 80); 0 (no limit) when fd is no terminal, so that grep
 * sees whole lines.  --width's value: columns >= 0 into *out (0, or
 * HG_RENDER_MAX_WIDTH and more: no limit); false when s is no such number. */
int cli_default_width(int fd);
bool cli_parse_width(const char *s, int *out);

#endif
