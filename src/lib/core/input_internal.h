/* Opening inputs (private): what a path is decides how it is read. */
#ifndef HANGAR_LIB_INPUT_INTERNAL_H
#define HANGAR_LIB_INPUT_INTERNAL_H

#include <stdbool.h>
#include <sys/stat.h>

#include "hangar/hangar.h"

/* Opens path ("-": standard input, taken as it is) for reading.  A regular
 * file is read as a file, a FIFO as a stream (the open waits for a writer,
 * as reading stdin does); a folder, a device or a socket is refused before
 * it is opened, never read.  *st gets the status of what was opened.
 * Returns the descriptor, or -1 after a diagnostic naming `name`. */
int input_open(const hg_ctx *ctx, const char *path, const char *name, struct stat *st);

/* A regular file larger than ctx->limits.max_input_bytes, said with its
 * size and the limit (a diagnostic naming `name`): it is refused from its
 * size, before it is read. */
bool input_too_large(const hg_ctx *ctx, const char *name, const struct stat *st);

#endif
