/* BlockCanary logs, as its LogWriter writes them (every line ends "\r\n"):
 *
 *   (blank line)
 *   **********************
 *   2017-10-29 10:32:17(write log time)
 *   (blank line)
 *   qua = unknown                        a "key = value" header, one per line
 *   ...
 *   cpu-rate = 10-29 10:32:14.406 cpu:52% app:2% [...]
 *   10-29 10:32:15.410 cpu:55% ...       cpu-rate goes on up to a blank line
 *   (blank line)
 *   stack = 10-29 10:32:13.403           the time of the first stack sample
 *   (blank line)
 *   dalvik.system.DexFile.openDexFileNative(Native Method)
 *   ...                                  its frames, innermost first
 *   (blank line)
 *   10-29 10:32:14.203                   the next sample, and so on
 *
 * Every sample is kept with its time (hangar/samples.h); their call tree's
 * heaviest path is the blamed main thread, each frame with the samples
 * through it.  Every header field is kept as a figure (group
 * "blockcanary"); "block" figures compare wall and thread time and place
 * the CPU samples, and the findings say what they mean
 * (report_blockcanary_findings.c).  Older BlockCanary (blockcanary-core's
 * Block) named its keys qualifier, apilevel, cpuCore, timecost, cpubusy,
 * ...: they are read alike.  One input is one log: a second log in it is
 * not read.
 *
 * Here: the header fields and the CPU figures; the stack samples are read
 * in report_blockcanary_samples.c. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_blockcanary_internal.h"
#include "report_time.h"

/* ---- header lines ---- */

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
	       c == '_' || c == '.';
}

/* "key = value" (BlockCanary's separator is " = "); the value may be empty. */
static bool header_field(const struct line *ln, size_t *key_len, const char **value,
			 size_t *value_len)
{
	const char *s = ln->s;
	size_t n = ln->len, i = 0;
	if (n == 0 || is_digit(s[0]) || !is_key_char(s[0]))
		return false;
	while (i < n && is_key_char(s[i]))
		i++;
	if (i + 2 > n || s[i] != ' ' || s[i + 1] != '=')
		return false;
	if (i + 2 < n && s[i + 2] != ' ')
		return false;
	*key_len = i;
	*value = i + 3 <= n ? s + i + 3 : s + n;
	*value_len = i + 3 <= n ? n - i - 3 : 0;
	return true;
}

bool bc_is_short_time(const char *s, size_t n)
{
	static const char shape[] = "00-00 00:00:00.000";
	if (n < sizeof shape - 1)
		return false;
	for (size_t i = 0; i < sizeof shape - 1; i++)
		if (shape[i] == '0' ? !is_digit(s[i]) : s[i] != shape[i])
			return false;
	return true;
}

/* ---- the reader ---- */

enum bc_key {
	K_OTHER, K_MODEL, K_VERSION_NAME, K_PROCESS, K_TIME, K_THREAD_TIME, K_TIME_START,
	K_TIME_END, K_CPU_RATE, K_CPU_BUSY, K_STACK, K_API_LEVEL,
};

static const struct {
	const char *name;
	enum bc_key key;
} known_keys[] = {
	{"model", K_MODEL},           {"versionName", K_VERSION_NAME},
	{"process", K_PROCESS},       {"processName", K_PROCESS},
	{"time", K_TIME},             {"timecost", K_TIME},
	{"thread-time", K_THREAD_TIME}, {"threadtimecost", K_THREAD_TIME},
	{"time-start", K_TIME_START}, {"timestart", K_TIME_START},
	{"time-end", K_TIME_END},     {"timeend", K_TIME_END},
	{"cpu-rate", K_CPU_RATE},     {"cpurate", K_CPU_RATE},
	{"cpu-busy", K_CPU_BUSY},     {"cpubusy", K_CPU_BUSY},
	{"stack", K_STACK},
	{"api-level", K_API_LEVEL},   {"apilevel", K_API_LEVEL},
};

/* A figure whose value is s[0..n). */
static int add_figure(hg_report *rep, const char *group, const char *name, const char *s, size_t n)
{
	const char *v = hg_arena_strndup(rep->arena, s, n);
	return v ? hg_report_add_stat(rep, group, name, v) : HG_ENOMEM;
}

void bc_skip(struct bc *b, const struct line *ln)
{
	b->last_skipped = ln->no;
	if (b->skipped++ == 0) {
		b->first_skipped = ln->no;
		quote_text(b->first_skipped_text, sizeof b->first_skipped_text, ln->s, ln->len);
	}
}

