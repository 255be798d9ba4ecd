/* Shared between the report readers (private to the library). */
#ifndef HANGAR_LIB_REPORT_INTERNAL_H
#define HANGAR_LIB_REPORT_INTERNAL_H

#include <stddef.h>

#include "hangar/report.h"
#include "json.h"

#define NO_OFFSET ((size_t)-1)

/* Why a report could not be read, and where (an offset into the text the
 * document was parsed from, or NO_OFFSET). */
struct read_error {
	char msg[512];
	size_t offset;
};

/* A new empty report with its own arena; NULL on ENOMEM. */
hg_report *report_new(const char *source, long line, long number);

/* Fills rep from one report object of doc.  Returns 0, HG_EPARSE/HG_ELIMIT
 * with *err filled, or HG_ENOMEM. */
int report_from_json(const hg_ctx *ctx, const hg_json_doc *doc, const hg_json *obj,
		     hg_report *rep, struct read_error *err);

/* Rebuilds, trims and keys a raw buffer into rep (Matrix's AnalyseTask). */
int report_analyse_buffer(hg_report *rep, const int64_t *words, size_t n, bool strict,
			  bool has_end_time, int64_t end_time);

/* Keys a structured stack already in rep->full. */
void report_analyse_structured(hg_report *rep);

#endif
