/* Opening inputs (private): what a path is decides how it is read. */
#ifndef HANGAR_LIB_INPUT_INTERNAL_H
#define HANGAR_LIB_INPUT_INTERNAL_H

#include <stdbool.h>
#include <sys/stat.h>

#include "hangar/hangar.h"

/* input_open's answer for a file of a folder's list that is no longer a
 * regular file: skipped (warned, counted in the list's skipped), not an
 * error. */
#define INPUT_SKIPPED (-2)

/* Opens path ("-": standard input, taken as it is) for reading; *st gets
 * the status of the descriptor opened, which alone decides what it is.
 *   - A path of a live folder list (hg_input_list_folder) is opened beneath
 *     that folder, never waited on: a FIFO, device or socket found there
 *     now is skipped (INPUT_SKIPPED).
 *   - Any other path: a regular file is read as a file, a FIFO named so is
 *     a stream (the open waits for a writer, as reading stdin does); a
 *     folder, a device or a socket is refused, never read.
 * Returns the descriptor (blocking), INPUT_SKIPPED, or -1 after a
 * diagnostic naming `name`. */
int input_open(const hg_ctx *ctx, const char *path, const char *name, struct stat *st);

/* A regular file larger than ctx->limits.max_input_bytes, said with its
 * size and the limit (a diagnostic naming `name`): it is refused from its
 * size, before it is read. */
bool input_too_large(const hg_ctx *ctx, const char *name, const struct stat *st);

/* What a file that is not a regular one is ("a FIFO", "a directory",
 * "a socket", "a device": "a character device" or "a block device" when
 * detailed), or NULL for a regular file. */
const char *input_kind(mode_t mode, bool detailed);

/* Reads the whole of fd (a regular file of status *st, or a stream) under
 * the size cap, as hg_input_read does; fd is left open. */
int input_read_fd(const hg_ctx *ctx, int fd, const struct stat *st, const char *name, char **data,
		  size_t *len);

/* Opens rel beneath the folder dirfd with open(2)'s flags: no absolute
 * path, no ".." above dirfd and no symbolic link that leaves it (nor an
 * absolute one) is followed: -1 with errno EXDEV; ELOOP after 40 links.
 * openat2(RESOLVE_BENEATH) where the kernel has it, else
 * input_openat_beneath_walk. */
int input_openat_beneath(int dirfd, const char *rel, int flags);

/* The same, one component at a time in user space (the fallback; tests
 * compare the two).  Racing renames cannot lead it out: each step is
 * opened from the one before with O_NOFOLLOW. */
int input_openat_beneath_walk(int dirfd, const char *rel, int flags);

/* A path of a live folder list: the folder's descriptor, the path below
 * it (pointing into the path looked up) and the list's count of skipped
 * entries, for a file found unfit when opened. */
struct input_listed {
	int dirfd;
	const char *rel;
	size_t *skipped;
};
bool input_folder_lookup(const char *path, struct input_listed *out);

#endif