/* The block's durations: exact non-negative integers (milliseconds). */
static int read_ms(struct bc *b, const struct line *ln, const char *key, const char *v, size_t n,
		   int64_t *out)
{
	int64_t x = 0;
	bool ok = n > 0 && n <= 18;
	for (size_t i = 0; ok && i < n; i++) {
		ok = is_digit(v[i]);
		x = x * 10 + (v[i] - '0');
	}
	if (!ok) {
		char q[64];
		quote_text(q, sizeof q, v, n);
		return report_fail(b->err, ln->off, "%s = \"%s\": expected milliseconds (a whole "
				   "number)", key, q);
	}
	*out = x;
	return 0;
}

/* One line of cpu-rate: "10-29 10:32:14.406 cpu:52% app:2% [user:45% ...]".
 * A percentage over 100 is BlockCanary's sampler misreading /proc/stat. */
static int cpu_line(struct bc *b, const struct line *ln)
{
	hg_report *rep = b->rep;
	b->cpu_samples++;
	if (b->start && b->end && bc_is_short_time(ln->s, ln->len) &&
	    memcmp(ln->s, b->start, 18) >= 0 && memcmp(ln->s, b->end, 18) <= 0) {
		b->cpu_in_block++;
		bc_cpu_rates(b, ln);
	}
	for (size_t i = 0; i < ln->len && !b->cpu_garbage; i++) {
		if (ln->s[i] != ':')
			continue;
		size_t k = i + 1;
		long pct = 0;
		for (; k < ln->len && is_digit(ln->s[k]); k++)
			pct = pct < 1000000 ? pct * 10 + (ln->s[k] - '0') : pct;
		if (k > i + 1 && k < ln->len && ln->s[k] == '%' && pct > 100) {
			size_t w = i;
			while (w > 0 && ln->s[w - 1] != ' ' && ln->s[w - 1] != '[')
				w--;
			char q[64];
			quote_text(q, sizeof q, ln->s + w, k + 1 - w);
			b->cpu_garbage = true;
			if (hg_strlist_addf(&rep->warnings, rep->arena, "cpu-rate at line %ld: \"%s\" is "
					    "over 100%%: BlockCanary's CPU sampler misread /proc/stat, so "
					    "its CPU figures are not reliable", ln->no, q) != 0)
				return HG_ENOMEM;
		}
	}
	return add_figure(rep, "blockcanary", "cpu-rate", ln->s, ln->len);
}

/* "api-level = 29 10" is Build.VERSION.SDK_INT, then RELEASE: the model's
 * Android os_version is the API level (value, as written, when it does
 * not start with one).  0 or HG_ENOMEM. */
static int api_level(hg_report *rep, const char *v, size_t n, const char *value)
{
	size_t api = 0;
	while (api < n && is_digit(v[api]))
		api++;
	bool level = api > 0 && (api == n || v[api] == ' ');
	rep->os_version = level ? hg_arena_strndup(rep->arena, v, api) : value;
	return rep->os_version ? 0 : HG_ENOMEM;
}

