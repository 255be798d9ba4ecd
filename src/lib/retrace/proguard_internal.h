/* What the ProGuard / R8 mapping files share (private):
 *   proguard.c         the mapping object: opening, reading back, warnings
 *   proguard_index.c   the one pass over a mapping (its line scanner:
 *                      proguard_scan.c, with proguard_index.h)
 *   proguard_lookup.c  finding a class by name; the cache of classes
 *   proguard_block.c   parsing a class's block when a frame first names it
 *   proguard_meta.c    R8 metadata comments
 *   proguard_groups.c  a class's index: its inlining stacks, and a tree
 *                      of their ranges to find those that hold a line
 * Retrace (proguard_frame.c, proguard_cut.c, proguard_report.c,
 * proguard_text.c) shares proguard_retrace.h. */
#ifndef HANGAR_LIB_PROGUARD_INTERNAL_H
#define HANGAR_LIB_PROGUARD_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangar/arena.h"
#include "hangar/proguard.h"

#define PG_MAX_LINE ((size_t)64 << 10)    /* longer lines are malformed */
#define PG_MAX_BLOCK ((size_t)256 << 20)  /* a class block is cut there */
#define PG_MAX_WARNINGS 10                /* line warnings, then a count */
#define PG_NONE (-1L)                     /* an absent line number */
/* The work one obfuscated frame may cost (nodes of the range tree, stacks
 * tried, frames built, rules, positions and frames compared); a frame of
 * the real mappings in testdata/proguard takes 73 at most.  With
 * HG_PROGUARD_MAX_FRAMES it keeps a retrace linear in the frames whatever
 * the mapping holds. */
#define PG_MAX_STEPS 4096

/* One class line found by the index pass. */
struct pg_rec {
	uint32_t off;       /* where the class line starts */
	uint32_t line;      /* its 1-based line number */
	uint32_t obf_hash;  /* of the obfuscated name */
	uint32_t orig_hash; /* of the original name */
};

enum { PG_SYNTH = 1u << 0, PG_OUTLINE = 1u << 1 };

/* outlineCallsite: position in the outline -> line in the caller. */
struct pg_pos {
	long from, to;
};

/* rewriteFrame: when every condition holds, drop `remove` inner frames.
 * Only throws(Ldesc;) conditions and removeInnerFrames(n) actions are
 * understood; a rule with anything else never applies. */
struct pg_rule {
	const char **throws;
	size_t n_throws;
	long remove;
	bool unknown;
};

/* One member line "s:e:type [oclass.]name(args):os:oe -> obf". */
struct pg_entry {
	const char *obf;        /* obfuscated method name */
	const char *oclass;     /* original class when not the block's class, else NULL */
	const char *name;       /* original method name */
	const char *args;       /* "(int,java.lang.String)" */
	long min_start, min_end;      /* PG_NONE when no "s:e:" */
	long orig_start, orig_end;    /* PG_NONE when absent */
	unsigned flags;               /* PG_SYNTH, PG_OUTLINE (of the method) */
	struct pg_pos *pos;           /* outlineCallsite positions */
	size_t n_pos;
	struct pg_rule *rules;
	size_t n_rules;
	long line;                    /* in the mapping, for warnings */
};

/* Whether e has no obfuscated range (none, or 0:0): a method without line
 * information. */
static inline bool pg_is_base(const struct pg_entry *e)
{
	return e->min_start == PG_NONE || (e->min_start == 0 && e->min_end == 0);
}

/* An inlining stack: entries [first, first + count) of a class, which
 * share their obfuscated range (the inlined callee first). */
struct pg_group {
	uint32_t first, count;
};

/* The entries of one obfuscated name in a class, and their index.  Lists
 * of groups are in the class's idx[] (class-wide group numbers), the tree
 * in its tree[]. */
struct pg_run {
	const char *obf;
	uint32_t first, n;          /* its entries */
	uint32_t g0, ng;            /* its groups, in mapping order */
	uint32_t ranged, n_ranged;  /* groups with a range, by start */
	uint32_t base, n_base;      /* groups without one, in mapping order */
	uint32_t fall, n_fall;      /* groups whose outermost method is not an
				       earlier group's (the no-line answer) */
	bool outline;               /* an entry is an outline's */
	uint32_t tree, width;       /* max range end over the ranged groups:
				       node k (1 the root) at tree[tree + k];
				       width a power of two, leaves at width */
};

/* An expanded class block. */
struct pg_class {
	const char *obf, *orig;
	const char *source;     /* sourceFile metadata, or NULL */
	bool synthesized;
	struct pg_entry *entries;   /* sorted by obf, file order within a name */
	size_t n;
	struct pg_group *groups;    /* proguard_groups.c */
	size_t n_groups;
	struct pg_run *runs;        /* by obf */
	size_t n_runs;
	uint32_t *idx;
	long *tree;
};

/* A small string-keyed hash map (lives in an arena). */
struct pg_map {
	const char **keys;
	void **vals;
	size_t cap, n;          /* cap: power of two, or 0 */
};

