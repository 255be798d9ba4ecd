/* Module digest (src/lib/digest/): the nightly digest of one ingest run,
 * gathered from the store (digest.c) and written as Markdown (digest_md.c),
 * JSON (digest_json.c) or one HTML page with charts and flame graphs
 * (digest_html.c, digest_html_chart.c).
 * Public header: digest.h.
 * Uses: core, flame, render, store. */
/* The nightly digest: gathers what it shows from the store (the run's
 * reports are those with id > first_report_id), then hands it to the
 * Markdown, JSON or HTML writer. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest_internal.h"

#define PAGE_VALUES 10 /* values of each breakdown a cluster keeps (the JSON digest) */

/* Makes room for one more item in an arena array (the old array is left
 * in the arena: doubling keeps the waste below the final size). */
static int reserve(hg_arena *arena, void **items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	size_t want = *cap ? 2 * *cap : 8;
	void *p = hg_arena_calloc(arena, want, size);
	if (!p)
		return HG_ENOMEM;
	if (n)
		memcpy(p, *items, n * size);
	*items = p;
	*cap = want;
	return 0;
}

/* An arena copy of s (NULL stays NULL); sets *err on ENOMEM. */
static const char *dup(hg_arena *arena, const char *s, int *err)
{
	if (!s)
		return NULL;
	char *p = hg_arena_strdup(arena, s);
	if (!p)
		*err = HG_ENOMEM;
	return p;
}

/* ---- one cluster: its row, run count, versions and StackKey path ---- */

struct load {
	struct digest *d;
	struct dg_cluster *c;
	int err;
	/* the on-key-path nodes of the tree, in id order */
	struct key_node { int64_t id, parent, reports, total; const char *symbol; } *nodes;
	size_t n_nodes, cap_nodes;
	size_t cap_versions, cap_days;
};

static int on_row(void *user, const hg_cluster_row *r)
{
	struct load *l = user;
	hg_arena *a = l->d->arena;
	struct dg_cluster *c = l->c;
	c->hash = dup(a, r->hash, &l->err);
	c->kind = dup(a, r->kind, &l->err);
	c->title = dup(a, r->title, &l->err);
	c->key_symbol = dup(a, r->key_symbol, &l->err);
	c->first_seen = dup(a, r->first_seen, &l->err); /* NULL: no report time */
	c->last_seen = dup(a, r->last_seen, &l->err);
	c->count = r->count;
	if (r->figures) {
		hg_figures *f = hg_arena_alloc(a, sizeof *f);
		if (!f)
			return l->err = HG_ENOMEM;
		*f = *r->figures;
		c->fig = f; /* hg_store_top gives only figures there are */
	}
	c->row = *r;
	c->row.hash = c->hash;
	c->row.kind = c->kind;
	c->row.title = c->title;
	c->row.key_symbol = c->key_symbol;
	c->row.first_seen = c->first_seen;
	c->row.last_seen = c->last_seen;
	c->row.by_version = dup(a, r->by_version, &l->err);
	c->row.frames = dup(a, r->frames, &l->err);
	c->row.figures = c->fig;
	return l->err;
}

/* A startup or FPS cluster's figures per version (the versions listed). */
static int on_version_figures(void *user, const char *value, const hg_figures *fig)
{
	struct load *l = user;
	struct dg_cluster *c = l->c;
	const char *name = value ? value : "unknown";
	if (!hg_figures_any(fig))
		return 0;
	for (size_t i = 0; i < c->n_versions; i++)
		if (!strcmp(c->versions[i].version, name) && c->versions[i].unknown == !value) {
			hg_figures *f = hg_arena_alloc(l->d->arena, sizeof *f);
			if (!f)
				return l->err = HG_ENOMEM;
			*f = *fig;
			c->versions[i].fig = f;
		}
	return 0;
}

