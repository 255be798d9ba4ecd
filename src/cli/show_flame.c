/* hangar show -f folded|speedscope|chrome|svg: a cluster's merged tree as a
 * flame graph, or (--callers) its StackKey's callers merged upward. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "hangar/flame.h"
#include "show_flame.h"

/* The cluster's report count and title, for the flame. */
struct flame_info {
	int64_t count;
	char *title;
};

static int on_flame_cluster(void *user, const hg_cluster_row *c)
{
	struct flame_info *fi = user;
	fi->count = c->count;
	free(fi->title);
	size_t len = strlen(c->kind) + strlen(c->title) + sizeof " cluster 12345678: ";
	if (!(fi->title = malloc(len)))
		return HG_ENOMEM;
	snprintf(fi->title, len, "%s cluster %.8s: %s", c->kind, c->hash, c->title);
	return 0;
}

/* What the flame's reading left out under a node: one frame as wide as
 * it, "(N frames left out: --max-nodes M)", so the widths still add up. */
struct flame_left {
	hg_flame_tree_builder *b;
	size_t max_nodes;
	int64_t next_id;        /* ids past any stored one */
};

static int on_flame_node(void *user, const hg_tree_row *row)
{
	struct flame_left *fl = user;
	return hg_flame_tree_builder_add(fl->b, row);
}

static int on_flame_left(void *user, const hg_tree_left *l)
{
	struct flame_left *fl = user;
	char name[96];
	snprintf(name, sizeof name, "(%" PRId64 " frame%s left out: --max-nodes %zu)", l->nodes,
		 l->nodes == 1 ? "" : "s", fl->max_nodes);
	hg_tree_row row = {fl->next_id++, l->parent, name,    l->reports,
			   l->cost,       0,         l->cost, false};
	return hg_flame_tree_builder_add(fl->b, &row);
}

/* Writes f as format to stdout; 0 or HG_ENOMEM. */
static int write_flame(const hg_flame *f, const hg_output_format *format)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_render_flame(&out, f, format);
	int rc = out.failed ? HG_ENOMEM : 0;
	if (!rc && out.len)
		fwrite(out.data, 1, out.len, stdout);
	hg_buf_release(&out);
	return rc;
}

/* --callers: the StackKey's callers merged upward.  HG_ENOENT when the
 * tree has no StackKey frame (said here). */
static int show_callers(hg_store *store, const char *hash, const hg_output_format *format,
			size_t max_nodes)
{
	hg_arena *arena = hg_arena_create();
	hg_flame f;
	bool cut = false;
	int rc = arena ? hg_flame_callers_of_cluster(store, hash, max_nodes, arena, &f, &cut)
		       : HG_ENOMEM;
	if (rc == 0 && f.n == 0) {
		fprintf(stderr, "hangar show: cluster %.8s has no StackKey frame in its merged tree%s; "
			"--callers needs one\n", hash,
			cut ? " (--max-nodes left out part of its StackKey path)" : "");
		rc = HG_ENOENT;
	} else if (rc == 0 && cut) {
		fprintf(stderr, "hangar show: cluster %.8s: --max-nodes %zu left out part of its "
			"StackKey path, and the keys under it (--max-nodes 0 reads all)\n", hash,
			max_nodes);
	}
	if (rc == 0)
		rc = write_flame(&f, format);
	hg_arena_destroy(arena);
	return rc;
}

/* -f folded / speedscope / chrome / svg: the merged tree as a flame graph,
 * nothing else: its --max-nodes costliest nodes (every one of a tree that
 * size or smaller), what was left out under each node one frame. */
int show_flame(hg_store *store, const char *hash, const hg_output_format *format,
	       size_t max_nodes, bool callers)
{
	if (callers)
		return show_callers(store, hash, format, max_nodes);
	struct flame_info fi = {0, NULL};
	hg_arena *arena = hg_arena_create();
	hg_flame_tree_builder *b = arena ? hg_flame_tree_builder_create(arena) : NULL;
	int rc = b ? hg_store_cluster(store, hash, on_flame_cluster, &fi) : HG_ENOMEM;
	struct flame_left fl = {b, max_nodes, INT64_C(1) << 62};
	hg_tree_prune prune = {0, 0, 0, max_nodes};
	if (rc == 0)
		rc = hg_store_cluster_tree_pruned(store, hash, &prune, on_flame_node, on_flame_left,
						  &fl, NULL);
	hg_flame f;
	if (rc == 0)
		rc = hg_flame_tree_builder_finish(b, fi.count, fi.title, &f);
	if (rc == 0)
		rc = write_flame(&f, format);
	free(fi.title);
	hg_arena_destroy(arena);
	return rc;
}

