/* Unit tests for bare structured stacks and Matrix's printed blocks
 * (--input-format stack): the bare forms (StackKey before or after, CRLF,
 * trailing blanks, no final newline, several stacks), depths that jump
 * (one warning per stack, as for a JSON report's `stack`), Matrix's blocks as
 * testdata/bare-stack/ holds them (three real reports printed as
 * printEvil / printAnr print them, compared field by field with the same
 * reports read from their JSON; issue #235's 0.6 paste with its depth
 * jump; issue #864's block without a stack; Matrix 0.5's "[analyse
 * result]"), bad lines with their line and column while the other blocks
 * still read, the line cap, a million lines, a 16 MiB line, detection that
 * takes no other format's inputs, the same signature as the JSON report,
 * and truncations and random mutations.  argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hangar/cluster.h"
#include "hangar/input.h"
#include "hangar/report.h"
#include "report/report_internal.h"

static const char *testdata = "testdata";

#define MAX_REPS 8

struct got {
	hg_ctx ctx;
	hg_report *reps[MAX_REPS];
	size_t n, diags;
	long diag_line[MAX_REPS], diag_col[MAX_REPS];
	int rc;
};

static void on_diag(void *user, const hg_diag *d)
{
	struct got *g = user;
	if (d->severity == HG_DIAG_ERROR && g->diags < MAX_REPS) {
		g->diag_line[g->diags] = d->line;
		g->diag_col[g->diags] = d->col;
	}
	g->diags += d->severity == HG_DIAG_ERROR;
}

static int keep(void *user, hg_report *rep)
{
	struct got *g = user;
	if (g->n < MAX_REPS)
		g->reps[g->n] = rep;
	else
		hg_report_destroy(rep);
	g->n++;
	return 0;
}

static void got_init(struct got *g)
{
	memset(g, 0, sizeof *g);
	hg_ctx_init(&g->ctx);
	g->ctx.diag = on_diag;
	g->ctx.diag_user = g;
}

static void got_release(struct got *g)
{
	for (size_t i = 0; i < g->n && i < MAX_REPS; i++)
		hg_report_destroy(g->reps[i]);
	g->n = g->diags = 0;
}

static void read_text(struct got *g, const char *text, size_t len, enum hg_input_format format)
{
	got_release(g);
	g->rc = hg_reports_read_as(&g->ctx, "mem.txt", text, len, format, keep, g);
	assert_true(g->rc >= 0);
}

static const hg_report *good(struct got *g, size_t i)
{
	assert_true(i < g->n);
	const hg_report *r = g->reps[i];
	if (r->error)
		fail_msg("report %zu: unexpected error: %s", i + 1, r->error);
	assert_int_equal(r->format, HG_FORMAT_STACK);
	assert_true(r->has_method_stack);
	return r;
}

static void bad(struct got *g, size_t i, const char *needle)
{
	assert_true(i < g->n);
	const hg_report *r = g->reps[i];
	if (!r->error || !strstr(r->error, needle))
		fail_msg("report %zu: error \"%s\" lacks \"%s\"", i + 1, r->error ? r->error : "(none)",
			 needle);
}

static void has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return;
	fail_msg("no warning holds \"%s\" (%zu warnings)", needle, r->warnings.len);
}

static char *load(const char *dir, const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/%s", testdata, dir, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	assert_int_equal(hg_input_read(&ctx, path, &data, len), 0);
	return data;
}

/* The bare forms: one stack each, the same items and key. */
static void bare_forms(void **state)
{
	(void)state;
	static const char *const forms[] = {
		"0,1048574,1,100\n1,7,1,90\n2,8,2,80\n",
		"StackKey: 8|\n0,1048574,1,100\n1,7,1,90\n2,8,2,80\n",
		"0,1048574,1,100\n1,7,1,90\n2,8,2,80\nStackKey: 8|\n",
		"0,1048574,1,100\r\n1,7,1,90 \r\n2,8,2,80\t\r\nStackKey: 8|\r\n",
		"\n\n  0,1048574,1,100\n1,7,1,90\n2,8,2,80",
		"StackKey: 8\n\n0, 1048574, 1, 100\n1,7,1,90\n2,8,2,80\n", /* Matrix 0.5's "8\n" key */
		"stackKey: 0,8,2,80\n0,1048574,1,100\n1,7,1,90\n2,8,2,80\n",
		"1048574 1 100\n.7 1 90\n..8 2 80\nStackKey: 8|\n",
		"11-29 10:32:13.403  1234  1234 I jank: 0,1048574,1,100\n"
		"11-29 10:32:13.403  1234  1234 I jank: 1,7,1,90\n"
		"11-29 10:32:13.403  1234  1234 I jank: 2,8,2,80\n",
	};
	struct got g;
	got_init(&g);
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		read_text(&g, forms[i], strlen(forms[i]), HG_FORMAT_AUTO);
		if (g.n != 1 || g.rc != 0)
			fail_msg("form %zu: %zu reports, %d failed", i, g.n, g.rc);
		const hg_report *r = good(&g, 0);
		assert_int_equal(r->full.len, 3);
		assert_int_equal(r->full.items[2].depth, 2);
		assert_int_equal(r->full.items[2].id, 8);
		assert_int_equal(r->full.items[2].count, 2);
		assert_int_equal(r->kind, HG_KIND_SLOW_METHOD);
		assert_int_equal(r->stack_cost, 100);
		assert_string_equal(hg_report_stack_key_text(r), "8|");
		assert_int_equal(r->has_device_key, i > 0 && i != 4 && i != 8);
		if (r->warnings.len)
			fail_msg("form %zu: warning %s", i, r->warnings.items[0]);
	}
	/* A key that disagrees: the warning a JSON report gets. */
	const char *t = "0,1048574,1,100\n1,7,1,90\nStackKey: 9|\n";
	read_text(&g, t, strlen(t), HG_FORMAT_STACK);
	has_warning(good(&g, 0), "the device sent stackKey \"9|\" but the stack gives \"7|\"");
	got_release(&g);
}

