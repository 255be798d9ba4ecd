/* One frame as text (the thread view's, the tree of samples'): a Java
 * frame "at a.b.C.m(C.java:12)", a native frame's pc, image and function
 * (demangled, hg_frame_function) and source line, each shortened, as
 * little as it must be, to fit a width (render_width.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hangar/samples.h"
#include "render_internal.h"

#define NATIVE_FULL_WIDTH 116 /* frame columns (a 120-column line) that show 16-digit pcs */

/* An image path's last part, "…/libc.so", when short is set. */
void render_image_text(hg_buf *out, const char *image, bool short_form, const char *ellipsis)
{
	const char *slash = short_form ? strrchr(image, '/') : NULL;
	if (slash && slash[1] && slash != image) {
		hg_buf_puts(out, ellipsis);
		hg_buf_puts(out, slash);
	} else {
		hg_buf_puts(out, image);
	}
}

/* Whether a symbol as a dump wrote it reads as C++ ("art::Foo(int)+8",
 * shortened by render_native_name), rather than as a JIT'd Java method
 * ("a.b.C.m+12", shortened by its package) or an Objective-C one
 * ("-[NSRunLoop(NSRunLoop) run]", whose parentheses hold a category). */
static bool cxx_symbol(const char *s)
{
	if ((s[0] == '-' || s[0] == '+') && s[1] == '[')
		return false;
	return strstr(s, "::") || strchr(s, '(');
}

/* " (name+rest)", the name shortened by level (render_native_name);
 * "name+rest" when bare (nothing before it). */
static void function_text(hg_buf *out, const char *name, const char *rest, int level, bool bare,
			  const char *ellipsis)
{
	hg_buf_puts(out, bare ? "" : " (");
	hg_render_native_name(out, name, level, ellipsis);
	hg_buf_puts(out, rest);
	hg_buf_puts(out, bare ? "" : ")");
}

/* How a native frame is written: the pc without its leading zeros, the
 * image without its folders, the function's name shortened by name_level;
 * without its pc, without its image (a tree of samples that must fit). */
struct native_form {
	bool short_pc, short_image, no_pc, no_image;
	int name_level;
};

static void native_text(hg_buf *out, const hg_frame *f, const struct native_form *nf,
			const char *ellipsis)
{
	bool pc = f->has_pc && !nf->no_pc, image = f->image && !nf->no_image;
	if (pc)
		hg_buf_printf(out, nf->short_pc ? "pc 0x%" PRIx64 : "pc 0x%016" PRIx64, f->pc);
	if (image) {
		hg_buf_puts(out, pc ? "  " : "");
		render_image_text(out, f->image, nf->short_image, ellipsis);
	}
	/* the name every output gives it (hg_frame_function): a demangled one
	 * with the "+offset" the symbol was written with ("_ZN3art3FooEv+24"
	 * reads "art::Foo()+24"); a symbol as written is shortened only when
	 * it reads as C++ (ART writes its own C++ names readable; a JIT'd Java
	 * method, "a.b.C.m", is left to native_fit) */
	const char *rest, *fn = hg_frame_function(f, &rest);
	bool as_written = fn && fn == f->symbol && !f->mangled && !f->symbolicated;
	bool bare = !pc && !image && (nf->no_pc || nf->no_image); /* what led it was dropped */
	if (fn)
		function_text(out, fn, rest, as_written && !cxx_symbol(fn) ? 0 : nf->name_level, bare,
			      ellipsis);
	else if (f->has_offset)
		hg_buf_printf(out, bare ? "+0x%" PRIx64 : " +0x%" PRIx64, f->offset);
	render_native_source(out, f);
	if (!f->has_pc && !f->image && !f->symbol && !f->method && f->text)
		hg_buf_puts(out, f->text);
}

/* ".method(File.java:12)", the file shortened when short_file is set. */
static void java_tail(hg_buf *tail, const hg_frame *f, bool short_file, const char *ellipsis)
{
	static const char r8[] = "r8-map-id-";
	hg_buf_printf(tail, ".%s", f->method ? f->method : "?");
	if (!f->file && f->line < 0)
		return;
	hg_buf_putc(tail, '(');
	if (f->file && short_file && !strncmp(f->file, r8, sizeof r8 - 1) &&
	    strlen(f->file) > sizeof r8 - 1 + 8)
		hg_buf_printf(tail, "%.*s%s", (int)(sizeof r8 - 1 + 8), f->file, ellipsis);
	else if (f->file && short_file)
		hg_buf_puts(tail, ellipsis);
	else if (f->file)
		hg_buf_puts(tail, f->file);
	if (f->line >= 0)
		hg_buf_printf(tail, ":%ld", f->line);
	hg_buf_putc(tail, ')');
}

/* A native frame in avail columns (0: no limit) as the thread view writes
 * it: narrower than a 16-digit pc reads well, every pc of the report loses
 * its zeros, so that frames stay in columns; then the image's folders go,
 * then the function's arguments, template arguments and qualifiers
 * (render_native_name); a JIT'd Java method's package last. */
