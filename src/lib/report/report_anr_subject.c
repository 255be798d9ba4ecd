/* What an ANR says of itself, and what its main thread did meanwhile.
 *
 * The annotation system_server writes for an ANR (ProcessErrorStateRecord
 * .appNotResponding: the traces file's "Subject:", logcat's "Reason:",
 * am_anr's last field) names its cause, usually the component that did
 * not answer, and for input the wait:
 *   Input dispatching timed out (f130cca com.app/com.app.NavActivity (server) is not
 *     responding. Waited 5000ms for MotionEvent)
 *   Input dispatching timed out (Waiting to send non-key event because ... Wait queue
 *     head age: 5591.1ms.)                                    (Android 8 to 10)
 *   Broadcast of Intent { act=... cmp=com.app/.BootReceiver }
 *   executing service com.app/.sync.SyncService
 *   Context.startForegroundService() did not then call Service.startForeground(): ...
 *   ContentProvider not responding
 * A system_server Watchdog's subject ("Blocked in handler on main thread
 * (main)") is no app's ANR. */
#include <stdio.h>
#include <string.h>

#include "report_anr.h"

static bool has_at(const char *s, size_t len, size_t i, const char *needle)
{
	size_t n = strlen(needle);
	return i + n <= len && memcmp(s + i, needle, n) == 0;
}

static size_t find(const char *s, size_t len, const char *needle)
{
	for (size_t i = 0; i < len; i++)
		if (has_at(s, len, i, needle))
			return i;
	return len;
}

static const char *type_of(const char *s, size_t len)
{
	static const struct {
		const char *needle, *type;
	} types[] = {
		{"Input dispatching timed out", "input dispatching"},
		{"Broadcast of Intent", "broadcast"},
		{"executing service", "service"},
		{"startForegroundService", "service"},
		{"did not stop within its timeout", "service"}, /* a foreground service's */
		{"ContentProvider", "content provider"},
		{"content provider", "content provider"},
		{"No response to on", "job service"},   /* onStartJob, onStopJob, ... */
		{"failed to complete startup", "app startup"},
	};
	for (size_t k = 0; k < sizeof types / sizeof *types; k++)
		if (find(s, len, types[k].needle) < len)
			return types[k].type;
	return NULL;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$';
}

const char *anr_component_class(hg_arena *arena, const char *s, size_t len)
{
	for (size_t slash = 0; slash < len; slash++) {
		if (s[slash] != '/')
			continue;
		size_t a = slash, b = slash + 1;
		while (a > 0 && name_char(s[a - 1]))
			a--;
		while (b < len && name_char(s[b]))
			b++;
		size_t pkg = slash - a, cls = b - slash - 1;
		/* "a.b/.C" or "a.b/a.b.C": a dotted package, a class after it, and
		 * nothing glued to either side ("/system/bin", "1/2") */
		if (pkg < 3 || cls < 2 || !memchr(s + a, '.', pkg) || s[a] == '.' ||
		    (a > 0 && strchr("/:-", s[a - 1])) || (b < len && s[b] == '/') ||
		    (s[a] >= '0' && s[a] <= '9'))
			continue;
		if (s[slash + 1] == '.')
			return hg_arena_printf(arena, "%.*s%.*s", (int)pkg, s + a, (int)cls, s + slash + 1);
		return hg_arena_strndup(arena, s + slash + 1, cls);
	}
	return NULL;
}

/* The number at s[i..): digits, maybe a fraction; *end after it.  -1 when
 * there is none; -2 when it is too large (over 10^12 ms: 31 years). */
static int64_t millis_at(const char *s, size_t len, size_t i, size_t *end)
{
	int64_t v = 0;
	size_t start = i;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		if (v > 1000000000000LL)
			v = 1000000000001LL; /* keep counting digits, stay in range */
		else
			v = v * 10 + (s[i] - '0');
		i++;
	}
	if (i == start)
		return -1;
	int round = 0;
	if (i + 1 < len && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
		round = s[i + 1] >= '5';
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			;
	}
	*end = i;
	return v > 1000000000000LL ? -2 : v + round;
}

/* The wait the annotation states: "Waited 5001ms", "waited 300 ms",
 * "Wait queue head age: 5591.1ms".  0 with *ms -1 when none; *ms -2 and
 * a warning when one is written but cannot be read. */
