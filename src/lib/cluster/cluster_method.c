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

/* Explaining: why an item is Handler.dispatchMessage. */
static const char *dispatch_rule(const hg_method_item *it)
{
	return it->id == METHOD_ID_DISPATCH ? "Matrix dispatch id 1048574"
					    : "Handler.dispatchMessage by its name";
}

/* Explaining: the StackKey item, hashed whoever's it is (its owner is
 * said all the same); line: the first line it gave. */
static int explain_key(struct sig *s, const hg_method_item *key, const char *sym,
		       const char *line)
{
	hg_explain_frame *x = sig_explain_frame(s, sym ? sym : line);
	if (!x)
		return HG_ENOMEM;
	x->used = HG_USE_KEY;
	x->line = line;
	if (is_dispatch(key, sym)) {
		x->owner = HG_OWNER_PLATFORM;
		x->rule = dispatch_rule(key);
		s->ex->hashed_owner = HG_OWNER_IGNORED;
		return sig_explain_grouping(s, "the whole message (the StackKey is "
					    "Handler.dispatchMessage) and its scene");
	}
	if (sym) {
		x->owner = sig_owner(frame_owner_symbol(s, sym, &x->rule));
	} else {
		x->owner = HG_OWNER_APP;
		x->rule = hg_arena_printf(s->arena, "unmapped method id #%" PRId32, key->id);
	}
	return !x->rule ? HG_ENOMEM
			: sig_explain_grouping(s, "the StackKey and its nearest app ancestors, "
					       "up to key-ancestors %d", s->key_ancestors);
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

/* An ancestor of the StackKey: whether it is taken (*take), and the line
 * it gives (*line; NULL when out of memory, which sig_add says); x
 * (explaining; else NULL) says why. */
static int ancestor(struct sig *s, const hg_method_item *it, const char *a, hg_explain_frame *x,
		    bool *take, const char **line)
{
	*line = NULL;
	*take = false;
	if (is_dispatch(it, a)) {
		if (x) {
			x->owner = HG_OWNER_PLATFORM;
			x->rule = dispatch_rule(it);
			x->used = HG_USE_DISPATCH;
		}
		return 0;
	}
	if (!a) {
		*take = true;
		*line = hg_arena_printf(s->arena, "#%" PRId32, it->id);
		if (x) {
			x->owner = HG_OWNER_APP;
			x->rule = *line ? hg_arena_printf(s->arena, "unmapped method id %s", *line)
					: NULL;
			x->used = HG_USE_TAKEN;
		}
		return 0;
	}
	int ignored = sig_ignored(s, a, strcspn(a, "("), x ? &x->rule : NULL);
	if (ignored < 0)
		return ignored;
	if (ignored) {
		if (x) {
			x->owner = HG_OWNER_IGNORED;
			x->used = HG_USE_IGNORED;
		}
		return 0;
	}
	enum frame_owner owner = frame_owner_symbol(s, a, x ? &x->rule : NULL);
	if (x) {
		x->owner = sig_owner(owner);
		x->used = owner == OWNER_APP ? HG_USE_TAKEN : HG_USE_OTHER_OWNER;
	}
	if (owner == OWNER_APP) {
		*take = true;
		*line = sig_method_symbol(s->arena, a);
	}
	return 0;
}

int sig_method_stack(struct sig *s)
{
	const hg_report *rep = s->rep;
	const hg_method_stack *st = &rep->trimmed;
	long k = rep->key_index;
	const hg_method_item *key = &st->items[k];
	const char *key_sym = symbol_of(rep, key);
	size_t first_line = s->n_frames;
	int rc = key_frame(s, key, key_sym);
	if (!rc && s->ex && !(rc = sig_explain_room(s, (size_t)k + 1)))
		rc = explain_key(s, key, key_sym, s->frames[first_line]);
	if (rc)
		return rc;
	/* Explaining, the walk goes on to the root past key-ancestors, taking
	 * nothing more, so that the explanation shows what was left. */
	int depth = key->depth, taken = 0;
	for (long i = k - 1; i >= 0 && (taken < s->key_ancestors || s->ex); i--) {
		const hg_method_item *it = &st->items[i];
		if (it->depth >= depth)
			continue;
		depth = it->depth; /* the parent of the item looked at last */
		const char *a = symbol_of(rep, it), *line;
		hg_explain_frame *x = NULL;
		bool take;
		if (s->ex && !(x = sig_explain_frame(s, a)))
			return HG_ENOMEM;
		if (x && !a && !(x->frame = hg_arena_printf(s->arena, "#%" PRId32, it->id)))
			return HG_ENOMEM;
		if ((rc = ancestor(s, it, a, x, &take, &line)))
			return rc;
		if (!take)
			continue;
		if (taken >= s->key_ancestors) { /* explaining (x), past the limit */
			if (x)
				x->used = HG_USE_PAST_LIMIT;
			continue;
		}
		if (!a)
			s->symbolicated = false;
		if ((rc = sig_add(s, line)))
			return rc;
		if (x)
			x->line = line;
		taken++;
	}
	return 0;
}
