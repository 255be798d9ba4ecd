/* Unit tests for stack signatures (hg_signature_compute) and grouping rules
 * (hg_rules_load).  The fixtures in testdata/cluster/ are one cause in two
 * builds of an app "com.example.reader": the ids of build-b's
 * methodMapping.txt are renumbered and its anonymous Handler became
 * HomeActivity$2; its ANR dump has other lambda, synthetic-class and line
 * numbers.  Each must land in one cluster; different causes must not.
 * argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/cluster.h"
#include "hangar/input.h"
#include "hangar/mapping.h"
#include "hangar/report.h"
#include "hangar/text.h"

static const char *testdata = "testdata";

/* sha256sum of the canonical texts (v2), computed with the shell:
 *   printf 'hangar-signature v2\nanr\napp com.example.player\nidle main thread\nanr service\n' \
 *   | sha256sum */
#define IDLE_ANR_HASH "0e214ecf9675db480d4a2469df5523d8"
/* printf 'hangar-signature v2\nslow_method\napp com.example.reader\n%s\n%s\n%s\n%s\n' \
 *   'com.example.reader.db.BookDao.queryAll(String)' \
 *   'com.example.reader.feed.FeedPresenter.refresh()' \
 *   'com.example.reader.feed.FeedAdapter.onBindViewHolder(RecyclerView$ViewHolder, int)' \
 *   'androidx.recyclerview.widget.RecyclerView.setAdapter(RecyclerView$Adapter)' | sha256sum */
#define QUERY_ALL_HASH "2e99c8b71f619f3444ad0225ab910e0d"

/* ---- reading ---- */

struct got {
	hg_report *rep[700];
	size_t n;
	size_t diags;
	long diag_line[8];
	long diag_col[8];
	char diag_msg[8][256];
};

static void on_diag(void *user, const hg_diag *d)
{
	struct got *g = user;
	if (g->diags < 8) {
		g->diag_line[g->diags] = d->line;
		g->diag_col[g->diags] = d->col;
		snprintf(g->diag_msg[g->diags], sizeof g->diag_msg[0], "%s", d->message);
	}
	g->diags++;
}

static int on_report(void *user, hg_report *rep)
{
	struct got *g = user;
	if (g->n == sizeof g->rep / sizeof *g->rep) {
		hg_report_destroy(rep);
		return 1;
	}
	g->rep[g->n++] = rep;
	return 0;
}

static void release(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		hg_report_destroy(g->rep[i]);
	free(g);
}

static struct got *new_got(hg_ctx *ctx)
{
	struct got *g = calloc(1, sizeof *g);
	assert_non_null(g);
	hg_ctx_init(ctx);
	ctx->diag = on_diag;
	ctx->diag_user = g;
	return g;
}

static char *load(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	if (hg_input_read(&ctx, path, &data, len) != 0)
		fail_msg("cannot read %s", path);
	return data;
}

/* The one report of text, read without errors; caller destroys it. */
static hg_report *read_text(const char *text)
{
	hg_ctx ctx;
	struct got *g = new_got(&ctx);
	int rc = hg_reports_read(&ctx, "mem", text, strlen(text), on_report, g);
	assert_int_equal(rc, 0);
	assert_int_equal(g->n, 1);
	hg_report *rep = g->rep[0];
	if (rep->error)
		fail_msg("unexpected error: %s", rep->error);
	g->n = 0;
	release(g);
	return rep;
}

static hg_report *read_file(const char *name)
{
	size_t len;
	char *text = load(name, &len);
	hg_report *rep = read_text(text);
	free(text);
	return rep;
}

/* Names rep's ids with <build>/methodMapping.txt. */
static void symbolicate(hg_report *rep, const char *build)
{
	char path[512];
	snprintf(path, sizeof path, "%s/cluster/%s/methodMapping.txt", testdata, build);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	hg_mapping *m;
	assert_int_equal(hg_mapping_open(&ctx, path, &m), 0);
	assert_int_equal(hg_report_symbolicate(rep, m), 0);
	hg_mapping_destroy(m);
}

