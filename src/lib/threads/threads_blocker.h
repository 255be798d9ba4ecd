/* What the two files of hg_threads_blocker share (private to
 * src/lib/threads/): whose a frame is, and the line being built.  The
 * locks, binder calls and Java waits are in threads_blocker.c, native
 * waits in threads_blocker_native.c. */
#ifndef HANGAR_LIB_THREADS_BLOCKER_H
#define HANGAR_LIB_THREADS_BLOCKER_H

#include <stdbool.h>
#include <stddef.h>

#include "hangar/arena.h"
#include "hangar/text.h"
#include "hangar/threads.h"

#define N_OF(a) (sizeof(a) / sizeof *(a))

enum owner { OWNER_NONE, OWNER_PLATFORM, OWNER_LIBRARY, OWNER_APP };

/* The line being built, and the result it goes to. */
struct blocker_ctx {
	const hg_threads *ts;
	hg_arena *arena;
	hg_blocker *out;
	hg_buf line;
};

bool blocker_has_prefix(const char *s, const char *const *list, size_t n);
/* Java frames only (a native frame is OWNER_NONE): the platform's, a
 * common library's, else the app's. */
enum owner blocker_owner(const hg_frame *f);
/* The innermost app frame from index from on, else the innermost library
 * one; NULL when the thread runs platform code only. */
const hg_frame *blocker_top_app_frame(const hg_thread *t, size_t from);
/* Whether f is the Java frame cls.method (any method when NULL). */
bool blocker_is_java(const hg_frame *f, const char *cls, const char *method);
/* Sets the result's kind and copies the line (and frame, when not
 * empty) into the arena: 0 or HG_ENOMEM. */
int blocker_finish(struct blocker_ctx *c, const char *kind, const hg_buf *frame);
/* The same after appending sep and f's "Class.method" (when f). */
int blocker_finish_at(struct blocker_ctx *c, const char *kind, const char *sep, const hg_frame *f);

/* "native wait (futex) in Sync.run" when t's innermost frames block in
 * the kernel (threads_blocker_native.c); *found then. */
int blocker_native_wait(struct blocker_ctx *c, const hg_thread *t, bool *found);

#endif
