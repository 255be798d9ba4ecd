/* methodMapping.txt, written by the matrix-gradle-plugin: lines
 *   id,accessFlags,class method descriptor
 * e.g. "1048574,1,android.os.Handler dispatchMessage (Landroid.os.Message;)V".
 * Indexed in one sequential pass; ids (20 bits) index a flat table of line
 * offsets, so a lookup is O(1): one read of one line.  Symbols are formatted
 * only when looked up.  A loaded mapping is read-only and may be shared. */
#ifndef HANGAR_MAPPING_H
#define HANGAR_MAPPING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "hangar.h"

typedef struct hg_mapping hg_mapping;

/* One mapping entry; the slices point into a copy of its line owned by the
 * arena given to hg_mapping_lookup, and are not NUL-terminated. */
typedef struct hg_mapping_entry {
	const char *cls;
	size_t cls_len;
	const char *method;
	size_t method_len;
	const char *desc;   /* empty for native methods */
	size_t desc_len;
	int32_t access_flags;
} hg_mapping_entry;

/* Indexes the file at path (kept open for lookups).  Malformed lines are reported to
 * ctx's diagnostics as warnings (path:line: why) and skipped; a duplicate id
 * keeps its first line.  *out is owned by the caller (hg_mapping_destroy).
 * Returns 0, HG_EIO (diagnostic sent), HG_ELIMIT or HG_ENOMEM. */
int hg_mapping_open(const hg_ctx *ctx, const char *path, hg_mapping **out);

/* Same over bytes already in memory, which the mapping copies. */
int hg_mapping_from_memory(const hg_ctx *ctx, const char *name, const char *data, size_t len,
			   hg_mapping **out);

/* Frees the mapping.  Accepts NULL. */
void hg_mapping_destroy(hg_mapping *mapping);

/* The file name given at load (borrowed). */
const char *hg_mapping_name(const hg_mapping *mapping);

/* Number of ids the mapping holds, and of lines it skipped as malformed. */
size_t hg_mapping_count(const hg_mapping *mapping);
size_t hg_mapping_skipped(const hg_mapping *mapping);

/* Looks id up; returns 0 and fills *entry (its text copied into arena), or
 * HG_EINVAL when absent, or HG_ENOMEM. */
int hg_mapping_lookup(const hg_mapping *mapping, int32_t id, hg_arena *arena,
		      hg_mapping_entry *entry);

/* The symbol of id as a Java developer reads it, e.g.
 * "com.example.db.UserRepository.query(String, int)", owned by arena;
 * NULL when the id is not in the mapping (or on ENOMEM).  Overloads the
 * mapping holds are told apart: whole parameter classes when their simple
 * names agree, " -> Return" when only the return type differs
 * ("get(int, String) -> UserModelEntity").  Remembers what it
 * formatted (up to 64 MiB), so one mapping must not be asked from two
 * threads at once. */
const char *hg_mapping_symbol(const hg_mapping *mapping, int32_t id, hg_arena *arena);

/* Whether some class of the mapping is in the Java package of the first
 * len bytes of package (e.g. "com.example": "com.example.Feed",
 * "com.example.db.Users$1" are).  Found by reading the file once per
 * package, the answer kept for a few packages, so one mapping must not be
 * asked from two threads at once (as hg_mapping_symbol).  True when it
 * cannot tell (a read fails, out of memory): it clears the mapping of
 * doubt, never accuses it. */
bool hg_mapping_has_package(const hg_mapping *mapping, const char *package, size_t len);

/* Formats class + method + JVM descriptor (dotted or slashed class names) as
 * above; an unparseable descriptor is kept verbatim after the name.  Owned by
 * arena. */
char *hg_format_java_method(hg_arena *arena, const char *cls, size_t cls_len, const char *method,
			    size_t method_len, const char *desc, size_t desc_len);

#endif
