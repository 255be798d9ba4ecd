/* hangar symbolicate: a filter that names what it can in any text (logcat,
 * ANR dumps, Matrix stacks, NDJSON reports) and keeps every other byte. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hangar/demangle.h"
#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "hangar/stack.h"
#include "hangar/symbols.h"
#include "hangar/text.h"

#define MAX_LINE ((size_t)16 << 20) /* longer lines pass through unchanged */
#define READ_SIZE ((size_t)64 << 10)
#define FLUSH_AT ((size_t)64 << 10)

static void symbolicate_usage(FILE *out)
{
	fprintf(out,
		"usage: hangar symbolicate [--proguard FILE]... [-m FILE] [--symbols DIR]... [INPUT...]\n"
		"\n"
		"Copy text (INPUT files, or standard input) to standard output with obfuscated\n"
		"names and method ids replaced, keeping every other byte: drops into a pipeline.\n"
		"\n"
		"  - Java frames 'at a.b.c(SourceFile:12)' (also bare, and inside JSON strings)\n"
		"    are retraced; an inlined frame becomes several lines; when the line cannot\n"
		"    tell methods apart every candidate is printed, the others with '<OR> '\n"
		"  - exception lines ('a.b.c: msg', 'Caused by: ...') and ANR lock lines\n"
		"    ('- locked <0x..> (a a.b.c)') get their class names back\n"
		"  - with a methodMapping.txt: Matrix stack lines 'depth,id,count,cost' keep\n"
		"    their numbers and get '  # <method>' appended; StackKeys '<id>|' (alone on\n"
		"    a line, or after a stackKey label, as in \"stackKey\":\"<id>|\") become\n"
		"    '<method>|'\n"
		"  - with --symbols: native frames '#00 pc 000000000004f0a8  /.../libfoo.so\n"
		"    (BuildId: ...)' get '  # function file:line' appended\n"
		"  - mangled C++ and Swift names ('_ZN3art6Thread4DumpEv', '$s4main3FooV3baryyF')\n"
		"    become readable ('art::Thread::Dump()', 'main.Foo.bar() -> ()')\n"
		"\n"
		"Options:\n"
		"  -p, --proguard FILE   ProGuard/R8 mapping.txt; repeat for several (the first\n"
		"                        that knows a class is used; one whose pg_map_id a frame\n"
		"                        names as its r8-map-id source file goes first)\n"
		"  -m, --mapping FILE    methodMapping.txt for Matrix ids (default:\n"
		"                        $HANGAR_MAPPING)\n"
		"      --symbols DIR     .so files that name native frames, matched by Build ID\n"
		"                        (repeatable; llvm-symbolizer, one question per line)\n"
		"      --max-mapping BYTES  largest mapping file (default and most 4294967294)\n"
		"  -h, --help            show this help\n"
		"\n"
		"Lines longer than 16 MiB pass through unchanged.\n"
		"Exit status: 0 fine, 1 a mapping or an input could not be read (the rest is\n"
		"still filtered), 2 usage.\n");
}

struct sym_run {
	hg_ctx ctx;
	struct cli_diag_sink diags;
	const hg_proguard **maps;
	size_t n_maps;
	hg_mapping *ids;
	hg_proguard_stream *stream;
	hg_symbols *symbols;   /* --symbols */
	hg_buf line, retraced, out;
	hg_demangler *names;   /* mangled native names made readable; NULL: ENOMEM at start */
	hg_buf demangled;
	bool failed;
	bool passing;          /* inside an overlong line */
	long line_no;
};

