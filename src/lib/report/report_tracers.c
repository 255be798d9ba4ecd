/* Matrix's other tracers (Trace_FPS, Trace_StartUp) and the fields every
 * Matrix report shares.  The custom APM JSON is report_apm.c. */
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

int report_common_fields(const hg_json_doc *doc, const hg_json *content, const hg_json *wrapper,
			 hg_report *rep, struct read_error *err)
{
	static const char *const version_keys[] = {"appVersion", "app_version", "versionName", NULL};
	static const char *const device_keys[] = {"model", "deviceModel", NULL}; /* "machine" is a class */
	static const char *const fg_keys[] = {"foreground", "isForeground", "is_foreground",
					      "isProcessForeground", NULL};
	static const char *const time_keys[] = {"time", NULL};
	rep->platform = "android";
	rep->tag = report_string_field(rep, content, wrapper, "tag");
	rep->detail = report_string_field(rep, content, wrapper, "detail");
	rep->scene = report_string_field(rep, content, wrapper, "scene");
	rep->process = report_string_field(rep, content, wrapper, "process");
	rep->kind = hg_report_kind_from_detail(rep->detail);
	rep->app_version = scalar_text(rep, doc, any_field(content, wrapper, version_keys));
	rep->device = scalar_text(rep, doc, any_field(content, wrapper, device_keys));
	rep->time = scalar_text(rep, doc, any_field(content, wrapper, time_keys));
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

/* Each member of an object field as a figure of group `key`. */
static int object_stats(hg_report *rep, const hg_json_doc *doc, const hg_json *content,
			const char *key, struct read_error *err)
{
	const hg_json *obj = hg_json_get(content, key);
	if (!obj)
		return 0;
	if (hg_json_type(obj) != HG_JSON_OBJECT)
		return report_fail(err, NO_OFFSET, "field \"%s\": expected an object of counts, got %s",
				   key, hg_json_type_name(hg_json_type(obj)));
	for (const hg_json *m = hg_json_first(obj); m; m = hg_json_next(m)) {
		const char *value = scalar_text(rep, doc, m);
		if (!value)
			return report_fail(err, NO_OFFSET, "field \"%s.%s\": expected a number, got %s",
					   key, hg_json_key(m), hg_json_type_name(hg_json_type(m)));
		if (hg_report_add_stat(rep, key, hg_json_key(m), value) != 0)
			return HG_ENOMEM;
	}
	return 0;
}

int report_fps(const hg_json_doc *doc, const hg_json *content, hg_report *rep,
	       struct read_error *err)
{
	rep->kind = HG_KIND_FPS;
	int rc = object_stats(rep, doc, content, "dropLevel", err);
	if (rc == 0)
		rc = object_stats(rep, doc, content, "dropSum", err);
	const hg_json *fps = hg_json_get(content, "fps");
	if (rc == 0 && fps) {
		const char *v = scalar_text(rep, doc, fps);
		if (!v || hg_json_type(fps) != HG_JSON_NUMBER)
			return report_fail(err, NO_OFFSET, "field \"fps\": expected a number, got %s",
					   hg_json_type_name(hg_json_type(fps)));
		rc = hg_report_add_stat(rep, "fps", "fps", v);
	}
	return rc;
}

bool report_is_startup(const hg_report *rep, const hg_json *content)
{
	bool evidence = hg_json_get(content, "stack") || hg_json_get(content, "buffer");
	return !evidence && (tag_is(rep, "Trace_StartUp") || hg_json_get(content, "startup_duration"));
}

int report_startup(const hg_json_doc *doc, const hg_json *content, hg_report *rep,
		   struct read_error *err)
{
	static const char *const stages[] = {"application_create", "application_create_scene",
					     "first_activity_create", "startup_duration", "subType",
					     NULL};
	rep->kind = HG_KIND_STARTUP;
	for (const char *const *k = stages; *k; k++) {
		const hg_json *v = hg_json_get(content, *k);
		if (!v)
			continue;
		const char *text = scalar_text(rep, doc, v);
		if (!text)
			return report_fail(err, NO_OFFSET, "field \"%s\": expected a number, got %s", *k,
					   hg_json_type_name(hg_json_type(v)));
		if (hg_report_add_stat(rep, "startup", *k, text) != 0)
			return HG_ENOMEM;
	}
	const hg_json *warm = hg_json_get(content, "is_warm_start_up");
	if (warm && hg_report_add_stat(rep, "startup", "start", hg_json_true(warm) ? "warm" : "cold"))
		return HG_ENOMEM;
	if (rep->n_stats == 0)
		return report_fail(err, NO_OFFSET, "a startup report without any stage cost "
				   "(application_create, first_activity_create, startup_duration)");
	return 0;
}
