/* Explanations (hg_signature_explain): the record the signature code
 * fills when asked, and the names of its words. */
#include <stdarg.h>

#include "cluster_internal.h"

hg_owner sig_owner(enum frame_owner o)
{
	return o == OWNER_APP ? HG_OWNER_APP : o == OWNER_LIBRARY ? HG_OWNER_LIBRARY
								 : HG_OWNER_PLATFORM;
}

int sig_explain_room(struct sig *s, size_t n)
{
	s->ex->frames = hg_arena_calloc(s->arena, n ? n : 1, sizeof *s->ex->frames);
	s->ex->n_frames = 0;
	s->cap_ex = s->ex->frames ? n : 0;
	return s->ex->frames ? 0 : HG_ENOMEM;
}

int sig_explain_grouping(struct sig *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	s->ex->grouped_by = hg_arena_vprintf(s->arena, fmt, ap);
	va_end(ap);
	return s->ex->grouped_by ? 0 : HG_ENOMEM;
}

hg_explain_frame *sig_explain_frame(struct sig *s, const char *text)
{
	if (s->ex->n_frames >= s->cap_ex)
		return NULL;
	hg_explain_frame *x = &s->ex->frames[s->ex->n_frames++];
	*x = (hg_explain_frame){.frame = text ? text : "?", .used = HG_USE_OTHER_OWNER};
	return x;
}

const char *hg_owner_name(hg_owner owner)
{
	switch (owner) {
	case HG_OWNER_APP: return "app";
	case HG_OWNER_LIBRARY: return "library";
	case HG_OWNER_PLATFORM: return "platform";
	case HG_OWNER_IGNORED: return "ignored";
	}
	return "?";
}

const char *hg_frame_use_name(hg_frame_use use)
{
	switch (use) {
	case HG_USE_KEY: return "key";
	case HG_USE_TAKEN: return "taken";
	case HG_USE_PAST_LIMIT: return "past-limit";
	case HG_USE_OTHER_OWNER: return "other-owner";
	case HG_USE_IGNORED: return "ignored";
	case HG_USE_DISPATCH: return "dispatch";
	case HG_USE_CANDIDATE: return "candidate";
	}
	return "?";
}

const char *hg_basis_name(hg_basis basis)
{
	switch (basis) {
	case HG_BASIS_METHOD_STACK: return "method_stack";
	case HG_BASIS_THREAD: return "thread";
	case HG_BASIS_NO_STACK: return "no_stack";
	}
	return "?";
}
