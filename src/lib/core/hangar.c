/* Module core (src/lib/core/): what every other module stands on.  The
 * context, error strings and diagnostics (hangar.c), arenas (arena.c),
 * growable text and JSON escaping (text.c), reading whole inputs and the
 * report files of a folder (input.c, input_folder.c), the reader thread of
 * hangar stack (pipe.c); and, private to the library through core.h, large
 * buffers (bigmem.h), newline bitmaps (linescan.c), string maps and caches
 * (strmap.c, strcache.c) and SHA-256 (sha256.c, the OpenSSL wrapper).
 * Public headers: hangar.h, arena.h, text.h, input.h, pipe.h.
 * Uses: none. */
/* Error strings, the context and diagnostics. */
#include <stdarg.h>
#include <stdio.h>

#include "hangar/hangar.h"

const char *hg_strerror(int err)
{
	switch (err) {
	case HG_OK: return "success";
	case HG_ENOMEM: return "out of memory";
	case HG_EIO: return "input/output error";
	case HG_EPARSE: return "malformed input";
	case HG_ELIMIT: return "input exceeds a size limit";
	case HG_EINVAL: return "invalid argument";
	case HG_ENOENT: return "no such file";
	}
	return "unknown error";
}

void hg_ctx_init(hg_ctx *ctx)
{
	/* Every field zero first, so that one added later (file_time_ms was
	 * left as the stack held it) starts known. */
	*ctx = (hg_ctx){0};
	ctx->limits.max_input_bytes = HG_DEFAULT_MAX_INPUT_BYTES;
	ctx->limits.max_buffer_words = HG_DEFAULT_MAX_BUFFER_WORDS;
	ctx->limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	ctx->limits.max_mapping_bytes = HG_DEFAULT_MAX_MAPPING_BYTES;
}

void hg_diagf(const hg_ctx *ctx, enum hg_severity severity, const char *source, long line,
	      long col, long report, const char *fmt, ...)
{
	if (!ctx || !ctx->diag)
		return;
	/* Messages quote at most a short excerpt of the input, so a fixed buffer
	 * suffices; a longer one is cut rather than allocated. */
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	hg_diag d = {severity, source, line, col, report, message};
	ctx->diag(ctx->diag_user, &d);
}
