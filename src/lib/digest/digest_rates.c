/* The digest's rates by version (reports and ANRs per 1,000 sessions of
 * each version the sessions file names, the ANR rate held against a
 * threshold) and its escalating clusters (the store's latest day, the
 * rule's defaults), gathered for every format. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "digest_internal.h"

struct trends {
	struct digest *d;
	size_t cap;
	int err;
};

/* An arena copy of s (NULL stays NULL); sets *err on ENOMEM. */
static const char *dup(hg_arena *arena, const char *s, int *err)
{
	char *p = s ? hg_arena_strdup(arena, s) : NULL;
	if (s && !p)
		*err = HG_ENOMEM;
	return p;
}

/* Room for one more item of an arena array. */
static int reserve(hg_arena *arena, void **items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	size_t want = *cap ? 2 * *cap : 8;
	void *p = hg_arena_regrow(arena, *items, *cap * size, want * size);
	if (!p)
		return HG_ENOMEM;
	*items = p;
	*cap = want;
	return 0;
}

static int on_rate(void *user, const hg_version_rate *v)
{
	struct trends *t = user;
	struct digest *d = t->d;
	if ((t->err = reserve(d->arena, (void **)&d->rates, d->n_rates, &t->cap, sizeof *d->rates)))
		return t->err;
	d->rates[d->n_rates++] = (struct dg_rate){
		dup(d->arena, v->version, &t->err), v->sessions, v->reports, v->anrs, v->rate,
		v->anr_rate, v->anr_rate > d->rate_threshold};
	return t->err;
}

static int on_escalation(void *user, const hg_escalation *e)
{
	struct trends *t = user;
	struct digest *d = t->d;
	if (!d->escalation_day)
		d->escalation_day = dup(d->arena, e->day, &t->err);
	if (!e->escalating || (size_t)d->escalating_total++ >= d->list_max)
		return t->err;
	if ((t->err = reserve(d->arena, (void **)&d->escalating, d->n_escalating, &t->cap,
			      sizeof *d->escalating)))
		return t->err;
	d->escalating[d->n_escalating++] = (struct dg_escalation){
		dup(d->arena, e->hash, &t->err), dup(d->arena, e->kind, &t->err),
		dup(d->arena, e->title, &t->err), e->count, e->days, e->mean};
	return t->err;
}

int digest_gather_trends(struct digest *d, hg_store *store)
{
	const hg_digest_run *run = d->run;
	d->rate_threshold = run->rate_threshold > 0 ? run->rate_threshold : HG_DIGEST_RATE_THRESHOLD;
	d->rule = (hg_escalate_rule){HG_ESCALATE_FACTOR, HG_ESCALATE_DAYS, HG_ESCALATE_MIN};
	struct trends t = {.d = d};
	int err = 0;
	if (run->sessions)
		err = hg_store_version_rates(store, run->sessions, on_rate, &t, &d->uncounted);
	if ((err = t.err ? t.err : err) != 0)
		return err;
	t.cap = 0;
	hg_top_query q = {.escalate = &d->rule};
	err = hg_store_escalations(store, &q, on_escalation, &t);
	return t.err ? t.err : err;
}

void digest_escalation_rule(hg_buf *b, const struct digest *d)
{
	hg_buf_printf(b, "a cluster escalates with at least %" PRId64 " reports that day and %gx "
		      "its mean daily reports over the %d days before (since it was first seen)",
		      d->rule.min, d->rule.factor, d->rule.days);
}

void digest_rates_note(hg_buf *b, const struct digest *d)
{
	hg_buf_printf(b, "Reports per 1,000 sessions of each version the sessions file names; an "
		      "ANR rate over %g is flagged (Play's bad-behaviour threshold for "
		      "user-perceived ANRs is 0.47%% of sessions: hangar counts ANR reports, not "
		      "sessions with one, so its ANR rate is an upper bound of Play's).",
		      d->rate_threshold);
}
