/* What the files of module symbols share (private; the unit test and the
 * fuzz target use the header parsers too). */
#ifndef HANGAR_LIB_SYMBOLS_INTERNAL_H
#define HANGAR_LIB_SYMBOLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "hangar/hangar.h"
#include "hangar/symbols.h"
#include "hangar/threads.h"
#include "core/core.h"

/* ---- binary headers (symbols_header.c) ---- */

#define SYM_MAX_SLICES 16     /* architectures of one fat file */
#define SYM_ID_MAX 65         /* a 32-byte Build ID in hex, and its NUL */

enum sym_kind { SYM_NONE, SYM_ELF, SYM_MACHO };

/* One binary of a file: an ELF file, a thin Mach-O, or one slice of a fat
 * Mach-O. */
struct sym_slice {
	char id[SYM_ID_MAX];  /* identity, as sym_normalize_id makes it; "" when none */
	char arch[16];        /* Mach-O: "arm64", "arm64e", "x86_64", ...; "" */
	uint64_t text_vmaddr; /* Mach-O: the __TEXT segment's vmaddr; ELF: 0 */
	bool debug;           /* holds DWARF (a __DWARF segment, a .debug_info section) */
};

struct sym_header {
	enum sym_kind kind;
	size_t n;             /* slices */
	struct sym_slice slices[SYM_MAX_SLICES];
};

/* Reads n bytes at off into buf: 0, or non-zero when they are not all
 * there (a short file is no error of the reader's: the parser says so). */
typedef int (*sym_read_fn)(void *user, uint64_t off, void *buf, size_t n);

/* Whether the first 4 bytes of a file may start an ELF or Mach-O file (a
 * folder of 10,000 files is mostly other files: one read says so). */
bool sym_magic(const unsigned char m[4]);

/* Parses the headers of a file of `size` bytes, reading only what the
 * headers point to, every offset and count checked against size and a cap
 * (these are hostile files).  0 and *out; HG_EPARSE with why (a short
 * reason, "truncated load command at 0x20") when the file is a binary
 * hangar cannot use, or with why "" when it is no binary at all (a Java
 * class file has a fat file's magic). */
int sym_header_parse(sym_read_fn read, void *user, uint64_t size, struct sym_header *out,
		     char *why, size_t why_size);

/* An identity as the index keys it: hex digits only, uppercase, so that
 * "dfbf7be2-4616-..." and "DFBF7BE24616..." match.  False when s holds
 * anything but hex digits and dashes, or too many. */
bool sym_normalize_id(const char *s, size_t len, char out[SYM_ID_MAX]);

/* ---- the index of symbol folders (symbols_index.c) ---- */

/* One binary (or one slice of a fat file) found in a symbol folder. */
struct sym_entry {
	char *path;
	enum sym_kind kind;
	bool fat;             /* ask for its arch: a fat file holds several */
	struct sym_slice slice;
};

struct sym_index {
	const hg_ctx *ctx;    /* where warnings go */
	struct sym_entry *items; /* sorted by kind, id, DWARF first */
	size_t n, cap;
	size_t seen;          /* folder entries looked at */
	size_t opened;        /* files opened (each once) */
	size_t binaries;      /* ELF and Mach-O files read */
	size_t bad;           /* binaries whose headers could not be used */
};

/* A warning about source (a file or folder of the index); never fails. */
void sym_warn(struct sym_index *ix, const char *source, const char *fmt, ...) HG_PRINTF(3, 4);

/* Indexes the file or folder at root (warnings name what cannot be used).
 * 0, HG_ENOENT (root does not exist: said) or HG_ENOMEM. */
int sym_index_add(struct sym_index *ix, const char *root);
/* The binary of that identity (id as sym_normalize_id makes it), the one
 * with DWARF when there are several; NULL. */
const struct sym_entry *sym_index_find(const struct sym_index *ix, enum sym_kind kind,
				       const char *id);
void sym_index_release(struct sym_index *ix);

/* ---- the symbolizer process (symbols_spawn.c) ---- */

struct sym_proc;

/* Starts argv[0] (searched in PATH) with argv; 0 and *out, or HG_EIO with
 * why. */
int sym_proc_start(const char *const *argv, struct sym_proc **out, char *why, size_t why_size);
/* Writes req[0..len) (lines) to the process and reads back exactly n_lines
 * lines into *resp (malloc'd, caller frees; NUL-terminated, lines split by
 * '\n'), giving up when it says nothing for timeout_ms.  0, HG_ENOMEM, or
 * HG_EIO with why (it died, it hung, it wrote a line over the cap). */
int sym_proc_batch(struct sym_proc *p, const char *req, size_t len, size_t n_lines,
		   long timeout_ms, char **resp, size_t *resp_len, char *why, size_t why_size);
/* Closes its pipes, kills it when it does not end and reaps it; NULL ok. */
void sym_proc_stop(struct sym_proc *p);

/* ---- the run (symbols.c, symbols_apply.c, symbols_text.c) ---- */

/* One distinct address asked about, and what came back. */
struct query {
	size_t entry;           /* index entry */
	uint64_t addr;          /* in the file's address space */
	size_t n;               /* functions: inlined ones first, the caller last; 0 */
	const char **fn, **file;
	long *line;
	bool known;             /* answered from the run's cache: not asked again */
};

/* An answer kept for the run (strings in hg_symbols.cache_arena). */
struct cached {
	size_t n;
	const char **fn, **file;
	long *line;
};

struct hg_symbols {
	const hg_ctx *ctx;
	struct sym_index index;
	char *symbolizer;
	long timeout_ms;
	struct sym_proc *proc;  /* started at the first batch */
	bool proc_failed;       /* said once: frames stay addresses from then on */
	strmap images;          /* "M:<uuid>" / "E:<build id>" -> 1 found, 2 missing (said) */
	bool *used;             /* per index entry: asked about (binaries_used) */
	bool *failed_file;      /* per index entry: the symbolizer's error about it said */
	hg_symbols_stats stats;
	/* Answers, for the run: reports of one app ask about the same
	 * functions again and again. */
	strmap answers;         /* "entry:addr" -> index in cache */
	struct cached *cache;
	size_t n_cache, cap_cache;
	hg_arena *cache_arena;
	pthread_mutex_t lock;   /* one hg_symbols_apply at a time */
	bool locked_init;
};

/* The symbol file of im (NULL when the report gives no identity, or none
 * has it: said once per run, naming source and report).  0 or HG_ENOMEM. */
int sym_find(hg_symbols *s, const hg_image *im, const char *source, long report,
	     const struct sym_entry **out);
/* Asks about q[0..n_q) in one batch (answers' strings in arena): 0, 1 when
 * the symbolizer cannot answer (said once), HG_ENOMEM.  Caller holds
 * s->lock. */
int sym_ask(hg_symbols *s, struct query *q, size_t n_q, hg_arena *arena);

#endif