/* Depths that jump by more than one (Matrix's trimming leaves such stacks;
 * a hostile one jumps by a million): the stack as written, one warning per
 * stack naming the first jump and counting them, the same bare or as a
 * JSON report's `stack` field (its lines counted in the field). */
static void depth_jumps(void **state)
{
	(void)state;
#define AS_WRITTEN "; the stack is used as written, as Matrix's is (each item under the " \
	"nearest shallower one)"
	struct got g;
	got_init(&g);
	const char *t = "StackKey: 1|\n0,1,1,10\n1000000,2,1,5\n";
	read_text(&g, t, strlen(t), HG_FORMAT_AUTO);
	const hg_report *r = good(&g, 0);
	assert_int_equal(r->warnings.len, 2);
	assert_string_equal(r->warnings.items[1], "line 3: the depth goes from 0 to 1000000" AS_WRITTEN);
	assert_int_equal(r->full.len, 2);
	assert_int_equal(r->full.items[1].depth, 1000000);
	/* the deep item wins the StackKey, as it would on the device: (1000000 + 1) x 5 */
	assert_string_equal(hg_report_stack_key_text(r), "2|");
	has_warning(r, "the device sent stackKey \"1|\" but the stack gives \"2|\"");
	t = "{\"stack\":\"0,1,1,10\\n\\n1000000,2,1,5\\n\",\"stackKey\":\"2|\"}";
	read_text(&g, t, strlen(t), HG_FORMAT_AUTO);
	r = g.reps[0];
	assert_null(r->error);
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0],
			    "field \"stack\", line 3: the depth goes from 0 to 1000000" AS_WRITTEN);
	assert_string_equal(hg_report_stack_key_text(r), "2|");
	/* several jumps, and a first line not at depth 0: one warning each stack */
	t = "3,1,1,100\n4,2,1,50\n9,3,1,20\n0,4,1,10\n2,5,1,5\n\n0,6,1,9\n1,7,1,8\n";
	read_text(&g, t, strlen(t), HG_FORMAT_STACK);
	assert_int_equal(g.n, 2);
	r = good(&g, 0);
	assert_int_equal(r->full.len, 5);
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0], "line 1: the stack begins at depth 3, not 0, the "
			    "first of 3 such jumps" AS_WRITTEN);
	assert_int_equal(good(&g, 1)->warnings.len, 0);
	t = "{\"stack\":\"3,1,1,100\\n4,2,1,50\\n9,3,1,20\\n0,4,1,10\\n2,5,1,5\\n\"}";
	read_text(&g, t, strlen(t), HG_FORMAT_AUTO);
	assert_int_equal(g.reps[0]->warnings.len, 1);
	assert_string_equal(g.reps[0]->warnings.items[0], "field \"stack\", line 1: the stack begins "
			    "at depth 3, not 0, the first of 3 such jumps" AS_WRITTEN);
	/* a depth of INT32_MAX, then another: no jump past it (nor an int overflow) */
	t = "0,1,1,5\n2147483647,2,1,5\n2147483647,3,1,5\n";
	read_text(&g, t, strlen(t), HG_FORMAT_STACK);
	r = good(&g, 0);
	assert_int_equal(r->warnings.len, 1);
	assert_string_equal(r->warnings.items[0], "line 2: the depth goes from 0 to 2147483647"
			    AS_WRITTEN);
