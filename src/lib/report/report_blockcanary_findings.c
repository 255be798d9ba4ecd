/* What a BlockCanary log's figures say (private to report_blockcanary.c),
 * read as BlockCanary (AndroidPerformanceMonitor) computes them:
 *
 *   time, thread-time  the message's wall time and the main thread's own CPU
 *                      time (SystemClock.currentThreadTimeMillis) over it: a
 *                      thread that ran for a small part of the block waited
 *                      (a lock, I/O, binder) or was kept off the CPU;
 *   cpu-busy           CpuSampler.isCpuBusy: two of its own samples near the
 *                      block's start came more than 1.2 x the dump interval
 *                      apart, i.e. the sampler's thread itself could not run
 *                      on time: the CPU was busy.  With a low thread time
 *                      that is contention (other threads or processes held
 *                      the CPU); with a high one, the block is the app's own
 *                      work on a loaded device;
 *   cpu-rate           /proc/stat deltas: the device's CPU use, the app's
 *                      share, user, system and ioWait;
 *   the threshold      is not written; StackSampler's first sample comes
 *                      0.8 x the block threshold after the message began
 *                      (getSampleDelay), then one every dump interval, so
 *                      the first sample's time gives it (rounded down to
 *                      50 ms, as lateness only adds).
 *
 * The findings are header lines (group "header": threshold, cpu, finding),
 * "block" figures, and a warning when the main thread mostly waited. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_blockcanary_internal.h"

/* The percentage after key ("cpu:52%"), or -1. */
static long percent_after(const struct line *ln, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k < ln->len; i++) {
		if (memcmp(ln->s + i, key, k) != 0 || (i > 0 && ln->s[i - 1] != ' ' && ln->s[i - 1] != '['))
			continue;
		long v = 0;
		size_t j = i + k;
		for (; j < ln->len && is_digit(ln->s[j]) && v <= 100; j++)
			v = v * 10 + (ln->s[j] - '0');
		return j > i + k && j < ln->len && ln->s[j] == '%' && v <= 100 ? v : -1;
	}
	return -1;
}

void bc_cpu_rates(struct bc *b, const struct line *ln)
{
	long cpu = percent_after(ln, "cpu:"), app = percent_after(ln, "app:"),
	     io = percent_after(ln, "ioWait:");
	if (cpu < 0 || app < 0 || io < 0)
		return;
	b->cpu_sum[0] += cpu;
	b->cpu_sum[1] += app;
	b->cpu_sum[2] += io;
	b->cpu_summed++;
}

static int header_line(hg_report *rep, const char *name, const char *value)
{
	return hg_report_add_stat(rep, "header", name, value);
}

/* The threshold the first sample's delay implies, or 0. */
static int64_t threshold(const struct bc *b, int64_t *delay)
{
	const hg_report *rep = b->rep;
	int64_t start = b->time_start ? bc_time_ms(b, b->time_start) : -1;
	if (start < 0 || rep->n_samples == 0 || rep->samples[0].at < 0)
		return 0;
	*delay = rep->samples[0].at - start;
	if (*delay <= 0 || *delay > INT64_MAX / 5)
		return 0;
	int64_t t = *delay * 5 / 4 / 50 * 50;
	/* BlockCanary logs a block only when it lasted more than the threshold */
	return t >= 50 && (!b->has_time || t < b->time) ? t : 0;
}

static int threshold_line(struct bc *b)
{
	hg_report *rep = b->rep;
	int64_t delay = 0, t = threshold(b, &delay);
	char v[128];
	int rc = 0;
	if (rep->sample_interval > 0) {
		snprintf(v, sizeof v, "%" PRId64, rep->sample_interval);
		rc = hg_report_add_stat(rep, "block", "dump-interval-ms", v);
	}
	if (rc != 0 || t == 0)
		return rc;
	rep->threshold = t;
	snprintf(v, sizeof v, "about %" PRId64 " ms (the first sample came %" PRId64 " ms in, at "
		 "0.8 x the threshold)", t, delay);
	return header_line(rep, "threshold", v);
}