static const struct option long_options[] = {
	{"proguard", required_argument, NULL, 'p'},
	{"mapping", required_argument, NULL, 'm'},
	{"symbols", required_argument, NULL, 'Y'},
	{"max-mapping", required_argument, NULL, 'M'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* ---- Matrix ids (methodMapping.txt) ---- */

/* Names the Matrix ids of one line s[0..n) (with its terminator). */
static void name_ids(struct sym_run *run, const char *s, size_t n)
{
	size_t body = n;
	while (body && (s[body - 1] == '\n' || s[body - 1] == '\r'))
		body--;
	int32_t id = 0;
	size_t key_end = 0, key = body;
	bool stack = hg_stack_line_id(s, body, &id);
	if (!stack)
		key = hg_stack_key_span(s, body, &key_end);
	if (!stack && key == body) {
		hg_buf_add(&run->out, s, n);
		return;
	}
	hg_arena *arena = hg_arena_create();
	if (!arena) {
		run->out.failed = 1;
		return;
	}
	if (stack) {
		const char *sym = hg_mapping_symbol(run->ids, id, arena);
		hg_buf_add(&run->out, s, body);
		if (sym)
			hg_buf_printf(&run->out, "  # %s", sym);
		hg_buf_add(&run->out, s + body, n - body);
	} else {
		hg_buf_add(&run->out, s, key);
		for (size_t j = key; j < key_end;) {
			size_t start = j;
			while (j < key_end && s[j] != '|') /* digits: hg_stack_key_span checked */
				j++;
			id = (int32_t)strtol(s + start, NULL, 10);
			const char *sym = hg_mapping_symbol(run->ids, id, arena);
			if (sym)
				hg_buf_puts(&run->out, sym);
			else
				hg_buf_add(&run->out, s + start, j - start);
			hg_buf_putc(&run->out, '|');
			j++;
		}
		hg_buf_add(&run->out, s + key_end, n - key_end);
	}
	hg_arena_destroy(arena);
}

/* ---- the filter ---- */

static int flush_out(struct sym_run *run, bool force)
{
	if (run->out.failed)
		return HG_ENOMEM;
	if (run->out.len && (force || run->out.len >= FLUSH_AT)) {
		/* a filter keeps its bytes for the next program; a terminal
		 * gets them visible (cli_write_stored) */
		cli_write_stored(stdout, run->out.data, run->out.len);
		if (ferror(stdout))
			return HG_EIO;
		hg_buf_reset(&run->out);
	}
	return 0;
}

/* Sends retraced text on, naming ids line by line. */
static void pass_ids(struct sym_run *run, const char *s, size_t n)
{
	if (!run->ids && !run->symbols) {
		hg_buf_add(&run->out, s, n);
		return;
	}
	for (size_t p = 0; p < n;) {
		const char *nl = memchr(s + p, '\n', n - p);
		size_t e = nl ? (size_t)(nl - s) + 1 : n;
		int named = run->symbols ? hg_symbols_text_line(run->symbols, s + p, e - p, &run->out) : 0;
		if (named < 0)
			run->out.failed = 1;
		else if (named == 0 && run->ids)
			name_ids(run, s + p, e - p);
		else if (named == 0)
			hg_buf_add(&run->out, s + p, e - p);
		p = e;
	}
}

static int one_line(struct sym_run *run, const char *s, size_t n)
{
	run->line_no++;
	hg_buf_reset(&run->demangled);
	if (hg_demangle_text(run->names, s, n, &run->demangled) != 0)
		return HG_ENOMEM;
	s = run->demangled.data ? run->demangled.data : s;
	n = run->demangled.len;
	if (run->stream) {
		hg_buf_reset(&run->retraced);
		if (hg_proguard_stream_line(run->stream, s, n, &run->retraced) != 0)
			return HG_ENOMEM;
		pass_ids(run, run->retraced.data, run->retraced.len);
	} else {
		pass_ids(run, s, n);
	}
	return flush_out(run, false);
}

static int finish_stream(struct sym_run *run)
{
	if (!run->stream)
		return 0;
	hg_buf_reset(&run->retraced);
	if (hg_proguard_stream_finish(run->stream, &run->retraced) != 0)
		return HG_ENOMEM;
	pass_ids(run, run->retraced.data, run->retraced.len);
	return flush_out(run, false);
}

/* Feeds the bytes of one read: whole lines are filtered; a line over
 * MAX_LINE goes out as it is. */
static int feed(struct sym_run *run, const char *buf, size_t n)
{
	for (size_t p = 0; p < n;) {
		const char *nl = memchr(buf + p, '\n', n - p);
		size_t e = nl ? (size_t)(nl - buf) + 1 : n;
		int rc = 0;
		if (run->passing) {
			hg_buf_add(&run->out, buf + p, e - p);
			run->passing = !nl;
			rc = flush_out(run, false);
		} else if (nl && run->line.len == 0) {
			rc = one_line(run, buf + p, e - p);
		} else {
			hg_buf_add(&run->line, buf + p, e - p);
			if (nl) {
				rc = one_line(run, run->line.data, run->line.len);
				hg_buf_reset(&run->line);
			} else if (run->line.len > MAX_LINE) {
				fprintf(stderr, "hangar symbolicate: line %ld is longer than %zu MiB: "
						"passed through unchanged\n",
					run->line_no + 1, MAX_LINE >> 20);
				rc = finish_stream(run);
				run->line_no++;
				hg_buf_add(&run->out, run->line.data, run->line.len);
				hg_buf_reset(&run->line);
				run->passing = true;
			}
			if (run->line.failed)
				rc = HG_ENOMEM;
		}
		if (rc != 0)
			return rc;
		p = e;
	}
	return 0;
}

static int filter(struct sym_run *run, const char *path)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "hangar symbolicate: cannot open %s: %s\n", path, strerror(errno));
		run->failed = true;
		return 0;
	}
	char *buf = malloc(READ_SIZE);
	int rc = buf ? 0 : HG_ENOMEM;
	while (rc == 0) {
		ssize_t n = read(fd, buf, READ_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "hangar symbolicate: cannot read %s: %s\n", path, strerror(errno));
			run->failed = true;
			break;
		}
		if (n == 0)
			break;
		rc = feed(run, buf, (size_t)n);
	}
	if (rc == 0 && run->line.len) { /* a last line without newline */
		rc = one_line(run, run->line.data, run->line.len);
		hg_buf_reset(&run->line);
	}
	run->passing = false;
	if (rc == 0)
		rc = finish_stream(run);
	free(buf);
	if (fd != 0)
		close(fd);
	return rc;
}

