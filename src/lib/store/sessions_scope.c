/* Which rows of a sessions file a query covers, and which reports count
 * against them (hangar/sessions.h): a rate is the reports that count over
 * the sessions of the rows in scope, so that a report of a version or day
 * the file does not give never inflates it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions_internal.h"

/* Days since 1970-01-01 of a proleptic Gregorian date, and back (Howard
 * Hinnant's days_from_civil / civil_from_days): no time zone involved. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int64_t *m, int64_t *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yoe + era * 400 + (*m <= 2);
}

static bool leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The first millisecond of a day in the store's form (years 1 to 9999;
 * the year's last four digits), by hand: snprintf cannot be shown to fit. */
static void midnight(char out[25], int64_t y, int64_t m, int64_t d)
{
	const unsigned parts[3] = {(unsigned)(y % 10000), (unsigned)m, (unsigned)d};
	const unsigned widths[3] = {4, 2, 2};
	char *p = out;
	for (int k = 0; k < 3; k++) {
		for (unsigned w = widths[k], v = parts[k]; w > 0; w--, v /= 10)
			p[w - 1] = (char)('0' + v % 10);
		p += widths[k];
		*p++ = k < 2 ? '-' : 'T';
	}
	memcpy(p, "00:00:00.000Z", 14);
}

bool sess_day_read(const char *s, struct sess_day *d)
{
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !(s[i] >= '0' && s[i] <= '9'))
			return false;
	int64_t y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int64_t m = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
	static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (y < 1 || m < 1 || m > 12 || day < 1 ||
	    day > month_days[m - 1] + (m == 2 && leap(y)))
		return false;
	memcpy(d->day, s, 10);
	d->day[10] = '\0';
	midnight(d->start, y, m, day);
	int64_t ny, nm, nd;
	civil_from_days(days_from_civil(y, m, day) + 1, &ny, &nm, &nd);
	midnight(d->end, ny, nm, nd); /* 9999-12-31 ends at "0000-01-01": past every window */
	if (ny > 9999)
		memcpy(d->end, "9999-12-31T24:00:00.000Z", 25);
	return true;
}

static const struct sess_version *find(const hg_sessions *s, const char *version)
{
	int64_t i;
	return version && strmap_get(&s->index, version, &i) ? &s->versions[i] : NULL;
}

/* Whether the window holds the whole day. */
static bool day_in(const struct sess_day *d, const hg_sessions_scope *scope)
{
	if (!scope)
		return true;
	return (!scope->since || strcmp(scope->since, d->start) <= 0) &&
	       (!scope->until || strcmp(d->end, scope->until) <= 0);
}

static int by_day(const void *key, const void *elem)
{
	return strncmp(key, ((const struct sess_day *)elem)->day, 10);
}

bool hg_sessions_has_days(const hg_sessions *s)
{
	return s && s->has_days;
}

int64_t hg_sessions_total(const hg_sessions *s, const hg_sessions_scope *scope)
{
	int64_t sum = 0;
	bool any = false;
	const char *version = scope ? scope->version : NULL;
	for (size_t i = 0; s && i < s->n_versions; i++) {
		const struct sess_version *e = &s->versions[i];
		if (version && strcmp(version, e->version) != 0)
			continue;
		if (e->whole_line) {
			sum = sess_add(sum, e->whole);
			any = true;
		}
		for (size_t k = 0; k < e->n_days; k++)
			if (day_in(&e->days[k], scope)) {
				sum = sess_add(sum, e->days[k].sessions);
				any = true;
			}
	}
	return any ? sum : -1;
}

bool hg_sessions_counts(const hg_sessions *s, const hg_sessions_scope *scope, const char *version,
			const char *time)
{
	if (!s || !version || (scope && scope->version && strcmp(scope->version, version) != 0))
		return false;
	const struct sess_version *e = find(s, version);
	if (!e)
		return false;
	if (e->whole_line)
		return true;
	if (!e->n_days || !time || strlen(time) < 10)
		return false;
	const struct sess_day *d = bsearch(time, e->days, e->n_days, sizeof *e->days, by_day);
	return d && day_in(d, scope);
}

int hg_sessions_versions(const hg_sessions *s, hg_sessions_version_fn fn, void *user)
{
	for (size_t i = 0; s && i < s->n_versions; i++) {
		int rc = fn(user, s->versions[i].version, s->versions[i].total);
		if (rc)
			return rc;
	}
	return 0;
}

double hg_rate_per_1k(int64_t reports, int64_t sessions)
{
	return sessions > 0 ? 1000.0 * (double)reports / (double)sessions : -1;
}
