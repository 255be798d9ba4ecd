/* iOS hang reports in KSCrash JSON (and SentryCrash, its fork): the threads
 * of one report object, as KSCrash 2.x and 3.x and Matrix-iOS's fork write
 * them.  Here: the report's own fields, what kind of report it is and whom
 * to blame; the threads, frames and binary images are read in
 * report_kscrash_threads.c.
 *
 * Matrix's WCBlockMonitor writes its lag dumps through KSCrash's user
 * exception path (error.type "user", user_reported.dump_type 2001...) and
 * puts its representative stack first among the threads: a thread named
 * "HandledThread" whose frames carry repeat_count.  The thread that wrote
 * the report (current_thread; in a user-reported dump also the `crashed`
 * one) is Matrix's own monitor and is never blamed.
 *
 * An APM that runs Matrix's hang detection in its own "hang" module adds
 * an "htapm" section (seed 003): which thread is main, the block duration
 * and threshold, and pre-sampling's representative main-thread stack
 * (report_kscrash_htapm.c).
 *
 * Addresses are unsigned 64-bit and read from their digits, never through
 * a double.  Matrix's fork writes them through int64_t, so a negative
 * number is taken as the two's complement it wrote; but an image whose
 * range is none (negative, not an integer, empty, wrapping past 2^64) is
 * refused with a warning (report_kscrash_threads.c). */
#include <inttypes.h>
#include <string.h>

#include "report_kscrash_internal.h"

#define WATCHDOG_CODE 0x8badf00dULL /* "ate bad food": the watchdog killed a hung app */

/* ---- what kind of report, and whom to blame ---- */

static int read_hang(struct kx *k, const hg_json *error, struct error_info *ei)
{
	const hg_json *hang, *exit_reason;
	uint64_t start, end, code;
	bool has_start, has_end, has_code;
	const struct json_fields *f = &k->f;
	const char *w = "crash.error.hang", *xw = "crash.error.exit_reason";
	int rc;
	if ((rc = report_get_object(f, error, "crash.error", "hang", &hang)) != 0 ||
	    (rc = report_get_u64(f, hang, w, "hang_start_nanos", &start, &has_start)) != 0 ||
	    (rc = report_get_u64(f, hang, w, "hang_end_nanos", &end, &has_end)) != 0 ||
	    (rc = report_get_object(f, error, "crash.error", "exit_reason", &exit_reason)) != 0 ||
	    (rc = report_get_u64(f, exit_reason, xw, "code", &code, &has_code)) != 0)
		return rc;
	ei->watchdog = has_code && code == WATCHDOG_CODE;
	ei->hang |= hang != NULL || ei->watchdog;
	if (has_start && has_end && end >= start)
		k->rep->cost = (int64_t)((end - start) / 1000000);
	else if (has_start && has_end &&
		 hg_strlist_addf(&k->rep->warnings, k->rep->arena, "the hang ends (hang_end_nanos "
				 "%" PRIu64 ") before it starts (%" PRIu64 "): no duration", end, start) != 0)
		return HG_ENOMEM;
	return 0;
}

/* Matrix's EDumpType (WCBlockTypeDef.h), shown as the report's detail. */
static const char *dump_type_name(long type)
{
	switch (type) {
	case 2001: return "MainThreadBlock";
	case 2002: return "BackgroundMainThreadBlock";
	case 2003: return "CPUBlock";
	case 2007: return "LaunchBlock";
	case 2008: return "CPUIntervalHigh";
	case 2009: return "BlockThreadTooMuch";
	case 2010: return "BlockAndBeKilled";
	case 10000: return "Test";
	}
	return NULL;
}

