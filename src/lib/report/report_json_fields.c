/* Reading fields of a JSON report with error messages that name them. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

int report_fail(struct read_error *err, size_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->offset = offset;
	return HG_EPARSE;
}

/* A short quotation of a JSON value for error messages. */
void report_quote(const hg_json_doc *doc, const hg_json *v, char *out, size_t size)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_json_write(doc, v, &b);
	if (b.len > 40)
		snprintf(out, size, "%.37s...", b.data);
	else
		snprintf(out, size, "%s", b.data ? b.data : "");
	hg_buf_release(&b);
}

/* Looks key up in content first, then in the wrapper. */
const hg_json *report_field(const hg_json *content, const hg_json *wrapper, const char *key)
{
	const hg_json *v = hg_json_get(content, key);
	return v || content == wrapper ? v : hg_json_get(wrapper, key);
}

int report_int_field(const hg_json_doc *doc, const hg_json *v, const char *key, int64_t *out,
		     struct read_error *err)
{
	if (hg_json_int64(doc, v, out) == 0)
		return 0;
	char q[64];
	report_quote(doc, v, q, sizeof q);
	size_t off = hg_json_type(v) == HG_JSON_NUMBER ? hg_json_number_offset(doc, v) : NO_OFFSET;
	return report_fail(err, off, "field \"%s\": expected an integer (signed 64-bit), got %s", key, q);
}

const char *report_string_field(hg_report *rep, const hg_json *content, const hg_json *wrapper,
				const char *key)
{
	const char *s = hg_json_string(report_field(content, wrapper, key));
	return s ? hg_arena_strdup(rep->arena, s) : NULL;
}

/* ---- typed fields ---- */

int report_bad_field(const struct json_fields *jf, const char *where, const char *key,
		     const hg_json *v, const char *what)
{
	char got[64];
	report_quote(jf->doc, v, got, sizeof got);
	bool number = hg_json_type(v) == HG_JSON_NUMBER;
	return report_fail(jf->err, number ? hg_json_number_offset(jf->doc, v) : NO_OFFSET,
			   "field \"%s%s%s\": expected %s, got %s", where, *where && *key ? "." : "",
			   key, what, got);
}

/* Present and not null: KSCrash, for one, writes null for a missing string. */
const hg_json *report_member(const hg_json *obj, const char *key)
{
	const hg_json *v = hg_json_get(obj, key);
	return hg_json_type(v) == HG_JSON_NULL ? NULL : v;
}

static int get_typed(const struct json_fields *jf, const hg_json *obj, const char *where,
		     const char *key, enum hg_json_type type, const char *what, const hg_json **out)
{
	const hg_json *v = *out = report_member(obj, key);
	if (v && hg_json_type(v) != type) {
		*out = NULL;
		return report_bad_field(jf, where, key, v, what);
	}
	return 0;
}

int report_get_object(const struct json_fields *jf, const hg_json *obj, const char *where,
		      const char *key, const hg_json **out)
{
	return get_typed(jf, obj, where, key, HG_JSON_OBJECT, "an object", out);
}

int report_get_array(const struct json_fields *jf, const hg_json *obj, const char *where,
		     const char *key, const hg_json **out)
{
	return get_typed(jf, obj, where, key, HG_JSON_ARRAY, "an array", out);
}

int report_get_string(const struct json_fields *jf, const hg_json *obj, const char *where,
		      const char *key, const char **out)
{
	const hg_json *v;
	int rc = get_typed(jf, obj, where, key, HG_JSON_STRING, "a string", &v);
	*out = hg_json_string(v);
	return rc;
}

int report_get_bool(const struct json_fields *jf, const hg_json *obj, const char *where,
		    const char *key, bool *out)
{
	const hg_json *v;
	int rc = get_typed(jf, obj, where, key, HG_JSON_BOOL, "true or false", &v);
	*out = hg_json_true(v);
	return rc;
}

/* 0 ... 2^64-1 from the digits; -2^63 ... -1 as its two's complement. */
static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
	bool negative = len > 0 && s[0] == '-';
	size_t i = negative;
	if (i == len)
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (negative) {
		if (v > (uint64_t)1 << 63)
			return false;
		v = (uint64_t)0 - v;
	}
	*out = v;
	return true;
}

int report_get_u64(const struct json_fields *jf, const hg_json *obj, const char *where,
		   const char *key, uint64_t *out, bool *has)
{
	const hg_json *v = report_member(obj, key);
	*has = false;
	*out = 0;
	if (!v)
		return 0;
	const char *s = NULL;
	size_t len = 0;
	if (hg_json_type(v) == HG_JSON_NUMBER)
		hg_json_number_text(jf->doc, v, &s, &len);
	if (!s || !parse_u64(s, len, out))
		return report_bad_field(jf, where, key, v, "an unsigned 64-bit integer");
	*has = true;
	return 0;
}

int report_get_count(const struct json_fields *jf, const hg_json *obj, const char *where,
		     const char *key, long *out, bool *has)
{
	const hg_json *v = report_member(obj, key);
	int64_t n = 0;
	*has = false;
	if (!v)
		return 0;
	if (hg_json_int64(jf->doc, v, &n) != 0 || n < 0 || n > LONG_MAX)
		return report_bad_field(jf, where, key, v, "an integer >= 0");
	*out = (long)n;
	*has = true;
	return 0;
}

int report_add_json_meta(hg_report *rep, const hg_json_doc *doc, const char *key, const hg_json *v)
{
	hg_buf b;
	hg_buf_init(&b);
	hg_json_write(doc, v, &b);
	int rc = b.failed ? HG_ENOMEM
			  : hg_report_add_meta(rep, key, b.data ? b.data : "", hg_json_string(v));
	hg_buf_release(&b);
	return rc;
}
