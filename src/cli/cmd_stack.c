/* hangar stack: read reports of every kind, name them as every command
 * does (hg_namer, hangar/namer.h) and print them.  Its options are
 * stack_opts.c's; the reading thread and the printing one, stack_pipeline.h. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hangar/cluster.h"
#include "hangar/input.h"
#include "hangar/namer.h"
#include "hangar/report.h"
#include "hangar/render.h"
#include "stack_opts.h"
#include "stack_pipeline.h"

struct stack_run {
	struct stack_opts o;         /* as parsed */
	hg_ctx ctx;                  /* the reading thread's: o.ctx, its diagnostics held */
	const hg_output_format *format; /* o.format: a row of hg_output_formats */
	hg_render_opts render;   /* o.render, writing its text as it goes */
	/* The printing thread's: names each report before it prints it (see
	 * name_report), saying what it has to say at once, in order. */
	hg_namer *names;
	hg_ctx name_ctx;
	struct cli_diag_sink name_diags;
	bool load_failed;            /* -m, a --proguard or --symbols did not load */
	hg_rules *rules;             /* --rules (--explain) */
	long explained;              /* --explain's text: reports explained so far */
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
	{"mapping-dir", required_argument, NULL, 'G'},
	{"app-version", required_argument, NULL, 'V'},
	{"explain", no_argument, NULL, 'x'},
	{"rules", required_argument, NULL, 'U'},
	{"app", required_argument, NULL, 'N'},
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

