/* Unit tests for ANRs in logcat: ActivityManager's "ANR in" block (PID,
 * Reason, Parent, ErrorId, Frozen, Load, pressure, CPU usage) and the
 * am_anr event, in every prefix form logcat and Android Studio write;
 * one report per ANR; the dump a log holds read into the same report;
 * the article's samples in testdata/seeds/anr/; bad input (a cut block,
 * figures that are no numbers, a cut am_anr) warned by line; detection;
 * and truncations and mutations of every sample.  argv[1] is the
 * testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/hangar.h"
#include "hangar/input.h"
#include "hangar/report.h"

static const char *testdata = "testdata";

/* ---- reading ---- */

struct many {
	hg_report *reps[8];
	size_t n, delivered, diags;
	int rc;
};

static void on_diag(void *user, const hg_diag *d)
{
	(void)d;
	((struct many *)user)->diags++;
}

/* What must hold for any report of a log. */
static void check_invariants(const hg_report *rep)
{
	for (size_t i = 0; i < rep->warnings.len; i++)
		assert_true(rep->warnings.items[i] && rep->warnings.items[i][0]);
	if (rep->error || rep->format != HG_FORMAT_LOGCAT)
		return;
	assert_int_equal(rep->kind, HG_KIND_ANR);
	assert_string_equal(rep->platform, "android");
	assert_true(rep->cost >= 0);
	assert_true(rep->threads.blamed >= -1 && rep->threads.blamed < (long)rep->threads.n);
	for (size_t i = 0; i < rep->n_stats; i++)
		assert_true(rep->stats[i].group && rep->stats[i].name && rep->stats[i].value);
	for (size_t i = 0; i < rep->meta_len; i++)
		assert_true(rep->meta[i].key && rep->meta[i].json && rep->meta[i].text);
}

static int keep(void *user, hg_report *rep)
{
	struct many *m = user;
	check_invariants(rep);
	m->delivered++;
	if (m->n < 8)
		m->reps[m->n++] = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void read_fmt(struct many *m, const char *text, size_t len, enum hg_input_format format,
		     int64_t file_time)
{
	memset(m, 0, sizeof *m);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = on_diag;
	ctx.diag_user = m;
	ctx.file_time_ms = file_time;
	m->rc = hg_reports_read_as(&ctx, "logcat.txt", text, len, format, keep, m);
	assert_true(m->rc >= 0);
}

static void read_str(struct many *m, const char *text, enum hg_input_format format)
{
	read_fmt(m, text, strlen(text), format, 0);
}

/* Reads text (detected); one report or more, none failed. */
static const hg_report *read_log(struct many *m, const char *text)
{
	read_fmt(m, text, strlen(text), HG_FORMAT_AUTO, 0);
	if (m->n == 0 || m->reps[0]->error)
		fail_msg("not read: %s", m->n ? m->reps[0]->error : "(no report)");
	assert_int_equal(m->rc, 0);
	assert_int_equal(m->reps[0]->format, HG_FORMAT_LOGCAT);
	return m->reps[0];
}

static void release(struct many *m)
{
	for (size_t i = 0; i < m->n; i++)
		hg_report_destroy(m->reps[i]);
	m->n = 0;
}

static char *load(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/seeds/anr/%s", testdata, name);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	char *data = NULL;
	if (hg_input_read(&ctx, path, &data, len) != 0)
		fail_msg("cannot read %s", path);
	return data;
}

/* ---- checks ---- */

static const char *meta(const hg_report *rep, const char *key)
{
	for (size_t i = 0; i < rep->meta_len; i++)
		if (strcmp(rep->meta[i].key, key) == 0)
			return rep->meta[i].text;
	return NULL;
}

static const char *stat(const hg_report *rep, const char *group, const char *name)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (!strcmp(rep->stats[i].group, group) && !strcmp(rep->stats[i].name, name))
			return rep->stats[i].value;
	return NULL;
}

