/* Signatures of thread dumps (ANR traces, BlockCanary samples, Java and
 * iOS dumps): the blamed thread's innermost app frames, anchored below
 * whatever library or platform code the sample caught on top.  With no
 * app frame, never one bucket for all: the thread's own innermost library
 * frames, else its platform frames; an idle main thread by what the
 * system waited for (the ANR type). */
#include <stdio.h>
#include <string.h>

#include "cluster_internal.h"

#define IDLE_MAIN "idle main thread"

/* The thread walked; *why: "blamed", "main" or "first" (for explanations). */
static long pick_thread(const hg_threads *ts, const char **why)
{
	*why = "blamed";
	if (ts->blamed >= 0 && (size_t)ts->blamed < ts->n)
		return ts->blamed;
	*why = "main";
	for (size_t i = 0; i < ts->n; i++)
		if (ts->items[i].flags & HG_THREAD_MAIN)
			return (long)i;
	*why = "first";
	return 0;
}

static bool skipped_candidate(const hg_frame *f)
{
	return f->alternative && f->candidate > 1;
}

static bool is_anr(const hg_report *rep)
{
	return rep->kind == HG_KIND_ANR || rep->kind == HG_KIND_SIGNAL_ANR;
}

/* " (input dispatching ANR)" for an ANR whose subject gave its type. */
static const char *anr_suffix(const struct sig *s)
{
	if (!is_anr(s->rep))
		return "";
	const char *type = s->rep->anr_type;
	return type ? hg_arena_printf(s->arena, " (%s ANR)", type) : " (ANR)";
}

/* One frame as the signature sees it.  Its texts are made when needed:
 * a thread has many frames and the signature takes a few. */
struct seen {
	const hg_frame *f;
	const char *match;      /* "cls.method" or the native frame text; NULL: not made yet */
	const char *line;       /* normalized; NULL: not made yet */
	enum frame_owner owner;
	hg_explain_frame *x;    /* explaining: its record; else NULL */
};

static const char *match_of(const struct sig *s, struct seen *x)
{
	if (x->match)
		return x->match;
	const hg_frame *f = x->f;
	if (f->kind == HG_FRAME_JAVA) {
		const char *cls = f->cls ? f->cls : "?";
		x->match = f->method ? hg_arena_printf(s->arena, "%s.%s", cls, f->method) : cls;
	} else {
		x->match = x->line = sig_native_frame(s->arena, f);
	}
	return x->match;
}

static const char *line_of(const struct sig *s, struct seen *x)
{
	if (!x->line && x->f->kind == HG_FRAME_JAVA)
		x->line = sig_java_frame(s->arena, x->f->cls ? x->f->cls : "?", x->f->method);
	return x->line ? x->line : match_of(s, x);
}

static bool have_rules(const struct sig *s)
{
	return s->rules && (s->rules->n_app || s->rules->n_ignore);
}

/* The frame's owner, and whether an ignore rule drops it (1), or an
 * error; x (explaining; else NULL) says why. */
static int see(const struct sig *s, const hg_frame *f, struct seen *out, hg_explain_frame *x)
{
	*out = (struct seen){.f = f, .x = x};
	const char *match = NULL;
	if (have_rules(s) && !(match = match_of(s, out)))
		return HG_ENOMEM;
	const char **why = x ? &x->rule : NULL;
	out->owner = f->kind == HG_FRAME_JAVA ? frame_owner_java(s, f, match, why)
					      : frame_owner_native(s, f, why);
	int ignored = match ? sig_ignored(s, match, strlen(match), why) : 0;
	if (x) {
		x->owner = ignored > 0 ? HG_OWNER_IGNORED : sig_owner(out->owner);
		x->used = ignored > 0 ? HG_USE_IGNORED : HG_USE_OTHER_OWNER;
		if (!x->rule)
			return HG_ENOMEM;
	}
	return ignored;
}

/* Adds up to thread_frames frames of owner `want`, innermost first; the
 * first taken names the title. */
/* Whether a frame names code: a Java frame, or a native one with a
 * symbol (an image and an offset name nothing a person can read). */
static bool named(const hg_frame *f)
{
	return f->kind == HG_FRAME_JAVA || f->method || f->symbol;
}

/* Adds up to thread_frames frames of owner `want`, innermost first; the
 * first of them that names code gives the title (else the first). */
