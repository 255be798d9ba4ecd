/* Why an iOS app stopped, said plainly (private to report_kscrash.c): a
 * watchdog kill (exit reason 0x8badf00d, "ate bad food"), a hang, a
 * deadlock, a termination the OS chose (memory, CPU, heat...; KSCrash's
 * termination_reason), a request to quit (SIGTERM), or a crash's mach
 * exception and signal.  What was thrown becomes the report's exception:
 * an NSException, a C++ exception, an exception the app reported itself,
 * or an NSException that had been freed when the crash touched it (a
 * zombie, as KSCrash's own rendering tells it).  And the few fields of the
 * report and system objects a person reads in the header. */
#include <inttypes.h>
#include <string.h>

#include "report_kscrash_internal.h"

/* Darwin's numbers (signal.h), for reports that give no name. */
static const char *signal_name(long sig)
{
	static const char *const names[] = {NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL",
					    "SIGTRAP", "SIGABRT", "SIGEMT", "SIGFPE", "SIGKILL",
					    "SIGBUS", "SIGSEGV", "SIGSYS", "SIGPIPE", "SIGALRM",
					    "SIGTERM"};
	return sig > 0 && (size_t)sig < sizeof names / sizeof *names ? names[sig] : NULL;
}

/* What crash.error says of the mach exception and the signal. */
struct crash_error {
	const char *exc, *code_name, *sig_name, *sig_code;
	uint64_t addr;
	bool has_addr;
};

static int read_crash_error(struct kx *k, const hg_json *error, struct crash_error *ce)
{
	const struct json_fields *f = &k->f;
	const hg_json *mach, *sig;
	long signo = 0;
	bool has_signo;
	int rc;
	if ((rc = report_get_object(f, error, "crash.error", "mach", &mach)) != 0 ||
	    (rc = report_get_object(f, error, "crash.error", "signal", &sig)) != 0 ||
	    (rc = report_get_string(f, mach, "crash.error.mach", "exception_name", &ce->exc)) != 0 ||
	    (rc = report_get_string(f, mach, "crash.error.mach", "code_name", &ce->code_name)) != 0 ||
	    (rc = report_get_string(f, sig, "crash.error.signal", "name", &ce->sig_name)) != 0 ||
	    (rc = report_get_string(f, sig, "crash.error.signal", "code_name", &ce->sig_code)) != 0 ||
	    (rc = report_get_count(f, sig, "crash.error.signal", "signal", &signo, &has_signo)) != 0 ||
	    (rc = report_get_u64(f, error, "crash.error", "address", &ce->addr, &ce->has_addr)) != 0)
		return rc;
	if (!ce->sig_name)
		ce->sig_name = signal_name(signo);
	/* SentryCrash writes "" for a code it has no name for */
	if (ce->code_name && !*ce->code_name)
		ce->code_name = NULL;
	if (ce->sig_code && !*ce->sig_code)
		ce->sig_code = NULL;
	return 0;
}

static bool is_sigterm(const struct crash_error *ce)
{
	return ce->sig_name && strcmp(ce->sig_name, "SIGTERM") == 0;
}

int kscrash_crash_words(struct kx *k, const hg_json *error, hg_buf *b)
{
	struct crash_error ce = {0};
	int rc = read_crash_error(k, error, &ce);
	if (rc != 0)
		return rc;
	if (ce.exc) {
		hg_buf_printf(b, "%smach exception %s", b->len ? "; " : "", ce.exc);
		if (ce.code_name)
			hg_buf_printf(b, " (%s)", ce.code_name);
	}
	if (ce.sig_name) {
		hg_buf_printf(b, "%ssignal %s", b->len ? ce.exc ? ", " : "; " : "", ce.sig_name);
		if (ce.sig_code)
			hg_buf_printf(b, " (%s)", ce.sig_code);
	}
	/* A request to quit has no faulting address (SentryCrash writes one). */
	if (ce.has_addr && ce.addr && (ce.exc || ce.sig_name) && !is_sigterm(&ce))
		hg_buf_printf(b, " at 0x%" PRIx64, ce.addr);
	return 0;
}

/* KSCrash's termination_reason (KSTerminationReason.c), said plainly. */
static const char *termination_words(const char *why)
{
	static const char *const words[][2] = {
		{"memory_limit", "the app exceeded its memory limit and the OS terminated it"},
		{"memory_pressure", "the OS terminated the app under system-wide memory pressure"},
		{"cpu", "the OS terminated the app for using too much CPU"},
		{"thermal", "the OS terminated the app: the device was critically hot"},
		{"low_battery", "the device shut down: its battery was too low"},
		{"os_upgrade", "the previous run ended with an OS upgrade"},
		{"app_upgrade", "the previous run ended with an app upgrade"},
		{"reboot", "the previous run ended with a device reboot"},
		{"hang", "the OS terminated the app while it hung"},
	};
	for (size_t i = 0; why && i < sizeof words / sizeof *words; i++)
		if (strcmp(why, words[i][0]) == 0)
			return words[i][1];
	return NULL;
}