static int read_error_info(struct kx *k, const hg_json *crash, struct error_info *ei)
{
	const hg_json *error, *user;
	int rc = report_get_object(&k->f, crash, "crash", "error", &error);
	ei->error = error;
	if (rc == 0)
		rc = report_get_string(&k->f, error, "crash.error", "type", &ei->type);
	if (rc == 0)
		rc = read_hang(k, error, ei);
	if (rc == 0)
		rc = report_get_object(&k->f, error, "crash.error", "user_reported", &user);
	long dump_type = 0;
	bool has_dump_type = false;
	if (rc == 0)
		rc = report_get_count(&k->f, user, "crash.error.user_reported", "dump_type",
				      &dump_type, &has_dump_type);
	if (rc == 0 && ei->type && strcmp(ei->type, "profile") == 0) {
		ei->profile = true;
		rc = report_get_object(&k->f, error, "crash.error", "profile", &ei->profile_obj);
	}
	if (rc != 0)
		return rc;
	ei->matrix = has_dump_type;
	ei->hang |= ei->type && (strcmp(ei->type, "hang") == 0 || strcmp(ei->type, "deadlock") == 0);
	/* error.type, or what kind of Matrix dump: "MainThreadBlock", "2004" */
	const char *name = has_dump_type ? dump_type_name(dump_type) : NULL;
	if (has_dump_type)
		k->rep->detail = name ? name : hg_arena_printf(k->rep->arena, "%ld", dump_type);
	else
		k->rep->detail = kscrash_dup(k, ei->type);
	return (ei->type || has_dump_type) && !k->rep->detail ? HG_ENOMEM : 0;
}

/* A sampled profile: its kind and cost, and its samples as threads
 * (report_kscrash_profile.c). */
static int read_profile(struct kx *k, const struct error_info *ei)
{
	const char *w = "crash.error.profile", *name, *units;
	const hg_json *samples;
	uint64_t duration;
	bool has_duration;
	const struct json_fields *f = &k->f;
	const hg_json *profile = ei->profile_obj;
	int rc;
	if ((rc = report_get_string(f, profile, w, "name", &name)) != 0 ||
	    (rc = report_get_string(f, profile, w, "time_units", &units)) != 0 ||
	    (rc = report_get_u64(f, profile, w, "duration", &duration, &has_duration)) != 0 ||
	    (rc = report_get_array(f, profile, w, "samples", &samples)) != 0)
		return rc;
	bool ns = has_duration && units && strcmp(units, "nanoseconds") == 0;
	if (ns)
		k->rep->cost = (int64_t)(duration / 1000000);
	k->rep->kind = name && strcmp(name, "startup") == 0 ? HG_KIND_STARTUP : HG_KIND_UNKNOWN;
	return k->rep->threads.n > 0 ? 0 : kscrash_read_profile(k, profile);
}

/* The thread that wrote the report: KSCrash's current_thread, and in a
 * user-reported dump (Matrix's lag dumps) also the `crashed` one, which is
 * the monitor that called for the dump.  Elsewhere `crashed` marks the
 * offending thread: the main thread of a hang or deadlock report, the
 * thread that crashed, which is also current when its own signal or
 * exception handler wrote the report (an abort, an NSException): then it
 * is the crashed thread, to blame, not a writer. */
static bool is_writer(const struct thread_info *t, bool user_dump)
{
	return user_dump ? t->current || t->crashed : t->current && !t->crashed;
}

/* Matrix's representative stack; for a crash, the thread that crashed;
 * else the main thread.  Never the thread that wrote the report. */
static long pick_blamed(const hg_report *rep, const struct thread_info *info, bool user_dump,
			long main)
{
	long crashed = -1;
	for (size_t i = 0; i < rep->threads.n; i++) {
		if (info[i].handled && !is_writer(&info[i], user_dump))
			return (long)i;
		if (crashed < 0 && info[i].crashed && !is_writer(&info[i], user_dump))
			crashed = (long)i;
	}
	if (rep->kind == HG_KIND_CRASH && crashed >= 0)
		return crashed;
	return main >= 0 && !is_writer(&info[main], user_dump) ? main : crashed;
}

/* The thread an APM's hang module says is main (htapm's is_main_thread),
 * else the dispatch queue "com.apple.main-thread", else a thread named
 * "main", else the thread at index 0 (Mach lists the main thread first). */
static long find_main(size_t n, const struct thread_info *info)
{
	for (int pass = 0; pass < 4; pass++)
		for (size_t i = 0; i < n; i++)
			if (!info[i].handled && (pass == 0   ? info[i].htapm_main
						 : pass == 1 ? info[i].main_queue
						 : pass == 2 ? info[i].main_name
							     : info[i].index == 0))
				return (long)i;
	return -1;
}

