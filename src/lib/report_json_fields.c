/* Reading fields of a JSON report with error messages that name them. */
#include <stdarg.h>
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