void digest_figures_text(hg_buf *b, const hg_figures *f)
{
	size_t mark = b->len;
	if (f->fps_reports) {
		hg_buf_printf(b, "%.1f fps", f->fps_mean);
		if (f->frozen_high_share >= 0)
			hg_buf_printf(b, ", %.1f%% frozen/high", 100 * f->frozen_high_share);
	}
	if (f->startups || f->cold || f->warm) {
		if (b->len > mark)
			hg_buf_puts(b, "; ");
		if (f->startups)
			hg_buf_printf(b, "total p50 %lld ms, p90 %lld ms; ", (long long)f->total_p50,
				      (long long)f->total_p90);
		hg_buf_printf(b, "cold %lld, warm %lld", (long long)f->cold, (long long)f->warm);
	}
}

void digest_version_figures(hg_buf *b, const hg_figures *f)
{
	if (f->fps_reports) {
		hg_buf_printf(b, "%.1f fps", f->fps_mean);
		if (f->frozen_high_share >= 0)
			hg_buf_printf(b, ", %.1f%% frozen/high", 100 * f->frozen_high_share);
	} else if (f->startups) {
		hg_buf_printf(b, "p50 %lld ms, p90 %lld ms", (long long)f->total_p50,
			      (long long)f->total_p90);
	}
}

void digest_versions(hg_buf *b, const struct dg_cluster *c, digest_text_fn text)
{
	for (size_t i = 0; i < c->n_versions; i++) {
		if (i)
			hg_buf_puts(b, ", ");
		text(b, c->versions[i].version, 40);
		hg_buf_printf(b, ": %" PRId64, c->versions[i].count);
		if (c->versions[i].fig) { /* startup totals, frame rates: per version */
			hg_buf f;
			hg_buf_init(&f);
			digest_version_figures(&f, c->versions[i].fig);
			if (f.len) {
				hg_buf_puts(b, " (");
				text(b, f.data, 200); /* short, plain ASCII */
				hg_buf_putc(b, ')');
			}
			b->failed |= f.failed;
			hg_buf_release(&f);
		}
	}
	if (c->versions_other)
		hg_buf_printf(b, ", other: %" PRId64, c->versions_other);
}

void digest_title_figures(hg_buf *b, const struct dg_cluster *c, bool regressed)
{
	if (regressed && (c->old_fps_reports || c->new_fps_reports)) {
		hg_buf_puts(b, " (");
		digest_fps_change(b, c);
		hg_buf_putc(b, ')');
	} else if (c->fig && c->fig->fps_reports) {
		hg_buf_puts(b, " (");
		digest_version_figures(b, c->fig);
		hg_buf_putc(b, ')');
	}
}

void digest_fps_change(hg_buf *b, const struct dg_cluster *c)
{
	if (!c->old_fps_reports && !c->new_fps_reports)
		return;
	const int64_t n[2] = {c->old_fps_reports, c->new_fps_reports};
	const double fps[2] = {c->old_fps, c->new_fps}, share[2] = {c->old_share, c->new_share};
	for (int k = 0; k < 2; k++) {
		if (k)
			hg_buf_puts(b, " → ");
		if (!n[k]) {
			hg_buf_puts(b, "—");
			continue;
		}
		hg_buf_printf(b, "%.1f fps", fps[k]);
		if (share[k] >= 0)
			hg_buf_printf(b, ", %.1f%% frozen/high", 100 * share[k]);
	}
}

static int on_version(void *user, const char *value, int64_t count)
{
	struct load *l = user;
	struct dg_cluster *c = l->c;
	/* Reports without a version are "unknown", as in hg_store_top: one
	 * key with a version written "unknown". */
	const char *name = value ? value : "unknown";
	for (size_t i = 0; i < c->n_versions; i++)
		if (!strcmp(c->versions[i].version, name) && c->versions[i].unknown == !value) {
			c->versions[i].count += count;
			return 0;
		}
	if (c->n_versions == DIGEST_VERSIONS) {
		c->versions_other += count;
		return 0;
	}
	if ((l->err = reserve(l->d->arena, (void **)&c->versions, c->n_versions, &l->cap_versions,
			      sizeof *c->versions)))
		return l->err;
	struct dg_version *v = &c->versions[c->n_versions++];
	v->version = dup(l->d->arena, name, &l->err);
	v->unknown = !value;
	v->count = count;
	return l->err;
}

