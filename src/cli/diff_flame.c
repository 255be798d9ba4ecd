/* hangar diff --flame: one cluster's differential flame graph.
 *
 * The store keeps one merged tree per cluster, over all its reports, so
 * the tree of one version or one time window is not stored anywhere.  It
 * is rebuilt here from the reports themselves: each of the cluster's
 * stored reports in either set (hg_store_cluster_items, one pass over the
 * cluster's index) is read again from its stored text and
 * named as ingest names it (hg_reread_report: per-version mappings), its
 * flame built (hg_flame_from_report, trimmed as the store's tree is), and
 * each set's flames merged path by path.  This costs a parse per report
 * (measured in README.md, "Flame graphs"), but needs no second copy of
 * every tree in the store, and a report read with a mapping that arrived
 * later is named with it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_flame.h"
#include "hangar/flame.h"

#define NOT_READ_LISTED 10

/* 0 the old set, 1 the new one, -1 neither (as hg_store_diff splits). */
static int set_of(const struct diff_flame_opts *o, const char *version, const char *time)
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

struct run {
	hg_ctx ctx;
	hg_store *store;
	hg_namer *names;
	hg_reread reread;
	char hash[33];
	char *title;
	const struct diff_flame_opts *o;
	hg_flame_merger *m[2];  /* the old set's flames, the new set's */
	int64_t count[2];       /* reports drawn per set */
	size_t not_read, nothing;
};

static void not_read(void *user, const hg_regroup_item *item, const char *why)
{
	struct run *run = user;
	if (run->not_read++ < NOT_READ_LISTED)
		cli_fprintf(stderr, "%s:%ld: error: stored report %" PRId64 ": not read again: %s\n",
			item->source ? item->source : "?", item->line, item->id, why ? why : "unknown");
}

/* One stored report of the cluster, read again into its set's merger (an
 * hg_item_fn). */
static int add_report(void *user, const hg_regroup_item *item, const char *time)
{
	struct run *run = user;
	int set = set_of(run->o, item->version, time);
	if (set < 0)
		return 0;
	hg_report *rep = NULL;
	hg_signature sig;
	int rc = hg_reread_report(&run->reread, item, &rep, &sig);
	if (rc != 0 || !rep)
		return rc == HG_ENOMEM ? rc : 0;
	hg_arena *arena = hg_arena_create();
	hg_flame f;
	rc = arena ? hg_flame_from_report(rep, false, arena, &f) : HG_ENOMEM;
	if (rc == HG_EINVAL) {
		run->nothing++;
		rc = 0;
	} else if (rc == 0) {
		rc = hg_flame_merger_add(run->m[set], &f);
		run->count[set] += rc == 0;
	}
	hg_arena_destroy(arena);
	hg_report_destroy(rep);
	return rc;
}

static int on_cluster(void *user, const hg_cluster_row *c)
{
	struct run *run = user;
	free(run->title);
	run->title = c->title ? strdup(c->title) : NULL;
	return 0;
}

static int write_out(const char *path, const hg_buf *svg)
{
	bool to_stdout = !path || !strcmp(path, "-");
	FILE *fp = to_stdout ? stdout : fopen(path, "wb");
	if (!fp) {
		fprintf(stderr, "hangar diff: %s: cannot write: %s\n", path, strerror(errno));
		return EXIT_SOME_FAILED;
	}
	bool ok = fwrite(svg->data, 1, svg->len, fp) == svg->len;
	if (to_stdout ? fflush(fp) != 0 : fclose(fp) != 0)
		ok = false;
	if (!ok) {
		fprintf(stderr, "hangar diff: %s: cannot write\n", to_stdout ? "stdout" : path);
		return EXIT_SOME_FAILED;
	}
	return EXIT_FINE;
}

/* "1.0.0 → 1.1.0" or "before T → from T (to U)", for the title and stderr. */
static void describe_sets(const struct diff_flame_opts *o, hg_buf *b)
{
	if (o->version)
		hg_buf_printf(b, "%s \xe2\x86\x92 %s", o->baseline_version, o->version);
	else if (o->until)
		hg_buf_printf(b, "before %s \xe2\x86\x92 %s to %s", o->since, o->since, o->until);
	else
		hg_buf_printf(b, "before %s \xe2\x86\x92 from %s", o->since, o->since);
}

