/* Opening inputs (regular files, FIFOs, stdin; never devices), decided by
 * the status of the descriptor opened, and whole inputs into memory under
 * the size cap. */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigmem.h"
#include "hangar/input.h"
#include "input_internal.h"

const char *input_kind(mode_t mode, bool detailed)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return detailed ? "a character device" : "a device";
	if (S_ISBLK(mode))
		return detailed ? "a block device" : "a device";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

/* Why an input named so is not read, or NULL: a file is read, a FIFO is a
 * stream. */
static const char *refused_kind(const struct stat *st)
{
	return S_ISFIFO(st->st_mode) ? NULL : input_kind(st->st_mode, false);
}

/* The descriptor, opened O_NONBLOCK so that the open itself never waited,
 * made blocking for its reads; -1 (closed, said) if it cannot be. */
static int blocking(const hg_ctx *ctx, int fd, const char *name)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* A file of a folder's list, opened beneath the folder and never waited
 * on: what is there now may not be what the listing saw. */
static int open_listed(const hg_ctx *ctx, const struct input_listed *l, const char *name,
		       struct stat *st)
{
	int fd = input_openat_beneath(l->dirfd, l->rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "cannot open: %s",
			 errno == EXDEV ? "it leads out of its folder now, through a symbolic link"
					: strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	const char *kind = input_kind(st->st_mode, true);
	if (kind) { /* replaced since the listing */
		hg_diagf(ctx, HG_DIAG_WARNING, name, 0, 0, 0, "skipped: %s, not a regular file", kind);
		(*l->skipped)++;
		close(fd);
		return INPUT_SKIPPED;
	}
	return blocking(ctx, fd, name);
}

int input_open(const hg_ctx *ctx, const char *path, const char *name, struct stat *st)
{
	if (strcmp(path, "-") == 0) {
		if (fstat(STDIN_FILENO, st) != 0)
			memset(st, 0, sizeof *st); /* a stream, as far as we know */
		return STDIN_FILENO;
	}
	struct input_listed listed;
	if (input_folder_lookup(path, &listed))
		return open_listed(ctx, &listed, name, st);
	/* Looked at before the open: opening a device may do something (a
	 * tape rewinds), and a socket cannot be opened at all. */
	const char *why;
	bool seen = stat(path, st) == 0;
	if (seen && (why = refused_kind(st)) != NULL) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "is %s, not a report file", why);
		return -1;
	}
	/* What the open finds decides, not what the stat saw.  A FIFO named
	 * so is a stream: its open waits for a writer, as reading stdin does
	 * (a non-blocking open, then a blocking one, would let a writer come
	 * and go between them and wait for another forever).  Anything else
	 * is opened without waiting; a FIFO put there since is read as far
	 * as it goes. */
	bool fifo = seen && S_ISFIFO(st->st_mode);
	int fd = open(path, O_RDONLY | O_CLOEXEC | (fifo ? 0 : O_NONBLOCK));
	if (fd < 0 || fstat(fd, st) != 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((why = refused_kind(st)) != NULL) { /* replaced since the stat */
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "is %s, not a report file", why);
		close(fd);
		return -1;
	}
	return blocking(ctx, fd, name);
}

bool input_too_large(const hg_ctx *ctx, const char *name, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_size < 0 ||
	    (uint64_t)st->st_size <= ctx->limits.max_input_bytes)
		return false;
	hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0,
		 "input is %lld bytes, larger than the %zu-byte limit (see --max-input)",
		 (long long)st->st_size, ctx->limits.max_input_bytes);
	return true;
}

int hg_input_read(const hg_ctx *ctx, const char *path, char **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	struct stat st;
	int fd = input_open(ctx, path, path, &st);
	if (fd < 0)
		return HG_EIO; /* INPUT_SKIPPED too: nothing was read */
	int rc = input_too_large(ctx, path, &st) ? HG_ELIMIT
						 : input_read_fd(ctx, fd, &st, path, data, len);
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}

/* Why dir/name, refused by input_openat_beneath (errno e), is not read. */
static void say_not_beneath(const hg_ctx *ctx, int dirfd, const char *dir, const char *name,
			    const char *what, const char *label, int e)
{
	struct stat st;
	if (e == EXDEV) {
		/* What the link leads to is told by its kind, never opened. */
		const char *kind = fstatat(dirfd, name, &st, 0) == 0 ? input_kind(st.st_mode, false) : NULL;
		if (kind)
			hg_diagf(ctx, HG_DIAG_ERROR, label, 0, 0, 0, "is %s, not a %s, and leads out "
				 "of the folder %s through a symbolic link", kind, what, dir);
		else
			hg_diagf(ctx, HG_DIAG_ERROR, label, 0, 0, 0, "leads out of the folder %s "
				 "through a symbolic link", dir);
		return;
	}
	hg_diagf(ctx, HG_DIAG_ERROR, label, 0, 0, 0, "%s",
		 e == ELOOP ? "is a loop of symbolic links" : strerror(e));
}

int hg_input_read_beneath(const hg_ctx *ctx, const char *dir, const char *name, const char *what,
			  char **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	size_t n = strlen(dir) + strlen(name) + 2;
	char *label = malloc(n);
	if (!label)
		return HG_ENOMEM;
	snprintf(label, n, "%s/%s", dir, name);
	int rc = HG_EIO, fd = -1;
	int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (dirfd < 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, label, 0, 0, 0, "cannot open its folder: %s",
			 strerror(errno));
	} else if ((fd = input_openat_beneath(dirfd, name, O_RDONLY | O_NONBLOCK)) < 0) {
		say_not_beneath(ctx, dirfd, dir, name, what, label, errno);
	} else if (fstat(fd, &st) != 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, label, 0, 0, 0, "cannot open: %s", strerror(errno));
	} else if (input_kind(st.st_mode, false)) {
		hg_diagf(ctx, HG_DIAG_ERROR, label, 0, 0, 0, "is %s, not a %s", input_kind(st.st_mode, false),
			 what);
	} else if (input_too_large(ctx, label, &st)) {
		rc = HG_ELIMIT;
	} else if ((fd = blocking(ctx, fd, label)) >= 0) {
		rc = input_read_fd(ctx, fd, &st, label, data, len);
	}
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	free(label);
	return rc;
}

int input_read_fd(const hg_ctx *ctx, int fd, const struct stat *st, const char *name, char **data,
		  size_t *len)
{
	/* Never more than the limit and one byte, the byte that tells a
	 * stream (or a file that grew) is over it. */
	size_t limit = ctx->limits.max_input_bytes < SIZE_MAX - 2 ? ctx->limits.max_input_bytes
								  : SIZE_MAX - 2;
	size_t cap = 1 << 16, n = 0;
	if (S_ISREG(st->st_mode) && st->st_size > 0)
		cap = (size_t)st->st_size + 1;
	if (cap > limit + 1)
		cap = limit + 1;
	char *buf = hg_big_alloc(cap + 1);
	int rc = buf ? 0 : HG_ENOMEM;
	while (rc == 0) {
		if (n == cap) {
			if (n > limit) {
				hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0,
					 "input is larger than the %zu-byte limit (see --max-input)",
					 ctx->limits.max_input_bytes);
				rc = HG_ELIMIT;
				break;
			}
			size_t ncap = cap > limit / 2 ? limit + 1 : cap * 2;
			char *p = realloc(buf, ncap + 1);
			if (!p) {
				rc = HG_ENOMEM;
				break;
			}
			buf = p;
			cap = ncap;
			hg_hint_huge(buf + n, cap - n);
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "read error: %s", strerror(errno));
			rc = HG_EIO;
		}
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	if (rc != 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}