static int take(struct sig *s, struct seen *seen, size_t n, enum frame_owner want)
{
	size_t end = s->n_frames + (size_t)s->thread_frames;
	struct seen *first = NULL, *first_named = NULL;
	/* Explaining, the walk goes on past thread-frames to say what was left. */
	for (size_t i = 0; i < n && (s->n_frames < end || s->ex); i++) {
		if (seen[i].owner != want)
			continue;
		if (s->n_frames >= end) { /* explaining (x) */
			if (seen[i].x)
				seen[i].x->used = HG_USE_PAST_LIMIT;
			continue;
		}
		first = first ? first : &seen[i];
		first_named = first_named || !named(seen[i].f) ? first_named : &seen[i];
		const char *line = line_of(s, &seen[i]);
		int rc = sig_add(s, line);
		if (rc)
			return rc;
		if (seen[i].x) {
			seen[i].x->used = HG_USE_TAKEN;
			seen[i].x->line = line;
			s->ex->hashed_owner = sig_owner(want);
		}
	}
	struct seen *t = first_named ? first_named : first;
	if (t && !s->title) {
		/* A dex frame's match text is its image and method: the line
		 * (the method alone) reads better. */
		const char *name;
		if (t->f->kind == HG_FRAME_JAVA)
			name = match_of(s, t);
		else if (s->ios && !t->f->image && named(t->f)) /* not "???!static Foo.bar()" */
			name = sig_unplaced_title(s->arena, t->f);
		else
			name = t->f->mangled ? sig_native_title(s->arena, t->f) : line_of(s, t);
		if (!name)
			return HG_ENOMEM;
		s->title = hg_arena_printf(s->arena, "%s%s%s", name,
					   named(t->f) ? "" : " (no symbols)", anr_suffix(s));
		s->key_symbol = t->f->text;
		if (!s->title)
			return HG_ENOMEM;
	}
	return 0;
}

static int idle_main(struct sig *s)
{
	int rc = sig_add(s, IDLE_MAIN);
	if (!rc && is_anr(s->rep))
		rc = sig_add(s, hg_arena_printf(s->arena, "anr %s",
						s->rep->anr_type ? s->rep->anr_type : "other"));
	s->title = hg_arena_printf(s->arena, "%s%s", IDLE_MAIN, anr_suffix(s));
	return rc ? rc : s->title ? 0 : HG_ENOMEM;
}

/* Explaining: the thread walked, and room for its frames. */
static int explain_thread(struct sig *s, long index, const char *why)
{
	const hg_thread *t = &s->rep->threads.items[index];
	s->ex->thread = index;
	s->ex->thread_name = t->name;
	s->ex->thread_why = why;
	s->ex->hashed_owner = HG_OWNER_IGNORED; /* until a frame is taken */
	return sig_explain_room(s, t->n_frames);
}

/* Explaining: the frame as the report gives it; a retraced one with the
 * name retracing gave it first (the text is the obfuscated one). */
static const char *explain_text(struct sig *s, const hg_frame *f)
{
	if (f->kind != HG_FRAME_JAVA || !f->retraced || !f->cls)
		return f->text;
	return hg_arena_printf(s->arena, "%s%s%s (retraced from: %s)", f->cls, f->method ? "." : "",
			       f->method ? f->method : "", f->text ? f->text : "?");
}

/* Explaining: a second candidate of an ambiguous retrace, left out. */
static int explain_candidate(struct sig *s, hg_explain_frame *x, const hg_frame *f)
{
	x->owner = HG_OWNER_IGNORED;
	x->used = HG_USE_CANDIDATE;
	x->rule = hg_arena_printf(s->arena, "retrace candidate %d (the first is kept)", f->candidate);
	return x->rule ? 0 : HG_ENOMEM;
}

/* Explaining: what the lines came from, once they are made. */
static int explain_grouping(struct sig *s, const hg_thread *t)
{
	int n = s->thread_frames;
	switch (s->ex->hashed_owner) {
	case HG_OWNER_APP:
		return sig_explain_grouping(s, "its innermost app frames, up to thread-frames %d", n);
	case HG_OWNER_LIBRARY:
		return sig_explain_grouping(s, "no app frame: its innermost library frames, up to "
					    "thread-frames %d", n);
	case HG_OWNER_PLATFORM:
		return sig_explain_grouping(s, "no app or library frame: its innermost platform "
					    "frames, up to thread-frames %d", n);
	default:
		break;
	}
	if (t->flags & HG_THREAD_IDLE)
		return sig_explain_grouping(s, "no app frame, and the main thread idles in its "
					    "looper (the dump missed the cause)%s",
					    is_anr(s->rep) ? ": the ANR type" : "");
	return sig_explain_grouping(s, "no frames");
}

