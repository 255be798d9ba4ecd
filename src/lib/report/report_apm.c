/* The custom APM JSON format (seed 000): a report a Looper-watching SDK
 * uploads when a main-thread message runs 2 s (LAG), 5 s (ANR) or 700 ms
 * (a slow method), whose stacks live in a file the JSON names by URL:
 *
 *   {"foreground": true, "event_desc": "com.gmlive.soulmatch.TestActivity",
 *    "stack_file": "http://.../TYyNzM3MjYzODgyOCMyODEjdHh0.txt",
 *    "stack_hash": "90560ACE...", "appName": "SweetWords", "appVersion": "5.2.00",
 *    "system": "29", "platform": "1", "machine": "Xiaomi Mi 10",
 *    "appFirstStartTime": "2021-07-27 15:56:52", "reportType": "LAG",
 *    "time": "2021-07-27 15:57:15", "userId": 842894}
 *
 * The file is found by the URL's last path segment, in --stack-dir, beside
 * the report, or for a report fetched from a bucket beside it in the
 * bucket (hg_ctx.fetch_beside); its text is read by report_apm_stack.c.
 * Times are the phone's local clock without a zone: read in hg_ctx.zone
 * (--timezone), said once a run. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hangar/input.h"
#include "hangar/timezone.h"
#include "report_apm_internal.h"
#include "report_time.h"

bool report_is_apm(const hg_json *content)
{
	return hg_json_get(content, "reportType") || hg_json_get(content, "stack_file");
}

/* ---- where the stack file is ---- */

/* Whether a path has a ".." component (x..y.txt is fine). */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

