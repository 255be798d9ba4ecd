/* What the threads module offers the report readers beyond hangar/threads.h
 * (private to the library; the one header of src/lib/threads/ that another
 * module may include, see scripts/check-layout). */
#ifndef HANGAR_LIB_THREADS_INTERNAL_H
#define HANGAR_LIB_THREADS_INTERNAL_H

#include <stddef.h>

#include "hangar/arena.h"
#include "hangar/threads.h"

/* hg_frame_parse_java, its strings from names (core/strcache.h; the same
 * arena) when not NULL: a big dump repeats its classes, methods and files,
 * often whole frames, thousands of times.  The strings may then be shared. */
struct strcache;
int frame_parse_java_cached(const char *s, size_t len, hg_arena *arena, struct strcache *names,
			    hg_frame *out);

#endif
