/* Android ANR traces (being written). */
#include <stdio.h>

#include "report_internal.h"

int report_from_anr_traces(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
	struct read_error *err)
{
	(void)ctx, (void)text, (void)len, (void)rep;
	snprintf(err->msg, sizeof err->msg, "Android ANR traces are not read yet");
	err->offset = NO_OFFSET;
	return HG_EPARSE;
}
