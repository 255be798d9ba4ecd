/* ProGuard / R8 mapping.txt, and retrace: obfuscated Java names and line
 * numbers back to the source.
 *
 * A mapping is indexed in one sequential pass: for each class line
 * "com.example.Original -> a.b:" only where its block starts (and its line)
 * is kept, under hashes of both names.  A class's member lines
 *     1:5:void foo(int):12:16 -> a
 * are parsed when a frame first names the class, then cached.  So a mapping
 * of hundreds of MB costs about one read of the file, and memory for the
 * classes a report touches.
 *
 * Retrace follows R8's retrace: member entries with the same obfuscated
 * line range form one inlining stack (innermost first); entries whose range
 * holds the frame's line are used, and when several stacks remain (no line,
 * or overloads that ProGuard did not tell apart) every candidate is kept and
 * marked as an alternative instead of guessed.  R8 metadata (`# {"id":...}`)
 * is read: sourceFile, synthesized (the synthesized outermost frame of an
 * inlining stack is dropped, as R8 does), outline / outlineCallsite (the
 * outline's frame is removed and its caller's line mapped through the call
 * site's positions), rewriteFrame (removeInnerFrames when the frame follows
 * an exception line that throws the named type; text only), residualsignature
 * and the com.android.tools.r8.mapping header.  Other ids are warned about
 * once each and ignored.
 *
 * Source files: the sourceFile metadata of the frame's original class; else
 * the outer class's simple name + ".kt" for a "...Kt" class, or + the
 * extension of the obfuscated class's own source file (".java" by default).
 *
 * Ownership: hg_proguard objects are caller-owned (destroy).  A mapping keeps
 * a copy of the context it was opened with: classes are expanded lazily, and
 * malformed lines inside a class block are reported (to that context's
 * diagnostics sink, which must outlive the mapping) when the class is first
 * expanded.  Expansion is serialized by a lock, so one mapping may serve
 * several threads. */
#ifndef HANGAR_PROGUARD_H
#define HANGAR_PROGUARD_H

#include <stddef.h>

#include "hangar.h"
#include "report.h"
#include "text.h"

typedef struct hg_proguard hg_proguard;

/* Indexes the mapping file at path (kept open: class blocks are read back
 * with pread when first needed).  Malformed lines are warnings
 * (path:line: why; the first 10, then a count) and are skipped; unknown R8
 * metadata is a warning once per id.  *out is owned by the caller.
 * Returns 0, HG_EIO (cannot open or read: diagnostic sent), HG_ELIMIT (over
 * ctx->limits.max_mapping_bytes), HG_EPARSE (no class line at all but
 * malformed lines: not a mapping) or HG_ENOMEM. */
int hg_proguard_open(const hg_ctx *ctx, const char *path, hg_proguard **out);

/* Same over bytes in memory, which the mapping copies; name is used in
 * diagnostics. */
int hg_proguard_from_memory(const hg_ctx *ctx, const char *name, const char *data, size_t len,
			    hg_proguard **out);

/* Frees the mapping.  Accepts NULL. */
void hg_proguard_destroy(hg_proguard *pg);

/* The name given at load (borrowed). */
const char *hg_proguard_name(const hg_proguard *pg);
/* Class lines indexed, and lines skipped as malformed so far (lines inside
 * class blocks count once their class has been expanded). */
size_t hg_proguard_class_count(const hg_proguard *pg);
size_t hg_proguard_skipped(const hg_proguard *pg);
/* The "# pg_map_id: ..." header value, or NULL (borrowed).  A frame whose
 * source file is "r8-map-id-<id>" is retraced with the mapping of that id
 * first. */
const char *hg_proguard_map_id(const hg_proguard *pg);

/* The original name of obfuscated class cls[0..len), or NULL when the
 * mapping does not name it.  Owned by the mapping.  Returns NULL on ENOMEM
 * too. */
const char *hg_proguard_class(const hg_proguard *pg, const char *cls, size_t len);

/* Mappings are untrusted: one obfuscated frame is retraced to at most this
 * many frames, all its candidates together (so at most this many
 * candidates), and its lookup to a bounded number of steps (about 4,000
 * mapping entries, candidates and comparisons).  Real R8 output stays far
 * below both: inlining stacks of a few frames, a few dozen candidates.
 * What goes past is left out (the innermost frames of an inlining stack,
 * the first candidates in mapping order are kept; a frame left with none
 * stays as it is) and is a warning to the mapping's context naming the
 * frame and the mapping line: the first 10 frames of a mapping, then one
 * line saying that more are not listed. */
#define HG_PROGUARD_MAX_FRAMES 256

/* Deobfuscates every Java frame of every thread of rep in place: class,
 * method, source file and line, an obfuscated frame becoming the frames it
 * inlines (innermost first).  The first mapping (in order; one whose
 * pg_map_id the frame names comes first) that knows the frame's class is
 * used.  Retraced frames get `retraced`; when the line cannot decide
 * between several methods, the frames of every candidate are kept, in
 * mapping order, each marked `alternative` (they come from one obfuscated
 * frame: their `text` is that frame's, the same pointer), at most
 * HG_PROGUARD_MAX_FRAMES in all.  Frames no mapping knows stay as they
 * are.  The classes of locks held and waited for are renamed too.  New
 * strings live in rep's arena.  Returns 0 or HG_ENOMEM. */
int hg_report_retrace(hg_report *rep, const hg_proguard *const *maps, size_t n_maps);

/* Text retrace, for a filter: rewrites what it can name and keeps every
 * other byte.
 *   - Java frames "at a.b.C.m(SourceFile:12)" (after any prefix: blanks, a
 *     logcat header, "\t" inside a JSON string) and bare frames
 *     "a.b.C.m(SourceFile:12)" standing alone (a Matrix threadStack line, or
 *     between "\n" escapes of a JSON string).  An inlined frame becomes
 *     several lines (at most HG_PROGUARD_MAX_FRAMES with its
 *     alternatives), each with the first one's prefix (a JSON string gets
 *     "\n" escapes instead of newlines).  Alternatives follow R8's retrace:
 *     the first line of every candidate after the first has "<OR> " before
 *     its "at ".
 *   - exception lines: "a.b.C: message", "Caused by: a.b.C: ...",
 *     "Suppressed: ...", 'Exception in thread "x" a.b.C'.
 *   - lock lines of ANR dumps: "- locked <0x..> (a a.b.C)" (also
 *     "java.lang.Class<a.b.C>" and "a.b.C[]").
 * A stream keeps what spans lines: an outline frame waits for the next line
 * (its caller), and an exception line arms rewriteFrame rules for the frame
 * that follows. */
typedef struct hg_proguard_stream hg_proguard_stream;

/* maps (borrowed, must outlive the stream).  *out is caller-owned. */
int hg_proguard_stream_create(const hg_proguard *const *maps, size_t n_maps,
			      hg_proguard_stream **out);
/* Feeds one line, with its line terminator when it has one ("\n" or
 * "\r\n"; kept as is), and appends the output it completes to out.
 * Returns 0 or HG_ENOMEM. */
int hg_proguard_stream_line(hg_proguard_stream *s, const char *line, size_t len, hg_buf *out);
/* Appends anything still held (a trailing outline frame). */
int hg_proguard_stream_finish(hg_proguard_stream *s, hg_buf *out);
void hg_proguard_stream_destroy(hg_proguard_stream *s);

/* All of the above over text[0..len) (one line or many), appended to out.
 * Returns 0 or HG_ENOMEM. */
int hg_proguard_retrace_text(const hg_proguard *const *maps, size_t n_maps, const char *text,
			     size_t len, hg_buf *out);

#endif
