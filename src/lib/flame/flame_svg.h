/* What flame_svg.c and flame_svg_script.c share (private to the module). */
#ifndef HANGAR_FLAME_SVG_H
#define HANGAR_FLAME_SVG_H

#include <stddef.h>

#include "hangar/text.h"

/* The geometry both the writer and the script draw with. */
#define SVG_PAD 10          /* px left and right of the frames */
#define SVG_ROW 16          /* px per depth */
#define SVG_TOP 72          /* px above the first row: title, summary, legend, controls */
#define SVG_CHAR_W 7.3      /* px per character of the 12 px monospace labels */

/* The inline <style> (no font, no url() outside the document). */
extern const char flame_svg_style[];

/* The inline script, written around the id prefix: the prefix goes as a JS
 * string literal between flame_svg_script_head and flame_svg_script_tail.
 * The script only adds behaviour (zoom, search, details) to frames that
 * are all in the document already. */
extern const char flame_svg_script_head[];
extern const char flame_svg_script_tail[];

/* Appends to out the label of name (len bytes) that fits in max_chars
 * characters: the whole name, else with its package segments abbreviated
 * ("c.f.b.Baz.method(int)"), "…Baz.method(int)", "…Baz.method(…)",
 * "…method(int)", "…method(…)"; nothing when none fits.  The script
 * shortens the same way after a zoom. */
void flame_svg_label(hg_buf *out, const char *name, size_t len, long max_chars);

/* The number of characters s[0..len) is drawn as (an invalid byte is one
 * U+FFFD). */
size_t flame_svg_chars(const char *s, size_t len);

#endif
