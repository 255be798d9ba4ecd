/* Reading whole inputs (files or stdin) under the context's size cap. */
#ifndef HANGAR_INPUT_H
#define HANGAR_INPUT_H

#include <stddef.h>

#include "hangar.h"

/* Reads path ("-" = stdin) into *data (NUL-terminated, caller frees with
 * free()) and its length into *len.  Errors (missing file, read error, over
 * ctx->limits.max_input_bytes) go to ctx's diagnostics naming the path and
 * return HG_EIO / HG_ELIMIT / HG_ENOMEM. */
int hg_input_read(const hg_ctx *ctx, const char *path, char **data, size_t *len);

#endif
