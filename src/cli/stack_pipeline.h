/* hangar stack on two cores: a reader thread reads and parses the reports;
 * the main thread rebuilds their buffers (hg_ctx.defer_rebuild), names
 * them (hg_namer), renders and writes them, so that a raw buffer's cost is
 * shared by both threads.  These are the items handed from one to the
 * other through the library's hg_pipe (hangar/pipe.h), in input order: each a report (or a failed input) with
 * the diagnostics printed before it, so that stderr and stdout keep the
 * order a single thread gives them. */
#ifndef HANGAR_CLI_STACK_PIPELINE_H
#define HANGAR_CLI_STACK_PIPELINE_H

#include <stdbool.h>

#include "hangar/pipe.h"
#include "hangar/report.h"
#include "hangar/text.h"

#define STACK_PIPE_LEN 128

struct stack_item {
	hg_report *rep;     /* NULL: no report (a failed input, or diagnostics alone) */
	hg_buf diags;       /* stderr lines that come before it */
	hg_buf text;        /* stdout text that comes before the report (a failed input) */
	bool failed_input;  /* a file that could not be read, counted as one failure */
	bool out_of_memory; /* naming the report ran out of memory */
};

/* Frees what item holds and clears it (an hg_pipe release function). */
void stack_item_release(void *item);

#endif
