/* The differential flame: the shape and widths of `after` (merged path by
 * path, so a path is one node), each node told the same path's total per
 * report in `base`.  As FlameGraph's difffolded.pl followed by
 * flamegraph.pl: the widths are the newer tree's, the colour is the change
 * per report; a path only in the base is not drawn (swap the two to see
 * the older shape, as --negate does there, with the colours then reading
 * old against new). */
#include <string.h>

#include "hangar/flame.h"
#include "flame_merge.h"

/* Fills out's diff fields from the merged base. */
static void match_base(hg_flame *out, const hg_flame_merger *base, int64_t base_reports,
		       size_t *map)
{
	double per = base_reports > 0 ? (double)base_reports : 1;
	for (size_t i = 0; i < out->n; i++) {
		hg_flame_node *nd = &out->nodes[i];
		size_t p = nd->parent;
		map[i] = SIZE_MAX;
		if (p == HG_FLAME_NO_PARENT || map[p] != SIZE_MAX)
			map[i] = flame_merger_find(base, p == HG_FLAME_NO_PARENT ? SIZE_MAX : map[p],
						   nd->name);
		const hg_flame_node *b = flame_merger_node(base, map[i]);
		nd->in_base = b != NULL;
		nd->base_per_report = b ? (double)b->total / per : 0;
	}
}

int hg_flame_diff(const hg_flame *base, const hg_flame *after, hg_arena *arena, hg_flame *out)
{
	memset(out, 0, sizeof *out);
	hg_arena *scratch = hg_arena_create();
	hg_flame_merger *mb = scratch ? hg_flame_merger_create(scratch) : NULL;
	hg_flame_merger *ma = hg_flame_merger_create(arena);
	int err = mb && ma ? 0 : HG_ENOMEM;
	if (!err)
		err = hg_flame_merger_add(mb, base);
	if (!err)
		err = hg_flame_merger_add(ma, after);
	if (!err)
		err = hg_flame_merger_finish(ma, after->title, out);
	size_t *map = err ? NULL : hg_arena_calloc(scratch, out->n ? out->n : 1, sizeof *map);
	if (!err && !map)
		err = HG_ENOMEM;
	if (!err) {
		/* The merger counts flames; a diff keeps each side's report count. */
		out->reports = after->reports > 0 ? after->reports : 1;
		out->base_reports = base->reports > 0 ? base->reports : 1;
		out->unit = after->unit;
		out->diff = true;
		match_base(out, mb, out->base_reports, map);
	}
	hg_flame_merger_destroy(ma);
	hg_flame_merger_destroy(mb);
	hg_arena_destroy(scratch);
	return err;
}