/* A copy of s with every `from` replaced by `to` (caller frees); from must occur. */
static char *replace(const char *s, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	for (const char *p = strstr(s, from); p; p = strstr(p + fl, from))
		n++;
	if (n == 0)
		fail_msg("\"%s\" not found", from);
	char *out = malloc(strlen(s) + n * tl + 1), *w = out;
	assert_non_null(out);
	for (const char *p = s, *q; (q = strstr(p, from)); p = q + fl) {
		memcpy(w, p, (size_t)(q - p));
		w += q - p;
		memcpy(w, to, tl);
		w += tl;
		s = q + fl;
	}
	strcpy(w, s);
	return out;
}

/* A Matrix slow-method report of com.example.reader with this stack
 * ("depth,id,count,cost" lines joined by \n) and detail. */
static hg_report *matrix_report(const char *detail, const char *stack)
{
	char *esc = replace(stack, "\n", "\\n");
	char text[4096];
	snprintf(text, sizeof text,
		 "{\"tag\":\"Trace_EvilMethod\",\"type\":0,\"content\":{\"machine\":\"HIGH\","
		 "\"detail\":\"%s\",\"cost\":900,\"scene\":\"com.example.reader.ui.HomeActivity\","
		 "\"stack\":\"%s\",\"process\":\"com.example.reader\"}}",
		 detail, esc);
	free(esc);
	return read_text(text);
}

/* ---- signatures ---- */

struct sig {
	hg_arena *arena;
	hg_signature s;
};

static void compute(struct sig *out, const hg_report *rep, const hg_rules *rules)
{
	out->arena = hg_arena_create();
	assert_non_null(out->arena);
	assert_int_equal(hg_signature_compute(rep, rules, out->arena, &out->s), 0);
	assert_int_equal(strlen(out->s.hash), 32);
	assert_true(out->s.n_frames >= 1);
}

static void done(struct sig *s)
{
	hg_arena_destroy(s->arena);
}

/* The hash of rep, copied into hex[33]. */
static void hash_of(const hg_report *rep, const hg_rules *rules, char hex[33])
{
	struct sig s;
	compute(&s, rep, rules);
	memcpy(hex, s.s.hash, 33);
	done(&s);
}

/* The frames after the signature's first line, which names the app. */
static void assert_frames(const hg_signature *s, const char *const *want, size_t n)
{
	assert_true(s->n_frames >= 1);
	assert_memory_equal(s->frames[0], "app ", 4);
	bool same = s->n_frames == n + 1;
	for (size_t i = 0; same && i < n; i++)
		same = strcmp(s->frames[i + 1], want[i]) == 0;
	if (same)
		return;
	for (size_t i = 0; i < s->n_frames; i++)
		print_message("  got frame %zu: %s\n", i, s->frames[i]);
	for (size_t i = 0; i < n; i++)
		print_message("  want frame %zu: %s\n", i, want[i]);
	fail_msg("frames differ");
}

static const char *const query_all_frames[] = {
	"com.example.reader.db.BookDao.queryAll(String)",
	"com.example.reader.feed.FeedPresenter.refresh()",
	"com.example.reader.feed.FeedAdapter.onBindViewHolder(RecyclerView$ViewHolder, int)",
	"androidx.recyclerview.widget.RecyclerView.setAdapter(RecyclerView$Adapter)",
};

/* The build-a stack of testdata/cluster/build-a/slow-method.json. */
#define STACK_A                                                                               \
	"0,1048574,1,820\n1,40211,1,815\n2,40230,1,812\n3,88812,1,810\n4,41502,1,806\n"        \
	"5,41377,1,804\n6,39010,1,790\n7,39120,4,210\n7,39013,120,160\n5,42001,1,2\n"          \
	"1,40500,1,3\n"