/* A termination report (error.type "termination", or the older
 * "memory_termination"): what the OS ended the app for. */
static int termination(struct kx *k, const hg_json *error, const char *type, hg_buf *b)
{
	const char *why;
	int rc = kscrash_soft_string(k, error, "crash.error", "termination_reason", &why);
	if (rc != 0)
		return rc;
	const char *words = termination_words(why);
	if (words)
		hg_buf_puts(b, words);
	else if (why)
		hg_buf_printf(b, "the OS terminated the app (termination_reason \"%s\")", why);
	else if (!strcmp(type, "memory_termination"))
		hg_buf_puts(b, "the OS terminated the app for using too much memory");
	else
		hg_buf_puts(b, "the OS terminated the app, for a reason the report does not give");
	return 0;
}

/* The exception of an NSException, C++ exception or user report: its
 * name, and its reason (the exception's own, else error.reason, as
 * KSCrash's doctor reads it); a reason that only repeats the name is
 * left out. */
static int add_exception(struct kx *k, const char *name, const char *reason)
{
	const char *type = kscrash_dup(k, name);
	bool said = reason && *reason && strcmp(reason, name) != 0;
	const char *msg = said ? kscrash_dup(k, reason) : NULL;
	if (!type || (said && !msg))
		return HG_ENOMEM;
	return hg_report_add_exception(k->rep, type, msg, -1);
}

/* Whether some basic register of the crashed thread holds addr: KSCrash's
 * own test of a zombie NSException (KSCrashReportFilterAppleFmt.m). */
static bool crashed_thread_holds(struct kx *k, const hg_json *crash, uint64_t addr)
{
	const hg_json *one = hg_json_get(crash, "crashed_thread"), *threads = hg_json_get(crash, "threads");
	for (const hg_json *t = one ? one : hg_json_first(threads); t; t = one ? NULL : hg_json_next(t)) {
		if (!one && !hg_json_true(hg_json_get(t, "crashed")))
			continue;
		const hg_json *basic = hg_json_get(hg_json_get(t, "registers"), "basic");
		for (const hg_json *r = hg_json_first(basic); r; r = hg_json_next(r)) {
			const char *s;
			size_t len;
			uint64_t v;
			if (hg_json_type(r) != HG_JSON_NUMBER)
				continue;
			hg_json_number_text(k->f.doc, r, &s, &len);
			if (kscrash_image_number(s, len, &v) == NULL && v == addr)
				return true;
		}
		return false;
	}
	return false;
}

/* An EXC_BAD_ACCESS on an NSException that had been freed: KSCrash kept
 * the last one freed (process.last_dealloced_nsexception); when the
 * crashed thread's registers point at it, it is the exception thrown. */
static int zombie(struct kx *k, const struct error_info *ei, const struct crash_error *ce,
		  hg_buf *b)
{
	const hg_json *process, *last;
	const char *w = "process.last_dealloced_nsexception", *name, *reason;
	uint64_t addr = 0;
	bool has_addr = false;
	int rc = kscrash_soft_object(k, ei->root, "", "process", &process);
	if (rc == 0)
		rc = kscrash_soft_object(k, process, "process", "last_dealloced_nsexception", &last);
	if (rc != 0 || !last || !ce->exc || strcmp(ce->exc, "EXC_BAD_ACCESS") != 0 ||
	    !ce->code_name || strcmp(ce->code_name, "KERN_INVALID_ADDRESS") != 0)
		return rc;
	if ((rc = kscrash_soften(k, report_get_u64(&k->f, last, w, "address", &addr, &has_addr))) != 0 ||
	    (rc = kscrash_soft_string(k, last, w, "name", &name)) != 0 ||
	    (rc = kscrash_soft_string(k, last, w, "reason", &reason)) != 0)
		return rc;
	if (!has_addr || !crashed_thread_holds(k, ei->crash, addr))
		return 0;
	hg_buf_puts(b, "; the NSException had been deallocated: the stack is the crash on touching "
		    "it (a zombie)");
	return add_exception(k, name ? name : "NSException", reason);
}

/* What was thrown: an NSException, a C++ exception, an exception the app
 * reported (not a Matrix dump, which is no exception), or a zombie one. */
static int thrown(struct kx *k, const struct error_info *ei, const struct crash_error *ce,
		  hg_buf *b)
{
	const struct json_fields *f = &k->f;
	const hg_json *error = ei->error, *ns, *cpp, *user;
	const char *name = NULL, *ns_reason = NULL, *reason = NULL, *cpp_name = NULL, *user_name = NULL;
	int rc;
	if ((rc = report_get_object(f, error, "crash.error", "nsexception", &ns)) != 0 ||
	    (rc = report_get_object(f, error, "crash.error", "cpp_exception", &cpp)) != 0 ||
	    (rc = report_get_object(f, error, "crash.error", "user_reported", &user)) != 0 ||
	    (rc = report_get_string(f, ns, "crash.error.nsexception", "name", &name)) != 0 ||
	    (rc = kscrash_soft_string(k, ns, "crash.error.nsexception", "reason", &ns_reason)) != 0 ||
	    (rc = report_get_string(f, error, "crash.error", "reason", &reason)) != 0 ||
	    (rc = report_get_string(f, cpp, "crash.error.cpp_exception", "name", &cpp_name)) != 0)
		return rc;
	if (ns)
		return add_exception(k, name ? name : "NSException",
				     ns_reason && *ns_reason ? ns_reason : reason);
	if (cpp)
		return add_exception(k, cpp_name ? cpp_name : "C++ exception", reason);
	if (user && !ei->matrix) {
		rc = kscrash_soft_string(k, user, "crash.error.user_reported", "name", &user_name);
		return rc != 0 ? rc : add_exception(k, user_name ? user_name : "user-reported exception",
						    reason);
	}
	return zombie(k, ei, ce, b);
}

