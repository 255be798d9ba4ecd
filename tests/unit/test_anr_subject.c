/* Unit tests for what an ANR trace says of itself: the Subject's type,
 * scene (the component it names) and wait (the cost), the preamble's
 * "Timeout:", which dumps are ANRs (an ANR's Subject, xCrash's 'anr') and
 * which are thread dumps (none, a Watchdog's "Blocked in"), the main
 * thread's CPU figures against the wait (busy or waiting, and the rule's
 * edges), and the article's samples in testdata/seeds/anr/ (a foreground
 * ANR's file of three processes, a file whose second process is cut, an
 * app's own SIGQUIT-hook trace).  argv[1] is the testdata/ folder. */
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

struct many {
	hg_report *reps[8];
	size_t n;
	size_t diags;
};

static void on_diag(void *user, const hg_diag *d)
{
	(void)d;
	((struct many *)user)->diags++;
}

static int keep(void *user, hg_report *rep)
{
	struct many *m = user;
	if (m->n < 8)
		m->reps[m->n++] = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void read_text(struct many *m, const char *text, size_t len)
{
	memset(m, 0, sizeof *m);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = on_diag;
	ctx.diag_user = m;
	assert_true(hg_reports_read(&ctx, "anr.txt", text, len, keep, m) >= 0);
	assert_true(m->n >= 1);
}

static void release(struct many *m)
{
	for (size_t i = 0; i < m->n; i++)
		hg_report_destroy(m->reps[i]);
	m->n = 0;
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

/* ---- Subjects ---- */

struct subject_case {
	const char *subject;
	enum hg_report_kind kind;
	const char *type, *scene;
	int64_t cost;
	const char *warning;    /* a warning that must be there; NULL: none at all */
};

static const struct subject_case subjects[] = {
	{"Input dispatching timed out (f130cca com.example.app/com.example.app.NavActivity (server) "
	 "is not responding. Waited 5000ms for MotionEvent)", HG_KIND_ANR, "input dispatching",
	 "com.example.app.NavActivity", 5000, NULL},
	/* Android 8 to 10: the head of the wait queue's age */
	{"Input dispatching timed out (Waiting to send non-key event because the touched window has "
	 "not finished processing certain input events that were delivered to it over 500.0ms ago.  "
	 "Wait queue length: 2.  Wait queue head age: 5591.6ms.)", HG_KIND_ANR,
	 "input dispatching", NULL, 5592, NULL},
	{"Input dispatching timed out (ActivityRecord{c5c1a4b u0 com.example.app/.ui.MainActivity "
	 "t3333} does not have a focused window)", HG_KIND_ANR, "input dispatching",
	 "com.example.app.ui.MainActivity", 0, "line 1: the input ANR's annotation says no wait"},
	{"Broadcast of Intent { act=android.intent.action.BOOT_COMPLETED flg=0x9000010 "
	 "cmp=com.example.app/.BootReceiver }", HG_KIND_ANR, "broadcast",
	 "com.example.app.BootReceiver", 0, NULL},
	{"Broadcast of Intent { act=android.intent.action.SCREEN_ON flg=0x50200010 }", HG_KIND_ANR,
	 "broadcast", NULL, 0, NULL},
	{"executing service com.example.player/.sync.LibrarySyncService", HG_KIND_ANR, "service",
	 "com.example.player.sync.LibrarySyncService", 0, NULL},
	{"Context.startForegroundService() did not then call Service.startForeground(): "
	 "ServiceRecord{a2 u0 com.example/.S}", HG_KIND_ANR, "service", "com.example.S", 0, NULL},
	{"ContentProvider not responding", HG_KIND_ANR, "content provider", NULL, 0, NULL},
	{"No response to onStartJob", HG_KIND_ANR, "job service", NULL, 0, NULL},
	/* "1234:com.app/u0a12" is a process record, not a component */
	{"Process ProcessRecord{2b3 1234:com.example.app/u0a12} failed to complete startup",
	 HG_KIND_ANR, "app startup", NULL, 0, NULL},
	{"App is not responding", HG_KIND_ANR, NULL, NULL, 0, NULL},
	/* system_server's Watchdog: no app's ANR */
	{"Blocked in handler on main thread (main)", HG_KIND_THREAD_DUMP, NULL, NULL, 0, NULL},
	/* waits that cannot be read: said, and no cost */
	{"Input dispatching timed out (a com.e.x/.A (server) is not responding. Waited "
	 "99999999999999999999ms for KeyEvent)", HG_KIND_ANR, "input dispatching", "com.e.x.A", 0,
	 "line 1: the wait in \"Waited 99999999999999999999ms\" is out of range (over 10^12 ms)"},
	{"Input dispatching timed out (a com.e.x/.A (server) is not responding. Waited -5000ms)",
	 HG_KIND_ANR, "input dispatching", "com.e.x.A", 0, "is negative"},
	{"Input dispatching timed out (a com.e.x/.A (server) is not responding. Waited long ms)",
	 HG_KIND_ANR, "input dispatching", "com.e.x.A", 0, "is no number of ms"},
};

static void check_subject(const struct subject_case *c, const char *preamble)
{
	char text[2048];
	snprintf(text, sizeof text, "Subject: %s\n%s\n----- pid 5 at 2024-01-01 00:00:00 -----\n"
		 "Cmd line: com.example\n\n\"main\" prio=5 tid=1 Native\n  at a.B.c(B.java:1)\n\n"
		 "----- end 5 -----\n", c->subject, preamble);
	struct many m;
	read_text(&m, text, strlen(text));
	assert_int_equal(m.n, 1);
	const hg_report *rep = m.reps[0];
	if (rep->kind != c->kind)
		fail_msg("\"%s\": kind %s", c->subject, hg_report_kind_name(rep->kind));
	if (c->type)
		assert_string_equal(rep->anr_type, c->type);
	else
		assert_null(rep->anr_type);
	if (c->scene)
		assert_string_equal(rep->scene, c->scene);
	else
		assert_null(rep->scene);
	if (!*preamble && rep->cost != c->cost)
		fail_msg("\"%s\": cost %lld", c->subject, (long long)rep->cost);
	/* no wait said: the cost is unknown, not 0 ms */
	if (!*preamble)
		assert_true(rep->cost_unknown == (c->cost == 0));
	if (c->warning)
		assert_warning(rep, c->warning);
	else if (!*preamble && rep->warnings.len)
		fail_msg("\"%s\": warning %s", c->subject, rep->warnings.items[0]);
	release(&m);
}

static void test_subjects(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof subjects / sizeof *subjects; i++)
		check_subject(&subjects[i], "");
}

/* Android 15+ writes the ANR timer's "Timeout: N" (ms) in the preamble:
 * the cost when the Subject says no wait. */
static void test_preamble_timeout(void **state)
{
	(void)state;
	static const char body[] = "\n----- pid 5 at 2024-01-01 00:00:00 -----\nCmd line: c.e\n\n"
				   "\"main\" prio=5 tid=1 Sleeping\n  at a.B.c(B.java:1)\n\n"
				   "----- end 5 -----\n";
	char text[1024];
	struct many m;
	snprintf(text, sizeof text, "Subject: Broadcast of Intent { cmp=c.e/.R }\nTimeout: 10003\n"
		 "TimeoutStart: 14284053\n%s", body);
	read_text(&m, text, strlen(text));
	assert_int_equal(m.reps[0]->cost, 10003);
	release(&m);
	/* the Subject's own wait wins */
	snprintf(text, sizeof text, "Subject: Input dispatching timed out (a c.e/.A (server) is not "
		 "responding. Waited 5004ms for KeyEvent)\nTimeout: 5000\n%s", body);
	read_text(&m, text, strlen(text));
	assert_int_equal(m.reps[0]->cost, 5004);
	release(&m);
	snprintf(text, sizeof text, "Subject: Broadcast of Intent { cmp=c.e/.R }\nTimeout: -10\n%s",
		 body);
	read_text(&m, text, strlen(text));
	assert_int_equal(m.reps[0]->cost, 0);
	assert_warning(m.reps[0], "line 2: \"Timeout: -10\" is no number of ms");
	release(&m);
}

/* No Subject: a dump taken by hand, by kill -3, by an app's own SIGQUIT
 * hook; xCrash's ANR tombstones say 'anr' in their header. */
static void test_which_dumps_are_anrs(void **state)
{
	(void)state;
	static const char dump[] = "----- pid 5 at 2024-01-01 00:00:00 -----\nCmd line: c.e\n\n"
				   "\"main\" prio=5 tid=1 Runnable\n  | state=R schedstat=( "
				   "9000000000 0 1 ) utm=900 stm=0 core=1 HZ=100\n"
				   "  at a.B.c(B.java:1)\n\n----- end 5 -----\n";
	struct many m;
	read_text(&m, dump, strlen(dump));
	assert_int_equal(m.reps[0]->kind, HG_KIND_THREAD_DUMP);
	assert_int_equal(m.reps[0]->cost, 0);
	assert_int_equal(m.reps[0]->warnings.len, 0); /* no wait: nothing said of the CPU */
	release(&m);
	static const char xcrash[] =
		"*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"
		"Crash type: '%s'\npid: 7  >>> c.e <<<\n\n--- --- --- --- --- --- --- ---\n"
		"Cmd line: c.e\n\n\"main\" prio=5 tid=1 Sleeping\n  at a.B.c(B.java:1)\n\n";
	char text[512];
	snprintf(text, sizeof text, xcrash, "anr");
	read_text(&m, text, strlen(text));
	assert_int_equal(m.reps[0]->kind, HG_KIND_ANR);
	assert_null(m.reps[0]->anr_type);
	release(&m);
	snprintf(text, sizeof text, xcrash, "java");
	read_text(&m, text, strlen(text));
	assert_int_equal(m.reps[0]->kind, HG_KIND_THREAD_DUMP);
	release(&m);
}

/* ---- busy or blocked ---- */

struct cpu_case {
	const char *state;      /* ART's */
	const char *line;       /* the main thread's "| state=..." line, or "" */
	const char *subject;
	const char *warning;    /* NULL: none */
};

#define INPUT_5001 "Input dispatching timed out (a c.e/.A (server) is not responding. Waited " \
		   "5001ms for MotionEvent)"

static const struct cpu_case cpu_cases[] = {
	{"Runnable", "  | state=R schedstat=( 4830112907 212004188 3104 ) utm=452 stm=31 core=5 HZ=100",
	 INPUT_5001, "main thread ran 4830 ms on the CPU since it started (schedstat), 96% of the "
	 "5001 ms wait, and was running when dumped (state=R): busy on the CPU, not blocked"},
	{"Blocked", "  | state=S schedstat=( 12004188 2004188 31 ) utm=1 stm=0 core=5 HZ=100",
	 INPUT_5001, "main thread ran 12 ms on the CPU in all its life (schedstat), under a tenth "
	 "of the 5001 ms wait: it was waiting, not computing"},
	/* between a tenth and 80%, or busy figures but asleep when dumped: nothing sure */
	{"Blocked", "  | state=S schedstat=( 3000000000 0 31 ) utm=300 stm=0 core=5 HZ=100",
	 INPUT_5001, NULL},
	{"Sleeping", "  | state=S schedstat=( 9000000000 0 31 ) utm=900 stm=0 core=5 HZ=100",
	 INPUT_5001, NULL},
	/* no schedstat: utm + stm clock ticks at HZ */
	{"Runnable", "  | state=R utm=480 stm=3 core=5 HZ=100", INPUT_5001,
	 "main thread ran 4830 ms on the CPU since it started (utm+stm), 96% of the 5001 ms wait"},
	{"Runnable", "  | state=R schedstat=( 0 0 0 ) utm=4830 stm=0 core=5 HZ=1000", INPUT_5001,
	 "ran 4830 ms on the CPU since it started (utm+stm)"},
	/* Dalvik wrote no kernel state: ART's Runnable says it ran */
	{"Runnable", "  | schedstat=( 0 0 0 ) utm=490 stm=10 core=1", INPUT_5001,
	 "and was running when dumped (Runnable): busy"},
	/* figures that cannot be read: said, naming the line, and left out */
	{"Runnable", "  | state=R utm=99999999999999999 stm=3 core=5 HZ=100", INPUT_5001,
	 "line 7: the main thread's CPU figure \"99999999999999999\" is no number or out of range"},
	{"Runnable", "  | state=R schedstat=( -4 1 1 ) utm=x stm=3 core=5 HZ=100", INPUT_5001,
	 "line 7: the main thread's CPU figure \"-4\""},
	/* no wait said: nothing to weigh the figures against */
	{"Runnable", "  | state=R schedstat=( 9000000000 0 31 ) utm=900 stm=0 core=5 HZ=100",
	 "Broadcast of Intent { cmp=c.e/.R }", NULL},
};

static void test_busy_or_blocked(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cpu_cases / sizeof *cpu_cases; i++) {
		const struct cpu_case *c = &cpu_cases[i];
		char text[2048];
		snprintf(text, sizeof text, "Subject: %s\n\n----- pid 5 at 2024-01-01 00:00:00 -----\n"
			 "Cmd line: c.e\n\n\"main\" prio=5 tid=1 %s\n%s\n  at a.B.c(B.java:1)\n\n"
			 "\"w\" prio=5 tid=2 Runnable\n  | state=R schedstat=( 1 0 1 ) utm=1 stm=0\n"
			 "  at a.B.d(B.java:2)\n\n----- end 5 -----\n", c->subject, c->state, c->line);
		struct many m;
		read_text(&m, text, strlen(text));
		const hg_report *rep = m.reps[0];
		if (c->warning) {
			assert_warning(rep, c->warning);
		} else {
			assert_null(warning(rep, "main thread ran"));
			assert_null(warning(rep, "CPU figure"));
		}
		release(&m);
	}
}

