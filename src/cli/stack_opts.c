/* hangar stack's options (see stack_opts.h): --help, and what each option
 * sets. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack_opts.h"

void stack_usage(FILE *out)
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
		"  -m, --mapping FILE    methodMapping.txt for every report (default: next to\n"
		"                        the report, then $HANGAR_MAPPING)\n"
		"      --mapping-dir DIR per app version: DIR/<version>/methodMapping.txt and\n"
		"                        DIR/<version>/mapping.txt (then -m and --proguard\n"
		"                        for versions without them)\n"
		"      --app-version V   the version of reports that do not say\n"
		"      --proguard FILE   ProGuard/R8 mapping.txt to deobfuscate Java frames with\n"
		"                        (repeatable; the first that knows a class wins)\n"
		"      --symbols DIR     name native frames from the .so files and dSYMs in DIR,\n"
		"                        matched by Build ID / UUID (repeatable; llvm-symbolizer)\n"
		"      --explain         why each report has its signature, as ingest signs\n"
		"                        it: the parts, and each frame's owner, the rule that\n"
		"                        decided and whether it was hashed (instead of the\n"
		"                        tree; with -f json, each report's \"explain\")\n"
		"      --rules FILE      with --explain: grouping rules (see hangar-formats(5))\n"
		"      --app NAME        with --explain: the app of reports that name none\n"
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

void stack_opts_init(struct stack_opts *o)
{
	*o = (struct stack_opts){0};
	hg_ctx_init(&o->ctx);
	char why[160];
	hg_timezone_init(&o->zone, "UTC", why, sizeof why);
	o->render.max_depth = -1;
	o->format = hg_output_format_find("tree", HG_RENDERS_REPORT);
	o->raw_opts.strict = true;
}

/* Not an option of the group asked: the next group is. */
enum { NOT_MINE = -1 };

/* How reports are named: as ingest names them (hg_namer). */
static int naming_option(struct stack_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'm': o->mapping = arg; break;
	case 'P':
		if (o->n_proguard == HG_NAMER_MAX_PROGUARD)
			return cli_usage_error("stack", "at most %d --proguard files",
					       HG_NAMER_MAX_PROGUARD);
		o->proguard[o->n_proguard++] = arg;
		break;
	case 'Y':
		if (o->n_symbol_dirs == HG_NAMER_MAX_SYMBOLS)
			return cli_usage_error("stack", "at most %d --symbols folders",
					       HG_NAMER_MAX_SYMBOLS);
		if (cli_need_path("stack", "--symbols", arg) != EXIT_FINE)
			return EXIT_USAGE;
		o->symbol_dirs[o->n_symbol_dirs++] = arg;
		break;
	case 'G':
		if (cli_need_folder("stack", "--mapping-dir", arg) != EXIT_FINE)
			return EXIT_USAGE;
		o->mapping_dir = arg;
		break;
	case 'V': o->app_version = arg; break;
	case 'x': o->explain = true; break;
	case 'U': o->rules = arg; break;
	case 'N':
		if (!*arg)
			return cli_usage_error("stack", "--app wants a name, such as com.example.app");
		o->app = arg;
		break;
	default: return NOT_MINE;
	}
	return EXIT_FINE;
}

/* What is printed, and how. */
static int output_option(struct stack_opts *o, int c, const char *arg)
{
	int64_t v;
	switch (c) {
	case 'f':
		if (!(o->format = hg_output_format_find(arg, HG_RENDERS_REPORT)))
			return cli_format_error("stack", arg, HG_RENDERS_REPORT);
		break;
	case 'T': o->render.no_trim = true; break;
	case 'a': o->render.all_threads = true; break;
	case 'D':
		if (!cli_parse_int64(arg, &v) || v < 0 || v > 1000000)
			return cli_usage_error("stack", "--max-depth wants a number >= 0, not '%s'", arg);
		o->render.max_depth = (long)v;
		break;
	case 'C':
		if (!cli_parse_int64(arg, &v) || v < 0)
			return cli_usage_error("stack", "--min-cost wants milliseconds >= 0, not '%s'", arg);
		o->render.min_cost = v;
		break;
	case 'A': o->render.ascii = true; break;
	case 'w':
		if (!cli_parse_width(arg, &o->render.width))
			return cli_usage_error("stack", "--width wants columns >= 0 (0: no limit), "
					       "not '%s'", arg);
		o->width_set = true;
		break;
	case 'K':
		if (!strcmp(arg, "auto")) o->color = COLOR_AUTO;
		else if (!strcmp(arg, "always")) o->color = COLOR_ALWAYS;
		else if (!strcmp(arg, "never")) o->color = COLOR_NEVER;
		else return cli_usage_error("stack", "--color wants auto, always or never, not '%s'", arg);
		break;
	default: return NOT_MINE;
	}
	return EXIT_FINE;
}

