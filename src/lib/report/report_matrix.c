/* Matrix reports from JSON: the issue wrapper or bare content; here the
 * EvilMethod evidence (a raw `buffer`, a structured `stack`, a
 * `threadStack`) and the metadata; the other tracers and the custom APM
 * format are in report_tracers.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hangar/beat.h"
#include "report_internal.h"

static int read_buffer_array(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *arr,
			     hg_arena *arena, int64_t **words, size_t *n, struct read_error *err)
{
	size_t count = hg_json_count(arr);
	if (count > ctx->limits.max_buffer_words) {
		report_fail(err, NO_OFFSET, "field \"buffer\": %zu words, over the limit of %zu (see --max-words)",
		     count, ctx->limits.max_buffer_words);
		return HG_ELIMIT;
	}
	int64_t *w = hg_arena_calloc(arena, count ? count : 1, sizeof *w);
	if (!w)
		return HG_ENOMEM;
	size_t i = 0;
	for (const hg_json *e = hg_json_first(arr); e; e = hg_json_next(e), i++) {
		if (hg_json_int64(doc, e, &w[i]) != 0) {
			char q[64];
			report_quote(doc, e, q, sizeof q);
			bool number = hg_json_type(e) == HG_JSON_NUMBER;
			return report_fail(err, number ? hg_json_number_offset(doc, e) : NO_OFFSET,
				    "buffer[%zu]: expected a signed 64-bit integer, got %s%s", i, q,
				    number ? " (out of range or not an integer)" : "");
		}
	}
	*words = w;
	*n = count;
	return 0;
}

static int read_buffer(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *content,
		       const hg_json *wrapper, const hg_json *buffer, hg_report *rep,
		       struct read_error *err)
{
	int64_t *words = NULL;
	size_t n = 0;
	int rc;
	const int64_t *hot;
	if (hg_json_int_array(doc, buffer, &hot, &n) == 0) {
		/* Read by the JSON pre-scan: exact, and no per-word node. */
		if (n > ctx->limits.max_buffer_words) {
			report_fail(err, NO_OFFSET, "field \"buffer\": %zu words, over the limit of %zu (see "
			     "--max-words)", n, ctx->limits.max_buffer_words);
			return HG_ELIMIT;
		}
		words = (int64_t *)hot;
		rc = 0;
	} else if (hg_json_type(buffer) == HG_JSON_ARRAY) {
		rc = read_buffer_array(ctx, doc, buffer, rep->arena, &words, &n, err);
	} else if (hg_json_type(buffer) == HG_JSON_STRING) {
		const char *s = hg_json_string(buffer), *why = "";
		size_t pos = 0;
		rc = hg_beat_from_base64(s, strlen(s), ctx->limits.max_buffer_words, rep->arena, &words,
					 &n, &pos, &why);
		if (rc == HG_EPARSE)
			report_fail(err, NO_OFFSET, "field \"buffer\": bad base64 at character %zu: %s", pos, why);
		else if (rc == HG_ELIMIT)
			report_fail(err, NO_OFFSET, "field \"buffer\": more than %zu words (see --max-words)",
			     ctx->limits.max_buffer_words);
	} else {
		return report_fail(err, NO_OFFSET, "field \"buffer\": expected an array of integers or a base64 "
			    "string, got %s", hg_json_type_name(hg_json_type(buffer)));
	}
	if (rc != 0)
		return rc;

	bool strict = true;
	const hg_json *v = report_field(content, wrapper, "strict");
	if (v) {
		if (hg_json_type(v) != HG_JSON_BOOL)
			return report_fail(err, NO_OFFSET, "field \"strict\": expected true or false, got %s",
				    hg_json_type_name(hg_json_type(v)));
		strict = hg_json_true(v);
	}
	int64_t end_time = 0;
	bool has_end = (v = report_field(content, wrapper, "end_time")) != NULL;
	if (has_end && (rc = report_int_field(doc, v, "end_time", &end_time, err)) != 0)
		return rc;
	if (ctx->defer_rebuild)
		return report_defer_rebuild(rep, words, n, strict, has_end, end_time, ctx->want_times);
	return report_analyse_buffer(rep, words, n, strict, has_end, end_time, ctx->want_times);
}

/* One "depth,id,count,cost" line of a key: true when [p, end) is one. */
static bool key_line(const char *p, const char *end, int64_t f[4])
{
	for (int k = 0; k < 4; k++) {
		bool neg = p < end && *p == '-';
		const char *digits = p += neg;
		int64_t v = 0;
		while (p < end && *p >= '0' && *p <= '9' && p - digits < 10)
			v = v * 10 + (*p++ - '0');
		if (p == digits || v > INT32_MAX || (k < 3 ? p == end || *p++ != ',' : p != end))
			return false;
		f[k] = neg ? -v : v;
	}
	return true;
}