/* "scheme://" at the start of s: its length, else 0. */
static size_t scheme_len(const char *s)
{
	size_t i = 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	while (s[i] && (strchr("+-.", s[i]) || (s[i] >= '0' && s[i] <= '9') ||
			(s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
		i++;
	return strncmp(s + i, "://", 3) == 0 ? i + 3 : 0;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
					    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) with its %XX escapes decoded, malloc'd; NULL for a bad escape or
 * an encoded NUL (*bad), or on ENOMEM. */
static char *percent_decode(const char *s, size_t n, bool *bad)
{
	char *out = malloc(n + 1), *o = out;
	*bad = false;
	for (size_t i = 0; out && i < n; i++) {
		int hi, lo;
		if (s[i] != '%') {
			*o++ = s[i];
		} else if (i + 2 < n && (hi = hex(s[i + 1])) >= 0 && (lo = hex(s[i + 2])) >= 0 &&
			   (hi || lo)) {
			*o++ = (char)(hi * 16 + lo);
			i += 2;
		} else {
			*bad = true;
			free(out);
			return NULL;
		}
	}
	if (out)
		*o = '\0';
	return out;
}

/* The file a stack_file URL names: its last path segment, decoded, the
 * query and fragment dropped.  The article's own sample masks the host and
 * path with stars (three stars, then TYy...txt): a host cannot hold '*', so what
 * follows the last star is the file.  *name is malloc'd; HG_EPARSE with err
 * saying why a URL names no file that stays in the folder. */
static int url_file_name(const char *url, size_t skip, char **name, struct read_error *err)
{
	const char *rest = url + skip;
	size_t end = strcspn(rest, "?#");
	const char *path = memchr(rest, '/', end);
	const char *seg = NULL;
	if (path) {
		seg = rest + end;
		while (seg > path && seg[-1] != '/')
			seg--;
	} else {
		const char *star = NULL;
		for (const char *p = rest; p < rest + end; p++)
			if (*p == '*')
				star = p + 1;
		seg = star;
	}
	size_t seg_len = seg ? (size_t)(rest + end - seg) : 0;
	if (seg_len == 0)
		return report_fail(err, NO_OFFSET, "field \"stack_file\": the URL \"%.200s\" names no "
				   "file (%s)", url, path ? "nothing after its last '/'" : "no path after its host");
	bool bad = false;
	char *decoded = percent_decode(seg, seg_len, &bad);
	if (!decoded && !bad)
		return HG_ENOMEM;
	const char *why = bad ? "a bad %-escape (or an encoded NUL)"
			  : strchr(decoded, '/') ? "a '/' once decoded, which would leave the folder"
			  : !strcmp(decoded, ".") || !strcmp(decoded, "..") ? "\".\" or \"..\", a folder"
			  : NULL;
	if (why) {
		free(decoded);
		return report_fail(err, NO_OFFSET, "field \"stack_file\": the file name of the URL "
				   "\"%.200s\" has %s: refused", url, why);
	}
	*name = decoded;
	return 0;
}

/* The last diagnostic of a read, kept for the report's own error. */
static void keep_reason(void *user, const hg_diag *d)
{
	snprintf(user, 256, "%s", d->message);
}

/* Reads name beneath dir (hg_input_read_beneath: never through a link
 * that leaves it, never a FIFO or a device).  A refusal names the file and
 * why, never what is in it. */
static int read_beneath(const hg_ctx *ctx, const char *dir, const char *name, const char *url,
			char **text, size_t *len, struct read_error *err)
{
	char reason[256] = "";
	hg_ctx quiet = *ctx; /* the report's error says it, once */
	quiet.diag = keep_reason;
	quiet.diag_user = reason;
	int rc = hg_input_read_beneath(&quiet, dir, name, "stack file", text, len);
	if (rc == HG_EIO || rc == HG_ELIMIT)
		report_fail(err, NO_OFFSET, "field \"stack_file\": cannot read %s/%s: %s%s%.200s%s", dir,
			    name, rc == HG_ELIMIT ? "over the size limit" : reason,
			    url ? " (the file of \"" : "", url ? url : "", url ? "\")" : "");
	return rc == HG_EIO || rc == HG_ELIMIT ? HG_EPARSE : rc;
}

/* The stack file of an APM report: a URL's file (url_file_name) or a
 * relative path, in ctx->stack_dir, else beside the report: its folder, or
 * for a report fetched from a bucket, the bucket (ctx->fetch_beside). */
static int read_stack_file(const hg_ctx *ctx, const hg_report *rep, const char *value, char **text,
			   size_t *len, struct read_error *err)
{
	size_t skip = scheme_len(value);
	char *owned = NULL;
	if (skip) {
		int rc = url_file_name(value, skip, &owned, err);
		if (rc != 0)
			return rc;
	} else if (value[0] == '/' || !value[0] || has_dotdot(value)) {
		return report_fail(err, NO_OFFSET, "field \"stack_file\": \"%.200s\" must be a relative "
				   "path without \"..\", or a URL", value);
	}
	const char *name = owned ? owned : value, *url = skip ? value : NULL;
	int rc;
	if (ctx->stack_dir) {
		rc = read_beneath(ctx, ctx->stack_dir, name, url, text, len, err);
	} else if (strstr(rep->source, "://") && ctx->fetch_beside) {
		char why[256] = "";
		rc = ctx->fetch_beside(ctx->fetch_beside_user, name, text, len, why, sizeof why);
		if (rc == HG_EIO || rc == HG_ELIMIT || rc == HG_EINVAL)
			rc = report_fail(err, NO_OFFSET, "field \"stack_file\": cannot fetch \"%s\" beside "
					 "the report: %s", name, why);
	} else if (strstr(rep->source, "://")) {
		/* A fetched report's source is its URL: no folder of this machine
		 * is beside it (dirname would make "s3:/bucket/dir" a local path). */
		rc = report_fail(err, NO_OFFSET, "field \"stack_file\": \"%.200s\" is not fetched with "
				 "the report; give the folder that holds it with --stack-dir", value);
	} else {
		char *copy = strdup(rep->source);
		rc = copy ? read_beneath(ctx, strcmp(rep->source, "-") == 0 ? "." : dirname(copy), name,
					 url, text, len, err)
			  : HG_ENOMEM;
		free(copy);
	}
	free(owned);
	return rc;
}

/* ---- the report's fields ---- */

/* reportType: the kind and the threshold the SDK measured against. */
static int read_kind(hg_report *rep, const hg_json *content)
{
	static const struct {
		const char *name;
		enum hg_report_kind kind;
		int64_t threshold;
	} kinds[] = {
		{"LAG", HG_KIND_LAG, 2000}, {"ANR", HG_KIND_ANR, 5000},
		{"SLOWMETHOD", HG_KIND_SLOW_METHOD, 700}, {"SLOW", HG_KIND_SLOW_METHOD, 700},
		{"SLOWFUNCTION", HG_KIND_SLOW_METHOD, 700}, {"EVILMETHOD", HG_KIND_SLOW_METHOD, 700},
	};
	const hg_json *v = hg_json_get(content, "reportType");
	if (!v || hg_json_type(v) == HG_JSON_NULL)
		return 0;
	const char *type = hg_json_string(v);
	if (!type)
		return hg_strlist_addf(&rep->warnings, rep->arena, "field \"reportType\": expected "
				       "LAG, ANR or SLOW_METHOD, got %s; the kind is unknown",
				       hg_json_type_name(hg_json_type(v))) ? HG_ENOMEM : 0;
	char bare[32];
	size_t n = 0;
	for (const char *p = type; *p && n + 1 < sizeof bare; p++)
		if (*p != '_' && *p != '-' && *p != ' ')
			bare[n++] = *p;
	bare[n] = '\0';
	if (!(rep->detail = hg_arena_strdup(rep->arena, type)))
		return HG_ENOMEM;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (!strcasecmp(bare, kinds[i].name)) {
			rep->kind = kinds[i].kind;
			rep->threshold = kinds[i].threshold;
			return 0;
		}
	rep->kind = HG_KIND_UNKNOWN;
	return hg_strlist_addf(&rep->warnings, rep->arena, "field \"reportType\": \"%.40s\" is not "
			       "LAG, ANR or SLOW_METHOD; the kind is unknown", type) ? HG_ENOMEM : 0;
}

/* A name field as text (a string, or a number's digits: "system": 29);
 * another type is warned, naming the field, and left out. */
static int text_field(hg_report *rep, const hg_json_doc *doc, const hg_json *content,
		      const char *key, const char **out)
{
	const hg_json *v = hg_json_get(content, key);
	if (!v || hg_json_type(v) == HG_JSON_NULL)
		return 0;
	if (hg_json_string(v))
		return (*out = hg_arena_strdup(rep->arena, hg_json_string(v))) ? 0 : HG_ENOMEM;
	if (hg_json_type(v) == HG_JSON_NUMBER) {
		hg_buf b;
		hg_buf_init(&b);
		hg_json_write(doc, v, &b);
		*out = b.failed ? NULL : hg_arena_strndup(rep->arena, b.data ? b.data : "", b.len);
		hg_buf_release(&b);
		return *out ? 0 : HG_ENOMEM;
	}
	return hg_strlist_addf(&rep->warnings, rep->arena, "field \"%s\": expected a string, got "
			       "%s; left out", key, hg_json_type_name(hg_json_type(v))) ? HG_ENOMEM : 0;
}

static int read_names(hg_report *rep, const hg_json_doc *doc, const hg_json *content)
{
	const char *app = NULL, *scene = NULL, *machine = NULL, *os = NULL, *version = NULL;
	int rc = text_field(rep, doc, content, "appName", &app);
	if (!rc)
		rc = text_field(rep, doc, content, "event_desc", &scene);
	if (!rc)
		rc = text_field(rep, doc, content, "machine", &machine);
	if (!rc)
		rc = text_field(rep, doc, content, "system", &os);
	if (!rc && !rep->app_version)
		rc = text_field(rep, doc, content, "appVersion", &version);
	if (rc)
		return rc;
	if (app && !rep->process) /* a "process" the report gives is more exact */
		rep->process = app;
	if (scene)
		rep->scene = scene;
	if (machine)
		rep->device = machine; /* a device name, "Xiaomi Mi 10" */
	if (os)
		rep->os_version = os;  /* Android's API level, "29", as written */
	if (version)
		rep->app_version = version;
	const hg_json *fg = hg_json_get(content, "foreground");
	const char *s = hg_json_string(fg);
	if (s && (!strcmp(s, "true") || !strcmp(s, "false")))
		rep->foreground = !strcmp(s, "true");
	else if (fg && hg_json_type(fg) != HG_JSON_BOOL && hg_json_type(fg) != HG_JSON_NULL)
		return hg_strlist_addf(&rep->warnings, rep->arena, "field \"foreground\": expected "
				       "true or false, got %s; left out",
				       hg_json_type_name(hg_json_type(fg))) ? HG_ENOMEM : 0;
	return 0;
}

/* Says once a run (ctx->zone) that times without a zone were read in it. */
static void note_zoneless(const hg_ctx *ctx, const hg_report *rep, const char *written)
{
	hg_timezone *tz = ctx->zone;
	if (!tz || atomic_exchange(&tz->noted, 1))
		return;
	bool utc = !tz->named && tz->offset_ms == 0;
	hg_diagf(ctx, HG_DIAG_NOTE, tz->who ? tz->who : "hangar", 0, 0, 0,
		 "times written without a zone were read in %s, %s; the first: \"%.40s\" (%s, report "
		 "%ld)", tz->name, utc ? "the default (see --timezone)" : "as --timezone says", written,
		 rep->source, rep->number);
}

/* "time" (report_common_fields left it as written) and
 * "appFirstStartTime", read in ctx->zone when they have none.  rep->time
 * is set in the store's form with time_written, so report_settle_time
 * leaves it; a time that cannot be read is warned as it would warn it. */
static int read_times(const hg_ctx *ctx, hg_report *rep, const hg_json *content)
{
	char t[REPORT_TIME_SIZE];
	const char *why = "";
	bool zoneless = false;
	const char *written = rep->time;
	if (written && !rep->time_written) {
		rep->time_written = written;
		if (report_time_parse_in(written, strlen(written), ctx->zone, t, &why, &zoneless) != 0) {
			rep->time = NULL;
			if (hg_strlist_addf(&rep->warnings, rep->arena, "time \"%.80s\" cannot be read "
					    "(%s): the report's time is unknown", written, why) != 0)
				return HG_ENOMEM;
		} else {
			if (zoneless)
				note_zoneless(ctx, rep, written);
			if (!(rep->time = hg_arena_strdup(rep->arena, t)))
				return HG_ENOMEM;
		}
	}
	const hg_json *v = hg_json_get(content, "appFirstStartTime");
	const char *start = hg_json_string(v);
	if (!v || hg_json_type(v) == HG_JSON_NULL || hg_json_type(v) == HG_JSON_NUMBER)
		return 0; /* epoch digits are kept as written */
	char s[REPORT_TIME_SIZE];
	if (!start || report_time_parse_in(start, strlen(start), ctx->zone, s, &why, &zoneless) != 0)
		return hg_strlist_addf(&rep->warnings, rep->arena, "field \"appFirstStartTime\": %s%.80s%s "
				       "cannot be read (%s); kept as written", start ? "\"" : "",
				       start ? start : hg_json_type_name(hg_json_type(v)),
				       start ? "\"" : "", start ? why : "not a time") ? HG_ENOMEM : 0;
	if (zoneless)
		note_zoneless(ctx, rep, start);
	if (rep->time && strcmp(s, rep->time) > 0) /* the form sorts as text */
		return hg_strlist_addf(&rep->warnings, rep->arena, "field \"appFirstStartTime\": the "
				       "app started (%s) after the report's time (%s)", s, rep->time)
			       ? HG_ENOMEM : 0;
	return 0;
}

/* ---- the report ---- */

/* Inline stack text, as Matrix's JSON carries it: "stack" (method lines)
 * and "threadStack" (frames). */
static int read_inline(const hg_ctx *ctx, hg_report *rep, const hg_json *content, const char *key,
		       bool *found, struct read_error *err)
{
	const hg_json *v = hg_json_get(content, key);
	if (!v || hg_json_type(v) == HG_JSON_NULL)
		return 0;
	const char *text = hg_json_string(v);
	if (!text)
		return report_fail(err, NO_OFFSET, "field \"%s\": expected a string of %s, got %s", key,
				   strcmp(key, "stack") ? "frames" : "depth,id,count,cost lines",
				   hg_json_type_name(hg_json_type(v)));
	char what[32];
	snprintf(what, sizeof what, "field \"%s\"", key);
	*found = true;
	return apm_read_stack(ctx, rep, text, strlen(text), what, err);
}

int report_from_apm(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *content,
		    hg_report *rep, struct read_error *err)
{
	int rc = read_kind(rep, content);
	if (!rc)
		rc = read_names(rep, doc, content);
	if (!rc)
		rc = read_times(ctx, rep, content);
	bool inline_stack = false;
	if (!rc)
		rc = read_inline(ctx, rep, content, "stack", &inline_stack, err);
	if (!rc)
		rc = read_inline(ctx, rep, content, "threadStack", &inline_stack, err);
	if (rc)
		return rc;
	const hg_json *file = hg_json_get(content, "stack_file");
	if (!file && !inline_stack)
		return report_fail(err, NO_OFFSET, "an APM report without \"stack_file\"");
	if (!file)
		return 0;
	if (!hg_json_string(file))
		return report_fail(err, NO_OFFSET, "field \"stack_file\": expected a file name or a "
				   "URL, got %s", hg_json_type_name(hg_json_type(file)));
	char *text = NULL;
	size_t len = 0;
	rc = read_stack_file(ctx, rep, hg_json_string(file), &text, &len, err);
	if (rc == 0)
		rc = apm_read_stack(ctx, rep, text, len, "stack_file", err);
	free(text);
	/* The inline stack still explains the report: the file's trouble is
	 * a warning then. */
	if (rc == HG_EPARSE && inline_stack)
		return hg_strlist_addf(&rep->warnings, rep->arena, "%s", err->msg) ? HG_ENOMEM : 0;
	return rc;
}
