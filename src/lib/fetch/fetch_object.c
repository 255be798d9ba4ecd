/* What becomes of one fetched object: its staged file kept and handed to
 * the done callback, or dropped and the object reported failed. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fetch_internal.h"

void object_close_sink(struct xfer *x, bool keep)
{
	gunzip_destroy(x->gz);
	x->gz = NULL;
	if (x->file)
		fclose(x->file);
	x->file = NULL;
	if (!keep && x->part)
		unlink(x->part);
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
	if (gz != GZ_OK || !flushed || rename(x->part, x->path) != 0) {
		unlink(x->part);
		char reason[128];
		snprintf(reason, sizeof reason, "%s",
			 gz == GZ_TOO_LARGE ? "larger than the size cap"
			 : gz != GZ_OK	     ? "truncated gzip data"
					     : "cannot stage the file");
		object_failed(en, x, reason);
		return;
	}
	en->progress.done++;
	if (en->cb->done && !en->stop)
		en->stop = en->cb->done(en->user, x->obj, x->path, len);
	unlink(x->path);
}
