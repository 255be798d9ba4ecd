/* The report files of a folder, found as ingest and stack both read them:
 * searched recursively, regular files only, in a stable order. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hangar/input.h"

/* nftw has no user pointer: the walk's state is file-level, and one walk
 * at a time holds it (ingest and stack walk on their reader threads). */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
static const hg_ctx *walk_ctx;
static hg_path_list *walk_out;
static size_t walk_cap;
static int walk_err;

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

/* Files beside reports that are not reports: hidden files, mappings,
 * notes, rules files, stores. */
static bool not_a_report(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	static const char *const suffixes[] = {".md", ".rules", ".txt.gz", ".db", ".db-wal",
					       ".db-shm"};
	if (base[0] == '.' || !strcmp(base, "methodMapping.txt") || !strcmp(base, "mapping.txt"))
		return true;
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && !strcmp(base + n - k, suffixes[i]))
			return true;
	}
	return false;
}

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	/* Only regular files are read: a FIFO would wait for a writer
	 * forever, a device never ends.  Symbolic links are not followed
	 * (FTW_SL), so what they point to is never opened. */
	const char *kind = not_regular(type, st);
	if (kind) {
		hg_diagf(walk_ctx, HG_DIAG_WARNING, path, 0, 0, 0, "skipped: %s%s", kind,
			 type == FTW_F ? ", not a regular file" : "");
		walk_out->skipped++;
		return 0;
	}
	if (type != FTW_F || not_a_report(path))
		return 0;
	if (walk_out->n == walk_cap) {
		size_t cap = walk_cap ? walk_cap * 2 : 256;
		char **p = realloc(walk_out->paths, cap * sizeof *p);
		if (!p) {
			walk_err = HG_ENOMEM;
			return -1;
		}
		walk_out->paths = p;
		walk_cap = cap;
	}
	if (!(walk_out->paths[walk_out->n] = strdup(path))) {
		walk_err = HG_ENOMEM;
		return -1;
	}
	walk_out->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool hg_input_is_folder(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int hg_input_list_folder(const hg_ctx *ctx, const char *dir, hg_path_list *out)
{
	*out = (hg_path_list){0};
	pthread_mutex_lock(&walk_lock);
	walk_ctx = ctx;
	walk_out = out;
	walk_cap = 0;
	walk_err = 0;
	int rc = nftw(dir, collect, 16, FTW_PHYS);
	int err = walk_err ? walk_err : rc != 0 ? HG_EIO : 0;
	walk_ctx = NULL;
	walk_out = NULL;
	pthread_mutex_unlock(&walk_lock);
	if (err == HG_EIO)
		hg_diagf(ctx, HG_DIAG_ERROR, dir, 0, 0, 0, "cannot search the folder");
	if (err) {
		hg_path_list_release(out);
		return err;
	}
	qsort(out->paths, out->n, sizeof *out->paths, by_name);
	return 0;
}

void hg_path_list_release(hg_path_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->paths[i]);
	free(list->paths);
	*list = (hg_path_list){0};
}
