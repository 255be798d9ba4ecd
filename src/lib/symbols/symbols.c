/* Module symbols (src/lib/symbols/): native symbolication from the build's
 * symbol files: the run's object and its warnings (symbols.c, entry), the
 * headers of ELF and Mach-O files (symbols_header.c), the index of symbol
 * folders (symbols_index.c), a report's frames named (symbols_apply.c), a
 * line of text named (symbols_text.c) and the llvm-symbolizer process (symbols_spawn.c, the only file that starts
 * a process).
 * Public header: symbols.h.
 * Uses: core, json, report, threads. */
/* Why llvm-symbolizer and not elfutils' libdw: one tool reads DWARF of
 * both ELF and Mach-O (dSYMs), with inlined frames, split DWARF and
 * compressed sections, kept by LLVM; libdw reads ELF only, so Mach-O would
 * need a second DWARF reader.  One process per run, fed a batch per report,
 * costs one start (~10 ms) and keeps every binary it opened open. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_internal.h"

void sym_warn(struct sym_index *ix, const char *source, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hg_diagf(ix->ctx, HG_DIAG_WARNING, source, 0, 0, 0, "%s", msg);
}

int hg_symbols_create(const hg_ctx *ctx, const hg_symbols_opts *opts, hg_symbols **out)
{
	*out = NULL;
	if (!ctx || !opts || (opts->n_dirs && !opts->dirs) || opts->timeout_ms < 0)
		return HG_EINVAL;
	struct hg_symbols *s = calloc(1, sizeof *s);
	if (!s)
		return HG_ENOMEM;
	s->ctx = ctx;
	s->index.ctx = ctx;
	s->timeout_ms = opts->timeout_ms;
	const char *env = getenv("HANGAR_SYMBOLIZER_TIMEOUT_MS");
	if (!s->timeout_ms && env && atol(env) > 0)
		s->timeout_ms = atol(env);
	if (!s->timeout_ms)
		s->timeout_ms = 30000;
	const char *tool = opts->symbolizer;
	if (!tool || !*tool)
		tool = getenv("HANGAR_SYMBOLIZER");
	s->symbolizer = strdup(tool && *tool ? tool : "llvm-symbolizer");
	s->cache_arena = hg_arena_create();
	int rc = s->symbolizer && s->cache_arena ? 0 : HG_ENOMEM;
	if (rc == 0 && pthread_mutex_init(&s->lock, NULL) != 0)
		rc = HG_ENOMEM;
	else if (rc == 0)
		s->locked_init = true;
	for (size_t i = 0; rc == 0 && i < opts->n_dirs; i++)
		rc = sym_index_add(&s->index, opts->dirs[i]);
	if (rc != 0) {
		hg_symbols_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

void hg_symbols_get_stats(const hg_symbols *s, hg_symbols_stats *out)
{
	*out = s->stats;
	out->entries_seen = s->index.seen;
	out->files_opened = s->index.opened;
	out->binaries = s->index.binaries;
	out->bad_binaries = s->index.bad;
}

void hg_symbols_destroy(hg_symbols *s)
{
	if (!s)
		return;
	sym_proc_stop(s->proc);
	sym_index_release(&s->index);
	strmap_clear(&s->images);
	strmap_clear(&s->answers);
	free(s->cache);
	hg_arena_destroy(s->cache_arena);
	free(s->used);
	free(s->failed_file);
	free(s->symbolizer);
	if (s->locked_init)
		pthread_mutex_destroy(&s->lock);
	free(s);
}
