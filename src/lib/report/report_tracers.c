/* Matrix's other tracers (Trace_FPS, Trace_StartUp) and the fields every
 * Matrix report shares.  The custom APM JSON is report_apm.c.
 *
 * Both tracers send figures, not stacks (seed 002, an early TracePlugin
 * walkthrough, and later Matrix): they are kept as the report's figures
 * (hg_stat) as written, with the ones the store aggregates worked out the
 * way the tracer defines them: an FPS report's frames and frozen/high
 * share, a startup's total.  A figure out of range or of the wrong type is
 * a warning naming the field, and the rest is still read. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* The first of several spellings of a field that is present. */
static const hg_json *any_field(const hg_json *content, const hg_json *wrapper,
				const char *const *keys)
{
	for (; *keys; keys++) {
		const hg_json *v = report_field(content, wrapper, *keys);
		if (v)
			return v;
	}
	return NULL;
}

/* A scalar as text: a string's value or a number's digits. */
static const char *scalar_text(hg_report *rep, const hg_json_doc *doc, const hg_json *v)
{
	if (hg_json_string(v))
		return hg_arena_strdup(rep->arena, hg_json_string(v));
	if (hg_json_type(v) != HG_JSON_NUMBER && hg_json_type(v) != HG_JSON_BOOL)
		return NULL;
	hg_buf b;
	hg_buf_init(&b);
	hg_json_write(doc, v, &b);
	const char *s = b.failed ? NULL : hg_arena_strndup(rep->arena, b.data ? b.data : "", b.len);
	hg_buf_release(&b);
	return s;
}

/* Matrix's `machine` when it is one of DeviceUtil's levels; the custom
 * APM JSON (report_apm.c) writes a device name there ("Xiaomi Mi 10"). */
static const char *device_class(const char *machine)
{
	static const char *const levels[] = {"BEST", "HIGH", "MIDDLE", "LOW", "BAD", "UN_KNOW"};
	for (size_t i = 0; machine && i < sizeof levels / sizeof *levels; i++)
		if (strcmp(machine, levels[i]) == 0)
			return machine;
	return NULL;
}

int report_common_fields(const hg_json_doc *doc, const hg_json *content, const hg_json *wrapper,
			 hg_report *rep, struct read_error *err)
{
	static const char *const version_keys[] = {"appVersion", "app_version", "versionName", NULL};
	static const char *const device_keys[] = {"model", "deviceModel", NULL}; /* "machine" is a class */
	static const char *const fg_keys[] = {"foreground", "isForeground", "is_foreground",
					      "isProcessForeground", NULL};
	static const char *const time_keys[] = {"time", NULL};
	/* Matrix's own report has no OS field; apps that add one use these */
	static const char *const os_keys[] = {"api-level", "apiLevel", "api_level", "sdkInt",
					      "osVersion", "os_version", NULL};
	rep->platform = "android";
	rep->tag = report_string_field(rep, content, wrapper, "tag");
	rep->detail = report_string_field(rep, content, wrapper, "detail");
	rep->scene = report_string_field(rep, content, wrapper, "scene");
	rep->process = report_string_field(rep, content, wrapper, "process");
	rep->kind = hg_report_kind_from_detail(rep->detail);
	rep->app_version = scalar_text(rep, doc, any_field(content, wrapper, version_keys));
	rep->device = scalar_text(rep, doc, any_field(content, wrapper, device_keys));
	rep->time = scalar_text(rep, doc, any_field(content, wrapper, time_keys));
	rep->os_version = scalar_text(rep, doc, any_field(content, wrapper, os_keys));
	rep->device_class = device_class(report_string_field(rep, content, wrapper, "machine"));
	const hg_json *fg = any_field(content, wrapper, fg_keys);
	if (hg_json_type(fg) == HG_JSON_BOOL)
		rep->foreground = hg_json_true(fg);
	const hg_json *cost = report_field(content, wrapper, "cost");
	if (cost)
		return report_int_field(doc, cost, "cost", &rep->cost, err);
	return 0;
}

static bool tag_is(const hg_report *rep, const char *tag)
{
	return rep->tag && strcmp(rep->tag, tag) == 0;
}