static size_t stats_in(const hg_report *rep, const char *group)
{
	size_t n = 0;
	for (size_t i = 0; i < rep->n_stats; i++)
		n += !strcmp(rep->stats[i].group, group);
	return n;
}

static const char *warning(const hg_report *rep, const char *needle)
{
	for (size_t i = 0; i < rep->warnings.len; i++)
		if (strstr(rep->warnings.items[i], needle))
			return rep->warnings.items[i];
	return NULL;
}

static void assert_warning(const hg_report *rep, const char *needle)
{
	if (!warning(rep, needle)) {
		for (size_t i = 0; i < rep->warnings.len; i++)
			print_message("  warning: %s\n", rep->warnings.items[i]);
		fail_msg("no warning with \"%s\"", needle);
	}
}

/* ---- one block, every prefix ---- */

static const char *const block[] = {
	"ANR in com.example.chat (com.example.chat/.ui.ChattingActivity)",
	"PID: 21705",
	("Reason: Input dispatching timed out (4c9e7a2 com.example.chat/com.example.chat.ui."
	 "ChattingActivity (server) is not responding. Waited 5001ms for MotionEvent)"),
	"Parent: com.example.chat/.ui.ChattingActivity",
	"Frozen: false",
	"Load: 9.23 / 6.11 / 5.35",
	"CPU usage from 58031ms to -1ms ago (2024-06-12 10:14:33.374 to 2024-06-12 10:15:31.406):",
	"  85% 21705/com.example.chat: 80% user + 4.5% kernel / faults: 30147 minor 12 major",
	"  24% 1203/system_server: 15% user + 9.2% kernel / faults: 20214 minor 31 major",
	"29% TOTAL: 21% user + 7.4% kernel + 0.5% iowait",
};

/* Each line of the block behind the prefix (first: the first line's). */
struct form {
	const char *name, *first, *rest;
	bool timed;
};

static const struct form forms[] = {
	{"threadtime", "06-12 10:15:33.118  1203  1290 E ActivityManager: ",
	 "06-12 10:15:33.118  1203  1290 E ActivityManager: ", true},
	{"threadtime with year", "2024-06-12 10:15:33.118  1203  1290 E ActivityManager: ",
	 "2024-06-12 10:15:33.118  1203  1290 E ActivityManager: ", true},
	{"time", "06-12 10:15:33.118 E/ActivityManager( 1203): ",
	 "06-12 10:15:33.118 E/ActivityManager( 1203): ", true},
	{"brief", "E/ActivityManager( 1203): ", "E/ActivityManager( 1203): ", false},
	{"tag", "E/ActivityManager: ", "E/ActivityManager: ", false},
	{"pasted", "E ActivityManager: ", "E ActivityManager: ", false},
	{"Android Studio", "06-12 10:15:33.118 1203-1290/? E/ActivityManager: ", "    ", true},
	{"Android Studio, newer", "2024-06-12 10:15:33.118  1203-1290  ActivityManager         "
	 "system_server                        E  ", "                                    ", true},
	{"bare", "", "", false},
};

static void test_every_prefix_form(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
		char text[4096];
		size_t n = (size_t)snprintf(text, sizeof text, "%s%s\n", forms[f].first, block[0]);
		for (size_t i = 1; i < sizeof block / sizeof *block; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s%s\n", forms[f].rest, block[i]);
		struct many m;
		const hg_report *rep = read_log(&m, text);
		print_message("  %s\n", forms[f].name);
		assert_int_equal(m.n, 1);
		assert_string_equal(rep->process, "com.example.chat");
		assert_string_equal(meta(rep, "pid"), "21705");
		assert_string_equal(rep->anr_type, "input dispatching");
		assert_string_equal(rep->scene, "com.example.chat.ui.ChattingActivity");
		assert_int_equal(rep->cost, 5001);
		assert_false(rep->cost_unknown);
		assert_string_equal(meta(rep, "parent"), "com.example.chat/.ui.ChattingActivity");
		assert_string_equal(meta(rep, "frozen"), "false");
		assert_string_equal(stat(rep, "load", "1 min"), "9.23");
		assert_string_equal(stat(rep, "load", "15 min"), "5.35");
		assert_string_equal(stat(rep, "cpu", "21705/com.example.chat"),
				    "85% (80% user + 4.5% kernel)");
		assert_string_equal(stat(rep, "cpu", "TOTAL"),
				    "29% (21% user + 7.4% kernel + 0.5% iowait)");
		assert_int_equal(rep->warnings.len, 0);
		if (forms[f].timed)
			assert_string_equal(rep->time, "2024-06-12T10:15:33.118Z");
		else
			assert_null(rep->time);
		release(&m);
	}
}

