/* Diagnostics on stderr, usage errors, option values, colour. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hangar/render.h"
#include "hangar/beat.h"

void cli_format_diag(hg_buf *out, struct cli_diag_sink *sink, const hg_diag *d)
{
	if (sink) {
		sink->errors += d->severity == HG_DIAG_ERROR;
		snprintf(sink->last, sizeof sink->last, "%s", d->message);
	}
	const char *sev = d->severity == HG_DIAG_ERROR ? "error" : "warning";
	if (d->severity == HG_DIAG_NOTE)
		hg_buf_printf(out, "%s: ", d->source);
	else if (d->line > 0 && d->col > 0)
		hg_buf_printf(out, "%s:%ld:%ld: %s: ", d->source, d->line, d->col, sev);
	else if (d->line > 0)
		hg_buf_printf(out, "%s:%ld: %s: ", d->source, d->line, sev);
	else
		hg_buf_printf(out, "%s: %s: ", d->source, sev);
	if (d->report > 0)
		hg_buf_printf(out, "report %ld: ", d->report);
	hg_buf_puts(out, d->message);
	hg_buf_putc(out, '\n');
}

/* Whether a progress line is on stderr: diagnostics come from the
 * library's threads, progress from another. */
static atomic_bool progress_open;

void cli_progress_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputc('\r', stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\033[K", stderr); /* the rest of a longer line before it */
	va_end(ap);
	fflush(stderr);
	atomic_store(&progress_open, true);
}

void cli_progress_end(void)
{
	if (atomic_exchange(&progress_open, false))
		fputs("\r\033[K", stderr);
}

void cli_print_diag(void *user, const hg_diag *d)
{
	cli_progress_end();
	hg_buf line;
	hg_buf_init(&line);
	cli_format_diag(&line, user, d);
	if (line.len)
		cli_write_text(stderr, line.data, line.len);
	hg_buf_release(&line);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "hangar %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'hangar %s --help'.\n", cmd);
	va_end(ap);
	return EXIT_USAGE;
}

int cli_format_error(const char *cmd, const char *name, unsigned renders)
{
	hg_buf names;
	hg_buf_init(&names);
	hg_output_format_names(&names, renders);
	int rc = cli_usage_error(cmd, "unknown format '%s' (%s)", name,
				 names.failed ? "see --help" : names.data);
	hg_buf_release(&names);
	return rc;
}

static int need(const char *cmd, const char *option, const char *path, bool folder)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return cli_usage_error(cmd, "%s %s: %s", option, path, strerror(errno));
	if (folder && !S_ISDIR(st.st_mode))
		return cli_usage_error(cmd, "%s %s: not a folder", option, path);
	return EXIT_FINE;
}

int cli_need_folder(const char *cmd, const char *option, const char *path)
{
	return need(cmd, option, path, true);
}

int cli_need_path(const char *cmd, const char *option, const char *path)
{
	return need(cmd, option, path, false);
}

bool cli_parse_int64(const char *s, int64_t *out)
{
	return s && hg_parse_int64(s, strlen(s), out) == 0;
}

bool cli_use_color(enum color_mode mode, FILE *stream)
{
	if (mode == COLOR_NEVER)
		return false;
	const char *no_color = getenv("NO_COLOR");
	if (no_color && no_color[0])
		return false;
	if (mode == COLOR_ALWAYS)
		return true;
	const char *term = getenv("TERM");
	return isatty(fileno(stream)) && !(term && strcmp(term, "dumb") == 0);
}