bool report_is_fps(const hg_report *rep, const hg_json *content)
{
	return tag_is(rep, "Trace_FPS") ||
	       (hg_json_get(content, "dropLevel") && hg_json_get(content, "fps"));
}

/* FPSTracer's DropStatus, worst first: each frame lands in exactly one
 * level, so the counts of dropLevel add up to the frames measured. */
static const char *const drop_levels[] = {"DROPPED_FROZEN", "DROPPED_HIGH", "DROPPED_MIDDLE",
					  "DROPPED_NORMAL", "DROPPED_BEST"};
#define N_LEVELS (sizeof drop_levels / sizeof *drop_levels)

/* The most fps a report can claim: Matrix caps it at the refresh rate
 * (60, later the screen's); beyond any screen's rate it is garbage. */
#define FPS_MAX 1000.0

static void warn(hg_report *rep, const char *fmt, ...) HG_PRINTF(2, 3);

static void warn(hg_report *rep, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_strlist_addf(&rep->warnings, rep->arena, "%s", msg);
}

/* A short quotation of v for a warning. */
static const char *quoted(const hg_json_doc *doc, const hg_json *v, char *buf, size_t size)
{
	report_quote(doc, v, buf, size);
	return buf;
}

/* Each member of the object field `key` (dropLevel, dropSum) as a figure
 * of group key: Java ints >= 0 (Matrix counts them in ints).  A member
 * that is not one, or a field that is not an object, is a warning and
 * left out.  levels[i] gets drop_levels[i]'s count (-1: not given). */
static int level_stats(hg_report *rep, const hg_json_doc *doc, const hg_json *content,
		       const char *key, int64_t levels[N_LEVELS])
{
	for (size_t i = 0; i < N_LEVELS; i++)
		levels[i] = -1;
	const hg_json *obj = hg_json_get(content, key);
	if (!obj || hg_json_type(obj) == HG_JSON_NULL)
		return 0;
	char q[64];
	if (hg_json_type(obj) != HG_JSON_OBJECT) {
		warn(rep, "field \"%s\": expected an object of counts, got %s; left out", key,
		     quoted(doc, obj, q, sizeof q));
		return 0;
	}
	for (const hg_json *m = hg_json_first(obj); m; m = hg_json_next(m)) {
		int64_t n;
		if (hg_json_int64(doc, m, &n) != 0 || n < 0 || n > INT32_MAX) {
			warn(rep, "field \"%s.%s\": expected a count (0 to %d), got %s; left out", key,
			     hg_json_key(m), INT32_MAX, quoted(doc, m, q, sizeof q));
			continue;
		}
		char digits[24];
		snprintf(digits, sizeof digits, "%lld", (long long)n);
		if (hg_report_add_stat(rep, key, hg_json_key(m), digits) != 0)
			return HG_ENOMEM;
		for (size_t i = 0; i < N_LEVELS; i++)
			if (!strcmp(hg_json_key(m), drop_levels[i]))
				levels[i] = n;
	}
	return 0;
}

/* The report's fps as written, when it is a number in 0..FPS_MAX. */
static const char *fps_value(hg_report *rep, const hg_json_doc *doc, const hg_json *fps)
{
	char q[64];
	const char *text = NULL;
	size_t len = 0;
	if (hg_json_type(fps) == HG_JSON_NUMBER)
		hg_json_number_text(doc, fps, &text, &len);
	char buf[64];
	double v = NAN;
	if (text && len < sizeof buf) {
		memcpy(buf, text, len);
		buf[len] = '\0';
		v = strtod(buf, NULL);
	}
	if (!text) {
		warn(rep, "field \"fps\": expected a number, got %s; left out",
		     quoted(doc, fps, q, sizeof q));
		return NULL;
	}
	if (!(v >= 0 && v <= FPS_MAX)) { /* NaN, infinite, negative, huge */
		warn(rep, "field \"fps\": %s is out of range (0 to %g); left out",
		     quoted(doc, fps, q, sizeof q), FPS_MAX);
		return NULL;
	}
	return hg_arena_strndup(rep->arena, text, len);
}