/* ---- am_anr ---- */

static void test_am_anr(void **state)
{
	(void)state;
	struct many m;
	/* alone: an ANR with its reason */
	const hg_report *rep = read_log(&m, "06-12 11:15:03.881  1203  1290 I am_anr  : "
					"[0,8841,com.example.chat:push,948485700,executing service "
					"com.example.chat/.push.PushService]\n");
	assert_string_equal(rep->process, "com.example.chat:push");
	assert_string_equal(meta(rep, "pid"), "8841");
	assert_string_equal(rep->anr_type, "service");
	assert_string_equal(rep->scene, "com.example.chat.push.PushService");
	assert_string_equal(meta(rep, "subject"),
			    "executing service com.example.chat/.push.PushService");
	assert_int_equal(rep->warnings.len, 0);
	release(&m);
	/* before Android 4.2: no user; a reason with commas */
	rep = read_log(&m, "I/am_anr  (  369): [1866,com.example.map,1086864965,Broadcast of Intent "
		       "{ act=a.b, c=d cmp=com.example.map/.R }]\n");
	assert_string_equal(meta(rep, "pid"), "1866");
	assert_string_equal(rep->process, "com.example.map");
	assert_string_equal(meta(rep, "subject"), "Broadcast of Intent { act=a.b, c=d "
			    "cmp=com.example.map/.R }");
	assert_string_equal(rep->scene, "com.example.map.R");
	release(&m);
	/* cut, and with a wait: read, and said */
	rep = read_log(&m, "I am_anr  : [0,77,c.e,1,Input dispatching timed out (a c.e/.A (server) "
		       "is not responding. Waited 5006ms for Mot\n");
	assert_int_equal(rep->cost, 5006);
	assert_warning(rep, "line 1: the am_anr event has no closing ']': it looks cut");
	release(&m);
	/* no pid: left out with a warning; the block still reads */
	rep = read_log(&m, "I am_anr  : [0,x,c.e,1,r]\nE ActivityManager: ANR in c.e\n"
		       "E ActivityManager: PID: 77\nE ActivityManager: Reason: r\n");
	assert_warning(rep, "line 1: am_anr event \"[0,x,c.e,1,r]\" is not "
		       "[user,pid,process,flags,reason]: left out");
	assert_string_equal(meta(rep, "pid"), "77");
	release(&m);
	/* an event of another pid than the block's is another ANR */
	rep = read_log(&m, "I am_anr  : [0,76,c.e,1,r]\nE ActivityManager: ANR in c.e\n"
		       "E ActivityManager: PID: 77\nE ActivityManager: Reason: r\n");
	assert_int_equal(m.n, 2);
	assert_string_equal(meta(m.reps[0], "pid"), "76");
	assert_string_equal(meta(m.reps[1], "pid"), "77");
	release(&m);
	/* ... unless the block says its pid too late to tell: then said */
	rep = read_log(&m, "I am_anr  : [0,76,c.e,1,r]\nE ActivityManager: ANR in c.e\n"
		       "E ActivityManager: Reason: r\nE ActivityManager: Parent: c.e/.A\n"
		       "E ActivityManager: ErrorId: 1\nE ActivityManager: Frozen: false\n"
		       "E ActivityManager: PID: 77\n");
	assert_int_equal(m.n, 1);
	assert_warning(rep, "line 1: the am_anr event is of pid 76, the ANR block (line 2) of pid 77");
	release(&m);
}