/* The older stackKey form (seed 002, EvilMethodTracer before 0.5): the
 * key's stack lines themselves, "0,30,1,56\n", one per key method (the
 * first the most telling), not "<id>|".  When the device's key is in that
 * form and its first line is a line of the stack, that line is the
 * StackKey: the device's own choice, by the rule of its version.  1 when
 * so, -1 when it is in that form but names no line of the stack, 0 for
 * any other form. */
static int key_lines(hg_report *rep, const char *device)
{
	const char *end = device + strlen(device), *nl = memchr(device, '\n', (size_t)(end - device));
	int64_t f[4];
	if (!nl || !key_line(device, nl > device && nl[-1] == '\r' ? nl - 1 : nl, f))
		return 0;
	const hg_method_stack *st = &rep->trimmed;
	long by_id = -1;
	for (size_t i = 0; i < st->len; i++) {
		const hg_method_item *it = &st->items[i];
		if (it->depth != f[0] || it->id != f[1])
			continue;
		if (it->count == f[2] && it->cost == f[3]) {
			rep->key_index = (long)i;
			return 1;
		}
		if (by_id < 0)
			by_id = (long)i;
	}
	if (by_id < 0)
		return -1;
	rep->key_index = by_id; /* the same method at the same depth, costed otherwise */
	return 1;
}

static int read_structured(const hg_ctx *ctx, const hg_json *content,
			   const hg_json *wrapper, const hg_json *stack, hg_report *rep,
			   struct read_error *err)
{
	const char *text = hg_json_string(stack), *why = "";
	if (!text)
		return report_fail(err, NO_OFFSET, "field \"stack\": expected a string of depth,id,count,cost "
			    "lines, got %s", hg_json_type_name(hg_json_type(stack)));
	size_t line = 0;
	int rc = hg_stack_parse_checked(text, strlen(text), ctx->limits.max_stack_lines, rep->arena,
					&rep->full, &line, &why, "field \"stack\", ", &rep->warnings);
	if (rc == HG_EPARSE || rc == HG_ELIMIT)
		report_fail(err, NO_OFFSET, "field \"stack\", line %zu: %s", line, why);
	if (rc != 0)
		return rc;
	report_analyse_structured(rep);
	const hg_json *key = report_field(content, wrapper, "stackKey");
	if (key) {
		const char *device = hg_json_string(key);
		if (!device)
			return report_fail(err, NO_OFFSET, "field \"stackKey\": expected a string like \"123|\", "
				    "got %s", hg_json_type_name(hg_json_type(key)));
		rep->has_device_key = true;
		rep->device_key = hg_arena_strdup(rep->arena, device);
		int named = key_lines(rep, device);
		if (named > 0)
			return 0; /* the device's own key, a line of this stack */
		const char *mine = hg_report_stack_key_text(rep);
		if (named < 0)
			hg_strlist_addf(&rep->warnings, rep->arena,
					"the device sent stackKey \"%s\", a line the stack does not hold; "
					"the stack gives \"%s\"", device, mine);
		else if (!hg_stack_key_same(mine, device)) /* "101\n" (Matrix 0.5) is 101| */
			hg_strlist_addf(&rep->warnings, rep->arena,
					"the device sent stackKey \"%s\" but the stack gives \"%s\"",
					device, mine);
	}
	return 0;
}

/* Evidence fields are not metadata: they are shown as the stack. */
static bool is_evidence(const char *key)
{
	return strcmp(key, "buffer") == 0 || strcmp(key, "stack") == 0;
}