/* The first words: what kind of stop, before the mach exception and signal. */
static int lead_words(struct kx *k, const struct error_info *ei, const struct crash_error *ce,
		      hg_buf *b, bool *crash_words)
{
	const char *type = ei->type, *reason = NULL;
	int rc = report_get_string(&k->f, ei->error, "crash.error", "reason", &reason);
	bool user = type && !strcmp(type, "user");
	*crash_words = !user;
	if (ei->watchdog)
		hg_buf_puts(b, "killed by the watchdog (0x8badf00d): the main thread was blocked for too "
			    "long");
	else if (type && !strcmp(type, "hang"))
		hg_buf_printf(b, "the main thread hung for %" PRId64 " ms", k->rep->cost);
	else if (type && !strcmp(type, "deadlock"))
		hg_buf_puts(b, "the main thread deadlocked");
	else if (user && reason && *reason)
		hg_buf_printf(b, "reported by the app: %s", reason);
	else if (type && (!strcmp(type, "termination") || !strcmp(type, "memory_termination"))) {
		*crash_words = false; /* the kill signal says no more */
		rc = rc != 0 ? rc : termination(k, ei->error, type, b);
	} else if (is_sigterm(ce)) {
		hg_buf_puts(b, "the OS asked the app to terminate (SIGTERM)");
		*crash_words = ce->exc != NULL;
	}
	return rc;
}

int kscrash_read_reason(struct kx *k, const struct error_info *ei)
{
	hg_report *rep = k->rep;
	hg_buf b;
	hg_buf_init(&b);
	struct crash_error ce = {0};
	bool crash_words = false;
	int rc = read_crash_error(k, ei->error, &ce);
	if (rc == 0)
		rc = lead_words(k, ei, &ce, &b, &crash_words);
	if (rc == 0 && crash_words)
		rc = kscrash_crash_words(k, ei->error, &b);
	if (rc == 0 && ei->error)
		rc = thrown(k, ei, &ce, &b);
	if (rc == 0 && b.len && !(rep->reason = hg_arena_strndup(rep->arena, b.data, b.len)))
		rc = HG_ENOMEM;
	if (rc == 0 && b.failed)
		rc = HG_ENOMEM;
	hg_buf_release(&b);
	return rc;
}

int kscrash_header_fields(struct kx *k, const hg_json *sys, const hg_json *rep_info)
{
	const struct json_fields *f = &k->f;
	const char *os = NULL, *os_v = NULL, *build = NULL, *arch = NULL, *model = NULL, *id = NULL,
		   *version = NULL;
	int rc;
	if ((rc = report_get_string(f, sys, "system", "system_name", &os)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "system_version", &os_v)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "os_version", &build)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "cpu_arch", &arch)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "model", &model)) != 0 ||
	    (rc = report_get_string(f, rep_info, "report", "id", &id)) != 0)
		return rc;
	const hg_json *v = report_member(rep_info, "version");
	if (hg_json_type(v) == HG_JSON_STRING)
		version = hg_json_string(v); /* 2.0 writes {major, minor} */
	hg_report *rep = k->rep;
	hg_arena *a = rep->arena;
	const char *os_line = os ? hg_arena_printf(a, "%s%s%s%s%s%s", os, os_v ? " " : "",
						   os_v ? os_v : "", build ? " (" : "",
						   build ? build : "", build ? ")" : "")
				 : NULL;
	const char *model_line = model || arch ? hg_arena_printf(a, "%s%s%s", model ? model : "",
								 model && arch ? ", " : "",
								 arch ? arch : "")
					       : NULL;
	const char *id_line = id ? hg_arena_printf(a, "%s%s%s", id, version ? ", KSCrash " : "",
						   version ? version : "")
				 : NULL;
	if ((os && !os_line) || ((model || arch) && !model_line) || (id && !id_line))
		return HG_ENOMEM;
	rep->os_version = os_line;
	if ((os_line && hg_report_add_stat(rep, "header", "os", os_line) != 0) ||
	    (model_line && hg_report_add_stat(rep, "header", "model", model_line) != 0) ||
	    (id_line && hg_report_add_stat(rep, "header", "report id", id_line) != 0))
		return HG_ENOMEM;
	return 0;
}
