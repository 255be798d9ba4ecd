/* FPS and startup figures as JSON (hg_figures_json_members): the one
 * writer of the "startup" and "fps" objects of top, show and the digest. */
#include <inttypes.h>

#include "store_internal.h"

/* A fraction with 4 decimals, or null when unknown (< 0). */
static void share(hg_buf *b, double v)
{
	if (v < 0)
		hg_buf_puts(b, "null");
	else
		hg_buf_printf(b, "%.4f", v);
}

bool hg_figures_any(const hg_figures *f)
{
	return f && (f->startups || f->cold || f->warm || f->fps_reports || f->frames);
}

void hg_figures_json_members(hg_buf *b, const hg_figures *f)
{
	if (f->startups || f->cold || f->warm) {
		hg_buf_printf(b, ",\"startup\":{\"reports\":%" PRId64 ",\"cold\":%" PRId64
			      ",\"warm\":%" PRId64 ",\"total_p50\":", f->startups, f->cold, f->warm);
		/* no startup total among them: the percentiles are unknown */
		if (f->startups)
			hg_buf_printf(b, "%" PRId64 ",\"total_p90\":%" PRId64 "}", f->total_p50,
				      f->total_p90);
		else
			hg_buf_puts(b, "null,\"total_p90\":null}");
	}
	if (f->fps_reports || f->frames) {
		hg_buf_printf(b, ",\"fps\":{\"reports\":%" PRId64 ",\"mean\":", f->fps_reports);
		if (f->fps_reports)
			hg_buf_printf(b, "%.2f", f->fps_mean);
		else
			hg_buf_puts(b, "null");
		hg_buf_printf(b, ",\"frames\":%" PRId64 ",\"frozen\":%" PRId64 ",\"high\":%" PRId64
			      ",\"frozen_high_share\":", f->frames, f->frozen, f->high);
		share(b, f->frozen_high_share);
		hg_buf_putc(b, '}');
	}
}

void hg_figures_json(hg_buf *b, const hg_figures *f)
{
	hg_buf m;
	hg_buf_init(&m);
	hg_figures_json_members(&m, f);
	hg_buf_putc(b, '{');
	if (m.len > 1)
		hg_buf_add(b, m.data + 1, m.len - 1); /* less the first comma */
	hg_buf_putc(b, '}');
	b->failed |= m.failed;
	hg_buf_release(&m);
}
