/* Why an iOS app stopped, said plainly (private to report_kscrash.c): a
 * watchdog kill (exit reason 0x8badf00d, "ate bad food"), a hang, a
 * deadlock, or a crash's mach exception and signal; an NSException or C++
 * exception becomes the report's exception.  And the few fields of the
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

/* "mach exception EXC_BAD_ACCESS (KERN_INVALID_ADDRESS at 0x10), signal SIGSEGV". */
static int crash_words(struct kx *k, const hg_json *error, hg_buf *b)
{
	const struct json_fields *f = &k->f;
	const hg_json *mach, *sig;
	const char *exc = NULL, *code_name = NULL, *sig_name = NULL, *sig_code = NULL;
	long signo = 0;
	bool has_signo;
	uint64_t addr = 0;
	bool has_addr = false;
	int rc;
	if ((rc = report_get_object(f, error, "crash.error", "mach", &mach)) != 0 ||
	    (rc = report_get_object(f, error, "crash.error", "signal", &sig)) != 0 ||
	    (rc = report_get_string(f, mach, "crash.error.mach", "exception_name", &exc)) != 0 ||
	    (rc = report_get_string(f, mach, "crash.error.mach", "code_name", &code_name)) != 0 ||
	    (rc = report_get_string(f, sig, "crash.error.signal", "name", &sig_name)) != 0 ||
	    (rc = report_get_string(f, sig, "crash.error.signal", "code_name", &sig_code)) != 0 ||
	    (rc = report_get_count(f, sig, "crash.error.signal", "signal", &signo, &has_signo)) != 0 ||
	    (rc = report_get_u64(f, error, "crash.error", "address", &addr, &has_addr)) != 0)
		return rc;
	if (exc) {
		hg_buf_printf(b, "%smach exception %s", b->len ? "; " : "", exc);
		if (code_name)
			hg_buf_printf(b, " (%s)", code_name);
	}
	if (!sig_name)
		sig_name = signal_name(signo);
	if (sig_name) {
		hg_buf_printf(b, "%ssignal %s", b->len ? exc ? ", " : "; " : "", sig_name);
		if (sig_code)
			hg_buf_printf(b, " (%s)", sig_code);
	}
	if (has_addr && addr && (exc || sig_name))
		hg_buf_printf(b, " at 0x%" PRIx64, addr);
	return 0;
}

/* An NSException or C++ exception: the report's exception. */
static int thrown(struct kx *k, const hg_json *error)
{
	const struct json_fields *f = &k->f;
	const hg_json *ns, *cpp;
	const char *name = NULL, *reason = NULL, *cpp_name = NULL;
	int rc;
	if ((rc = report_get_object(f, error, "crash.error", "nsexception", &ns)) != 0 ||
	    (rc = report_get_object(f, error, "crash.error", "cpp_exception", &cpp)) != 0 ||
	    (rc = report_get_string(f, ns, "crash.error.nsexception", "name", &name)) != 0 ||
	    (rc = report_get_string(f, error, "crash.error", "reason", &reason)) != 0 ||
	    (rc = report_get_string(f, cpp, "crash.error.cpp_exception", "name", &cpp_name)) != 0)
		return rc;
	if (!ns && !cpp)
		return 0;
	const char *type = kscrash_dup(k, name ? name : cpp_name ? cpp_name : ns ? "NSException"
										 : "C++ exception");
	const char *msg = reason && *reason ? kscrash_dup(k, reason) : NULL;
	if (!type || (reason && *reason && !msg))
		return HG_ENOMEM;
	return hg_report_add_exception(k->rep, type, msg, -1);
}

int kscrash_read_reason(struct kx *k, const hg_json *error, const char *type, bool watchdog)
{
	hg_report *rep = k->rep;
	hg_buf b;
	hg_buf_init(&b);
	const char *reason = NULL;
	int rc = report_get_string(&k->f, error, "crash.error", "reason", &reason);
	if (watchdog)
		hg_buf_puts(&b, "killed by the watchdog (0x8badf00d): the main thread was blocked for too "
			    "long");
	else if (type && !strcmp(type, "hang"))
		hg_buf_printf(&b, "the main thread hung for %" PRId64 " ms", rep->cost);
	else if (type && !strcmp(type, "deadlock"))
		hg_buf_puts(&b, "the main thread deadlocked");
	else if (type && !strcmp(type, "user") && reason && *reason)
		hg_buf_printf(&b, "reported by the app: %s", reason);
	if (rc == 0 && (!type || strcmp(type, "user") != 0))
		rc = crash_words(k, error, &b);
	if (rc == 0)
		rc = thrown(k, error);
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
