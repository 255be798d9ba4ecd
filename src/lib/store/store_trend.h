/* Escalation flags and rates for the rows of top, show and diff (private
 * to the store: store_escalate.c, store_rates.c). */
#ifndef HANGAR_STORE_TREND_H
#define HANGAR_STORE_TREND_H

#include <stdbool.h>
#include <stddef.h>

#include "hangar/store.h"

/* The window and filters of an escalation query (strings borrowed; times
 * as hg_store_time reads them). */
struct esc_query {
	const char *since, *until;
	bool until_excl;           /* the window ends before until (diff), not at it (top) */
	const char *version, *kind, *hash; /* NULL: all */
	const hg_escalate_rule *rule;      /* NULL: the defaults */
};

/* hg_store_escalations with every filter. */
int store_escalations(hg_store *store, const struct esc_query *q, hg_escalation_fn fn, void *user);

/* The escalating clusters of a query, by hash. */
struct esc_set {
	char (*hashes)[33];
	size_t n, cap;
};
int esc_set_load(hg_store *store, const struct esc_query *q, struct esc_set *out);
bool esc_set_has(const struct esc_set *set, const char *hash);
void esc_set_release(struct esc_set *set);

#endif