#undef AS_WRITTEN
	got_release(&g);
}

/* Several stacks in one input, in order; a bad one does not spoil the rest. */
static void blocks_and_bad_lines(void **state)
{
	(void)state;
	const char *t = "0,1,1,10\n1,2,1,9\nStackKey: 2|\n"  /* 1: lines 1-3 */
			"StackKey: 5|\n0,5,1,20\n"             /* 2: lines 4-5 */
			"\n"
			"0,1,1,10\n1,2,x,4\n"                   /* 3: line 8, col 5 */
			"\n"
			"0,2147483648,1,5\n"                    /* 4: line 10, col 3 */
			"\n"
			"0,1,1,-2147483648\n-1,2,1,1\n"          /* 5: line 13, col 1 */
			"\n"
			"0,1,1,5\n1,2,1\n"                      /* 6: line 16, col 5 */
			"\n"
			"0,7,1,50\n";                           /* 7 */
	struct got g;
	got_init(&g);
	read_text(&g, t, strlen(t), HG_FORMAT_AUTO);
	assert_int_equal(g.n, 7);
	assert_int_equal(g.rc, 4);
	assert_int_equal(good(&g, 0)->full.len, 2);
	assert_string_equal(good(&g, 0)->device_key, "2|");
	assert_int_equal(good(&g, 0)->line, 1);
	assert_string_equal(good(&g, 1)->device_key, "5|");
	assert_int_equal(good(&g, 1)->line, 4);
	bad(&g, 2, "count is not a 32-bit integer in \"1,2,x,4\"");
	bad(&g, 3, "method id is not a 32-bit integer");
	bad(&g, 4, "depth is negative");
	bad(&g, 5, "expected 4 comma-separated fields");
	assert_int_equal(good(&g, 6)->full.items[0].id, 7);
	assert_int_equal(good(&g, 6)->number, 7);
	assert_int_equal(g.diags, 4);
	static const long lines[] = {8, 10, 13, 16}, cols[] = {5, 3, 1, 5};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(g.diag_line[i], lines[i]);
		assert_int_equal(g.diag_col[i], cols[i]);
	}
	/* Java ints at their extremes read (Matrix's wrapped costs print so). */
	const char *ext = "0,2147483647,-2147483648,-2147483648\n";
	read_text(&g, ext, strlen(ext), HG_FORMAT_STACK);
	assert_int_equal(good(&g, 0)->full.items[0].cost, INT32_MIN);
	/* Nothing that is a stack, read as one: a failed report that says so. */
	read_text(&g, "hello\n", 6, HG_FORMAT_STACK);
	assert_int_equal(g.n, 1);
	bad(&g, 0, "no stack in the input");
	read_text(&g, "StackKey: 3|\n", 13, HG_FORMAT_STACK);
	bad(&g, 0, "a StackKey line without the stack");
	got_release(&g);
}