/* The lines of thread t. */
static int thread_lines(struct sig *s, const hg_thread *t)
{
	struct seen *seen = hg_arena_calloc(s->arena, t->n_frames ? t->n_frames : 1, sizeof *seen);
	if (!seen)
		return HG_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < t->n_frames; i++) {
		hg_explain_frame *x = NULL;
		if (s->ex && !(x = sig_explain_frame(s, explain_text(s, &t->frames[i]))))
			return HG_ENOMEM;
		if (skipped_candidate(&t->frames[i])) {
			if (x && explain_candidate(s, x, &t->frames[i]))
				return HG_ENOMEM;
			continue;
		}
		int ignored = see(s, &t->frames[i], &seen[n], x);
		if (ignored < 0)
			return ignored;
		if (!ignored)
			n++;
	}
	if (n && !s->key_symbol)
		s->key_symbol = seen[0].f->text;
	size_t before = s->n_frames; /* the app line */
	int rc = take(s, seen, n, OWNER_APP);
	if (rc || s->n_frames > before)
		return rc;
	s->no_app_frame = true;
	if (t->flags & HG_THREAD_IDLE)
		return idle_main(s);
	/* Marked, so that a thread whose frames are all a library's never
	 * shares a cluster with one whose app frames read the same. */
	if ((rc = sig_add(s, "no app frame")))
		return rc;
	size_t marked = s->n_frames;
	if (!(rc = take(s, seen, n, OWNER_LIBRARY)) && s->n_frames == marked)
		rc = take(s, seen, n, OWNER_SYSTEM);
	if (rc || s->n_frames > marked)
		return rc;
	s->title = hg_arena_printf(s->arena, "thread \"%s\" with no frames%s",
				   t->name ? t->name : "?", anr_suffix(s));
	return s->title ? sig_add(s, "no frames") : HG_ENOMEM;
}

int sig_thread_dump(struct sig *s)
{
	const char *why;
	long index = pick_thread(&s->rep->threads, &why);
	const hg_thread *t = &s->rep->threads.items[index];
	if (s->ex && explain_thread(s, index, why))
		return HG_ENOMEM;
	int rc = thread_lines(s, t);
	return rc || !s->ex ? rc : explain_grouping(s, t);
}

static const char *meta_text(const hg_report *rep, const char *key)
{
	for (size_t i = 0; i < rep->meta_len; i++)
		if (strcmp(rep->meta[i].key, key) == 0)
			return rep->meta[i].text;
	return NULL;
}

int sig_no_stack(struct sig *s)
{
	const hg_report *rep = s->rep;
	s->no_app_frame = true;
	int rc;
	if (is_anr(rep)) {
		/* An ANR whose dump holds no thread stack (waiting channels
		 * only): what the main thread waited in, in the kernel ("0":
		 * it ran), is all there is of its top frame. */
		const char *wchan = meta_text(rep, "main_wchan");
		rc = sig_add(s, "no thread stacks");
		if (!rc && wchan)
			rc = sig_add(s, hg_arena_printf(s->arena, "main wchan %s", wchan));
		if (!rc)
			rc = sig_add(s, hg_arena_printf(s->arena, "anr %s",
							rep->anr_type ? rep->anr_type : "other"));
		if (wchan && strcmp(wchan, "0") == 0)
			s->title = hg_arena_printf(s->arena, "no thread stacks: main thread running%s",
						   anr_suffix(s));
		else if (wchan)
			s->title = hg_arena_printf(s->arena, "no thread stacks: main thread in %s%s",
						   wchan, anr_suffix(s));
		else
			s->title = hg_arena_printf(s->arena, "no thread stacks%s", anr_suffix(s));
	} else {
		/* Figures without a stack (startup, FPS): one cluster per screen. */
		rc = sig_add(s, hg_arena_printf(s->arena, "scene %s", rep->scene ? rep->scene : "?"));
		s->title = rep->scene ? hg_arena_printf(s->arena, "%s in %s",
							hg_report_kind_name(rep->kind),
							sig_simple_name(rep->scene))
				      : hg_report_kind_name(rep->kind);
	}
	if (!rc && s->ex)
		rc = sig_explain_grouping(s, "%s", is_anr(rep) ? "no thread stacks: the main "
					  "thread's waiting channel and the ANR type"
							 : "no stack: the screen (scene)");
	return rc ? rc : s->title ? 0 : HG_ENOMEM;
}
