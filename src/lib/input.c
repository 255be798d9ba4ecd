/* Whole inputs into memory, under the size cap. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bigmem.h"
#include "hangar/input.h"

int hg_input_read(const hg_ctx *ctx, const char *path, char **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "cannot open: %s", strerror(errno));
		return HG_EIO;
	}
	struct stat st;
	if (!is_stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "is a directory, not a report file");
		fclose(f);
		return HG_EIO;
	}
	size_t cap = 1 << 16, n = 0;
	if (!is_stdin && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < ctx->limits.max_input_bytes)
		cap = (size_t)st.st_size + 1;
	char *buf = hg_big_alloc(cap + 1);
	int rc = 0;
	while (buf) {
		if (n == cap) {
			if (cap > ctx->limits.max_input_bytes) {
				hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
					 "input is larger than the %zu-byte limit (see --max-input)",
					 ctx->limits.max_input_bytes);
				rc = HG_ELIMIT;
				break;
			}
			size_t ncap = cap * 2;
			char *p = realloc(buf, ncap + 1);
			if (!p) {
				rc = HG_ENOMEM;
				break;
			}
			buf = p;
			cap = ncap;
			hg_hint_huge(buf + n, cap - n);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0, "read error: %s", strerror(errno));
				rc = HG_EIO;
			}
			break;
		}
	}
	if (!buf)
		rc = HG_ENOMEM;
	if (!is_stdin)
		fclose(f);
	if (rc == 0 && n > ctx->limits.max_input_bytes) {
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
			 "input is larger than the %zu-byte limit (see --max-input)",
			 ctx->limits.max_input_bytes);
		rc = HG_ELIMIT;
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
