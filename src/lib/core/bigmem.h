/* Large buffers (private).  Page faults are the main cost of touching tens
 * of megabytes, and on virtual machines each one is dear; asking for
 * transparent huge pages on the 2 MiB-aligned interior of a large block cuts
 * their number ~500-fold.  Only a hint: without THP nothing changes. */
#ifndef HANGAR_LIB_BIGMEM_H
#define HANGAR_LIB_BIGMEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HG_HUGE_PAGE ((uintptr_t)2 << 20)

/* Call on freshly allocated memory, before writing to it. */
static inline void hg_hint_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	if (!p || size < HG_HUGE_PAGE)
		return;
	uintptr_t start = ((uintptr_t)p + HG_HUGE_PAGE - 1) & ~(HG_HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + size) & ~(HG_HUGE_PAGE - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
	(void)p;
	(void)size;
#endif
}

/* malloc() for a buffer that may be large: aligned to a huge page, so that
 * each whole 2 MiB of it can be backed by one; the tail past the last whole
 * 2 MiB keeps small pages, so that a block just over a multiple of 2 MiB
 * (a chunk's header and its data) does not hold a huge page for a few
 * bytes.  Free with free(). */
static inline void *hg_big_alloc(size_t size)
{
	if (size < HG_HUGE_PAGE)
		return malloc(size ? size : 1);
	void *p = NULL;
	if (posix_memalign(&p, HG_HUGE_PAGE, size) != 0)
		return NULL;
	hg_hint_huge(p, size);
	return p;
}

/* A larger hg_big_alloc buffer holding the first `used` bytes of p, which
 * is freed (NULL and p untouched when there is no memory).  Not realloc:
 * that moves a block without keeping its huge-page alignment, and the
 * pages it adds fault in one 4 KiB page at a time. */
static inline void *hg_big_grow(void *p, size_t used, size_t size)
{
	void *q = hg_big_alloc(size);
	if (!q)
		return NULL;
	if (used)
		memcpy(q, p, used);
	free(p);
	return q;
}

#endif
