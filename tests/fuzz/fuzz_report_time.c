/* libFuzzer target: the report-time converter (report_time.c).  Invariants:
 * a time read is in the store's form, reads again as itself, and is taken
 * as it is by the store's fast path (years from 1000); a time refused leaves out "" and says
 * why; a year-less time (first 8 bytes: the reference, Unix ms) lands at or
 * before the reference plus 14 hours, and less than 9 years before it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_time.h"
#include "store/store_internal.h"

static void require(bool ok, const char *what, const char *text, const char *out)
{
	if (!ok) {
		fprintf(stderr, "fuzz_report_time: invariant violated: %s: \"%s\" -> \"%s\"\n", what,
			text, out);
		__builtin_trap();
	}
}

static void check_read(int rc, const char *text, const char *out, const char *why)
{
	if (rc != 0) {
		require(out[0] == '\0' && why && *why, "a refusal without its reason", text, out);
		return;
	}
	int64_t ms;
	require(report_time_unix_ms(out, &ms), "not the store's form", text, out);
	char again[REPORT_TIME_SIZE], fast[32];
	const char *w;
	require(report_time_parse(out, strlen(out), again, &w) == 0 && !strcmp(again, out),
		"does not read again as itself", text, out);
	/* (the fast path leaves years before 1000 to SQLite, which agrees) */
	require(store_time_fast(out, fast) ? !strcmp(fast, out) : out[0] == '0',
		"the store would change it", text, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8 || size > 72 || memchr(data, 0, size))
		return 0;
	int64_t ref;
	memcpy(&ref, data, 8);
	ref %= 253402300800000LL; /* years 0 to 9999, either side of 1970 */
	char text[65];
	memcpy(text, data + 8, size - 8);
	text[size - 8] = '\0';
	char out[REPORT_TIME_SIZE];
	const char *why = NULL;
	check_read(report_time_parse(text, strlen(text), out, &why), text, out, why);
	why = NULL;
	int rc = report_time_yearless(text, strlen(text), ref, out, &why);
	check_read(rc, text, out, why);
	int64_t ms;
	if (rc == 0 && report_time_unix_ms(out, &ms))
		require(ms <= ref + 14 * 3600000LL && ms > ref - 9 * 366 * 86400000LL,
			"a year-less time placed too far from its reference", text, out);
	return 0;
}
