/* Readable names for native frames, once a report is read and whatever
 * its format: one pass over its threads here rather than in each reader,
 * so that every renderer, the signature and the store see the same names.
 * The memo belongs to the reading (one input), so a file of many reports
 * demangles each distinct symbol once. */
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

int report_demangle_frames(hg_report *rep, hg_demangler **names)
{
	for (size_t t = 0; t < rep->threads.n; t++) {
		hg_thread *th = &rep->threads.items[t];
		const char *last = NULL, *last_readable = NULL;
		for (size_t i = 0; i < th->n_frames; i++) {
			hg_frame *f = &th->frames[i];
			const char *name = f->method ? f->method : f->symbol;
			if (f->kind != HG_FRAME_NATIVE || f->mangled || !name || !looks_mangled(name))
				continue;
			/* Readers share one copy of a repeated string: the same
			 * pointer as the frame before needs no lookup. */
			const char *readable = last_readable;
			if (name != last) {
				if (!*names && !(*names = hg_demangler_create()))
					return HG_ENOMEM;
				int rc = hg_demangler_get(*names, name, rep->arena, &readable);
				if (rc != 0)
					return rc;
				last = name;
				last_readable = readable;
			}
			if (readable) {
				f->mangled = name;
				f->method = readable;
			}
		}
	}
	return 0;
}
