/* WatchDog logs (private to the report readers): what report_formats.c
 * needs of report_watchdog.c to give them a row. */
#ifndef HANGAR_LIB_REPORT_WATCHDOG_H
#define HANGAR_LIB_REPORT_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>

#include "report_internal.h"

/* Whether head (the input's first 64 KiB; all is not looked at) is a
 * WatchDog log: a run of at least three lines that are each a Java frame
 * without "at" ("a.b.C.m(C.java:12)", behind a logcat prefix or not), and
 * more such lines than frames with "at" (a Java stack dump's). */
bool report_detect_watchdog(const char *head, size_t len, const char *all, size_t all_len);

/* The end of the block of dumps that starts at text[from]: the line of
 * the first dump logged by another process (pid), or more than 1.5 x the
 * 4 s check after the dump before it (the block had ended: another one
 * began); else len. */
size_t report_split_watchdog(const char *text, size_t len, size_t from);

/* Fills rep from one block of dumps (the contract of
 * report_from_anr_traces). */
int report_from_watchdog(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			 struct read_error *err);

#endif
