/* hangar stack's options (stack_opts.c): its --help, and each option of
 * its getopt_long table (in cmd_stack.c, where tests/cli/man-options reads
 * it) applied to a struct stack_opts, as ingest_opts.c does for ingest.
 * The naming options (-m, --proguard, --symbols, --mapping-dir,
 * --app-version) mean what they mean to ingest: hg_namer (hangar/namer.h)
 * takes them as they are; so do --rules and --app, for --explain. */
#ifndef HANGAR_CLI_STACK_OPTS_H
#define HANGAR_CLI_STACK_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "hangar/namer.h"
#include "hangar/render.h"
#include "hangar/report.h"
#include "hangar/timezone.h"

struct stack_opts {
	hg_ctx ctx;                  /* reading: limits, --stack-dir, --timezone (diag unset) */
	hg_timezone zone;            /* --timezone (ctx.zone, once finished) */
	const hg_output_format *format; /* -f: a row of hg_output_formats */
	hg_render_opts render;
	enum color_mode color;
	bool width_set;
	/* naming, as ingest names (hg_namer) */
	const char *mapping;         /* -m */
	const char *mapping_dir;     /* --mapping-dir */
	const char *app_version;     /* --app-version */
	const char *proguard[HG_NAMER_MAX_PROGUARD];
	int n_proguard;
	const char *symbol_dirs[HG_NAMER_MAX_SYMBOLS];
	int n_symbol_dirs;
	/* --explain: why each report has its signature, as ingest signs it */
	bool explain;
	const char *rules;           /* --rules */
	const char *app;             /* --app: the app of reports that name none */
	/* reading */
	enum hg_input_format input_format;
	bool raw;                    /* --raw, or --input-format raw */
	hg_raw_opts raw_opts;
	bool raw_only_used;          /* --end-time, --cost or --no-strict given */
};

void stack_usage(FILE *out);

/* The defaults. */
void stack_opts_init(struct stack_opts *o);

/* Applies option code c (its long_options code: 'm', 'f', ...) with its
 * value arg: EXIT_FINE, or EXIT_USAGE (said on stderr). */
int stack_option(struct stack_opts *o, int c, const char *arg);

/* After the options: colour, width and what the reading wants from them;
 * EXIT_FINE, or EXIT_USAGE (said) for options that do not go together. */
int stack_opts_finish(struct stack_opts *o);

#endif
