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
 * return HG_EIO / HG_ELIMIT / HG_ENOMEM.  A FIFO is read as a stream; a
 * path of a live folder list (below) is never waited on: one that is no
 * longer a regular file is skipped (warned, counted) and gives HG_EIO. */
int hg_input_read(const hg_ctx *ctx, const char *path, char **data, size_t *len);

/* Reads name, a relative path resolved beneath the folder dir (borrowed),
 * as hg_input_read does, for a file an untrusted input names (an APM
 * report's stack_file): no absolute path, no ".." above dir, no symbolic
 * link that leaves it (nor an absolute one) is followed, and only a
 * regular file is read, opened without waiting (a FIFO is refused, never
 * waited on).  Refusals are said naming dir/name, with what the file is
 * ("is a device, not a <what>") but never a byte of it.  0, HG_EIO,
 * HG_ELIMIT or HG_ENOMEM. */
int hg_input_read_beneath(const hg_ctx *ctx, const char *dir, const char *name, const char *what,
			  char **data, size_t *len);

/* The report files of a folder, as ingest and stack read it.  Caller
 * owns it (hg_path_list_release); it stays where hg_input_list_folder
 * put it until then. */
typedef struct hg_path_list {
	char **paths;              /* sorted by byte value (strcmp) */
	size_t n;
	size_t skipped;            /* entries that are not regular files (then, or when opened) */
	size_t links_followed;     /* symbolic links that stay inside the folder */
	size_t links_skipped;      /* symbolic links that leave it, lead nowhere or loop */
	struct hg_input_folder *folder; /* private: the folder, open while the list lives */
} hg_path_list;

/* Whether path is a folder ("-" is not). */
bool hg_input_is_folder(const char *path);

/* Searches dir recursively for report files: regular files only, each
 * once (by device and inode: a hard or symbolic link to a file already
 * found adds nothing), sorted by path.  An entry that is not a regular file
 * (a FIFO would wait for a writer forever, a device never ends), or a
 * folder that cannot be read, is skipped with a warning naming it
 * ("skipped: a FIFO, not a regular file") and counted in skipped.  A
 * symbolic link is followed, to a file or a folder, when it stays inside
 * dir (a loop back to a folder already searched adds nothing) and counted
 * in links_followed; one that leaves dir (or is absolute), leads nowhere
 * or loops is skipped with a warning and counted in links_skipped.  Files
 * that are not reports are left out silently: hidden files,
 * methodMapping.txt and mapping.txt, and names ending in .md, .rules,
 * .txt.gz, .db, .db-wal or .db-shm.  0, HG_ENOMEM, or HG_EIO (the folder
 * cannot be searched at all: a diagnostic names it).
 *
 * While the list lives, its paths (the same strings, by value) are opened
 * by hg_reports_read_path and hg_input_read beneath dir and never waited
 * on: a file replaced since by a FIFO, a device or a socket is skipped
 * with a warning and counted in skipped (by the thread that reads the
 * list), so read skipped once the paths were read. */
int hg_input_list_folder(const hg_ctx *ctx, const char *dir, hg_path_list *out);
void hg_path_list_release(hg_path_list *list);

#endif
