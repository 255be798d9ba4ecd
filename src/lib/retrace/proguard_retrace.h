/* What retrace shares (private): one obfuscated frame retraced to the
 * frames it stands for (proguard_frame.c), for a report's threads
 * (proguard_report.c) and for text (proguard_text.c). */
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

/* The frames of every candidate (scratch kept between calls). */
struct rt_out {
	struct rt_frame *f;
	size_t n, cap;
	size_t *cand;             /* index in f where each candidate starts */
	size_t n_cand, cap_cand;
	size_t *group;            /* scratch: entry index where each group starts */
	size_t cap_group;
	bool consumed_outline;    /* the carried outline position was used */
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
 * first).  RT_OK: o holds the frames, candidate by candidate; RT_NONE: no
 * mapping knows the class; RT_OUTLINE: an outline frame, left in st for
 * its caller, the next frame; RT_REMOVED: rewriteFrame rules removed every
 * frame; RT_ENOMEM. */
enum rt_status pg_retrace_frame(const hg_proguard *const *maps, size_t n_maps,
				const struct rt_in *in, struct rt_state *st, struct rt_out *o);

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
