/* Naming a stored report's frames, as ingest and regroup both do: its app
 * version (the report's own, else a default, else the version folder its
 * path lies in), then that version's mappings from --mapping-dir, else the
 * ones given for every report (-m, --proguard), else (without
 * --mapping-dir) methodMapping.txt beside the report file or
 * $HANGAR_MAPPING, as hangar stack does. */
#ifndef HANGAR_NAMER_H
#define HANGAR_NAMER_H

#include <stdbool.h>

#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "hangar/report.h"

#define NAMER_MAX_PROGUARD 16
#define NAMER_MAX_VERSIONS 64 /* versions whose mappings stay loaded */

struct namer_version {
	char *version;
	hg_mapping *mapping;   /* NULL when the folder has none */
	hg_proguard *proguard;
};

struct namer {
	const hg_ctx *ctx;
	hg_mapping *mapping;                        /* -m: owned */
	hg_proguard *proguard[NAMER_MAX_PROGUARD];  /* --proguard: owned */
	int n_proguard;
	const char *mapping_dir;                    /* --mapping-dir, or NULL */
	struct namer_version versions[NAMER_MAX_VERSIONS];
	int n_versions;
	int bad_mappings;                           /* in mapping_dir, that would not load */
	/* without mapping_dir or -m: methodMapping.txt beside the report
	 * (version = its folder), else $HANGAR_MAPPING */
	struct namer_version besides[NAMER_MAX_VERSIONS];
	int n_besides;
	hg_mapping *env_mapping;
	bool env_tried;
	bool no_beside;       /* paths are object keys, not files: no mapping beside them */
};

/* Names rep's frames.  version is the default when the report names none;
 * path is where the report came from (for the version folder). */
void namer_name(struct namer *n, hg_report *rep, const char *version, const char *path);

/* Frees every mapping the namer holds. */
void namer_release(struct namer *n);

#endif