/* The same report read from its JSON line of reports.ndjson. */
static hg_report *json_report(const char *ndjson, long line)
{
	const char *p = ndjson;
	for (long i = 1; i < line; i++)
		p = strchr(p, '\n') + 1;
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_report *rep = NULL;
	assert_int_equal(hg_report_read_one(&ctx, "r.json", p, (size_t)(strchr(p, '\n') - p),
					     HG_FORMAT_AUTO, &rep), 0);
	assert_non_null(rep);
	return rep;
}

static void same_stack(const hg_report *a, const hg_report *b)
{
	assert_int_equal(a->full.len, b->full.len);
	assert_memory_equal(a->full.items, b->full.items, a->full.len * sizeof *a->full.items);
	assert_int_equal(a->stack_cost, b->stack_cost);
	assert_int_equal(a->key_index, b->key_index);
	assert_int_equal(a->kind, b->kind);
	assert_string_equal(a->device_key, b->device_key);
	assert_string_equal(a->scene, b->scene);
	assert_int_equal(a->threads.n, b->threads.n);
	for (size_t i = 0; i < a->threads.n; i++)
		assert_int_equal(a->threads.items[i].n_frames, b->threads.items[i].n_frames);
}

/* Three real reports printed as Matrix prints them (scripts/print-as-matrix),
 * among other logcat lines: each block reads as its JSON report does, and
 * signs alike. */
static void printed_blocks(void **state)
{
	(void)state;
	size_t len, jlen;
	char *text = load("bare-stack", "mangatoon-logcat.txt", &len);
	char *ndjson = load("matrix-mangatoon", "reports.ndjson", &jlen);
	struct got g;
	got_init(&g);
	read_text(&g, text, len, HG_FORMAT_AUTO);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.rc, 0);
	static const long json_lines[] = {1, 2, 101}, block_lines[] = {3, 45, 86};
	for (size_t i = 0; i < 3; i++) {
		hg_report *j = json_report(ndjson, json_lines[i]);
		const hg_report *r = good(&g, i);
		assert_int_equal(r->line, block_lines[i]);
		same_stack(r, j);
		assert_int_equal(r->warnings.len, 0);
		assert_int_equal(r->foreground, 1);
		assert_non_null(r->time); /* from the logcat prefix, its year guessed */
		/* ingest --app gives the bare one the app the JSON one names */
		hg_report *copy = g.reps[i];
		copy->process = j->process;
		hg_arena *arena = hg_arena_create();
		hg_signature sa, sb;
		assert_int_equal(hg_signature_compute(copy, NULL, arena, &sa), 0);
		assert_int_equal(hg_signature_compute(j, NULL, arena, &sb), 0);
		assert_string_equal(sa.hash, sb.hash);
		copy->process = NULL;
		hg_arena_destroy(arena);
		hg_report_destroy(j);
	}
	assert_int_equal(good(&g, 2)->kind, HG_KIND_ANR);
	assert_int_equal(good(&g, 2)->cost, 5006);
	assert_int_equal(good(&g, 2)->threads.items[0].n_frames, 29);
	got_release(&g);
	free(text);
	free(ndjson);
}

/* Pastes of real logs: Matrix 0.6 from Android Studio (issue #235, with a
 * depth that jumps from 2 to 5), a block with no stack (issue #864), Matrix
 * 0.5's "[analyse result]" and "[analyse key]". */
