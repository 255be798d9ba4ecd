/* libFuzzer target: sessions files (hg_sessions_parse).  Invariants: a
 * refusal says one problem with its line and column (at least 1), makes
 * nothing and returns HG_EPARSE; a file read has versions whose sessions
 * add up to the whole file's total, every sessions count within 0..2^53
 * (a sum may saturate), and reading the same bytes again gives the same;
 * an untimed report counts only against a row without a day. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hangar/sessions.h"

static const char fuzz_target[] = "fuzz_sessions";
#include "fuzz_fixture.h"

struct said {
	int n;
	long line, col;
};

static void sink(void *user, const hg_diag *d)
{
	struct said *s = user;
	fuzz_diag_sink(NULL, d);
	s->n++;
	s->line = d->line;
	s->col = d->col;
}

struct sum {
	int64_t total;
	size_t versions;
	const hg_sessions *s;
};

static int on_version(void *user, const char *version, int64_t sessions)
{
	struct sum *sum = user;
	touch(version);
	require(*version != '\0', "a version is not empty");
	require(sessions >= 0, "sessions are not negative");
	sum->total = sessions > INT64_MAX - sum->total ? INT64_MAX : sum->total + sessions;
	sum->versions++;
	hg_sessions_scope v = {.version = version};
	int64_t own = hg_sessions_total(sum->s, &v);
	require(own == sessions, "a version's total is its rows'");
	/* an untimed report counts only against a row without a day, which
	 * every version of a file without days has; no row has the day
	 * 0000-00-00, so a report of it counts exactly as an untimed one */
	bool untimed = hg_sessions_counts(sum->s, &v, version, NULL);
	require(untimed || hg_sessions_has_days(sum->s), "a file without days counts every report");
	require(hg_sessions_counts(sum->s, &v, version, "0000-00-00T00:00:00.000Z") == untimed,
		"no row has the day 0000-00-00");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hg_ctx ctx;
	struct said said = {0};
	fuzz_ctx_init(&ctx);
	ctx.diag = sink;
	ctx.diag_user = &said;
	hg_sessions *s = NULL;
	int rc = hg_sessions_parse(&ctx, "fuzz.csv", (const char *)data, size, &s);
	if (rc == HG_ENOMEM)
		return 0;
	if (rc != 0) {
		require(rc == HG_EPARSE && !s, "a refusal is HG_EPARSE and makes nothing");
		require(said.n == 1 && said.line >= 1 && said.col >= 1, "one problem, with its place");
		return 0;
	}
	require(s && said.n == 0, "a file read says nothing");
	struct sum sum = {0, 0, s};
	require(hg_sessions_versions(s, on_version, &sum) == 0, "versions listed");
	int64_t total = hg_sessions_total(s, NULL);
	require(sum.versions ? total == sum.total : total == -1, "the file's total is its versions'");
	/* the same bytes read again: the same */
	hg_sessions *again = NULL;
	require(hg_sessions_parse(&ctx, "fuzz.csv", (const char *)data, size, &again) == 0 &&
			hg_sessions_total(again, NULL) == total,
		"reading is repeatable");
	hg_sessions_destroy(again);
	hg_sessions_destroy(s);
	return 0;
}
