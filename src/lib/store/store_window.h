/* A time window read from rollups: its whole UTC days come from the
 * rollups table, its partial first and last days from the reports of
 * those hours (reports_by_time).  Times in the store's form
 * ("2024-04-25T00:00:13.443Z"), compared as text. */
#ifndef HANGAR_STORE_WINDOW_H
#define HANGAR_STORE_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

struct store_window {
	bool bounded;          /* since or until given: rollups of unknown day are out */
	char lo[11], hi[11];   /* whole days lo..hi ("" open); lo > hi: none */
	bool no_days;          /* no whole day at all */
	int n_edges;
	char edge[2][2][32];   /* [i][0] .. [i][1], both inclusive */
};

/* The window of since (inclusive) and until (inclusive when
 * until_inclusive, else exclusive), each in the store's form or NULL:
 * 0, or -1 when a time is not in the store's form. */
int store_window_make(struct store_window *w, const char *since, const char *until,
		      bool until_inclusive);

/* The start of the day delta days after day's ("YYYY-MM-DD..."), in the
 * store's form: 0, or -1 when day is not a date. */
int store_day_start(const char *day, int delta, char out[32]);
/* Whole days from a to b, both day starts in the store's form. */
int64_t store_days_between(const char *a, const char *b);

#endif