/* The device's CPU while the block lasted, and cpu-busy. */
static int cpu_line(struct bc *b)
{
	hg_report *rep = b->rep;
	char v[160] = "", fig[32];
	size_t n = b->cpu_summed;
	int rc = 0;
	if (n > 0 && !b->cpu_garbage) {
		static const char *const names[] = {"cpu-percent-in-block", "app-percent-in-block",
						    "iowait-percent-in-block"};
		for (int i = 0; i < 3 && rc == 0; i++) {
			snprintf(fig, sizeof fig, "%" PRId64, b->cpu_sum[i] / (int64_t)n);
			rc = hg_report_add_stat(rep, "block", names[i], fig);
		}
		snprintf(v, sizeof v, "%" PRId64 "%% used, app %" PRId64 "%%, ioWait %" PRId64 "%% "
			 "(%zu sample%s in the block)", b->cpu_sum[0] / (int64_t)n,
			 b->cpu_sum[1] / (int64_t)n, b->cpu_sum[2] / (int64_t)n, n, n == 1 ? "" : "s");
	}
	if (rc != 0 || (b->cpu_busy < 0 && !*v))
		return rc;
	char line[224];
	snprintf(line, sizeof line, "%s%s%s", b->cpu_busy < 0 ? "" : b->cpu_busy ? "busy (cpu-busy)"
		 : "not busy (cpu-busy false)", b->cpu_busy >= 0 && *v ? "; " : "", v);
	return header_line(rep, "cpu", line);
}

/* Wall time against the main thread's CPU time, with cpu-busy: whose time
 * the block was. */
static int verdict(struct bc *b)
{
	hg_report *rep = b->rep;
	if (!b->has_time || !b->has_thread_time)
		return 0;
	char v[200];
	snprintf(v, sizeof v, "%" PRId64, b->time > b->thread_time ? b->time - b->thread_time : 0);
	int rc = hg_report_add_stat(rep, "block", "waited-ms", v);
	double pct = b->time > 0 ? 100.0 * (double)b->thread_time / (double)b->time : 0;
	if (rc == 0 && b->time > 0) {
		snprintf(v, sizeof v, "%.1f", pct);
		rc = hg_report_add_stat(rep, "block", "thread-time-percent", v);
	}
	if (rc != 0 || b->time <= 0)
		return rc;
	bool waited = b->thread_time * 2 < b->time;
	const char *what = !waited ? (b->cpu_busy == 1 ? "its own work, on a busy CPU (cpu-busy)"
						       : "its own work: the main thread computed")
			   : b->cpu_busy == 1 ? "contention: a busy CPU (cpu-busy) ran others"
			   : b->cpu_busy == 0 ? "waiting: blocked (a lock, I/O, IPC), not short of CPU"
					      : "waiting: the main thread was blocked";
	snprintf(v, sizeof v, "%s; it ran %" PRId64 " of %" PRId64 " ms (%.0f%%)", what,
		 b->thread_time, b->time, pct);
	rc = header_line(rep, "finding", v);
	if (rc != 0 || !waited)
		return rc;
	if (b->cpu_busy == 1)
		return hg_strlist_addf(&rep->warnings, rep->arena, "the main thread waited (thread time "
				       "%" PRId64 " ms of %" PRId64 " ms wall) while the CPU was busy "
				       "(cpu-busy = true): other threads or processes kept it off the CPU",
				       b->thread_time, b->time);
	return hg_strlist_addf(&rep->warnings, rep->arena, "the main thread waited (thread time "
			       "%" PRId64 " ms of %" PRId64 " ms wall): it was blocked, not computing%s",
			       b->thread_time, b->time, b->cpu_busy == 0 ? " (a lock, I/O or a call "
			       "to another process: cpu-busy = false)" : "");
}

int bc_findings(struct bc *b)
{
	int rc = threshold_line(b);
	if (rc == 0)
		rc = cpu_line(b);
	if (rc == 0)
		rc = verdict(b);
	return rc;
}
