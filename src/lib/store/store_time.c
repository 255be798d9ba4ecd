/* Report times in the store's one form (STORE_TIME_SQL), computed in C for
 * the forms reports really use: epoch digits (Matrix writes milliseconds)
 * and the store's own form.  Evaluating the SQL expression for every
 * inserted report was a tenth of a big ingest's writer; anything else is
 * still handed to that expression, so that the result is always exactly
 * what SQLite gives (a differential test, test_store_time.c, holds the two
 * together). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report_time.h"
#include "store_internal.h"

/* Julian day of the Unix epoch in milliseconds, and the end of year 9999:
 * SQLite's own bounds for "unixepoch". */
#define JD_EPOCH_MS 210866760000000LL
#define JD_MAX_MS 464269060800000.0


/* Digits only: seconds, ms, us or ns by length, as STORE_TIME_SQL divides
 * them (the same double arithmetic as SQLite's "unixepoch").  A value past
 * int64 is left to SQLite (its integer cast saturates). */
static bool epoch_digits(const char *text, size_t n, char out[32])
{
	if (n > 19 || (n == 19 && strcmp(text, "9223372036854775807") > 0))
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (text[i] - '0');
	double div = n <= 11 ? 1.0 : n <= 14 ? 1000.0 : n <= 17 ? 1000000.0 : 1000000000.0;
	double r = (double)v / div;
	double jd = r * 1000.0 + (double)JD_EPOCH_MS;
	if (!(jd >= 0.0 && jd < JD_MAX_MS)) {
		out[0] = '\0'; /* SQLite: NULL */
		return true;
	}
	report_time_format_ms((int64_t)(jd + 0.5) - JD_EPOCH_MS, out);
	return true;
}

static int digits(const char *s, size_t n)
{
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" exactly, a real date: already in the form. */
static bool store_form(const char *t, size_t n, char out[32])
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
	if (n != sizeof shape - 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (shape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != shape[i])
			return false;
	int year = digits(t, 4), month = digits(t + 5, 2), day = digits(t + 8, 2);
	int hour = digits(t + 11, 2), minute = digits(t + 14, 2), second = digits(t + 17, 2);
	static const int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	if (year < 1000 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 ||
	    second > 59)
		return false;
	if (day > month_days[month - 1] || (month == 2 && day == 29 && !leap))
		return false; /* SQLite rolls these over: its answer, then */
	memcpy(out, t, n + 1);
	return true;
}

bool store_time_fast(const char *text, char out[32])
{
	if (!text || !*text) {
		out[0] = '\0';
		return true;
	}
	size_t n = strlen(text);
	if (strspn(text, "0123456789") == n)
		return epoch_digits(text, n, out);
	return store_form(text, n, out);
}

void store_time_now(char out[32])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	report_time_format_ms((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, out);
}

int store_time_normalize(hg_store *store, const char *text, char out[32])
{
	if (store_time_fast(text, out))
		return 0;
	out[0] = '\0';
	hg_db_stmt *st = db_stmt(store->db, S_TIME, "SELECT " STORE_TIME_SQL("?1"));
	if (!st)
		return store_fail(store, HG_EIO, "cannot read a time");
	db_bind_text(st, 1, text);
	int rc = db_step(st);
	if (rc == DB_ROW && db_col_text(st, 0))
		snprintf(out, 32, "%s", db_col_text(st, 0));
	db_reset(st);
	return rc < 0 ? store_check(store, rc, "cannot read a time") : 0;
}
