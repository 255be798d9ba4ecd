/* The table of output formats (hangar/render.h) and the one dispatch to
 * their renderers: a report's tree, JSON, Matrix fields or flame graph,
 * a cluster's flame graph.  Adding a format is one row and its writer.
 * The module's entry: render_tree.c (the tree for a person),
 * render_json.c, render_matrix.c, render_threads*.c (thread dumps),
 * render_samples.c, render_images.c, render_crash.c, render_frame.c (one
 * frame), render_width.c (fitting to a width), render_fold.c (recursion).
 * Uses: cluster, core, flame, ingest, report, stack, store. */
#include <string.h>

#include "hangar/flame.h"
#include "render_internal.h"

const hg_output_format hg_output_formats[] = {
	/* name, id, renders, flame, single, timed, text */
	{"tree", HG_OUT_TREE, HG_RENDERS_REPORT, false, false, false, true},
	{"table", HG_OUT_TABLE, HG_RENDERS_CLUSTER, false, false, false, true},
	{"json", HG_OUT_JSON, HG_RENDERS_REPORT | HG_RENDERS_CLUSTER, false, false, false, false},
	{"csv", HG_OUT_CSV, HG_RENDERS_CLUSTER, false, false, false, false},
	{"matrix", HG_OUT_MATRIX, HG_RENDERS_REPORT, false, false, false, false},
	{"folded", HG_OUT_FOLDED, HG_RENDERS_REPORT | HG_RENDERS_CLUSTER, true, false, false, false},
	{"speedscope", HG_OUT_SPEEDSCOPE, HG_RENDERS_REPORT | HG_RENDERS_CLUSTER, true, true, true,
	 false},
	{"chrome", HG_OUT_CHROME, HG_RENDERS_REPORT | HG_RENDERS_CLUSTER, true, true, true, false},
	{"svg", HG_OUT_SVG, HG_RENDERS_REPORT | HG_RENDERS_CLUSTER, true, true, false, false},
};

const size_t hg_n_output_formats = sizeof hg_output_formats / sizeof *hg_output_formats;

const hg_output_format *hg_output_format_find(const char *name, unsigned renders)
{
	for (size_t i = 0; name && i < hg_n_output_formats; i++)
		if ((hg_output_formats[i].renders & renders) && !strcmp(hg_output_formats[i].name, name))
			return &hg_output_formats[i];
	return NULL;
}

void hg_output_format_names(hg_buf *out, unsigned renders)
{
	size_t n = 0, total = 0;
	for (size_t i = 0; i < hg_n_output_formats; i++)
		total += (hg_output_formats[i].renders & renders) != 0;
	for (size_t i = 0; i < hg_n_output_formats; i++) {
		if (!(hg_output_formats[i].renders & renders))
			continue;
		if (n)
			hg_buf_puts(out, n + 1 == total ? " or " : ", ");
		hg_buf_puts(out, hg_output_formats[i].name);
		n++;
	}
}

void hg_render_flame(hg_buf *out, const hg_flame *fl, const hg_output_format *f)
{
	switch (f->id) {
	case HG_OUT_FOLDED: hg_flame_write_folded(fl, out); break;
	case HG_OUT_SPEEDSCOPE: hg_flame_write_speedscope(fl, out); break;
	case HG_OUT_CHROME: hg_flame_write_chrome(fl, out); break;
	case HG_OUT_SVG: hg_flame_write_svg(fl, NULL, out); break;
	default: break; /* not a flame format */
	}
}

int render_flame(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
		 const hg_output_format *f, size_t max_bytes)
{
	/* The flame's nodes go with this arena, not the report's: the report
	 * is freed after printing anyway, but a folded bucket is many. */
	hg_arena *arena = hg_arena_create();
	if (!arena)
		return HG_ENOMEM;
	hg_flame fl;
	int rc = hg_flame_from_report(rep, opts->no_trim, arena, &fl);
	if (rc == 0 && f->id == HG_OUT_FOLDED && hg_flame_folded_size(&fl) > max_bytes)
		rc = HG_ELIMIT;
	if (rc == 0)
		hg_render_flame(out, &fl, f);
	hg_arena_destroy(arena);
	return rc;
}

int hg_render_report(hg_buf *out, const hg_report *rep, const hg_output_format *f,
		     const hg_render_opts *opts, size_t max_bytes)
{
	switch (f->id) {
	case HG_OUT_TREE: render_tree(out, rep, opts); return 0;
	case HG_OUT_JSON: render_json(out, rep, opts); return 0;
	case HG_OUT_MATRIX: render_matrix(out, rep, opts); return 0;
	default: return f->flame ? render_flame(out, rep, opts, f, max_bytes) : HG_EINVAL;
	}
}

void hg_render_report_error(hg_buf *out, const hg_report *rep)
{
	render_error_json(out, rep);
}