/* ---- one report per ANR ---- */

static void test_one_report_per_anr(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-two-anrs.txt", &len);
	struct many m;
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.reps[0]->process, "com.example.gallery");
	assert_int_equal(m.reps[0]->cost, 5000);
	assert_string_equal(m.reps[0]->scene, "com.example.gallery.PreviewActivity");
	assert_int_equal(m.reps[0]->line, 1);
	assert_string_equal(m.reps[1]->process, "com.example.chat");
	assert_string_equal(m.reps[1]->anr_type, "content provider");
	assert_int_equal(m.reps[1]->line, 11);
	assert_string_equal(m.reps[1]->time, "2024-06-13T09:07:02.318Z");
	release(&m);
	free(data);
	/* the events buffer pasted after the main one: its am_anr of the same
	 * pid is the same ANR */
	read_str(&m, "E ActivityManager: ANR in c.e\nE ActivityManager: PID: 77\n"
		 "E ActivityManager: Reason: executing service c.e/.S\n"
		 "I am_anr  : [0,77,c.e,1,executing service c.e/.S]\n", HG_FORMAT_AUTO);
	assert_int_equal(m.n, 1);
	release(&m);
	read_str(&m, "E ActivityManager: ANR in c.e\nE ActivityManager: PID: 77\n"
		 "E ActivityManager: Reason: executing service c.e/.S\n"
		 "I am_anr  : [0,78,c.f,1,executing service c.f/.S]\n", HG_FORMAT_AUTO);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.reps[1]->process, "c.f");
	release(&m);
}

/* ---- the dump in the log ---- */

static void test_dump_logged_by_the_app(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-sigquit-dump-in-log.txt", &len);
	struct many m;
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	assert_int_equal(m.n, 1);
	const hg_report *rep = m.reps[0];
	assert_int_equal(rep->format, HG_FORMAT_LOGCAT);
	assert_int_equal(rep->threads.n, 2);
	const hg_thread *main = &rep->threads.items[rep->threads.blamed];
	assert_string_equal(main->name, "main");
	assert_int_equal(main->n_frames, 6); /* InputDispatcher's line in between is not its */
	assert_string_equal(main->frames[1].cls, "com.example.chat.moments.LinkScanner");
	assert_string_equal(rep->scene, "com.example.chat.ui.MomentsActivity");
	assert_int_equal(rep->cost, 5002);
	/* the time: am_anr's, the year from the CPU usage window */
	assert_string_equal(rep->time, "2024-06-15T08:12:40.004Z");
	assert_string_equal(rep->time_written, "06-15 08:12:40.004");
	assert_warning(rep, "main thread ran 5120 ms on the CPU since it started (schedstat), 102% "
		       "of the 5002 ms wait, and was running when dumped (state=R): busy on the CPU, "
		       "not blocked");
	assert_warning(rep, "line 28: system_server stopped dumping stacks at its 20 s deadline");
	assert_string_equal(meta(rep, "abi"), "arm64");
	release(&m);
	free(data);
}

