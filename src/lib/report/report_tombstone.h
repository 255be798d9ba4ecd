/* Native crash tombstones (private to the report readers): what
 * report_formats.c needs of report_tombstone.c to give them a row. */
#ifndef HANGAR_LIB_REPORT_TOMBSTONE_H
#define HANGAR_LIB_REPORT_TOMBSTONE_H

#include <stdbool.h>
#include <stddef.h>

#include "report_internal.h"

/* Whether head (the input's first 64 KiB; all is not looked at) is a native crash tombstone: a
 * "*** *** ***" line, a "pid: N, tid: N" line and a "signal N" or
 * "backtrace:" line, and no xCrash "Crash type:" other than 'native'
 * (xCrash's ANR and Java tombstones have the same banner and go to the
 * ANR and Java stack readers). */
bool report_detect_tombstone(const char *head, size_t len, const char *all, size_t all_len);

/* The end of the tombstone that starts at text[from]: the next line that
 * opens another one ("*** *** ***"), else len (tombstones run together,
 * as `cat /data/tombstones/tombstone_*` writes them). */
size_t report_split_tombstone(const char *text, size_t len, size_t from);

/* Fills rep from one tombstone (the contract of report_from_anr_traces). */
int report_from_tombstone(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			  struct read_error *err);

#endif
