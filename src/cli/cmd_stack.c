/* hangar stack: rebuild, key, symbolicate and print method-trace reports. */
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hangar/input.h"
#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "hangar/symbols.h"
#include "hangar/report.h"
#include "hangar/timezone.h"
#include "render.h"
#include "stack_pipeline.h"

static void stack_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar stack [OPTIONS] FILE...\n"
		"\n"
		"Read jank, slow-method and ANR reports of every kind and print what explains\n"
		"them: Matrix method traces rebuilt exactly as Matrix does on the device, with\n"
		"the StackKey and symbols; thread dumps (ANR traces, BlockCanary, Java stacks,\n"
		"iOS KSCrash) with the blamed thread, what blocks it and lock cycles; FPS and\n"
		"startup figures.  The format is detected from the content.  FILE holds one\n"
		"report, NDJSON, a JSON array or a text dump; '-' is stdin; a folder's report\n"
		"files are read as ingest finds them (recursively, regular files, sorted).\n"
		"\n"
		"Options:\n"
		"  -m, --mapping FILE    methodMapping.txt (default: next to the report, then\n"
		"                        $HANGAR_MAPPING)\n"
		"      --proguard FILE   ProGuard/R8 mapping.txt to deobfuscate Java frames with\n"
		"                        (repeatable; the first that knows a class wins)\n"
		"      --symbols DIR     name native frames from the .so files and dSYMs in DIR,\n"
		"                        matched by Build ID / UUID (repeatable; llvm-symbolizer)\n"
		"  -f, --format FORMAT   tree (default), json (one object per line), matrix\n"
		"                        (Matrix's own stack/stackKey/cost fields), or a flame\n"
		"                        graph: folded (FlameGraph's collapsed stacks, every\n"
		"                        report's lines), speedscope or chrome (Trace Event\n"
		"                        Format, for Perfetto UI), svg (an interactive flame\n"
		"                        graph for a browser): these three take one report\n"
		"      --no-trim         show the whole rebuilt stack, not Matrix's 30 items\n"
		"      --all-threads     show every thread of a thread dump, not only the blamed\n"
		"                        thread and those that block it\n"
		"      --input-format F  read inputs as F: matrix, kscrash, metrickit, anr,\n"
		"                        logcat, tombstone, blockcanary, watchdog, java, stack\n"
		"                        (bare depth,id,count,cost lines, Matrix's logged\n"
		"                        blocks) or raw (default: detected from the content)\n"
		"      --stack-dir DIR   where APM reports' stack_file files are (default: beside\n"
		"                        the report)\n"
		"      --timezone ZONE   the zone of APM times written without one: UTC\n"
		"                        (default), +08:00, -0530 or Asia/Shanghai\n"
		"      --max-depth N     fold frames deeper than N levels (tree)\n"
		"      --min-cost MS     fold frames cheaper than MS milliseconds (tree)\n"
		"      --ascii           plain ASCII tree guides\n"
		"      --width N         fit the text to N columns (0: no limit; default: the\n"
		"                        terminal's width, no limit when not a terminal)\n"
		"      --color WHEN      auto (default), always or never; NO_COLOR disables\n"
		"      --raw             FILE is a bare binary buffer of big-endian int64 words\n"
		"      --end-time MS     with --raw: when the slice was taken (default: latest time)\n"
		"      --cost MS         with --raw: the message cost the device measured\n"
		"      --no-strict       with --raw: do not wait for the first dispatch entry\n"
		"      --max-input BYTES largest input file read (default 1 GiB)\n"
		"      --max-words N     most words in one buffer (default 16777216)\n"
		"      --max-stack-lines N  most lines in one structured stack (default 1048576)\n"
		"      --max-mapping BYTES  largest methodMapping.txt (default and most 4294967294)\n"
		"  -h, --help            show this help\n"
		"\n"
		"Exit status: 0 all reports fine, 1 some failed (the rest are printed), 2 usage.\n");
}

#define MAX_PROGUARD 16

