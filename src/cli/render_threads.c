/* Thread stacks and figures: for a person (the blamed thread first, then
 * the threads that block it, lock cycles, then with --all-threads the rest)
 * and as JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

/* A demangled frame: its readable name, with the "+offset" the symbol was
 * written with ("_ZN3art3FooEv+24" reads "art::Foo()+24"). */
static void readable_symbol(hg_buf *out, const hg_frame *f)
{
	size_t n = strlen(f->mangled);
	const char *rest = f->symbol && strncmp(f->symbol, f->mangled, n) == 0 ? f->symbol + n : "";
	hg_buf_printf(out, " (%s%s)", f->method, rest);
}

static void frame_text(hg_buf *out, const hg_frame *f)
{
	if (f->kind == HG_FRAME_JAVA) {
		hg_buf_printf(out, "at %s.%s", f->cls ? f->cls : "?", f->method ? f->method : "?");
		if (f->file || f->line >= 0) {
			hg_buf_printf(out, "(%s", f->file ? f->file : "");
			if (f->line >= 0)
				hg_buf_printf(out, ":%ld", f->line);
			hg_buf_putc(out, ')');
		}
		return;
	}
	if (f->has_pc)
		hg_buf_printf(out, "pc 0x%016" PRIx64, f->pc);
	if (f->image)
		hg_buf_printf(out, "  %s", f->image);
	if (f->mangled && !f->symbolicated)
		readable_symbol(out, f);
	else if (f->symbol && !f->symbolicated) /* else the function symbol files name */
		hg_buf_printf(out, " (%s)", f->symbol);
	else if (f->method)
		hg_buf_printf(out, " (%s)", f->method);
	else if (f->has_offset)
		hg_buf_printf(out, " +0x%" PRIx64, f->offset);
	render_native_source(out, f);
	if (!f->has_pc && !f->image && !f->symbol && !f->method && f->text)
		hg_buf_puts(out, f->text);
}

static const char *const flag_names[] = {"main", "blamed", "blocks main", "deadlocked", "idle",
					 "reporter"};

static void thread_title(hg_buf *out, const hg_thread *t, const struct style *st)
{
	hg_buf_printf(out, "%s\"%s\"", st->bold, t->name ? t->name : "?");
	if (t->tid >= 0)
		hg_buf_printf(out, " tid=%ld", t->tid);
	if (t->sys_tid >= 0)
		hg_buf_printf(out, " sysTid=%ld", t->sys_tid);
	if (t->priority >= 0)
		hg_buf_printf(out, " prio=%d", t->priority);
	if (t->state)
		hg_buf_printf(out, " %s", t->state);
	hg_buf_puts(out, st->reset);
	bool first = true;
	for (size_t i = 0; i < sizeof flag_names / sizeof *flag_names; i++)
		if (t->flags & (1u << i)) {
			hg_buf_printf(out, "%s%s", first ? "  [" : ", ", flag_names[i]);
			first = false;
		}
	hg_buf_puts(out, first ? "\n" : "]\n");
}

