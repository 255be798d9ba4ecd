/* Flame graph exports: the formats' names, the one dispatch to their
 * writers, and a report's flame. */
#include <string.h>

#include "hangar/flame.h"
#include "render.h"

static void write_folded(const hg_flame *f, hg_buf *out) { hg_flame_write_folded(f, out); }
static void write_speedscope(const hg_flame *f, hg_buf *out) { hg_flame_write_speedscope(f, out); }
static void write_chrome(const hg_flame *f, hg_buf *out) { hg_flame_write_chrome(f, out); }
static void write_svg(const hg_flame *f, hg_buf *out) { hg_flame_write_svg(f, NULL, out); }

/* One row per format: adding a format is one row (and its writer). */
static const struct flame_format {
	const char *name;
	enum output_format format;
	void (*write)(const hg_flame *f, hg_buf *out);
	bool single; /* one flame per file */
	bool timed;  /* draws the items' begin times */
} flame_formats[] = {
	{"folded", FORMAT_FOLDED, write_folded, false, false},
	{"speedscope", FORMAT_SPEEDSCOPE, write_speedscope, true, true},
	{"chrome", FORMAT_CHROME, write_chrome, true, true},
	{"svg", FORMAT_SVG, write_svg, true, false},
};

#define N_FORMATS (sizeof flame_formats / sizeof *flame_formats)

static const struct flame_format *find(enum output_format format)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (flame_formats[i].format == format)
			return &flame_formats[i];
	return NULL;
}

bool flame_format_from_name(const char *name, enum output_format *out)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (!strcmp(flame_formats[i].name, name)) {
			*out = flame_formats[i].format;
			return true;
		}
	return false;
}

bool flame_format_single(enum output_format format)
{
	const struct flame_format *ff = find(format);
	return ff && ff->single;
}

bool flame_format_timed(enum output_format format)
{
	const struct flame_format *ff = find(format);
	return ff && ff->timed;
}

void flame_write(hg_buf *out, const hg_flame *f, enum output_format format)
{
	const struct flame_format *ff = find(format);
	if (ff)
		ff->write(f, out);
}

int render_flame(hg_buf *out, const hg_report *rep, const struct render_opts *opts,
		 enum output_format format, size_t max_bytes)
{
	/* The flame's nodes go with this arena, not the report's: the report
	 * is freed after printing anyway, but a folded bucket is many. */
	hg_arena *arena = hg_arena_create();
	if (!arena)
		return HG_ENOMEM;
	hg_flame f;
	int rc = hg_flame_from_report(rep, opts->no_trim, arena, &f);
	if (rc == 0 && format == FORMAT_FOLDED && hg_flame_folded_size(&f) > max_bytes)
		rc = HG_ELIMIT;
	if (rc == 0)
		flame_write(out, &f, format);
	hg_arena_destroy(arena);
	return rc;
}
