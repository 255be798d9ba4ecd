/* hangar — offline triage of mobile-app jank, slow-method and ANR reports.
 *
 * This header holds what every module shares: the version, the error codes,
 * and the context (where diagnostics go, and the caps on untrusted sizes).
 *
 * Ownership, for the whole API: a function that returns a pointer says in its
 * comment whether the caller owns it.  Everything derived from one report lives
 * in that report's arena and goes with hg_report_destroy().  Borrowed pointers
 * stay valid as long as the object they were borrowed from.
 */
#ifndef HANGAR_HANGAR_H
#define HANGAR_HANGAR_H

#include <stddef.h>
#include <stdint.h>

#define HG_VERSION "0.1.0"

#if defined(__GNUC__)
#define HG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define HG_PRINTF(fmt, args)
#endif

/* Library functions return 0 or one of these (negative). */
enum hg_error {
	HG_OK = 0,
	HG_ENOMEM = -1,  /* out of memory */
	HG_EIO = -2,     /* a file could not be read */
	HG_EPARSE = -3,  /* input does not have the expected shape */
	HG_ELIMIT = -4,  /* input exceeds a cap from hg_limits */
	HG_EINVAL = -5,  /* invalid argument */
	HG_ENOENT = -6,  /* what must already exist (a store to read) does not */
};

/* A static English description of an error code; never NULL. */
const char *hg_strerror(int err);

/* HG_DIAG_NOTE: a word about a run rather than a place in an input (an
 * ingest run's "stopped at FILE:LINE: the store failed"); source names who
 * says it ("hangar ingest"), line and col are 0. */
enum hg_severity { HG_DIAG_ERROR, HG_DIAG_WARNING, HG_DIAG_NOTE };

/* One diagnostic about an input.  line/col are 1-based, 0 when unknown;
 * report is the 1-based report number within the source, 0 when unknown.
 * All strings are borrowed for the duration of the callback only. */
typedef struct hg_diag {
	enum hg_severity severity;
	const char *source;  /* file path, "-" for stdin */
	long line;
	long col;
	long report;
	const char *message;
} hg_diag;

typedef void (*hg_diag_fn)(void *user, const hg_diag *diag);

/* Caps on sizes that come from untrusted input.  Exceeding one is an error
 * (HG_ELIMIT with a diagnostic), never an unbounded allocation. */
typedef struct hg_limits {
	size_t max_input_bytes;    /* one input file or stdin */
	size_t max_buffer_words;   /* words in one AppMethodBeat buffer */
	size_t max_stack_lines;    /* lines in one structured `stack` */
	size_t max_mapping_bytes;  /* one methodMapping.txt */
} hg_limits;

#define HG_DEFAULT_MAX_INPUT_BYTES ((size_t)1 << 30)      /* 1 GiB */
#define HG_DEFAULT_MAX_BUFFER_WORDS ((size_t)16 << 20)    /* 16 Mi words; Matrix keeps 1M */
#define HG_DEFAULT_MAX_STACK_LINES ((size_t)1 << 20)      /* 1 Mi lines */
#define HG_DEFAULT_MAX_MAPPING_BYTES ((size_t)4 << 30)    /* 4 GiB (less one byte in effect: offsets are 32-bit) */

/* The context every library call that reads input takes.  Caller-owned. */
typedef struct hg_ctx {
	hg_diag_fn diag;  /* may be NULL: diagnostics are then dropped */
	void *diag_user;
	hg_limits limits;
	const char *stack_dir; /* where APM reports' stack files are; NULL: beside the report */
	int keep_text;         /* give each report its original text (hg_report.text) */
	int skip_meta;         /* leave hg_report.meta empty: for callers that never show it
				* (a big ingest spent a tenth of its reading on it) */
	int want_times;        /* give method stacks rebuilt from a buffer their items'
				* begin times (hg_report.item_begin): for a timeline
				* (speedscope, Chrome trace); off, the rebuild does
				* not pay for them */
	int defer_rebuild;     /* leave the rebuild of a JSON report's buffer to
				* hg_report_rebuild (a reader that hands reports to
				* another thread lets that thread pay for it) */
	int64_t file_time_ms;  /* the input's modification time (Unix ms), 0: unknown;
				* hg_reports_read_path sets it for a regular file.
				* A time written without its year (BlockCanary) is
				* placed by it when the report itself gives no year. */
	struct hg_timezone *zone; /* the zone of times written without one (an APM
				* report's "time"; timezone.h), caller-owned; NULL: UTC,
				* and no note says so */
	/* Fetches a file that a report fetched from a bucket names (an APM
	 * report's stack_file) from beside that report: name is a relative
	 * path of plain segments (never "", "." or ".."), checked.  0 with
	 * *data (malloc'd, NUL-terminated; the caller frees it) and *len, or
	 * HG_EIO / HG_ELIMIT / HG_ENOMEM with why saying what happened.  Set by
	 * ingest while it reads a fetched object (ingest/remote.c); NULL: a
	 * fetched report's files are looked for in stack_dir only. */
	int (*fetch_beside)(void *user, const char *name, char **data, size_t *len, char *why,
			    size_t why_size);
	void *fetch_beside_user;
} hg_ctx;

/* Fills ctx with no diagnostics sink and the default limits. */
void hg_ctx_init(hg_ctx *ctx);

/* Sends one diagnostic to ctx's sink (formatted message). */
void hg_diagf(const hg_ctx *ctx, enum hg_severity severity, const char *source,
	      long line, long col, long report, const char *fmt, ...) HG_PRINTF(7, 8);

#endif