static int header(struct bc *b, const struct line *ln, size_t key_len, const char *v, size_t n)
{
	hg_report *rep = b->rep;
	const char *key = hg_arena_strndup(rep->arena, ln->s, key_len);
	const char *value = hg_arena_strndup(rep->arena, v, n);
	if (!key || !value)
		return HG_ENOMEM;
	enum bc_key k = K_OTHER;
	for (size_t i = 0; i < sizeof known_keys / sizeof *known_keys && k == K_OTHER; i++)
		if (strcmp(key, known_keys[i].name) == 0)
			k = known_keys[i].key;
	b->fields++;
	b->in_cpu = k == K_CPU_RATE;
	b->in_stack = k == K_STACK;
	struct line rest = {v, n, ln->off + (size_t)(v - ln->s), ln->no}; /* the value */
	int rc = 0;
	switch (k) {
	case K_CPU_RATE:
		/* each of its lines is a figure */
		return n > 0 ? cpu_line(b, &rest) : hg_report_add_stat(rep, "blockcanary", key, "");
	case K_STACK:
		/* "stack = <time of the first sample>", or its first frame */
		if (n > 0 && bc_is_timestamp(v, n) && !b->first_sample)
			b->first_sample = value;
		rc = n == 0 ? 0 : bc_is_timestamp(v, n) ? bc_new_sample(b, v, n) : bc_stack_line(b, &rest);
		break;
	case K_CPU_BUSY:
		/* Boolean.toString: anything else says nothing */
		b->cpu_busy = b->cpu_busy >= 0 ? b->cpu_busy : strcmp(value, "true") == 0 ? 1
							 : strcmp(value, "false") == 0 ? 0 : -1;
		break;
	case K_MODEL:
		rep->device = rep->device ? rep->device : value;
		break;
	case K_VERSION_NAME:
		rep->app_version = rep->app_version ? rep->app_version : value;
		break;
	case K_PROCESS:
		rep->process = rep->process ? rep->process : value;
		break;
	case K_API_LEVEL:
		rc = rep->os_version || n == 0 ? 0 : api_level(rep, v, n, value);
		break;
	case K_TIME:
		rc = b->has_time ? 0 : read_ms(b, ln, key, v, n, &b->time);
		b->has_time = true;
		break;
	case K_THREAD_TIME:
		rc = b->has_thread_time ? 0 : read_ms(b, ln, key, v, n, &b->thread_time);
		b->has_thread_time = true;
		break;
	case K_TIME_START:
		b->time_start = b->time_start ? b->time_start : value;
		b->start = b->start ? b->start : bc_is_short_time(v, n) ? value : NULL;
		break;
	case K_TIME_END:
		b->end = b->end ? b->end : bc_is_short_time(v, n) ? value : NULL;
		break;
	case K_OTHER:
		break;
	}
	return rc != 0 ? rc : hg_report_add_stat(rep, "blockcanary", key, value);
}

static bool is_banner(const struct line *ln)
{
	if (ln->len < 10)
		return false;
	for (size_t i = 0; i < ln->len; i++)
		if (ln->s[i] != '*')
			return false;
	return true;
}

#define STOP 1 /* one_line: the rest of the input is another log */
#define WRITE_TIME "(write log time)"

static int one_line(struct bc *b, const struct line *ln)
{
	hg_report *rep = b->rep;
	size_t key_len, n, wt = sizeof WRITE_TIME - 1;
	const char *v;
	if (is_banner(ln)) {
		if (b->fields == 0)
			return 0;
		int rc = hg_strlist_addf(&rep->warnings, rep->arena, "a second BlockCanary log starts "
					 "at line %ld: only the first one is read", ln->no);
		return rc != 0 ? rc : STOP;
	}
	if (ln->len > wt && memcmp(ln->s + ln->len - wt, WRITE_TIME, wt) == 0) {
		if (!b->write_time && !(b->write_time = hg_arena_strndup(rep->arena, ln->s, ln->len - wt)))
			return HG_ENOMEM;
		return add_figure(rep, "blockcanary", "write-log-time", ln->s, ln->len - wt);
	}
	if (header_field(ln, &key_len, &v, &n))
		return header(b, ln, key_len, v, n);
	if (b->in_cpu)
		return cpu_line(b, ln);
	/* Frames without a "stack = " line before them are a stack all the same. */
	if (b->in_stack || (ln->len > 2 && ln->s[ln->len - 1] == ')' && memchr(ln->s, '(', ln->len))) {
		b->in_stack = true;
		return bc_stack_line(b, ln);
	}
	bc_skip(b, ln);
	return 0;
}

static int cpu_figures(struct bc *b)
{
	hg_report *rep = b->rep;
	if (b->cpu_samples == 0)
		return 0;
	char v[32];
	snprintf(v, sizeof v, "%zu", b->cpu_samples);
	int rc = hg_report_add_stat(rep, "block", "cpu-samples", v);
	if (rc != 0 || !b->start || !b->end)
		return rc;
	snprintf(v, sizeof v, "%zu", b->cpu_in_block);
	rc = hg_report_add_stat(rep, "block", "cpu-samples-in-block", v);
	if (rc == 0 && b->cpu_in_block == 0)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "none of the %zu cpu-rate samples was "
				     "taken during the block (%s to %s): they describe other moments",
				     b->cpu_samples, b->start, b->end);
	return rc;
}

/* The report's time: time-start, else the first sample's.  BlockCanary
 * writes them "MM-dd HH:mm:ss.SSS", without a year: the year is the one
 * that puts the time at or before the log's write time (the only field with
 * a year), else the file's time, else now (report_time_yearless, which
 * allows for the unknown zone).  A time with its year is read as any other
 * (report_settle_time). */
