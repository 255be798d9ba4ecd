/* Reading whole inputs (files or stdin) under the context's size cap, and
 * finding the report files of a folder. */
#ifndef HANGAR_INPUT_H
#define HANGAR_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "hangar.h"

/* Reads path ("-" = stdin) into *data (NUL-terminated, caller frees with
 * free()) and its length into *len.  Errors (missing file, read error, over
 * ctx->limits.max_input_bytes) go to ctx's diagnostics naming the path and
 * return HG_EIO / HG_ELIMIT / HG_ENOMEM. */
int hg_input_read(const hg_ctx *ctx, const char *path, char **data, size_t *len);

/* The report files of a folder, as ingest and stack read it.  Caller
 * owns paths (hg_path_list_release). */
typedef struct hg_path_list {
	char **paths;              /* sorted by byte value (strcmp) */
	size_t n;
	size_t skipped;            /* entries that are not regular files */
} hg_path_list;

/* Whether path is a folder ("-" is not). */
bool hg_input_is_folder(const char *path);

/* Searches dir recursively for report files: regular files only, sorted
 * by path.  An entry that is not a regular file (a FIFO would wait for a
 * writer forever, a device never ends), or a folder that cannot be read,
 * is skipped with a warning naming it ("skipped: a FIFO, not a regular
 * file") and counted in skipped; symbolic links are not followed.  Files
 * that are not reports are left out silently: hidden files,
 * methodMapping.txt and mapping.txt, and names ending in .md, .rules,
 * .txt.gz, .db, .db-wal or .db-shm.  0, HG_ENOMEM, or HG_EIO (the folder
 * cannot be searched at all: a diagnostic names it). */
int hg_input_list_folder(const hg_ctx *ctx, const char *dir, hg_path_list *out);
void hg_path_list_release(hg_path_list *list);

#endif