static void thread_body(hg_buf *out, const hg_report *rep, const hg_thread *t,
			const struct render_opts *opts, const struct style *st)
{
	for (size_t i = 0; i < t->n_frames; i++) {
		const hg_frame *f = &t->frames[i];
		/* Ambiguous retrace: "or" opens each candidate after the first;
		 * the rest of a candidate's (inlined) frames line up under it. */
		bool opens = f->candidate > 1 && (i == 0 || t->frames[i - 1].candidate != f->candidate);
		hg_buf_puts(out, opens ? "    or " : f->candidate > 1 ? "       " : "    ");
		frame_text(out, f);
		if (f->repeat > 1)
			hg_buf_printf(out, "  %s%ld", st->times, f->repeat);
		hg_buf_putc(out, '\n');
		render_flush_point(out, opts);
	}
	for (size_t i = 0; i < t->n_held; i++)
		hg_buf_printf(out, "    - holds <%s>%s%s%s\n", t->held[i].addr, t->held[i].cls ? " (a " : "",
			      t->held[i].cls ? t->held[i].cls : "", t->held[i].cls ? ")" : "");
	if (t->waiting.addr) {
		hg_buf_printf(out, "    %s- waits for <%s>", st->warn, t->waiting.addr);
		if (t->waiting.cls)
			hg_buf_printf(out, " (a %s)", t->waiting.cls);
		if (t->waiting_held_by >= 0) {
			const char *holder = NULL;
			for (size_t k = 0; k < rep->threads.n && !holder; k++)
				if (rep->threads.items[k].tid == t->waiting_held_by)
					holder = rep->threads.items[k].name;
			hg_buf_printf(out, " held by tid %ld%s%s%s", t->waiting_held_by, holder ? " \"" : "",
				      holder ? holder : "", holder ? "\"" : "");
		}
		hg_buf_printf(out, "%s\n", st->reset);
	}
	if (t->n_frames == 0)
		hg_buf_puts(out, "    (no frames)\n");
}

void render_threads_tree(hg_buf *out, const hg_report *rep, const struct render_opts *opts,
			 const struct style *st)
{
	const hg_threads *ts = &rep->threads;
	unsigned shown_flags = HG_THREAD_MAIN | HG_THREAD_BLAMED | HG_THREAD_BLOCKS_MAIN |
				HG_THREAD_DEADLOCKED;
	size_t shown = 0;
	hg_buf_putc(out, '\n');
	if (ts->blamed >= 0) { /* the blamed thread first */
		thread_title(out, &ts->items[ts->blamed], st);
		thread_body(out, rep, &ts->items[ts->blamed], opts, st);
		shown++;
	}
	for (size_t k = 0; k < ts->n_chain; k++) { /* then what blocks it, in order */
		const hg_thread *t = &ts->items[ts->chain[k]];
		if ((long)ts->chain[k] == ts->blamed)
			continue;
		hg_buf_putc(out, '\n');
		thread_title(out, t, st);
		thread_body(out, rep, t, opts, st);
		shown++;
	}
	for (size_t c = 0; c < ts->n_cycles; c++) {
		const hg_lock_cycle *cy = &ts->cycles[c];
		hg_buf_printf(out, "\n%sdeadlock:%s", st->warn, st->reset);
		for (size_t i = 0; i < cy->n; i++)
			hg_buf_printf(out, " \"%s\" waits for <%s> held by", ts->items[cy->threads[i]].name,
				      cy->locks[i] && cy->locks[i]->addr ? cy->locks[i]->addr : "?");
		hg_buf_printf(out, " \"%s\"\n", cy->n ? ts->items[cy->threads[0]].name : "?");
	}
	for (size_t i = 0; i < ts->n; i++) {
		const hg_thread *t = &ts->items[i];
		bool listed = (long)i == ts->blamed;
		for (size_t k = 0; k < ts->n_chain && !listed; k++)
			listed = ts->chain[k] == i;
		if (listed)
			continue;
		bool relevant = (t->flags & shown_flags) != 0 || ts->blamed < 0;
		if (!opts->all_threads && !relevant)
			continue;
		hg_buf_putc(out, '\n');
		thread_title(out, t, st);
		thread_body(out, rep, t, opts, st);
		shown++;
	}
	if (shown < ts->n)
		hg_buf_printf(out, "\n%s(%zu other thread%s; --all-threads shows them)%s\n", st->dim,
			      ts->n - shown, ts->n - shown == 1 ? "" : "s", st->reset);
	render_images_tree(out, rep, opts, st);
}

static const hg_stat *find_stat(const hg_report *rep, const char *group, const char *name)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (rep->stats[i].group && !strcmp(rep->stats[i].group, group) &&
		    !strcmp(rep->stats[i].name, name))
			return &rep->stats[i];
	return NULL;
}

/* Matrix's FPS report: how many frame windows dropped at each level
 * (dropLevel) and how many frames they dropped in all (dropSum). */
