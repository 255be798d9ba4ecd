/* Opening a path beneath a folder: the stack file an untrusted report
 * names, a file of a folder being ingested.  Symbolic links are followed
 * only while they stay inside the folder; an absolute path or link, or a
 * ".." above it, is refused (EXDEV), as openat2's RESOLVE_BENEATH does.
 * The kernel does it where it can; where openat2 is missing (ENOSYS) the
 * same is done here a component at a time. */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "input_internal.h"

#define MAX_LINKS 40 /* as the kernel: ELOOP past it */

/* Where a walk is: the folder it stands in (cur, the root or one it owns)
 * and that folder's path below the root, made of real folders only, so
 * that ".." can go back down from the root to its parent. */
struct spot {
	int root, cur;
	char *phys;
	size_t len, cap;
};

static void set_cur(struct spot *s, int fd)
{
	if (s->cur != s->root)
		close(s->cur);
	s->cur = fd;
}

static int push(struct spot *s, const char *name, size_t n)
{
	if (s->len + n + 2 > s->cap) {
		size_t cap = (s->len + n + 2) * 2;
		char *p = realloc(s->phys, cap);
		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		s->phys = p;
		s->cap = cap;
	}
	if (s->len)
		s->phys[s->len++] = '/';
	memcpy(s->phys + s->len, name, n);
	s->len += n;
	s->phys[s->len] = '\0';
	return 0;
}

/* "..": one folder up, never above the root.  The parent is found again
 * from the root down through real folders (O_NOFOLLOW), not by opening
 * "..", which a folder moved out of the root meanwhile would lead out. */
static int pop(struct spot *s)
{
	if (s->len == 0) {
		errno = EXDEV;
		return -1;
	}
	char *slash = strrchr(s->phys, '/');
	s->len = slash ? (size_t)(slash - s->phys) : 0;
	s->phys[s->len] = '\0';
	set_cur(s, s->root);
	for (char *p = s->phys, *end = s->phys + s->len; p < end;) {
		char *q = memchr(p, '/', (size_t)(end - p));
		size_t n = q ? (size_t)(q - p) : (size_t)(end - p);
		char name[NAME_MAX + 1];
		memcpy(name, p, n);
		name[n] = '\0';
		int fd = openat(s->cur, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		set_cur(s, fd);
		p += n + 1;
	}
	return 0;
}

/* A link's text in place of the component it was: target + "/" + rest. */
static char *expand(int linkfd, const char *rest)
{
	char target[4096];
	ssize_t n = readlinkat(linkfd, "", target, sizeof target);
	if (n < 0)
		return NULL;
	if (n == 0 || (size_t)n == sizeof target) {
		errno = n == 0 ? ENOENT : ENAMETOOLONG;
		return NULL;
	}
	if (target[0] == '/') {
		errno = EXDEV; /* its target depends on where the folder is */
		return NULL;
	}
	size_t r = strlen(rest);
	char *s = malloc((size_t)n + r + 2);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(s, target, (size_t)n);
	s[n] = '/';
	memcpy(s + n + 1, rest, r + 1);
	return s;
}

/* One component (name, n bytes): into a folder, through a link (*work
 * replaced, *p moved to its start) or, last, the file itself (*out). */
static int step(struct spot *s, char **work, const char **p, const char *name, size_t n,
		bool last, int flags, int *links, int *out)
{
	char c[NAME_MAX + 1];
	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(c, name, n);
	c[n] = '\0';
	if (!strcmp(c, "."))
		return last ? (*out = openat(s->cur, ".", flags | O_CLOEXEC)) : 0;
	if (!strcmp(c, "..")) {
		if (pop(s) != 0)
			return -1;
		return last ? (*out = openat(s->cur, ".", flags | O_CLOEXEC)) : 0;
	}
	int fd = openat(s->cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		char *next = ++*links > MAX_LINKS ? (errno = ELOOP, NULL) : expand(fd, *p);
		close(fd);
		if (!next)
			return -1;
		free(*work);
		*work = next;
		*p = next;
		return 0;
	}
	if (last) {
		close(fd);
		/* A link put here since the look is not followed: ELOOP. */
		return *out = openat(s->cur, c, flags | O_NOFOLLOW | O_CLOEXEC);
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	set_cur(s, fd);
	return push(s, c, n);
}

int input_openat_beneath_walk(int dirfd, const char *rel, int flags)
{
	if (rel[0] == '/' || !rel[0]) {
		errno = rel[0] ? EXDEV : ENOENT; /* as openat2 */
		return -1;
	}
	char *work = strdup(rel);
	if (!work) {
		errno = ENOMEM;
		return -1;
	}
	struct spot s = {dirfd, dirfd, NULL, 0, 0};
	int links = 0, out = -1, rc = 0;
	const char *p = work;
	for (;;) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = *rest == '\0';
		if (n == 0) { /* an absolute path: refused before it got here */
			errno = EXDEV;
			rc = -1;
			break;
		}
		const char *name = p;
		p = rest;
		rc = step(&s, &work, &p, name, n, last, flags, &links, &out);
		if (rc == 0 && p == work) /* a link: its text is walked now */
			continue;
		if (rc < 0 || last)
			break;
	}
	int saved = errno;
	set_cur(&s, s.root);
	free(s.phys);
	free(work);
	errno = saved;
	return rc < 0 ? -1 : out;
}

#ifdef SYS_openat2
/* Whether openat2 answered ENOSYS once (an old kernel, or a sandbox that
 * does not know it: some answer EPERM): the walk is used from then on. */
static atomic_bool no_openat2;
#endif

int input_openat_beneath(int dirfd, const char *rel, int flags)
{
#ifdef SYS_openat2
	if (!atomic_load_explicit(&no_openat2, memory_order_relaxed)) {
		struct open_how how = {
			.flags = (uint64_t)(flags | O_CLOEXEC),
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
		};
		for (int tries = 0; tries < 8; tries++) {
			long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
			if (fd >= 0)
				return (int)fd;
			if (errno != EAGAIN) /* EAGAIN: a rename raced the walk */
				break;
		}
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		atomic_store_explicit(&no_openat2, true, memory_order_relaxed);
	}
#endif
	return input_openat_beneath_walk(dirfd, rel, flags);
}
