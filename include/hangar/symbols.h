/* Native symbolication: naming native frames (function, source file and
 * line, inlined calls) from the build's symbol files, as ndk-stack, atos
 * and symbolicatecrash do.
 *
 * Symbol files are found in the folders given (--symbols DIR) by identity
 * only: a Mach-O's LC_UUID (thin and fat files, dSYM bundles) and an ELF's
 * GNU Build ID must equal the image's in the report (hg_image.id, from
 * KSCrash's binary_images or the "(BuildId: ...)" of Android frames); a
 * file of another identity is never used, whatever its name.  The folders
 * are indexed once, from headers only.  Addresses are read through
 * llvm-symbolizer (Debian's llvm package), started once per hg_symbols and
 * fed each report's frames as one batch.
 *
 * Addresses: an iOS frame's pc is slid to the file's address space (pc -
 * the image's load address + the file's __TEXT vmaddr), and a return
 * address (every frame but a thread's first) is looked up one byte back, in
 * its call; an Android frame's pc is debuggerd's rel_pc, already a file
 * address (and already adjusted to the call), used as it is. */
#ifndef HANGAR_SYMBOLS_H
#define HANGAR_SYMBOLS_H

#include <stddef.h>

#include "hangar.h"
#include "report.h"
#include "text.h"

typedef struct hg_symbols hg_symbols;

typedef struct hg_symbols_opts {
	const char *const *dirs;   /* n_dirs folders (or single files) of symbols; borrowed */
	size_t n_dirs;
	const char *symbolizer;    /* the llvm-symbolizer to run (a path, or a name looked
	                              up in PATH); NULL: $HANGAR_SYMBOLIZER, else
	                              "llvm-symbolizer" */
	long timeout_ms;           /* a symbolizer silent this long is killed (then frames
	                              stay addresses); 0: $HANGAR_SYMBOLIZER_TIMEOUT_MS,
	                              else 30000 */
} hg_symbols_opts;

/* What a run did, for the CLI's summary and the tests. */
typedef struct hg_symbols_stats {
	size_t entries_seen;       /* folder entries looked at */
	size_t files_opened;       /* files opened to be indexed (each once) */
	size_t binaries;           /* ELF / Mach-O files indexed */
	size_t bad_binaries;       /* binaries whose headers could not be used */
	size_t images_found;       /* distinct report images matched to a symbol file */
	size_t images_missing;     /* distinct report images with no symbol file */
	size_t binaries_used;      /* distinct symbol files asked about (each opened once by
	                              the symbolizer, which keeps it open) */
	size_t frames_named;       /* frames given a function (inlined ones not counted) */
	size_t frames_unnamed;     /* frames of a found image the symbol file could not name */
	size_t inlined;            /* inlined frames added */
	size_t queries, batches;   /* addresses asked, in how many batches */
	size_t spawns;             /* symbolizer processes started (1 at most) */
} hg_symbols_stats;

/* Indexes opts' folders (each file's header read once; warnings name files
 * that cannot be used and a dSYM bundle without DWARF) and keeps ctx
 * (borrowed; it must outlive the result) for later warnings.  Returns 0 and
 * *out (caller owns; hg_symbols_destroy), HG_ENOENT when a folder does not
 * exist (said), HG_EINVAL or HG_ENOMEM.  Nothing is started yet. */
int hg_symbols_create(const hg_ctx *ctx, const hg_symbols_opts *opts, hg_symbols **out);

/* Names rep's native frames from the symbol files (strings in rep's
 * arena): method = the function, file and line = the source line,
 * symbolicated set; each inlined call becomes a frame of its own before
 * its caller (inlined set).  An image without a symbol file is said once
 * per run (ctx's sink); if the symbolizer cannot run or fails, that is said
 * once and the frames stay addresses.  Returns 0 (also then), or
 * HG_ENOMEM.  Callable from any thread, one call at a time per s. */
int hg_symbols_apply(hg_symbols *s, hg_report *rep);

/* Names the native frame a line of text holds, as debuggerd and ART print
 * it ("#00 pc 000000000004f0a8  /data/app/.../libfoo.so (BuildId: ...)"):
 * appends line[0..len) to out (borrowed) with "  # function file:line"
 * before its newline ("  # inner file:line < outer file:line" for an
 * inlined call).  Returns 1 when it did, 0 when the line holds no such
 * frame or nothing names it (out untouched), HG_ENOMEM.  One question to
 * the symbolizer per line. */
int hg_symbols_text_line(hg_symbols *s, const char *line, size_t len, hg_buf *out);

/* The counts so far (copied into *out). */
void hg_symbols_get_stats(const hg_symbols *s, hg_symbols_stats *out);

/* Stops the symbolizer and frees s.  Accepts NULL. */
void hg_symbols_destroy(hg_symbols *s);

#endif