static void test_same_cause_two_builds(void **state)
{
	(void)state;
	hg_report *a = read_file("cluster/build-a/slow-method.json");
	hg_report *b = read_file("cluster/build-b/slow-method.json");
	/* The device's stackKeys differ: ids are renumbered per build. */
	assert_string_equal(a->device_key, "39010|");
	assert_string_equal(b->device_key, "39102|");
	symbolicate(a, "build-a");
	symbolicate(b, "build-b");
	assert_string_equal(a->symbols[a->trimmed.items[1].origin],
			    "com.example.reader.ui.HomeActivity$1.handleMessage(Message)");
	assert_string_equal(b->symbols[b->trimmed.items[1].origin],
			    "com.example.reader.ui.HomeActivity$2.handleMessage(Message)");
	struct sig sa, sb;
	compute(&sa, a, NULL);
	compute(&sb, b, NULL);
	assert_string_equal(sa.s.hash, sb.s.hash);
	assert_string_equal(sa.s.family, "slow_method");
	assert_string_equal(sa.s.title, "com.example.reader.db.BookDao.queryAll(String)");
	assert_string_equal(sa.s.key_symbol, "com.example.reader.db.BookDao.queryAll(String)");
	assert_true(sa.s.symbolicated);
	assert_false(sa.s.no_app_frame);
	/* dispatchMessage is left out; the RecyclerView frame counts (the
	 * mapping names it: Matrix instrumented it in the APK); three
	 * ancestors, so HomeActivity is not reached. */
	assert_frames(&sa.s, query_all_frames, 4);
	assert_frames(&sb.s, query_all_frames, 4);
	done(&sa);
	done(&sb);
	hg_report_destroy(a);
	hg_report_destroy(b);
}

static void test_hash_from_canonical_text(void **state)
{
	(void)state;
	hg_report *a = read_file("cluster/build-a/slow-method.json");
	symbolicate(a, "build-a");
	char hex[33];
	hash_of(a, NULL, hex);
	assert_string_equal(hex, QUERY_ALL_HASH);
	hg_report_destroy(a);
}

static void test_different_key_frame(void **state)
{
	(void)state;
	char base[33], other[33], anr[33];
	hg_report *r = matrix_report("NORMAL", STACK_A);
	symbolicate(r, "build-a");
	hash_of(r, NULL, base);
	hg_report_destroy(r);

	/* BookDao.countAll in place of queryAll: another cause. */
	char *stack = replace(STACK_A, "6,39010,1,790", "6,39011,1,790");
	r = matrix_report("NORMAL", stack);
	free(stack);
	symbolicate(r, "build-a");
	struct sig s;
	compute(&s, r, NULL);
	assert_string_equal(s.s.key_symbol, "com.example.reader.db.BookDao.countAll()");
	memcpy(other, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);
	assert_string_not_equal(base, other);

	/* The same stack as an ANR is another family. */
	r = matrix_report("ANR", STACK_A);
	symbolicate(r, "build-a");
	compute(&s, r, NULL);
	assert_string_equal(s.s.family, "anr");
	memcpy(anr, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);
	assert_string_not_equal(base, anr);

	/* LAG_TOUCH and LAG are one family. */
	char lag[33], touch[33];
	r = matrix_report("LAG", STACK_A);
	symbolicate(r, "build-a");
	hash_of(r, NULL, lag);
	hg_report_destroy(r);
	r = matrix_report("LAG_TOUCH", STACK_A);
	symbolicate(r, "build-a");
	hash_of(r, NULL, touch);
	hg_report_destroy(r);
	assert_string_equal(lag, touch);
	assert_string_not_equal(lag, base);
}

static void test_costs_counts_and_frames_below_key(void **state)
{
	(void)state;
	char base[33], h[33];
	hg_report *r = matrix_report("NORMAL", STACK_A);
	symbolicate(r, "build-a");
	hash_of(r, NULL, base);
	hg_report_destroy(r);
	/* Other costs and counts; below the key, rawQuery is gone and mapRow
	 * calls the model's constructor. */
	r = matrix_report("NORMAL", "0,1048574,1,2210\n1,40211,3,2200\n2,40230,2,2190\n"
				    "3,88812,1,2185\n4,41502,7,2181\n5,41377,1,2170\n"
				    "6,39010,2,2103\n7,39013,512,600\n8,39003,512,80\n"
				    "5,42001,1,2\n1,40500,1,3\n");
	symbolicate(r, "build-a");
	struct sig s;
	compute(&s, r, NULL);
	assert_string_equal(s.s.key_symbol, "com.example.reader.db.BookDao.queryAll(String)");
	memcpy(h, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);
	assert_string_equal(base, h);
}

