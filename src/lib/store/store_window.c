/* Time windows split into whole days (rollups) and the hours at their
 * ends (report rows): store_window.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store_window.h"

#define DAY_MS INT64_C(86400000)

/* Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" to milliseconds since the epoch. */
static int parse_ms(const char *t, int64_t *ms)
{
	int y, mo, d, h, mi, s, f;
	char z;
	if (!t || strlen(t) != 24 ||
	    sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &s, &f, &z) != 8 || z != 'Z')
		return -1;
	*ms = days_from_civil(y, mo, d) * DAY_MS + ((h * 60 + mi) * 60 + s) * INT64_C(1000) + f;
	return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

static void format_ms(int64_t ms, char out[32])
{
	int64_t day = floor_div(ms, DAY_MS), rest = ms - day * DAY_MS;
	int y, m, d;
	civil_from_days(day, &y, &m, &d);
	/* (the compiler cannot see that every field fits its width) */
	char buf[96];
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d,
		 (int)(rest / 3600000), (int)(rest / 60000 % 60), (int)(rest / 1000 % 60),
		 (int)(rest % 1000));
	snprintf(out, 32, "%.31s", buf);
}

static void format_day(int64_t day, char out[11])
{
	int y, m, d;
	civil_from_days(day, &y, &m, &d);
	char buf[48];
	snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
	snprintf(out, 11, "%.10s", buf);
}

static void add_edge(struct store_window *w, int64_t a, int64_t b)
{
	if (a > b)
		return;
	format_ms(a, w->edge[w->n_edges][0]);
	format_ms(b, w->edge[w->n_edges][1]);
	w->n_edges++;
}

int store_window_make(struct store_window *w, const char *since, const char *until,
		      bool until_inclusive)
{
	memset(w, 0, sizeof *w);
	int64_t a = INT64_MIN, b = INT64_MAX;
	if ((since && parse_ms(since, &a) != 0) || (until && parse_ms(until, &b) != 0))
		return -1;
	if (until && !until_inclusive)
		b--;
	w->bounded = since || until;
	/* whole days: from the first that starts at or after a, to the last
	 * that ends at or before b */
	int64_t lo = since ? floor_div(a + DAY_MS - 1, DAY_MS) : 0;
	int64_t hi = until ? floor_div(b + 1, DAY_MS) - 1 : 0;
	if (since)
		format_day(lo, w->lo);
	if (until)
		format_day(hi, w->hi);
	w->no_days = since && until && lo > hi;
	if (w->no_days) {
		add_edge(w, a, b);
		return 0;
	}
	if (since)
		add_edge(w, a, lo * DAY_MS - 1);
	if (until)
		add_edge(w, (hi + 1) * DAY_MS, b);
	return 0;
}

int store_day_start(const char *day, int delta, char out[32])
{
	int y, m, d;
	if (!day || strlen(day) < 10 || sscanf(day, "%4d-%2d-%2d", &y, &m, &d) != 3)
		return -1;
	format_ms((days_from_civil(y, m, d) + delta) * DAY_MS, out);
	return 0;
}

int64_t store_days_between(const char *a, const char *b)
{
	int64_t x = 0, y = 0;
	if (parse_ms(a, &x) != 0 || parse_ms(b, &y) != 0)
		return 0;
	return floor_div(y - x, DAY_MS);
}