struct stack_run {
	hg_ctx ctx;
	hg_timezone zone;            /* --timezone (ctx.zone) */
	enum output_format format;
	struct render_opts render;
	const char *mapping_path;
	hg_mapping *fixed_mapping;   /* -m, or $HANGAR_MAPPING for files without their own */
	bool mapping_failed;         /* -m / $HANGAR_MAPPING could not be loaded */
	bool mapping_failed_here;    /* a methodMapping.txt beside a report could not */
	bool env_tried;              /* $HANGAR_MAPPING was loaded (or failed) */
	bool local_exists;           /* local_dir has a methodMapping.txt */
	hg_mapping *local_mapping;   /* methodMapping.txt beside the current file */
	char *local_dir;
	bool raw;
	enum hg_input_format input_format;
	const char *proguard_paths[MAX_PROGUARD];
	hg_proguard *proguard[MAX_PROGUARD]; /* the ones that loaded */
	int n_proguard, n_loaded;
	const char *symbol_dirs[MAX_PROGUARD];
	int n_symbol_dirs;
	hg_symbols *symbols;         /* --symbols, when given */
	hg_raw_opts raw_opts;
	const hg_mapping *current;   /* the mapping for the file being read */
	hg_buf out;
	struct cli_diag_sink diags;
	int failed_reports;
	/* Reading on a thread of its own (stack_pipeline.h): what it has said
	 * since its last item, and the queue to the main thread. */
	hg_buf pending_diags;
	hg_pipe *pipe;
	int n_inputs;
	char **inputs;
	/* Flame formats: reports drawn, and those with nothing to draw (an FPS
	 * or startup report of a bucket: said once at the end, by kind). */
	long drawn, undrawn;
	long undrawn_by_kind[HG_KIND_LAST + 1];
	hg_buf first_undrawn;     /* "path:line: report N" of the first */
	/* -f speedscope / chrome: one report's file, held until the end */
	long flames;
	hg_buf first_flame;       /* "path:line (report N)" of the one written */
	bool flame_refused;       /* a second report came: nothing is written */
};

/* Folded text over this is refused (a deep chain of frames each with a
 * self cost writes its path once per frame: depth^2). */
#define MAX_FOLDED_BYTES ((size_t)4 << 30)

