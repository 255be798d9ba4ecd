/* What the HTML digest's files share (digest_html.c, the page;
 * digest_html_chart.c, its charts). */
#ifndef HANGAR_DIGEST_HTML_H
#define HANGAR_DIGEST_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include "digest_internal.h"

/* The days every chart of a page shows: the last days any listed cluster
 * has reports on, at most a month of them. */
struct chart_range {
	int64_t first, last;  /* day numbers, inclusive */
	bool empty;           /* no listed cluster has a timed report */
};

void chart_range(const struct digest *d, struct chart_range *r);
/* Bars of c's reports per day over r: small for a table cell, large
 * (with its first and last day and its scale) for a cluster's section. */
void chart_write(hg_buf *b, const struct dg_cluster *c, const struct chart_range *r, bool large);

#endif
