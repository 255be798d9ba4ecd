/* iOS MetricKit JSON, as Apple's jsonRepresentation() writes it:
 *
 *   an MXDiagnosticPayload  {"timeStampBegin", "timeStampEnd",
 *                            "hangDiagnostics": [...], "cpuExceptionDiagnostics": [...],
 *                            "crashDiagnostics": [...], "diskWriteExceptionDiagnostics": [...]}
 *   one diagnostic          {"callStackTree": {...}, "diagnosticMetaData": {...}}
 *                           ("metaData" is read as well)
 *   a bare MXCallStackTree  {"callStacks": [...], "callStackPerThread": true}
 *
 * One JSON object is one report: of a payload, its first diagnostic, hangs
 * first, then CPU exceptions, crashes and disk writes, and a warning
 * counts the others.  The call-stack tree becomes threads in
 * report_metrickit_tree.c.  A payload says what it diagnoses; a bare tree
 * does not, so it is a thread dump. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_metrickit_internal.h"

static const struct family {
	const char *key;
	enum hg_report_kind kind;
	const char *detail;
	const char *cost;   /* the metadata field that says how long */
} families[] = {
	{"hangDiagnostics", HG_KIND_IOS_HANG, "hang", "hangDuration"},
	{"cpuExceptionDiagnostics", HG_KIND_CPU_EXCEPTION, "cpuException", "totalCPUTime"},
	{"crashDiagnostics", HG_KIND_CRASH, "crash", NULL},
	{"diskWriteExceptionDiagnostics", HG_KIND_UNKNOWN, "diskWriteException", NULL},
};
#define N_FAMILIES (sizeof families / sizeof *families)

bool report_is_metrickit(const hg_json *obj)
{
	if (hg_json_get(obj, "callStacks") && hg_json_get(obj, "callStackPerThread"))
		return true;
	if (hg_json_get(obj, "callStackTree"))
		return true;
	for (size_t i = 0; i < N_FAMILIES; i++)
		if (hg_json_get(obj, families[i].key))
			return true;
	return false;
}

/* ---- durations: "3.5 sec", "1,250 ms", "2 min" (NSMeasurement's text) ---- */

static bool unit_is(const char *u, size_t n, const char *const *names)
{
	for (; *names; names++)
		if (strlen(*names) == n && strncmp(u, *names, n) == 0)
			return true;
	return false;
}

/* The duration s says, in ms (fractions past the ms dropped); -1 when s
 * is none. */