/* Both sets' flames, then the diff and its SVG. */
static int draw(struct run *run, const struct diff_flame_opts *o)
{
	hg_arena *arena = hg_arena_create();
	hg_flame_merger **m = run->m;
	m[0] = arena ? hg_flame_merger_create(arena) : NULL;
	m[1] = arena ? hg_flame_merger_create(arena) : NULL;
	run->o = o;
	int rc = m[0] && m[1] ? 0 : HG_ENOMEM;
	if (rc == 0)
		rc = hg_store_cluster_items(run->store, run->hash, add_report, run);
	hg_buf title, svg;
	hg_buf_init(&title);
	hg_buf_init(&svg);
	hg_buf_printf(&title, "cluster %.12s", run->hash);
	if (run->title)
		hg_buf_printf(&title, " (%s)", run->title);
	hg_buf_puts(&title, ": ");
	describe_sets(o, &title);
	hg_flame base, after, diff;
	if (rc == 0)
		rc = hg_flame_merger_finish(m[0], NULL, &base);
	if (rc == 0)
		rc = hg_flame_merger_finish(m[1], title.failed ? NULL : title.data, &after);
	int status = EXIT_FINE;
	if (rc == 0 && (!run->count[0] || !run->count[1])) {
		hg_buf sets;
		hg_buf_init(&sets);
		describe_sets(o, &sets);
		fprintf(stderr, "hangar diff: cluster %.12s: no report to draw in the %s set (%s): "
			"%" PRId64 " old, %" PRId64 " new\n", run->hash, run->count[0] ? "new" : "old",
			sets.failed ? "" : sets.data, run->count[0], run->count[1]);
		hg_buf_release(&sets);
		status = EXIT_SOME_FAILED;
	} else if (rc == 0 && (rc = hg_flame_diff(&base, &after, arena, &diff)) == 0) {
		hg_flame_svg_opts so = {.width = o->width};
		hg_flame_write_svg(&diff, &so, &svg);
		rc = svg.failed ? HG_ENOMEM : 0;
		if (rc == 0)
			status = write_out(o->output, &svg);
		if (status == EXIT_FINE)
			fprintf(stderr, "hangar diff: cluster %.12s: %" PRId64 " old and %" PRId64
				" new reports drawn; flame graph in %s\n", run->hash, run->count[0],
				run->count[1], o->output && strcmp(o->output, "-") ? o->output : "stdout");
	}
	if (rc != 0) {
		fprintf(stderr, "hangar diff: cluster %.12s: %s\n", run->hash, hg_strerror(rc));
		status = EXIT_SOME_FAILED;
	}
	hg_buf_release(&title);
	hg_buf_release(&svg);
	hg_flame_merger_destroy(m[0]);
	hg_flame_merger_destroy(m[1]);
	hg_arena_destroy(arena);
	return status;
}

static int resolve(struct run *run, const char *prefix)
{
	int rc = hg_store_resolve(run->store, prefix, run->hash);
	if (rc == HG_EINVAL)
		fprintf(stderr, "hangar diff: no cluster '%s'\n", prefix);
	else if (rc == HG_EPARSE)
		fprintf(stderr, "hangar diff: '%s' names more than one cluster; give more of the hash\n",
			prefix);
	else if (rc != 0)
		return cli_store_failed("diff", rc);
	if (rc == 0 && (rc = hg_store_cluster(run->store, run->hash, on_cluster, run)) != 0)
		return cli_store_failed("diff", rc);
	return rc == 0 ? EXIT_FINE : EXIT_SOME_FAILED;
}

int diff_flame_run(const struct diff_flame_opts *o)
{
	struct run run = {0};
	hg_ctx_init(&run.ctx);
	run.ctx.diag = cli_print_diag;
	if (!cli_namer_create(&run.ctx, "diff", o->mapping, o->proguard, o->n_proguard,
			      o->mapping_dir, NULL, 0, &run.names))
		return EXIT_SOME_FAILED;
	run.store = open_store_in(&run.ctx, store_path(o->db), HG_STORE_READ_ONLY);
	if (!run.store) {
		hg_namer_destroy(run.names);
		return EXIT_SOME_FAILED;
	}
	struct diff_flame_opts w = *o;
	char window[2][32];
	int status = o->version ? EXIT_FINE
		: cli_store_window(run.store, "diff", &w.since, &w.until, window);
	if (status == EXIT_FINE)
		status = resolve(&run, o->cluster);
	if (status == EXIT_FINE) {
		run.reread = (hg_reread){&run.ctx, NULL, run.names, NULL, HG_FORMAT_AUTO, 0, not_read,
					 &run};
		status = draw(&run, &w);
		if (!w.version)
			cli_note_untimed(run.store, "diff", w.since, w.until);
	}
	if (run.not_read || run.nothing) {
		fprintf(stderr, "hangar diff: cluster %.12s: %zu stored report%s not read again, %zu "
			"with nothing to draw (left out of the picture)\n", run.hash, run.not_read,
			run.not_read == 1 ? "" : "s", run.nothing);
		if (status == EXIT_FINE)
			status = EXIT_SOME_FAILED;
	}
	free(run.title);
	hg_store_close(run.store);
	hg_namer_destroy(run.names);
	return status;
}