/* How inputs are read, and their limits. */
static int reading_option(struct stack_opts *o, int c, const char *arg)
{
	int64_t v;
	char why[160];
	switch (c) {
	case 'i': {
		int f = hg_input_format_from_name(arg);
		if (f < 0)
			return cli_usage_error("stack", "unknown input format '%s' (matrix, kscrash, "
					       "metrickit, anr, logcat, tombstone, blockcanary, "
					       "watchdog, java, stack, raw)", arg);
		o->input_format = (enum hg_input_format)f;
		o->raw = f == HG_FORMAT_RAW;
		break;
	}
	case 'd':
		if (cli_need_folder("stack", "--stack-dir", arg) != EXIT_FINE)
			return EXIT_USAGE;
		o->ctx.stack_dir = arg;
		break;
	case 'z':
		if (hg_timezone_init(&o->zone, arg, why, sizeof why) != 0)
			return cli_usage_error("stack", "--timezone: %s", why);
		break;
	case 'R': o->raw = true; o->input_format = HG_FORMAT_RAW; break;
	case 'E':
		if (!cli_parse_int64(arg, &o->raw_opts.end_time))
			return cli_usage_error("stack", "--end-time wants an integer, not '%s'", arg);
		o->raw_opts.has_end_time = true;
		o->raw_only_used = true;
		break;
	case 'c':
		if (!cli_parse_int64(arg, &o->raw_opts.cost))
			return cli_usage_error("stack", "--cost wants an integer, not '%s'", arg);
		o->raw_only_used = true;
		break;
	case 'S': o->raw_opts.strict = false; o->raw_only_used = true; break;
	case 'I':
		if (!cli_parse_int64(arg, &v) || v <= 0)
			return cli_usage_error("stack", "--max-input wants a byte count > 0, not '%s'", arg);
		o->ctx.limits.max_input_bytes = (size_t)v;
		break;
	case 'W':
		if (!cli_parse_int64(arg, &v) || v <= 0)
			return cli_usage_error("stack", "--max-words wants a count > 0, not '%s'", arg);
		o->ctx.limits.max_buffer_words = (size_t)v;
		break;
	case 'L':
		if (!cli_parse_int64(arg, &v) || v <= 0)
			return cli_usage_error("stack", "--max-stack-lines wants a count > 0, not '%s'", arg);
		o->ctx.limits.max_stack_lines = (size_t)v;
		break;
	case 'M':
		if (!cli_parse_int64(arg, &v) || v <= 0)
			return cli_usage_error("stack", "--max-mapping wants a byte count > 0, not '%s'", arg);
		o->ctx.limits.max_mapping_bytes = (size_t)v;
		break;
	default: return NOT_MINE;
	}
	return EXIT_FINE;
}

int stack_option(struct stack_opts *o, int c, const char *arg)
{
	int rc = naming_option(o, c, arg);
	if (rc == NOT_MINE)
		rc = output_option(o, c, arg);
	if (rc == NOT_MINE)
		rc = reading_option(o, c, arg);
	return rc == NOT_MINE ? cli_usage_error("stack", "unknown option") : rc;
}

int stack_opts_finish(struct stack_opts *o)
{
	if (o->raw_only_used && !o->raw)
		return cli_usage_error("stack", "--end-time, --cost and --no-strict go with --raw; "
				       "a JSON report carries its own end_time, cost and strict");
	if ((o->rules || o->app) && !o->explain)
		return cli_usage_error("stack", "--rules and --app go with --explain");
	if (o->explain && o->format->id != HG_OUT_TREE && o->format->id != HG_OUT_JSON)
		return cli_usage_error("stack", "--explain goes with -f tree or -f json, not -f %s",
				       o->format->name);
	o->render.color = cli_use_color(o->color, stdout) && o->format->text;
	cli_text_colour(o->render.color);
	if (!o->width_set)
		o->render.width = cli_default_width(STDOUT_FILENO);
	o->zone.who = "hangar stack";
	o->ctx.zone = &o->zone;
	o->ctx.want_times = o->format->timed;
	o->ctx.defer_rebuild = 1; /* to the main thread, which names the reports */
	return EXIT_FINE;
}