/* The options (stack_opts.c); -1 after --help. */
static int parse_options(struct stack_run *run, int argc, char **argv)
{
	int c, bad;
	stack_opts_init(&run->o);
	optind = 1;
	opterr = 0; /* our own messages, naming hangar */
	while ((c = getopt_long(argc, argv, ":m:f:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'h': stack_usage(stdout); return -1;
		case ':': return cli_usage_error("stack", "option '%s' needs a value", argv[optind - 1]);
		case '?': return cli_unknown_option("stack", long_options, argv, optind, optopt);
		default:
			if ((bad = stack_option(&run->o, c, optarg)) != EXIT_FINE)
				return bad;
		}
	}
	if (optind >= argc)
		return cli_usage_error("stack", "no input: give a report FILE, or '-' for stdin");
	return stack_opts_finish(&run->o);
}

/* How much rendered text print_report gathers before writing it. */
#define OUT_CHUNK (64 * 1024)

/* The tree is text for a person (cli_write_text); the other formats
 * are data, written exactly. */
static void write_buf(hg_buf *out, void *user)
{
	const struct stack_run *run = user;
	if (out->len && run->format->text)
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
	struct stack_item item = {.rep = rep}; /* named by the printing thread */
	return queue_item(user, &item);
}

/* Printing thread: the report named as ingest names it (hg_namer: the
 * buffer rebuilt, then its methods, Java and native frames).  Not on the
 * reading thread: the rebuild is left to this one so that the two share a
 * raw buffer's cost, methods are named on the rebuilt stack, and a namer
 * is for one thread (it loads mappings as reports need them).  False when
 * out of memory. */
static bool name_report(struct stack_run *run, hg_report *rep)
{
	if (!rep->error && !rep->process && run->o.app) /* ingest --app, before naming as there */
		rep->process = hg_arena_strdup(rep->arena, run->o.app);
	return rep->error || hg_namer_name(run->names, rep, run->o.app_version, rep->source) == 0;
}

/* The namer's diagnostics, on the printing thread: after the text of the
 * reports before, as one thread would have them. */
static void name_diag(void *user, const hg_diag *d)
{
	struct stack_run *run = user;
	flush_out(run);
	fflush(stdout);
	cli_print_diag(&run->name_diags, d);
}

/* The namer, given what the options name.  A mapping or symbols folder
 * that does not load is said and left out: the reports still print, and
 * the run fails (load_failed).  False when there is no namer (said). */
static bool open_names(struct stack_run *run)
{
	const struct stack_opts *o = &run->o;
	run->name_ctx = o->ctx;
	run->name_ctx.diag = name_diag;
	run->name_ctx.diag_user = run;
	hg_namer_opts no = {.mapping_dir = o->mapping_dir};
	int rc = hg_namer_create(&run->name_ctx, &no, &run->names);
	if (rc != 0) { /* out of memory, or --mapping-dir gone since it was checked */
		fprintf(stderr, "hangar stack: cannot name reports: %s\n", hg_strerror(rc));
		return false;
	}
	if (o->mapping && hg_namer_add_mapping(run->names, o->mapping) != 0)
		run->load_failed = true;
	for (int i = 0; i < o->n_proguard; i++)
		if (hg_namer_add_proguard(run->names, o->proguard[i]) != 0)
			run->load_failed = true; /* said; its frames stay obfuscated */
	if (hg_namer_add_symbols(run->names, o->symbol_dirs, o->n_symbol_dirs) != 0)
		run->load_failed = true; /* said; native frames stay addresses */
	return true;
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
	bool single = run->format->single;
	if (single && run->flames > 0) {
		fflush(stdout);
		say_report(stderr, rep);
		const char *name = run->format->name;
		cli_fprintf(stderr, "-f %s writes one report's profile, and the input holds more (the "
			"first: %s); give it one report (of NDJSON, a line: sed -n %ldp %s | hangar "
			"stack -f %s -)\n", name, run->first_flame.data, rep->line > 0 ? rep->line : 1,
			rep->source, name);
		run->flame_refused = true;
		run->failed_reports++;
		return 1;
	}
	int rc = hg_render_report(&run->out, rep, run->format, &run->render, MAX_FOLDED_BYTES);
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

/* --explain: why the report has its signature (signed as ingest signs
 * it): its header and the explanation instead of the tree; in JSON, the
 * report's object with an "explain" member, put before its closing brace
 * (the whole object is in out: no flush with --explain). */
static void print_explained(struct stack_run *run, hg_report *rep)
{
	hg_explain ex;
	int rc = rep->error ? HG_EINVAL : hg_signature_explain(rep, run->rules, rep->arena, &ex);
	if (rc == HG_ENOMEM)
		run->out.failed = 1;
	if (run->format->id == HG_OUT_JSON) {
		hg_render_report(&run->out, rep, run->format, &run->render, 0);
		if (rc == 0 && run->out.len >= 2 && !memcmp(run->out.data + run->out.len - 2, "}\n", 2)) {
			run->out.len -= 2;
			hg_buf_puts(&run->out, ",\"explain\":");
			hg_render_explain_json(&run->out, &ex);
			hg_buf_puts(&run->out, "}\n");
		}
	} else if (rc == 0) { /* a report that failed was said on stderr */
		/* the tree's header: narrow, the number under the path, never cut
		 * (24: " (report N) ==" with room for N) */
		size_t start = run->out.len + (run->explained ? 1 : 0);
		hg_buf_printf(&run->out, "%s== ", run->explained++ ? "\n" : "");
		hg_buf_visible(&run->out, rep->source, strlen(rep->source));
		if (rep->line > 0)
			hg_buf_printf(&run->out, ":%ld", rep->line);
		int w = run->render.width;
		bool fits = w <= 0 || run->out.len - start + 24 <= (size_t)w;
		hg_buf_printf(&run->out, "%s(report %ld) ==\n", fits ? " " : "\n  ", rep->number);
		hg_render_explain(&run->out, &ex, run->render.width);
	}
}

/* Main thread: one report rendered and written. */
static int print_report(struct stack_run *run, hg_report *rep, bool out_of_memory)
{
	if (rep->error)
		run->failed_reports++;
	if (out_of_memory)
		run->out.failed = 1;
	int stop = 0;
	if (run->format->flame)
		stop = print_flame(run, rep);
	else if (run->o.explain)
		print_explained(run, rep);
	else
		hg_render_report(&run->out, rep, run->format, &run->render, 0);
	if (run->out.failed) {
		fprintf(stderr, "hangar stack: out of memory\n");
		return HG_ENOMEM;
	}
	if (stop)
		return 1;
	/* else written whole at the end; the rest goes out in chunks (a
	 * write(2) a report cost the printing thread a system call each) and
	 * whenever the reader has nothing more queued (print_all). */
	if (!run->format->single && run->out.len >= OUT_CHUNK)
		flush_out(run);
	return 0;
}

/* A file that cannot be read (or the rest of it) is one failed input: say
 * so in the machine formats too, so a pipeline sees it. */
static void input_failed(struct stack_run *run, const char *path)
{
	struct stack_item item = {.failed_input = true};
	if (run->format->id == HG_OUT_JSON || run->format->id == HG_OUT_MATRIX) {
		hg_buf_puts(&item.text, "{\"source\":");
		hg_buf_json_string(&item.text, path, strlen(path));
		hg_buf_puts(&item.text, ",\"report\":0,\"error\":");
		hg_buf_json_string(&item.text, run->diags.last, strlen(run->diags.last));
		hg_buf_puts(&item.text, "}\n");
	}
	queue_item(run, &item);
}

/* Reports are read as ingest reads them: a stream of JSON values a part
 * at a time, so that memory follows the largest report, not the file. */
static void read_one(struct stack_run *run, const char *path)
{
	if (!run->o.raw) {
		int rc = hg_reports_read_path(&run->ctx, path, NULL, run->o.input_format, on_report,
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
	hg_reports_read_raw(&run->ctx, path, (const unsigned char *)data, len, &run->o.raw_opts,
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
				if (it->rep && !name_report(run, it->rep))
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
		if (!hg_pipe_ready(run->pipe) && !run->format->single) {
			flush_out(run);
			fflush(stdout);
		}
	}
	if (!run->format->single)
		flush_out(run);
}

/* What --symbols did, on stderr. */
static void symbols_say(const struct stack_run *run)
{
	hg_symbols_stats ss;
	if (!hg_namer_symbols_stats(run->names, &ss))
		return;
	fprintf(stderr, "symbols: %zu binaries indexed (%zu files seen), %zu images found, "
		"%zu missing; %zu frames named (%zu inlined added), %zu not; %zu binaries "
		"used, %zu queries in %zu batches\n", ss.binaries, ss.entries_seen,
		ss.images_found, ss.images_missing, ss.frames_named, ss.inlined,
		ss.frames_unnamed, ss.binaries_used, ss.queries, ss.batches);
}

static int run_stack(int argc, char **argv)
{
	struct stack_run run = {0};
	int rc = parse_options(&run, argc, argv);
	if (rc != 0)
		return rc < 0 ? EXIT_FINE : rc;
	run.format = run.o.format;
	run.render = run.o.render;
	run.render.flush = run.o.explain ? NULL : write_buf; /* a big report's text goes out as
							       * it is made */
	run.render.flush_user = &run;
	hg_buf_init(&run.out);
	hg_buf_init(&run.first_flame);
	hg_buf_init(&run.first_undrawn);
	hg_buf_init(&run.pending_diags);
	if (run.o.rules) { /* without them, an explanation would not be ingest's */
		hg_ctx rules_ctx = run.o.ctx;
		rules_ctx.diag = cli_print_diag;
		if (hg_rules_load(&rules_ctx, run.o.rules, &run.rules) != 0)
			return EXIT_SOME_FAILED;
	}
	if (!open_names(&run)) {
		hg_rules_destroy(run.rules);
		return EXIT_SOME_FAILED;
	}
	/* The reader's diagnostics go with its reports. */
	run.ctx = run.o.ctx;
	run.ctx.diag = hold_diag;
	run.ctx.diag_user = &run;
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
	symbols_say(&run);
	bool bad_mappings = hg_namer_bad_mappings(run.names) > 0;
	hg_namer_destroy(run.names);
	hg_rules_destroy(run.rules);
	hg_buf_release(&run.pending_diags);
	undrawn_say(&run);
	hg_buf_release(&run.first_undrawn);
	if (!run.flame_refused)
		flush_out(&run); /* a one-report format's file */
	hg_buf_release(&run.first_flame);
	fflush(stdout);
	hg_buf_release(&run.out);
	return run.failed_reports || run.load_failed || bad_mappings ? EXIT_SOME_FAILED : EXIT_FINE;
}

const struct command cmd_stack = {
	"stack",
	"read any jank/ANR report: call trees, blamed threads, figures; text or JSON",
	run_stack,
	stack_usage,
};