static int blame(struct kx *k, const struct thread_info *info, const struct error_info *ei)
{
	hg_report *rep = k->rep;
	bool handled = false;
	for (size_t i = 0; i < rep->threads.n; i++)
		handled |= info[i].handled;
	bool user_dump = ei->type && strcmp(ei->type, "user") == 0;
	if (!ei->profile)
		rep->kind = ei->hang || ei->matrix || ei->htapm || handled ? HG_KIND_IOS_HANG
									 : HG_KIND_CRASH;
	for (size_t i = 0; i < rep->threads.n; i++)
		if (is_writer(&info[i], user_dump))
			rep->threads.items[i].flags |= HG_THREAD_CRASHED;
	long main = find_main(rep->threads.n, info);
	if (main >= 0)
		rep->threads.items[main].flags |= HG_THREAD_MAIN;
	rep->threads.blamed = pick_blamed(rep, info, user_dump, main);
	if (rep->threads.blamed >= 0)
		rep->threads.items[rep->threads.blamed].flags |= HG_THREAD_BLAMED;
	if (main >= 0 && !rep->threads.items[main].name)
		rep->threads.items[main].name = "main"; /* KSCrash 3 names no thread */
	else if (main >= 0 && !strcmp(rep->threads.items[main].name, "apple.main-thread"))
		rep->threads.items[main].name = "com.apple.main-thread"; /* as 2.0 cut it */
	for (size_t i = 0; i < rep->n_exceptions; i++)
		if (rep->exceptions[i].thread < 0)
			rep->exceptions[i].thread = rep->threads.blamed;
	/* A termination report is written on the next launch: the process,
	 * killed, left no threads to write. */
	bool termination = ei->type && (!strcmp(ei->type, "termination") ||
					!strcmp(ei->type, "memory_termination"));
	if (rep->threads.n == 0 && !ei->profile && ei->crash && !termination &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "the report holds no threads") != 0)
		return HG_ENOMEM;
	return 0;
}

/* ---- the report around the threads ---- */

static int read_system_fields(struct kx *k, const hg_json *sys_root, const hg_json *rep_root)
{
	const hg_json *sys, *rep_info, *stats;
	const char *machine, *model, *bundle, *proc, *proc2, *short_v, *build, *ts;
	bool fg = false;
	const struct json_fields *f = &k->f;
	int rc;
	if ((rc = report_get_object(f, sys_root, "", "system", &sys)) != 0 ||
	    (rc = report_get_object(f, rep_root, "", "report", &rep_info)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "machine", &machine)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "model", &model)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "CFBundleIdentifier", &bundle)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "process_name", &proc)) != 0 ||
	    (rc = report_get_string(f, rep_info, "report", "process_name", &proc2)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "CFBundleShortVersionString", &short_v)) != 0 ||
	    (rc = report_get_string(f, sys, "system", "CFBundleVersion", &build)) != 0 ||
	    (rc = report_get_object(f, sys, "system", "application_stats", &stats)) != 0 ||
	    (rc = report_get_bool(f, stats, "system.application_stats", "application_in_foreground",
				  &fg)) != 0)
		return rc;
	hg_report *rep = k->rep;
	if ((rc = kscrash_header_fields(k, sys, rep_info)) != 0)
		return rc;
	if (report_member(stats, "application_in_foreground"))
		rep->foreground = fg;
	/* As written: ISO 8601 (2.0, SentryCrash), or seconds or microseconds
	 * since 1970 (3.x). */
	const hg_json *t = report_member(rep_info, "timestamp");
	if (hg_json_type(t) == HG_JSON_NUMBER) {
		size_t len;
		hg_json_number_text(f->doc, t, &ts, &len);
		rep->time = hg_arena_strndup(rep->arena, ts, len);
	} else if (hg_json_type(t) == HG_JSON_STRING) {
		rep->time = kscrash_dup(k, hg_json_string(t));
	} else if (t) {
		return report_bad_field(f, "report", "timestamp", t, "a string or a number");
	}
	rep->platform = "ios";
	rep->device = kscrash_dup(k, machine ? machine : model);
	rep->process = kscrash_dup(k, bundle ? bundle : proc ? proc : proc2);
	if (short_v && build && strcmp(short_v, build) != 0)
		rep->app_version = hg_arena_printf(rep->arena, "%s (%s)", short_v, build);
	else
		rep->app_version = kscrash_dup(k, short_v ? short_v : build);
	if ((t && !rep->time) || ((machine || model) && !rep->device) ||
	    ((bundle || proc || proc2) && !rep->process) || ((short_v || build) && !rep->app_version))
		return HG_ENOMEM;
	return 0;
}

