/* Readable names for native frames, once a report is read and whatever
 * its format: one pass over its threads here rather than in each reader,
 * so that every renderer, the signature and the store see the same names.
 * The memo belongs to the reading (one input), so a file of many reports
 * demangles each distinct symbol once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* Only names that start like a mangling go to the memo: most native
 * frames are C or Objective-C, already readable. */
static bool looks_mangled(const char *s)
{
	if (s[0] == '$')
		return s[1] == 's' || s[1] == 'S';
	if (s[0] != '_')
		return false;
	if (s[1] == 'Z' || (s[1] == '$' && (s[2] == 's' || s[2] == 'S')))
		return true;
	return s[1] == '_' && s[2] == 'Z';
}

/* The names already demangled in this report, by the reader's pointer:
 * readers keep one copy of a repeated string (strcache), so most repeats
 * cost neither a memo lookup nor another copy of the readable name in the
 * arena.  Direct-mapped and bounded, as strcache is. */
#define SEEN_SLOTS 4096

struct seen {
	const char *name;
	const char *readable;   /* NULL: not mangled after all */
};

static size_t slot_of(const char *name)
{
	uintptr_t v = (uintptr_t)name;
	return (size_t)((v >> 4) ^ (v >> 16)) & (SEEN_SLOTS - 1);
}

int report_demangle_frames(hg_report *rep, hg_demangler **names)
{
	struct seen *seen = NULL;
	int rc = 0;
	for (size_t t = 0; t < rep->threads.n && rc == 0; t++) {
		hg_thread *th = &rep->threads.items[t];
		for (size_t i = 0; i < th->n_frames && rc == 0; i++) {
			hg_frame *f = &th->frames[i];
			const char *name = f->method ? f->method : f->symbol;
			if (f->kind != HG_FRAME_NATIVE || f->mangled || !name || !looks_mangled(name))
				continue;
			if (!seen && !(seen = calloc(SEEN_SLOTS, sizeof *seen))) {
				rc = HG_ENOMEM;
				break;
			}
			struct seen *x = &seen[slot_of(name)];
			if (x->name != name) {
				if (!*names && !(*names = hg_demangler_create())) {
					rc = HG_ENOMEM;
					break;
				}
				const char *readable;
				if ((rc = hg_demangler_get(*names, name, rep->arena, &readable)) != 0)
					break;
				*x = (struct seen){name, readable};
			}
			if (x->readable) {
				f->mangled = name;
				f->method = x->readable;
			}
		}
	}
	free(seen);
	return rc;
}
