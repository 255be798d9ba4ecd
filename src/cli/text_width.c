/* The width of text output: the terminal's, or --width's value. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "hangar/beat.h"
#include "hangar/render.h"

int cli_default_width(int fd)
{
	if (!isatty(fd))
		return 0; /* piped: whole lines, for grep */
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *cols = getenv("COLUMNS");
	char *end;
	long v = cols && *cols ? strtol(cols, &end, 10) : 0;
	if (cols && *cols && !*end && v > 0 && v < HG_RENDER_MAX_WIDTH)
		return (int)v;
	return 80;
}

bool cli_parse_width(const char *s, int *out)
{
	int64_t v;
	if (!s || hg_parse_int64(s, strlen(s), &v) != 0 || v < 0)
		return false;
	*out = v >= HG_RENDER_MAX_WIDTH ? 0 : (int)v; /* wider than any screen: no limit */
	return true;
}
