/* Text on stdout and stderr, with what an upload holds shown visibly.
 *
 * The renderers escape the names they fit to a width (hg_buf_visible);
 * this is the step every byte of text output passes last, so that a name,
 * path, title or message that reached the text some other way still cannot
 * send the terminal a command.  Data formats (JSON, CSV, SVG, speedscope,
 * a stored report's own text) are written with fwrite, exactly. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static bool stdout_colour;

void cli_text_colour(bool on)
{
	stdout_colour = on;
}

void cli_write_text(FILE *to, const char *s, size_t len)
{
	unsigned flags = HG_VISIBLE_LINES | (to == stdout && stdout_colour ? HG_VISIBLE_COLOUR : 0);
	if (hg_text_is_visible(s, len, flags)) { /* the usual case: nothing to escape */
		fwrite(s, 1, len, to);
		return;
	}
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_visible_as(&b, s, len, flags);
	if (b.len)
		fwrite(b.data, 1, b.len, to);
	hg_buf_release(&b);
}

static void write_formatted(FILE *to, const char *fmt, va_list ap)
{
	char small[512];
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(small, sizeof small, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		cli_write_text(to, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (big) {
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		cli_write_text(to, big, (size_t)n);
		free(big);
	}
}

void cli_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	write_formatted(stdout, fmt, ap);
	va_end(ap);
}

void cli_fprintf(FILE *to, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	write_formatted(to, fmt, ap);
	va_end(ap);
}

void cli_write_stored(FILE *to, const char *s, size_t len)
{
	if (isatty(fileno(to)))
		cli_write_text(to, s, len);
	else
		fwrite(s, 1, len, to);
}

void cli_fputs(const char *s, FILE *to)
{
	cli_write_text(to, s, strlen(s));
}
