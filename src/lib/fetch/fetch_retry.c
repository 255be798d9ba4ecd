/* The retry policy, as pure functions so that tests can pin it down: which
 * outcomes are worth another attempt, how long to wait, and the words of a
 * final failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"

bool fetch_should_retry(const struct fetch_result *r)
{
	switch (r->outcome) {
	case FO_HTTP:
		/* 4xx other than 429 will not change by asking again. */
		return r->status == 429 || (r->status >= 500 && r->status <= 599);
	case FO_CONNECT:
	case FO_RESET:
	case FO_TIMEOUT:
	case FO_STALL:
	case FO_PARTIAL:
		return true;
	default:
		return false;
	}
}

long fetch_retry_delay_ms(const struct fetch_result *r, int attempt, long backoff_ms,
			  uint64_t rnd)
{
	if (r->retry_after >= 0)
		return (r->retry_after > HG_FETCH_MAX_RETRY_AFTER_S ? HG_FETCH_MAX_RETRY_AFTER_S
								    : r->retry_after) * 1000;
	double d = (double)(backoff_ms > 0 ? backoff_ms : 0);
	for (int k = 1; k < attempt && k <= 40; k++) /* 2^40 x anything is past the cap */
		d *= 2;
	/* +-50 % jitter spreads the retries of many clients hit by one outage. */
	double factor = 0.5 + (double)(rnd >> 11) / 9007199254740992.0; /* [0.5, 1.5) */
	d *= factor;
	if (d > HG_FETCH_MAX_BACKOFF_MS)
		d = HG_FETCH_MAX_BACKOFF_MS;
	return (long)d;
}

void fetch_describe(const struct fetch_result *r, int attempts, long stall_ms, int64_t cap,
		    char *out, size_t size)
{
	char what[320];
	switch (r->outcome) {
	case FO_OK: snprintf(what, sizeof what, "ok"); break;
	case FO_HTTP: snprintf(what, sizeof what, "HTTP %ld", r->status); break;
	case FO_CONNECT: snprintf(what, sizeof what, "could not connect (%s)", r->detail); break;
	case FO_RESET: snprintf(what, sizeof what, "connection reset"); break;
	case FO_TIMEOUT: snprintf(what, sizeof what, "timed out"); break;
	case FO_STALL:
		snprintf(what, sizeof what, "stalled: no data for %ld s",
			 stall_ms < 1000 ? 1 : stall_ms / 1000);
		break;
	case FO_PARTIAL: snprintf(what, sizeof what, "truncated body"); break;
	case FO_TOO_LARGE:
		snprintf(what, sizeof what, "larger than %lld bytes", (long long)cap);
		break;
	case FO_TLS: snprintf(what, sizeof what, "TLS failure (%s)", r->detail); break;
	case FO_BAD_BODY: snprintf(what, sizeof what, "undecodable body (%s)", r->detail); break;
	case FO_REDIRECT: snprintf(what, sizeof what, "%s", r->detail); break;
	case FO_LOCAL: snprintf(what, sizeof what, "cannot stage the file (%s)", r->detail); break;
	default: snprintf(what, sizeof what, "%s", r->detail[0] ? r->detail : "failed"); break;
	}
	if (attempts > 1)
		snprintf(out, size, "%.300s after %d attempts", what, attempts);
	else
		snprintf(out, size, "%.300s", what);
}

long fetch_parse_retry_after(const char *value, size_t len)
{
	size_t i = 0;
	while (i < len && (value[i] == ' ' || value[i] == '\t'))
		i++;
	if (i == len || value[i] < '0' || value[i] > '9')
		return -1; /* an HTTP-date: treated as absent, the backoff applies */
	long v = 0;
	for (; i < len && value[i] >= '0' && value[i] <= '9'; i++)
		if (v < 1000000)
			v = v * 10 + (value[i] - '0');
	while (i < len && (value[i] == ' ' || value[i] == '\t' || value[i] == '\r' ||
			   value[i] == '\n'))
		i++;
	return i == len ? v : -1;
}
