/* The note of top and diff about reports of unknown time: a time window
 * cannot place them, and a count that silently misses them would look
 * like a quiet week. */
#include <inttypes.h>
#include <stdio.h>

#include "store_cli.h"

void cli_note_untimed(hg_store *store, const char *cmd, const char *since, const char *until)
{
	int64_t n = 0;
	if ((!since && !until) || hg_store_count_untimed(store, &n) != 0 || n == 0)
		return;
	fprintf(stderr, "hangar %s: note: %" PRId64 " report%s of unknown time %s outside the time "
		"window (see hangar-formats(5), Times)\n", cmd, n, n == 1 ? "" : "s",
		n == 1 ? "is" : "are");
}
