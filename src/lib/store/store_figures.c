/* The figures table (schema 8): per FPS or startup report, the figures its
 * tracer defines (report_tracers.c), kept as numbers so that the queries
 * can aggregate them: a startup's total (its cost), stages and start kind;
 * an FPS report's fps, frames and frozen/high frames; and whether the
 * report's cost was measured at all (an FPS report's was not: its
 * reports.cost 0 means unknown).  A row is keyed by its report's id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_rollup.h"

/* What a report's figures (hg_stat) say, as numbers. */
struct fig {
	bool cost_known;
	const char *start, *total_from;     /* borrowed from the report */
	bool has[4];                        /* total, application_create, stage_between, first_activity */
	int64_t ms[4];
	bool has_fps, has_frames;
	double fps;
	int64_t frames, frozen, high;
};

static const hg_stat *stat_of(const hg_report *rep, const char *group, const char *name)
{
	for (size_t i = 0; i < rep->n_stats; i++)
		if (rep->stats[i].group && !strcmp(rep->stats[i].group, group) &&
		    !strcmp(rep->stats[i].name, name))
			return &rep->stats[i];
	return NULL;
}

/* A whole number figure; false when absent or not one. */
static bool stat_int(const hg_report *rep, const char *group, const char *name, int64_t *out)
{
	const hg_stat *s = stat_of(rep, group, name);
	if (!s || !s->value || !*s->value)
		return false;
	char *end;
	long long v = strtoll(s->value, &end, 10);
	if (*end)
		return false;
	*out = v;
	return true;
}

/* Whether rep has figures to keep; f filled when so. */
static bool figures_of(const hg_report *rep, struct fig *f)
{
	static const char *const stages[4] = {"total", "application_create",
					      "stage_between_app_and_activity",
					      "first_activity_create"};
	memset(f, 0, sizeof *f);
	f->cost_known = store_cost_known(rep);
	const hg_stat *s = stat_of(rep, "startup", "start");
	f->start = s ? s->value : NULL;
	s = stat_of(rep, "startup", "total_from");
	f->total_from = s ? s->value : NULL;
	bool any = !f->cost_known || f->start;
	for (int i = 0; i < 4; i++)
		any |= f->has[i] = stat_int(rep, "startup", stages[i], &f->ms[i]);
	s = stat_of(rep, "fps", "fps");
	if (s && s->value) {
		char *end;
		f->fps = strtod(s->value, &end);
		f->has_fps = !*end && f->fps >= 0;
	}
	f->has_frames = stat_int(rep, "fps", "frames", &f->frames);
	if (f->has_frames) {
		if (!stat_int(rep, "dropLevel", "DROPPED_FROZEN", &f->frozen))
			f->frozen = 0; /* early FPSTracer reports leave the level out */
		if (!stat_int(rep, "dropLevel", "DROPPED_HIGH", &f->high))
			f->high = 0;
	}
	return any || f->has_fps || f->has_frames;
}

static void bind_opt_int(hg_db_stmt *st, int i, bool has, int64_t v)
{
	if (has)
		db_bind_int(st, i, v);
	else
		db_bind_null(st, i);
}

static int insert(hg_store *store, int64_t id, const struct fig *f)
{
	hg_db_stmt *st = db_stmt(store->db, S_FIG_INSERT,
		"INSERT OR REPLACE INTO figures(report, cost_known, start, total, total_from,"
		" application_create, stage_between_app_and_activity, first_activity_create,"
		" fps, frames, frozen, high) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, f->cost_known);
	db_bind_text_here(st, 3, f->start);
	for (int i = 0; i < 4; i++)
		bind_opt_int(st, i == 0 ? 4 : 5 + i, f->has[i], f->ms[i]);
	db_bind_text_here(st, 5, f->has[0] ? f->total_from : NULL);
	if (f->has_fps)
		db_bind_double(st, 9, f->fps);
	else
		db_bind_null(st, 9);
	bind_opt_int(st, 10, f->has_frames, f->frames);
	bind_opt_int(st, 11, f->has_frames, f->frozen);
	bind_opt_int(st, 12, f->has_frames, f->high);
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

bool store_figs_of(const hg_report *rep, struct rollup_figs *out)
{
	struct fig f;
	if (!figures_of(rep, &f))
		return false;
	/* as the figures row reads back: frames and frozen, high NULL (0 in
	 * sums) without frame counts */
	bool frames = f.has_frames;
	*out = (struct rollup_figs){.n = 1, .unmeasured = !f.cost_known, .startups = f.has[0],
				    .cold = f.start && !strcmp(f.start, "cold"),
				    .warm = f.start && !strcmp(f.start, "warm"), .fps_n = f.has_fps,
				    .frames = frames ? f.frames : 0, .frozen = frames ? f.frozen : 0,
				    .high = frames ? f.high : 0, .fps = f.has_fps ? f.fps : 0};
	return true;
}

int store_figures_add(hg_store *store, int64_t id, const hg_report *rep)
{
	struct fig f;
	return figures_of(rep, &f) ? insert(store, id, &f) : 0;
}

/* ---- migrating to schema 8 ---- */

static int set_cost(hg_store *store, int64_t id, int64_t cost)
{
	hg_db_stmt *st = db_stmt(store->db, S_FIG_COST,
				 "UPDATE reports SET cost = max(cost, ?2) WHERE id = ?1");
	if (!st)
		return DB_ERROR;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, cost);
	int rc = db_step(st);
	db_reset(st);
	return rc;
}

/* A report's figures read from its text; a startup's total as its cost. */
static int backfill_one(hg_store *store, int64_t id, const hg_report *rep)
{
	struct fig f;
	if (!rep || !figures_of(rep, &f))
		return 0;
	int rc = insert(store, id, &f);
	return rc >= 0 && f.has[0] ? set_cost(store, id, f.ms[0]) : rc;
}

int store_figures_backfill(hg_store *store)
{
	return store_backfill(store, S_FIG_NEXT,
		"SELECT id, text FROM reports r WHERE id > ?1 AND kind IN ('fps', 'startup')"
		" AND NOT EXISTS (SELECT 1 FROM figures f WHERE f.report = r.id) ORDER BY id LIMIT 1",
		backfill_one);
}

int store_figures_merge(hg_store *store, const char *schema)
{
	char sql[640];
	snprintf(sql, sizeof sql,
		 "INSERT OR IGNORE INTO main.figures(report, cost_known, start, total, total_from,"
		 " application_create, stage_between_app_and_activity, first_activity_create, fps,"
		 " frames, frozen, high) SELECT r.id, f.cost_known, f.start, f.total, f.total_from,"
		 " f.application_create, f.stage_between_app_and_activity, f.first_activity_create,"
		 " f.fps, f.frames, f.frozen, f.high FROM %s.figures f"
		 " JOIN %s.reports s ON s.id = f.report"
		 " JOIN main.reports r ON r.content_hash = s.content_hash ORDER BY r.id",
		 schema, schema);
	return db_exec(store->db, sql);
}
