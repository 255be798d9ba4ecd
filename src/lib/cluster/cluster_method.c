/* Signatures of method stacks (Matrix): the StackKey frame and its nearest
 * ancestors on the key's path, Handler.dispatchMessage left out.  Every
 * frame of such a stack ran the app's code (Matrix instruments only the
 * APK's classes), so there is always an app frame to group by. */
#include <inttypes.h>
#include <string.h>

#include "cluster_internal.h"

#define METHOD_ID_DISPATCH 1048574 /* Matrix's fixed id of Handler.dispatchMessage */
#define DISPATCH "android.os.Handler.dispatchMessage"
#define WHOLE_MESSAGE "Handler.dispatchMessage (the whole message)"

static const char *symbol_of(const hg_report *rep, const hg_method_item *it)
{
	return rep->symbols && it->origin < rep->full.len ? rep->symbols[it->origin] : NULL;
}

static bool is_dispatch(const hg_method_item *it, const char *sym)
{
	size_t n = sym ? strcspn(sym, "(") : 0;
	return it->id == METHOD_ID_DISPATCH ||
	       (sym && n == strlen(DISPATCH) && memcmp(sym, DISPATCH, n) == 0);
}

/* The scene's class without its package ("a.b.FeedActivity" ->
 * "FeedActivity"); NULL without a scene. */
static const char *scene_name(const hg_report *rep)
{
	return rep->scene && *rep->scene ? sig_simple_name(rep->scene) : NULL;
}

/* The key frame's line and title.  The whole message as key says only
 * that nothing inside it held the cost: its scene tells such reports
 * apart.  An id the mapping does not name is shown with its scene, so
 * that "#8153" of two screens can be told apart at a glance. */
static int key_frame(struct sig *s, const hg_method_item *key, const char *sym)
{
	const char *scene = scene_name(s->rep);
	if (is_dispatch(key, sym)) {
		int rc = sig_add(s, WHOLE_MESSAGE);
		if (!rc)
			rc = sig_add(s, hg_arena_printf(s->arena, "scene %s",
							s->rep->scene ? s->rep->scene : "?"));
		s->title = scene ? hg_arena_printf(s->arena, "%s in %s", WHOLE_MESSAGE, scene)
				 : WHOLE_MESSAGE;
		s->key_symbol = sym ? sym : DISPATCH;
		return rc ? rc : s->title ? 0 : HG_ENOMEM;
	}
	if (sym) {
		s->title = s->key_symbol = sym;
		return sig_add(s, sig_method_symbol(s->arena, sym));
	}
	s->symbolicated = false;
	const char *id = hg_arena_printf(s->arena, "#%" PRId32, key->id);
	s->key_symbol = id;
	s->title = scene && id ? hg_arena_printf(s->arena, "%s in %s", id, scene) : id;
	return s->title ? sig_add(s, id) : HG_ENOMEM;
}

int sig_method_stack(struct sig *s)
{
	const hg_report *rep = s->rep;
	const hg_method_stack *st = &rep->trimmed;
	long k = rep->key_index;
	const hg_method_item *key = &st->items[k];
	int rc = key_frame(s, key, symbol_of(rep, key));
	if (rc)
		return rc;
	int depth = key->depth, taken = 0;
	for (long i = k - 1; i >= 0 && taken < s->key_ancestors; i--) {
		const hg_method_item *it = &st->items[i];
		if (it->depth >= depth)
			continue;
		depth = it->depth; /* the parent of the item looked at last */
		const char *a = symbol_of(rep, it);
		if (is_dispatch(it, a))
			continue;
		const char *line;
		if (a) {
			int ignored = sig_ignored(s, a, strcspn(a, "("));
			if (ignored < 0)
				return ignored;
			if (ignored || frame_owner_symbol(s, a) != OWNER_APP)
				continue;
			line = sig_method_symbol(s->arena, a);
		} else {
			s->symbolicated = false;
			line = hg_arena_printf(s->arena, "#%" PRId32, it->id);
		}
		if ((rc = sig_add(s, line)))
			return rc;
		taken++;
	}
	return 0;
}