/* The figures the store aggregates: frames measured (dropLevel's counts
 * summed, when every level is given or the missing ones are the
 * frozen level older reports leave out) and the share of them that
 * dropped frozen or high. */
static int fps_totals(hg_report *rep, const int64_t levels[N_LEVELS])
{
	int64_t frames = 0;
	for (size_t i = 0; i < N_LEVELS; i++) {
		if (levels[i] < 0 && i > 0)
			return 0; /* a level the share cannot do without */
		frames += levels[i] > 0 ? levels[i] : 0;
	}
	char v[32];
	snprintf(v, sizeof v, "%lld", (long long)frames);
	if (hg_report_add_stat(rep, "fps", "frames", v) != 0)
		return HG_ENOMEM;
	if (frames == 0)
		return 0;
	int64_t bad = (levels[0] > 0 ? levels[0] : 0) + levels[1];
	snprintf(v, sizeof v, "%.4f", (double)bad / (double)frames);
	return hg_report_add_stat(rep, "fps", "frozen_high_share", v);
}

int report_fps(const hg_json_doc *doc, const hg_json *content, hg_report *rep,
	       struct read_error *err)
{
	(void)err;
	rep->kind = HG_KIND_FPS;
	/* FPSTracer counts frames over a time slice; no duration is measured. */
	rep->cost_unknown = !hg_json_get(content, "cost");
	int64_t levels[N_LEVELS], sums[N_LEVELS];
	int rc = level_stats(rep, doc, content, "dropLevel", levels);
	if (rc == 0)
		rc = level_stats(rep, doc, content, "dropSum", sums);
	const hg_json *fps = hg_json_get(content, "fps");
	const char *v = rc == 0 && fps ? fps_value(rep, doc, fps) : NULL;
	if (v)
		rc = hg_report_add_stat(rep, "fps", "fps", v);
	return rc ? rc : fps_totals(rep, levels);
}

bool report_is_startup(const hg_report *rep, const hg_json *content)
{
	bool evidence = hg_json_get(content, "stack") || hg_json_get(content, "buffer");
	return !evidence && (tag_is(rep, "Trace_StartUp") || hg_json_get(content, "startup_duration"));
}

/* A stage longer than this is garbage, not a slow start. */
#define STARTUP_MAX_MS INT64_C(3600000)

/* StartUpTracer's stages, in the order of a cold start, then the total
 * later versions send. */
enum { APP_CREATE, BETWEEN, FIRST_ACTIVITY, DURATION, N_STAGES };
static const char *const stage_keys[N_STAGES] = {
	"application_create", "stage_between_app_and_activity", "first_activity_create",
	"startup_duration"};

struct startup {
	int64_t ms[N_STAGES];
	bool has[N_STAGES];     /* given and in range */
	bool given[N_STAGES];   /* present at all */
	int warm;               /* is_warm_start_up: 1, 0, -1 unknown */
};

/* One stage: whole ms in 0..STARTUP_MAX_MS, else a warning. */
static void read_stage(hg_report *rep, const hg_json_doc *doc, const hg_json *content, int i,
		       struct startup *s)
{
	const hg_json *v = hg_json_get(content, stage_keys[i]);
	if (!v || hg_json_type(v) == HG_JSON_NULL)
		return;
	s->given[i] = true;
	char q[64];
	int64_t ms;
	if (hg_json_int64(doc, v, &ms) != 0)
		warn(rep, "field \"%s\": expected whole ms, got %s; left out", stage_keys[i],
		     quoted(doc, v, q, sizeof q));
	else if (ms < 0 || ms > STARTUP_MAX_MS)
		warn(rep, "field \"%s\": %lld ms is out of range (0 to %lld); left out", stage_keys[i],
		     (long long)ms, (long long)STARTUP_MAX_MS);
	else
		s->ms[i] = ms, s->has[i] = true;
}

static int add_ms(hg_report *rep, const char *name, int64_t ms)
{
	char v[24];
	snprintf(v, sizeof v, "%lld", (long long)ms);
	return hg_report_add_stat(rep, "startup", name, v);
}

