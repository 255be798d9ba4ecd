/* Naming a report's frames, the one way every command does it (stack,
 * ingest, regroup, merge, diff --flame): its app version (the report's
 * own, else a default, else the version folder its path lies in), then
 * that version's mappings from mapping_dir, else the ones given for every
 * report, else (without mapping_dir, and when no methodMapping was given)
 * methodMapping.txt beside the report file or $HANGAR_MAPPING, each loaded
 * once; native frames from --symbols folders.
 *
 * Ownership: a namer owns every mapping and symbol index it loads, freed
 * by hg_namer_destroy; the option strings are borrowed (mapping_dir must
 * outlive the namer), and so is its ctx.  A namer is used by one thread
 * at a time (it loads mappings as reports need them, and a mapping's
 * lookups are not for two threads at once); it prints nothing: problems
 * go to its ctx's sink.  Implemented in src/lib/ingest/namer.c. */
#ifndef HANGAR_NAMER_H
#define HANGAR_NAMER_H

#include <stdbool.h>

#include "hangar.h"
#include "report.h"
#include "symbols.h"

#define HG_NAMER_MAX_PROGUARD 16  /* ProGuard/R8 mappings given for every report */
#define HG_NAMER_MAX_SYMBOLS 16   /* --symbols folders */

typedef struct hg_namer hg_namer;

typedef struct hg_namer_opts {
	const char *mapping;             /* methodMapping.txt for every report; may be NULL */
	const char *const *proguard;     /* n_proguard files, at most HG_NAMER_MAX_PROGUARD */
	int n_proguard;
	const char *mapping_dir;         /* DIR/<version>/{methodMapping,mapping}.txt; may be
	                                    NULL; borrowed, must outlive the namer */
} hg_namer_opts;

/* Loads opts' mappings and checks that mapping_dir is a folder.  Returns 0
 * and *out (caller owns; hg_namer_destroy), the error of the first mapping
 * that fails (said through ctx), HG_ENOENT when mapping_dir is not a folder
 * (not said: the caller names it), HG_EINVAL or HG_ENOMEM.  ctx is
 * borrowed and must outlive the namer. */
int hg_namer_create(const hg_ctx *ctx, const hg_namer_opts *opts, hg_namer **out);

/* Frees the namer and all it loaded.  Accepts NULL. */
void hg_namer_destroy(hg_namer *n);

/* The methodMapping.txt for every report, or one more ProGuard/R8
 * mapping.txt (path borrowed for the call), for a caller that goes on when
 * one does not load (hg_namer_create stops): 0, or the loader's error
 * (said through the namer's ctx), or HG_EINVAL (a second methodMapping,
 * more than HG_NAMER_MAX_PROGUARD).  A methodMapping given that does not
 * load still counts as given: reports are then named without one, never
 * with the one beside them. */
int hg_namer_add_mapping(hg_namer *n, const char *path);
int hg_namer_add_proguard(hg_namer *n, const char *path);

/* Names native frames too, from n_dirs folders of .so files and dSYMs
 * (symbols.h; dirs borrowed for the call), indexed now; once per namer.
 * 0, or hg_symbols_create's error (said through the namer's ctx; native
 * frames then stay addresses), or HG_EINVAL (more than
 * HG_NAMER_MAX_SYMBOLS, or called twice). */
int hg_namer_add_symbols(hg_namer *n, const char *const *dirs, int n_dirs);

/* Names rep's frames: method ids (after hg_report_rebuild, for a report
 * read with ctx->defer_rebuild), obfuscated Java frames, native frames.
 * version is the app version of a report that names none (may be NULL;
 * kept as its app_version); path is where the report came from (may be
 * NULL; "-" is stdin).  A methodMapping that looks like another app's
 * is said once per mapping and app (the report carries the warning too).
 * Returns 0, or HG_ENOMEM (what was named stays named). */
int hg_namer_name(hg_namer *n, hg_report *rep, const char *version, const char *path);

/* Mappings found in mapping_dir, beside reports or in $HANGAR_MAPPING that
 * did not load (each counted once). */
int hg_namer_bad_mappings(const hg_namer *n);

/* What the native symbols did so far (copied into *out); false when the
 * namer names no native frames (no hg_namer_add_symbols, or it failed). */
bool hg_namer_symbols_stats(const hg_namer *n, hg_symbols_stats *out);

#endif