/* ---- days (HTML) ---- */

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil): exact for every year, no time zone involved. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int64_t digest_day_number(const char *s)
{
	if (!s)
		return INT64_MIN;
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !(s[i] >= '0' && s[i] <= '9'))
			return INT64_MIN;
	int64_t y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int64_t m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return INT64_MIN;
	return days_from_civil(y, m, d);
}

void digest_day_text(int64_t day, char buf[11])
{
	int64_t z = day + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = yoe + era * 400 + (m <= 2);
	/* By hand: years past 9999 are not dates a report has (their last
	 * four digits are written), and snprintf cannot be shown to fit. */
	unsigned yy = (unsigned)(((y % 10000) + 10000) % 10000);
	const unsigned parts[3] = {yy, (unsigned)m, (unsigned)d}, widths[3] = {4, 2, 2};
	char *p = buf;
	for (int k = 0; k < 3; k++) {
		for (unsigned w = widths[k], v = parts[k]; w > 0; w--, v /= 10)
			p[w - 1] = (char)('0' + v % 10);
		p += widths[k];
		*p++ = k < 2 ? '-' : '\0';
	}
}

static int on_day(void *user, const char *value, int64_t count)
{
	struct load *l = user;
	struct dg_cluster *c = l->c;
	int64_t day = digest_day_number(value);
	if (day == INT64_MIN) {
		c->untimed += count;
		return 0;
	}
	if ((l->err = reserve(l->d->arena, (void **)&c->days, c->n_days, &l->cap_days,
			      sizeof *c->days)))
		return l->err;
	c->days[c->n_days++] = (struct dg_day){day, count};
	return 0;
}

/* The days and the flame graph of a cluster, for the HTML digest. */
static int load_pictures(struct load *l, hg_store *store, const char *hash)
{
	struct dg_cluster *c = l->c;
	int err = hg_store_cluster_counts(store, hash, "day", on_day, l);
	if (err || l->err)
		return l->err ? l->err : err;
	hg_flame_tree_builder *b = hg_flame_tree_builder_create(l->d->arena);
	if (!b)
		return HG_ENOMEM;
	err = hg_store_cluster_tree(store, hash, hg_flame_tree_builder_add, b);
	if (!err)
		err = hg_flame_tree_builder_finish(b, c->count, c->title, &c->flame);
	return err;
}

/* Trees can be big; the path needs only the key-path nodes, and a few
 * thousand of them are more than any real path. */
#define MAX_KEY_NODES 4096

static int on_node(void *user, const hg_tree_row *n)
{
	struct load *l = user;
	if (!n->on_key_path || l->n_nodes == MAX_KEY_NODES)
		return 0;
	if ((l->err = reserve(l->d->arena, (void **)&l->nodes, l->n_nodes, &l->cap_nodes,
			      sizeof *l->nodes)))
		return l->err;
	struct key_node *k = &l->nodes[l->n_nodes++];
	*k = (struct key_node){n->id, n->parent, n->reports, n->total_cost, NULL};
	k->symbol = dup(l->d->arena, n->symbol ? n->symbol : "", &l->err);
	return l->err;
}

/* The key-path child of parent (0: a root) that most reports pass
 * through, the oldest on a tie; -1 when none.  Nodes come in id order, and
 * a child's id is larger than its parent's. */
static long heaviest_child(const struct load *l, size_t from, int64_t parent)
{
	long best = -1;
	for (size_t i = from; i < l->n_nodes; i++)
		if (l->nodes[i].parent == parent &&
		    (best < 0 || l->nodes[i].reports > l->nodes[best].reports))
			best = (long)i;
	return best;
}

/* The StackKey path from the root down, following the heaviest branch
 * where reports disagree; kept: its last DIGEST_PATH_TAIL nodes. */