/* The startup's total as StartUpTracer defines it (allCost): the total
 * the report gives wins (startup_duration, later versions); else a warm
 * start is its first activity's creation, a cold one the three stages
 * from the application's creation to the first activity's focus.  *from
 * says which; false when the stages needed are missing. */
static bool startup_total(const struct startup *s, int64_t *total, const char **from)
{
	if (s->has[DURATION]) {
		*total = s->ms[DURATION];
		*from = "startup_duration";
		return true;
	}
	if (s->warm == 1) {
		*total = s->ms[FIRST_ACTIVITY];
		*from = "first_activity_create";
		return s->has[FIRST_ACTIVITY];
	}
	/* stage_between may be absent (0 then), not broken */
	if (!s->has[APP_CREATE] || !s->has[FIRST_ACTIVITY] || (s->given[BETWEEN] && !s->has[BETWEEN]))
		return false;
	*total = s->ms[APP_CREATE] + s->ms[BETWEEN] + s->ms[FIRST_ACTIVITY];
	*from = "application_create + stage_between_app_and_activity + first_activity_create";
	return true;
}

/* The fields that are not stages: kept as written (scalars). */
static int startup_others(hg_report *rep, const hg_json_doc *doc, const hg_json *content,
			  const char *key)
{
	const hg_json *v = hg_json_get(content, key);
	if (!v || hg_json_type(v) == HG_JSON_NULL)
		return 0;
	const char *text = hg_json_type(v) == HG_JSON_NUMBER ? scalar_text(rep, doc, v) : NULL;
	char q[64];
	if (!text) {
		warn(rep, "field \"%s\": expected a number, got %s; left out", key,
		     quoted(doc, v, q, sizeof q));
		return 0;
	}
	return hg_report_add_stat(rep, "startup", key, text);
}

int report_startup(const hg_json_doc *doc, const hg_json *content, hg_report *rep,
		   struct read_error *err)
{
	rep->kind = HG_KIND_STARTUP;
	struct startup s = {.warm = -1};
	for (int i = 0; i < N_STAGES; i++)
		read_stage(rep, doc, content, i, &s);
	if (!s.given[APP_CREATE] && !s.given[FIRST_ACTIVITY] && !s.given[DURATION])
		return report_fail(err, NO_OFFSET, "a startup report without any stage cost "
				   "(application_create, first_activity_create, startup_duration)");
	const hg_json *warm = hg_json_get(content, "is_warm_start_up");
	char q[64];
	if (warm && hg_json_type(warm) == HG_JSON_BOOL)
		s.warm = hg_json_true(warm);
	else if (warm && hg_json_type(warm) != HG_JSON_NULL)
		warn(rep, "field \"is_warm_start_up\": expected true or false, got %s; the start "
		     "kind is unknown", quoted(doc, warm, q, sizeof q));
	int rc = 0;
	/* In the order of the stages, as the tracer logs them. */
	if (s.has[APP_CREATE])
		rc = add_ms(rep, stage_keys[APP_CREATE], s.ms[APP_CREATE]);
	if (!rc)
		rc = startup_others(rep, doc, content, "application_create_scene");
	for (int i = BETWEEN; !rc && i < N_STAGES; i++)
		if (s.has[i])
			rc = add_ms(rep, stage_keys[i], s.ms[i]);
	if (!rc)
		rc = startup_others(rep, doc, content, "subType");
	if (!rc && s.warm >= 0)
		rc = hg_report_add_stat(rep, "startup", "start", s.warm ? "warm" : "cold");
	int64_t total;
	const char *from;
	if (rc || !startup_total(&s, &total, &from)) {
		if (!rc)
			warn(rep, "the startup's total is unknown: %s",
			     s.warm == 1 ? "a warm start without first_activity_create"
					 : "it needs startup_duration, or application_create and "
					   "first_activity_create");
		rep->cost_unknown = !rc;
		return rc;
	}
	/* The total is what the startup cost: the store's figures are of it. */
	rep->cost = total;
	rc = add_ms(rep, "total", total);
	return rc ? rc : hg_report_add_stat(rep, "startup", "total_from", from);
}
