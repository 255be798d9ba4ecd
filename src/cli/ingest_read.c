/* hangar ingest's reader thread: files, folders (searched recursively, in
 * a stable order, regular files only) and stdin or FIFOs (streams); each report parsed, named (mappings), signed
 * and prepared for the store here, so that the writer only writes. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest.h"

int ingest_on_report(void *user, hg_report *rep)
{
	struct ingest *in = user;
	in->reports_of_object++;
	struct ingest_item item = {.rep = rep};
	if (!rep->error) {
		if (!rep->process && in->app) /* stored as the report's app: regroup finds it */
			rep->process = hg_arena_strdup(rep->arena, in->app);
		namer_name(&in->names, rep, in->app_version, in->path);
		item.err = hg_signature_compute(rep, in->rules, rep->arena, &item.sig);
		if (!item.err && !item.sig.app_known && !in->warned_no_app) {
			in->warned_no_app = true;
			hg_diagf(&in->ctx, HG_DIAG_WARNING, rep->source, rep->line, 0, 0,
				 "the report names no app (no process or bundle id): reports like it "
				 "are grouped apart, as \"%s\"; --app NAME names their app",
				 item.sig.app);
		}
		if (!item.err)
			item.err = hg_store_prepare_with(rep, rep->text ? rep->text : "",
							 rep->text ? rep->text_len : 0, in->symbols,
							 &item.prep);
	}
	if (!ingest_queue_push(&in->queue, &item)) {
		ingest_item_release(&item);
		return HG_EIO; /* the writer gave up */
	}
	return 0;
}

static void ingest_file(struct ingest *in, const char *path)
{
	in->path = path;
	int rc = hg_reports_read_path(&in->ctx, path, NULL, in->format, ingest_on_report, in);
	if (rc == HG_EIO || rc == HG_ELIMIT) {
		/* Unreadable (or the rest of it): recorded too, so that nothing
		 * is lost without a trace. */
		struct ingest_item item = {.path = strdup(path), .reason = strdup(in->diags.last)};
		if (!item.path || !item.reason || !ingest_queue_push(&in->queue, &item))
			ingest_item_release(&item);
	}
}

/* Folders are read in a stable order: their files, sorted.  nftw has no
 * user pointer, hence the file-level list (used by the reader thread only). */
static char **found;
static size_t n_found, cap_found;
static struct ingest *walking; /* the run whose folder is walked */

/* What a folder entry that is not a regular file is, or NULL: it is one. */
static const char *not_regular(int type, const struct stat *st)
{
	if (type == FTW_DNR)
		return "a folder that cannot be read";
	if (type == FTW_NS)
		return "a file whose status cannot be read";
	if (type != FTW_F || S_ISREG(st->st_mode))
		return NULL;
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	return "not a regular file";
}

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	/* Only regular files are read: a FIFO would wait for a writer
	 * forever, a device never ends.  Symbolic links are not followed
	 * (FTW_SL), so what they point to is never opened. */
	const char *kind = not_regular(type, st);
	if (kind) {
		hg_diagf(&walking->ctx, HG_DIAG_WARNING, path, 0, 0, 0, "skipped: %s%s", kind,
			 type == FTW_F ? ", not a regular file" : "");
		walking->files_skipped++;
		return 0;
	}
	if (type != FTW_F)
		return 0;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	static const char *const not_reports[] = {".md", ".rules", ".txt.gz", ".db", ".db-wal",
						  ".db-shm"};
	if (base[0] == '.' || !strcmp(base, "methodMapping.txt") || !strcmp(base, "mapping.txt"))
		return 0; /* hidden files and mappings are not reports */
	for (size_t i = 0; i < sizeof not_reports / sizeof not_reports[0]; i++) {
		size_t k = strlen(not_reports[i]);
		if (n > k && !strcmp(base + n - k, not_reports[i]))
			return 0; /* notes, rules files, stores */
	}
	if (n_found == cap_found) {
		size_t cap = cap_found ? cap_found * 2 : 256;
		char **f = realloc(found, cap * sizeof *f);
		if (!f)
			return -1;
		found = f;
		cap_found = cap;
	}
	found[n_found] = strdup(path);
	return found[n_found++] ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ingest_input(struct ingest *in, const char *path)
{
	struct stat st;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		n_found = 0;
		walking = in;
		nftw(path, collect, 16, FTW_PHYS);
		walking = NULL;
		qsort(found, n_found, sizeof *found, by_name);
		for (size_t i = 0; i < n_found; i++) {
			if (!ingest_queue_stopped(&in->queue))
				ingest_file(in, found[i]);
			free(found[i]);
		}
		free(found);
		found = NULL;
		n_found = cap_found = 0;
		return;
	}
	ingest_file(in, path);
}

void *ingest_reader(void *arg)
{
	struct ingest *in = arg;
	for (int i = 0; i < in->n_inputs && !ingest_queue_stopped(&in->queue); i++)
		if (ingest_is_url(in->inputs[i]))
			ingest_remote(in, in->inputs[i]);
		else
			ingest_input(in, in->inputs[i]);
	ingest_queue_close(&in->queue);
	return NULL;
}