static int build_path(struct load *l)
{
	struct dg_cluster *c = l->c;
	size_t *chain = l->n_nodes ? calloc(l->n_nodes, sizeof *chain) : NULL;
	if (l->n_nodes && !chain)
		return HG_ENOMEM;
	size_t depth = 0;
	for (long i = heaviest_child(l, 0, 0); i >= 0 && depth < l->n_nodes;
	     i = heaviest_child(l, (size_t)i + 1, l->nodes[i].id))
		chain[depth++] = (size_t)i;
	c->path_depth = (int64_t)depth;
	c->n_path = depth < DIGEST_PATH_TAIL ? depth : DIGEST_PATH_TAIL;
	c->path = c->n_path ? hg_arena_calloc(l->d->arena, c->n_path, sizeof *c->path) : NULL;
	if (c->n_path && !c->path) {
		free(chain);
		return HG_ENOMEM;
	}
	for (size_t k = 0; k < c->n_path; k++) {
		size_t at = depth - c->n_path + k;
		const struct key_node *n = &l->nodes[chain[at]];
		c->path[k] = (struct dg_node){n->symbol, (int64_t)at, n->reports, n->total};
	}
	c->key_at_end = c->n_path && c->key_symbol &&
			strcmp(c->path[c->n_path - 1].symbol, c->key_symbol) == 0;
	free(chain);
	return 0;
}

static int load_cluster(struct digest *d, hg_store *store, const char *hash, struct dg_cluster *c)
{
	struct load l = {.d = d, .c = c};
	hg_top_query all = {.sessions = d->run->sessions}; /* its rate, all time */
	int err = hg_store_cluster_in(store, hash, &all, on_row, &l);
	if (!err && !c->hash) /* gone since it was listed: cannot happen in one read */
		err = HG_EINVAL;
	if (!err)
		err = hg_store_cluster_count_after(store, hash, d->run->first_report_id, &c->run_count);
	if (!err)
		err = hg_store_cluster_counts(store, hash, "version", on_version, &l);
	if (!err && !l.err && c->fig)
		err = hg_store_cluster_figures(store, hash, "version", on_version_figures, &l);
	if (!err)
		err = hg_store_cluster_tree(store, hash, on_node, &l);
	if (!err)
		err = build_path(&l);
	if (!err && !l.err && d->pictures)
		err = load_pictures(&l, store, hash);
	if (!err && !l.err && (err = hg_store_cluster_page(store, hash, PAGE_VALUES, &c->page)) == 0)
		c->has_page = true;
	return l.err ? l.err : err;
}

/* ---- the lists ---- */

struct pending {
	struct digest *d;
	struct dg_list *list;
	size_t cap;
	size_t max;
	int err;
};

/* Adds an item to a list (counted in total even beyond max); NULL when
 * past max or on ENOMEM (err set). */
static struct dg_cluster *list_add(struct pending *p)
{
	p->list->total++;
	if (p->list->n >= p->max)
		return NULL;
	if ((p->err = reserve(p->d->arena, (void **)&p->list->items, p->list->n, &p->cap,
			      sizeof *p->list->items)))
		return NULL;
	return &p->list->items[p->list->n++];
}

static int on_top(void *user, const hg_cluster_row *r)
{
	struct pending *p = user;
	struct dg_cluster *c = list_add(p);
	if (c)
		c->hash = dup(p->d->arena, r->hash, &p->err);
	return p->err;
}

struct diff_lists {
	struct pending fresh, regressed;
};

static int on_diff(void *user, const hg_diff_row *r)
{
	struct diff_lists *dl = user;
	struct pending *p = !strcmp(r->status, "new") ? &dl->fresh
			  : !strcmp(r->status, "regressed") ? &dl->regressed : NULL;
	if (!p)
		return 0;
	struct dg_cluster *c = list_add(p);
	if (c) {
		c->hash = dup(p->d->arena, r->hash, &p->err);
		c->old_count = r->old_count;
		c->new_count = r->new_count;
		c->old_p90 = r->old_p90;
		c->new_p90 = r->new_p90;
		c->cost_unknown = r->cost_unknown;
		c->old_fps_reports = r->old_fps_reports;
		c->new_fps_reports = r->new_fps_reports;
		c->old_fps = r->old_fps;
		c->new_fps = r->new_fps;
		c->old_share = r->old_share;
		c->new_share = r->new_share;
	}
	return p->err;
}

