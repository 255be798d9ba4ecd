/* iOS hang reports in KSCrash JSON (being written). */
#include <stdio.h>

#include "report_internal.h"

bool report_is_kscrash(const hg_json *obj)
{
	const hg_json *crash = hg_json_get(obj, "crash");
	return hg_json_type(crash) == HG_JSON_OBJECT &&
	       (hg_json_get(crash, "threads") || hg_json_get(crash, "error")) &&
	       (hg_json_get(obj, "report") || hg_json_get(obj, "binary_images"));
}

int report_from_kscrash(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
			hg_report *rep, struct read_error *err)
{
	(void)ctx, (void)doc, (void)obj, (void)rep;
	snprintf(err->msg, sizeof err->msg, "KSCrash reports are not read yet");
	err->offset = NO_OFFSET;
	return HG_EPARSE;
}
