/* What becomes of one fetched object: its staged file (or, when small, its
 * bytes in memory) kept and handed to the done callback, or dropped and the
 * object reported failed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fetch_internal.h"

void object_close_sink(struct xfer *x, bool keep)
{
	gunzip_destroy(x->gz);
	x->gz = NULL;
	if (x->file)
		fclose(x->file); /* (a memstream's body is complete once closed) */
	x->file = NULL;
	if (!keep && x->in_memory) {
		free(x->body);
		x->body = NULL;
		x->body_len = 0;
	} else if (!keep && x->staged) {
		unlink(x->part);
		x->staged = false;
	}
}

FILE *object_open_part(struct xfer *x)
{
	/* O_EXCL|O_NOFOLLOW after an unlink: a link planted at the name is not followed. */
	unlink(x->part);
	int fd = open(x->part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *file = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!file && fd >= 0)
		close(fd);
	x->staged = file != NULL;
	return file;
}

int object_spill(struct xfer *x)
{
	FILE *file = object_open_part(x);
	if (!file)
		return HG_EIO;
	fclose(x->file); /* the body so far, complete */
	x->file = file;
	bool written = x->body_len == 0 || fwrite(x->body, 1, x->body_len, file) == x->body_len;
	free(x->body);
	x->body = NULL;
	x->body_len = 0;
	x->in_memory = false;
	gunzip_retarget(x->gz, file);
	return written ? 0 : HG_EIO;
}

void object_failed(struct engine *en, struct xfer *x, const char *reason)
{
	en->progress.failed++;
	char *shown = hg_redact_url(x->obj->url);
	hg_diagf(en->src->ctx, HG_DIAG_WARNING, en->src->name, 0, 0, 0, "%s: %s",
		 shown ? shown : "(object)", reason);
	free(shown);
	if (en->cb->failed && !en->stop)
		en->stop = en->cb->failed(en->user, x->obj, reason);
}

void object_finish(struct engine *en, struct xfer *x)
{
	int gz = gunzip_finish(x->gz);
	int64_t len = gunzip_written(x->gz);
	bool flushed = fflush(x->file) == 0;
	object_close_sink(x, true);
	bool kept = gz == GZ_OK && flushed &&
		    (x->in_memory ? x->body != NULL : rename(x->part, x->path) == 0);
	x->staged = x->staged && !kept; /* renamed: the .part name is gone */
	if (!kept) {
		object_close_sink(x, false);
		char reason[128];
		snprintf(reason, sizeof reason, "%s",
			 gz == GZ_TOO_LARGE ? "larger than the size cap"
			 : gz != GZ_OK	     ? "truncated gzip data"
			 : x->in_memory	     ? "no memory to hold it"
					     : "cannot stage the file");
		object_failed(en, x, reason);
		return;
	}
	en->progress.done++;
	if (x->in_memory) {
		if (en->cb->done_data && !en->stop)
			en->stop = en->cb->done_data(en->user, x->obj, x->body, x->body_len);
		object_close_sink(x, false);
		return;
	}
	if (en->cb->done && !en->stop)
		en->stop = en->cb->done(en->user, x->obj, x->path, len);
	unlink(x->path);
}