static void test_block_with_pasted_trace(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-studio-block-with-pasted-trace.txt", &len);
	struct many m;
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	assert_int_equal(m.n, 1);
	const hg_report *rep = m.reps[0];
	assert_int_equal(rep->threads.n, 3);
	assert_int_equal(rep->threads.n_chain, 1); /* main waits for db-writer's lock */
	assert_string_equal(rep->process, "com.example.chat");
	assert_int_equal(rep->cost, 5004);
	assert_string_equal(rep->time, "2024-06-12T16:40:02.519Z");
	assert_string_equal(meta(rep, "error_id"), "7aa1d3c2-6e90-4f11-b0f4-2c8e51d9a6b3");
	assert_string_equal(stat(rep, "cpu", "30312/com.example.chat"), "1.8% (1.1% user + 0.6% kernel)");
	assert_warning(rep, "main thread ran 215 ms on the CPU in all its life (schedstat), under a "
		       "tenth of the 5004 ms wait: it was waiting, not computing");
	release(&m);
	free(data);
	/* a dump of another pid: read, and said */
	read_str(&m, "E ActivityManager: ANR in c.e\nE ActivityManager: PID: 77\n"
		 "E ActivityManager: Reason: executing service c.e/.S\n\n"
		 "----- pid 78 at 2024-01-01 00:00:00 -----\nCmd line: c.e\n\n"
		 "\"main\" prio=5 tid=1 Native\n  at a.B.c(B.java:1)\n  junk\n  at a.B.d(B.java:2)\n\n"
		 "----- end 78 -----\n", HG_FORMAT_AUTO);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.reps[0]->threads.n, 1);
	assert_warning(m.reps[0], "line 5: the thread dump is of pid 78, the ANR of pid 77");
	assert_warning(m.reps[0], "line 10: skipped 1 line that is not part of a thread");
	release(&m);
}

/* ---- the article's samples ---- */

static void test_seed_threadtime(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-threadtime-input-anr.txt", &len);
	struct many m;
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	assert_int_equal(m.n, 1);
	const hg_report *rep = m.reps[0];
	assert_int_equal(rep->threads.n, 0);
	assert_string_equal(rep->time, "2024-06-12T10:15:31.405Z");
	assert_string_equal(stat(rep, "logcat", "time-year-from"), "the CPU usage window");
	assert_string_equal(stat(rep, "pressure", "cpu some"),
			    "avg10=30.36 avg60=10.27 avg300=4.81 total=938387423");
	assert_int_equal(stats_in(rep, "pressure"), 5);
	/* before the ANR: the window, 5 processes, TOTAL; after it, the
	 * process's thread line left out */
	assert_int_equal(stats_in(rep, "cpu"), 7);
	assert_int_equal(stats_in(rep, "cpu later"), 4);
	assert_string_equal(stat(rep, "cpu later", "window"), "41ms to 403ms later (2024-06-12 "
			    "10:15:31.447 to 2024-06-12 10:15:31.809)");
	assert_string_equal(meta(rep, "error_id"), "0b6f4c1e-2d7a-4e59-9c33-51a8e0f2d417");
	assert_int_equal(rep->warnings.len, 0);
	assert_int_equal(rep->foreground, -1);
	release(&m);
	free(data);
}

static void test_seed_background(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-brief-background-broadcast-anr.txt", &len);
	struct many m;
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	const hg_report *rep = m.reps[0];
	assert_int_equal(m.n, 1);
	assert_string_equal(rep->anr_type, "broadcast");
	assert_string_equal(rep->scene, "com.example.chat.push.NetworkReceiver");
	assert_int_equal(rep->foreground, 0); /* "Killing ...: bg anr": a silent ANR */
	assert_int_equal(rep->cost, 0);
	assert_true(rep->cost_unknown); /* a broadcast's reason says no wait */
	assert_string_equal(stat(rep, "cpu later", "8841/com.example.chat:push"),
			    "62% (55% user + 6.6% kernel)");
	assert_int_equal(rep->warnings.len, 0);
	release(&m);
	free(data);
	data = load("logcat-events-am-anr-only.txt", &len);
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 1718200000000); /* 2024-06-12 13:46 */
	rep = m.reps[0];
	assert_int_equal(rep->foreground, 0); /* am_kill ... bg anr */
	assert_string_equal(rep->time, "2024-06-12T11:15:03.881Z");
	assert_string_equal(stat(rep, "logcat", "time-year-from"), "the file's time");
	release(&m);
	free(data);
}

/* ---- bad input ---- */

