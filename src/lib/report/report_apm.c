/* The custom APM JSON format (seed 000): a Matrix-like report whose
 * stack lives in a separate file named by "stack_file". */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/input.h"
#include "report_internal.h"

bool report_is_apm(const hg_json *content)
{
	return hg_json_get(content, "reportType") || hg_json_get(content, "stack_file");
}

/* Whether a path has a ".." component (x..y.txt is fine). */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

/* The last diagnostic of a read, kept for the report's own error. */
static void keep_reason(void *user, const hg_diag *d)
{
	snprintf(user, 256, "%s", d->message);
}

/* The stack file of an APM report: beside the report (or in stack_dir), by
 * a relative name opened beneath that folder (hg_input_read_beneath: never
 * through a link that leaves it, never a FIFO or a device).  A refusal
 * names the file and why, never what is in it. */
static int read_stack_file(const hg_ctx *ctx, const hg_report *rep, const char *name, char **text,
			   size_t *len, struct read_error *err)
{
	if (name[0] == '/' || !name[0] || has_dotdot(name))
		return report_fail(err, NO_OFFSET, "field \"stack_file\": \"%s\" must be a relative "
				   "path without \"..\"", name);
	/* A fetched report's source is its URL: no folder of this machine is
	 * beside it (dirname would make "s3:/bucket/dir" a local path). */
	if (!ctx->stack_dir && strstr(rep->source, "://"))
		return report_fail(err, NO_OFFSET, "field \"stack_file\": \"%s\" is not fetched "
				   "with the report; give the folder that holds it with --stack-dir",
				   name);
	char *copy = strdup(rep->source);
	if (!copy)
		return HG_ENOMEM;
	const char *dir = ctx->stack_dir ? ctx->stack_dir
			  : strcmp(rep->source, "-") == 0 ? "." : dirname(copy);
	char reason[256] = "";
	hg_ctx quiet = *ctx; /* the report's error says it, once */
	quiet.diag = keep_reason;
	quiet.diag_user = reason;
	int rc = hg_input_read_beneath(&quiet, dir, name, "stack file", text, len);
	if (rc == HG_EIO || rc == HG_ELIMIT)
		report_fail(err, NO_OFFSET, "field \"stack_file\": cannot read %s/%s: %s", dir, name,
			    rc == HG_ELIMIT ? "over the size limit" : reason);
	free(copy);
	return rc == HG_EIO || rc == HG_ELIMIT ? HG_EPARSE : rc;
}

int report_from_apm(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *content,
		    hg_report *rep, struct read_error *err)
{
	(void)doc;
	const char *type = report_string_field(rep, content, content, "reportType");
	if (type) {
		rep->kind = !strcasecmp(type, "LAG")   ? HG_KIND_LAG
			    : !strcasecmp(type, "ANR") ? HG_KIND_ANR
						       : HG_KIND_SLOW_METHOD;
		rep->detail = type;
	}
	const char *scene = report_string_field(rep, content, content, "event_desc");
	if (scene)
		rep->scene = scene;
	const char *machine = report_string_field(rep, content, content, "machine");
	if (machine)
		rep->device = machine; /* here a device name, e.g. "Pixel 6" */
	const hg_json *file = hg_json_get(content, "stack_file");
	if (!file)
		return report_fail(err, NO_OFFSET, "an APM report without \"stack_file\"");
	if (!hg_json_string(file))
		return report_fail(err, NO_OFFSET, "field \"stack_file\": expected a file name, got %s",
				   hg_json_type_name(hg_json_type(file)));
	char *text = NULL;
	size_t len = 0;
	int rc = read_stack_file(ctx, rep, hg_json_string(file), &text, &len, err);
	if (rc != 0)
		return rc;
	/* Matrix's depth,id,count,cost lines, or Java frames. */
	size_t line = 0;
	const char *why = "";
	rc = hg_stack_parse_checked(text, len, ctx->limits.max_stack_lines, rep->arena, &rep->full, &line,
				    &why, "stack_file, ", &rep->warnings);
	if (rc == 0) {
		report_analyse_structured(rep);
	} else if (rc == HG_EPARSE) {
		rc = report_thread_from_frames(rep, "main", text, len, err);
	} else if (rc == HG_ELIMIT) {
		report_fail(err, NO_OFFSET, "stack_file: %s", why);
		rc = HG_EPARSE;
	}
	free(text);
	return rc;
}
