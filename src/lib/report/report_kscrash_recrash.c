/* A KSCrash report whose crash handler crashed while writing it (private
 * to report_kscrash.c).  On the next launch KSCrash keeps what was written
 * and adds a "minimal" report of the handler's own crash: its error and
 * the thread that crashed (crashed_thread).  KSCrash 2.0 kept the report
 * outside, marked "incomplete", with the handler's crash as recrash_report
 * (Example-Reports/CrashInHandler.json); KSCrash 3 and SentryCrash write
 * the handler's crash outside and the report as recrash_report.  Either
 * way the report is read as any other and the handler's crash becomes
 * hg_report.recrash, as KSCrash's own Apple-format rendering shows it
 * ("Handler crashed while reporting").  Both parts may be cut short, so
 * what of the handler's crash cannot be read is a warning naming the
 * field, never the report's end.  And the fields read for the person
 * alone (report_kscrash_reason.c) are read the same forgiving way. */
#include <stdio.h>
#include <string.h>

#include "hangar/demangle.h"
#include "report_kscrash_internal.h"

#define MAX_PATH 160

/* ---- fields that never cost the report ---- */

int kscrash_soften(struct kx *k, int rc)
{
	if (rc != HG_EPARSE)
		return rc;
	kscrash_name_field(k->f.err, k->prefix);
	rc = hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%s; ignored", k->f.err->msg) != 0
	     ? HG_ENOMEM : 0;
	k->f.err->msg[0] = '\0';
	k->f.err->offset = NO_OFFSET;
	return rc;
}

int kscrash_soft_string(struct kx *k, const hg_json *obj, const char *where, const char *key,
			const char **out)
{
	return kscrash_soften(k, report_get_string(&k->f, obj, where, key, out));
}

int kscrash_soft_object(struct kx *k, const hg_json *obj, const char *where, const char *key,
			const hg_json **out)
{
	return kscrash_soften(k, report_get_object(&k->f, obj, where, key, out));
}

void kscrash_name_root(struct read_error *err, const char *root, const char *prefix)
{
	static const char lead[] = "field \"";
	size_t at = sizeof lead - 1, n = strlen(prefix), len = strlen(err->msg), r = strlen(root);
	if (!n || strncmp(err->msg, lead, at) != 0 || strncmp(err->msg + at, root, r) != 0 ||
	    !strchr(".[\"", err->msg[at + r]) || len + n >= sizeof err->msg)
		return;
	memmove(err->msg + at + n, err->msg + at, len - at + 1);
	memcpy(err->msg + at, prefix, n);
}

void kscrash_name_field(struct read_error *err, const char *prefix)
{
	kscrash_name_root(err, "crash", prefix);
	kscrash_name_root(err, "process", prefix);
}

/* ---- which part is which ---- */

static bool is_minimal(const hg_json *part)
{
	const char *type = hg_json_string(hg_json_get(hg_json_get(part, "report"), "type"));
	return type && strcmp(type, "minimal") == 0;
}

void kscrash_pick_parts(const hg_json *obj, struct kscrash_parts *p)
{
	const hg_json *rr = hg_json_get(obj, "recrash_report");
	*p = (struct kscrash_parts){.main = obj,
				    .incomplete = hg_json_true(hg_json_get(obj, "incomplete"))};
	if (hg_json_type(rr) != HG_JSON_OBJECT)
		return;
	p->incomplete = true;
	bool outer_crash = hg_json_get(obj, "crash") != NULL;
	if (!outer_crash || (is_minimal(obj) && !is_minimal(rr))) {
		/* KSCrash 3: the report inside (or alone, the outside never
		 * written), the handler's crash outside */
		p->main = rr;
		p->handler = outer_crash ? obj : NULL;
		p->other = obj;
		p->inner = true;
	} else { /* KSCrash 2.0 */
		p->handler = rr;
		p->other = rr;
	}
}

/* ---- the handler's crash ---- */

/* An error of the handler's part (k->f.err, its field named from the
 * report's root) as a warning that says what is left out. */
static int part_warning(struct kx *k, const char *prefix, const char *what)
{
	kscrash_name_field(k->f.err, prefix);
	int rc = hg_strlist_addf(&k->rep->warnings, k->rep->arena, "%s; %s", k->f.err->msg, what)
		 != 0 ? HG_ENOMEM : 0;
	k->f.err->msg[0] = '\0';
	k->f.err->offset = NO_OFFSET;
	return rc;
}

/* The thread that crashed: crashed_thread, as the minimal report writes
 * it; else the threads' crashed one, else their first. */