static int64_t parse_duration(const char *s)
{
	static const char *const ms[] = {"ms", "msec", "millisecond", "milliseconds", NULL};
	static const char *const sec[] = {"s", "sec", "secs", "second", "seconds", NULL};
	static const char *const min[] = {"min", "mins", "minute", "minutes", NULL};
	static const char *const hour[] = {"h", "hr", "hrs", "hour", "hours", NULL};
	uint64_t whole = 0, frac = 0, scale = 1;
	size_t digits = 0;
	const char *p = s;
	while (*p == ' ')
		p++;
	for (; (*p >= '0' && *p <= '9') || (*p == ',' && digits > 0); p++) {
		if (*p == ',')
			continue;
		if (whole > UINT64_MAX / 10 / 3600000)
			return -1;
		whole = whole * 10 + (uint64_t)(*p - '0');
		digits++;
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (scale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	while (*p == ' ')
		p++;
	size_t n = strlen(p);
	uint64_t mult = unit_is(p, n, ms) ? 1 : unit_is(p, n, sec) ? 1000 : unit_is(p, n, min) ? 60000
			: unit_is(p, n, hour) ? 3600000 : 0;
	if (digits == 0 || mult == 0)
		return -1;
	return (int64_t)(whole * mult + frac * mult / scale);
}

/* ---- the diagnostic's metadata ---- */

struct mx {
	const hg_ctx *ctx;
	struct json_fields f;
	hg_report *rep;
};

static const char *dup(struct mx *m, const char *s)
{
	return s ? hg_arena_strdup(m->rep->arena, s) : NULL;
}

static int read_cost(struct mx *m, const hg_json *meta, const char *where, const char *key)
{
	const char *text;
	int rc = report_get_string(&m->f, meta, where, key, &text);
	if (rc != 0 || !text)
		return rc;
	int64_t ms = parse_duration(text);
	if (ms >= 0) {
		m->rep->cost = ms;
		return 0;
	}
	return hg_strlist_addf(&m->rep->warnings, m->rep->arena, "field \"%s.%s\": \"%.60s\" is no "
			       "duration (\"3.5 sec\", \"250 ms\"), so the report has no cost", where,
			       key, text) != 0 ? HG_ENOMEM : 0;
}

static int read_meta_data(struct mx *m, const hg_json *meta, const char *where,
			  const struct family *fam)
{
	const char *device, *version, *build, *bundle, *os;
	int rc;
	if (hg_json_type(meta) != HG_JSON_OBJECT)
		return meta ? report_bad_field(&m->f, where, "", meta, "an object") : 0;
	if ((rc = report_get_string(&m->f, meta, where, "deviceType", &device)) != 0 ||
	    (rc = report_get_string(&m->f, meta, where, "appVersion", &version)) != 0 ||
	    (rc = report_get_string(&m->f, meta, where, "appBuildVersion", &build)) != 0 ||
	    (rc = report_get_string(&m->f, meta, where, "bundleIdentifier", &bundle)) != 0 ||
	    (rc = report_get_string(&m->f, meta, where, "osVersion", &os)) != 0 ||
	    (fam && fam->cost && (rc = read_cost(m, meta, where, fam->cost)) != 0))
		return rc;
	hg_report *rep = m->rep;
	rep->device = dup(m, device);
	rep->process = dup(m, bundle);
	rep->os_version = dup(m, os); /* "iPhone OS 14.5 (18E182)" */
	if (version && build && strcmp(version, build) != 0)
		rep->app_version = hg_arena_printf(rep->arena, "%s (%s)", version, build);
	else
		rep->app_version = dup(m, version ? version : build);
	if ((device && !rep->device) || (bundle && !rep->process) || (os && !rep->os_version) ||
	    ((version || build) && !rep->app_version))
		return HG_ENOMEM;
	for (const hg_json *f = hg_json_first(meta); f && !m->ctx->skip_meta; f = hg_json_next(f))
		if ((rc = report_add_json_meta(rep, m->f.doc, hg_json_key(f), f)) != 0)
			return rc;
	return 0;
}

/* The payload's window: when, and its other fields as metadata. */
static int read_payload(struct mx *m, const hg_json *obj)
{
	const char *begin, *end;
	int rc;
	if ((rc = report_get_string(&m->f, obj, "", "timeStampBegin", &begin)) != 0 ||
	    (rc = report_get_string(&m->f, obj, "", "timeStampEnd", &end)) != 0)
		return rc;
	if ((begin || end) && !(m->rep->time = dup(m, begin ? begin : end)))
		return HG_ENOMEM;
	for (const hg_json *f = hg_json_first(obj); f && !m->ctx->skip_meta; f = hg_json_next(f)) {
		const char *key = hg_json_key(f);
		bool evidence = strcmp(key, "callStackTree") == 0;
		for (size_t i = 0; i < N_FAMILIES; i++)
			evidence |= strcmp(key, families[i].key) == 0;
		if (!evidence && (rc = report_add_json_meta(m->rep, m->f.doc, key, f)) != 0)
			return rc;
	}
	return 0;
}

/* One diagnostic (where: its path, "" for a bare one). */
static int read_diagnostic(struct mx *m, const hg_json *diag, const char *where,
			   const struct family *fam)
{
	char w[128], tw[160];
	if (hg_json_type(diag) != HG_JSON_OBJECT)
		return report_bad_field(&m->f, where, "", diag, "an object");
	const hg_json *meta = report_member(diag, "diagnosticMetaData");
	const char *meta_key = meta ? "diagnosticMetaData" : "metaData";
	if (!meta)
		meta = report_member(diag, "metaData");
	snprintf(w, sizeof w, "%s%s%s", where, *where ? "." : "", meta_key);
	int rc = read_meta_data(m, meta, w, fam);
	if (rc != 0)
		return rc;
	const hg_json *tree = report_member(diag, "callStackTree");
	snprintf(tw, sizeof tw, "%s%scallStackTree", where, *where ? "." : "");
	if (!tree)
		return report_fail(m->f.err, NO_OFFSET, "field \"%s\": missing, so the diagnostic has "
				   "no call stacks", tw);
	return mx_read_tree(m->ctx, &m->f, tree, tw, fam && fam->kind == HG_KIND_IOS_HANG, m->rep);
}

/* A payload's first diagnostic; a warning counts the rest. */
static int read_first(struct mx *m, const hg_json *obj)
{
	const struct family *fam = NULL;
	const hg_json *diag = NULL;
	size_t total = 0, first_index = 0;
	char where[80];
	for (size_t i = 0; i < N_FAMILIES; i++) {
		const hg_json *arr;
		int rc = report_get_array(&m->f, obj, "", families[i].key, &arr);
		if (rc != 0)
			return rc;
		total += hg_json_count(arr);
		if (!diag && hg_json_first(arr)) {
			diag = hg_json_first(arr);
			fam = &families[i];
		}
	}
	if (!diag)
		return report_fail(m->f.err, NO_OFFSET, "the MetricKit payload holds no diagnostic "
				   "(hangDiagnostics, cpuExceptionDiagnostics, crashDiagnostics, "
				   "diskWriteExceptionDiagnostics are empty or absent)");
	m->rep->kind = fam->kind;
	m->rep->detail = fam->detail;
	snprintf(where, sizeof where, "%s[%zu]", fam->key, first_index);
	int rc = read_diagnostic(m, diag, where, fam);
	if (rc == 0 && total > 1 &&
	    hg_strlist_addf(&m->rep->warnings, m->rep->arena, "the MetricKit payload holds %zu "
			    "diagnostics; only the first, %s, is read (split the payload to read "
			    "each)", total, where) != 0)
		return HG_ENOMEM;
	return rc;
}

int report_from_metrickit(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
			  hg_report *rep, struct read_error *err)
{
	struct mx m = {.ctx = ctx, .f = {doc, err}, .rep = rep};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	rep->format = HG_FORMAT_METRICKIT;
	rep->platform = "ios";
	int rc;
	bool payload = false;
	for (size_t i = 0; i < N_FAMILIES; i++)
		payload |= hg_json_get(obj, families[i].key) != NULL;
	if (payload) {
		rc = read_payload(&m, obj);
		if (rc == 0)
			rc = read_first(&m, obj);
	} else if (hg_json_get(obj, "callStackTree")) {
		/* one diagnostic, or a tree wrapped as jsonRepresentation() writes it */
		const hg_json *meta = hg_json_get(obj, "diagnosticMetaData");
		const struct family *fam = NULL;
		for (size_t i = 0; meta && i < N_FAMILIES; i++)
			if (families[i].cost && report_member(meta, families[i].cost))
				fam = &families[i];
		rep->kind = fam ? fam->kind : HG_KIND_THREAD_DUMP;
		rep->detail = fam ? fam->detail : "MXCallStackTree";
		rc = read_diagnostic(&m, obj, "", fam);
	} else {
		rep->kind = HG_KIND_THREAD_DUMP;
		rep->detail = "MXCallStackTree";
		rc = mx_read_tree(ctx, &m.f, obj, "", false, rep);
	}
	if (rc != 0)
		return rc;
	rep->stack_cost = rep->cost; /* no method stack: the cost alone */
	return hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}
