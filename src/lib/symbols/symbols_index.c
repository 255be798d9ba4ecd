/* Indexing symbol folders, once per run: every ELF and Mach-O file under
 * the folders (dSYM bundles are folders like any other: their DWARF file
 * is a Mach-O), keyed by identity.  Only headers are read, and of a file
 * that is neither ELF nor Mach-O only its first 4 bytes.  Symlinks to files
 * are followed, symlinks to folders are not (no loops), and the depth is
 * bounded.  A file that cannot be read or parsed, and a .dSYM without a
 * DWARF file, is a warning naming it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols_internal.h"

#define MAX_DEPTH 24
#define MAX_FILES 2000000 /* entries looked at in all folders */

static int fd_read(void *user, uint64_t off, void *buf, size_t n)
{
	int fd = *(int *)user;
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static int add_entry(struct sym_index *ix, const char *path, const struct sym_slice *sl,
		     enum sym_kind kind, bool fat)
{
	if (strpbrk(path, "\"\n\r")) { /* the symbolizer's input is one quoted path a line */
		sym_warn(ix, path, "not used: a quote or newline in its path");
		return 0;
	}
	if (ix->n == ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 64;
		struct sym_entry *ne = realloc(ix->items, ncap * sizeof *ne);
		if (!ne)
			return HG_ENOMEM;
		ix->items = ne;
		ix->cap = ncap;
	}
	char *copy = strdup(path);
	if (!copy)
		return HG_ENOMEM;
	struct sym_entry *e = &ix->items[ix->n++];
	memset(e, 0, sizeof *e);
	e->path = copy;
	e->kind = kind;
	e->fat = fat;
	e->slice = *sl;
	return 0;
}

/* One regular file: 0 (indexed, or not a binary), HG_ENOMEM. */
static int index_file(struct sym_index *ix, const char *path, uint64_t size, bool *binary)
{
	*binary = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		{
		sym_warn(ix, path, "cannot open: %s", strerror(errno));
		return 0;
	}
	unsigned char m[4];
	ix->opened++;
	int rc = 0;
	if (size >= 4 && fd_read(&fd, 0, m, 4) == 0 && sym_magic(m)) {
		*binary = true; /* a dSYM's DWARF file, even when damaged */
		struct sym_header h;
		char why[160];
		if (sym_header_parse(fd_read, &fd, size, &h, why, sizeof why) != 0 && !why[0]) {
			*binary = false; /* a look-alike, such as a Java class file */
		} else if (why[0]) {
			sym_warn(ix, path, "not used: %s", why);
			ix->bad++;
		} else {
			ix->binaries++;
			for (size_t i = 0; i < h.n && rc == 0; i++)
				if (h.slices[i].id[0])
					rc = add_entry(ix, path, &h.slices[i], h.kind, h.n > 1 ||
						       h.kind == SYM_MACHO);
			if (rc == 0 && h.n && !h.slices[0].id[0])
				sym_warn(ix, path, "not used: it has no %s",
					 h.kind == SYM_ELF ? "GNU Build ID" : "LC_UUID");
		}
	}
	close(fd);
	return rc;
}

static bool is_dsym(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcasecmp(name + n - 5, ".dSYM") == 0;
}

static int walk(struct sym_index *ix, const char *dir, int depth, size_t *binaries)
{
	DIR *d = opendir(dir);
	if (!d)
	{
		sym_warn(ix, dir, "cannot read the folder: %s", strerror(errno));
		return 0;
	}
	int rc = 0;
	struct dirent *de;
	char path[4096];
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++ix->seen > MAX_FILES) {
			sym_warn(ix, dir, "more than %d entries in the symbol folders: the rest is "
				 "not indexed", MAX_FILES);
			break;
		}
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path) {
			sym_warn(ix, dir, "a path in it is too long, skipped");
			continue;
		}
		struct stat st;
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth + 1 >= MAX_DEPTH) {
				sym_warn(ix, path, "deeper than %d folders, skipped", MAX_DEPTH);
				continue;
			}
			size_t inside = 0;
			rc = walk(ix, path, depth + 1, &inside);
			*binaries += inside;
			if (rc == 0 && inside == 0 && is_dsym(de->d_name))
				sym_warn(ix, path, "a dSYM bundle without a DWARF file "
					 "(Contents/Resources/DWARF/...): not used");
			continue;
		}
		if (S_ISLNK(st.st_mode) && (stat(path, &st) != 0 || !S_ISREG(st.st_mode)))
			continue; /* a link to a folder is not followed: no loops */
		if (!S_ISREG(st.st_mode))
			continue;
		bool binary;
		rc = index_file(ix, path, (uint64_t)st.st_size, &binary);
		*binaries += binary;
	}
	closedir(d);
	return rc;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	int c = strcmp(x->slice.id, y->slice.id);
	if (c)
		return c;
	if (x->slice.debug != y->slice.debug) /* the one with DWARF first */
		return x->slice.debug ? -1 : 1;
	return strcmp(x->path, y->path); /* then a stable order */
}

int sym_index_add(struct sym_index *ix, const char *root)
{
	struct stat st;
	if (stat(root, &st) != 0)
	{
		sym_warn(ix, root, "%s", strerror(errno));
		return HG_ENOENT;
	}
	size_t found = 0;
	int rc;
	if (S_ISDIR(st.st_mode)) {
		rc = walk(ix, root, 0, &found);
	} else {
		bool binary = false;
		rc = index_file(ix, root, (uint64_t)st.st_size, &binary);
	}
	if (rc == 0 && ix->n > 1)
		qsort(ix->items, ix->n, sizeof *ix->items, entry_cmp);
	return rc;
}

const struct sym_entry *sym_index_find(const struct sym_index *ix, enum sym_kind kind,
				       const char *id)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) { /* the first entry not below (kind, id) */
		size_t mid = lo + (hi - lo) / 2;
		const struct sym_entry *e = &ix->items[mid];
		int c = e->kind != kind ? (e->kind < kind ? -1 : 1) : strcmp(e->slice.id, id);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n && ix->items[lo].kind == kind && strcmp(ix->items[lo].slice.id, id) == 0)
		return &ix->items[lo];
	return NULL;
}

void sym_index_release(struct sym_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->items[i].path);
	free(ix->items);
	memset(ix, 0, sizeof *ix);
}
