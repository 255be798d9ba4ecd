/* The custom APM reader's parts (private): report_apm.c reads the report's
 * fields and finds its stack file, report_apm_stack.c reads stack text. */
#ifndef HANGAR_LIB_REPORT_APM_INTERNAL_H
#define HANGAR_LIB_REPORT_APM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "report_internal.h"

/* Reads stack text (a stack file, or an inline field; `what` names it in
 * messages: "stack_file") into rep: its depth,id,count,cost lines as the
 * method stack (keyed), its Java frames as the main thread (blamed), either
 * or both, in either order.  Lines that are neither are left out with a
 * warning, and so is a last line cut short; what rep already has from
 * elsewhere is kept (the second one left out, said).  0; HG_EPARSE with
 * *err filled when the text has neither frames nor method lines, or its
 * method lines pass --max-stack-lines; HG_ENOMEM. */
int apm_read_stack(const hg_ctx *ctx, hg_report *rep, const char *text, size_t len,
		   const char *what, struct read_error *err);

#endif