static void native_fit(hg_buf *tail, const hg_frame *f, int avail, const char *ellipsis)
{
	struct native_form nf = {.short_pc = avail > 0 && avail < NATIVE_FULL_WIDTH};
	bool fits = false;
	for (int level = 0; level <= 4 && !fits; level++) {
		hg_buf_reset(tail);
		nf.short_image = level >= 1;
		nf.name_level = level - 1;
		native_text(tail, f, &nf, ellipsis);
		fits = avail <= 0 || tail->failed || render_cols(tail->data, tail->len) <= (size_t)avail;
	}
	if (!fits && f->symbol && !f->symbolicated && !f->mangled && !cxx_symbol(f->symbol)) {
		/* a JIT'd Java method: "a.b.C.m+12", by its package */
		hg_frame bare = *f;
		bare.symbol = bare.method = bare.mangled = NULL;
		bare.has_offset = false;
		bare.text = NULL;
		hg_buf_reset(tail);
		nf.short_image = true;
		nf.name_level = 0;
		native_text(tail, &bare, &nf, ellipsis);
		hg_buf_puts(tail, " (");
		int rest = avail - (int)render_cols(tail->data, tail->len) - 1;
		hg_render_fit_symbol(tail, "", f->symbol, rest > HG_RENDER_MIN_ROOM ? rest : HG_RENDER_MIN_ROOM,
				  ellipsis);
		hg_buf_putc(tail, ')');
	}
}

void render_thread_frame(hg_buf *out, const hg_frame *f, int avail, const char *ellipsis)
{
	hg_buf tail;
	hg_buf_init(&tail);
	if (f->kind == HG_FRAME_JAVA) {
		const char *cls = f->cls ? f->cls : "?";
		size_t start = out->len;
		/* Last of all the source file goes: "r8-map-id-2ba4f78b…", "…". */
		for (int short_file = 0; short_file < 2; short_file++) {
			out->len = start;
			hg_buf_reset(&tail);
			java_tail(&tail, f, short_file, ellipsis);
			render_fit_name(out, "at ", cls, strlen(cls), tail.data ? tail.data : "", avail,
					ellipsis);
			if (avail <= 0 || !f->file ||
			    render_cols(out->data + start, out->len - start) <= (size_t)avail)
				break;
		}
	} else {
		native_fit(&tail, f, avail, ellipsis);
		hg_buf_add(out, tail.data, tail.len);
	}
	out->failed |= tail.failed;
	hg_buf_release(&tail);
}

/* In a tree of samples a native frame that render_thread_frame cannot fit loses
 * what the thread view keeps for symbolication (its lines stay in
 * columns there, and grep finds a pc): its pc, then its image, then the
 * end of its name (the ellipsis standing for it).  The method tree never
 * runs past the width either. */
void render_frame_text(hg_buf *out, const hg_frame *f, int avail, const char *ellipsis)
{
	size_t start = out->len;
	render_thread_frame(out, f, avail, ellipsis);
	if (f->kind == HG_FRAME_JAVA || avail <= 0 || out->failed ||
	    render_cols(out->data + start, out->len - start) <= (size_t)avail)
		return;
	const char *rest, *fn = hg_frame_function(f, &rest);
	hg_buf b;
	hg_buf_init(&b);
	bool fits = false;
	for (int form = 1; form <= 2 && !fits; form++) {
		struct native_form nf = {.short_pc = true, .short_image = true, .no_pc = true,
					 .no_image = form == 2};
		if (form == 1 ? !f->has_pc || (!f->image && !fn) : !fn || !f->image)
			continue; /* nothing would be left, or nothing dropped */
		for (nf.name_level = 0; nf.name_level <= 3 && !fits; nf.name_level++) {
			hg_buf_reset(&b);
			native_text(&b, f, &nf, ellipsis);
			fits = b.failed || render_cols(b.data, b.len) <= (size_t)avail;
		}
		if (!fits && form == 2 && fn == f->symbol && !f->mangled && !f->symbolicated &&
		    !cxx_symbol(fn)) { /* a JIT'd Java method, by its package */
			hg_buf_reset(&b);
			hg_render_fit_symbol(&b, "", fn, avail, ellipsis);
			fits = b.failed || render_cols(b.data, b.len) <= (size_t)avail;
		}
	}
	if (b.len == 0) /* nothing to drop: the frame as render_thread_frame wrote it */
		hg_buf_add(&b, out->data + start, out->len - start);
	out->len = start;
	if (!fits && !b.failed) { /* the name's end goes */
		size_t e = render_cols(ellipsis, strlen(ellipsis));
		size_t room = (size_t)avail > e ? (size_t)avail - e : 0;
		hg_buf_add(out, b.data, hg_visible_prefix(b.data, b.len, room, NULL));
		hg_buf_puts(out, ellipsis);
	} else {
		hg_buf_add(out, b.data, b.len);
	}
	out->failed |= b.failed;
	hg_buf_release(&b);
}