static void test_frames_off_the_key_path(void **state)
{
	(void)state;
	char base[33], h[33];
	hg_report *r = matrix_report("NORMAL", STACK_A);
	symbolicate(r, "build-a");
	hash_of(r, NULL, base);
	hg_report_destroy(r);
	/* Banner.show and ImageLoader.load gone, the settings screen and the
	 * API client called beside the path instead. */
	r = matrix_report("NORMAL", "0,1048574,1,820\n1,39007,1,6\n1,40211,1,812\n"
				    "2,40230,1,812\n3,88812,1,810\n4,39004,1,3\n4,41502,1,806\n"
				    "5,41377,1,804\n6,39010,1,790\n7,39120,4,210\n7,39013,120,160\n");
	symbolicate(r, "build-a");
	hash_of(r, NULL, h);
	hg_report_destroy(r);
	assert_string_equal(base, h);
}

static const char *const anr_frames[] = {
	"libreadercore.so!sqlite3VdbeExec",
	"com.example.reader.db.BookDao.lambda$queryAll$N",
	"com.example.reader.db.BookDao$$Synthetic.call",
	"com.example.reader.db.BookDao.queryAll",
	"com.example.reader.feed.FeedPresenter$N.run",
};

static void test_thread_stacks_numbering(void **state)
{
	(void)state;
	hg_report *a = read_file("cluster/build-a/anr.txt");
	hg_report *b = read_file("cluster/build-b/anr.txt");
	assert_string_equal(a->process, "com.example.reader");
	struct sig sa, sb;
	compute(&sa, a, NULL);
	compute(&sb, b, NULL);
	assert_string_equal(sa.s.family, "anr");
	assert_frames(&sa.s, anr_frames, 5);
	assert_frames(&sb.s, anr_frames, 5);
	assert_string_equal(sa.s.hash, sb.s.hash);
	assert_false(sa.s.no_app_frame);
	assert_true(sa.s.symbolicated);
	assert_string_equal(sa.s.title, "libreadercore.so!sqlite3VdbeExec (input dispatching ANR)");
	assert_non_null(sa.s.key_symbol);
	assert_non_null(strstr(sa.s.key_symbol, "sqlite3VdbeExec"));
	done(&sa);
	done(&sb);
	hg_report_destroy(a);
	hg_report_destroy(b);
}

static void test_line_numbers_ignored(void **state)
{
	(void)state;
	size_t len;
	char *text = load("cluster/build-a/anr.txt", &len);
	char base[33], h[33], renamed[33];
	hg_report *r = read_text(text);
	hash_of(r, NULL, base);
	hg_report_destroy(r);

	char *t1 = replace(text, "BookDao.java:88)", "BookDao.java:1088)");
	char *t2 = replace(t1, "FeedPresenter.java:41)", "Unknown Source:7)");
	r = read_text(t2);
	hash_of(r, NULL, h);
	hg_report_destroy(r);
	assert_string_equal(base, h);

	/* A renamed method is not a line number. */
	char *t3 = replace(text, "BookDao.queryAll(", "BookDao.queryRecent(");
	r = read_text(t3);
	hash_of(r, NULL, renamed);
	hg_report_destroy(r);
	assert_string_not_equal(base, renamed);
	free(t1);
	free(t2);
	free(t3);
	free(text);
}

static void test_java_normalization(void **state)
{
	(void)state;
	/* A plain frame list names no process: every frame outside the
	 * platform's packages is the app's. */
	hg_report *r = read_text(
		"\tat com.acme.notes.sync.SyncWorker$$InternalSyntheticLambda$1$9f2c41b0e77d"
		"a1c3e5f7a9b2c4d6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5$0.run(SyncWorker.java:12)\n"
		"\tat com.acme.notes.sync.-$$Lambda$SyncWorker$Qx7u2VbNfYl1kP0z.accept(Unknown Source:4)\n"
		"\tat com.acme.notes.sync.SyncWorker.access$000(SyncWorker.java:3)\n"
		"\tat java.util.ArrayList.forEach(ArrayList.java:1262)\n"
		"\tat com.acme.notes.sync.SyncWorker$1Batch.flush(SyncWorker.java:220)\n"
		"\tat com.acme.notes.ui.NoteList$3$1.onChanged(NoteList.java:88)\n"
		"\tat android.os.Handler.handleCallback(Handler.java:938)\n");
	struct sig s;
	compute(&s, r, NULL);
	static const char *const want[] = {
		"com.acme.notes.sync.SyncWorker$$Synthetic.run",
		"com.acme.notes.sync.-$$Synthetic.accept",
		"com.acme.notes.sync.SyncWorker.access$N",
		"com.acme.notes.sync.SyncWorker$NBatch.flush",
		"com.acme.notes.ui.NoteList$N$N.onChanged",
	};
	assert_frames(&s.s, want, 5);
	done(&s);
	hg_report_destroy(r);
}