static const hg_json *crashed_thread(const hg_json *crash, char *where, size_t size,
				     const char *prefix)
{
	const hg_json *one = hg_json_get(crash, "crashed_thread");
	if (one) {
		snprintf(where, size, "%scrash.crashed_thread", prefix);
		return one;
	}
	const hg_json *threads = hg_json_get(crash, "threads"), *first = NULL;
	size_t i = 0, first_i = 0;
	for (const hg_json *t = hg_json_first(threads); t; t = hg_json_next(t), i++) {
		if (hg_json_true(hg_json_get(t, "crashed"))) {
			snprintf(where, size, "%scrash.threads[%zu]", prefix, i);
			return t;
		}
		if (!first && hg_json_type(t) == HG_JSON_OBJECT) {
			first = t;
			first_i = i;
		}
	}
	snprintf(where, size, "%scrash.threads[%zu]", prefix, first_i);
	return first;
}

/* Its frames' names read as the report's are (report_demangle.c, once
 * the report is read: the handler's thread is not among its threads). */
static int demangle(hg_report *rep, hg_thread *t)
{
	for (size_t i = 0; i < t->n_frames; i++) {
		hg_frame *f = &t->frames[i];
		const char *name = f->method ? f->method : f->symbol, *readable = NULL;
		if (!name || f->mangled)
			continue;
		if (hg_demangle(name, strlen(name), rep->arena, &readable) != 0)
			return HG_ENOMEM;
		if (readable) {
			f->mangled = name;
			f->method = readable;
		}
	}
	return 0;
}

/* Why the handler crashed, said as a report's reason is; its doctor's
 * diagnosis. */
static int recrash_reason(struct kx *k, const hg_json *crash, const char *prefix,
			  hg_recrash *out)
{
	char where[MAX_PATH];
	const hg_json *error;
	snprintf(where, sizeof where, "%scrash", prefix);
	const char *diagnosis;
	int rc = kscrash_soft_object(k, crash, where, "error", &error);
	if (rc == 0)
		rc = kscrash_soft_string(k, crash, where, "diagnosis", &diagnosis);
	if (rc == 0 && diagnosis && !(out->diagnosis = kscrash_dup(k, diagnosis)))
		rc = HG_ENOMEM;
	if (rc != 0 || !error)
		return rc;
	hg_buf b;
	hg_buf_init(&b);
	rc = kscrash_crash_words(k, error, &b);
	if (rc == HG_EPARSE)
		rc = part_warning(k, prefix, "the handler's crash is shown without its reason");
	else if (rc == 0 && b.len && !(out->reason = hg_arena_strndup(k->rep->arena, b.data, b.len)))
		rc = HG_ENOMEM;
	if (rc == 0 && b.failed)
		rc = HG_ENOMEM;
	hg_buf_release(&b);
	return rc;
}

static int read_handler(struct kx *k, const hg_json *part, const char *prefix, hg_recrash *out)
{
	hg_report *rep = k->rep;
	char where[MAX_PATH];
	int rc;
	snprintf(where, sizeof where, "%.*s", (int)(*prefix ? strlen(prefix) - 1 : 0), prefix);
	const hg_json *crash;
	rc = kscrash_soft_object(k, part, where, "crash", &crash);
	if (rc != 0)
		return rc;
	if (!crash)
		return hg_strlist_addf(&rep->warnings, rep->arena, "%s%sholds no \"crash\" object: the "
				       "crash handler's own crash is not known", where,
				       *where ? " " : "the report ") != 0 ? HG_ENOMEM : 0;
	rep->recrash = out;
	if ((rc = recrash_reason(k, crash, prefix, out)) != 0)
		return rc;
	const hg_json *th = crashed_thread(crash, where, sizeof where, prefix);
	if (!th)
		return 0;
	/* Read as the report's threads are, then taken out of them. */
	size_t at = rep->threads.n;
	struct thread_info info;
	memset(&info, 0, sizeof info);
	rc = kscrash_read_thread(k, th, where, &info);
	if (rc == HG_EPARSE || rc == HG_ELIMIT)
		rc = part_warning(k, prefix, rep->threads.n > at ? "the handler's thread is shown as far "
							"as it was read"
							: "the handler's thread is left out");
	if (rc == 0 && rep->threads.n > at) {
		out->thread = rep->threads.items[at];
		out->thread.flags |= HG_THREAD_CRASHED;
		out->has_thread = true;
		rc = demangle(rep, &out->thread);
	}
	rep->threads.n = at;
	return rc;
}

int kscrash_read_recrash(struct kx *k, const hg_json *part, const char *prefix)
{
	hg_report *rep = k->rep;
	hg_recrash *out = hg_arena_calloc(rep->arena, 1, sizeof *out);
	if (!out)
		return HG_ENOMEM;
	const char *main_prefix = k->prefix;
	k->prefix = prefix; /* the fields of this part are named from it */
	int rc = read_handler(k, part, prefix, out);
	k->prefix = main_prefix;
	return rc;
}
