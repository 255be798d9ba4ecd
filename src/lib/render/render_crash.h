/* A crash report's own sections (render_crash.c): the crash handler's own
 * crash while it wrote the report (KSCrash's recrash). */
#ifndef HANGAR_RENDER_CRASH_H
#define HANGAR_RENDER_CRASH_H

#include "render_internal.h"

/* "handler crashed while reporting": its reason, diagnosis and crashed
 * thread, fitted to opts->width; nothing when rep->recrash is NULL. */
void render_recrash_tree(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 const struct style *st);

/* A thread as JSON, as the threads array writes each (render_threads_json.c). */
typedef void render_thread_json_fn(hg_buf *out, const hg_thread *t, const hg_render_opts *opts);

/* A KSCrash report's ,"recrash": null, or {"reason","diagnosis","thread"}
 * (thread as thread_json writes one, or null); nothing for other formats,
 * whose reports never say (hangar-formats(5)). */
void render_recrash_json(hg_buf *out, const hg_report *rep, const hg_render_opts *opts,
			 render_thread_json_fn *thread_json);

#endif