/* Loads every listed cluster's details (after the listing query is done:
 * the cluster query shares its statement with hg_store_top). */
static int load_list(struct digest *d, hg_store *store, struct dg_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		struct dg_cluster *c = &list->items[i];
		struct dg_cluster keep = *c; /* what the listing said: the diff's figures */
		memset(c, 0, sizeof *c);
		int err = load_cluster(d, store, keep.hash, c);
		if (err)
			return err;
		c->old_count = keep.old_count;
		c->new_count = keep.new_count;
		c->old_p90 = keep.old_p90;
		c->new_p90 = keep.new_p90;
		c->cost_unknown = keep.cost_unknown;
		c->old_fps_reports = keep.old_fps_reports;
		c->new_fps_reports = keep.new_fps_reports;
		c->old_fps = keep.old_fps;
		c->new_fps = keep.new_fps;
		c->old_share = keep.old_share;
		c->new_share = keep.new_share;
	}
	return 0;
}

struct kinds {
	struct digest *d;
	size_t cap;
	int err;
};

static int on_kind(void *user, const char *kind, int64_t all, int64_t after)
{
	struct kinds *k = user;
	struct digest *d = k->d;
	if ((k->err = reserve(d->arena, (void **)&d->kinds, d->n_kinds, &k->cap, sizeof *d->kinds)))
		return k->err;
	d->kinds[d->n_kinds++] = (struct dg_kind){dup(d->arena, kind ? kind : "", &k->err), all, after};
	d->all_total += all;
	d->run_total += after;
	return k->err;
}

struct others {
	struct digest *d;
	size_t cap;
	int err;
};

static int on_failed(void *user, const hg_object_row *o)
{
	struct others *x = user;
	struct digest *d = x->d;
	if ((size_t)d->failed_total++ >= d->list_max)
		return 0;
	if ((x->err = reserve(d->arena, (void **)&d->failed, d->n_failed, &x->cap, sizeof *d->failed)))
		return x->err;
	hg_arena *a = d->arena;
	d->failed[d->n_failed++] = (struct dg_object){
		dup(a, o->source, &x->err), dup(a, o->key, &x->err),
		dup(a, o->error ? o->error : "", &x->err), dup(a, o->at, &x->err), o->attempts};
	return x->err;
}

/* Whether a rejected input's time (the store writes whole seconds) is at
 * or after the run's start: compared to the second, so that an input
 * rejected in the run's first second counts. */
static bool since_start(const hg_digest_run *run, const char *when)
{
	if (!run->started)
		return true;
	return when && strncmp(when, run->started, 19) >= 0;
}

static int on_rejected(void *user, const hg_rejected_row *r)
{
	struct others *x = user;
	struct digest *d = x->d;
	if (!since_start(d->run, r->when) || (size_t)d->rejected_total++ >= d->list_max)
		return 0;
	if ((x->err = reserve(d->arena, (void **)&d->rejected, d->n_rejected, &x->cap,
			      sizeof *d->rejected)))
		return x->err;
	hg_arena *a = d->arena;
	d->rejected[d->n_rejected++] = (struct dg_rejected){
		dup(a, r->source, &x->err), dup(a, r->reason, &x->err), dup(a, r->when, &x->err),
		r->line};
	return x->err;
}

/* ---- gathering ---- */

