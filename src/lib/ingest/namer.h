/* Naming a stored report's frames, as ingest and regroup both do: its app
 * version (the report's own, else a default, else the version folder its
 * path lies in), then that version's mappings from --mapping-dir, else the
 * ones given for every report (-m, --proguard), else (without
 * --mapping-dir) methodMapping.txt beside the report file or
 * $HANGAR_MAPPING, as hangar stack does. */
#ifndef HANGAR_NAMER_H
#define HANGAR_NAMER_H

#include <stdbool.h>

#include "hangar/cluster.h"
#include "hangar/mapping.h"
#include "hangar/proguard.h"
#include "hangar/report.h"
#include "hangar/store.h"
#include "reread_failures.h"

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

/* Loads -m (mapping, may be NULL) and the n_pg --proguard files into n and
 * checks that n->mapping_dir is a folder: false (said on stderr as
 * "hangar CMD: ...") when one fails. */
bool namer_load(struct namer *n, const char *cmd, const char *mapping,
		const char *const *proguard, int n_pg);

/* Reading a stored report again, named and signed as ingest would (regroup
 * and merge): an hg_regroup_fn whose user is a struct namer_reread. */
struct namer_reread {
	const hg_ctx *ctx;
	const hg_rules *rules;     /* may be NULL */
	struct namer *names;
	const char *app_version;   /* for reports that name none; may be NULL */
	enum hg_input_format format; /* HG_FORMAT_AUTO: detect */
	size_t unreadable;         /* reports that could not be read again */
	/* NULL: the re-reading's diagnostics go to ctx as they come; else
	 * each report not read again is recorded here with its first error
	 * (and its diagnostics are not printed). */
	struct reread_failures *failures;
};

/* Reports it cannot read again now (or whose stack was outside its text:
 * an APM report's --stack-dir) are left where they are (*out NULL). */
int namer_reread(void *user, const hg_regroup_item *item, hg_report **out, hg_signature *sig);

#endif