static void test_cut_and_wrong(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-block-cut.txt", &len);
	struct many m;
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	const hg_report *rep = m.reps[0];
	assert_warning(rep, "line 4: \"Load: 7.5 / high / 3\" is not three load averages");
	assert_warning(rep, "line 5: the CPU usage there has no TOTAL line: the block looks cut");
	assert_warning(rep, "line 3: the input ANR's annotation says no wait");
	assert_null(stat(rep, "load", "1 min"));
	assert_string_equal(stat(rep, "cpu", "7702/com.example.chat"), "58% (51% user + 7% kernel)");
	release(&m);
	free(data);
	/* a block cut after its first line; a PID that is no pid */
	rep = read_log(&m, "06-12 10:15:33.118  1203  1290 E ActivityManager: ANR in c.e\n");
	assert_warning(rep, "line 1: the ANR block has no \"PID:\" line: it looks cut");
	release(&m);
	rep = read_log(&m, "E ActivityManager: ANR in c.e\nE ActivityManager: PID: "
		       "99999999999999999999\nE ActivityManager: Reason: executing service c.e/.S\n"
		       "E ActivityManager: Load: -1 / 2 / 3\n");
	assert_warning(rep, "line 2: \"PID: 99999999999999999999\" is no process id: left out");
	assert_warning(rep, "line 4: \"Load: -1 / 2 / 3\" is not three load averages");
	assert_null(meta(rep, "pid"));
	release(&m);
	rep = read_log(&m, "E ActivityManager: ANR in c.e\nE ActivityManager: PID: 5\n"
		       "E ActivityManager: Reason: Input dispatching timed out (x c.e/.A (server) is "
		       "not responding. Waited -3ms for KeyEvent)\n"
		       "E ActivityManager: gibberish\nE ActivityManager: more gibberish\n"
		       "E ActivityManager: Frozen: maybe\n");
	assert_warning(rep, "line 3: the wait in \"Waited -3ms\" is negative");
	assert_warning(rep, "line 4: skipped 2 lines of the ANR block that are none of its fields");
	assert_string_equal(meta(rep, "frozen"), "maybe");
	assert_int_equal(rep->cost, 0);
	release(&m);
	/* forced, a log without an ANR */
	read_str(&m, "\n  06-12 10:15:33.118  1203  1290 I ActivityManager: Start proc\n",
		 HG_FORMAT_LOGCAT);
	assert_int_equal(m.rc, 1);
	assert_string_equal(m.reps[0]->error, "not an ANR log: no ActivityManager \"ANR in\" block "
			    "and no am_anr event");
	release(&m);
}

/* ---- detection ---- */

static void test_detection(void **state)
{
	(void)state;
	static const char *const not_logcat[] = {
		"There was an ANR in the app yesterday.\nat a.B.c(B.java:1)\n",
		"ANR in c.e\nnothing else\n  at a.B.c(B.java:1)\n",
	};
	for (size_t i = 0; i < sizeof not_logcat / sizeof *not_logcat; i++) {
		struct many m;
		read_fmt(&m, not_logcat[i], strlen(not_logcat[i]), HG_FORMAT_AUTO, 0);
		assert_true(m.n >= 1);
		assert_true(m.reps[0]->format != HG_FORMAT_LOGCAT);
		release(&m);
	}
	struct many m;
	const hg_report *rep = read_log(&m, "ANR in c.e\nPID: 7\nReason: executing service c.e/.S\n");
	assert_string_equal(rep->process, "c.e");
	release(&m);
	/* a traces file is not a log */
	size_t len;
	char *data = load("traces-foreground-input-three-processes.txt", &len);
	read_fmt(&m, data, len, HG_FORMAT_AUTO, 0);
	assert_int_equal(m.reps[0]->format, HG_FORMAT_ANR_TRACES);
	release(&m);
	free(data);
}

/* ---- truncation and mutation ---- */

static const char *const seeds[] = {
	"logcat-threadtime-input-anr.txt",
	"logcat-brief-background-broadcast-anr.txt",
	"logcat-events-am-anr-only.txt",
	"logcat-studio-block-with-pasted-trace.txt",
	"logcat-two-anrs.txt",
	"logcat-block-cut.txt",
	"logcat-sigquit-dump-in-log.txt",
};