static void real_pastes(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	size_t len;
	char *text = load("bare-stack", "issue235-android-studio.txt", &len);
	read_text(&g, text, len, HG_FORMAT_AUTO);
	assert_int_equal(g.n, 1);
	const hg_report *r = good(&g, 0);
	assert_int_equal(r->full.len, 30);
	assert_int_equal(r->cost, 503);
	assert_string_equal(hg_report_stack_key_text(r), "6926|");
	assert_string_equal(r->device_key, "6926|");
	assert_string_equal(r->detail, "NORMAL");
	assert_string_equal(r->time, "2019-05-20T16:55:35.395Z");
	assert_null(r->process); /* "20185-20206/?" */
	assert_int_equal(r->warnings.len, 1);
	has_warning(r, "line 44: the depth goes from 2 to 5");
	free(text);

	text = load("bare-stack", "issue864-beat-closed.txt", &len);
	read_text(&g, text, len, HG_FORMAT_AUTO);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.rc, 1);
	bad(&g, 0, "AppMethodBeat is close");
	assert_int_equal(g.diag_line[0], 2);
	free(text);

	text = load("bare-stack", "matrix05-analyse-result.txt", &len);
	read_text(&g, text, len, HG_FORMAT_AUTO);
	assert_int_equal(g.n, 1);
	r = good(&g, 0);
	assert_int_equal(r->full.len, 7);
	assert_int_equal(r->full.items[6].depth, 6);
	assert_string_equal(r->device_key, "83033\n");
	assert_int_equal(r->warnings.len, 0);
	free(text);
	got_release(&g);
}

/* A printed block cut short (logcat's 4 KB), without its header, in the
 * newer Android Studio form with no ": ". */
static void printed_variants(void **state)
{
	(void)state;
	const char *cut = "W/Matrix.EvilMethodTracer( 123): |*\t\tStackKey: 8|\n"
			  "W/Matrix.EvilMethodTracer( 123): |*\t\t[id count cost]\n"
			  "W/Matrix.EvilMethodTracer( 123): |*\t\t1048574 1 100\n"
			  "W/Matrix.EvilMethodTracer( 123): |*\t\t.7 1 90\n"
			  "W/Matrix.EvilMethodTracer( 123): |*\t\t..8 2 80\n"
			  "I/Choreographer( 123): Skipped 3 frames!\n"
			  "2023-09-01 14:16:10.303 20394-20431 Matrix.EvilMethodTracer sample W  "
			  ">>>>>>>>>> maybe happens ANR(5000 ms)! <<<<<<<<<<\n"
			  "2023-09-01 14:16:10.303 20394-20431 Matrix.EvilMethodTracer sample W  |* [Trace]\n"
			  "2023-09-01 14:16:10.303 20394-20431 Matrix.EvilMethodTracer sample W  |*\t\tTraceStack:\n"
			  "2023-09-01 14:16:10.303 20394-20431 Matrix.EvilMethodTracer sample W  |*\t\t1048574 1 5000\n"
			  "2023-09-01 14:16:10.303 20394-20431 Matrix.EvilMethodTracer sample W  |*\t\t.7 1 x\n"
			  "2023-09-01 14:16:10.303 20394-20431 Matrix.EvilMethodTracer sample W  ======================\n";
	struct got g;
	got_init(&g);
	read_text(&g, cut, strlen(cut), HG_FORMAT_AUTO);
	assert_int_equal(g.n, 2);
	const hg_report *r = good(&g, 0);
	assert_int_equal(r->full.len, 3);
	assert_null(r->detail); /* no header: which tracer printed it is not known */
	has_warning(r, "has no closing \"=====\" line");
	bad(&g, 1, "cost is not a 32-bit integer in \".7 1 x\"");
	assert_int_equal(g.diag_line[0], 11);
	/* StartupTracer: MatrixLog.w(TAG, "stackKey:%s \n%s", stackKey, logcatBuilder) */
	const char *st = "11-29 10:00:01.000  99  99 W Matrix.StartupTracer: stackKey:7| \n"
			 "11-29 10:00:01.000  99  99 W Matrix.StartupTracer: |*\t\tTraceStack:\n"
			 "11-29 10:00:01.000  99  99 W Matrix.StartupTracer: |*\t\t[id count cost]\n"
			 "11-29 10:00:01.000  99  99 W Matrix.StartupTracer: |*\t\t1048574 1 3000\n"
			 "11-29 10:00:01.000  99  99 W Matrix.StartupTracer: |*\t\t.7 1 2990\n";
	read_text(&g, st, strlen(st), HG_FORMAT_AUTO);
	assert_int_equal(g.n, 1);
	r = good(&g, 0);
	assert_int_equal(r->kind, HG_KIND_STARTUP);
	assert_string_equal(r->device_key, "7|");
	assert_int_equal(r->full.len, 2);
	assert_int_equal(r->warnings.len, 0);
	got_release(&g);
}

