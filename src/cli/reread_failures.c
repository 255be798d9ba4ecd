/* Naming the reports that could not be read again (reread_failures.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "reread_failures.h"

void reread_failures_add(struct reread_failures *f, const hg_regroup_item *item,
			 const char *reason)
{
	f->count++;
	if (f->n_listed == REREAD_LISTED)
		return;
	struct reread_failure *r = &f->listed[f->n_listed];
	r->id = item->id;
	r->line = item->line;
	r->source = strdup(item->source ? item->source : "");
	r->reason = strdup(reason && *reason ? reason : "no reason given");
	if (!r->source || !r->reason) { /* counted, not listed */
		free(r->source);
		free(r->reason);
		return;
	}
	f->n_listed++;
}

void reread_failures_print(const struct reread_failures *f, const char *cmd, FILE *out)
{
	for (size_t i = 0; i < f->n_listed; i++) {
		const struct reread_failure *r = &f->listed[i];
		if (r->line > 0)
			cli_fprintf(out, "%s:%ld: ", r->source, r->line);
		else
			cli_fprintf(out, "%s: ", r->source);
		cli_fprintf(out, "error: stored report %" PRId64 ": not read again: %s\n", r->id,
			r->reason);
	}
	if (f->count > f->n_listed)
		fprintf(out, "hangar %s: ... and %zu more not read again, not listed\n", cmd,
			f->count - f->n_listed);
}

void reread_failures_release(struct reread_failures *f)
{
	for (size_t i = 0; i < f->n_listed; i++) {
		free(f->listed[i].source);
		free(f->listed[i].reason);
	}
	*f = (struct reread_failures){0};
}