/* ---- the article's samples ---- */

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

/* A foreground input ANR: system_server dumped the ANR's process first,
 * then itself (firstPids), then a native process (nativePids). */
static void test_seed_three_processes(void **state)
{
	(void)state;
	size_t len;
	char *data = load("traces-foreground-input-three-processes.txt", &len);
	struct many m;
	read_text(&m, data, len);
	assert_int_equal(m.n, 3);
	const hg_report *app = m.reps[0];
	assert_int_equal(app->format, HG_FORMAT_ANR_TRACES);
	assert_int_equal(app->kind, HG_KIND_ANR);
	assert_string_equal(app->anr_type, "input dispatching");
	assert_string_equal(app->scene, "com.example.chat.ui.ChattingActivity");
	assert_int_equal(app->cost, 5001);
	assert_string_equal(app->process, "com.example.chat");
	assert_int_equal(app->threads.n, 4);
	assert_string_equal(app->threads.items[app->threads.blamed].name, "main");
	assert_warning(app, "main thread ran 4830 ms on the CPU since it started (schedstat), 96% of "
		       "the 5001 ms wait, and was running when dumped (state=R): busy on the CPU, "
		       "not blocked");
	const hg_report *ss = m.reps[1], *sf = m.reps[2];
	assert_int_equal(ss->kind, HG_KIND_THREAD_DUMP);
	assert_string_equal(ss->process, "system_server");
	assert_int_equal(ss->threads.n, 2);
	assert_int_equal(sf->kind, HG_KIND_THREAD_DUMP);
	assert_string_equal(sf->process, "/system/bin/surfaceflinger");
	assert_int_equal(sf->threads.n, 2);
	assert_string_equal(sf->threads.items[sf->threads.blamed].name, "surfaceflinger");
	assert_true(ss->line > app->line && sf->line > ss->line);
	assert_int_equal(m.diags, 0);
	release(&m);
	free(data);
}