/* The cap on lines, a million lines, a 16 MiB line, a 2 GiB line. */
static void big_inputs(void **state)
{
	(void)state;
	struct got g;
	got_init(&g);
	const char *t = "0,1,1,9\n1,2,1,8\n1,3,1,7\n\n0,4,1,5\n";
	g.ctx.limits.max_stack_lines = 2;
	read_text(&g, t, strlen(t), HG_FORMAT_STACK);
	assert_int_equal(g.n, 2);
	bad(&g, 0, "more than 2 stack lines in one stack (see --max-stack-lines)");
	assert_int_equal(g.diag_line[0], 3);
	assert_int_equal(good(&g, 1)->full.items[0].id, 4);
	g.ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;

	size_t n = 1000000, cap = n * 24 + 64, len = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	len += (size_t)snprintf(big, cap, "0,1048574,1,99999\n");
	for (size_t i = 1; i < n; i++)
		len += (size_t)snprintf(big + len, cap - len, "%zu,%zu,1,%zu\n", 1 + i % 7, i, i % 90);
	read_text(&g, big, len, HG_FORMAT_AUTO);
	assert_int_equal(g.n, 1);
	assert_int_equal(good(&g, 0)->full.len, n);

	size_t huge = (size_t)16 << 20;
	char *line = realloc(big, huge + 17);
	assert_non_null(line);
	memcpy(line, "0,1,1,", 6);
	memset(line + 6, '7', huge);
	memcpy(line + 6 + huge, "\n\n0,2,1,5\n", 11); /* a blank line ends the block */
	read_text(&g, line, huge + 16, HG_FORMAT_STACK);
	assert_int_equal(g.n, 2);
	bad(&g, 0, "cost is not a 32-bit integer");
	assert_true(strlen(g.reps[0]->error) < 200);
	assert_int_equal(good(&g, 1)->full.items[0].id, 2);
	free(line);

	/* A 2 GiB line (a sparse file): refused from its size, never read. */
	char path[] = "/tmp/hangar-bare-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0,1,1,", 6), 6);
	assert_int_equal(ftruncate(fd, (off_t)2 << 30), 0);
	close(fd);
	got_release(&g);
	int rc = hg_reports_read_path(&g.ctx, path, NULL, HG_FORMAT_STACK, keep, &g);
	unlink(path);
	assert_int_equal(rc, HG_ELIMIT);
	assert_int_equal(g.n, 0);
	assert_int_equal(g.diags, 1);
	got_release(&g);
}

/* Detection takes only what is a stack beyond doubt: no other format's
 * input, not a Java dump that holds a block, not a few numbers. */
