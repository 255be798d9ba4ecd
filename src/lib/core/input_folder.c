/* The report files of a folder, found as ingest and stack both read them:
 * searched recursively, regular files only, each once, in a stable order;
 * symbolic links followed while they stay inside the folder.  The folder
 * stays open while its list lives, so that its files are opened beneath it
 * and never waited on (input_open, by input_folder_lookup). */
#define _GNU_SOURCE /* O_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hangar/input.h"
#include "input_internal.h"

/* A listed folder: its descriptor, the prefix of its paths (the folder as
 * given, and a '/'), its list; on the live list while the list lives. */
struct hg_input_folder {
	int root;
	char *prefix;
	size_t prefix_len;
	hg_path_list *list;
	struct hg_input_folder *next;
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hg_input_folder *live;

struct found {
	char *rel; /* below the root */
	dev_t dev;
	ino_t ino;
	bool via_link;
};

struct file_id {
	dev_t dev;
	ino_t ino;
};

/* One entry of a folder, as its lstat saw it (err: why it could not);
 * no whole struct stat: a folder may hold 100,000 of them. */
struct entry {
	char *name;
	mode_t mode;
	int err;
	dev_t dev;
	ino_t ino;
};

struct walk {
	const hg_ctx *ctx;
	struct hg_input_folder *f;
	hg_path_list *out;
	struct found *files;
	size_t n_files, cap_files;
	struct file_id *dirs; /* folders searched, each once: [0, sorted) in order */
	size_t n_dirs, cap_dirs, sorted;
	char **links;         /* links met, followed once the folder was searched */
	size_t n_links, cap_links;
	int err;
};

/* items (n of `size` bytes) with room for one more: moved, or NULL (out
 * of memory: w->err, items left as they were). */
static void *room(struct walk *w, void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return items;
	size_t ncap = *cap ? *cap * 2 : 64;
	void *p = realloc(items, ncap * size);
	if (!p) {
		w->err = HG_ENOMEM;
		return NULL;
	}
	*cap = ncap;
	return p;
}

/* rel/name, or name at the root; NULL (out of memory) sets w->err. */
static char *join(struct walk *w, const char *rel, const char *name)
{
	size_t a = strlen(rel), b = strlen(name);
	char *s = malloc(a + b + 2);
	if (!s) {
		w->err = HG_ENOMEM;
		return NULL;
	}
	memcpy(s, rel, a);
	s[a] = '/';
	memcpy(s + (a ? a + 1 : 0), name, b + 1);
	return s;
}

/* The path of rel as the list names it: the folder as given, then rel. */
static char *full_path(struct walk *w, const char *rel)
{
	size_t n = strlen(rel);
	char *s = malloc(w->f->prefix_len + n + 1);
	if (!s) {
		w->err = HG_ENOMEM;
		return NULL;
	}
	memcpy(s, w->f->prefix, w->f->prefix_len);
	memcpy(s + w->f->prefix_len, rel, n + 1);
	return s;
}

static void skip(struct walk *w, const char *rel, size_t *count, const char *fmt, const char *what)
{
	char *path = full_path(w, rel);
	if (path)
		hg_diagf(w->ctx, HG_DIAG_WARNING, path, 0, 0, 0, fmt, what);
	free(path);
	(*count)++;
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

static void add_file(struct walk *w, char *rel, dev_t dev, ino_t ino, bool via_link)
{
	struct found *files;
	if (not_a_report(rel) ||
	    !(files = room(w, w->files, w->n_files, &w->cap_files, sizeof *files))) {
		free(rel);
		return;
	}
	w->files = files;
	w->files[w->n_files++] = (struct found){rel, dev, ino, via_link};
}

static int by_id(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Whether a folder was searched already (a loop, or a second way to it);
 * if not, it is now. */
static bool searched(struct walk *w, const struct stat *st)
{
	struct file_id id = {st->st_dev, st->st_ino};
	if (w->sorted && bsearch(&id, w->dirs, w->sorted, sizeof id, by_id))
		return true;
	for (size_t i = w->sorted; i < w->n_dirs; i++)
		if (!by_id(&id, &w->dirs[i]))
			return true;
	struct file_id *dirs = room(w, w->dirs, w->n_dirs, &w->cap_dirs, sizeof id);
	if (!dirs)
		return true;
	w->dirs = dirs;
	w->dirs[w->n_dirs++] = id;
	if (w->n_dirs - w->sorted > 64) { /* a linear tail, sorted now and then */
		qsort(w->dirs, w->n_dirs, sizeof id, by_id);
		w->sorted = w->n_dirs;
	}
	return false;
}

static int entry_by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The entries of folder fd (closed here), sorted by name (*out, *n: as
 * many as memory allowed). */
static void read_entries(struct walk *w, int fd, struct entry **out, size_t *n)
{
	DIR *d = fdopendir(fd);
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *e;
	while (!w->err && (e = readdir(d)) != NULL) {
		struct entry *more;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !(more = room(w, *out, *n, &cap, sizeof **out)))
			continue;
		*out = more;
		struct entry *it = &(*out)[*n];
		if (!(it->name = strdup(e->d_name))) {
			w->err = HG_ENOMEM;
			break;
		}
		struct stat st;
		it->err = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ? errno : 0;
		it->mode = it->err ? 0 : st.st_mode;
		it->dev = it->err ? 0 : st.st_dev;
		it->ino = it->err ? 0 : st.st_ino;
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof **out, entry_by_name);
}

static void walk_dir(struct walk *w, const char *rel);

/* One entry of a folder: a file kept, a folder searched, a link kept for
 * later (so that a file is named by its own path before a link's); name
 * is taken. */
static void visit(struct walk *w, char *rel, const struct entry *e)
{
	const char *kind = e->err ? NULL : input_kind(e->mode, true);
	if (e->err) {
		skip(w, rel, &w->out->skipped, "skipped: %s", "a file whose status cannot be read");
	} else if (S_ISREG(e->mode)) {
		add_file(w, rel, e->dev, e->ino, false);
		return;
	} else if (S_ISDIR(e->mode)) {
		walk_dir(w, rel);
	} else if (S_ISLNK(e->mode)) {
		char **links = room(w, w->links, w->n_links, &w->cap_links, sizeof *links);
		if (links) {
			w->links = links;
			w->links[w->n_links++] = rel;
			return;
		}
	} else {
		/* A FIFO would wait for a writer forever, a device never ends. */
		skip(w, rel, &w->out->skipped, "skipped: %s, not a regular file", kind);
	}
	free(rel);
}

/* Folder rel below the root ("": the root), recursively, one descriptor
 * open at a time. */
static void walk_dir(struct walk *w, const char *rel)
{
	int fd = *rel ? input_openat_beneath(w->f->root, rel, O_RDONLY | O_DIRECTORY)
		      : openat(w->f->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		skip(w, rel, &w->out->skipped, "skipped: %s", "a folder that cannot be read");
		return;
	}
	if (searched(w, &st)) {
		close(fd);
		return;
	}
	struct entry *entries;
	size_t n;
	read_entries(w, fd, &entries, &n);
	for (size_t i = 0; i < n; i++) {
		char *path = w->err ? NULL : join(w, rel, entries[i].name);
		if (path)
			visit(w, path, &entries[i]);
		free(entries[i].name);
	}
	free(entries);
}

/* The links met, each resolved beneath the root (a link met in a folder
 * reached through one is added to the end). */
static void follow_links(struct walk *w)
{
	for (size_t i = 0; i < w->n_links && !w->err; i++) {
		const char *rel = w->links[i];
		int fd = input_openat_beneath(w->f->root, rel, O_PATH);
		struct stat st;
		int e = fd < 0 || fstat(fd, &st) != 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		size_t *left = &w->out->links_skipped;
		if (e == EXDEV)
			skip(w, rel, left, "skipped: %s", "a symbolic link that leaves the folder");
		else if (e == ELOOP)
			skip(w, rel, left, "skipped: %s", "a loop of symbolic links");
		else if (e == ENOENT || e == ENOTDIR)
			skip(w, rel, left, "skipped: %s", "a symbolic link to nothing");
		else if (e)
			skip(w, rel, left, "skipped: a symbolic link that cannot be followed: %s",
			     strerror(e));
		else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
			w->out->links_followed++;
			char *copy = S_ISDIR(st.st_mode) ? NULL : strdup(rel);
			if (S_ISDIR(st.st_mode))
				walk_dir(w, rel); /* nothing when searched already */
			else if (copy)
				add_file(w, copy, st.st_dev, st.st_ino, true);
			else
				w->err = HG_ENOMEM;
		} else {
			skip(w, rel, &w->out->skipped, "skipped: a symbolic link to %s, not a regular file",
			     input_kind(st.st_mode, true));
		}
	}
}

static int by_file(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->via_link != y->via_link)
		return x->via_link ? 1 : -1; /* a file's own path first */
	return strcmp(x->rel, y->rel);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each file once, by its own path when it has one, then in path order. */
static int list_files(struct walk *w)
{
	hg_path_list *out = w->out;
	if (w->n_files)
		qsort(w->files, w->n_files, sizeof *w->files, by_file);
	if (w->n_files && !(out->paths = calloc(w->n_files, sizeof *out->paths)))
		return HG_ENOMEM;
	for (size_t i = 0; i < w->n_files; i++) {
		if (i > 0 && w->files[i].dev == w->files[i - 1].dev &&
		    w->files[i].ino == w->files[i - 1].ino)
			continue;
		if (!(out->paths[out->n] = full_path(w, w->files[i].rel)))
			return HG_ENOMEM;
		out->n++;
	}
	if (out->n) /* qsort wants a non-NULL array, even of none */
		qsort(out->paths, out->n, sizeof *out->paths, by_name);
	return 0;
}

static void walk_release(struct walk *w)
{
	for (size_t i = 0; i < w->n_files; i++)
		free(w->files[i].rel);
	for (size_t i = 0; i < w->n_links; i++)
		free(w->links[i]);
	free(w->files);
	free(w->links);
	free(w->dirs);
}

bool hg_input_is_folder(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder, opened (a link named as the folder is followed: it was
 * named), and the prefix of its paths: dir without its final slashes. */
static struct hg_input_folder *folder_open(const char *dir)
{
	struct hg_input_folder *f = calloc(1, sizeof *f);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!f || !(f->prefix = malloc(n + 2))) {
		free(f);
		return NULL;
	}
	memcpy(f->prefix, dir, n);
	if (n == 0 || f->prefix[n - 1] != '/')
		f->prefix[n++] = '/';
	f->prefix[n] = '\0';
	f->prefix_len = n;
	f->root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return f;
}

static void folder_close(struct hg_input_folder *f)
{
	if (!f)
		return;
	if (f->root >= 0)
		close(f->root);
	free(f->prefix);
	free(f);
}

int hg_input_list_folder(const hg_ctx *ctx, const char *dir, hg_path_list *out)
{
	*out = (hg_path_list){0};
	struct walk w = {.ctx = ctx, .out = out, .f = folder_open(dir)};
	if (!w.f)
		return HG_ENOMEM;
	int err = 0, fd = w.f->root < 0 ? -1 : openat(w.f->root, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		hg_diagf(ctx, HG_DIAG_ERROR, dir, 0, 0, 0, "cannot search the folder: %s",
			 strerror(errno));
		err = HG_EIO;
	} else {
		close(fd);
		walk_dir(&w, "");
		follow_links(&w);
		err = w.err ? w.err : list_files(&w);
	}
	walk_release(&w);
	if (err) {
		folder_close(w.f);
		hg_path_list_release(out);
		return err;
	}
	w.f->list = out;
	out->folder = w.f;
	pthread_mutex_lock(&live_lock);
	w.f->next = live;
	live = w.f;
	pthread_mutex_unlock(&live_lock);
	return 0;
}

bool input_folder_lookup(const char *path, struct input_listed *out)
{
	bool found = false;
	pthread_mutex_lock(&live_lock);
	for (struct hg_input_folder *f = live; f && !found; f = f->next) {
		const hg_path_list *l = f->list;
		if (l->n == 0 || strncmp(path, f->prefix, f->prefix_len) != 0 ||
		    !bsearch(&path, l->paths, l->n, sizeof *l->paths, by_name))
			continue;
		*out = (struct input_listed){f->root, path + f->prefix_len, &f->list->skipped};
		found = true;
	}
	pthread_mutex_unlock(&live_lock);
	return found;
}

void hg_path_list_release(hg_path_list *list)
{
	if (list->folder) {
		pthread_mutex_lock(&live_lock);
		for (struct hg_input_folder **p = &live; *p; p = &(*p)->next)
			if (*p == list->folder) {
				*p = list->folder->next;
				break;
			}
		pthread_mutex_unlock(&live_lock);
		folder_close(list->folder);
	}
	for (size_t i = 0; i < list->n; i++)
		free(list->paths[i]);
	free(list->paths);
	*list = (hg_path_list){0};
}