static void test_idle_main_no_app_frame(void **state)
{
	(void)state;
	hg_report *r = read_file("anr/handmade-idle-main-nativepollonce-service.txt");
	assert_int_equal(r->kind, HG_KIND_ANR);
	struct sig s;
	compute(&s, r, NULL);
	assert_true(s.s.no_app_frame);
	assert_string_equal(s.s.family, "anr");
	/* Grouped by what the system waited for, within the app. */
	assert_string_equal(s.s.title, "idle main thread (service ANR)");
	static const char *const idle[] = {"idle main thread", "anr service"};
	assert_frames(&s.s, idle, 2);
	assert_string_equal(s.s.frames[0], "app com.example.player");
	assert_string_equal(s.s.hash, IDLE_ANR_HASH);
	assert_non_null(s.s.key_symbol);
	assert_non_null(strstr(s.s.key_symbol, "__epoll_pwait"));
	done(&s);
	hg_report_destroy(r);

	/* A slow method keyed in a library the APK ships is the app's code
	 * (Matrix instrumented it), grouped by that frame, not into a bucket. */
	r = matrix_report("NORMAL", "0,1048574,1,500\n1,88812,1,490\n");
	symbolicate(r, "build-a");
	compute(&s, r, NULL);
	assert_false(s.s.no_app_frame);
	assert_string_equal(s.s.title,
			    "androidx.recyclerview.widget.RecyclerView.setAdapter(RecyclerView$Adapter)");
	assert_string_equal(s.s.key_symbol,
			    "androidx.recyclerview.widget.RecyclerView.setAdapter(RecyclerView$Adapter)");
	assert_string_not_equal(s.s.hash, IDLE_ANR_HASH);
	done(&s);
	hg_report_destroy(r);
}

static void test_unsymbolicated(void **state)
{
	(void)state;
	hg_report *r = read_file("cluster/build-a/slow-method.json");
	struct sig s;
	compute(&s, r, NULL);
	assert_false(s.s.symbolicated);
	/* Unmapped ids count as the app's; dispatchMessage's fixed id does not. */
	static const char *const want[] = {"#39010", "#41377", "#41502", "#88812"};
	assert_frames(&s.s, want, 4);
	assert_string_equal(s.s.key_symbol, "#39010");
	done(&s);
	hg_report_destroy(r);

	/* build-b's mapping lacks build-a's key id. */
	r = read_file("cluster/build-a/slow-method.json");
	symbolicate(r, "build-b");
	compute(&s, r, NULL);
	assert_false(s.s.symbolicated);
	assert_string_equal(s.s.frames[1], "#39010");
	done(&s);
	hg_report_destroy(r);
}

/* ---- rules ---- */

static hg_rules *load_rules(const char *name, struct got **g, int *rc)
{
	char path[512];
	snprintf(path, sizeof path, "%s/cluster/%s", testdata, name);
	hg_ctx ctx;
	*g = new_got(&ctx);
	hg_rules *rules = NULL;
	*rc = hg_rules_load(&ctx, path, &rules);
	return rules;
}