static void detection(void **state)
{
	(void)state;
	static const char *const not_stacks[] = {
		"42\n", "hello\n", "1 2 3\n", "200, 15 ms\n",
		"0,1,1,5\nsomething else\n",
		"0,1,1,5\n.2 1 3\n", /* two forms at once */
		("java.lang.IllegalStateException: boom\n\tat a.b.C.d(C.java:1)\n"
		 "|*\t\tStackKey: 8|\n|*\t\t[id count cost]\n|*\t\t1048574 1 100\n"),
	};
	for (size_t i = 0; i < sizeof not_stacks / sizeof *not_stacks; i++)
		if (report_detect_text(not_stacks[i], strlen(not_stacks[i])) == HG_FORMAT_STACK)
			fail_msg("detected as a stack: %s", not_stacks[i]);
	static const char *const files[][2] = {
		{"java-stacks", "anr-watchdog-readme-deadlock-example.txt"},
		{"java-stacks", "xcrash-android10-pixel-java-crash-all-threads.txt"},
		{"java-stacks", "anrwatchdog-logcat-studio-caused-by.txt"},
		{"java-stacks", "plain-frames-no-header.txt"},
		{"matrix-tracers", "logcat.txt"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		size_t len;
		char *text = load(files[i][0], files[i][1], &len);
		if (report_detect_text(text, len) == HG_FORMAT_STACK)
			fail_msg("%s detected as a stack", files[i][1]);
		free(text);
	}
	/* A logcat with Matrix's issues and the blocks printed for them: the
	 * issues are read (they carry the same stacks), the blocks passed over. */
	size_t ilen, blen;
	char *issues = load("matrix-tracers", "logcat.txt", &ilen);
	char *blocks = load("bare-stack", "mangatoon-logcat.txt", &blen);
	char *both = malloc(ilen + blen + 1);
	assert_non_null(both);
	memcpy(both, blocks, blen);
	memcpy(both + blen, issues, ilen + 1);
	struct got g;
	got_init(&g);
	read_text(&g, both, ilen + blen, HG_FORMAT_AUTO);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.reps[0]->format, HG_FORMAT_MATRIX);
	got_release(&g);
	free(both);
	free(issues);
	free(blocks);
	assert_int_equal(hg_input_format_from_name("stack"), HG_FORMAT_STACK);
	assert_string_equal(hg_input_format_name(HG_FORMAT_STACK), "stack");
}

/* Every truncation and seeded mutations of the samples: each block reads or
 * fails with a message; nothing crashes or leaks (ASan). */
static void damaged(void **state)
{
	(void)state;
	static const char *const names[] = {"mangatoon-logcat.txt", "issue235-android-studio.txt",
					    "matrix05-analyse-result.txt"};
	struct got g;
	got_init(&g);
	g.ctx.diag = NULL;
	unsigned seed = 13;
	for (size_t k = 0; k < 3; k++) {
		size_t len;
		char *text = load("bare-stack", names[k], &len);
		char *copy = malloc(len + 1);
		assert_non_null(copy);
		for (size_t cut = 0; cut < len; cut += 7) {
			memcpy(copy, text, cut);
			copy[cut] = '\0';
			read_text(&g, copy, cut, HG_FORMAT_STACK);
			assert_true(g.n >= 1);
		}
		for (int round = 0; round < 300; round++) {
			memcpy(copy, text, len + 1);
			for (int m = 0; m < 6; m++) {
				seed = seed * 1103515245u + 12345u;
				copy[(seed >> 8) % len] = "\n.,|* 09-x=>\t\r"[(seed >> 20) % 14];
			}
			read_text(&g, copy, len, round % 2 ? HG_FORMAT_STACK : HG_FORMAT_AUTO);
			for (size_t i = 0; i < g.n && i < MAX_REPS; i++)
				assert_true(g.reps[i]->error || g.reps[i]->has_method_stack ||
					    g.reps[i]->format != HG_FORMAT_STACK);
		}
		free(copy);
		free(text);
	}
	got_release(&g);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bare_forms),
		cmocka_unit_test(depth_jumps),
		cmocka_unit_test(blocks_and_bad_lines),
		cmocka_unit_test(printed_blocks),
		cmocka_unit_test(real_pastes),
		cmocka_unit_test(printed_variants),
		cmocka_unit_test(big_inputs),
		cmocka_unit_test(detection),
		cmocka_unit_test(damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
