/* Reading an SVG flame graph back with expat, for test_flame_svg.c: the
 * document must be well-formed, with one <script> and one <style> and
 * nothing external; each <g class="f"> becomes a struct frame (its
 * classes, id, title, label and rect), never nested in another. */
#ifndef HANGAR_TEST_SVG_DOC_FIXTURE_H
#define HANGAR_TEST_SVG_DOC_FIXTURE_H

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/flame.h"

struct frame {
	char cls[16], id[32];
	char *title;       /* malloc'd */
	char *label;       /* malloc'd, NULL without a <text> */
	double x, w;
	int y;
	char fill[64];
};

struct doc {
	XML_Parser xp;
	struct frame *frames;
	size_t n, cap;
	int in_frame;      /* depth of the open <g class="f">, 0 none */
	int depth;
	enum { T_NONE, T_TITLE, T_LABEL } text;
	int width, scripts, styles, has_search_input;
	char root_id[64];
	char summary[1024];
	int in_summary;
	int external;      /* href, xlink:href, url( not to #, @import */
};

static const char *attr(const XML_Char **a, const char *name)
{
	for (; a[0]; a += 2)
		if (!strcmp(a[0], name))
			return a[1];
	return NULL;
}

static void append(char **s, const char *t, int len)
{
	size_t old = *s ? strlen(*s) : 0;
	*s = realloc(*s, old + (size_t)len + 1);
	assert_non_null(*s);
	memcpy(*s + old, t, (size_t)len);
	(*s)[old + (size_t)len] = 0;
}

static void on_start(void *user, const XML_Char *el, const XML_Char **a)
{
	struct doc *d = user;
	d->depth++;
	for (const XML_Char **p = a; p[0]; p += 2)
		if (strstr(p[0], "href") || (strstr(p[1], "url(") && !strstr(p[1], "url(#")))
			d->external++;
	const char *cls = attr(a, "class");
	if (!strcmp(el, "svg") && d->depth == 1) {
		d->width = atoi(attr(a, "width") ? attr(a, "width") : "0");
		snprintf(d->root_id, sizeof d->root_id, "%s", attr(a, "id") ? attr(a, "id") : "");
	} else if (!strcmp(el, "script")) {
		d->scripts++;
		assert_null(attr(a, "src"));
	} else if (!strcmp(el, "style")) {
		d->styles++;
	} else if (!strcmp(el, "g") && cls && (!strcmp(cls, "f") || !strncmp(cls, "f ", 2))) {
		assert_int_equal(d->in_frame, 0); /* frames are never nested */
		if (d->n == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 1024;
			d->frames = realloc(d->frames, d->cap * sizeof *d->frames);
			assert_non_null(d->frames);
		}
		struct frame *f = &d->frames[d->n++];
		memset(f, 0, sizeof *f);
		snprintf(f->cls, sizeof f->cls, "%s", cls);
		snprintf(f->id, sizeof f->id, "%s", attr(a, "id") ? attr(a, "id") : "");
		f->y = -1;
		d->in_frame = d->depth;
	} else if (d->in_frame && !strcmp(el, "title")) {
		d->text = T_TITLE;
		append(&d->frames[d->n - 1].title, "", 0);
	} else if (d->in_frame && !strcmp(el, "text")) {
		d->text = T_LABEL;
		append(&d->frames[d->n - 1].label, "", 0);
	} else if (d->in_frame && !strcmp(el, "rect")) {
		struct frame *f = &d->frames[d->n - 1];
		assert_int_equal(f->y, -1); /* one rect per frame */
		f->x = atof(attr(a, "x"));
		f->w = atof(attr(a, "width"));
		f->y = atoi(attr(a, "y"));
		snprintf(f->fill, sizeof f->fill, "%s", attr(a, "fill"));
	} else if (!strcmp(el, "text") && cls && !strcmp(cls, "sm") && !d->summary[0]) {
		d->in_summary = 1;
	}
}

static void on_end(void *user, const XML_Char *el)
{
	struct doc *d = user;
	(void)el;
	if (d->in_frame == d->depth)
		d->in_frame = 0;
	d->text = T_NONE;
	d->in_summary = 0;
	d->depth--;
}

static void on_text(void *user, const XML_Char *s, int len)
{
	struct doc *d = user;
	if (d->in_summary) {
		size_t old = strlen(d->summary);
		snprintf(d->summary + old, sizeof d->summary - old, "%.*s", len, s);
	}
	if (!d->in_frame || d->text == T_NONE)
		return;
	struct frame *f = &d->frames[d->n - 1];
	append(d->text == T_TITLE ? &f->title : &f->label, s, len);
}

/* Parses the SVG (asserting it is well-formed) into d. */
static void parse(const hg_buf *svg, struct doc *d)
{
	memset(d, 0, sizeof *d);
	assert_false(svg->failed);
	d->xp = XML_ParserCreate("UTF-8");
	XML_SetUserData(d->xp, d);
	XML_SetElementHandler(d->xp, on_start, on_end);
	XML_SetCharacterDataHandler(d->xp, on_text);
	if (XML_Parse(d->xp, svg->data, (int)svg->len, 1) != XML_STATUS_OK) {
		fprintf(stderr, "not XML: line %lu: %s\n",
			(unsigned long)XML_GetCurrentLineNumber(d->xp),
			XML_ErrorString(XML_GetErrorCode(d->xp)));
		fail();
	}
	XML_ParserFree(d->xp);
	assert_int_equal(d->scripts, 1);
	assert_int_equal(d->styles, 1);
	assert_int_equal(d->external, 0);
	assert_null(strstr(svg->data, "@import"));
	assert_null(strstr(svg->data, "http://www.w3.org/1999/xhtml\"")); /* made by the script */
}

static void doc_release(struct doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->frames[i].title);
		free(d->frames[i].label);
	}
	free(d->frames);
}

static void write_svg(const hg_flame *f, const hg_flame_svg_opts *o, hg_buf *out, struct doc *d)
{
	hg_buf_init(out);
	hg_flame_write_svg(f, o, out);
	parse(out, d);
}

/* The frame whose title starts with name (the first), or NULL. */
static struct frame *find(struct doc *d, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < d->n; i++)
		if (!strncmp(d->frames[i].title, name, len) && d->frames[i].title[len] == '\n')
			return &d->frames[i];
	return NULL;
}

#endif
