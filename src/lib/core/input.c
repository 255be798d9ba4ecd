/* Opening inputs (regular files, FIFOs, stdin; never devices), and whole
 * inputs into memory under the size cap. */
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

/* Why an input of this kind is not read, or NULL: it is read. */
static const char *refused_kind(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "is a directory, not a report file";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "is a device, not a report file";
	if (S_ISSOCK(st->st_mode))
		return "is a socket, not a report file";
	return NULL;
}

int input_open(const hg_ctx *ctx, const char *path, const char *name, struct stat *st)
{
	if (strcmp(path, "-") == 0) {
		if (fstat(STDIN_FILENO, st) != 0)
			memset(st, 0, sizeof *st); /* a stream, as far as we know */
		return STDIN_FILENO;
	}
	/* Looked at before the open: opening a device may do something (a
	 * tape rewinds), and a socket cannot be opened at all. */
	const char *why;
	if (stat(path, st) == 0 && (why = refused_kind(st)) != NULL) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "%s", why);
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if ((why = refused_kind(st)) != NULL) { /* replaced since the stat */
		hg_diagf(ctx, HG_DIAG_ERROR, name, 0, 0, 0, "%s", why);
		close(fd);
		return -1;
	}
	return fd;
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
		return HG_EIO;
	bool is_stdin = fd == STDIN_FILENO;
	if (input_too_large(ctx, path, &st)) {
		if (!is_stdin)
			close(fd);
		return HG_ELIMIT;
	}
	/* Never more than the limit and one byte, the byte that tells a
	 * stream (or a file that grew) is over it. */
	size_t limit = ctx->limits.max_input_bytes < SIZE_MAX - 2 ? ctx->limits.max_input_bytes
								  : SIZE_MAX - 2;
	size_t cap = 1 << 16, n = 0;
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	if (cap > limit + 1)
		cap = limit + 1;
	char *buf = hg_big_alloc(cap + 1);
	int rc = buf ? 0 : HG_ENOMEM;
	while (rc == 0) {
		if (n == cap) {
			if (n > limit) {
				hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
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
			hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "read error: %s", strerror(errno));
			rc = HG_EIO;
		}
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	if (!is_stdin)
		close(fd);
	if (rc != 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}