static int block_time(struct bc *b)
{
	hg_report *rep = b->rep;
	const char *t = b->time_start ? b->time_start : b->first_sample;
	char out[REPORT_TIME_SIZE], wt[REPORT_TIME_SIZE];
	const char *why = "", *from = "the file's time";
	int64_t ref = b->ctx->file_time_ms;
	if (b->write_time && report_time_parse(b->write_time, strlen(b->write_time), wt, &why) == 0 &&
	    report_time_unix_ms(wt, &ref))
		from = "the log's write time";
	else if (ref == 0) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		ref = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
		from = "the current time";
	}
	b->year_ref = ref; /* the samples' times are placed alike */
	/* "MM-dd " starts a time without its year (with or without its ms) */
	if (!t || strlen(t) < 6 || !is_digit(t[0]) || !is_digit(t[1]) || t[2] != '-' || t[5] != ' ') {
		rep->time = t;
		return 0;
	}
	rep->time_written = t;
	if (report_time_yearless(t, strlen(t), ref, out, &why) != 0)
		return hg_strlist_addf(&rep->warnings, rep->arena, "time \"%.40s\" cannot be read "
				       "(%s): the report's time is unknown", t, why);
	rep->time = hg_arena_strdup(rep->arena, out);
	if (!rep->time)
		return HG_ENOMEM;
	return hg_report_add_stat(rep, "block", "time-year-from", from);
}

static int finish(struct bc *b, const char *text, size_t len)
{
	hg_report *rep = b->rep;
	if (b->fields == 0) {
		struct line ln = {0};
		size_t pos = 0;
		while (next_line(text, len, &pos, &ln) && ln.len == 0)
			;
		char q[64];
		quote_text(q, sizeof q, ln.s ? ln.s : "", ln.len);
		return report_fail(b->err, ln.s ? ln.off : NO_OFFSET, "not a BlockCanary log: no "
				   "\"key = value\" header line (like \"time = 1200\"); the first line "
				   "is \"%s\"", q);
	}
	rep->kind = HG_KIND_BLOCK;
	rep->platform = "android";
	if (b->has_time)
		rep->cost = b->time;
	int rc = b->has_time ? 0 : hg_strlist_addf(&rep->warnings, rep->arena, "no \"time = \" "
						     "line: how long the block lasted is unknown");
	if (rc == 0)
		rc = block_time(b);
	if (rc == 0)
		rc = cpu_figures(b);
	if (rc == 0)
		rc = bc_samples_finish(b);
	if (rc == 0)
		rc = bc_findings(b);
	if (rc == 0 && b->skipped)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "skipped %zu line%s that %s neither "
				     "a header field nor a stack frame (the first at line %ld: \"%s\")",
				     b->skipped, b->skipped == 1 ? "" : "s", b->skipped == 1 ? "is" : "are",
				     b->first_skipped, b->first_skipped_text);
	return rc != 0 ? rc : hg_threads_analyse(&rep->threads, rep->arena, &rep->warnings);
}

/* The input ends in the middle of a frame: the last sample lost the rest
 * of its frames (a log copied or uploaded whole would end in blank lines). */
static int cut_short(struct bc *b, const struct line *ln)
{
	char q[64];
	quote_text(q, sizeof q, ln->s, ln->len);
	return hg_strlist_addf(&b->rep->warnings, b->rep->arena, "line %ld: the log ends in the "
			       "middle of a frame (\"%s\"): the last sample lost its outer frames",
			       ln->no, q);
}

int report_from_blockcanary(const hg_ctx *ctx, const char *text, size_t len, hg_report *rep,
			    struct read_error *err)
{
	struct bc b = {.ctx = ctx, .rep = rep, .err = err, .cpu_busy = -1};
	err->offset = NO_OFFSET;
	err->msg[0] = '\0';
	strcache_init(&b.names, rep->arena);
	if (!(b.scratch = hg_arena_create()))
		return HG_ENOMEM;
	struct line ln = {0};
	size_t pos = 0;
	int rc = 0;
	while (rc == 0 && next_line(text, len, &pos, &ln)) {
		if (ln.len == 0) {
			b.in_cpu = false;
			b.blank_before = true;
			continue;
		}
		rc = one_line(&b, &ln);
		b.blank_before = false;
	}
	if (rc == 0 || rc == STOP)
		rc = finish(&b, text, len);
	if (rc == 0 && ln.no == b.last_skipped && len > 0 && text[len - 1] != '\n' &&
	    memchr(ln.s, '(', ln.len) && ln.s[ln.len - 1] != ')')
		rc = cut_short(&b, &ln);
	bc_samples_release(&b);
	return rc;
}
