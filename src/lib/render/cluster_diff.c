/* One cluster's differential flame graph between two sets of its reports
 * (hangar diff --flame).
 *
 * The store keeps one merged tree per cluster, over all its reports, so
 * the tree of one version or one time window is not stored anywhere.  It
 * is rebuilt here from the reports themselves: each of the cluster's
 * stored reports in either set (hg_store_cluster_items, one pass over the
 * cluster's index) is read again from its stored text and named as ingest
 * names it (hg_reread_report: per-version mappings), its flame built
 * (hg_flame_from_report, trimmed as the store's tree is), and each set's
 * flames merged path by path.  This costs a parse per report (measured in
 * README.md, "Flame graphs"), but needs no second copy of every tree in
 * the store, and a report read with a mapping that arrived later is named
 * with it. */
#include <string.h>

#include "hangar/flame.h"
#include "hangar/ingest.h"
#include "hangar/render.h"

struct run {
	const hg_cluster_sets *sets;
	hg_reread *reread;
	hg_flame_merger *m[2];  /* the old set's flames, the new set's */
	hg_cluster_diff_counts *counts;
};

/* 0 the old set, 1 the new one, -1 neither (as hg_store_diff splits). */
static int set_of(const hg_cluster_sets *o, const char *version, const char *time)
{
	if (o->version) {
		if (version && !strcmp(version, o->version))
			return 1;
		return version && !strcmp(version, o->baseline_version) ? 0 : -1;
	}
	if (!time)
		return -1;
	if (strcmp(time, o->since) < 0)
		return 0;
	return !o->until || strcmp(time, o->until) < 0 ? 1 : -1;
}

/* One stored report of the cluster, read again into its set's merger (an
 * hg_item_fn). */
static int add_report(void *user, const hg_regroup_item *item, const char *time)
{
	struct run *run = user;
	int set = set_of(run->sets, item->version, time);
	if (set < 0)
		return 0;
	hg_report *rep = NULL;
	hg_signature sig;
	int rc = hg_reread_report(run->reread, item, &rep, &sig);
	if (rc != 0 || !rep)
		return rc == HG_ENOMEM ? rc : 0;
	hg_arena *arena = hg_arena_create();
	hg_flame f;
	rc = arena ? hg_flame_from_report(rep, false, arena, &f) : HG_ENOMEM;
	if (rc == HG_EINVAL) {
		run->counts->nothing++;
		rc = 0;
	} else if (rc == 0) {
		rc = hg_flame_merger_add(run->m[set], &f);
		run->counts->drawn[set] += rc == 0;
	}
	hg_arena_destroy(arena);
	hg_report_destroy(rep);
	return rc;
}

void hg_cluster_sets_text(hg_buf *b, const hg_cluster_sets *o)
{
	if (o->version)
		hg_buf_printf(b, "%s \xe2\x86\x92 %s", o->baseline_version, o->version);
	else if (o->until)
		hg_buf_printf(b, "before %s \xe2\x86\x92 %s to %s", o->since, o->since, o->until);
	else
		hg_buf_printf(b, "before %s \xe2\x86\x92 from %s", o->since, o->since);
}

int hg_render_cluster_flame_diff(hg_buf *svg, hg_store *store, const char *hash, hg_reread *reread,
				 const hg_cluster_sets *sets, const char *title,
				 const hg_flame_svg_opts *so, hg_cluster_diff_counts *counts)
{
	memset(counts, 0, sizeof *counts);
	hg_arena *arena = hg_arena_create();
	struct run run = {sets, reread, {NULL, NULL}, counts};
	run.m[0] = arena ? hg_flame_merger_create(arena) : NULL;
	run.m[1] = arena ? hg_flame_merger_create(arena) : NULL;
	int rc = run.m[0] && run.m[1] ? 0 : HG_ENOMEM;
	if (rc == 0)
		rc = hg_store_cluster_items(store, hash, add_report, &run);
	hg_flame base, after, diff;
	if (rc == 0)
		rc = hg_flame_merger_finish(run.m[0], NULL, &base);
	if (rc == 0)
		rc = hg_flame_merger_finish(run.m[1], title, &after);
	if (rc == 0 && (!counts->drawn[0] || !counts->drawn[1]))
		rc = HG_EINVAL;
	if (rc == 0)
		rc = hg_flame_diff(&base, &after, arena, &diff);
	if (rc == 0) {
		hg_flame_write_svg(&diff, so, svg);
		rc = svg->failed ? HG_ENOMEM : 0;
	}
	hg_flame_merger_destroy(run.m[0]);
	hg_flame_merger_destroy(run.m[1]);
	hg_arena_destroy(arena);
	return rc;
}