static bool fps_table(hg_buf *out, const hg_report *rep, const struct style *st)
{
	if (rep->kind != HG_KIND_FPS)
		return false;
	hg_buf_printf(out, "\n%s%-16s %10s %16s%s\n", st->bold, "drop level", "times",
		      "frames dropped", st->reset);
	for (size_t i = 0; i < rep->n_stats; i++) {
		const hg_stat *s = &rep->stats[i];
		if (!s->group || strcmp(s->group, "dropLevel") != 0)
			continue;
		const hg_stat *sum = find_stat(rep, "dropSum", s->name);
		const char *name = strncmp(s->name, "DROPPED_", 8) == 0 ? s->name + 8 : s->name;
		hg_buf_printf(out, "%-16s %10s %16s\n", name, s->value, sum ? sum->value : "-");
	}
	const hg_stat *fps = find_stat(rep, "fps", "fps");
	if (fps)
		hg_buf_printf(out, "%-16s %10s\n", "fps", fps->value);
	return true;
}

void render_stats_tree(hg_buf *out, const hg_report *rep, const struct style *st)
{
	if (fps_table(out, rep, st))
		return;
	const char *group = NULL;
	hg_buf_putc(out, '\n');
	for (size_t i = 0; i < rep->n_stats; i++) {
		const hg_stat *s = &rep->stats[i];
		if (!group || !s->group || strcmp(group, s->group) != 0) {
			group = s->group;
			hg_buf_printf(out, "%s%s%s\n", st->bold, group ? group : "", st->reset);
		}
		hg_buf_printf(out, "  %-28s %12s\n", s->name, s->value);
	}
}

static void json_str(hg_buf *out, const char *key, const char *value, bool comma)
{
	hg_buf_printf(out, "%s\"%s\":", comma ? "," : "", key);
	if (value)
		hg_buf_json_string(out, value, strlen(value));
	else
		hg_buf_puts(out, "null");
}

/* A number that is -1 when absent, as JSON null then. */
static void json_long(hg_buf *out, const char *key, long v)
{
	if (v < 0)
		hg_buf_printf(out, ",\"%s\":null", key);
	else
		hg_buf_printf(out, ",\"%s\":%ld", key, v);
}

static void frame_json(hg_buf *out, const hg_frame *f)
{
	hg_buf_printf(out, "{\"kind\":\"%s\"", f->kind == HG_FRAME_JAVA ? "java" : "native");
	if (f->kind == HG_FRAME_JAVA) {
		json_str(out, "class", f->cls, true);
		json_str(out, "method", f->method, true);
		json_str(out, "file", f->file, true);
		if (f->line >= 0)
			hg_buf_printf(out, ",\"line\":%ld", f->line);
		else
			hg_buf_puts(out, ",\"line\":null");
	} else {
		/* 64-bit addresses as hex strings: a JSON number would pass
		 * through a double in most readers. */
		if (f->has_pc)
			hg_buf_printf(out, ",\"pc\":\"0x%" PRIx64 "\"", f->pc);
		json_str(out, "image", f->image, true);
		if (f->has_offset)
			hg_buf_printf(out, ",\"offset\":\"0x%" PRIx64 "\"", f->offset);
		json_str(out, "symbol", f->symbol ? f->symbol : f->mangled ? f->mangled : f->method, true);
		/* The readable name beside the mangled one (hangar-formats(5)). */
		json_str(out, "name", f->method, true);
		json_str(out, "mangled", f->mangled, true);
		render_native_frame_json(out, f);
	}
	hg_buf_printf(out, ",\"repeat\":%ld,\"retraced\":%s,\"alternative\":%s", f->repeat,
		      f->retraced ? "true" : "false", f->alternative ? "true" : "false");
	if (f->candidate)
		hg_buf_printf(out, ",\"candidate\":%d", f->candidate);
	else
		hg_buf_puts(out, ",\"candidate\":null");
	json_str(out, "text", f->text, true);
	hg_buf_putc(out, '}');
}