static void test_truncation(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof seeds / sizeof *seeds; f++) {
		size_t len;
		char *data = load(seeds[f], &len);
		for (size_t cut = 1; cut < len; cut += 53) {
			char *prefix = malloc(cut + 1);
			assert_non_null(prefix);
			memcpy(prefix, data, cut);
			prefix[cut] = '\0';
			struct many m;
			read_fmt(&m, prefix, cut, HG_FORMAT_LOGCAT, 0);
			assert_true((size_t)m.rc <= m.delivered);
			release(&m);
			free(prefix);
		}
		free(data);
	}
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static const char *const snippets[] = {
	"\nE ActivityManager: ANR in ",
	"\nI am_anr  : [0,1,a,2,",
	"\nE ActivityManager: PID: 99999999999999999999\n",
	"Waited 99999999999999999999ms",
	"\nCPU usage from 1ms to 2ms ago (2024-13-45 99:99:99.999 to x):\n",
	"  100% 1/: : \n",
	"\n----- pid 1 at x -----\n\"main\" prio=5 tid=1 Runnable\n  | state=R utm=9 stm=9\n",
	"\n-- 06-31 25:61:61.999  1  2 E ActivityManager: \n",
	"\r\n",
};

static void test_mutations(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof seeds / sizeof *seeds; f++) {
		size_t len;
		char *data = load(seeds[f], &len);
		for (int i = 0; i < 150; i++) {
			char *s = malloc(len + 4096);
			assert_non_null(s);
			memcpy(s, data, len);
			size_t n = len;
			for (int e = 1 + (int)(rnd() % 6); e > 0; e--) {
				size_t at = n ? (size_t)(rnd() % n) : 0;
				int op = (int)(rnd() % 4);
				if (op == 0 && n) {
					s[at] = (char)(rnd() & 0xff);
				} else if (op == 1) {
					const char *sn = snippets[rnd() % (sizeof snippets / sizeof *snippets)];
					size_t sl = strlen(sn);
					if (n + sl >= len + 4096)
						continue;
					memmove(s + at + sl, s + at, n - at);
					memcpy(s + at, sn, sl);
					n += sl;
				} else if (op == 2) {
					size_t del = (size_t)(rnd() % 200);
					del = del > n - at ? n - at : del;
					memmove(s + at, s + at + del, n - at - del);
					n -= del;
				} else {
					n = at;
				}
			}
			s[n] = '\0';
			struct many m;
			read_fmt(&m, s, n, HG_FORMAT_LOGCAT, 0);
			assert_true((size_t)m.rc <= m.delivered);
			release(&m);
			free(s);
		}
		free(data);
	}
}

static void test_crlf_reads_alike(void **state)
{
	(void)state;
	size_t len;
	char *data = load("logcat-studio-block-with-pasted-trace.txt", &len);
	char *crlf = malloc(2 * len + 1);
	assert_non_null(crlf);
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = data[i];
	}
	crlf[n] = '\0';
	struct many a, b;
	read_fmt(&a, data, len, HG_FORMAT_AUTO, 0);
	read_fmt(&b, crlf, n, HG_FORMAT_AUTO, 0);
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.reps[0]->threads.n, b.reps[0]->threads.n);
	assert_int_equal(a.reps[0]->n_stats, b.reps[0]->n_stats);
	assert_int_equal(a.reps[0]->warnings.len, b.reps[0]->warnings.len);
	assert_string_equal(a.reps[0]->scene, b.reps[0]->scene);
	assert_string_equal(meta(a.reps[0], "subject"), meta(b.reps[0], "subject"));
	release(&a);
	release(&b);
	free(crlf);
	free(data);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_prefix_form),
		cmocka_unit_test(test_am_anr),
		cmocka_unit_test(test_one_report_per_anr),
		cmocka_unit_test(test_dump_logged_by_the_app),
		cmocka_unit_test(test_block_with_pasted_trace),
		cmocka_unit_test(test_seed_threadtime),
		cmocka_unit_test(test_seed_background),
		cmocka_unit_test(test_cut_and_wrong),
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_crlf_reads_alike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
