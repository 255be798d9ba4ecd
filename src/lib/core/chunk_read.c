/* Chunked reading of part of a file (chunk_read.h): a chunk is read with
 * pread after what is left of the one before, the callback takes the
 * complete lines, and the rest moves to the front. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk_read.h"
#include "hangar/hangar.h"

int chunk_read(const struct chunk_read *r, int *err)
{
	char *buf = malloc(r->chunk);
	if (!buf)
		return HG_ENOMEM;
	size_t base = r->begin, filled = 0; /* buf[0] is at file offset base */
	bool eof = false, skipping = false; /* skipping the rest of an overlong line */
	int rc = 0;
	while (!eof) {
		size_t want = r->chunk - filled, left = r->end - (base + filled);
		ssize_t n = left ? pread(r->fd, buf + filled, want < left ? want : left,
					 (off_t)(base + filled))
				 : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = errno;
			rc = HG_EIO;
			break;
		}
		eof = n == 0;
		filled += (size_t)n;
		size_t used = 0;
		if (skipping) {
			const char *nl = memchr(buf, '\n', filled);
			used = nl ? (size_t)(nl - buf) + 1 : filled;
			skipping = !nl && !eof;
			if (nl && r->skipped)
				r->skipped(r->user);
		}
		size_t took = r->lines(r->user, buf + used, filled - used, base + used, eof);
		if (took == CHUNK_STOP)
			break;
		used += took;
		if (used == 0 && filled == r->chunk) {
			if (r->too_long)
				r->too_long(r->user, buf, filled);
			skipping = true;
			used = filled;
		}
		memmove(buf, buf + used, filled - used);
		filled -= used;
		base += used;
	}
	free(buf);
	return rc;
}