/* The part under which root lies: "" or "recrash_report.". */
static const char *prefix_of(const struct kscrash_parts *p, const hg_json *root)
{
	return (root == p->main) == p->inner ? "recrash_report." : "";
}

/* The system and report objects of the part read, else of the other part
 * (KSCrash 3 writes them in recrash_report, the handler's crash without). */
static int read_system(struct kx *k, const struct kscrash_parts *p)
{
	const hg_json *sys_root = hg_json_get(p->main, "system") || !p->other ? p->main : p->other;
	const hg_json *rep_root = hg_json_get(p->main, "report") || !p->other ? p->main : p->other;
	int rc = read_system_fields(k, sys_root, rep_root);
	if (rc == HG_EPARSE) {
		kscrash_name_root(k->f.err, "system", prefix_of(p, sys_root));
		kscrash_name_root(k->f.err, "report", prefix_of(p, rep_root));
	}
	return rc;
}

/* Everything but the evidence (threads, images; "buffer" and "stack",
 * the evidence of Matrix reports, are never metadata either; a
 * recrash_report is read, not copied) and a profile's sample table: the
 * top-level members of the part read, then those of the other part it
 * lacks, then crash.error and crash.diagnosis. */
static int read_meta(struct kx *k, const struct kscrash_parts *p, const hg_json *crash,
		     bool profile)
{
	static const char *const evidence[] = {"crash", "binary_images", "buffer", "stack",
					       "recrash_report"};
	int rc = 0;
	const hg_json *parts[2] = {p->main, p->inner ? p->other : NULL};
	for (int i = 0; i < 2; i++)
		for (const hg_json *m = hg_json_first(parts[i]); m && rc == 0; m = hg_json_next(m)) {
			const char *key = hg_json_key(m);
			bool skip = false;
			for (size_t e = 0; e < sizeof evidence / sizeof *evidence; e++)
				skip |= strcmp(key, evidence[e]) == 0;
			if (!skip) /* a key already there is kept as it is */
				rc = report_add_json_meta(k->rep, k->f.doc, key, m);
		}
	const hg_json *error = hg_json_get(crash, "error"), *diagnosis = hg_json_get(crash, "diagnosis");
	if (rc == 0 && error && !profile)
		rc = report_add_json_meta(k->rep, k->f.doc, "error", error);
	if (rc == 0 && diagnosis)
		rc = report_add_json_meta(k->rep, k->f.doc, "diagnosis", diagnosis);
	return rc;
}

/* A report object KSCrash wrote: its crash part (threads or error) beside
 * its report, images or an APM's section; or, without a crash part (not
 * written, or cut off), KSCrash's recrash_report, or its report header
 * (id, type or version) beside its system or binary_images. */
bool report_is_kscrash(const hg_json *obj)
{
	const hg_json *crash = hg_json_get(obj, "crash"), *info = hg_json_get(obj, "report");
	if (hg_json_type(crash) == HG_JSON_OBJECT &&
	    (hg_json_get(crash, "threads") || hg_json_get(crash, "error")) &&
	    (info || hg_json_get(obj, "binary_images") || hg_json_get(obj, "htapm")))
		return true;
	if (hg_json_type(hg_json_get(obj, "recrash_report")) == HG_JSON_OBJECT)
		return true;
	return hg_json_type(info) == HG_JSON_OBJECT &&
	       (hg_json_get(info, "id") || hg_json_get(info, "type") || hg_json_get(info, "version")) &&
	       (hg_json_type(hg_json_get(obj, "system")) == HG_JSON_OBJECT ||
		hg_json_type(hg_json_get(obj, "binary_images")) == HG_JSON_ARRAY);
}