static void lock_json(hg_buf *out, const hg_lock *l)
{
	hg_buf_putc(out, '{');
	json_str(out, "addr", l->addr, false);
	json_str(out, "class", l->cls, true);
	hg_buf_putc(out, '}');
}

static void thread_json(hg_buf *out, const hg_thread *t, const struct render_opts *opts)
{
	hg_buf_putc(out, '{');
	json_str(out, "name", t->name, false);
	json_long(out, "tid", t->tid);
	json_long(out, "sys_tid", t->sys_tid);
	json_long(out, "priority", t->priority);
	hg_buf_printf(out, ",\"daemon\":%s", t->daemon ? "true" : "false");
	json_str(out, "state", t->state, true);
	hg_buf_puts(out, ",\"flags\":[");
	bool first = true;
	for (size_t i = 0; i < sizeof flag_names / sizeof *flag_names; i++)
		if (t->flags & (1u << i)) {
			hg_buf_printf(out, "%s\"%s\"", first ? "" : ",", flag_names[i]);
			first = false;
		}
	hg_buf_puts(out, "],\"frames\":[");
	for (size_t i = 0; i < t->n_frames; i++) {
		if (i)
			hg_buf_putc(out, ',');
		frame_json(out, &t->frames[i]);
		render_flush_point(out, opts);
	}
	hg_buf_puts(out, "],\"held\":[");
	for (size_t i = 0; i < t->n_held; i++) {
		if (i)
			hg_buf_putc(out, ',');
		lock_json(out, &t->held[i]);
	}
	hg_buf_puts(out, "],\"waiting\":");
	if (t->waiting.addr) {
		lock_json(out, &t->waiting);
		out->len--; /* reopen the object for the holder */
		json_long(out, "held_by", t->waiting_held_by);
		hg_buf_putc(out, '}');
	} else {
		hg_buf_puts(out, "null");
	}
	hg_buf_putc(out, '}');
}

void render_threads_json(hg_buf *out, const hg_report *rep, const struct render_opts *opts)
{
	const hg_threads *ts = &rep->threads;
	hg_buf_puts(out, ",\"threads\":[");
	for (size_t i = 0; i < ts->n; i++) {
		if (i)
			hg_buf_putc(out, ',');
		thread_json(out, &ts->items[i], opts);
	}
	hg_buf_puts(out, "],\"blamed\":");
	if (ts->blamed >= 0)
		hg_buf_printf(out, "%ld", ts->blamed);
	else
		hg_buf_puts(out, "null");
	hg_buf_puts(out, ",\"blocked_by\":[");
	for (size_t k = 0; k < ts->n_chain; k++)
		hg_buf_printf(out, k ? ",%zu" : "%zu", ts->chain[k]);
	hg_buf_puts(out, "],\"deadlocks\":[");
	for (size_t c = 0; c < ts->n_cycles; c++) {
		const hg_lock_cycle *cy = &ts->cycles[c];
		hg_buf_puts(out, c ? ",[" : "[");
		for (size_t i = 0; i < cy->n; i++) {
			hg_buf_printf(out, "%s{\"thread\":%zu,\"lock\":", i ? "," : "", cy->threads[i]);
			if (cy->locks[i])
				lock_json(out, cy->locks[i]);
			else
				hg_buf_puts(out, "null");
			hg_buf_putc(out, '}');
		}
		hg_buf_putc(out, ']');
	}
	hg_buf_putc(out, ']');
	render_images_json(out, rep);
	hg_buf_puts(out, ",\"stats\":[");
	for (size_t i = 0; i < rep->n_stats; i++) {
		hg_buf_puts(out, i ? ",{" : "{");
		json_str(out, "group", rep->stats[i].group, false);
		json_str(out, "name", rep->stats[i].name, true);
		json_str(out, "value", rep->stats[i].value, true);
		hg_buf_putc(out, '}');
	}
	hg_buf_putc(out, ']');
}
