/* What retrace shares (private): one obfuscated frame retraced to the
 * frames it stands for (proguard_frame.c, within the bounds of
 * proguard_cut.c), for a report's threads (proguard_report.c) and for text
 * (proguard_text.c). */
#ifndef HANGAR_LIB_PROGUARD_RETRACE_H
#define HANGAR_LIB_PROGUARD_RETRACE_H

#include "proguard_internal.h"

/* A frame to retrace. */
struct rt_in {
	const char *cls, *method, *file; /* file may be NULL */
	size_t cls_len, method_len, file_len;
	long line;                       /* PG_NONE when absent */
};

/* A frame it stands for. */
struct rt_frame {
	const char *cls, *method; /* not NUL-terminated in general */
	size_t cls_len, method_len;
	const char *file;         /* the whole name, or NULL: base + ext */
	const char *base, *ext;
	size_t base_len;
	long line;
	bool synth;
};

/* Why a frame's retrace was cut short (proguard_frame.c). */
enum rt_cut {
	RT_CUT_NONE,
	RT_CUT_INLINE,      /* an inlining stack longer than the frames left */
	RT_CUT_CANDIDATES,  /* more candidates than the frames left */
	RT_CUT_STEPS,       /* PG_MAX_STEPS spent */
};

/* The frames of every candidate (scratch kept between calls). */
struct rt_out {
	struct rt_frame *f;       /* at most HG_PROGUARD_MAX_FRAMES */
	size_t n, cap;
	size_t *cand;             /* index in f where each candidate starts */
	uint32_t *cand_hash;      /* ... and the hash of its frames */
	size_t n_cand, cap_cand, cap_hash;
	uint32_t seen[2 * HG_PROGUARD_MAX_FRAMES]; /* candidates by hash: index + 1 */
	uint32_t *match;          /* scratch: groups whose range holds the line */
	size_t cap_match;
	bool consumed_outline;    /* the carried outline position was used */
	size_t steps;             /* spent on this frame (of PG_MAX_STEPS) */
	enum rt_cut cut;          /* the first cut, and where in the mapping */
	long cut_line;
	size_t cut_size, cut_kept; /* RT_CUT_INLINE: the stack's frames, those kept */
};

/* What one frame leaves to the next one. */
struct rt_state {
	bool carry;               /* an outline frame came just before */
	long carry_pos, carry_raw;
	const char *throws;       /* descriptor thrown, for the first frame after an exception line */
	size_t throws_len;
	bool no_outline;          /* retrace an outline frame as an ordinary one */
};

enum rt_status { RT_NONE, RT_OK, RT_OUTLINE, RT_REMOVED, RT_ENOMEM };

/* Retraces in with the first of maps (in order; one whose pg_map_id the
 * frame's source file names first) that knows its class, into o (emptied
 * first), within HG_PROGUARD_MAX_FRAMES frames and PG_MAX_STEPS steps (a
 * cut is a warning to that mapping's context).  RT_OK: o holds the frames,
 * candidate by candidate; RT_NONE: no mapping knows the class, or a cut
 * left no frame; RT_OUTLINE: an outline frame, left in st for its caller,
 * the next frame; RT_REMOVED: rewriteFrame rules removed every frame;
 * RT_ENOMEM. */
enum rt_status pg_retrace_frame(const hg_proguard *const *maps, size_t n_maps,
				const struct rt_in *in, struct rt_state *st, struct rt_out *o);

/* ---- proguard_cut.c ---- */

/* Notes why and where (a mapping line) o was cut, unless it already was. */
void pg_note_cut(struct rt_out *o, enum rt_cut why, long line);
/* Takes n of o's steps: false (and the cut noted) when they are not left. */
bool pg_spend(struct rt_out *o, size_t n, long line);
/* Drops o's last candidate when an earlier one has the same frames (or
 * when the steps to compare are not left), else remembers it. */
void pg_dedupe_last(struct rt_out *o, long line);
/* Warns (pg's context, the first PG_MAX_WARNINGS times) that frame in was
 * cut as o says. */
void pg_warn_cut(const hg_proguard *pg, const struct rt_in *in, const struct rt_out *o);

/* Frees what o holds and empties it. */
void pg_out_release(struct rt_out *o);

/* Grows the array *p of *cap elements of size bytes to hold need; false on
 * ENOMEM (*p unchanged). */
bool pg_grow(void **p, size_t *cap, size_t need, size_t size);

/* A lock's class s[0..len): "a.b", "java.lang.Class<a.b>", "a.b[]".  When
 * a mapping knows the name, appends the type to out with the original name
 * in place of its core and returns that name; else (or when out failed)
 * NULL. */
const char *pg_rename_type(const hg_proguard *const *maps, size_t n_maps, const char *s,
			   size_t len, hg_buf *out);

#endif