/* What the report lacks, said: no crash part, or only the report that a
 * handler was writing when it crashed. */
static int warn_parts(struct kx *k, const struct kscrash_parts *p, const hg_json *crash)
{
	hg_report *rep = k->rep;
	if (p->inner && !p->handler &&
	    hg_strlist_addf(&rep->warnings, rep->arena, "the report holds only recrash_report, the "
			    "report the crash handler was writing when it crashed: read from it "
			    "(it may be cut short)") != 0)
		return HG_ENOMEM;
	if (!crash && hg_strlist_addf(&rep->warnings, rep->arena, "%s \"crash\" object: the "
				      "report says nothing of its threads or error",
				      p->inner ? "recrash_report has no" : "no") != 0)
		return HG_ENOMEM;
	return 0;
}

/* The part read: its threads and images, the handler's crash, why the app
 * stopped, and whom to blame. */
static int read_part(struct kx *k, const struct kscrash_parts *p, const hg_json *crash)
{
	struct error_info ei = {.root = p->main, .crash = crash};
	struct htapm h = {0};
	struct thread_info *info = NULL;
	hg_report *rep = k->rep;
	strcache_init(&k->strs, rep->arena);
	int rc = read_system(k, p);
	if (rc == 0)
		rc = read_error_info(k, crash, &ei);
	/* frames of the handler's crash lie in the same images */
	const hg_json *images = hg_json_get(p->main, "binary_images") || !p->other ? p->main : p->other;
	if (rc == 0)
		rc = kscrash_read_images(k, images, prefix_of(p, images));
	if (rc == 0)
		rc = kscrash_read_threads(k, crash, &info);
	if (rc == 0 && !ei.profile)
		rc = kscrash_read_htapm(k, p->main, &info, &h);
	if (rc == 0 && p->handler)
		rc = kscrash_read_recrash(k, p->handler, p->inner ? "" : "recrash_report.");
	strcache_release(&k->strs);
	ei.htapm = h.hang;
	if (rc == 0 && !ei.profile)
		rc = kscrash_read_reason(k, &ei);
	if (rc == 0)
		rc = kscrash_htapm_reason(k, &h);
	if (rc != 0 || (rc = blame(k, info, &ei)) != 0 ||
	    (ei.profile && (rc = read_profile(k, &ei)) != 0) ||
	    (!k->ctx->skip_meta && (rc = read_meta(k, p, crash, ei.profile)) != 0))
		return rc;
	return 0;
}

int report_from_kscrash(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
			hg_report *rep, struct read_error *err)
{
	struct kx k = {.ctx = ctx, .f = {doc, err}, .rep = rep, .prefix = ""};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	rep->format = HG_FORMAT_KSCRASH;
	const hg_json *rr = hg_json_get(obj, "recrash_report");
	if (rr && hg_json_type(rr) != HG_JSON_OBJECT && hg_json_type(rr) != HG_JSON_NULL) {
		char q[64];
		report_quote(doc, rr, q, sizeof q);
		if (hg_strlist_addf(&rep->warnings, rep->arena, "field \"recrash_report\": expected an "
				    "object, got %s; ignored", q) != 0)
			return HG_ENOMEM;
	}
	if (!hg_json_get(obj, "crash") && !report_is_kscrash(obj)) /* read as KSCrash by force */
		return report_fail(err, NO_OFFSET, "not a KSCrash report: no \"crash\" object");
	struct kscrash_parts p;
	kscrash_pick_parts(obj, &p);
	k.prefix = p.inner ? "recrash_report." : "";
	k.lenient = p.incomplete;
	const hg_json *crash = report_member(p.main, "crash"); /* null: not written */
	if (crash && hg_json_type(crash) != HG_JSON_OBJECT)
		return report_bad_field(&k.f, p.inner ? "recrash_report" : "", "crash", crash,
					"an object");
	int rc = warn_parts(&k, &p, crash);
	if (rc == 0)
		rc = read_part(&k, &p, crash);
	if (rc == HG_EPARSE || rc == HG_ELIMIT)
		kscrash_name_field(err, k.prefix);
	if (rc != 0)
		return rc;
	rep->stack_cost = rep->cost; /* no method stack: the cost alone */
	return hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}
