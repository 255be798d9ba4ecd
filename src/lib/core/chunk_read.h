/* Reading part of a file in chunks that stay in cache, handing complete
 * lines to a callback (private): what the two big mapping readers
 * (mapping/mapping_index.c, retrace/proguard_index.c) share, each running
 * one of these per half of a large file. */
#ifndef HANGAR_LIB_CHUNK_READ_H
#define HANGAR_LIB_CHUNK_READ_H

#include <stdbool.h>
#include <stddef.h>

#define CHUNK_STOP ((size_t)-1) /* from lines(): stop reading (the callback said why) */

struct chunk_read {
	int fd;
	size_t begin, end;      /* the part of the file to read: [begin, end) */
	size_t chunk;           /* bytes read at a time; a longer line is skipped */
	/* The text at hand, buf[0..len) at file offset off; eof: it runs to
	 * the end of the part (its last line may have no newline).  Returns
	 * how many bytes it used, complete lines only (all of them at eof),
	 * or CHUNK_STOP. */
	size_t (*lines)(void *user, const char *buf, size_t len, size_t off, bool eof);
	/* A line fills a whole chunk (buf[0..len) is its start): it is
	 * skipped to its newline, and then skipped() is called (not when the
	 * part ends first).  Either may be NULL. */
	void (*too_long)(void *user, const char *buf, size_t len);
	void (*skipped)(void *user);
	void *user;
};

/* Reads the part; 0 at its end or when lines() stopped, HG_ENOMEM, or
 * HG_EIO with the errno in *err. */
int chunk_read(const struct chunk_read *r, int *err);

#endif