struct hg_proguard {
	char *name;
	hg_ctx ctx;             /* a copy: lazy expansion reports to its sink */
	int fd;                 /* file mode, or -1 */
	char *data;             /* memory mode: the bytes, owned */
	size_t len;
	struct pg_rec *recs;    /* class lines in file order */
	size_t n_recs;
	uint32_t *obf_slots;    /* open addressing: record index + 1 */
	size_t obf_mask;
	uint32_t *orig_slots;   /* same by original name, built when first needed */
	size_t orig_mask;
	char *map_id;           /* "# pg_map_id:" */
	size_t skipped;         /* malformed lines */
	size_t warned;          /* line warnings sent */

	pthread_mutex_t lock;   /* guards what follows: the lazy part */
	hg_arena *arena;
	struct pg_map classes;  /* obf name -> struct pg_class * (NULL: absent) */
	struct pg_map sources;  /* original name -> source file ("" for none) */
	struct pg_map ids;      /* unknown metadata ids already reported */
	size_t cut_warned;      /* frames cut at the retrace limits, warned so far */

	atomic_size_t steps;    /* retrace work done with this mapping (tests read it) */
};

static inline bool pg_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- proguard.c ---- */

/* Reads up to want bytes at off into buf; returns the count (short at the
 * end of the file), or -1 on a read error. */
long pg_read_at(const hg_proguard *pg, size_t off, char *buf, size_t want);

/* Sends a warning about line `line` of pg, counting it as a skipped line
 * and keeping to PG_MAX_WARNINGS (call with pg->lock held or before the
 * mapping is shared). */
void pg_warn_line(hg_proguard *pg, long line, const char *fmt, ...) HG_PRINTF(3, 4);

/* ---- proguard_index.c, proguard_scan.c ---- */

/* Indexes pg (fd or data, len set) into recs, obf_slots, map_id; warnings
 * to pg->ctx.  Returns 0, HG_EIO (diagnostic sent), HG_EPARSE or
 * HG_ENOMEM. */
int pg_index(hg_proguard *pg);

/* Whether the class line at text[0..len) is "orig -> obf:", and its parts. */
bool pg_class_line(const char *text, size_t len, const char **orig, size_t *orig_len,
		   const char **obf, size_t *obf_len);
/* Hash of a name (of the index's tables, and of pg_map). */
uint32_t pg_hash(const char *s, size_t len);

/* ---- proguard_lookup.c ---- */

/* Whether m holds key k[0..len), and its value. */
bool pg_map_get(const struct pg_map *m, const char *k, size_t len, void **val);
/* Adds k[0..len) (copied into arena) -> val to m; 0 or HG_ENOMEM. */
int pg_map_put(struct pg_map *m, hg_arena *arena, const char *k, size_t len, void *val);

/* The expanded class of obfuscated name cls[0..len), or NULL (absent, or
 * ENOMEM: *oom set). */
const struct pg_class *pg_find_class(const hg_proguard *pg, const char *cls, size_t len,
				     bool *oom);
/* The sourceFile metadata of original class name[0..len) anywhere in pg,
 * or NULL. */
const char *pg_source_of(const hg_proguard *pg, const char *name, size_t len, bool *oom);

/* ---- proguard_block.c ---- */

/* Reads and parses the block of record idx into pg's arena (lock held);
 * NULL when it no longer reads as a class (the file changed) or on ENOMEM
 * (*oom set). */
struct pg_class *pg_expand(hg_proguard *pg, size_t idx, bool *oom);

/* A decimal number at *p (moved past the digits read): false when there
 * is none, or more than 9 digits. */
bool pg_digits(const char **p, const char *e, long *out);

/* ---- proguard_groups.c ---- */

/* Indexes the sorted entries of c (into arena): groups, runs, their lists
 * and trees.  0 or HG_ENOMEM. */
int pg_index_class(hg_arena *arena, struct pg_class *c);

/* The run of c named obf[0..len), or NULL. */
const struct pg_run *pg_run_find(const struct pg_class *c, const char *obf, size_t len);

/* The groups of r whose range holds line L, in mapping order, into out
 * (class-wide numbers): at most max, each tree node visited costing a step
 * of *steps, which stays under limit.  Returns their count; *more is set
 * when some were left out (max or limit reached). */
size_t pg_run_stab(const struct pg_class *c, const struct pg_run *r, long L, uint32_t *out,
		   size_t max, size_t *steps, size_t limit, bool *more);

/* ---- proguard_meta.c ---- */

/* The id of a metadata comment body ("{...}" after '#'), or false.  */
bool pg_meta_id(const char *s, size_t len, const char **id, size_t *id_len);
/* The string value of key in the metadata object s[0..len), or false. */
bool pg_meta_string(const char *s, size_t len, const char *key, const char **val,
		    size_t *val_len);

/* Whether a metadata id is one this reader knows. */
bool pg_known_id(const char *id, size_t len);
/* Reports an unknown metadata id once per mapping (lock held, or before
 * the mapping is shared). */
void pg_unknown_id(hg_proguard *pg, const char *id, size_t len, long line);

/* Applies the metadata comment s[0..len) (at `line`; indented: not seen by
 * the index pass, so checked here) to the class c or the method m whose
 * line it follows (both NULL: it follows a field or a malformed line, and
 * sets nothing). */
void pg_meta_apply(hg_proguard *pg, struct pg_class *c, struct pg_entry *m, const char *s,
		   size_t len, long line, bool indented);

#endif
