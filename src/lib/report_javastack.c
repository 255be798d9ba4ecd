/* Java stack dumps (being written). */
#include <stdio.h>

#include "report_internal.h"

int report_from_java_stack(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
	struct read_error *err)
{
	(void)ctx, (void)text, (void)len, (void)rep;
	snprintf(err->msg, sizeof err->msg, "Java stack dumps are not read yet");
	err->offset = NO_OFFSET;
	return HG_EPARSE;
}

int report_thread_from_frames(hg_report *rep, const char *name, const char *text, size_t len,
			      struct read_error *err)
{
	(void)rep, (void)name, (void)text, (void)len;
	snprintf(err->msg, sizeof err->msg, "thread stacks are not read yet");
	err->offset = NO_OFFSET;
	return HG_EPARSE;
}
