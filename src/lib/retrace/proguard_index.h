/* What the index pass (proguard_index.c) and its line scanner
 * (proguard_scan.c) share (private). */
#ifndef HANGAR_LIB_PROGUARD_INDEX_H
#define HANGAR_LIB_PROGUARD_INDEX_H

#include "proguard_internal.h"

#define PG_MAX_IDS 16 /* distinct unknown metadata ids kept per worker */

/* A line warning, kept to be sent in file order. */
struct pg_pending {
	long line;
	char msg[200];
};

/* An unknown metadata id, and the line that first names it. */
struct pg_new_id {
	long line;
	char id[96];
};

/* One part of the file, indexed by one thread (line numbers are counted
 * from the part's start). */
struct pg_worker {
	hg_proguard *pg;
	size_t begin, end;
	bool first;              /* the part that starts the file */
	bool seen_class;
	long lines;              /* newlines counted so far */
	struct pg_rec *recs;
	size_t n, cap;
	struct pg_pending warn[PG_MAX_WARNINGS];
	size_t n_warn, skipped;
	struct pg_new_id ids[PG_MAX_IDS];
	size_t n_ids;
	char map_id[128];
	char version[32];
	long version_line;
	int rc, err;
};

/* Scans text[0..limit), which starts at a line start (file offset base)
 * and holds complete lines (the last one may lack its newline at the end
 * of the part), into w: class lines, comments, warnings, lines counted. */
void pg_scan(struct pg_worker *w, const char *text, size_t limit, size_t base);

/* Keeps a warning about line `line` of w's part (the first
 * PG_MAX_WARNINGS; every one counts as a skipped line). */
void pg_worker_warn(struct pg_worker *w, long line, const char *fmt, ...) HG_PRINTF(3, 4);

#endif
