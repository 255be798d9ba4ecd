/* Collapsed stacks, FlameGraph's input: "root;child;leaf weight" per path
 * with a self weight.  Names are cleaned so that each line splits back on
 * ';' into its frames and on its last space into the weight. */
#include <stdlib.h>
#include <string.h>

#include "flame_internal.h"

/* The length of name once cleaned: the same as its length, each byte
 * being replaced by one, except that an empty name becomes "?". */
static size_t clean_len(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n ? n : 1;
}

static void put_clean(hg_buf *out, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0) {
		hg_buf_putc(out, '?');
		return;
	}
	size_t start = 0; /* clean bytes not yet written */
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)name[i];
		char with = 0;
		size_t len = 1;
		if (c == ';')
			with = ':';
		else if (c < 0x20 || c == 0x7f)
			with = ' ';
		else if (c >= 0x80 && (len = hg_utf8_len(name + i, n - i)) == 0)
			with = '?', len = 1;
		if (with) {
			hg_buf_add(out, name + start, i - start);
			hg_buf_putc(out, with);
			start = i + len;
		}
		i += len;
	}
	hg_buf_add(out, name + start, n - start);
}

/* Writes the path from a root to node i: the ancestors are found through
 * parent links into path (room for the depth), then written outermost
 * first. */
static void put_path(hg_buf *out, const hg_flame *f, size_t i, size_t *path)
{
	size_t d = 0;
	for (size_t j = i; j != HG_FLAME_NO_PARENT; j = f->nodes[j].parent)
		path[d++] = j;
	while (d-- > 0) {
		put_clean(out, f->nodes[path[d]].name);
		if (d > 0)
			hg_buf_putc(out, ';');
	}
}

void hg_flame_write_folded(const hg_flame *f, hg_buf *out)
{
	if (f->n == 0)
		return;
	flame_kids k;
	size_t *order = NULL, *path = malloc(f->n * sizeof *path);
	if (!path || flame_kids_build(f, &k) != 0) {
		free(path);
		out->failed = 1;
		return;
	}
	/* Pre-order, so that a tree's lines come in its drawing order. */
	if (!(order = flame_preorder(f, &k))) {
		out->failed = 1;
	} else {
		for (size_t j = 0; j < f->n && !out->failed; j++) {
			const hg_flame_node *nd = &f->nodes[order[j]];
			if (nd->self <= 0)
				continue;
			put_path(out, f, order[j], path);
			hg_buf_putc(out, ' ');
			hg_buf_int(out, nd->self);
			hg_buf_putc(out, '\n');
		}
	}
	free(order);
	free(path);
	flame_kids_release(&k);
}

static size_t digits(int64_t v)
{
	size_t d = 1;
	for (; v >= 10; v /= 10)
		d++;
	return d;
}

size_t hg_flame_folded_size(const hg_flame *f)
{
	/* path_len[i]: the bytes of node i's path ("a;b;c"), from its parent's */
	size_t *path_len = malloc((f->n ? f->n : 1) * sizeof *path_len);
	if (!path_len)
		return SIZE_MAX;
	size_t total = 0;
	for (size_t i = 0; i < f->n; i++) {
		const hg_flame_node *nd = &f->nodes[i];
		size_t own = clean_len(nd->name);
		size_t up = nd->parent == HG_FLAME_NO_PARENT ? 0 : path_len[nd->parent];
		path_len[i] = up > SIZE_MAX - own - 1 ? SIZE_MAX - 1 : up + own + (up ? 1 : 0);
		if (nd->self <= 0)
			continue;
		size_t line = path_len[i] + 2 + digits(nd->self);
		total = total > SIZE_MAX - line ? SIZE_MAX : total + line;
	}
	free(path_len);
	return total;
}