static int load_maps(struct sym_run *run, char **paths, size_t n, const char *ids_path)
{
	run->maps = calloc(n ? n : 1, sizeof *run->maps);
	if (!run->maps)
		return HG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		hg_proguard *pg;
		int rc = hg_proguard_open(&run->ctx, paths[i], &pg);
		if (rc == HG_ENOMEM)
			return rc;
		if (rc != 0)
			run->failed = true; /* the others still apply */
		else
			run->maps[run->n_maps++] = pg;
	}
	if (ids_path) {
		int rc = hg_mapping_open(&run->ctx, ids_path, &run->ids);
		if (rc == HG_ENOMEM)
			return rc;
		if (rc != 0) {
			run->ids = NULL;
			run->failed = true;
		}
	}
	if (run->n_maps && hg_proguard_stream_create(run->maps, run->n_maps, &run->stream) != 0)
		return HG_ENOMEM;
	return 0;
}

static int run_symbolicate(int argc, char **argv)
{
	struct sym_run run = {0};
	hg_ctx_init(&run.ctx);
	run.ctx.diag = cli_print_diag;
	run.ctx.diag_user = &run.diags;
	char **pg_paths = calloc((size_t)argc, sizeof *pg_paths);
	size_t n_pg = 0, n_sym = 0;
	const char **sym_dirs = calloc((size_t)argc, sizeof *sym_dirs);
	const char *ids_path = NULL;
	int64_t v;
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	if (!pg_paths || !sym_dirs) {
		free(pg_paths);
		free(sym_dirs);
		return EXIT_SOME_FAILED;
	}
	while (rc == 0 && (c = getopt_long(argc, argv, ":p:m:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'p': pg_paths[n_pg++] = optarg; break;
		case 'm': ids_path = optarg; break;
		case 'Y':
			if ((rc = cli_need_path("symbolicate", "--symbols", optarg)) == EXIT_FINE)
				sym_dirs[n_sym++] = optarg;
			break;
		case 'M':
			if (!cli_parse_int64(optarg, &v) || v <= 0)
				rc = cli_usage_error("symbolicate", "--max-mapping wants a byte count > 0, not '%s'",
						     optarg);
			else
				run.ctx.limits.max_mapping_bytes = (size_t)v;
			break;
		case 'h':
			symbolicate_usage(stdout);
			free(pg_paths);
			free(sym_dirs);
			return EXIT_FINE;
		case ':':
			rc = cli_usage_error("symbolicate", "option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			rc = cli_unknown_option("symbolicate", long_options, argv, optind, optopt);
		}
	}
	const char *env = getenv("HANGAR_MAPPING");
	if (!ids_path && env && *env)
		ids_path = env;
	if (rc != 0) {
		free(pg_paths);
		free(sym_dirs);
		return rc;
	}
	hg_symbols_opts so = {.dirs = sym_dirs, .n_dirs = n_sym};
	if (n_sym && hg_symbols_create(&run.ctx, &so, &run.symbols) != 0)
		run.failed = true; /* said; native frames pass unchanged */
	hg_buf_init(&run.line);
	hg_buf_init(&run.retraced);
	hg_buf_init(&run.out);
	hg_buf_init(&run.demangled);
	run.names = hg_demangler_create();
	int err = run.names ? load_maps(&run, pg_paths, n_pg, ids_path) : HG_ENOMEM;
	if (err == 0 && optind >= argc)
		err = filter(&run, "-");
	for (int i = optind; err == 0 && i < argc; i++)
		err = filter(&run, argv[i]);
	if (err == 0)
		err = flush_out(&run, true);
	if (fflush(stdout) != 0 && err == 0)
		err = HG_EIO;
	if (err)
		fprintf(stderr, "hangar symbolicate: %s\n",
			err == HG_EIO ? "cannot write the output" : hg_strerror(err));
	hg_proguard_stream_destroy(run.stream);
	for (size_t i = 0; i < run.n_maps; i++)
		hg_proguard_destroy((hg_proguard *)run.maps[i]);
	free(run.maps);
	hg_mapping_destroy(run.ids);
	hg_symbols_destroy(run.symbols);
	free(sym_dirs);
	hg_buf_release(&run.line);
	hg_buf_release(&run.retraced);
	hg_buf_release(&run.out);
	hg_buf_release(&run.demangled);
	hg_demangler_destroy(run.names);
	free(pg_paths);
	return err || run.failed ? EXIT_SOME_FAILED : EXIT_FINE;
}

const struct command cmd_symbolicate = {
	"symbolicate",
	"name obfuscated frames and Matrix method ids in any text (a filter)",
	run_symbolicate,
	symbolicate_usage,
};
