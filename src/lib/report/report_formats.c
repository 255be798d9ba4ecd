/* The text formats hangar reads, one row each: how an input is told to be
 * of the format (by content, never by name), how it is cut into reports,
 * and how one report is read.  An input that is not JSON is tried against
 * the rows in order; --input-format picks a row by its format.  A new text
 * format is a row here and a file of its own. */
#include <string.h>

#include "report_anr.h"
#include "report_bare_stack.h"
#include "report_internal.h"
#include "report_tombstone.h"
#include "report_watchdog.h"

/* Matrix's printed stack blocks (also a LooperAnrTracer block, whose
 * main-thread frames alone would pass for a Java dump), or nothing but
 * depth,id,count,cost lines (report_bare_lines.c).  Read block by block
 * by report_read_bare_stacks, not by a row's read. */
static bool detect_bare_stack(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)head;
	(void)len;
	return bare_stack_detect(all, all_len);
}

static bool detect_anr(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)all;
	(void)all_len;
	return report_detect_anr_traces(head, len);
}

static bool detect_blockcanary(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)all;
	(void)all_len;
	return report_detect_blockcanary(head, len);
}

static bool detect_java(const char *head, size_t len, const char *all, size_t all_len)
{
	(void)all;
	(void)all_len;
	return report_detect_java_stack(head, len);
}

static const struct report_text_format text_formats[] = {
	/* first: a tombstone's logcat tail may quote an ART dump ("\"main\" prio=5") */
	{HG_FORMAT_TOMBSTONE, report_detect_tombstone, report_split_tombstone, report_from_tombstone},
	/* before ANR traces: a log that holds an ANR block may hold its dump too */
	{HG_FORMAT_LOGCAT, report_detect_logcat, report_logcat_split, report_from_logcat},
	{HG_FORMAT_ANR_TRACES, detect_anr, report_anr_split, report_from_anr_traces},
	{HG_FORMAT_BLOCKCANARY, detect_blockcanary, NULL, report_from_blockcanary},
	{HG_FORMAT_STACK, detect_bare_stack, NULL, NULL},
	/* before Java dumps: frames without "at", more of them than with */
	{HG_FORMAT_WATCHDOG, report_detect_watchdog, report_split_watchdog, report_from_watchdog},
	{HG_FORMAT_JAVA_STACK, detect_java, NULL, report_from_java_stack},
};

#define HEAD ((size_t)64 << 10) /* how much of the input the markers are looked for in */

const struct report_text_format *report_text_format(enum hg_input_format format)
{
	for (size_t i = 0; i < sizeof text_formats / sizeof *text_formats; i++)
		if (text_formats[i].format == format)
			return &text_formats[i];
	return NULL;
}

enum hg_input_format report_detect_text(const char *text, size_t len)
{
	size_t head = len < HEAD ? len : HEAD;
	for (size_t i = 0; i < sizeof text_formats / sizeof *text_formats; i++)
		if (text_formats[i].detect(text, head, text, len))
			return text_formats[i].format;
	return HG_FORMAT_AUTO;
}