static void test_seed_second_process_cut(void **state)
{
	(void)state;
	size_t len;
	char *data = load("traces-service-anr-second-process-cut.txt", &len);
	struct many m;
	read_text(&m, data, len);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.reps[0]->kind, HG_KIND_ANR);
	assert_string_equal(m.reps[0]->anr_type, "service");
	assert_string_equal(m.reps[0]->scene, "com.example.chat.push.PushService");
	assert_string_equal(m.reps[0]->process, "com.example.chat:push");
	assert_int_equal(m.reps[0]->cost, 0);
	assert_int_equal(m.reps[0]->warnings.len, 0);
	assert_int_equal(m.reps[1]->kind, HG_KIND_THREAD_DUMP);
	assert_int_equal(m.reps[1]->threads.n, 1);
	assert_int_equal(m.reps[1]->threads.items[0].n_frames, 3);
	assert_warning(m.reps[1], "the dump of pid 1203 has no '----- end' line: the input looks "
		       "truncated");
	assert_warning(m.reps[1], "the dump announces 212 threads (DALVIK THREADS) but holds 1");
	release(&m);
	free(data);
}

/* What the article's write() hook catches is the Signal Catcher's dump of
 * its own process: no Subject, so no ANR by itself. */
static void test_seed_sigquit_hook(void **state)
{
	(void)state;
	size_t len;
	char *data = load("sigquit-hook-trace-no-subject.txt", &len);
	struct many m;
	read_text(&m, data, len);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.reps[0]->kind, HG_KIND_THREAD_DUMP);
	assert_null(m.reps[0]->anr_type);
	assert_int_equal(m.reps[0]->threads.n, 3);
	release(&m);
	free(data);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subjects),
		cmocka_unit_test(test_preamble_timeout),
		cmocka_unit_test(test_which_dumps_are_anrs),
		cmocka_unit_test(test_busy_or_blocked),
		cmocka_unit_test(test_seed_three_processes),
		cmocka_unit_test(test_seed_second_process_cut),
		cmocka_unit_test(test_seed_sigquit_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