static void test_rules_file(void **state)
{
	(void)state;
	struct got *g;
	int rc;
	hg_rules *rules = load_rules("good.rules", &g, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(g->diags, 0);
	assert_non_null(rules);

	/* key-ancestors 1; FeedPresenter ignored; only feed and db are the app's. */
	hg_report *a = read_file("cluster/build-a/slow-method.json");
	symbolicate(a, "build-a");
	struct sig s;
	compute(&s, a, rules);
	static const char *const want_m[] = {
		"com.example.reader.db.BookDao.queryAll(String)",
		"com.example.reader.feed.FeedAdapter.onBindViewHolder(RecyclerView$ViewHolder, int)",
	};
	assert_frames(&s.s, want_m, 2);
	char with_rules[33], without[33];
	memcpy(with_rules, s.s.hash, 33);
	done(&s);
	hash_of(a, NULL, without);
	assert_string_not_equal(with_rules, without);
	hg_report_destroy(a);

	/* thread-frames 2, the native library matched by its rule. */
	hg_report *t = read_file("cluster/build-b/anr.txt");
	compute(&s, t, rules);
	static const char *const want_t[] = {"libreadercore.so!sqlite3VdbeExec",
					     "com.example.reader.db.BookDao.lambda$queryAll$N"};
	assert_frames(&s.s, want_t, 2);
	done(&s);
	hg_report_destroy(t);
	hg_rules_destroy(rules);
	release(g);
	hg_rules_destroy(NULL);
}

static void test_rules_errors(void **state)
{
	(void)state;
	struct got *g;
	int rc;
	hg_rules *rules = load_rules("bad-regex.rules", &g, &rc);
	assert_int_equal(rc, HG_EPARSE);
	assert_null(rules);
	assert_int_equal(g->diags, 1);
	assert_int_equal(g->diag_line[0], 3);
	assert_true(g->diag_col[0] > 8);
	assert_non_null(strstr(g->diag_msg[0], "bad regex \"^com\\.example\\.(reader\\.Legacy\""));
	assert_non_null(strstr(g->diag_msg[0], "missing closing parenthesis"));
	release(g);

	rules = load_rules("bad-lines.rules", &g, &rc);
	assert_int_equal(rc, HG_EPARSE);
	assert_null(rules);
	assert_int_equal(g->diags, 3);
	assert_int_equal(g->diag_line[0], 2);
	assert_int_equal(g->diag_col[0], 15);
	assert_string_equal(g->diag_msg[0],
			    "expected a number from 0 to 64 after \"key-ancestors\", got \"many\"");
	assert_int_equal(g->diag_line[1], 3);
	assert_non_null(strstr(g->diag_msg[1], "from 1 to 64 after \"thread-frames\""));
	assert_int_equal(g->diag_line[2], 4);
	assert_int_equal(g->diag_col[2], 1);
	assert_non_null(strstr(g->diag_msg[2], "unknown rule \"skip\""));
	release(g);

	rules = load_rules("no-such.rules", &g, &rc);
	assert_int_equal(rc, HG_EIO);
	assert_null(rules);
	assert_int_equal(g->diags, 1);
	release(g);
}

/* ---- other reports ---- */

static void test_corpus_and_errors(void **state)
{
	(void)state;
	size_t len;
	char *text = load("matrix-mangatoon/reports.ndjson", &len);
	hg_ctx ctx;
	struct got *g = new_got(&ctx);
	assert_int_equal(hg_reports_read(&ctx, "reports.ndjson", text, len, on_report, g), 0);
	assert_int_equal(g->n, 581);
	hg_arena *arena = hg_arena_create();
	assert_non_null(arena);
	size_t distinct = 0;
	char seen[581][33];
	for (size_t i = 0; i < g->n; i++) {
		hg_signature s;
		assert_int_equal(hg_signature_compute(g->rep[i], NULL, arena, &s), 0);
		const hg_report *r = g->rep[i];
		/* No mapping: ids, but for the whole message (its id is fixed). */
		if (r->has_method_stack && r->key_index >= 0)
			assert_true(s.symbolicated ==
				    (r->trimmed.items[r->key_index].id == 1048574));
		size_t k = 0;
		while (k < distinct && strcmp(seen[k], s.hash) != 0)
			k++;
		if (k == distinct)
			memcpy(seen[distinct++], s.hash, 33);
	}
	/* Many reports, fewer causes. */
	assert_true(distinct > 10 && distinct < g->n);
	hg_arena_destroy(arena);
	release(g);
	free(text);

	/* A report that could not be read has no signature. */
	g = new_got(&ctx);
	assert_int_equal(hg_reports_read(&ctx, "bad", "{\"buffer\":[1,", 13, on_report, g), 1);
	hg_signature s;
	arena = hg_arena_create();
	assert_int_equal(hg_signature_compute(g->rep[0], NULL, arena, &s), HG_EINVAL);
	hg_arena_destroy(arena);
	release(g);
}

static void test_ios_main_binary(void **state)
{
	(void)state;
	/* Process com.bedroomCode.CrashTest; Xcode's debug build keeps the
	 * code in CrashTest.debug.dylib. */
	hg_report *r = read_file("kscrash/kscrash-3.7-hang-ios26-sim.json");
	struct sig s;
	compute(&s, r, NULL);
	assert_string_equal(s.s.family, "ios_hang");
	static const char *const want[] = {
		("CrashTest.debug.dylib!$s9CrashTest11ContentViewV4bodyQrvg7SwiftUI6ButtonVyAE4Text"
		 "VGyXEfU_yyScMYccfU_"),
		"CrashTest.debug.dylib!$s9CrashTest0aB3AppV5$mainyyFZ",
		"CrashTest.debug.dylib!main",
	};
	assert_frames(&s.s, want, 3);
	/* Signed with the mangled names (stable whatever hangar demangles),
	 * titled with the readable one. */
	assert_string_equal(s.s.title, "CrashTest.debug.dylib!closure #1 @Swift.MainActor () -> () "
			    "in closure #1 () -> SwiftUI.Button<SwiftUI.Text> in "
			    "CrashTest.ContentView.body.getter : some");
	assert_false(s.s.no_app_frame);
	char base[33];
	memcpy(base, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);

	/* Another app name: no frame is the app's. */
	size_t len;
	char *text = load("kscrash/kscrash-3.7-hang-ios26-sim.json", &len);
	char *other = replace(text, "com.bedroomCode.CrashTest", "com.bedroomCode.Other");
	r = read_text(other);
	compute(&s, r, NULL);
	assert_true(s.s.no_app_frame);
	done(&s);
	hg_report_destroy(r);
	free(other);
	free(text);
}

/* A report symbolicated before it was sent, with no binary_images (seed
 * 003's, testdata/seeds/matrix-ios/): whose each frame is comes from its
 * source position and name.  Its hang in blockMainThreadForFourSeconds
 * and the same hang seen again (another launch: other addresses, another
 * duration) are one cluster; a hang in another app function is another;
 * neither is titled by __semwait_signal, the top frame of both. */
static void test_ios_hang_without_images(void **state)
{
	(void)state;
	hg_report *r = read_file("seeds/matrix-ios/article-report.json");
	struct sig s;
	compute(&s, r, NULL);
	assert_string_equal(s.s.family, "ios_hang");
	static const char *const want[] = {
		"?\?\?!static HTHangValidationModel.blockMainThreadForFourSeconds()",
		"?\?\?!closure #1 in HTHangValidationModel.triggerForegroundHang()",
	};
	assert_frames(&s.s, want, 2);
	assert_string_equal(s.s.title, "HTHangValidationModel.blockMainThreadForFourSeconds()");
	assert_false(s.s.no_app_frame);
	char article[33], again[33], other[33];
	memcpy(article, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);

	r = read_file("seeds/matrix-ios/same-hang-again.json");
	hash_of(r, NULL, again);
	hg_report_destroy(r);
	assert_string_equal(again, article);

	r = read_file("seeds/matrix-ios/other-function-hang.json");
	compute(&s, r, NULL);
	assert_string_equal(s.s.title, "HTHangValidationModel.blockMainThreadInTimerCallback()");
	memcpy(other, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);
	assert_string_not_equal(other, article);

	/* Without source positions, the names alone tell the same frames. */
	size_t len;
	char *text = load("seeds/matrix-ios/article-report.json", &len);
	char *bare = replace(text, "\"source_file\"", "\"x_file\"");
	r = read_text(bare);
	hash_of(r, NULL, again);
	hg_report_destroy(r);
	assert_string_equal(again, article);
	free(bare);
	free(text);
}

/* Pre-sampling's representative stack signs the report, however it is
 * written; the scene's stack (caught in Array.append) does not. */
static void test_ios_representative_signs(void **state)
{
	(void)state;
	char a[33], b[33];
	hg_report *r = read_file("seeds/matrix-ios/presampled-backtrace.json");
	struct sig s;
	compute(&s, r, NULL);
	assert_string_equal(s.s.title, "HTHangValidationModel.isPrime(_:)");
	static const char *const want[] = {
		"?\?\?!HTHangValidationModel.isPrime(_:)",
		"?\?\?!HTHangValidationModel.computePrimes(upTo:)",
		"?\?\?!static HTHangValidationModel.busyMainThreadForThreeSeconds()",
		"?\?\?!closure #3 in HTHangValidationModel.triggerForegroundHang()",
		"?\?\?!main",
	};
	assert_frames(&s.s, want, 5);
	memcpy(a, s.s.hash, 33);
	done(&s);
	hg_report_destroy(r);
	r = read_file("seeds/matrix-ios/presampled-index.json");
	hash_of(r, NULL, b);
	hg_report_destroy(r);
	assert_string_equal(a, b);
}

/* Frames no image places, by name alone: Apple's classes, modules,
 * namespaces and C functions are the platform's; the rest the app's. */
static void test_ios_unplaced_names(void **state)
{
	(void)state;
	static const char *const names[] = {
		"__semwait_signal",                                        /* C */
		"-[HTFeedViewController viewDidLoad]",                     /* app */
		"+[NSThread sleepForTimeInterval:]",                       /* Apple class */
		"__41-[UIApplication _run]_block_invoke",                  /* Apple class, a block */
		"HTCore::Engine::tick()",                                  /* app C++ */
		"swift::runJobInEstablishedExecutorContext(swift::Job*)", /* Swift runtime */
		"swift_job_runImpl(swift::Job*, swift::SerialExecutorRef)",
		"Swift.Array.append(_:)",                                  /* Swift module */
		"static UIApplicationDelegate.main()",                     /* Apple type */
		"thunk for @escaping @callee_guaranteed () -> ()",         /* plumbing */
		"(extension in Foundation):Swift.String.init(format:_:)",
		"closure #1 @Swift.MainActor () -> () in HTAPMKitDemo.ContentView.body.getter : some",
		("protocol witness for Swift.Collection.index(after:) in conformance HTAPMKitDemo.Ring : "
		 "Swift.Collection in HTAPMKitDemo"),
		"_dispatch_main_queue_drain",
		"@objc HTFeedCell.prepareForReuse()",
	};
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_puts(&b, "{\"report\":{\"process_name\":\"HTAPMKitDemo\"},\"crash\":{\"error\":"
		    "{\"type\":\"hang\"},\"threads\":[{\"index\":0,\"backtrace\":{\"contents\":[");
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		hg_buf_printf(&b, "%s{\"instruction_addr\":%zu,\"symbol_name\":\"%s\"}", i ? "," : "",
			      4096 + i, names[i]);
	hg_buf_puts(&b, "]}}]}}");
	assert_false(b.failed);
	hg_report *r = read_text(b.data);
	hg_buf_release(&b);
	struct sig s;
	compute(&s, r, NULL);
	static const char *const want[] = {
		"?\?\?!-[HTFeedViewController viewDidLoad]",
		"?\?\?!HTCore::Engine::tick()",
		"?\?\?!closure #1 @Swift.MainActor () -> () in HTAPMKitDemo.ContentView.body.getter : some",
		("?\?\?!protocol witness for Swift.Collection.index(after:) in conformance "
		 "HTAPMKitDemo.Ring : Swift.Collection in HTAPMKitDemo"),
		"?\?\?!@objc HTFeedCell.prepareForReuse()",
	};
	assert_frames(&s.s, want, 5);
	assert_string_equal(s.s.title, "-[HTFeedViewController viewDidLoad]");
	done(&s);
	hg_report_destroy(r);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_cause_two_builds),
		cmocka_unit_test(test_hash_from_canonical_text),
		cmocka_unit_test(test_different_key_frame),
		cmocka_unit_test(test_costs_counts_and_frames_below_key),
		cmocka_unit_test(test_frames_off_the_key_path),
		cmocka_unit_test(test_thread_stacks_numbering),
		cmocka_unit_test(test_line_numbers_ignored),
		cmocka_unit_test(test_java_normalization),
		cmocka_unit_test(test_idle_main_no_app_frame),
		cmocka_unit_test(test_unsymbolicated),
		cmocka_unit_test(test_rules_file),
		cmocka_unit_test(test_rules_errors),
		cmocka_unit_test(test_corpus_and_errors),
		cmocka_unit_test(test_ios_main_binary),
		cmocka_unit_test(test_ios_hang_without_images),
		cmocka_unit_test(test_ios_representative_signs),
		cmocka_unit_test(test_ios_unplaced_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