static const struct option long_options[] = {
	{"mapping", required_argument, NULL, 'm'},
	{"format", required_argument, NULL, 'f'},
	{"no-trim", no_argument, NULL, 'T'},
	{"all-threads", no_argument, NULL, 'a'},
	{"proguard", required_argument, NULL, 'P'},
	{"symbols", required_argument, NULL, 'Y'},
	{"input-format", required_argument, NULL, 'i'},
	{"stack-dir", required_argument, NULL, 'd'},
	{"timezone", required_argument, NULL, 'z'},
	{"max-depth", required_argument, NULL, 'D'},
	{"min-cost", required_argument, NULL, 'C'},
	{"ascii", no_argument, NULL, 'A'},
	{"width", required_argument, NULL, 'w'},
	{"color", required_argument, NULL, 'K'},
	{"raw", no_argument, NULL, 'R'},
	{"end-time", required_argument, NULL, 'E'},
	{"cost", required_argument, NULL, 'c'},
	{"no-strict", no_argument, NULL, 'S'},
	{"max-input", required_argument, NULL, 'I'},
	{"max-words", required_argument, NULL, 'W'},
	{"max-stack-lines", required_argument, NULL, 'L'},
	{"max-mapping", required_argument, NULL, 'M'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int parse_options(struct stack_run *run, int argc, char **argv, bool *raw_only_used)
{
	enum color_mode color = COLOR_AUTO;
	bool width_set = false;
	int64_t v;
	int c;
	char why[160];
	hg_timezone_init(&run->zone, "UTC", why, sizeof why);
	optind = 1;
	opterr = 0; /* our own messages, naming hangar */
	while ((c = getopt_long(argc, argv, ":m:f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'm': run->mapping_path = optarg; break;
		case 'f':
			if (!strcmp(optarg, "tree")) run->format = FORMAT_TREE;
			else if (!strcmp(optarg, "json")) run->format = FORMAT_JSON;
			else if (!strcmp(optarg, "matrix")) run->format = FORMAT_MATRIX;
			else if (!flame_format_from_name(optarg, &run->format))
				return cli_usage_error("stack", "unknown format '%s' (tree, json, matrix, "
						       "folded, speedscope, chrome, svg)", optarg);
			break;
		case 'T': run->render.no_trim = true; break;
		case 'a': run->render.all_threads = true; break;
		case 'P':
			if (run->n_proguard == MAX_PROGUARD)
				return cli_usage_error("stack", "at most %d --proguard files", MAX_PROGUARD);
			run->proguard_paths[run->n_proguard++] = optarg;
			break;
		case 'Y':
			if (run->n_symbol_dirs == MAX_PROGUARD)
				return cli_usage_error("stack", "at most %d --symbols folders", MAX_PROGUARD);
			if (cli_need_path("stack", "--symbols", optarg) != EXIT_FINE)
				return EXIT_USAGE;
			run->symbol_dirs[run->n_symbol_dirs++] = optarg;
			break;
		case 'i': {
			int f = hg_input_format_from_name(optarg);
			if (f < 0)
				return cli_usage_error("stack", "unknown input format '%s' (matrix, kscrash, "
						       "metrickit, anr, logcat, tombstone, blockcanary, "
						       "watchdog, java, stack, raw)", optarg);
			run->input_format = (enum hg_input_format)f;
			run->raw = f == HG_FORMAT_RAW;
			break;
		}
		case 'd':
			if (cli_need_folder("stack", "--stack-dir", optarg) != EXIT_FINE)
				return EXIT_USAGE;
			run->ctx.stack_dir = optarg;
			break;
		case 'z':
			if (hg_timezone_init(&run->zone, optarg, why, sizeof why) != 0)
				return cli_usage_error("stack", "--timezone: %s", why);
			break;
		case 'D':
			if (!cli_parse_int64(optarg, &v) || v < 0 || v > 1000000)
				return cli_usage_error("stack", "--max-depth wants a number >= 0, not '%s'", optarg);
			run->render.max_depth = (long)v;
			break;
		case 'C':
			if (!cli_parse_int64(optarg, &v) || v < 0)
				return cli_usage_error("stack", "--min-cost wants milliseconds >= 0, not '%s'", optarg);
			run->render.min_cost = v;
			break;
		case 'A': run->render.ascii = true; break;
		case 'w':
			if (!render_parse_width(optarg, &run->render.width))
				return cli_usage_error("stack", "--width wants columns >= 0 (0: no limit), "
						       "not '%s'", optarg);
			width_set = true;
			break;
		case 'K':
			if (!strcmp(optarg, "auto")) color = COLOR_AUTO;
			else if (!strcmp(optarg, "always")) color = COLOR_ALWAYS;
			else if (!strcmp(optarg, "never")) color = COLOR_NEVER;
			else return cli_usage_error("stack", "--color wants auto, always or never, not '%s'", optarg);
			break;
		case 'R': run->raw = true; run->input_format = HG_FORMAT_RAW; break;
		case 'E':
			if (!cli_parse_int64(optarg, &run->raw_opts.end_time))
				return cli_usage_error("stack", "--end-time wants an integer, not '%s'", optarg);
			run->raw_opts.has_end_time = true;
			*raw_only_used = true;
			break;
		case 'c':
			if (!cli_parse_int64(optarg, &run->raw_opts.cost))
				return cli_usage_error("stack", "--cost wants an integer, not '%s'", optarg);
			*raw_only_used = true;
			break;
		case 'S': run->raw_opts.strict = false; *raw_only_used = true; break;
		case 'I':
			if (!cli_parse_int64(optarg, &v) || v <= 0)
				return cli_usage_error("stack", "--max-input wants a byte count > 0, not '%s'", optarg);
			run->ctx.limits.max_input_bytes = (size_t)v;
			break;
		case 'W':
			if (!cli_parse_int64(optarg, &v) || v <= 0)
				return cli_usage_error("stack", "--max-words wants a count > 0, not '%s'", optarg);
			run->ctx.limits.max_buffer_words = (size_t)v;
			break;
		case 'L':
			if (!cli_parse_int64(optarg, &v) || v <= 0)
				return cli_usage_error("stack", "--max-stack-lines wants a count > 0, not '%s'", optarg);
			run->ctx.limits.max_stack_lines = (size_t)v;
			break;
		case 'M':
			if (!cli_parse_int64(optarg, &v) || v <= 0)
				return cli_usage_error("stack", "--max-mapping wants a byte count > 0, not '%s'", optarg);
			run->ctx.limits.max_mapping_bytes = (size_t)v;
			break;
		case 'h': stack_usage(stdout); return -1;
		case ':': return cli_usage_error("stack", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_unknown_option("stack", long_options, argv, optind, optopt);
		}
	}
	run->render.color = cli_use_color(color, stdout) && run->format == FORMAT_TREE;
	cli_text_colour(run->render.color);
	if (!width_set)
		run->render.width = render_default_width(STDOUT_FILENO);
	run->zone.who = "hangar stack";
	run->ctx.zone = &run->zone;
	run->ctx.want_times = flame_format_timed(run->format);
	run->ctx.defer_rebuild = 1; /* to the main thread: name_methods */
	return 0;
}

/* How much rendered text print_report gathers before writing it. */
#define OUT_CHUNK (64 * 1024)

/* The tree is text for a person (cli_write_text); the other formats
 * are data, written exactly. */
static void write_buf(hg_buf *out, void *user)
{
	const struct stack_run *run = user;
	if (out->len && run->format == FORMAT_TREE)
		cli_write_text(stdout, out->data, out->len);
	else if (out->len)
		fwrite(out->data, 1, out->len, stdout);
	hg_buf_reset(out);
}

static void flush_out(struct stack_run *run)
{
	write_buf(&run->out, run);
}

/* The reader's diagnostics, held for the item they come before. */
static void hold_diag(void *user, const hg_diag *d)
{
	struct stack_run *run = user;
	cli_format_diag(&run->pending_diags, &run->diags, d);
}

/* Reader: a report onto the queue with what was said before it. */
static int queue_item(struct stack_run *run, struct stack_item *item)
{
	item->diags = run->pending_diags;
	hg_buf_init(&run->pending_diags);
	return hg_pipe_push(run->pipe, item) ? 0 : HG_ENOMEM;
}

static int on_report(void *user, hg_report *rep)
{
	struct stack_run *run = user;
	/* Native frames are named here, where the symbolizer's diagnostics
	 * go with the report's; methods on the main thread (name_methods),
	 * after the rebuild the reader left it. */
	struct stack_item item = {.rep = rep, .mapping = run->current};
	if (!rep->error && hg_symbols_apply(run->symbols, rep) != 0)
		item.out_of_memory = true;
	return queue_item(run, &item);
}

/* Main thread: the buffer rebuilt, the methods named (methodMapping, then
 * ProGuard/R8).  The mappings are only read by this thread after loading. */
static bool name_methods(struct stack_run *run, struct stack_item *it)
{
	hg_report *rep = it->rep;
	return rep->error ||
	       (hg_report_rebuild(rep) == 0 && hg_report_symbolicate(rep, it->mapping) == 0 &&
		(!run->n_loaded || hg_report_retrace(rep, (const hg_proguard *const *)run->proguard,
						     (size_t)run->n_loaded) == 0));
}

static void say_report(FILE *to, const hg_report *rep)
{
	cli_fputs(rep->source, to);
	if (rep->line > 0)
		fprintf(to, ":%ld", rep->line);
	fprintf(to, ": error: report %ld: ", rep->number);
}

/* A report as a flame graph.  A failed report was told already; one with
 * nothing to draw is counted (undrawn_say tells at the end); a second
 * report for a one-report format stops the run with nothing written. */
static int print_flame(struct stack_run *run, const hg_report *rep)
{
	if (rep->error)
		return 0;
	bool single = flame_format_single(run->format);
	if (single && run->flames > 0) {
		fflush(stdout);
		say_report(stderr, rep);
		const char *name = run->format == FORMAT_SPEEDSCOPE ? "speedscope"
				   : run->format == FORMAT_SVG ? "svg" : "chrome";
		cli_fprintf(stderr, "-f %s writes one report's profile, and the input holds more (the "
			"first: %s); give it one report (of NDJSON, a line: sed -n %ldp %s | hangar "
			"stack -f %s -)\n", name, run->first_flame.data, rep->line > 0 ? rep->line : 1,
			rep->source, name);
		run->flame_refused = true;
		run->failed_reports++;
		return 1;
	}
	int rc = render_flame(&run->out, rep, &run->render, run->format, MAX_FOLDED_BYTES);
	if (rc == HG_EINVAL) {
		if (run->undrawn++ == 0)
			hg_buf_printf(&run->first_undrawn, "%s:%ld: report %ld", rep->source,
				      rep->line > 0 ? rep->line : 1, rep->number);
		if ((unsigned)rep->kind <= HG_KIND_LAST)
			run->undrawn_by_kind[rep->kind]++;
		return 0;
	}
	if (rc == HG_ELIMIT) {
		flush_out(run);
		fflush(stdout);
		say_report(stderr, rep);
		fprintf(stderr, "its folded stacks would be over %zu GiB (a path is written once "
			"per frame with a self cost); try -f speedscope\n", MAX_FOLDED_BYTES >> 30);
		run->failed_reports++;
		return 0;
	}
	if (rc == HG_ENOMEM) {
		run->out.failed = 1;
		return 0;
	}
	run->drawn++;
	if (single && run->flames++ == 0)
		hg_buf_printf(&run->first_flame, "%s:%ld (report %ld)", rep->source, rep->line,
			      rep->number);
	return 0;
}

/* The reports with nothing to draw, said once: when nothing at all was
 * drawn it is an error (exit 1), else a note that they were left out (a
 * bucket's FPS and startup reports are no failure of its stacks). */
static void undrawn_say(struct stack_run *run)
{
	if (!run->undrawn)
		return;
	fflush(stdout);
	const char *first = run->first_undrawn.data ? run->first_undrawn.data : "?";
	if (!run->drawn)
		run->failed_reports++;
	if (run->undrawn == 1 && !run->drawn) {
		/* "path:line: error: report N: ...", as for any one report */
		const char *colon = strrchr(first, ':');
		int head = colon ? (int)(colon - first) : 0;
		for (int k = 0; k <= HG_KIND_LAST; k++)
			if (run->undrawn_by_kind[k])
				cli_fprintf(stderr, "%.*s: error:%s: no method stack and no threads to draw "
					"(kind %s)\n", head, first, colon ? colon + 1 : first,
					hg_report_kind_name(k));
		return;
	}
	fprintf(stderr, "hangar stack: %s%ld report%s with no method stack and no threads to draw (",
		run->drawn ? "left out " : "error: nothing to draw: ", run->undrawn,
		run->undrawn == 1 ? "" : "s");
	bool more = false;
	for (int k = 0; k <= HG_KIND_LAST; k++)
		if (run->undrawn_by_kind[k]) {
			fprintf(stderr, "%s%s %ld", more ? ", " : "", hg_report_kind_name(k),
				run->undrawn_by_kind[k]);
			more = true;
		}
	cli_fprintf(stderr, "; the first: %s)\n", first);
}

/* Main thread: one report rendered and written. */
static int print_report(struct stack_run *run, hg_report *rep, bool out_of_memory)
{
	if (rep->error)
		run->failed_reports++;
	if (out_of_memory)
		run->out.failed = 1;
	int stop = 0;
	switch (run->format) {
	case FORMAT_TREE: render_tree(&run->out, rep, &run->render); break;
	case FORMAT_JSON: render_json(&run->out, rep, &run->render); break;
	case FORMAT_MATRIX: render_matrix(&run->out, rep, &run->render); break;
	default: stop = print_flame(run, rep); break;
	}
	if (run->out.failed) {
		fprintf(stderr, "hangar stack: out of memory\n");
		return HG_ENOMEM;
	}
	if (stop)
		return 1;
	/* else written whole at the end; the rest goes out in chunks (a
	 * write(2) a report cost the printing thread a system call each) and
	 * whenever the reader has nothing more queued (print_all). */
	if (!flame_format_single(run->format) && run->out.len >= OUT_CHUNK)
		flush_out(run);
	return 0;
}

/* Loads the mapping at path once; a failure is reported (by the library,
 * with the path) and remembered so that it is not retried per file. */
static hg_mapping *load_once(struct stack_run *run, const char *path, bool *tried)
{
	if (*tried)
		return run->fixed_mapping;
	*tried = true;
	if (hg_mapping_open(&run->ctx, path, &run->fixed_mapping) != 0) {
		run->fixed_mapping = NULL;
		run->mapping_failed = true; /* reports still print, unsymbolicated */
	}
	return run->fixed_mapping;
}

/* The methodMapping.txt beside path, loaded once per folder; NULL when
 * there is none (*exists false) or it cannot be loaded (an input failure:
 * then nothing is guessed in its place). */
static const hg_mapping *beside(struct stack_run *run, const char *path, bool *exists)
{
	char *copy = strdup(path);
	if (!copy)
		return NULL;
	const char *dir = dirname(copy);
	if (!run->local_dir || strcmp(run->local_dir, dir) != 0) {
		if (run->local_mapping) {
			/* Freed by the main thread once it has named the reports
			 * before (the pipe keeps their order). */
			struct stack_item retire = {.retired = run->local_mapping};
			queue_item(run, &retire); /* refused, the pipe frees it */
		}
		run->local_mapping = NULL;
		free(run->local_dir);
		run->local_dir = strdup(dir);
		run->local_exists = false;
		size_t len = strlen(dir) + sizeof "/methodMapping.txt";
		char *candidate = malloc(len);
		struct stat st;
		if (candidate) {
			snprintf(candidate, len, "%s/methodMapping.txt", dir);
			run->local_exists = stat(candidate, &st) == 0;
			if (run->local_exists &&
			    hg_mapping_open(&run->ctx, candidate, &run->local_mapping) != 0) {
				run->local_mapping = NULL;
				run->mapping_failed_here = true;
			}
			free(candidate);
		}
	}
	free(copy);
	*exists = run->local_exists;
	return run->local_mapping;
}

/* The mapping for a file: -m; else methodMapping.txt beside it; else
 * $HANGAR_MAPPING (loaded only when some file needs it). */
static const hg_mapping *mapping_for(struct stack_run *run, const char *path)
{
	if (run->mapping_path)
		return run->fixed_mapping;
	bool exists = false;
	if (strcmp(path, "-") != 0) {
		const hg_mapping *m = beside(run, path, &exists);
		if (exists)
			return m;
	}
	const char *env = getenv("HANGAR_MAPPING");
	return env && *env ? load_once(run, env, &run->env_tried) : NULL;
}

/* A file that cannot be read (or the rest of it) is one failed input: say
 * so in the machine formats too, so a pipeline sees it. */
static void input_failed(struct stack_run *run, const char *path)
{
	struct stack_item item = {.failed_input = true};
	if (run->format == FORMAT_JSON || run->format == FORMAT_MATRIX) {
		hg_buf_puts(&item.text, "{\"source\":");
		hg_buf_json_string(&item.text, path, strlen(path));
		hg_buf_puts(&item.text, ",\"report\":0,\"error\":");
		hg_buf_json_string(&item.text, run->diags.last, strlen(run->diags.last));
		hg_buf_puts(&item.text, "}\n");
	}
	queue_item(run, &item);
}

/* Reports are read as ingest reads them: a stream of JSON values a part
 * at a time, so that memory follows the largest report, not the file.  The
 * mapping is looked up first, as when the file was read whole first, so
 * that its diagnostics come in the same order; but not for a path that
 * will not open (it was not looked up then). */
static void read_one(struct stack_run *run, const char *path)
{
	if (!run->raw) {
		struct stat st;
		if (strcmp(path, "-") == 0 ||
		    (stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))))
			run->current = mapping_for(run, path);
		int rc = hg_reports_read_path(&run->ctx, path, NULL, run->input_format, on_report,
					      run);
		if (rc == HG_EIO || rc == HG_ELIMIT)
			input_failed(run, path);
		return;
	}
	/* A bare buffer is one report, read whole (refused from its size). */
	char *data = NULL;
	size_t len = 0;
	if (hg_input_read(&run->ctx, path, &data, &len) != 0) {
		input_failed(run, path);
		return;
	}
	run->current = mapping_for(run, path);
	hg_reports_read_raw(&run->ctx, path, (const unsigned char *)data, len, &run->raw_opts,
			    on_report, run);
	free(data);
}

/* A folder is read as ingest reads it (hg_input_list_folder: its report
 * files, recursively, regular files only, sorted), each file as if named
 * on the command line. */
static void read_input(struct stack_run *run, const char *path)
{
	if (!hg_input_is_folder(path)) {
		read_one(run, path);
		return;
	}
	hg_path_list list;
	if (hg_input_list_folder(&run->ctx, path, &list) != 0) {
		input_failed(run, path);
		return;
	}
	for (size_t i = 0; i < list.n && !hg_pipe_stopped(run->pipe); i++)
		read_one(run, list.paths[i]);
	hg_path_list_release(&list);
}

/* The reader thread: every input in turn, then what it said last. */
static void read_all(void *arg)
{
	struct stack_run *run = arg;
	for (int i = 0; i < run->n_inputs && !hg_pipe_stopped(run->pipe); i++)
		read_input(run, run->inputs[i]);
	if (run->pending_diags.len) {
		struct stack_item last = {0};
		queue_item(run, &last);
	}
	hg_pipe_close(run->pipe);
}

/* The main thread: prints what the reader queued, in order. */
static void print_all(struct stack_run *run)
{
	struct stack_item taken[STACK_PIPE_LEN];
	size_t n;
	bool failed = false;
	while ((n = hg_pipe_take(run->pipe, taken, STACK_PIPE_LEN)) > 0) {
		for (size_t i = 0; i < n; i++) {
			struct stack_item *it = &taken[i];
			if (!failed) {
				if (it->diags.len) {
					flush_out(run);
					fflush(stdout); /* stdout's text before, as one thread has it */
					cli_write_text(stderr, it->diags.data, it->diags.len);
				}
				if (it->text.len) {
					flush_out(run);
					fwrite(it->text.data, 1, it->text.len, stdout);
				}
				run->failed_reports += it->failed_input;
				if (it->rep && !name_methods(run, it))
					it->out_of_memory = true;
				if (it->rep && print_report(run, it->rep, it->out_of_memory) != 0) {
					failed = true;
					hg_pipe_stop(run->pipe);
				}
			}
			stack_item_release(it);
		}
		/* Nothing more to print now: what is held goes out before the
		 * wait, so that a report read is shown without waiting for more. */
		if (!hg_pipe_ready(run->pipe) && !flame_format_single(run->format)) {
			flush_out(run);
			fflush(stdout);
		}
	}
	if (!flame_format_single(run->format))
		flush_out(run);
}

static int run_stack(int argc, char **argv)
{
	struct stack_run run = {0};
	hg_ctx_init(&run.ctx);
	run.ctx.diag = cli_print_diag;
	run.ctx.diag_user = &run.diags;
	run.render.max_depth = -1;
	run.render.flush = write_buf; /* a big report's text goes out as it is made */
	run.render.flush_user = &run;
	run.raw_opts.strict = true;
	hg_buf_init(&run.out);
	hg_buf_init(&run.first_flame);
	hg_buf_init(&run.first_undrawn);
	bool raw_only_used = false;
	int rc = parse_options(&run, argc, argv, &raw_only_used);
	if (rc != 0)
		return rc < 0 ? EXIT_FINE : rc;
	if (optind >= argc)
		return cli_usage_error("stack", "no input: give a report FILE, or '-' for stdin");
	if (raw_only_used && !run.raw)
		return cli_usage_error("stack", "--end-time, --cost and --no-strict go with --raw; "
				       "a JSON report carries its own end_time, cost and strict");
	bool tried = false;
	if (run.mapping_path)
		load_once(&run, run.mapping_path, &tried);
	for (int i = 0; i < run.n_proguard; i++) {
		if (hg_proguard_open(&run.ctx, run.proguard_paths[i], &run.proguard[run.n_loaded]) == 0)
			run.n_loaded++;
		else
			run.mapping_failed = true; /* reported; frames stay obfuscated */
	}
	hg_symbols_opts so = {.dirs = run.symbol_dirs, .n_dirs = (size_t)run.n_symbol_dirs};
	if (run.n_symbol_dirs && hg_symbols_create(&run.ctx, &so, &run.symbols) != 0)
		run.mapping_failed = true; /* said; native frames stay addresses */
	/* The mappings loaded above said what they had to directly; from here
	 * on the reader's diagnostics go with its reports. */
	run.ctx.diag = hold_diag;
	run.ctx.diag_user = &run;
	hg_buf_init(&run.pending_diags);
	run.inputs = argv + optind;
	run.n_inputs = argc - optind;
	bool started = hg_pipe_create(sizeof(struct stack_item), STACK_PIPE_LEN, stack_item_release,
				      &run.pipe) == 0 &&
		       hg_pipe_start(run.pipe, read_all, &run) == 0;
	if (started) {
		print_all(&run);
		hg_pipe_join(run.pipe);
	} else {
		fprintf(stderr, "hangar stack: cannot start the reading thread\n");
		run.failed_reports++;
	}
	hg_pipe_destroy(run.pipe);
	if (run.symbols) {
		hg_symbols_stats ss;
		hg_symbols_get_stats(run.symbols, &ss);
		fprintf(stderr, "symbols: %zu binaries indexed (%zu files seen), %zu images found, "
			"%zu missing; %zu frames named (%zu inlined added), %zu not; %zu binaries "
			"used, %zu queries in %zu batches\n", ss.binaries, ss.entries_seen,
			ss.images_found, ss.images_missing, ss.frames_named, ss.inlined,
			ss.frames_unnamed, ss.binaries_used, ss.queries, ss.batches);
	}
	hg_symbols_destroy(run.symbols);
	hg_buf_release(&run.pending_diags);
	undrawn_say(&run);
	hg_buf_release(&run.first_undrawn);
	if (!run.flame_refused)
		flush_out(&run); /* a one-report format's file */
	hg_buf_release(&run.first_flame);
	fflush(stdout);
	hg_mapping_destroy(run.fixed_mapping);
	for (int i = 0; i < run.n_loaded; i++)
		hg_proguard_destroy(run.proguard[i]);
	hg_mapping_destroy(run.local_mapping);
	free(run.local_dir);
	hg_buf_release(&run.out);
	return run.failed_reports || run.mapping_failed || run.mapping_failed_here ? EXIT_SOME_FAILED
										       : EXIT_FINE;
}

const struct command cmd_stack = {
	"stack",
	"read any jank/ANR report: call trees, blamed threads, figures; text or JSON",
	run_stack,
	stack_usage,
};
