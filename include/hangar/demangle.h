/* Readable names for mangled native symbols: C++ (Itanium ABI, "_Z...",
 * and Apple's "__Z...") and Swift, for the frames of iOS and Android
 * reports.  Swift names read as Swift's own swift-demangle prints them (its
 * default options, Swift 6.2): "$s..." (Swift 5 and later), "$S..." (4.2),
 * "$e..." (Embedded Swift), each also with a leading '_', "_T..." (4.0 and
 * before, still the names of Swift classes in ObjC metadata) and
 * "@__swiftmacro_..." (macro expansion buffers); an unmangled suffix
 * (".1", ".llvm.123") prints as Swift prints it: "... with unmangled
 * suffix \".1\"".
 *
 * A name is either demangled whole or not at all: a symbol that is not
 * mangled, or that uses a construct this module does not know, gives NULL,
 * never a half-demangled or guessed name.  Objective-C methods
 * ("-[Class sel:]") and C names are already readable: NULL.
 *
 * Bounds (hostile input): a symbol longer than HG_DEMANGLE_MAX_SYMBOL bytes,
 * a readable name longer than HG_DEMANGLE_MAX_OUTPUT bytes, or Swift
 * nesting deeper than HG_DEMANGLE_MAX_DEPTH gives NULL, as do more than
 * 100,000 nodes or 16,384 pending ones in one Swift symbol (repeat counts)
 * and a repeat count over 2,048; C++ recursion is bounded by libiberty's
 * own limit. */
#ifndef HANGAR_DEMANGLE_H
#define HANGAR_DEMANGLE_H

#include <stddef.h>

#include "arena.h"
#include "text.h"

#define HG_DEMANGLE_MAX_SYMBOL 16384
#define HG_DEMANGLE_MAX_OUTPUT 65536
#define HG_DEMANGLE_MAX_DEPTH 256

/* Demangles symbol[0..len) (no NUL needed; a NUL inside makes it "not
 * understood").  *readable is set to a NUL-terminated name owned by arena,
 * or to NULL when the symbol is not mangled or not understood.  Returns 0,
 * or HG_ENOMEM (*readable NULL). */
int hg_demangle(const char *symbol, size_t len, hg_arena *arena, const char **readable);

/* A memo of answers, so that the same symbol in a hundred thousand frames
 * is demangled once.  Heap object: hg_demangler_create / _destroy
 * (destroy accepts NULL).  Not thread-safe: one per thread. */
typedef struct hg_demangler hg_demangler;

hg_demangler *hg_demangler_create(void);
void hg_demangler_destroy(hg_demangler *d);

/* As hg_demangle for the NUL-terminated symbol, answering from the memo
 * when it was asked before; *readable (or NULL) is copied into arena, so it
 * lives as long as arena, not as the memo.  The memo holds at most a fixed
 * number of symbols and starts over when full.  0 or HG_ENOMEM. */
int hg_demangler_get(hg_demangler *d, const char *symbol, hg_arena *arena, const char **readable);

/* Copies text[0..len) to out with every mangled name in it replaced by its
 * readable name, as c++filt does: a name is a run of letters, digits, '_'
 * and '$' that starts with a mangling prefix after a byte that cannot be
 * part of it ("@__swiftmacro_" too), and for Swift its unmangled suffixes:
 * each '.' followed by such bytes (a '.' that ends a sentence is not one).
 * Inside a JSON string (an odd number of unescaped '"' before it on its
 * line) the quotes and backslashes of a readable name are escaped, so that
 * the JSON stays valid.  A name not understood, or whose readable form
 * holds a control byte, stays as written.  Uses d's memo.  0 or HG_ENOMEM
 * (out->failed also tells). */
int hg_demangle_text(hg_demangler *d, const char *text, size_t len, hg_buf *out);

#endif