static int wait_of(hg_report *rep, const char *s, size_t len, long line, int64_t *ms)
{
	static const char *const keys[] = {"Waited ", "waited ", "Wait queue head age: "};
	*ms = -1;
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		size_t at = find(s, len, keys[k]);
		if (at == len)
			continue;
		size_t i = at + strlen(keys[k]), end = i;
		bool negative = i < len && s[i] == '-';
		int64_t v = millis_at(s, len, i + negative, &end);
		while (end < len && s[end] == ' ')
			end++;
		bool unit = has_at(s, len, end, "ms");
		if (v >= 0 && unit && !negative) {
			*ms = v;
			return 0;
		}
		*ms = -2;
		size_t upto = unit ? end + 2 : end;
		int n = (int)(upto - at < 60 ? upto - at : 60);
		return hg_strlist_addf(&rep->warnings, rep->arena, "line %ld: the wait in \"%.*s\" %s: "
				       "the ANR's cost is unknown", line, n, s + at,
				       negative ? "is negative" : v == -2 ? "is out of range (over 10^12 ms)"
				       : "is no number of ms");
	}
	return 0;
}

int anr_subject_read(hg_report *rep, const char *s, size_t len, long line,
		     struct anr_subject *out)
{
	*out = (struct anr_subject){false, NULL, NULL, -1};
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return 0;
	/* com.android.server.Watchdog: system_server's own hang */
	out->is_anr = !has_at(s, len, 0, "Blocked in ");
	if (!out->is_anr)
		return 0;
	out->type = type_of(s, len);
	out->scene = anr_component_class(rep->arena, s, len);
	int64_t wait;
	int rc = wait_of(rep, s, len, line, &wait);
	out->wait_ms = wait >= 0 ? wait : -1;
	if (rc == 0 && wait == -1 && out->type && !strcmp(out->type, "input dispatching"))
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "line %ld: the input ANR's "
				     "annotation says no wait (\"Waited Nms\"): the ANR's cost is "
				     "unknown", line);
	return rc;
}

/* ---- busy or blocked ---- */

/* "385 ms", "7.0 s". */
static void duration(char *out, size_t size, int64_t ms)
{
	if (ms < 10000)
		snprintf(out, size, "%lld ms", (long long)ms);
	else
		snprintf(out, size, "%lld.%lld s", (long long)(ms / 1000), (long long)(ms % 1000 / 100));
}

/* The rule (hangar-formats(5), ANR TRACES).  A thread's figures count from
 * its start, so they bound what it did during the wait from above:
 *   - ran under a tenth of the wait in all its life: it cannot have been
 *     computing for the wait: "waiting, not computing";
 *   - ran at least 80% of the wait in all, and was on a CPU when dumped
 *     (kernel state R; without one, ART's "Runnable"): busy on the CPU;
 *   - anything else says nothing for sure, and is not said.
 * The time run is schedstat's first figure (ns), else utm + stm clock
 * ticks at HZ (100 on Android). */
int anr_busy_or_blocked(hg_report *rep, const struct anr_cpu *cpu, const char *java_state,
			int64_t wait_ms)
{
	if (!cpu || wait_ms <= 0 || (!cpu->has_sched && !cpu->has_ticks))
		return 0;
	bool sched = cpu->has_sched && cpu->run_ns > 0;
	int64_t hz = cpu->hz > 0 ? cpu->hz : 100;
	int64_t ran = sched ? cpu->run_ns / 1000000
			    : ((int64_t)cpu->utm + cpu->stm) * 1000 / hz;
	char ran_s[32], wait_s[32];
	duration(ran_s, sizeof ran_s, ran);
	snprintf(wait_s, sizeof wait_s, "%lld ms", (long long)wait_ms);
	const char *from = sched ? "schedstat" : "utm+stm";
	if (ran * 10 < wait_ms)
		return hg_strlist_addf(&rep->warnings, rep->arena, "main thread ran %s on the CPU in "
				       "all its life (%s), under a tenth of the %s wait: it was waiting, "
				       "not computing", ran_s, from, wait_s);
	bool running = cpu->state ? cpu->state == 'R'
				  : java_state && !strcmp(java_state, "Runnable");
	if (ran * 10 < wait_ms * 8 || !running)
		return 0;
	char state[16];
	if (cpu->state)
		snprintf(state, sizeof state, "state=%c", cpu->state);
	else
		snprintf(state, sizeof state, "%s", "Runnable");
	return hg_strlist_addf(&rep->warnings, rep->arena, "main thread ran %s on the CPU since it "
			       "started (%s), %lld%% of the %s wait, and was running when dumped "
			       "(%s): busy on the CPU, not blocked", ran_s, from,
			       (long long)(ran / wait_ms * 100 + ran % wait_ms * 100 / wait_ms), wait_s,
			       state);
}
