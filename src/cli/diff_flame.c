/* hangar diff --flame: one cluster's differential flame graph, built and
 * drawn by the library (hg_render_cluster_flame_diff): here, the store,
 * the mappings, where the SVG goes and what is said on stderr. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_flame.h"
#include "hangar/flame.h"

#define NOT_READ_LISTED 10

struct run {
	hg_ctx ctx;
	hg_store *store;
	hg_namer *names;
	hg_reread reread;
	char hash[33];
	char *title;
	size_t not_read;
	hg_cluster_diff_counts counts;
};

static void not_read(void *user, const hg_regroup_item *item, const char *why)
{
	struct run *run = user;
	if (run->not_read++ < NOT_READ_LISTED)
		cli_fprintf(stderr, "%s:%ld: error: stored report %" PRId64 ": not read again: %s\n",
			item->source ? item->source : "?", item->line, item->id, why ? why : "unknown");
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
/* Both sets' flames, then the diff and its SVG. */
static int draw(struct run *run, const struct diff_flame_opts *o)
{
	hg_cluster_sets sets = {o->baseline_version, o->version, o->since, o->until};
	hg_buf title, svg;
	hg_buf_init(&title);
	hg_buf_init(&svg);
	hg_buf_printf(&title, "cluster %.12s", run->hash);
	if (run->title)
		hg_buf_printf(&title, " (%s)", run->title);
	hg_buf_puts(&title, ": ");
	hg_cluster_sets_text(&title, &sets);
	hg_flame_svg_opts so = {.width = o->width};
	const int64_t *n = run->counts.drawn;
	int rc = hg_render_cluster_flame_diff(&svg, run->store, run->hash, &run->reread, &sets,
					      title.failed ? NULL : title.data, &so, &run->counts);
	int status = EXIT_FINE;
	if (rc == HG_EINVAL) {
		hg_buf_reset(&title);
		hg_cluster_sets_text(&title, &sets);
		fprintf(stderr, "hangar diff: cluster %.12s: no report to draw in the %s set (%s): "
			"%" PRId64 " old, %" PRId64 " new\n", run->hash, n[0] ? "new" : "old",
			title.failed ? "" : title.data, n[0], n[1]);
		status = EXIT_SOME_FAILED;
	} else if (rc == 0) {
		status = write_out(o->output, &svg);
		if (status == EXIT_FINE)
			fprintf(stderr, "hangar diff: cluster %.12s: %" PRId64 " old and %" PRId64
				" new reports drawn; flame graph in %s\n", run->hash, n[0], n[1],
				o->output && strcmp(o->output, "-") ? o->output : "stdout");
	} else {
		fprintf(stderr, "hangar diff: cluster %.12s: %s\n", run->hash, hg_strerror(rc));
		status = EXIT_SOME_FAILED;
	}
	hg_buf_release(&title);
	hg_buf_release(&svg);
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
	if (run.not_read || run.counts.nothing) {
		fprintf(stderr, "hangar diff: cluster %.12s: %zu stored report%s not read again, %zu "
			"with nothing to draw (left out of the picture)\n", run.hash, run.not_read,
			run.not_read == 1 ? "" : "s", run.counts.nothing);
		if (status == EXIT_FINE)
			status = EXIT_SOME_FAILED;
	}
	free(run.title);
	hg_store_close(run.store);
	hg_namer_destroy(run.names);
	return status;
}