static int gather(struct digest *d, hg_store *store)
{
	const hg_digest_run *run = d->run;
	struct kinds k = {.d = d};
	int err = hg_store_kind_totals(store, run->first_report_id, on_kind, &k);
	if ((err = k.err ? k.err : err))
		return err;

	/* The top list is --top long; Markdown shows its first rows. */
	size_t top_max = d->list_max < (size_t)d->top_limit ? d->list_max : (size_t)d->top_limit;
	struct pending top = {.d = d, .list = &d->top, .max = top_max};
	hg_top_query tq = {.sort = "count", .limit = d->top_limit};
	err = hg_store_top(store, &tq, on_top, &top);
	if ((err = top.err ? top.err : err) || (err = load_list(d, store, &d->top)))
		return err;

	struct diff_lists dl = {{.d = d, .list = &d->fresh, .max = d->list_max},
				{.d = d, .list = &d->regressed, .max = d->list_max}};
	hg_diff_query q = {.by_report_id = true, .after_report_id = run->first_report_id,
			   .compare_after_id = run->compare_after_id, .min_count = run->min_count,
			   .min_rise = run->min_rise, .threshold = run->threshold};
	err = hg_store_diff(store, &q, on_diff, &dl, &d->diff);
	err = dl.fresh.err ? dl.fresh.err : dl.regressed.err ? dl.regressed.err : err;
	if (err || (err = load_list(d, store, &d->fresh)) ||
	    (err = load_list(d, store, &d->regressed)))
		return err;

	if ((err = digest_gather_trends(d, store)) != 0 ||
	    (err = digest_gather_coverage(d, store)) != 0)
		return err;
	struct others failed = {.d = d}, rejected = {.d = d};
	err = hg_store_objects(store, NULL, "failed", on_failed, &failed);
	if ((err = failed.err ? failed.err : err))
		return err;
	err = hg_store_rejected(store, on_rejected, &rejected);
	return rejected.err ? rejected.err : err;
}

static void release_pages(struct dg_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].has_page)
			hg_cluster_page_release(&l->items[i].page);
}

const char *const digest_dim_labels[HG_PAGE_DIMS] = {
	"version", "OS", "device model", "device class", "scene", "foreground", "ANR type",
};

void digest_breakdown(hg_buf *b, const hg_breakdown *d, digest_text_fn text)
{
	int64_t listed = 0;
	for (size_t i = 0; i < d->n && i < DIGEST_PAGE_VALUES; i++) {
		const hg_breakdown_value *v = &d->values[i];
		if (i)
			hg_buf_puts(b, ", ");
		text(b, v->value ? v->value : "unknown", 80);
		hg_buf_printf(b, " %.0f%%", d->total ? 100.0 * (double)v->count / (double)d->total : 0);
		listed += v->count;
	}
	if (listed < d->total)
		hg_buf_printf(b, ", other %.0f%%", 100.0 * (double)(d->total - listed) / (double)d->total);
}

int hg_digest_write(hg_store *store, const hg_digest_run *run, enum hg_digest_format fmt,
		    hg_buf *out, int64_t *new_clusters)
{
	if (new_clusters)
		*new_clusters = 0;
	if (!store || !run || !out || run->first_report_id < 0 ||
	    !(run->threshold >= 0 && run->threshold <= 1e9) ||
	    !(run->rate_threshold >= 0 && run->rate_threshold <= 1e9) ||
	    !(run->min_rise >= 0 && run->min_rise <= 1e9) ||
	    (fmt != HG_DIGEST_MARKDOWN && fmt != HG_DIGEST_JSON && fmt != HG_DIGEST_HTML))
		return HG_EINVAL;
	struct digest d = {.run = run, .top_limit = run->top > 0 ? run->top : 10,
			   .limit = run->limit > 0 ? run->limit : DIGEST_LIMIT};
	d.list_max = fmt == HG_DIGEST_JSON ? HG_DIGEST_JSON_MAX : (size_t)d.limit;
	d.pictures = fmt == HG_DIGEST_HTML;
	if (!(d.arena = hg_arena_create()))
		return HG_ENOMEM;
	int err = gather(&d, store);
	if (!err) {
		if (fmt == HG_DIGEST_MARKDOWN)
			digest_markdown(&d, out);
		else if (fmt == HG_DIGEST_JSON)
			digest_json(&d, out);
		else
			digest_html(&d, out);
		if (out->failed)
			err = HG_ENOMEM;
	}
	if (!err && new_clusters)
		*new_clusters = d.fresh.total;
	release_pages(&d.top);
	release_pages(&d.fresh);
	release_pages(&d.regressed);
	hg_arena_destroy(d.arena);
	return err;
}