static int add_meta(hg_report *rep, const hg_json_doc *doc, const hg_json *obj, bool skip_content)
{
	for (const hg_json *m = hg_json_first(obj); m; m = hg_json_next(m)) {
		const char *key = hg_json_key(m);
		if (is_evidence(key) || (skip_content && strcmp(key, "content") == 0))
			continue;
		int rc = report_add_json_meta(rep, doc, key, m);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int read_evil_method(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *content,
			    const hg_json *obj, hg_report *rep, struct read_error *err);

int report_from_json(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
		     enum hg_input_format format, hg_report *rep, struct read_error *err)
{
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	if (hg_json_type(obj) != HG_JSON_OBJECT)
		return report_fail(err, NO_OFFSET, "expected a report object, got %s",
			    hg_json_type_name(hg_json_type(obj)));
	if (format == HG_FORMAT_KSCRASH || (format == HG_FORMAT_AUTO && report_is_kscrash(obj))) {
		rep->format = HG_FORMAT_KSCRASH;
		return report_from_kscrash(ctx, doc, obj, rep, err);
	}
	if (format == HG_FORMAT_METRICKIT || (format == HG_FORMAT_AUTO && report_is_metrickit(obj)))
		return report_from_metrickit(ctx, doc, obj, rep, err);
	rep->format = HG_FORMAT_MATRIX;
	const hg_json *content = hg_json_get(obj, "content");
	if (hg_json_type(content) != HG_JSON_OBJECT)
		content = obj; /* a bare report */
	int rc = report_common_fields(doc, content, obj, rep, err);
	if (rc != 0)
		return rc;
	if (report_is_apm(content))
		rc = report_from_apm(ctx, doc, content, rep, err);
	else if (report_is_fps(rep, content))
		rc = report_fps(doc, content, rep, err);
	else if (report_is_startup(rep, content))
		rc = report_startup(doc, content, rep, err);
	else
		rc = read_evil_method(ctx, doc, content, obj, rep, err);
	if (rc != 0 || ctx->skip_meta)
		return rc;
	if (content != obj && (rc = add_meta(rep, doc, content, false)) != 0)
		return rc;
	return add_meta(rep, doc, obj, content != obj);
}

/* One member of viewInfo: a count (Java int >= 0) or, for activity, a
 * name; else a warning naming it.  EvilMethodTracer writes 0 for each
 * when it had no view info, a name included: that is "not known". */
static int view_field(const hg_json_doc *doc, const hg_json *info, const char *key,
		      bool name, hg_report *rep, const char **out)
{
	*out = NULL;
	const hg_json *v = hg_json_get(info, key);
	int64_t n;
	if (!v || hg_json_type(v) == HG_JSON_NULL)
		return 0;
	if (name && hg_json_string(v) && *hg_json_string(v))
		*out = hg_arena_strdup(rep->arena, hg_json_string(v));
	else if (name && hg_json_int64(doc, v, &n) == 0 && n == 0)
		return 0;
	else if (!name && hg_json_int64(doc, v, &n) == 0 && n >= 0 && n <= INT32_MAX)
		*out = hg_arena_printf(rep->arena, "%lld", (long long)n);
	if (!*out) {
		char q[64];
		report_quote(doc, v, q, sizeof q);
		hg_strlist_addf(&rep->warnings, rep->arena, "field \"viewInfo.%s\": expected %s, got "
				"%s; left out", key, name ? "an activity name" : "a count (0 to 2147483647)",
				q);
		return 0;
	}
	return hg_report_add_stat(rep, "viewInfo", key, *out);
}

/* EvilMethod ENTER's view info (seed 002): the entered activity's view
 * tree depth and view count, and the activity, which is the report's
 * scene when it names none. */
static int read_view_info(const hg_json_doc *doc, const hg_json *content, hg_report *rep)
{
	const hg_json *info = hg_json_get(content, "viewInfo");
	if (!info || hg_json_type(info) == HG_JSON_NULL)
		return 0;
	if (hg_json_type(info) != HG_JSON_OBJECT) {
		char q[64];
		report_quote(doc, info, q, sizeof q);
		hg_strlist_addf(&rep->warnings, rep->arena, "field \"viewInfo\": expected an object "
				"{viewDeep, viewCount, activity}, got %s; left out", q);
		return 0;
	}
	static const char *const keys[] = {"viewDeep", "viewCount", "activity"};
	const char *v = NULL;
	int rc = 0;
	for (size_t i = 0; i < 3 && rc == 0; i++)
		rc = view_field(doc, info, keys[i], i == 2, rep, &v);
	if (rc == 0 && v && !rep->scene)
		rep->scene = v;
	return rc;
}

/* Trace_EvilMethod (every detail): a raw buffer or a structured stack, and
 * for LAG/ANR the main thread's `threadStack`. */
static int read_evil_method(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *content,
			    const hg_json *obj, hg_report *rep, struct read_error *err)
{
	const hg_json *buffer = hg_json_get(content, "buffer");
	const hg_json *stack = hg_json_get(content, "stack");
	const hg_json *thread_stack = hg_json_get(content, "threadStack");
	if (!buffer && !stack && !thread_stack)
		return report_fail(err, NO_OFFSET, "the report has no \"buffer\", \"stack\" or "
			    "\"threadStack\" field");
	if (rep->kind == HG_KIND_UNKNOWN && !rep->detail)
		rep->kind = HG_KIND_SLOW_METHOD; /* EvilMethodTracer's NORMAL */
	if (rep->detail && !strcmp(rep->detail, "ENTER"))
		rep->kind = HG_KIND_ACTIVITY_ENTER;
	int rc = read_view_info(doc, content, rep);
	if (buffer) {
		if (rc == 0)
			rc = read_buffer(ctx, doc, content, obj, buffer, rep, err);
		if (rc == 0 && stack)
			hg_strlist_addf(&rep->warnings, rep->arena, "the report has both \"buffer\" and "
					"\"stack\"; the stack was rebuilt from the buffer");
	} else if (stack && rc == 0) {
		rc = read_structured(ctx, content, obj, stack, rep, err);
	}
	if (rc == 0 && thread_stack) {
		const char *text = hg_json_string(thread_stack);
		if (!text)
			return report_fail(err, NO_OFFSET, "field \"threadStack\": expected a string of frames, "
				    "got %s", hg_json_type_name(hg_json_type(thread_stack)));
		rc = report_thread_from_frames(rep, "main", text, strlen(text), err);
	}
	return rc;
}
